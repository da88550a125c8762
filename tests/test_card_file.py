"""Card files: written strategies loaded, refused when bad, played, and scored exactly.

The scores are checked against a recomputation that does not use the recipes: the setting a rule
must make is found by the cards it puts in front, and the regret is read off the EVs directly."""

from __future__ import annotations

import json
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
from splitpoker.agents.evaluation.card_file import (
    CardError,
    card_choice,
    card_yaml,
    fitted_card_path,
    load_card,
    parse_card,
)
from splitpoker.agents.evaluation.card_score import score_card
from splitpoker.agents.evaluation.labels import HandLabels, house_way_rules
from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import get_spec

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ROOT / "configs" / "strategies"
FRONT = get_spec("paigow").positions[1]  # FRONT[s]: the positions (in the sorted hand) of setting s's front hand


def hand(text: str) -> np.ndarray:
    return np.sort(np.array(parse_cards(text), dtype=np.int64))


def setting_with_front(cards: np.ndarray, front: str) -> int:
    """The one setting whose front hand holds exactly the cards ``front`` (found by the cards)."""
    want = set(parse_cards(front))
    hits = [s for s in range(FRONT.shape[0]) if set(cards[FRONT[s]].tolist()) == want]
    assert len(hits) == 1, (front, hits)
    return hits[0]


CARD = """
game: paigow
name: test card
rules:
  - name: one pair
    if: {cat_one_pair: 1}
    then: groups:fb
  - name: two pair
    if: {pairs: 2, trips: 0}
    then: pair2:bf
  - name: the rest
    then: any:fb
"""
# hand, the rule that must take it (0-based), the front hand that rule makes (by the card's words)
HANDS = [
    ("As Ks 9c 9h 5s 3c 2d", 0, "As Ks"),  # one pair: pair in back, the two highest others in front
    ("Kd Kc 7h 7s 4d 3c 2h", 1, "7h 7s"),  # two pair split: the lower pair in front
    ("Ah Qd 9s 7c 5h 4d 2s", 2, "Qd 9s"),  # no pair: the second and third highest in front
    ("Qh Qd Jc Js 3h 3d 8s", 2, "Qh Qd"),  # three pairs (pairs 3): the fallback, the best front hand
]


@pytest.fixture(scope="module")
def game():
    return Game("paigow", "paigow-igw")


def write(tmp_path, text: str, name: str = "card.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_written_card_scores_as_an_independent_recomputation(tmp_path, game):
    card = load_card(write(tmp_path, CARD))
    cards = np.stack([hand(h) for h, _, _ in HANDS])
    rng = np.random.default_rng(7)
    ev = rng.uniform(-0.5, 0.5, size=(len(HANDS), game.n_settings))
    labels = HandLabels("exact", True, "splitpoker/PaiGowPokerSetting-v0", 0, tuple(range(len(HANDS))), cards, ev)
    expected = np.array([setting_with_front(c, front) for c, (_, _, front) in zip(cards, HANDS, strict=True)])
    regret = ev.max(axis=1) - ev[np.arange(len(HANDS)), expected]
    hw = house_way_rules(game, cards)[0]
    hw_regret = ev.max(axis=1) - ev[np.arange(len(HANDS)), hw]

    s = score_card(card, game, labels)
    assert s["exact_regret"] == pytest.approx(regret.mean(), abs=1e-12)
    assert s["house_way_exact_regret"] == pytest.approx(hw_regret.mean(), abs=1e-12)
    assert s["minus_house_way"] == pytest.approx((regret - hw_regret).mean(), abs=1e-12)
    assert s["optimal_rate"] == pytest.approx(float((regret <= 0).mean()))
    rules = [r for _, r, _ in HANDS]
    for e in s["rules"]:
        mine = [i for i, r in enumerate(rules) if r == e["rule"] - 1]
        assert e["hands"] == len(mine)
        if mine:
            assert e["mean_regret"] == pytest.approx(regret[mine].mean(), abs=1e-12)
            assert e["regret_share"] == pytest.approx(regret[mine].sum() / regret.sum())
    # rule 2's conditions hold on no hand rule 1 took; the fallback's on all, two taken earlier
    assert [e["overlap_taken_earlier"] for e in s["rules"]] == [0, 0, 2]
    for i, (text, rule, _) in enumerate(HANDS):
        c = card_choice(card, game, parse_cards(text))
        assert (c.setting, c.rule) == (int(expected[i]), rule)
        assert c.rule_text == card.rules[rule].text


WOO = STRATEGIES / "paigow_igw_woo_two_pair.yaml"


@pytest.mark.parametrize("text, front", [
    ("7s 7h 2s 2h Kd 9c 4d", "Kd 9c"),  # pairs sum 7 + 2 = 9, a king: keep both pairs in back
    ("8s 8h 2s 2h Kd 9c 4d", "2s 2h"),  # sum 10, a king but no ace: split
    ("8s 8h 7s 7h Ad 9c 4d", "Ad 9c"),  # sum 15, an ace: keep
    ("9s 9h 7s 7h Ad 8c 4d", "7s 7h"),  # sum 16: split
    ("6s 6h 3s 3h Qd 9c 4d", "3s 3h"),  # sum 9 without a king or ace: split
    ("Ks Kh 2s 2h Ad 9c 4d", "Ad 9c"),  # K 13 + 2 = 15, an ace: keep
    ("As Ah 2s 2h Kd 9c 4d", "2s 2h"),  # aces 14 + 2 = 16: split
])
def test_the_wizard_of_odds_two_pair_rule(text, front, game):
    card = load_card(WOO)
    cards = hand(text)
    c = card_choice(card, game, cards)
    assert c.setting == setting_with_front(cards, front)


def test_the_two_pair_variant_is_the_house_way_on_every_other_hand(game):
    card = load_card(WOO)
    rng = np.random.default_rng(3)
    cards = np.sort(np.array([rng.choice(53, 7, replace=False) for _ in range(300)]), axis=1)
    settings, rule = card.play(game, cards)
    hw = house_way_rules(game, cards)[0]
    other = rule == len(card.rules) - 1
    assert other.sum() > 150 and (settings[other] == hw[other]).all()
    X = feature_matrix(cards, 5)
    assert (rule[X[:, FEATURE_INDEX["cat_two_pair"]] == 1] < len(card.rules) - 1).all()


def test_pair_sum_counts_aces_14():
    x = feature_matrix(hand("Ac Ad 9c 9h 5s 2c Kd")[None, :], 5)[0]
    assert x[FEATURE_INDEX["pair_sum"]] == 14 + 9
    x = feature_matrix(hand("JK Ks Kd 9c 9h 5s 2c")[None, :], 5)[0]  # the joker alone is a singleton ace
    assert x[FEATURE_INDEX["pair_sum"]] == 13 + 9
    assert feature_matrix(hand("Ac Kd 9c 8h 5s 2c 3d")[None, :], 5)[0][FEATURE_INDEX["pair_sum"]] == -1
    f = FEATURES[FEATURE_INDEX["pair_sum"]]
    assert describe(f, -1, 9) == "the two highest pairs' ranks sum to 9 or less (if two pairs; aces 14)"
    assert describe(f, -1, -1) == "fewer than two pairs"


BAD = [
    ("rules:\n  - then: any:fb\n", "game None: expected one of"),
    ("game: paigow\nrules:\n  - name: low\n    if: {top_par: 3}\n    then: any:fb\n  - then: any:fb\n",
     "rule 1 ('low'): unknown feature 'top_par' (did you mean 'top_pair'?)"),
    ("game: paigow\nrules:\n  - name: r\n    if: {pairs: 1}\n    then: groups:bb\n  - then: any:fb\n",
     "rule 1 ('r'): then 'groups:bb': unknown recipe"),
    ("game: paigow\nrules:\n  - name: only pairs\n    if: {pairs: 1}\n    then: groups:fb\n",
     "no fallback: the last rule ('only pairs') has conditions"),
    ("game: paigow\nrules:\n  - name: all\n    then: any:fb\n  - name: never\n    then: groups:fb\n",
     "rule 1 ('all') has no conditions, so it takes every hand left and rules 2..2 are never reached"),
    ("game: paigow\nrules:\n  - name: r\n    if: {top_single: B}\n    then: any:fb\n  - then: any:fb\n",
     "rule 1 ('r'): top_single value 'B': expected a rank"),
    ("game: paigow\nrules:\n  - name: r\n    if: {pairs: 5}\n    then: any:fb\n  - then: any:fb\n",
     "rule 1 ('r'): pairs = 5: outside its range"),
    ("game: paigow\nrules:\n  - name: r\n    if: {top_pair: [K, 9]}\n    then: any:fb\n  - then: any:fb\n",
     "rule 1 ('r'): top_pair: low 11 above high 7: no hand can match"),
    ("game: paigow\nrules:\n  - name: r\n    iff: {pairs: 1}\n    then: any:fb\n  - then: any:fb\n",
     "rule 1 ('r'): unknown key 'iff' (did you mean 'if'?)"),
    ("game: paigow\nrules:\n  - then: house-way:asia-000\n", "rule 1 ('rule 1'): then 'house-way:asia-000': unknown house way"),
    ("game: paigow\nrules: []\n", "rules: expected a list of at least one rule"),
    ("game: paigow\nstyle: asia-000\nrules:\n  - then: any:fb\n", "style 'asia-000': expected a paigow house way"),
    ("game: [paigow\n", "cannot read it as YAML"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_a_bad_card_is_refused_naming_the_rule_and_the_problem(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(CardError) as e:
        load_card(path)
    assert message in str(e.value) and str(path) in str(e.value)


def test_an_uncovered_card_names_a_hand_no_rule_takes(tmp_path):
    with pytest.raises(CardError, match=r"e\.g\. .* matches none") as e:
        load_card(write(tmp_path, "game: paigow\nrules:\n  - name: p\n    if: {pairs: 1}\n    then: groups:fb\n"))
    shown = str(e.value).split("e.g. ")[1].split(" matches none")[0]
    x = feature_matrix(hand(shown)[None, :], 5)[0]
    assert x[FEATURE_INDEX["pairs"]] != 1  # the hand shown really is one the rule does not take


@pytest.mark.parametrize("path", sorted(STRATEGIES.glob("*.yaml")) + sorted((STRATEGIES / "fitted").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_every_shipped_card_loads_and_names_its_source(path):
    card = load_card(path)
    assert card.source and card.rules[-1].bounds == {}
    if path.parent.name == "fitted":  # <style>.yaml, or <style>_house-way-fixes.yaml (rules may say "as the house way")
        assert len(card.rules) <= 20 and card.style == path.stem.split("_")[0]
        assert fitted_card_path(card.style).is_file()


def test_a_fitted_card_round_trips_through_a_card_file(tmp_path):
    fitted = json.loads((ROOT / "docs" / "cards" / "paigow-igw.json").read_text())
    card = parse_card(fitted, where="paigow-igw.json")
    again = load_card(write(tmp_path, card_yaml(card)))
    assert [(r.bounds, r.recipe) for r in again.rules] == [(r.bounds, r.recipe) for r in card.rules]
    assert [r.text for r in again.rules] == [f"{'Any other hand' if r['if'] == 'any other hand' else 'If ' + r['if']}: "
                                             f"{r['then']}" for r in fitted["rules"]]


def test_the_card_policy_plays_the_card_in_the_env(game):
    from splitpoker.agents.evaluation.card_policy import CardPolicy
    from splitpoker.agents.evaluation.play import play_settings
    from splitpoker.agents.exact.eval_set import make_eval_env

    env = make_eval_env("splitpoker/PaiGowPokerSetting-v0", {})
    try:
        card = load_card(STRATEGIES / "paigow_simple.yaml")
        played, cards = play_settings(env, CardPolicy.from_env(env, card=card), list(range(40)))
    finally:
        env.close()
    assert (played == card.play(game, cards)[0]).all()
    with pytest.raises(ValueError, match="a card for paigow, the env plays asia"):
        asia = make_eval_env("splitpoker/AsiaPokerSetting-v0", {})
        try:
            CardPolicy.from_env(asia, card=card)
        finally:
            asia.close()


def run_script(*args):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "strategy_card.py"), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def test_score_refuses_a_bad_card_before_any_work(tmp_path):
    bad = write(tmp_path, "game: paigow\nrules:\n  - name: p\n    if: {pairz: 1}\n    then: groups:fb\n  - then: any:fb\n")
    r = run_script("--score", str(bad), "--test-hands", "100000")
    assert r.returncode == 2 and "rule 1 ('p'): unknown feature 'pairz'" in r.stderr
    assert "labels" not in r.stderr


def test_too_few_training_hands_are_refused_up_front():
    r = run_script("--game", "paigow", "--train-hands", "2", "--test-hands", "100000", "--validation", "0.25")
    assert r.returncode == 2 and "--train-hands 2: cannot be split 75% to fit / 25% to validate" in r.stderr


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_script_for_cards", ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_report_takes_a_card_as_the_policy(tmp_path):
    """The card's game and style are the defaults; the report adds the card's own rules, which
    partition the hands and agree with the scorer's figures."""
    out = tmp_path / "rep"
    card = STRATEGIES / "paigow_igw_woo_two_pair.yaml"
    assert _script("report").main(["--policy", str(card), "--hands", "12", "--max-pool-card", "20",
                                   "--out", str(out)]) == 0
    rep = json.loads((out / "report.json").read_text())
    assert rep["env"] == "splitpoker/PaiGowPokerSetting-v0" and rep["style"] == "paigow-igw"
    assert sum(e["hands"] for e in rep["card_rules"]) == 12
    assert "By the card's own rules" in (out / "report.md").read_text()


def test_score_a_card_with_a_small_pool(tmp_path, capsys):
    out = tmp_path / "score.json"
    assert _script("strategy_card").main(["--score", str(STRATEGIES / "paigow_simple.yaml"), "--style",
                                          "paigow-foxwoods", "--test-hands", "10", "--max-pool-card", "20",
                                          "--out", str(out)]) == 0
    s = json.loads(out.read_text())
    assert s["style"] == "paigow-foxwoods" and s["hands"] == 10 and s["exact"] is False
    assert sum(e["hands"] for e in s["rules"]) == 10
    assert "card - house way" in capsys.readouterr().out


def test_the_fitted_card_choice_of_a_style(game):
    from splitpoker.agents.evaluation.card_file import fitted_card, fitted_card_choice

    cards = parse_cards("Kd Kc 7h 7s 4d 3c 2h")
    for style in sorted(p.stem for p in (STRATEGIES / "fitted").glob("*.yaml") if "_" not in p.stem):
        card = fitted_card(style)
        g = game if style == "paigow-igw" else Game(card.game, style)
        assert fitted_card_choice(style, cards) == card_choice(card, g, cards)
    with pytest.raises(ValueError, match="no fitted card shipped"):
        fitted_card("paigow-nowhere")


def test_the_house_way_recipe_plays_the_house_way(game):
    from splitpoker.agents.evaluation.recipes import HouseWayRecipe, recipe_settings, recipes

    rng = np.random.default_rng(5)
    cards = np.sort(np.array([rng.choice(53, 7, replace=False) for _ in range(50)]), axis=1)
    book = recipes("paigow")[:2] + (HouseWayRecipe("paigow", "paigow-foxwoods"),)
    out = recipe_settings(game, cards, book)
    assert (out[:, 2] == house_way_rules(Game("paigow", "paigow-foxwoods"), cards)[0]).all()
    assert (out[:, :2] == recipe_settings(game, cards, recipes("paigow")[:2])).all()
    assert book[2].name == "house-way:paigow-foxwoods"
    assert parse_card({"game": "paigow", "rules": [{"then": book[2].name}]}).rules[0].text == \
        "Any hand: Set the hand as the paigow-foxwoods house way does."
