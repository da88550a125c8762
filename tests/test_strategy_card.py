"""Strategy cards: recipes against hand-worked settings, the features' words, the cost-sensitive
tree against brute force, the card's text, and scripts/strategy_card.py (tiny runs against a
small dealer pool, refusals before any work)."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from splitpoker.agents.evaluation.card_features import (
    FEATURE_INDEX,
    FEATURES,
    describe,
    feature_matrix,
)
from splitpoker.agents.evaluation.labels import HandLabels
from splitpoker.agents.evaluation.recipes import Recipe, hand_view, recipe_settings, recipes
from splitpoker.agents.evaluation.rule_learner import CostTree, best_split
from splitpoker.agents.evaluation.strategy_card import CardData, fit_card, make_card
from splitpoker.envs.rules.cards import format_cards, hand_array
from splitpoker.envs.rules.game import Game

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "strategy_card.py"
_spec = importlib.util.spec_from_file_location("strategy_card_script", SCRIPT)
card_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(card_script)


def run_main(*args):
    try:
        return card_script.main([*map(str, args)])
    except SystemExit as e:
        return e.code


def ranks(cards) -> str:
    """The ranks of some cards, highest first (suits do not matter in these hands)."""
    return " ".join(sorted((c[:-1] for c in format_cards(cards).split()), key="23456789TJQKA".index, reverse=True))


def hands_of(game, cards, s):
    return {slot: ranks(h) for slot, h in game.describe(hand_array(cards), s).hands().items()}


# (game, recipe, cards, expected hands), each worked by hand
WORKED = [
    # one pair: the pair in back, the two highest other cards in front (IGW's one-pair rule)
    ("paigow", ("groups", (1, 0)), "Ks Kd 9c 7h 5s 3d 2c", {"back": "Ks Kd 5s 3d 2c", "front": "9c 7h"}),
    # two pair: split the pairs, the higher in back
    ("paigow", ("pair2", (0, 1)), "Ks Kd 5c 5h 9s 3d 2c", {"back": "Ks Kd 9s 3d 2c", "front": "5h 5c"}),
    # keep the straight, highest two in front: T-9-8-7-6 would leave A-5; 9-8-7-6-5 leaves A-T
    ("paigow", ("sf", (1, 0)), "Ts 9d 8c 7h 6s 5d Ac", {"back": "9d 8c 7h 6s 5d", "front": "Ac Ts"}),
    # no pair, best front: A-K in front would foul (a 9-high back), so K-9 with the ace in back
    ("paigow", ("any", (1, 0)), "As Kd 9c 7h 5s 3d 2c", {"back": "As 7h 5s 3d 2c", "front": "Kd 9c"}),
    # no pair, second and fourth highest in front: a strong back (A-T) over a strong front
    ("paigow", ("alt", (1, 0)), "2d 3s 6d 7h Ts Kd As", {"back": "As Ts 6d 3s 2d", "front": "Kd 7h"}),
    # trips of aces split: one ace in front with the king, a pair of aces in back
    ("paigow", ("split", (1, 0)), "As Ad Ac Kh 9s 5d 2c", {"back": "As Ad 9s 5d 2c", "front": "Ac Kh"}),
    # Asia one pair: pair in High; best Medium (9-7), then Low (5)
    ("asia", ("groups", (1, 2, 0)), "Ks Kd 9c 7h 5s 3d 2c", {"high": "Ks Kd 3d 2c", "medium": "9c 7h", "low": "5s"}),
    # Asia two pair, a pair in Medium, then the best High: K-K-9-3 over K-K-9-2, the deuce Low
    ("asia", ("pair2", (0, 2, 1)), "Ks Kd 5c 5h 9s 3d 2c", {"high": "Ks Kd 9s 3d", "medium": "5h 5c", "low": "2c"}),
    # Asia, a pair in High and the best Low first: an ace Low, the other ace and the king Medium, the fives High
    ("asia", ("pair1", (2, 1, 0)), "As Ad 5c 5h Kd 3d 2c", {"high": "5h 5c 3d 2c", "medium": "Ad Kd", "low": "As"}),
]


@pytest.mark.parametrize("game_name,recipe,cards,expected", WORKED, ids=[f"{w[0]}:{w[2]}" for w in WORKED])
def test_recipe_settings_of_worked_hands(game_name, recipe, cards, expected):
    game = Game(game_name)
    r = Recipe(game_name, *recipe)
    s = r.setting(hand_view(game, cards))
    assert hands_of(game, cards, s) == {slot: ranks(hand_array(h)) for slot, h in expected.items()}
    assert not game.describe(hand_array(cards), s).fouled
    assert recipe_settings(game, hand_array(cards)[None, :], (r,))[0, 0] == s


def test_a_recipe_that_cannot_be_followed_plays_its_order_alone():
    game = Game("paigow")
    cards = "As Kd 9c 7h 5s 3d 2c"  # no straight or flush: "keep it in back" cannot be followed
    assert Recipe("paigow", "sf", (1, 0)).setting(hand_view(game, cards)) == \
        Recipe("paigow", "any", (1, 0)).setting(hand_view(game, cards))


def test_recipe_books_and_texts():
    assert len(recipes("paigow")) == 12 and len(recipes("asia")) == 42
    assert len({r.name for r in recipes("asia")}) == 42
    assert Recipe("paigow", "pair2", (0, 1)).text == "A pair in front; then the best back hand, then the best front hand."
    assert Recipe("asia", "any", (1, 2, 0)).text == \
        "The best Medium hand, then the best Low card, then the best High hand."


@pytest.mark.parametrize("feature,lo,hi,text", [
    ("top_pair", -1, 4, "highest pair 6s or lower (if any)"),
    ("top_pair", 5, 12, "highest pair 7s or higher"),
    ("top_pair", 9, 9, "highest pair jacks"),
    ("top_pair", -1, -1, "no highest pair"),
    ("top_single", 12, 12, "highest singleton A"),
    ("pairs", 2, 3, "2 or more pairs"),
    ("pairs", 0, 1, "1 or fewer pairs"),
    ("straight", 0, 0, "no straight"),
    ("joker", 1, 1, "the joker"),
    ("cat_two_pair", 1, 1, "two pair"),
    ("cat_two_pair", 0, 0, "not two pair"),
    ("pairs", 0, 3, None),
])
def test_conditions_in_words(feature, lo, hi, text):
    assert describe(FEATURES[FEATURE_INDEX[feature]], lo, hi) == text


def test_a_condition_never_holds_the_comma_that_joins_conditions():
    """A card joins its conditions with ", ": a category named "one pair, straight or flush" printed
    "not one pair, straight or flush", which reads as "not one pair" and "a straight or flush"."""
    from splitpoker.agents.evaluation.card_features import describe_conjunction
    for feature in FEATURES:
        for lo, hi in ((feature.low, feature.low), (feature.high, feature.high), (feature.low + 1, feature.high)):
            text = describe(feature, lo, hi)
            assert text is None or ", " not in text, (feature.name, lo, hi, text)
    one_pair_sf = FEATURE_INDEX["cat_one_pair_sf"]
    bounds = {FEATURE_INDEX["cat_no_pair"]: (0, 0), one_pair_sf: (0, 0), FEATURE_INDEX["joker"]: (0, 0)}
    assert describe_conjunction(bounds) == "not no pair, not one pair with a straight or flush, no joker"
    assert describe_conjunction({one_pair_sf: (1, 1)}) == "one pair with a straight or flush"
    no_pairs = {FEATURE_INDEX["cat_no_pair"]: (0, 0), FEATURE_INDEX["cat_no_pair_sf"]: (0, 0), one_pair_sf: (0, 0)}
    assert describe_conjunction(no_pairs) == \
        "not no pair (with or without a straight or flush), not one pair with a straight or flush"


def test_features_of_a_worked_hand():
    x = feature_matrix(hand_array("JK Ks Kd 9c 9h 5s 2c")[None, :], 5)[0]
    f = {feat.name: int(v) for feat, v in zip(FEATURES, x, strict=True)}
    assert (f["pairs"], f["top_pair"], f["second_pair"], f["top_single"], f["second_single"]) == (2, 11, 7, 12, 3)
    assert (f["high_singles"], f["joker"], f["cat_two_pair"], f["cat_one_pair"]) == (1, 1, 1, 0)


# ---- the learner ----------------------------------------------------------------------------------

@pytest.mark.parametrize("criterion", ["cost", "spread", "hybrid"])
def test_best_split_equals_exhaustive_search(criterion):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(60, 3))
    C = rng.uniform(0, 1, size=(60, 4))
    C[X[:, 1] > 3, 0] = 0.0

    def spread(rows):
        return ((C[rows] - C[rows].mean(axis=0)) ** 2).sum() if rows.any() else 0.0

    def gains(f, t):
        left = X[:, f] <= t
        cost = C.sum(0).min() - C[left].sum(0).min() - C[~left].sum(0).min()
        spr = spread(np.ones(60, bool)) - spread(left) - spread(~left)
        return {"cost": (cost,), "spread": (spr,), "hybrid": (cost if cost > 1e-12 else 0.0, spr)}[criterion]

    brute = max((gains(f, t), f, t) for f in range(3) for t in range(5) if 5 <= (X[:, f] <= t).sum() <= 55)
    gain, f, t = best_split(X, C, np.arange(60), min_leaf=5, criterion=criterion)
    assert (f, t) == brute[1:]
    assert np.allclose(gain if criterion == "hybrid" else (gain,), brute[0])


def test_tree_sizes_are_nested_and_predict_from_leaves():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 8, size=(300, 4))
    C = rng.uniform(0, 1, size=(300, 5))
    C[X[:, 0] > 4, 2] = 0.0  # a structure to find
    tree = CostTree(X, C, grow_leaves=12, min_leaf=10)
    assert tree.max_leaves == 12
    costs = [C[np.arange(300), tree.predict(X, k)].sum() for k in range(1, tree.max_leaves + 1)]
    assert all(b <= a + 1e-9 for a, b in zip(costs, costs[1:], strict=False))  # pruning only adds cost
    previous = None
    for k in range(1, tree.max_leaves + 1):
        leaves = tree.leaves(k)
        assert len(leaves) == k and sum(leaf.index.size for leaf in leaves) == 300
        for j, leaf in enumerate(leaves):  # every training row's leaf holds it, and its bounds admit it
            assert (tree.predict_leaf(X[leaf.index], k) == j).all()
            assert leaf.action == int(np.argmin(C[leaf.index].sum(axis=0)))
            for f, (lo, hi) in leaf.bounds.items():
                assert ((X[leaf.index, f] >= lo) & (X[leaf.index, f] <= hi)).all()
        ids = {id(leaf) for leaf in leaves}
        if previous is not None:  # nested: one leaf of k-1 became two leaves of k
            assert len(previous - ids) == 1 and len(ids - previous) == 2
        previous = ids
    assert {leaf.action for leaf in tree.leaves(2)} >= {2}  # the first split finds X0 > 4 (recipe 2 free)
    with pytest.raises(ValueError, match="expected 1..12"):
        tree.leaves(13)


def _synthetic(game, texts, cost_of):
    cards = np.array([hand_array(t) for t in texts])
    book = recipes(game.game)[:2]
    ev = np.zeros((len(cards), game.n_settings))
    labels = HandLabels("exact", True, "splitpoker/PaiGowPokerSetting-v0", 1, tuple(range(len(cards))), cards, ev)
    X = feature_matrix(cards, 5)
    cost = np.array([cost_of(x) for x in X], dtype=float)
    return CardData(labels, X, np.zeros((len(cards), 2), dtype=np.int64), cost, np.zeros(len(cards), np.int64), book)


def test_card_text_of_a_known_two_rule_card():
    game = Game("paigow")
    one_pair = ["Ks Kd 9c 7h 5s 3d 2c", "Qs Qd 9c 7h 5s 3d 2c", "8s 8d Ac Jh 5s 3d 2c"] * 4
    two_pair = ["Ks Kd 5c 5h 9s 3d 2c", "Qs Qd 4c 4h Ts 8d 2c", "9s 9d 3c 3h As 7d 2c"] * 4
    pairs = FEATURE_INDEX["pairs"]
    data = _synthetic(game, one_pair + two_pair, lambda x: [0.0, 1.0] if x[pairs] == 1 else [1.0, 0.0])
    tree = CostTree(data.X, data.cost, grow_leaves=2, min_leaf=2, feature_ranges=[(f.low, f.high) for f in FEATURES],
                    criterion="cost")
    card = make_card(game, "paigow-igw", data, tree, 2)
    r0, r1 = data.book
    assert card.text().splitlines()[:5] == [
        "Strategy card: Pai Gow Poker against the paigow-igw house way",
        "(2 rules, read from the top: the first that applies decides; fitted on 24 exactly solved hands, seed 1)", "",
        f" 1. If not one pair: {r1.text}", f" 2. Any other hand: {r0.text}"]  # the category comes first
    assert [r["recipe"] for r in card.rules] == [r1.name, r0.name]
    assert np.array_equal(card.play(data), data.settings[np.arange(24), [0] * 12 + [1] * 12])
    chosen, sel = fit_card(game, "paigow-igw", data, max_rules=5, min_leaf=2, validation=0.5)
    assert sel["fit_hands"] == 12 and chosen.k <= 5


# ---- the script -----------------------------------------------------------------------------------

def test_help():
    out = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "--max-rules" in out.stdout and "held-out" in out.stdout


def test_tiny_run(tmp_path):
    out, plot = tmp_path / "card.json", tmp_path / "curve.png"
    assert run_main("--game", "paigow", "--train-hands", 40, "--test-hands", 20, "--max-pool-card", 18,
                    "--max-rules", 4, "--min-leaf", 3, "--curve", 4, "--plot", plot, "--json", "--out", out) == 0
    res = json.loads(out.read_text())
    for key in ("rules", "exact_regret", "exact_regret_ci95", "house_way_exact_regret", "text", "curve"):
        assert key in res
    numbered = [line for line in res["text"].splitlines() if re.match(r"^ ?\d+\. (If |Any hand:|Any other hand:)", line)]
    assert 1 <= len(res["rules"]) <= 4 and len(numbered) == len(res["rules"])
    assert res["labeller"] == "small-pool" and res["exact"] is False and plot.stat().st_size > 0
    sizes = [p["rules"] for p in res["curve"]]
    assert sizes == sorted(set(sizes)) and 1 <= min(sizes) and max(sizes) <= 4


@pytest.mark.parametrize("argv,fragment", [
    (["--game", "paigow", "--train-seed", "3", "--test-seed", "3"], "held-out hands must come from another seed"),
    (["--game", "paigow", "--plot", "{t}/c.png"], "needs --curve"),
    (["--game", "paigow", "--out", "{t}/missing/c.json"], "does not exist"),
    (["--game", "paigow", "--out", "{t}/c.txt"], "expected a file ending in .json"),
    (["--game", "paigow", "--style", "asia-000"], "asia-000"),
    (["--game", "paigow", "--max-rules", "0"], "--max-rules"),
    (["--game", "paigow", "--solved", "{t}"], "not a solved store"),
    (["--game", "asia", "--rules", "{\"nope\": 1}"], "nope"),
])
def test_bad_input_is_refused_before_any_work(tmp_path, monkeypatch, capsys, argv, fragment):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(cache))
    assert run_main(*[a.replace("{t}", str(tmp_path)) for a in argv]) == 2
    assert fragment in capsys.readouterr().err
    assert not cache.exists() and not list(tmp_path.glob("c.*"))


def test_simplified_rule_list_costs_no_more_than_its_tree():
    from splitpoker.agents.evaluation.decision_list import (
        actions,
        rules_from_leaves,
        simplify,
        total_cost,
    )

    rng = np.random.default_rng(6)
    X = rng.integers(0, 6, size=(400, 4))
    C = rng.uniform(0, 1, size=(400, 4))
    C[(X[:, 0] > 3) & (X[:, 1] < 2), 1] = 0.0
    tree = CostTree(X, C, grow_leaves=10, min_leaf=5)
    for k in (1, 4, 10):
        leaves = rules_from_leaves(tree.leaves(k))
        rules = simplify(X, C, leaves)
        assert total_cost(X, C, rules) <= C[np.arange(400), tree.predict(X, k)].sum() + 1e-9
        assert rules[-1][0] == {} and len(rules) <= k
        assert sum(len(b) for b, _ in rules) <= sum(len(b) for b, _ in leaves)
        assert ((actions(X, rules) >= 0) & (actions(X, rules) < 4)).all()  # every hand gets a recipe


def _simplify_reference(X, C, rules, order=None):
    """The definition, read literally (slow): for each rule in turn, for each of its conditions
    in ``order``, drop it if the rule list's total training cost does not rise; the last rule
    takes every hand left; cut after the first rule without conditions; drop unreached rules."""
    from splitpoker.agents.evaluation.decision_list import TOLERANCE, which_rule

    rules = [(dict(b), a) for b, a in rules]
    rules[-1] = ({}, rules[-1][1])
    acts = np.array([a for _, a in rules])
    rank = {f: i for i, f in enumerate(order)} if order is not None else {}

    def cost(rs):
        return C[np.arange(X.shape[0]), acts[which_rule(X, rs)]].sum()

    for j in range(len(rules) - 1):
        for f in sorted(rules[j][0], key=lambda f: rank.get(f, -1)):
            looser = rules[:j] + [({g: b for g, b in rules[j][0].items() if g != f}, rules[j][1])] + rules[j + 1:]
            here = cost(rules)
            if cost(looser) - here <= TOLERANCE * max(1.0, here):
                rules = looser
    first_free = next(j for j, (b, _) in enumerate(rules) if not b)
    rules = rules[:first_free + 1]
    used = set(which_rule(X, rules).tolist())
    return [r for j, r in enumerate(rules) if j in used or j == len(rules) - 1]


def test_simplify_equals_its_definition_on_random_rule_lists():
    """decision_list.simplify (incremental: only hands failing one condition can move) gives the
    rule list of the literal definition, on random lists over random hands and costs with ties."""
    from splitpoker.agents.evaluation.decision_list import simplify

    rng = np.random.default_rng(11)
    for trial in range(300):
        n, nf, na = int(rng.integers(5, 300)), int(rng.integers(1, 7)), int(rng.integers(2, 5))
        X = rng.integers(0, 5, size=(n, nf))
        C = rng.choice([0.0, 0.0, 0.125, 0.25, 1.0], size=(n, na))  # exact in binary: ties are exact
        rules = []
        for _ in range(int(rng.integers(1, 10))):
            fs = rng.choice(nf, size=int(rng.integers(0, nf + 1)), replace=False)
            rules.append(({int(f): tuple(sorted(int(v) for v in rng.integers(0, 5, 2))) for f in fs},
                          int(rng.integers(0, na))))
        order = [int(f) for f in rng.permutation(nf)] if trial % 2 else None
        assert simplify(X, C, rules, order) == _simplify_reference(X, C, rules, order), trial


def test_card_out_is_a_card_file_that_names_its_learner(tmp_path):
    """--card-out writes the fitted card as a card file: it loads, holds the fitted rules, and its
    source names the command's learner and the held-out figures it printed."""
    from splitpoker.agents.evaluation.card_file import load_card

    out, card_path = tmp_path / "card.json", tmp_path / "card.yaml"
    assert run_main("--game", "paigow", "--train-hands", 40, "--test-hands", 20, "--max-pool-card", 18,
                    "--max-rules", 3, "--min-leaf", 3, "--learner", "list", "--json", "--out", out,
                    "--card-out", card_path) == 0
    res = json.loads(out.read_text())
    card = load_card(card_path)
    assert card.game == "paigow" and card.style == "paigow-igw" and len(card.rules) == len(res["rules"])
    assert card.source.startswith("fitted by scripts/strategy_card.py --learner list on 40 exactly solved hands")
    assert f"{res['exact_regret']:.5f}" in card.source and f"{res['house_way_exact_regret']:.5f}" in card.source
