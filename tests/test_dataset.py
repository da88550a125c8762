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


# --- refusals before the slow work, interrupts while the env is built -------------------------


@pytest.fixture
def no_slow_work(monkeypatch):
    """The reference solve (up to 38 s) replaced by a failure: a refusal must come before it."""
    def refuse(*a, **k):
        raise AssertionError("the reference scores were computed before the refusal")

    monkeypatch.setattr(dataset, "reference_scores", refuse)


def test_an_interrupt_while_the_env_is_built_exits_130_in_one_line(tmp_path, monkeypatch, capsys):
    """SIGINT/SIGTERM 1.0-1.6 s in (imports and gym.make, after the startup guard hands over)
    gave a traceback: the KeyboardInterrupt escaped main."""
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(gym, "make", interrupted)
    code = dataset.main(["--env", ASIA, "--policy", "house-way", "--episodes", "2", "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    assert code == 130, err
    assert err.strip() == "interrupted: nothing written; rerun the same command"
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_no_model_is_refused_before_the_reference_solve(tmp_path, capsys, no_slow_work):
    junk = tmp_path / "junk.zip"
    junk.write_text("not a zip")
    code = dataset.main(["--env", ASIA, "--policy", str(junk), "--episodes", "2", "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and f"--policy {junk}: cannot load it as a saved model" in err and "Traceback" not in err, err


def test_a_model_of_another_game_is_refused_naming_both_spaces(tmp_path, capsys, no_slow_work):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", gym.make("splitpoker/PaiGowPokerSetting-v0"), n_steps=8, batch_size=8,
                        policy_kwargs={"net_arch": [8]})
    model.save(tmp_path / "paigow.zip")
    code = dataset.main(["--env", ASIA, "--policy", str(tmp_path / "paigow.zip"), "--episodes", "2",
                         "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"--policy {tmp_path / 'paigow.zip'}: the model takes observations of shape" in err, err
    assert f"but {ASIA} gives shape" in err and "Traceback" not in err


def test_a_reference_sample_too_small_for_a_betting_env_is_refused_first(tmp_path, capsys, no_slow_work):
    """``--reference-hands 2`` on a betting env failed after the solve (V* = +0.08 +- 0.26 on
    two hands is not below 0) with a traceback."""
    code = dataset.main(["--env", "splitpoker/AsiaPoker-v0", "--policy", "table", "--episodes", "2",
                         "--reference-hands", "2", "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "--reference-hands 2: a betting env's reference scores need at least 100 hands" in err, err


def test_a_session_the_dp_cannot_solve_is_refused_before_the_reference_solve(tmp_path, capsys, no_slow_work):
    kw = '{"bankroll": 100, "target": 1000000000}'
    code = dataset.main(["--env", "splitpoker/PaiGowPokerSession-v0", "--env-kwargs", kw, "--policy", "dp",
                         "--episodes", "1", "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "--policy dp on splitpoker/PaiGowPokerSession-v0" in err and "states, more than" in err, err


@pytest.mark.parametrize(("delay", "signum"), [(1.0, 15), (1.2, 2), (1.4, 15), (1.6, 2)])
def test_a_signal_in_the_first_seconds_exits_cleanly(tmp_path, delay, signum):
    """Run as a program: a signal in the first seconds (imports, env checks and build) exits 130 /
    143 with no traceback (3 of 5 tries at 1.0-1.6 s gave a traceback and exit -2)."""
    import subprocess
    import time

    p = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "dataset.py"), "--env", ASIA, "--policy", "house-way",
                          "--episodes", "2", "--reference-hands", "6", "--out", str(tmp_path / "d.parquet")],
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    time.sleep(delay)
    p.send_signal(signum)
    err = p.communicate(timeout=120)[1]
    assert "Traceback" not in err, err
    if p.returncode in (0, -signum):
        # finished before the signal, or (under load) the signal came while the interpreter was
        # still importing the package, before the script's first line installed its guard
        return
    assert p.returncode == 128 + signum, err
    assert "Traceback" not in err and "interrupted" in err, err
    assert not (tmp_path / "d.parquet").exists()
