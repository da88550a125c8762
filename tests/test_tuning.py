"""The hyperparameter search (agents/benchmark/tuning.py, scripts/tune.py): sampled values inside the
documented space, the objective is the run's exact regret, an interrupted study resumes without
redoing trials, bad input fails before any training."""

import json
import subprocess
import sys
from pathlib import Path

import optuna
import pytest

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, ConfigError
from splitpoker.agents.benchmark.tuning import SPACES, sample_algo, tune

ROOT = Path(__file__).resolve().parent.parent
ASIA = "splitpoker/AsiaPokerSetting-v0"


def tiny_cfg(**changes) -> BenchmarkConfig:
    cfg = {"name": "tiny", "executor": "local", "total_timesteps": 128, "eval_every": 64, "seeds": [0],
           "eval": {"hands": 10, "paired_hands": 10, "validation_seed": 2024, "test_seed": 2025},
           "envs": [{"id": ASIA, "label": "asia", "kwargs": {"house_way": "asia-000", "dealer_samples": 2,
                                                             "setting_features": True}}],
           "algorithms": [{"name": "MLP", "algo": "maskable_ppo", "policy": "MlpPolicy", "n_envs": 2,
                           "algo_kwargs": {"n_steps": 32, "batch_size": 32, "gamma": 0.0}},
                          {"name": "Scorer", "algo": "maskable_ppo", "policy": "SettingScorerPolicy", "n_envs": 2,
                           "algo_kwargs": {"n_steps": 32, "gamma": 0.0}},
                          {"name": "DQN", "algo": "dqn", "policy": "MlpPolicy", "algo_kwargs": {"gamma": 0.0}}],
           "references": []}
    cfg.update(changes)
    return BenchmarkConfig.from_dict(cfg, min_seeds=1)  # a sweep trains one seed per trial


def test_sampled_hyperparameters_lie_in_the_space():
    algo = AlgoSpec("Scorer", "maskable_ppo", "SettingScorerPolicy", 2, {"n_steps": 32, "gamma": 0.0}, {})
    space = {name: args for name, _, *args in SPACES["SettingScorerPolicy"]}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for _ in range(20):
        s = sample_algo(study.ask(), algo)
        assert space["learning_rate"][0] <= s.algo_kwargs["learning_rate"] <= space["learning_rate"][1]
        assert s.algo_kwargs["n_epochs"] in space["n_epochs"][0] and s.algo_kwargs["ent_coef"] in space["ent_coef"][0]
        assert s.policy_kwargs["hidden"] in space["hidden"][0] and s.policy_kwargs["context"] in space["context"][0]
        # batch_size never exceeds the rollout (n_steps x n_envs)
        assert s.algo_kwargs["batch_size"] <= s.algo_kwargs["n_steps"] * 2
        assert s.algo_kwargs["gamma"] == 0.0  # the grid's other keys are kept


def test_study_scores_by_exact_regret_and_resumes(tmp_path):
    cfg = tiny_cfg()
    logs = []
    first = tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=logs.append)
    assert first["trials_done"] == 2 and len(first["trials"]) == 2
    assert (tmp_path / "optuna.journal").exists()
    on_disk = json.loads((tmp_path / "tune.json").read_text())
    assert on_disk["trials_done"] == 2 and on_disk["evalset"]["hands"] == 10
    for t in first["trials"]:
        assert t["state"] in ("COMPLETE", "PRUNED")
        assert [p[0] for p in t["curve"]][:2] == [0, 64]  # scored at the grid's interval
        if t["state"] == "PRUNED":  # never on the untrained network's step-0 score
            assert t["curve"][-1][0] > 0
        if t["state"] == "COMPLETE":  # the objective is the last exact-regret score
            assert t["value"] == t["curve"][-1][1] and t["steps"] == 128
    best = first["best"]
    assert best is not None and best["mean_regret"] == min(t["value"] for t in first["trials"] if t["value"] is not None)
    assert set(best["params"]) == {"learning_rate", "n_epochs", "ent_coef", "net_arch"}
    # rerun with a larger study: only the missing trial runs, the first two are kept as they were
    logs.clear()
    again = tune(cfg, "MLP", None, 3, tmp_path, seed=0, log=logs.append)
    assert any("resuming: 2 trial(s) already done" in m for m in logs)
    assert again["trials_done"] == 3
    assert [t["params"] for t in again["trials"][:2]] == [t["params"] for t in first["trials"]]
    assert sum(m.startswith("trial ") for m in logs) == 1


@pytest.mark.parametrize(("algo", "env", "trials", "fragment"), [
    ("Nope", None, 2, "unknown algorithm name 'Nope'"),
    ("DQN", None, 2, "tuning covers maskable_ppo and ppo only"),
    ("MLP", "paigow", 2, "unknown env label 'paigow'"),
    ("MLP", None, 0, "trials=0: expected a positive integer"),
])
def test_bad_input_fails_before_training(tmp_path, algo, env, trials, fragment):
    with pytest.raises(ConfigError, match=fragment):
        tune(tiny_cfg(), algo, env, trials, tmp_path / "o", log=lambda m: None)
    assert not (tmp_path / "o").exists()


def test_script_help_and_bad_arguments(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, str(ROOT / "scripts" / "tune.py"), *a], cwd=ROOT,  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    p = run("--help")
    assert p.returncode == 0 and "optuna.journal" in p.stdout
    p = run("--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "SAC", "--timesteps", "100",
            "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "unknown algorithm name 'SAC'" in p.stderr and not (tmp_path / "o").exists()
    p = run("--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "PPO", "--timesteps", "0")
    assert p.returncode == 2 and "--timesteps 0: expected a positive integer" in p.stderr
