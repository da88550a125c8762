"""Schedule strings in the configs (``learning_rate: lin_2e-3``): values worked by hand, bad
strings rejected naming the value, and a model trained with schedules saved and loaded in a
fresh process."""

import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
from splitpoker.agents.training.run import TrainConfig, train
from splitpoker.agents.training.schedules import LinearSchedule, parse_schedule, resolve_schedules

ROOT = Path(__file__).resolve().parent.parent


def test_linear_schedule_worked_by_hand():
    # lin_2e-3: 2e-3 * progress_remaining
    s = parse_schedule("lin_2e-3")
    assert s == LinearSchedule(2e-3, 0.0)
    assert (s(1.0), s(0.5), s(0.0)) == pytest.approx((2e-3, 1e-3, 0.0), abs=1e-15)
    # lin_2e-3_2e-4: 2e-4 + progress * 1.8e-3 -> 2e-3, 2e-4 + 9e-4 = 1.1e-3, 2e-4
    f = parse_schedule("lin_2e-3_2e-4")
    assert (f(1.0), f(0.5), f(0.0)) == pytest.approx((2e-3, 1.1e-3, 2e-4), abs=1e-15)
    assert (str(s), str(f)) == ("lin_0.002", "lin_0.002_0.0002")
    assert pickle.loads(pickle.dumps(f)) == f
    # only the schedule keys are converted; numbers pass through
    kw = resolve_schedules({"learning_rate": "lin_0.001", "clip_range": "lin_0.2", "n_steps": 8, "ent_coef": 0.01})
    assert kw == {"learning_rate": LinearSchedule(1e-3), "clip_range": LinearSchedule(0.2), "n_steps": 8, "ent_coef": 0.01}


@pytest.mark.parametrize("value,message", [
    ("lin_abc", "'abc' is not a finite number"),
    ("lin_-1", "start value -1 must be > 0"),
    ("lin_0", "start value 0 must be > 0"),
    ("exp_1e-3", "unknown schedule 'exp'"),
    ("lin", "no start value"),
    ("lin_", "expected 'lin_<start>'"),
    ("lin_1e-3_2e-3", "floor 0.002 must be between 0 and the start value 0.001"),
    ("lin_1e-3_-1e-4", "floor -0.0001 must be between 0"),
    ("lin_inf", "'inf' is not a finite number"),
    ("lin_1e-3_1e-4_0", "expected 'lin_<start>'"),
    ("0.001", "unknown schedule '0.001'"),
])
def test_bad_schedule_strings_fail_naming_the_value(value, message):
    with pytest.raises(ValueError, match=re.escape(f"algo_kwargs.learning_rate={value!r}")) as err:
        TrainConfig(algo_kwargs={"learning_rate": value})
    assert message in str(err.value)
    with pytest.raises(ValueError, match=re.escape(f"algo_kwargs.clip_range={value!r}")):
        TrainConfig(algo_kwargs={"clip_range": value})


def test_schedules_only_where_sb3_takes_them():
    with pytest.raises(ValueError, match=r"algo_kwargs.gamma='lin_0.9': expected a number >= 0 and <= 1"):
        TrainConfig(algo_kwargs={"gamma": "lin_0.9"})


def test_benchmark_config_rejects_a_bad_schedule_before_training():
    data = {"name": "s", "total_timesteps": 64, "eval_every": 32, "seeds": [0, 1],
            "eval": {"validation_seed": 1, "test_seed": 2},
            "envs": [{"id": "splitpoker/PaiGowPokerSetting-v0"}],
            "algorithms": [{"name": "ppo", "algo": "maskable_ppo", "algo_kwargs": {"learning_rate": "lin_abc"}}]}
    with pytest.raises(ConfigError, match=r"algo_kwargs.learning_rate='lin_abc'.*\(in algorithms\[0\]"):
        BenchmarkConfig.from_dict(data)
    data["algorithms"][0]["algo_kwargs"] = {"learning_rate": "lin_1e-3_1e-4", "clip_range": "lin_0.2"}
    assert BenchmarkConfig.from_dict(data).algorithms[0].algo_kwargs["learning_rate"] == "lin_1e-3_1e-4"


def test_trained_with_schedules_saves_and_loads_in_a_fresh_process(tmp_path):
    cfg = TrainConfig(env_id="splitpoker/PaiGowPokerSetting-v0", algo="maskable_ppo", policy="SettingScorerPolicy",
                      env_kwargs={"setting_features": True}, policy_kwargs={"hidden": 16, "context": 4},
                      algo_kwargs={"learning_rate": "lin_1e-3_1e-4", "clip_range": "lin_0.2", "n_steps": 32,
                                   "batch_size": 32, "n_epochs": 1},
                      n_envs=2, total_timesteps=128, checkpoint_freq=1000, log_dir=str(tmp_path), run_name="sched")
    run_dir = train(cfg, progress_bar=False, log=lambda m: None)
    # the run's config keeps the string a user wrote
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["algo_kwargs"]["learning_rate"] == "lin_1e-3_1e-4"
    code = (
        "import json\n"
        "from splitpoker.agents.training.models import load_model\n"
        f"model, cfg = load_model({str(run_dir / 'model.zip')!r})\n"
        "print(json.dumps({'type': type(model.learning_rate).__name__, 'lr': [model.lr_schedule(p) for p in (1, 0.5, 0)],\n"
        "                  'clip': [model.clip_range(p) for p in (1, 0.5, 0)], 'steps': model.num_timesteps,\n"
        "                  'opt_lr': model.policy.optimizer.param_groups[0]['lr'], 'cfg_lr': cfg.algo_kwargs['learning_rate']}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["type"] == "LinearSchedule" and got["cfg_lr"] == "lin_1e-3_1e-4"
    assert got["lr"] == pytest.approx([1e-3, 5.5e-4, 1e-4])
    assert got["clip"] == pytest.approx([0.2, 0.1, 0.0])
    # 128 steps in two rollouts of 2 x 32: the second update ran at progress 1 - 128/128 = 0, the floor
    assert got["steps"] == 128 and got["opt_lr"] == pytest.approx(1e-4)


def test_benchmark_builds_the_schedule_into_the_model():
    """configs/benchmark/scorer_pure.yaml: the string stays in the spec (and so in run.json), the
    model the harness builds gets the schedule."""
    from splitpoker.agents.benchmark.run import RunSpec, build_model

    cfg = BenchmarkConfig.from_yaml(ROOT / "configs" / "benchmark" / "scorer_pure.yaml")
    assert len(cfg.seeds) >= 3 and {"table", "house-way", "mc-best", "random"} <= set(cfg.references)
    env = next(e for e in cfg.envs if e.label == "paigow")
    algo = cfg.algorithms[0]
    assert algo.algo_kwargs["learning_rate"] == "lin_2e-3"
    model, venv = build_model(RunSpec(env, algo, 0, cfg.total_timesteps, cfg.eval_every, 2, 2, 0, 1), n_envs=2)
    try:
        assert model.learning_rate == LinearSchedule(2e-3)
        assert [model.lr_schedule(p) for p in (1.0, 0.5, 0.0)] == pytest.approx([2e-3, 1e-3, 0.0])
    finally:
        venv.close()


def test_a_sweep_samples_the_start_of_a_fixed_schedule():
    """scripts/tune.py: a grid's lin_ learning rate keeps its shape, the trial's value is its start."""
    import optuna

    from splitpoker.agents.benchmark.config import AlgoSpec
    from splitpoker.agents.benchmark.tuning import sample_algo
    from splitpoker.agents.training.schedules import with_start

    assert with_start("lin_2e-3_2e-4", 1e-3) == "lin_0.001_0.0001" and with_start("lin_2e-3", 5e-4) == "lin_0.0005"
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for fixed, ratio in (("lin_2e-3", 0.0), ("lin_2e-3_2e-4", 0.1)):
        algo = AlgoSpec("Scorer", "maskable_ppo", "SettingScorerPolicy", 2, {"n_steps": 32, "learning_rate": fixed}, {})
        s = parse_schedule(sample_algo(study.ask(), algo).algo_kwargs["learning_rate"])
        assert 2e-4 <= s.initial <= 3e-3 and s.final == pytest.approx(ratio * s.initial, rel=1e-4)
    plain = AlgoSpec("Scorer", "maskable_ppo", "SettingScorerPolicy", 2, {"n_steps": 32, "learning_rate": 1e-3}, {})
    assert isinstance(sample_algo(study.ask(), plain).algo_kwargs["learning_rate"], float)


def _save_under_0_1_names(model, path, monkeypatch):
    """Save ``model`` as splitpoker 0.1 did: its setting-scorer policy class and its schedules
    pickled by reference to the old modules ``agents.setting_scorer`` and ``agents.schedules``."""
    import types

    from splitpoker.agents.policies import setting_scorer
    from splitpoker.agents.training import schedules

    with monkeypatch.context() as m:
        old_scorer, old_schedules = types.ModuleType("agents.setting_scorer"), types.ModuleType("agents.schedules")
        old_scorer.SettingScorerPolicy = setting_scorer.SettingScorerPolicy
        old_schedules.LinearSchedule = schedules.LinearSchedule
        m.setitem(sys.modules, "agents", types.ModuleType("agents"))
        m.setitem(sys.modules, "agents.setting_scorer", old_scorer)
        m.setitem(sys.modules, "agents.schedules", old_schedules)
        m.setattr(setting_scorer.SettingScorerPolicy, "__module__", "agents.setting_scorer")
        m.setattr(schedules.LinearSchedule, "__module__", "agents.schedules")
        model.save(path)


def test_a_model_saved_before_the_rename_loads_beside_its_config(tmp_path, monkeypatch):
    """docs/migration.md: a model.zip of 0.1 (pickled references to agents.setting_scorer and
    agents.schedules) loads with load_model when its run's config.yaml is beside it: the policy
    class and the schedules come from the config. Without the config the error says so."""
    import base64
    import shutil
    import zipfile

    from splitpoker.agents.training.models import load_model

    cfg = TrainConfig(env_id="splitpoker/PaiGowPokerSetting-v0", algo="maskable_ppo", policy="SettingScorerPolicy",
                      env_kwargs={"setting_features": True}, policy_kwargs={"hidden": 16, "context": 4},
                      algo_kwargs={"learning_rate": "lin_1e-3_1e-4", "clip_range": "lin_0.2", "n_steps": 32,
                                   "batch_size": 32, "n_epochs": 1},
                      n_envs=2, total_timesteps=64, checkpoint_freq=1000, log_dir=str(tmp_path), run_name="old")
    run_dir = train(cfg, progress_bar=False, log=lambda m: None)
    model, _ = load_model(run_dir / "model.zip")
    _save_under_0_1_names(model, run_dir / "model.zip", monkeypatch)
    data = json.loads(zipfile.ZipFile(run_dir / "model.zip").read("data"))
    pickled = b"".join(base64.b64decode(v[":serialized:"]) for v in data.values()
                       if isinstance(v, dict) and ":serialized:" in v)
    assert b"agents.setting_scorer" in pickled and b"agents.schedules" in pickled
    assert b"splitpoker.agents" not in pickled  # really the old names only
    code = (
        "import json, sys\n"
        "from splitpoker.agents.training.models import load_model\n"
        "model, cfg = load_model(sys.argv[1])\n"
        "print(json.dumps({'policy': type(model.policy).__name__, 'steps': model.num_timesteps,\n"
        "                  'lr': [model.lr_schedule(p) for p in (1, 0.5, 0)],\n"
        "                  'clip': [model.clip_range(p) for p in (1, 0.5, 0)]}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(run_dir / "model.zip")], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["policy"] == "SettingScorerPolicy" and got["steps"] == 64
    assert got["lr"] == pytest.approx([1e-3, 5.5e-4, 1e-4]) and got["clip"] == pytest.approx([0.2, 0.1, 0.0])
    alone = tmp_path / "copy.zip"
    shutil.copy(run_dir / "model.zip", alone)
    out = subprocess.run([sys.executable, "-c", code, str(alone)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    assert "agents.setting_scorer" in out.stderr and "config.yaml" in out.stderr, out.stderr[-3000:]
