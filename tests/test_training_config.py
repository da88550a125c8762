"""Bad training configs and flags: ``scripts/train.py`` exits 2 with a message naming the field and
the value, and writes nothing (no run directory; an existing run is left untouched)."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest
import yaml

from splitpoker.agents.training.config import TrainConfig, check_run_name, check_seed

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("train_script", ROOT / "scripts" / "train.py")
train_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_script)

ASIA = "splitpoker/AsiaPokerSetting-v0"
PAIGOW = "splitpoker/PaiGowPokerSetting-v0"
BASE = {"env": {"id": ASIA, "kwargs": {"house_way": "asia-000"}}, "algo": "maskable_ppo", "policy": "MlpPolicy",
        "algo_kwargs": {"n_steps": 64, "batch_size": 64}, "policy_kwargs": {"net_arch": [16]}, "n_envs": 2,
        "total_timesteps": 256, "seed": 0, "checkpoint_freq": 128}


def _with(**changes):
    cfg = yaml.safe_load(yaml.safe_dump(BASE))
    for dotted, value in changes.items():
        *path, last = dotted.split("__")
        d = cfg
        for key in path:
            d = d.setdefault(key, {})
        if value is _DROP:
            d.pop(last, None)
        else:
            d[last] = value
    return cfg


_DROP = object()

# (case id, config as parsed YAML, fragments the message must contain)
BAD_CONFIGS = [
    ("unknown top-level key", _with(learning_rate=0.1), ["learning_rate", "expected some of"]),
    ("typo in top-level key", _with(total_timestep=5), ["total_timestep", "did you mean 'total_timesteps'"]),
    ("unknown env key", _with(env__kwarg={}), ["kwarg", "env key"]),
    ("env not a mapping", _with(env="AsiaPoker"), ["env='AsiaPoker'", "mapping"]),
    ("unknown env id", _with(env__id="splitpoker/Nope-v0"), ["splitpoker/Nope-v0", "expected one of"]),
    ("typo in env.kwargs", _with(env__kwargs__house_wya="asia-000"), ["house_wya", "did you mean 'house_way'"]),
    ("env.kwargs not a mapping", _with(env__kwargs=[1, 2]), ["env.kwargs=[1, 2]", "mapping"]),
    ("bad env.kwargs value", _with(env__kwargs__dealer_samples=0), ["dealer_samples=0", "1..1000"]),
    ("bad rules option", _with(env__kwargs__rules={"ace_low": "x"}), ["ace_low"]),
    ("Pai Gow house way at the Asia table", _with(env__kwargs__house_way="paigow-igw"),
     ["paigow-igw", "asia-000"]),
    ("Asia house way at the Pai Gow table", _with(env__id=PAIGOW, env__kwargs__house_way="asia-000"),
     ["asia-000", "paigow-igw"]),
    ("unknown house way", _with(env__kwargs__house_way="vegas"), ["vegas", "asia-borgata"]),
    ("betting on a setting env", _with(env__kwargs__betting=False), ["betting"]),
    ("raise with an unmasked algorithm", _with(algo="ppo", env__kwargs__invalid_action="raise"),
     ["invalid_action='raise'", "penalize"]),
    ("unknown algo", _with(algo="sac"), ["'sac'", "maskable_ppo"]),
    ("typo in algo_kwargs", _with(algo_kwargs__learnig_rate=0.1), ["learnig_rate", "did you mean 'learning_rate'"]),
    ("algo_kwargs of another algorithm", _with(algo="dqn", algo_kwargs={"n_epochs": 3}), ["n_epochs", "DQN"]),
    ("seed inside algo_kwargs", _with(algo_kwargs__seed=3), ["algo_kwargs.seed", "top-level 'seed'"]),
    ("algo_kwargs not a mapping", _with(algo_kwargs="fast"), ["algo_kwargs='fast'", "mapping"]),
    ("batch of one (MaskablePPO would train into NaN)", _with(algo_kwargs__batch_size=1),
     ["algo_kwargs.batch_size=1", "integer >= 2"]),
    ("negative learning rate", _with(algo_kwargs__learning_rate=-0.1), ["algo_kwargs.learning_rate=-0.1"]),
    ("gamma above one", _with(algo_kwargs__gamma=1.5), ["algo_kwargs.gamma=1.5", "<= 1"]),
    ("string n_steps", _with(algo_kwargs__n_steps="64"), ["algo_kwargs.n_steps='64'"]),
    ("model rejects a value", _with(algo_kwargs__clip_range_vf=-1), ["MaskablePPO cannot be built", "clip_range_vf"]),
    ("unknown policy", _with(policy="MLP"), ["'MLP'", "MlpPolicy"]),
    ("typo in policy_kwargs", _with(policy_kwargs__net_arc=[8]), ["net_arc", "did you mean 'net_arch'"]),
    ("policy_kwargs of another policy", _with(algo="dqn", algo_kwargs={}, policy_kwargs={"ortho_init": False}),
     ["ortho_init", "DQNPolicy"]),
    ("bad net_arch", _with(policy_kwargs__net_arch=[0]), ["net_arch=[0]", "positive layer sizes"]),
    ("unknown activation", _with(policy_kwargs__activation_fn="Relu"), ["activation_fn='Relu'", "ReLU"]),
    ("negative seed", _with(seed=-1), ["seed=-1", "0 to 4294967295"]),
    ("seed too large", _with(seed=2**32), ["seed=4294967296", "0 to 4294967295"]),
    ("float seed", _with(seed=1.5), ["seed=1.5"]),
    ("string seed", _with(seed="zero"), ["seed='zero'"]),
    ("boolean seed", _with(seed=True), ["seed=True"]),
    ("zero envs", _with(n_envs=0), ["n_envs=0", "positive integer"]),
    ("unknown vec_env", _with(vec_env="threads"), ["vec_env='threads'", "subproc"]),
    ("native vec_env for a table id", _with(vec_env="native", env__id="splitpoker/PaiGowTable-v0", env__kwargs={}),
     ["vec_env='native'", "splitpoker/PaiGowTable-v0", "expected 'dummy' or 'subproc'"]),
    ("negative total", _with(total_timesteps=-5), ["total_timesteps=-5"]),
    ("zero checkpoint_freq", _with(checkpoint_freq=0), ["checkpoint_freq=0"]),
    ("run_name climbing out", _with(run_name="../x"), ["run_name='../x'", "plain name"]),
    ("unknown device", _with(device="gpu"), ["device='gpu'"]),
]


def _run(capsys, *argv) -> tuple[int, str]:
    rc = train_script.main([*map(str, argv), "--no-progress"])
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("case,config,fragments", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config_exits_2_naming_it_and_writes_nothing(tmp_path, capsys, case, config, fragments):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    rc, err = _run(capsys, "--config", path, "--log-dir", tmp_path / "runs")
    assert rc == 2, err
    assert err.startswith("error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("text,fragment", [
    ("", "is empty"), ("# only a comment\n", "is empty"), ("- 1\n- 2\n", "must be a mapping"),
    ("just a string", "must be a mapping"), ("env: [unclosed", "not valid YAML"),
], ids=["empty", "comment only", "list", "scalar", "syntax error"])
def test_bad_yaml_file(tmp_path, capsys, text, fragment):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    rc, err = _run(capsys, "--config", path, "--log-dir", tmp_path / "runs")
    assert rc == 2 and fragment in err and str(path) in err, err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("argv,fragments", [
    (["--run-name", "../x"], ["--run-name '../x'", "plain name"]),
    (["--run-name", "/tmp/x"], ["--run-name '/tmp/x'"]),
    (["--run-name", "a/b"], ["--run-name 'a/b'"]),
    (["--run-name", ".."], ["--run-name '..'"]),
    (["--run-name", ""], ["--run-name ''"]),
    (["--seed", "-1"], ["--seed=-1", "0 to 4294967295"]),
    (["--seed", str(2**64)], [f"--seed={2**64}"]),
    (["--n-envs", "0"], ["--n-envs 0"]),
    (["--total-timesteps", "0"], ["--total-timesteps 0"]),
], ids=["run-name ..", "run-name absolute", "run-name separator", "run-name dotdot", "run-name empty",
        "negative seed", "seed 2**64", "n-envs 0", "total 0"])
def test_bad_flags(tmp_path, capsys, argv, fragments):
    path = tmp_path / "ok.yaml"
    path.write_text(yaml.safe_dump(BASE))
    rc, err = _run(capsys, "--config", path, "--log-dir", tmp_path / "runs", *argv)
    assert rc == 2, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "x").exists() and not Path("/tmp/x").exists()


def _fake_run(tmp_path) -> Path:
    """A run directory as train() leaves it before its first save (config.yaml only)."""
    run_dir = tmp_path / "runs" / "old"
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump({**BASE, "log_dir": str(tmp_path / "runs"),
                                                         "run_name": "old", "versions": {"x": "1"}}))
    return run_dir


def _digest(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv,fragments", [
    (["--seed", "3"], ["--seed 3 cannot be combined with --resume", "keeps its seed (0"]),
    (["--n-envs", "4"], ["--n-envs 4 cannot be combined with --resume", "(2 in"]),
    (["--run-name", "new"], ["--run-name new cannot be combined with --resume"]),
    (["--log-dir", "elsewhere"], ["--log-dir elsewhere cannot be combined with --resume"]),
    (["--config", "{other}"], ["differs from", "algo"]),
], ids=["seed", "n-envs", "run-name", "log-dir", "other config"])
def test_resume_refuses_flags_that_would_change_the_run(tmp_path, capsys, argv, fragments):
    run_dir = _fake_run(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**BASE, "algo": "ppo"}))
    before = _digest(tmp_path / "runs")
    rc, err = _run(capsys, "--resume", run_dir, *[a.format(other=other) for a in argv])
    assert rc == 2, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    assert _digest(tmp_path / "runs") == before and not (tmp_path / "elsewhere").exists()


def test_resume_of_something_that_is_not_a_run(tmp_path, capsys):
    rc, err = _run(capsys, "--resume", tmp_path / "missing")
    assert rc == 2 and "no such run directory" in err and "missing" in err
    (tmp_path / "empty").mkdir()
    rc, err = _run(capsys, "--resume", tmp_path / "empty")
    assert rc == 2 and "no config.yaml" in err
    assert [p.name for p in tmp_path.iterdir()] == ["empty"] and not any((tmp_path / "empty").iterdir())


def test_existing_run_and_missing_config(tmp_path, capsys):
    run_dir = _fake_run(tmp_path)
    path = tmp_path / "ok.yaml"
    path.write_text(yaml.safe_dump(BASE))
    before = _digest(run_dir)
    rc, err = _run(capsys, "--config", path, "--log-dir", tmp_path / "runs", "--run-name", "old")
    assert rc == 2 and "already exists" in err and f"--resume {run_dir}" in err, err
    assert _digest(run_dir) == before
    rc, err = _run(capsys, "--log-dir", tmp_path / "runs")
    assert rc == 2 and "--config is required" in err
    rc, err = _run(capsys, "--config", tmp_path / "nope.yaml")
    assert rc == 2 and "nope.yaml" in err
    (tmp_path / "afile").write_text("")
    rc, err = _run(capsys, "--config", path, "--log-dir", tmp_path / "afile")
    assert rc == 2 and "is a file" in err


def test_validation_helpers_and_the_shipped_configs():
    assert check_seed(0) == 0 and check_seed(2**32 - 1) == 2**32 - 1
    import numpy as np

    assert check_seed(np.int64(7)) == 7  # numpy integers are integers
    for name in ("asia_ppo_seed0", "run.1", "a-b"):
        assert check_run_name(name) == name
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        cfg = TrainConfig.from_yaml(path)  # the shipped configs stay valid
        assert cfg.algo == "maskable_ppo" and cfg.seed == 0
        assert TrainConfig.from_dict(cfg.to_dict()) == cfg  # config.yaml round trip


def test_custom_policy_names_are_checked_against_their_class(monkeypatch):
    """A policy outside stable-baselines3 is registered in CUSTOM_POLICIES; its policy_kwargs are
    checked against its own signature."""
    import sys
    import types

    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from splitpoker.agents.training import config as training_config

    class WidePolicy(MaskableActorCriticPolicy):
        def __init__(self, *args, width: int = 8, **kwargs):
            super().__init__(*args, **kwargs)

    module = types.ModuleType("fake_policies")
    module.policy_class = lambda name, algo: WidePolicy
    monkeypatch.setitem(sys.modules, "fake_policies", module)
    monkeypatch.setitem(training_config.CUSTOM_POLICIES, "WidePolicy", "fake_policies:policy_class")
    cfg = TrainConfig(policy="WidePolicy", policy_kwargs={"width": 4})
    assert training_config.policy_class(cfg.algo, cfg.policy) is WidePolicy
    with pytest.raises(ValueError, match=r"unknown policy 'Wide' .*WidePolicy"):
        TrainConfig(policy="Wide")
