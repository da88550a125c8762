"""Warm start (agents/training/warm_start.py): the distillation target on a hand-worked example, the
teacher dataset (batched path = one-by-one path, action values NaN exactly where illegal, the
flat reader = pyarrow's row-by-row lists), the soft loss, and config errors naming the value.

The strategy table here is a small-universe one (cards 0..15: C(16, 7) = 11,440 dealer hands,
built in a fraction of a second), so no 617 MB dealer table is needed."""

import json
import math

import gymnasium as gym
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import splitpoker  # noqa: F401
from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
from splitpoker.agents.policies.strategy_table import StrategyTable
from splitpoker.agents.training.run import TrainConfig
from splitpoker.agents.training.warm_start import (
    WarmStart,
    behaviour_clone,
    read_teacher_dataset,
    soft_targets,
    warm_start,
    write_teacher_dataset,
)
from splitpoker.envs.solver.dealer_table import build_dealer_table

K = 16
ENVS = {
    "asia": ("splitpoker/AsiaPokerSetting-v0", {"house_way": "asia-000", "setting_features": True}),
    "paigow": ("splitpoker/PaiGowPokerSetting-v0", {"house_way": "paigow-igw", "setting_features": True,
                                                    "rules": {"commission": 0.05, "ace_low_straight": "second_highest"}}),
}


@pytest.fixture(scope="module", params=sorted(ENVS))
def setup(request):
    env_id, kwargs = ENVS[request.param]
    env = gym.make(env_id, **kwargs)
    game = env.unwrapped.game
    table = StrategyTable(game, universe=K, dealer=build_dealer_table(game, universe=K), use_cache=False)
    yield env, table
    env.close()


def test_soft_target_worked_example():
    """Values 0.01, 0, -0.02 on three legal actions at temperature 0.01: logits 1, 0, -2, target
    e^1, e^0, e^-2 over their sum 3.853617 = 0.705385, 0.259496, 0.035119. The fourth action is
    illegal: zero mass even though a finite value stands there; the fifth has no value (NaN)."""
    values = np.array([[0.01, 0.0, -0.02, 0.5, np.nan]])
    masks = np.array([[True, True, True, False, True]])
    p = soft_targets(values, masks, np.array([0]), 0.01)
    assert p.dtype == np.float32
    assert np.allclose(p[0], [0.705385, 0.259496, 0.035119, 0.0, 0.0], atol=1e-6)
    assert p[0, 3] == 0.0 and p[0, 4] == 0.0
    # a lower temperature sharpens towards the best action, a higher one flattens
    assert soft_targets(values, masks, np.array([0]), 0.001)[0, 0] > 0.9999
    assert np.allclose(soft_targets(values, masks, np.array([0]), 100.0)[0, :3], 1 / 3, atol=1e-3)


def test_soft_target_rows_without_values_fall_back_to_the_teacher_action():
    values = np.array([[np.nan, np.nan, np.nan], [-1e3, -1e3 - 0.01, np.nan]])
    masks = np.array([[True, True, False], [True, True, False]])
    p = soft_targets(values, masks, np.array([1, 0]), 0.01)
    assert p[0].tolist() == [0.0, 1.0, 0.0]  # no value: one-hot of the teacher's action
    assert np.allclose(p[1], [math.e / (math.e + 1), 1 / (math.e + 1), 0.0])  # large values: still stable


def test_batched_dataset_equals_one_by_one(setup, tmp_path):
    """The vector-env path deals the same hands and the table values them as the single env
    and the ``table`` policy do: every column equal; NaN exactly at the illegal actions."""
    env, table = setup
    fast = write_teacher_dataset(env, "table", 150, 7, tmp_path / "fast.parquet", table=table)
    slow = write_teacher_dataset(env, "table", 150, 7, tmp_path / "slow.parquet", table=table, batched=False)
    a = read_teacher_dataset(fast, values=True)
    b = read_teacher_dataset(slow, values=True)
    for x, y, name in zip(a, b, ("obs", "masks", "actions", "values"), strict=True):
        assert np.array_equal(x, y, equal_nan=True), name
    obs, masks, actions, values = a
    assert np.array_equal(np.isnan(values), ~masks)
    assert masks[np.arange(len(actions)), actions].all()
    # the teacher's action is a best legal setting by its own values
    assert np.allclose(values[np.arange(len(actions)), actions], np.nanmax(values, axis=1))
    u = env.unwrapped
    for i in (0, 77):  # against the table's own evaluation of the hand
        from splitpoker.envs.rules.play.observation import cards_from_observation

        ev = table.evaluate(cards_from_observation(obs[i])).ev
        legal = masks[i, u.setting_offset:u.setting_offset + u.n_settings]
        assert np.allclose(values[i, u.setting_offset:][legal], ev[legal], atol=1e-7)
    t = pq.read_table(fast)
    assert t.column_names == ["obs", "action_mask", "action", "action_values", "seed"]
    assert t.column("seed").to_pylist()[:1] == [int(np.random.SeedSequence(7).generate_state(1, dtype=np.uint32)[0])]


def test_flat_reader_equals_row_by_row_lists(setup, tmp_path):
    env, table = setup
    path = write_teacher_dataset(env, "table", 40, 3, tmp_path / "d.parquet", table=table)
    t = pq.read_table(path)
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    assert np.array_equal(obs, np.asarray(t.column("obs").to_pylist(), dtype=np.float32))
    assert np.array_equal(masks, np.asarray(t.column("action_mask").to_pylist(), dtype=bool))
    assert np.array_equal(values, np.asarray(t.column("action_values").to_pylist(), dtype=np.float32), equal_nan=True)
    assert np.array_equal(actions, np.asarray(t.column("action").to_pylist()))
    assert obs.flags.writeable and values.flags.writeable


def test_reader_refuses_files_it_cannot_read(tmp_path):
    old = tmp_path / "old.parquet"
    pq.write_table(pa.table({"obs": [[0.0, 1.0]], "action_mask": [[True, False]], "action": [0]}), old)
    assert read_teacher_dataset(old)[2].tolist() == [0]  # a hard-label file still reads
    with pytest.raises(ValueError, match=r"columns \['action_values'\] missing"):
        read_teacher_dataset(old, values=True)
    ragged = tmp_path / "ragged.parquet"
    pq.write_table(pa.table({"obs": [[0.0, 1.0], [0.0]], "action_mask": [[True], [True]], "action": [0, 0]}), ragged)
    with pytest.raises(ValueError, match=r"column 'obs' has rows of lengths \[1, 2\]"):
        read_teacher_dataset(ragged)
    with pytest.raises(ValueError, match="not a teacher dataset"):
        pq.write_table(pa.table({"x": [1]}), tmp_path / "x.parquet")
        read_teacher_dataset(tmp_path / "x.parquet")


def _model(env_id, kwargs, seed=0):
    from sb3_contrib import MaskablePPO

    from splitpoker.agents.policies.setting_scorer import SettingScorerPolicy, layout_kwargs

    env = gym.make(env_id, **kwargs)
    model = MaskablePPO(SettingScorerPolicy, env, n_steps=64, batch_size=64, seed=seed, device="cpu",
                        policy_kwargs={"hidden": 16, "context": 4, **layout_kwargs(env)})
    return model, env


def test_soft_loss_with_one_hot_targets_is_the_hard_loss(setup, tmp_path):
    """One batch, one epoch: the reported loss is taken before the step, so the soft branch fed
    one-hot targets must give the hard branch's cross-entropy at the same weights."""
    env, table = setup
    path = write_teacher_dataset(env, "table", 32, 5, tmp_path / "d.parquet", table=table)
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    spec = env.spec
    losses = []
    for targets in (None, np.eye(masks.shape[1], dtype=np.float32)[actions]):
        model, e = _model(spec.id, spec.kwargs)
        losses.append(behaviour_clone(model, obs, masks, actions, epochs=1, batch_size=32, targets=targets)["final_batch_loss"])
        e.close()
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    assert losses[0] > 0


def test_soft_warm_start_learns_the_table(setup, tmp_path, monkeypatch):
    """End to end through :func:`warm_start` (the small table stands in for the cached one):
    the distilled policy's regret in the table's own values falls well below an untrained one's,
    the clone's learning rate is restored afterwards, and the run records what it did."""
    import splitpoker.agents.policies.strategy_table as st

    env, table = setup
    monkeypatch.setattr(st, "StrategyTable", lambda game, **kw: table)
    spec = env.spec
    model, e = _model(spec.id, spec.kwargs, seed=1)
    path = write_teacher_dataset(env, "table", 400, 1, tmp_path / "probe.parquet", table=table)
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    before = behaviour_clone(model, obs, masks, actions, epochs=0, batch_size=64, values=values)["teacher_value_regret"]
    lr = model.policy.optimizer.param_groups[0]["lr"]
    ws = WarmStart(teacher="table", hands=400, epochs=6, batch_size=64, target="soft", temperature=0.01, learning_rate=3e-3)
    stats = warm_start(model, lambda: gym.make(spec.id, **spec.kwargs), ws, tmp_path, log=lambda m: None)
    e.close()
    saved = json.loads((tmp_path / "warm_start.json").read_text())
    assert saved["target"] == "soft" and saved["temperature"] == 0.01 and saved["rows"] == 400
    assert model.policy.optimizer.param_groups[0]["lr"] == lr
    assert stats["teacher_value_regret"] < 0.5 * before, (stats, before)


@pytest.mark.parametrize("bad, match", [
    ({"target": "fuzzy"}, "target 'fuzzy'"),
    ({"target": "soft", "temperature": 0}, "temperature=0"),
    ({"target": "soft", "temperature": -0.01}, "temperature=-0.01"),
    ({"target": "soft", "temperature": float("nan")}, "temperature=nan"),
    ({"target": "soft", "temperature": "0.01"}, "temperature='0.01'"),
    ({"target": "soft", "temperature": True}, "temperature=True"),
    ({"teacher": "house-way", "target": "soft"}, "teacher 'house-way' only names its action"),
    ({"learning_rate": 0}, "learning_rate=0"),
    ({"seed": -1}, "seed=-1"),
])
def test_bad_warm_start_values_fail_at_config_time(bad, match):
    with pytest.raises(ValueError, match=match):
        WarmStart.from_dict(bad)
    with pytest.raises(ValueError, match=match):
        TrainConfig(warm_start=bad)


def test_benchmark_config_names_the_bad_warm_start_value():
    algo = {"name": "BC", "algo": "maskable_ppo", "policy": "MlpPolicy", "n_envs": 1,
            "warm_start": {"teacher": "table", "target": "soft", "temperature": -1}}
    cfg = {"name": "t", "total_timesteps": 64, "eval_every": 64, "seeds": [0, 1],
           "eval": {"hands": 2, "paired_hands": 2, "validation_seed": 1, "test_seed": 2},
           "envs": [{"id": "splitpoker/PaiGowPokerSetting-v0"}], "algorithms": [algo], "references": []}
    with pytest.raises(ConfigError, match=r"algorithms\[0\] \('BC'\)\.warm_start: warm_start temperature=-1"):
        BenchmarkConfig.from_dict(cfg)


def test_report_names_the_loss():
    from splitpoker.agents.benchmark.report import training_label

    assert training_label({"teacher": "table", "hands": 100_000, "target": "soft", "temperature": 0.003}) == (
        "warm start: distillation (T = 0.003) from `table` on 100,000 hands, then RL")
    assert training_label({"teacher": "house-way", "hands": 60}) == "warm start: BC from `house-way` on 60 hands, then RL"


def test_bench_script_refuses_bad_counts(capsys):
    import subprocess
    import sys
    from pathlib import Path

    from splitpoker.scripts.bench_warm_start import main

    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "scripts" / "bench_warm_start.py"), "--help"], capture_output=True,
                         text=True, cwd=root, timeout=120)
    assert out.returncode == 0 and "usage" in out.stdout and "one-by-one" in out.stdout

    import pytest

    with pytest.raises(SystemExit) as e:
        main(["--hands", "0"])
    assert e.value.code == 2 and "argument --hands: 0: expected an integer 1..10,000,000" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["--slow-hands", "-3"])
    assert e.value.code == 2 and "argument --slow-hands: -3: expected an integer 1..1,000,000" in capsys.readouterr().err


def test_scorer_warm_grid_matches_the_scorer_grid():
    """The goal grid for warm-started agents: same environments, evaluation set and references
    as configs/benchmark/scorer.yaml; every algorithm warm-started (reported apart from pure RL),
    the soft one with the default temperature, the RL phase at a lower rate than the clone."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "configs" / "benchmark"
    warm = BenchmarkConfig.from_yaml(root / "scorer_warm.yaml")
    base = BenchmarkConfig.from_yaml(root / "scorer.yaml")
    assert [(e.id, e.kwargs) for e in warm.envs] == [(e.id, e.kwargs) for e in base.envs]
    assert (warm.eval_hands, warm.eval_seed, warm.references) == (base.eval_hands, base.eval_seed, base.references)
    assert len(warm.seeds) >= 3 and all(a.warm_start for a in warm.algorithms)
    soft = [WarmStart.from_dict(a.warm_start) for a in warm.algorithms if a.warm_start.get("target") == "soft"]
    assert soft and soft[0].temperature == 0.003 and soft[0].teacher == "table"
    for a in warm.algorithms:
        assert a.algo_kwargs["learning_rate"] < WarmStart.from_dict(a.warm_start).learning_rate


def test_dataset_writer_refuses_bad_arguments(setup, tmp_path):
    env, table = setup
    for bad in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match=f"hands={bad!r}: expected a positive integer"):
            write_teacher_dataset(env, "table", bad, 1, tmp_path / "d.parquet", table=table)
    with pytest.raises(ValueError, match="teacher 'oracle'"):
        write_teacher_dataset(env, "oracle", 5, 1, tmp_path / "d.parquet")
    assert not (tmp_path / "d.parquet").exists()


def test_betting_env_rows_have_values_only_for_settings(tmp_path):
    """Two decisions per hand in the betting environment: the bet row has no teacher values
    (all NaN: the soft target falls back to the teacher's bet), the setting row has them."""
    env = gym.make("splitpoker/PaiGowPoker-v0", house_way="paigow-igw")
    game = env.unwrapped.game
    table = StrategyTable(game, universe=K, dealer=build_dealer_table(game, universe=K), use_cache=False)
    path = write_teacher_dataset(env, "table", 6, 2, tmp_path / "bet.parquet", table=table)
    env.close()
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    assert len(actions) == 12
    bets, sets = slice(0, None, 2), slice(1, None, 2)
    assert np.isnan(values[bets]).all() and (actions[bets] == 0).all()
    assert np.array_equal(np.isnan(values[sets]), ~masks[sets])
    p = soft_targets(values, masks, actions, 0.003)
    assert (p[bets, 0] == 1.0).all() and np.allclose(p.sum(1), 1.0)


def test_monte_carlo_teacher_values_are_its_estimates(tmp_path):
    """``mc-best`` values every setting by its Monte Carlo means and plays their argmax: the
    rows' actions are the ones its own policy plays on the same hands with the same seed."""
    from splitpoker.agents.policies.baselines import make_baseline

    env = gym.make("splitpoker/PaiGowPokerSetting-v0", house_way="paigow-igw")
    path = write_teacher_dataset(env, "mc-best", 4, 9, tmp_path / "mc.parquet")
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    policy = make_baseline("mc-best", env, seed=9)
    assert [policy.act(o, m) for o, m in zip(obs, masks, strict=True)] == actions.tolist()
    assert np.isfinite(values[masks]).all() and np.isnan(values[~masks]).all()
    assert np.allclose(values[np.arange(4), actions], np.nanmax(values, axis=1))
    env.close()
