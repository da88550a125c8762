"""scripts/dataset.py: episodes of a policy written to Parquet and read back (every step replays
exactly), with the exact reference scores a loader normalises by; Minari when installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from splitpoker.agents.benchmark import tasks
from splitpoker.agents.evaluation.evaluate import hand_seeds

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import dataset  # noqa: E402

ASIA = "splitpoker/AsiaPokerSetting-v0"


def test_parquet_round_trip_replays_every_step(tmp_path):
    from splitpoker.agents.policies.baselines import HouseWayPolicy

    out = tmp_path / "hw.parquet"
    assert dataset.main(["--env", ASIA, "--policy", "house-way", "--episodes", "5", "--seed", "3",
                         "--reference-hands", "6", "--out", str(out)]) == 0
    table, meta = dataset.read_parquet(out)
    assert table.num_rows == 5 and table.column("episode").to_pylist() == [0, 1, 2, 3, 4]
    assert table.column("terminated").to_pylist() == [True] * 5  # one step per episode
    env = gym.make(ASIA)
    pol = HouseWayPolicy.from_env(env)
    obs_col = np.stack(table.column("obs").to_numpy(zero_copy_only=False))
    for i, s in enumerate(hand_seeds(3, 5)):  # the same deals, replayed: same observation, action, reward
        obs, info = env.reset(seed=s)
        a = pol.act(obs, info["action_mask"])
        _, r, *_ = env.step(a)
        assert np.array_equal(obs_col[i], obs) and table.column("action")[i].as_py() == a
        assert table.column("reward")[i].as_py() == pytest.approx(r)
    # the reference scores: exact expected returns on the cached reference hands
    ref = tasks.prepare("setting", "validation", ASIA, {}, 6, dataset.REFERENCE_SEED)
    assert meta["ref_max_score"] == pytest.approx(ref.evalset.best.mean())
    assert meta["ref_max_score"] - meta["ref_min_score"] == pytest.approx(ref.random_regret)
    assert meta["env_id"] == ASIA and meta["policy"] == "house-way" and meta["episodes"] == 5
    # an existing file is never overwritten
    assert dataset.main(["--env", ASIA, "--policy", "house-way", "--episodes", "2", "--out", str(out)]) == 2


def test_session_episodes_and_dp_reference_scores(tmp_path):
    kw = '{"bankroll": 100, "target": 150}'
    out = tmp_path / "dp.parquet"
    assert dataset.main(["--env", "splitpoker/PaiGowPokerSession-v0", "--env-kwargs", kw, "--policy", "dp",
                         "--episodes", "4", "--out", str(out)]) == 0
    table, meta = dataset.read_parquet(out)
    ep = np.array(table.column("episode").to_pylist())
    term = np.array(table.column("terminated").to_pylist())
    assert sorted(set(ep)) == [0, 1, 2, 3] and term.sum() == 4  # exactly one terminal step per episode
    assert all(term[np.flatnonzero(ep == e)[-1]] for e in range(4))
    data = tasks.prepare("session", "validation", "splitpoker/PaiGowPokerSession-v0", {"bankroll": 100, "target": 150}, 2, 0)
    assert (meta["ref_min_score"], meta["ref_max_score"]) == pytest.approx((data.session["p_random"], data.session["p_optimal"]))
    rewards = np.array(table.column("reward").to_pylist())
    assert set(np.unique(rewards)) <= {0.0, 1.0}  # reward 'target': the return is the success indicator


def test_minari_format(tmp_path, monkeypatch):
    if importlib.util.find_spec("minari") is None or importlib.util.find_spec("jax") is None:
        code = dataset.main(["--env", ASIA, "--policy", "random", "--episodes", "2", "--reference-hands", "6",
                             "--format", "minari", "--out", "splitpoker/test/random-v0"])
        assert code == 2  # a clear refusal naming the extra, not a traceback
        return
    import minari

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert dataset.main(["--env", ASIA, "--policy", "random", "--episodes", "3", "--reference-hands", "6",
                         "--format", "minari", "--out", "splitpoker/test/random-v0"]) == 0
    d = minari.load_dataset("splitpoker/test/random-v0")
    assert d.total_episodes == 3
