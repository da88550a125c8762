"""The benchmark's tasks (agents/benchmark/tasks.py): each normalised score at its two anchors,
the optimum (1) and the random legal policy (0), computed independently of the anchor itself;
the validation/test split and the refusals before any training."""

from __future__ import annotations

import math

import numpy as np
import pytest

from splitpoker.agents.benchmark import tasks
from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
from splitpoker.agents.policies.baselines import OptimalPolicy, RandomPolicy

ASIA = "splitpoker/AsiaPokerSetting-v0"
ASIA_KW = {"house_way": "asia-000", "dealer_samples": 4, "observe_settings": True}
BETS = "splitpoker/PaiGowPoker-v0"
BETS_KW = {"house_way": "paigow-igw", "dealer_samples": 4, "observe_settings": True, "wager_levels": [5, 10, 25],
           "fortune_levels": [0, 5]}
SESSION = "splitpoker/PaiGowPokerSession-v0"
SESSION_KW = {"bankroll": 100, "target": 150}


def grid(**over):
    cfg = {"name": "t", "executor": "local", "total_timesteps": 256, "eval_every": 128, "seeds": [0, 1],
           "eval": {"hands": 6, "validation_seed": 2024, "test_seed": 2025},
           "envs": [{"id": ASIA, "label": "asia", "kwargs": ASIA_KW}],
           "algorithms": [{"name": "A", "algo": "maskable_ppo", "policy": "MlpPolicy"}], "references": []}
    cfg.update(over)
    return cfg


# ---- refusals before any training ----------------------------------------------------------------

@pytest.mark.parametrize("over, fragment", [
    ({"eval": {"hands": 6, "validation_seed": 7, "test_seed": 7}}, "test_seed=7 is also the validation_seed"),
    ({"seeds": [3]}, r"seeds=\[3\]: 1 seed\(s\), but the bootstrap intervals across seeds need at least 2"),
    ({"envs": [{"id": ASIA, "kwargs": ASIA_KW, "tasks": ["setting", "poker_face"]}]}, "unknown task 'poker_face'"),
    ({"envs": [{"id": ASIA, "kwargs": ASIA_KW, "tasks": ["session"]}]}, "task 'session' in envs\\[0\\].tasks does not fit"),
    ({"eval": {"hands": 6, "seed": 2024}}, "eval.seed=2024: a grid now has two sets"),
    ({"eval": {"hands": 6, "validation_seed": 1}}, "eval is missing 'test_seed'"),
])
def test_bad_grids_are_refused_naming_the_problem(over, fragment):
    with pytest.raises(ConfigError, match=fragment):
        BenchmarkConfig.from_dict(grid(**over))


def test_a_sweep_may_train_one_seed_and_reads_validation():
    cfg = BenchmarkConfig.from_dict(grid(seeds=[4]), min_seeds=1)
    assert cfg.seeds == (4,) and cfg.eval_seed == cfg.validation_seed == 2024 and cfg.test_seed == 2025


def test_cli_refuses_a_bad_grid_before_training(tmp_path):
    import subprocess
    import sys

    import yaml

    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(grid(eval={"hands": 6, "validation_seed": 5, "test_seed": 5})))
    r = subprocess.run([sys.executable, "scripts/benchmark_rl.py", "--config", str(path), "--no-ray", "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "test_seed=5 is also the validation_seed" in r.stderr
    assert not (tmp_path / "out").exists()  # nothing trained, nothing written


# ---- anchors ------------------------------------------------------------------------------------

def _random_mean(scorer, reps: int) -> tuple[float, float]:
    """Mean regret of the random legal policy over ``reps`` independent plays of the set."""
    vals = [scorer.score(RandomPolicy.from_env(scorer.env, seed=k))["mean_regret"] for k in range(reps)]
    return float(np.mean(vals)), float(np.std(vals, ddof=1) / math.sqrt(reps))


def test_setting_task_anchors():
    data = tasks.prepare("setting", "test", ASIA, ASIA_KW, 6, 2025)
    # the anchor by brute force: every hand, every unfouled setting
    es = data.evalset
    by_hand = [np.mean([es.best[i] - es.ev[i, s] for s in range(es.ev.shape[1]) if es.ev[i, s] > -1.0])
               for i in range(es.hands)]
    assert data.random_regret == pytest.approx(np.mean(by_hand), abs=1e-12)
    scorer = tasks.make_scorer(data, 6)
    opt = scorer.score(OptimalPolicy.from_env(scorer.env))  # solves each hand afresh: independent of the cache
    assert opt["mean_regret"] == pytest.approx(0.0, abs=1e-12) and opt["normalized"] == pytest.approx(1.0)
    m, se = _random_mean(scorer, 150)
    assert abs(1.0 - m / data.random_regret) < 4 * se / data.random_regret + 1e-9  # played random -> 0


def test_card_removal_set_holds_only_hands_the_table_misplays():
    from splitpoker.agents.policies.baselines import StrategyTablePolicy

    data = tasks.prepare("card_removal", "test", ASIA, ASIA_KW, 2, 2025, card_removal_margin=0.03)
    es = data.evalset
    assert es.kind == "card_removal" and es.hands == 2 and es.candidates >= 2
    scorer = tasks.make_scorer(data, 2)
    table = scorer.score(StrategyTablePolicy.from_env(scorer.env))
    assert table["optimal_rate"] == 0.0 and table["mean_regret"] > 0  # the table misplays every hand
    assert table["regret_vs_table"] == pytest.approx(0.0, abs=1e-12)
    assert scorer.score(OptimalPolicy.from_env(scorer.env))["normalized"] == pytest.approx(1.0)


def test_bets_task_anchors():
    data = tasks.prepare("bets", "test", BETS, BETS_KW, 6, 2025)
    b = data.bets
    assert b["v_star"] < 0 and all(v < 0 for k, v in b["bonus_chips"].items() if float(k) > 0)
    scorer = tasks.make_scorer(data, 6)
    opt = scorer.score(OptimalPolicy.from_env(scorer.env))  # bets the minimum, no bonus, optimal setting
    assert opt["min_bet_rate"] == 1.0 and opt["normalized"] == pytest.approx(1.0)
    # random anchor by hand: uniform over the 3 x 2 bets, uniform over unfouled settings
    es = data.evalset
    rs = np.mean([np.mean([es.best[i] - e for e in es.ev[i] if e > -1.0]) for i in range(es.hands)])
    expect = np.mean([(w / 5) * rs + (w / 5 - 1) * (-b["v_star"]) - b["bonus_chips"][str(float(f))] / 5
                      for w in (5, 10, 25) for f in (0, 5)])
    assert data.random_regret == pytest.approx(expect, rel=1e-12)
    m, se = _random_mean(scorer, 300)
    assert abs(m - data.random_regret) < 4 * se  # played random -> 0


def test_session_task_anchors():
    import gymnasium as gym

    from splitpoker.agents.sessions import dp as sd

    data = tasks.prepare("session", "test", SESSION, SESSION_KW, 2, 2025)
    s = data.session
    sol = sd.solve(s["dist"], sd.BetTable(tuple(gym.make(SESSION, **SESSION_KW).unwrapped.bet_table)), 100, 150)
    assert s["p_optimal"] == pytest.approx(sol.success(100))
    scorer = tasks.make_scorer(data, 2)

    class DP:  # the DP's table, read through the observation the env shows
        def act(self, obs, mask):
            bankroll = round(float(obs[0]) * 150 / sol.model.grid) * sol.model.grid
            return sol.action(bankroll)

    assert scorer.score(DP())["normalized"] == pytest.approx(1.0, abs=1e-9)
    # random anchor: simulated sessions of uniformly random legal bets (real deals, not the DP's model)
    env = gym.make(SESSION, **SESSION_KW)
    rng = np.random.default_rng(0)
    wins = []
    for k in range(1500):
        obs, info = env.reset(seed=k)
        while True:
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if term or trunc:
                break
        wins.append(bool(info.get("reached_target")))
    p, se = np.mean(wins), np.std(wins) / math.sqrt(len(wins))
    assert abs(p - s["p_random"]) < 4 * se


def test_evaluate_mixed_equals_the_dp_on_deterministic_policies():
    import gymnasium as gym

    from splitpoker.agents.sessions import dp as sd

    data = tasks.prepare("session", "validation", SESSION, SESSION_KW, 2, 2024)
    table = sd.BetTable(tuple(gym.make(SESSION, **SESSION_KW).unwrapped.bet_table))
    model = sd.SessionModel.build(data.session["dist"], table, 100, 150)
    flat = np.full(model.n, sd.flat_action(table))
    w = np.zeros((model.n, len(table.bets)))
    w[np.arange(model.n), flat] = 1.0
    assert tasks.evaluate_mixed(model, w) == pytest.approx(model.evaluate(flat), abs=1e-12)
    w[model.n // 2] = 0.0  # an illegal bet at one state: the session fails there
    v = tasks.evaluate_mixed(model, w)
    assert v[model.n // 2] == 0.0 and v[model.state(100)] < model.evaluate(flat)[model.state(100)]


def test_validation_and_test_sets_are_disjoint_and_a_shared_hand_is_refused():
    import dataclasses

    from splitpoker.agents.exact.eval_set import check_disjoint

    val = tasks.prepare("setting", "validation", ASIA, ASIA_KW, 6, 2024).evalset
    test = tasks.prepare("setting", "test", ASIA, ASIA_KW, 6, 2025).evalset
    check_disjoint(val, test)
    leaked = dataclasses.replace(test, cards=np.vstack([val.cards[:1], test.cards[1:]]))
    with pytest.raises(ValueError, match="share 1 hand"):
        check_disjoint(val, leaked)
    with pytest.raises(ValueError, match="share seed 2024"):
        check_disjoint(val, val)
