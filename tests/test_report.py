"""scripts/report.py and its library: hand categories, labels, the report's partitions.

Categories are pinned to hand-worked hands and to an independent brute force (the rank table's
category of every k-card subset); the report's breakdowns to hand-made labels (regrets worked by
hand, partitions that must add up); the script runs on a few hands against a small dealer pool
(``--max-pool-card 20``: no 617 MB dealer table) and refuses bad input before any work.
"""

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from splitpoker.agents.evaluation import hand_categories as hcat
from splitpoker.agents.evaluation.hand_categories import Category, categorize, hand_shape
from splitpoker.agents.evaluation.labels import HandLabels, house_way_rules, share_ci
from splitpoker.agents.evaluation.report import build_report, report_markdown
from splitpoker.envs.rules.cards import hand_array
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import random_hands
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import colex_index

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "report.py"
PAIGOW_ENV = "splitpoker/PaiGowPokerSetting-v0"
ASIA_ENV = "splitpoker/AsiaPokerSetting-v0"

_spec = importlib.util.spec_from_file_location("report_script", SCRIPT)
report_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_script)


def run_main(*args):
    try:
        return report_script.main([*map(str, args)])
    except SystemExit as e:
        return e.code


# ---- categories ---------------------------------------------------------------------------------

# (cards, Pai Gow category (5-card straights/flushes), Asia category (4-card ones)), worked by hand
WORKED = [
    ("As Kd 9c 7h 5s 3d 2c", Category.NO_PAIR, Category.NO_PAIR),  # A-2-3-_-5: no 4, no straight
    ("As Kd Qc Jh Ts 3d 2c", Category.NO_PAIR_SF, Category.NO_PAIR_SF),  # A-K-Q-J-T
    ("JK Kd Qc Jh 9s 3d 2c", Category.NO_PAIR_SF, Category.NO_PAIR_SF),  # the joker fills the ten
    ("As Ad 9c 7h 5s 3d Jc", Category.ONE_PAIR, Category.ONE_PAIR),
    ("As JK 9c 7h 5s 3d 2c", Category.ONE_PAIR_SF, Category.ONE_PAIR_SF),  # joker pairs the ace; A-2-3-JK-5
    ("Ah 9h 7h 5h 3h Kd Kc", Category.ONE_PAIR_SF, Category.ONE_PAIR_SF),  # five hearts
    ("9s 8d 7c 6h As Ad Kc", Category.ONE_PAIR, Category.ONE_PAIR_SF),  # 9-8-7-6: a straight for Asia only
    ("Ks Kd 5c 5h 9s 3d 2c", Category.TWO_PAIR, Category.TWO_PAIR),
    ("Ks Kd 5c 5h 9s 9d 2c", Category.THREE_PAIRS, Category.THREE_PAIRS),
    ("5s 5d 6c 6h 7s 7d 8c", Category.THREE_PAIRS, Category.THREE_PAIRS_SF),  # 5-6-7-8
    ("7s 7d 7c Kh 9s 3d 2c", Category.TRIPS, Category.TRIPS),
    ("7s 7d 7c 8h 9s Td Jc", Category.TRIPS_SF, Category.TRIPS_SF),
    ("7s 7d 7c Kh Ks Kd 2c", Category.TWO_TRIPS, Category.TWO_TRIPS),
    ("7s 7d 7c Kh Ks 3d 2c", Category.FULL_HOUSE, Category.FULL_HOUSE),
    ("7s 7d 7c Kh Ks 3d 3c", Category.FULL_HOUSE, Category.FULL_HOUSE),  # trips and two pairs
    ("7s 7d 7c 7h Ks 3d 2c", Category.QUADS, Category.QUADS),
    ("As Ad Ac JK 3d 3c 2c", Category.QUADS, Category.QUADS),  # three aces and the joker
    ("As Ad Ac Ah JK 3d 2c", Category.FIVE_ACES, Category.FIVE_ACES),
]


@pytest.mark.parametrize("cards,paigow,asia", WORKED, ids=[w[0] for w in WORKED])
def test_categories_of_worked_hands(cards, paigow, asia):
    hand = hand_array(cards)
    assert hand_shape(hand, 5).category is paigow
    assert hand_shape(hand, 4).category is asia
    assert categorize(hand[None, :], Game("paigow"))[0] == paigow
    assert categorize(hand[None, :], Game("asia"))[0] == asia


def test_shape_reads_groups_and_the_straight_flush():
    s = hand_shape(hand_array("9h 8h 7h 6h 5h Kd Kc"), 5)
    assert (s.pairs, s.singles, s.straight, s.flush, s.straight_flush) == ((11,), (7, 6, 5, 4, 3), True, True, True)
    s = hand_shape(hand_array("9h 8h 7h 6h 5d Kd Kc"), 5)
    assert (s.straight, s.flush, s.straight_flush) == (True, False, False)
    assert hand_shape(hand_array("JK As 7c Kc Kd 3h 2s"), 5).pairs == (12, 11)  # the joker is an ace


def _partitions(n, most):
    if n == 0:
        yield ()
    for first in range(min(n, most), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def test_every_group_pattern_of_seven_cards_has_a_category():
    # rank groups of at most 4 cards, 5 only for aces with the joker: every partition of 7 with parts <= 5
    patterns = set(_partitions(7, 5))
    assert patterns == set(hcat._PATTERN)
    assert len({c for c in Category}) == len(hcat.CATEGORY_LABELS)


@pytest.mark.parametrize("game_name", ["paigow", "asia"])
def test_straight_flush_flag_equals_brute_force_over_subsets(game_name):
    """A straight or flush is present iff some k-card subset ranks as one in the game's table."""
    game = Game(game_name)
    k = game.table.n_cards
    sf = {HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH}
    hands = np.empty((500, 7), dtype=np.int64)
    random_hands(7, hands.shape[0], hands)
    joker_hands = hands.copy()  # every other hand gets the joker, where wild cards are tricky
    joker_hands[::2, 6] = 52
    for hand in np.concatenate([hands, joker_hands]):
        if len(set(hand.tolist())) < 7:
            continue
        hand = np.sort(hand)
        brute = any(HandCategory(int(game.table.category[colex_index(np.array(sub), k)])) in sf
                    for sub in itertools.combinations(hand.tolist(), k))
        s = hand_shape(hand, k)
        assert (s.straight or s.flush) == brute, hand


def test_house_way_rules_match_the_per_hand_entry_point_for_every_registered_style():
    hands = np.empty((300, 7), dtype=np.int64)
    random_hands(3, hands.shape[0], hands)
    for style in HouseWayStyle:  # a new style is covered without editing this test
        game = Game(style.game, style.value)
        settings, rules = house_way_rules(game, hands)
        for h, s, r in zip(hands, settings, rules, strict=True):
            hw = game.house_way(h)
            assert (hw.setting, hw.rule) == (s, style.rule_names[r])


# ---- the report on hand-made labels -------------------------------------------------------------

def _labels(game, cards_text, rng):
    cards = np.array([hand_array(c) for c in cards_text])
    ev = rng.uniform(-0.5, 0.5, size=(len(cards), game.n_settings))
    return HandLabels("exact", True, PAIGOW_ENV, 0, tuple(range(len(cards))), cards, ev)


def test_report_regrets_and_partitions_by_hand():
    game = Game("paigow")
    rng = np.random.default_rng(0)
    texts = [w[0] for w in WORKED]
    labels = _labels(game, texts, rng)
    hw, rules = house_way_rules(game, labels.cards)
    played = hw.copy()
    played[:4] = labels.ev[:4].argmax(axis=1)  # optimal on the first four hands
    played[5] = -1  # an invalid action: EV -1
    rep = build_report(game, labels, played, policy="p", worst=3)
    regret = labels.ev.max(axis=1) - np.where(played >= 0, labels.ev[np.arange(len(texts)), played], -1.0)
    assert rep["hands"] == len(texts)
    assert rep["mean_regret"] == pytest.approx(regret.mean())
    assert rep["optimal_rate"] == pytest.approx(np.mean(regret <= 0))
    assert rep["house_way_agreement"] == pytest.approx(np.mean(played == hw))
    for field, key in (("categories", "name"), ("rules", "rule"), ("joker", "name")):
        parts = rep[field]
        assert sum(p["hands"] for p in parts) == len(texts)
        assert len({p[key] for p in parts}) == len(parts)
        assert sum(p["hands"] * p["mean_regret"] for p in parts) / len(texts) == pytest.approx(rep["mean_regret"])
        assert sum(p["regret_share"] for p in parts) == pytest.approx(1.0)
        assert sum(p["house_way_regret_share"] for p in parts) == pytest.approx(1.0)
    by_cat = {p["name"]: p for p in rep["categories"]}
    assert by_cat["five aces"]["hands"] == 1 and by_cat["four of a kind"]["hands"] == 2
    assert {p["rule"]: p["hands"] for p in rep["rules"]} == {game.style.rule_names[r]: int((rules == r).sum())
                                                              for r in set(rules.tolist())}
    worst = rep["worst"]
    assert [w["regret"] for w in worst] == sorted(regret, reverse=True)[:3]
    assert worst[0]["index"] == 5 and worst[0]["chosen"] == "invalid action" and worst[0]["chosen_ev"] == -1.0
    md = report_markdown(rep, {"categories": "categories.png"})
    assert "## By hand category" in md and "five aces" in md and "categories.png" in md


def test_share_interval_is_wilson():
    p, lo, hi = share_ci(np.array([True] * 10 + [False] * 90))
    assert p == 0.1 and lo == pytest.approx(0.0552, abs=1e-4) and hi == pytest.approx(0.1744, abs=1e-4)


# ---- the script -----------------------------------------------------------------------------------

def test_help_describes_the_outputs():
    out = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "report.json" in out.stdout and "--labels" in out.stdout


def test_tiny_run_writes_the_report(tmp_path):
    out = tmp_path / "rep"
    assert run_main("--policy", "house-way", "--env", PAIGOW_ENV, "--hands", 8, "--max-pool-card", 20,
                    "--out", out) == 0
    rep = json.loads((out / "report.json").read_text())
    assert rep["hands"] == 8 and rep["labeller"] == "small-pool" and rep["exact"] is False
    assert rep["house_way_agreement"] == 1.0 and rep["mean_regret"] == pytest.approx(rep["house_way_mean_regret"])
    assert sum(c["hands"] for c in rep["categories"]) == 8 and sum(r["hands"] for r in rep["rules"]) == 8
    assert [w["regret"] for w in rep["worst"]] == sorted((w["regret"] for w in rep["worst"]), reverse=True)
    for name in ("report.md", "categories.png", "rules.png"):
        assert (out / name).stat().st_size > 0


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(cache))
    return cache


def _asia_model(path: Path) -> Path:
    """A saved MaskablePPO of the Asia setting env (untrained: only its spaces matter)."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import splitpoker  # noqa: F401

    env = gym.make(ASIA_ENV)
    MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, device="cpu").save(path)
    env.close()
    return path


@pytest.mark.parametrize("argv,fragment", [
    (["--policy", "no-such-policy", "--out", "{t}/r"], "no-such-policy: no such file and no such baseline"),
    (["--policy", "{t}/junk.zip", "--out", "{t}/r"], "cannot load it as a saved model"),
    (["--policy", "house-way", "--out", "{t}/afile"], "is a file, expected a folder"),
    (["--policy", "house-way", "--out", "{t}/missing/r"], "does not exist"),
    (["--policy", "house-way", "--env", "splitpoker/AsiaPoker-v0", "--out", "{t}/r"], "expected a setting environment"),
    (["--policy", "house-way", "--labels", "table", "--solved", "{t}", "--out", "{t}/r"], "--solved: only with"),
    (["--policy", "house-way", "--solved", "{t}", "--out", "{t}/r"], "not a solved store"),
    (["--policy", "house-way", "--hands", "1", "--out", "{t}/r"], "--hands"),
    (["--policy", "house-way", "--env-kwargs", "[1]", "--out", "{t}/r"], "--env-kwargs"),
    (["--policy", "house-way", "--env-kwargs", '{"house_way": "asia-nope"}', "--out", "{t}/r"], "asia-nope"),
])
def test_bad_input_is_refused_before_any_work(tmp_path, empty_cache, capsys, argv, fragment):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "junk.zip").write_text("not a zip")
    code = run_main(*[a.replace("{t}", str(tmp_path)) for a in argv])
    assert code == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not empty_cache.exists()


def test_a_model_of_another_game_is_refused(tmp_path, empty_cache, capsys):
    model = _asia_model(tmp_path / "asia_model.zip")
    assert run_main("--policy", model, "--env", PAIGOW_ENV, "--out", tmp_path / "r") == 2
    err = capsys.readouterr().err
    assert "a model of another game or environment" in err and str(model) in err
    assert not (tmp_path / "r").exists()


def test_exact_labels_reuse_the_prefix_of_a_larger_cached_set(tmp_path, monkeypatch):
    """A cached 10-hand evaluation set serves a 4-hand sample of the same seed without solving."""
    from splitpoker.agents.evaluation import labels as lab
    from splitpoker.agents.evaluation.evaluate import hand_seeds
    from splitpoker.agents.exact import eval_set
    from splitpoker.envs.rules.cache import save

    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path))
    env = eval_set.make_eval_env(PAIGOW_ENV, {})
    game = eval_set.game_of_env(env)
    arr = np.zeros((10, 7 + game.n_settings))
    for i, s in enumerate(hand_seeds(5, 10)):
        env.reset(seed=s)
        arr[i, :7] = np.sort(env.unwrapped.player)
    env.close()
    arr[:, 7:] = np.random.default_rng(1).uniform(-1, 1, size=(10, game.n_settings))
    save(f"rleval-{game.game}-{game.style.value}", eval_set.evalset_key(PAIGOW_ENV, game, 10, 5), arr)

    def refuse(*a, **k):
        raise AssertionError("solved instead of reading the cached prefix")

    monkeypatch.setattr(eval_set, "load_evalset", refuse)
    got = lab.load_labels("exact", PAIGOW_ENV, {}, 4, 5)
    assert got.exact and got.hands == 4 and got.seeds == tuple(hand_seeds(5, 4))
    assert np.array_equal(got.cards, arr[:4, :7]) and np.array_equal(got.ev, arr[:4, 7:])
    with pytest.raises(AssertionError, match="solved instead"):  # another seed has no cached superset
        lab.load_labels("exact", PAIGOW_ENV, {}, 4, 6)


@pytest.mark.parametrize("policy", ["model", "house-way", "random"])
def test_play_settings_chooses_what_the_played_round_chooses(tmp_path, policy):
    """The batched choice of a model (and a baseline's per-hand one) equals the setting
    run_policy plays through env.step on the same hands."""
    from splitpoker.agents.evaluation.evaluate import hand_seeds, run_policy
    from splitpoker.agents.evaluation.play import play_settings
    from splitpoker.agents.exact.eval_set import make_eval_env
    from splitpoker.agents.policies.baselines import SB3Policy, make_baseline
    from splitpoker.agents.training.run import load_model

    env = make_eval_env(ASIA_ENV, {})
    seeds = hand_seeds(3, 25)
    if policy == "model":
        model, _ = load_model(_asia_model(tmp_path / "m.zip"))
        make = lambda: SB3Policy.from_env(env, model=model)  # noqa: E731
    else:
        make = lambda: make_baseline(policy, env, **({"seed": 4} if policy == "random" else {}))  # noqa: E731
    settings, cards = play_settings(env, make(), seeds)
    rec = run_policy(env, make(), seeds)
    env.close()
    assert np.array_equal(cards, rec.cards) and np.array_equal(settings, rec.settings)
