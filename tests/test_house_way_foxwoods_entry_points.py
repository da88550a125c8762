"""paigow-foxwoods accepted everywhere a house-way style is (issue list): ``Game``, ``house_way=`` of
every Pai Gow env (single, vector, table, session), scripts/simulate.py, analyze.py,
check_house_way.py, the exact solver, the strategy table, solve_all.py (its worker's function and
its arguments), solve_sample.py and the benchmark configs.

Each entry point must set hands by the Foxwoods way, not merely accept the name: the settings it
reports are held against ``Game("paigow", "paigow-foxwoods").house_way`` (the validated kernel
entry point), and each check also asks that at least one of its hands is set differently by
paigow-igw (the default), so an entry point that silently fell back to IGW would fail. The exact
solver and the strategy table run on a small card universe (cards < 20, 2s to 6s) against brute
force, so no 617 MB dealer table is needed.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import splitpoker  # noqa: F401  (registers the ids)
from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
from splitpoker.agents.exact import strategy as es
from splitpoker.agents.policies.strategy_table import StrategyTable
from splitpoker.envs.rules.cards import hand_array
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.check import simulate
from splitpoker.envs.solver import classes as hc
from splitpoker.envs.solver.dealer_table import build_dealer_table
from splitpoker.envs.solver.exact import ExactSolver, solve_naive

ROOT = Path(__file__).resolve().parent.parent
STYLE = "paigow-foxwoods"
FOX = Game("paigow", STYLE)
IGW = Game("paigow", "paigow-igw")
N_ROUNDS = 40
K = 20  # small universe: cards 0..19 (2s to 6s), C(20, 7) = 77,520 dealer hands
# worked from the reference, not from the code: two pair 6s and 4s with no king or ace is split
# by Foxwoods ("two pair ... 3s-6s: split unless a king or ace"), kept together by IGW ("both
# pairs 6s or lower: both in back")
SPLIT_BY_FOXWOODS = "6h 6d 4s 4c 9h 8d 3c"


def check_settings(pairs):
    """Every (cards, setting) is Foxwoods's, and IGW would set at least one of them otherwise."""
    assert pairs
    for cards, setting in pairs:
        assert int(setting) == FOX.house_way(cards).setting, cards
    assert any(IGW.house_way(cards).setting != int(setting) for cards, setting in pairs)


def test_game_sets_by_foxwoods():
    assert FOX.style.value == STYLE and FOX.game == "paigow"
    assert FOX.house_way(SPLIT_BY_FOXWOODS).setting != IGW.house_way(SPLIT_BY_FOXWOODS).setting
    with pytest.raises(ValueError, match="is for paigow, not asia"):
        Game("asia", STYLE)


@pytest.mark.parametrize("env_id", ["splitpoker/PaiGowPokerSetting-v0", "splitpoker/PaiGowPoker-v0"])
def test_single_env(env_id):
    env = gym.make(env_id, house_way=STYLE)
    assert env.unwrapped.config.house_way == STYLE
    pairs = []
    for seed in range(N_ROUNDS):
        _, info = env.reset(seed=seed)
        if info["phase"] == "bet":
            _, _, _, _, info = env.step(0)
        pairs.append((info["cards"], info["house_way_setting"]))
        _, _, term, _, info = env.step(env.unwrapped.setting_offset + info["house_way_setting"])
        assert term
        pairs.append((info["dealer_cards"], info["dealer_setting"]))
    check_settings(pairs)


def test_vector_env():
    env = gym.make_vec("splitpoker/PaiGowPokerSetting-v0", num_envs=N_ROUNDS, vectorization_mode="vector_entry_point",
                       house_way=STYLE)
    _, info = env.reset(seed=1)
    pairs = list(zip(info["cards"], info["house_way_setting"], strict=True))
    _, _, _, _, info = env.step(info["house_way_setting"])
    pairs += list(zip(info["dealer_cards"], info["dealer_setting"], strict=True))
    check_settings(pairs)
    env.close()


def test_table_env():
    env = gym.make("splitpoker/PaiGowTable-v0", house_way=STYLE)
    pairs = []
    for seed in range(N_ROUNDS // 2):
        env.reset(seed=seed)
        _, _, _, _, info = env.step(0)  # the first bet level
        assert info["phase"] == "set"
        pairs.append((info["cards"], info["house_way_setting"]))
        _, _, term, _, info = env.step(28 + info["house_way_setting"])  # 28 bet actions, then the settings
        assert term and info["setting"] == pairs[-1][1]
        pairs.append((info["dealer_cards"], info["dealer_setting"]))
    check_settings(pairs)


def test_session_env():
    env = gym.make("splitpoker/PaiGowPokerSession-v0", table={"house_way": STYLE}, max_hands=N_ROUNDS, target=None,
                   reward="bankroll")
    assert env.unwrapped.game.style.value == STYLE
    env.reset(seed=2)
    pairs = []
    for _ in range(N_ROUNDS):
        _, _, term, trunc, info = env.step(0)
        rnd = info["round"]
        assert rnd["setting"] == rnd["house_way_setting"]  # setting="house-way": the player plays it
        pairs.append((rnd["cards"], rnd["house_way_setting"]))
        if term or trunc:
            break
    check_settings(pairs)


def run(script, *args, timeout=600):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_simulate_script():
    out = run("simulate.py", "--game", "paigow", "--style", STYLE, "--rounds", "20000", "--seed", "5", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    direct = simulate(FOX, 20_000, 5)
    assert rep["style"] == STYLE
    assert (rep["win_rate"], rep["push_rate"], rep["player_edge"]) == (direct["win_rate"], direct["push_rate"],
                                                                         direct["player_edge"])
    assert rep["player_edge"] != simulate(IGW, 20_000, 5)["player_edge"]
    for k in ("win", "push", "loss"):  # binomial 95% intervals of the rates
        lo, hi = rep[f"{k}_rate_ci95"]
        r = rep[f"{k}_rate"]
        assert hi - lo == pytest.approx(2 * 1.959963984540054 * math.sqrt(r * (1 - r) / 20_000))
    assert rep["house_edge_ci95"] == pytest.approx([-x for x in reversed(rep["player_edge_ci95"])])


def test_analyze_script():
    out = run("analyze.py", "--game", "paigow", "--style", STYLE, SPLIT_BY_FOXWOODS, "--samples", "2000", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["style"] == STYLE
    assert rep["house_way_setting"] == FOX.house_way(SPLIT_BY_FOXWOODS).setting
    # split: the higher pair in back, the lower pair in front
    assert {k: sorted(v) for k, v in rep["house_way"].items()} == {"back": sorted("6h 6d 9h 8d 3c".split()),
                                                                    "front": ["4c", "4s"]}


def test_check_house_way_script():
    out = run("check_house_way.py", "--style", STYLE, "--json", "--max-tasks", "60")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["style"] == STYLE and rep["fouls"] == 0 and rep["errors"] == 0
    assert set(rep["rules"]) == set(FOX.style.rule_names)


@pytest.fixture(scope="module")
def small_dealer_table():
    table = build_dealer_table(FOX, universe=K)
    assert not np.array_equal(table, build_dealer_table(IGW, universe=K))  # the dealer is set by Foxwoods
    return table


@pytest.mark.parametrize("cards", [SPLIT_BY_FOXWOODS, "2s 2h 3d 3c 5s JK 9h"])
def test_exact_solver_equals_brute_force(small_dealer_table, cards):
    pool = np.arange(K)
    fast = ExactSolver(FOX, table=small_dealer_table).solve(cards, pool=np.setdiff1d(pool, hand_array(cards)))
    slow = solve_naive(FOX, cards, pool=np.setdiff1d(pool, hand_array(cards)))
    for field in ("wins", "pushes", "losses", "fouled"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field


def test_strategy_table_equals_brute_force(small_dealer_table):
    table = StrategyTable(FOX, universe=K, dealer=small_dealer_table, use_cache=False)
    fast = table.evaluate(SPLIT_BY_FOXWOODS)
    slow = solve_naive(FOX, SPLIT_BY_FOXWOODS, pool=np.arange(K))  # the table ignores card removal
    assert fast.n_dealer_hands == math.comb(K, 7)
    for field in ("wins", "pushes", "losses"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field


def _load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_solve_all_worker_and_arguments():
    """solve_all.py's Ray workers run ``solve_shard``: its house-way column is the Foxwoods way of
    each class's canonical hand; the script takes the style."""
    args = _load_script("solve_all").parse_args(["--game", "paigow", "--style", STYLE, "--out", "x", "--sample", "4"])
    assert args.style == STYLE
    classes = es.make_plan(4, 3, 4)[1]
    rows = es.solve_shard("paigow", STYLE, FOX.rules, 28, classes)
    hands = hc.class_hands(rows["class"])
    assert [int(s) for s in rows["house_way_setting"]] == [FOX.house_way(h).setting for h in hands]


def test_solve_sample_script(tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert _load_script("solve_sample").main(["--game", "paigow", "--style", STYLE, "--hands", "3", "--seed", "3",
                                              "--out", str(out), "--max-pool-card", "20", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["hands"] == 3
    import pyarrow.csv as pcsv

    rows = pcsv.read_csv(out).to_pylist()
    assert {r["style"] for r in rows} == {STYLE}
    for r in rows:
        res = FOX.house_way(r["cards"])
        assert (r["house_way_setting"], r["house_way_rule"]) == (res.setting, res.rule)


def test_benchmark_config():
    data = yaml.safe_load((ROOT / "configs" / "benchmark" / "paigow.yaml").read_text())
    for env in data["envs"]:
        env["kwargs"]["house_way"] = STYLE
    cfg = BenchmarkConfig.from_dict(data)
    assert {e.kwargs["house_way"] for e in cfg.envs} == {STYLE}
    for env in data["envs"]:
        env["kwargs"]["house_way"] = "paigow-foxwood"
    with pytest.raises(ConfigError, match="paigow-foxwood"):
        BenchmarkConfig.from_dict(data)
