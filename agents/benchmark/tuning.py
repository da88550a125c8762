"""Hyperparameter search for one algorithm of a benchmark grid: Optuna (TPE sampler, median
pruning), objective = exact regret on the grid's cached evaluation set (:mod:`splitpoker.agents.exact.eval_set`).

A trial is one benchmark run (:func:`splitpoker.agents.benchmark.run.run_one`'s model, env and scorer) of the
chosen algorithm with sampled hyperparameters, a fixed step budget and one seed: it is scored by
exact regret every ``eval_every`` steps, each score after step 0 is reported to Optuna, and a trial whose
intermediate regret is worse than the median of the earlier trials at the same step is stopped
(:class:`optuna.pruners.MedianPruner`). The objective is the last score (mean exact regret per
hand on the evaluation set; lower is better).

Search spaces (:data:`SPACES`), per policy; every other key keeps the grid's value::

    SettingScorerPolicy   learning_rate  log-uniform 2e-4 .. 3e-3
                          n_steps        128 | 256 | 512      (per env; rollout = n_steps * n_envs)
                          batch_size     128 | 256 | 512      (at most the rollout)
                          n_epochs       2 | 4 | 8
                          ent_coef       0 | 1e-3 | 1e-2
                          hidden         32 | 64 | 128
                          context        8 | 16 | 32
    MlpPolicy             learning_rate  log-uniform 1e-4 .. 3e-3, n_epochs 3 | 5 | 10,
                          ent_coef 0 | 1e-3 | 1e-2, net_arch [64, 64] | [256, 256]  (PPO family)

A schedule string as the grid's fixed ``learning_rate`` (``lin_2e-3``, :mod:`splitpoker.agents.training.schedules`)
keeps its shape: the trial samples its start (``lin_<sampled>``; a floor keeps its ratio to the
start), so a sweep can tune a decaying rate.

Resumable: the study lives in ``<out>/optuna.journal`` (Optuna's ``JournalStorage``, an
append-only log, safe to interrupt); rerunning the same command runs only the trials still
missing (complete + pruned count as done; a trial cut off by a crash is marked failed and rerun).
Outputs: ``<out>/tune.json`` (every trial, the best one and its hyperparameters as a config
snippet).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, ConfigError, EnvSpec
from splitpoker.agents.training.algorithms import TUNABLE_ALGOS
from splitpoker.agents.training.schedules import SCHEDULE_KEYS, with_start

LR = ("learning_rate", "log", 2e-4, 3e-3)
SPACES: dict[str, list[tuple]] = {
    "SettingScorerPolicy": [LR, ("n_steps", "cat", [128, 256, 512]), ("batch_size", "cat", [128, 256, 512]),
                            ("n_epochs", "cat", [2, 4, 8]), ("ent_coef", "cat", [0.0, 1e-3, 1e-2]),
                            ("hidden", "cat", [32, 64, 128]), ("context", "cat", [8, 16, 32])],
    "MlpPolicy": [("learning_rate", "log", 1e-4, 3e-3), ("n_epochs", "cat", [3, 5, 10]),
                  ("ent_coef", "cat", [0.0, 1e-3, 1e-2]), ("net_arch", "cat", ["64x64", "256x256"])],
}
POLICY_KEYS = {"hidden", "context", "net_arch"}  # sampled keys that go to policy_kwargs
PPO_ONLY = {"n_steps", "batch_size", "n_epochs"}


def search_space(algo: AlgoSpec) -> list[tuple]:
    """The space of ``algo`` (by its policy); only PPO-family algorithms are tuned here."""
    if algo.algo not in TUNABLE_ALGOS:
        raise ConfigError(f"algorithm {algo.name!r} ({algo.algo}): tuning covers {' and '.join(TUNABLE_ALGOS)} only")
    if algo.policy not in SPACES:
        raise ConfigError(f"algorithm {algo.name!r}: no search space for policy {algo.policy!r}; "
                          f"expected one of {sorted(SPACES)}")
    return SPACES[algo.policy]


def sample_algo(trial, algo: AlgoSpec) -> AlgoSpec:
    """``algo`` with the trial's sampled hyperparameters (batch_size capped at the rollout size)."""
    algo_kwargs, policy_kwargs = dict(algo.algo_kwargs), dict(algo.policy_kwargs)
    for name, kind, *args in search_space(algo):
        value = trial.suggest_float(name, args[0], args[1], log=True) if kind == "log" else \
            trial.suggest_categorical(name, args[0])
        if name == "net_arch":
            value = [int(w) for w in value.split("x")]
        if name in SCHEDULE_KEYS and isinstance(algo_kwargs.get(name), str):
            value = with_start(algo_kwargs[name], value, f"{algo.name}.algo_kwargs.{name}")  # keep lin_ decay
        (policy_kwargs if name in POLICY_KEYS else algo_kwargs)[name] = value
    rollout = algo_kwargs.get("n_steps", 2048) * algo.n_envs
    if algo_kwargs.get("batch_size", 64) > rollout:
        algo_kwargs["batch_size"] = rollout
    return dataclasses.replace(algo, algo_kwargs=algo_kwargs, policy_kwargs=policy_kwargs)


def _pruning_callback(trial, points: list, state: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    class PruneOnRegret(BaseCallback):
        """Reports each new exact-regret score to Optuna; stops training when the trial is pruned."""

        def _on_step(self) -> bool:
            while state["reported"] < len(points):
                p = points[state["reported"]]
                state["reported"] += 1
                if p["steps"] == 0:
                    continue  # the untrained network's score says nothing about the hyperparameters
                trial.report(p["mean_regret"], p["steps"])
                if trial.should_prune():
                    state["pruned"] = True
                    return False
            return True

    return PruneOnRegret()


def run_trial(trial, cfg: BenchmarkConfig, env: EnvSpec, algo: AlgoSpec, evalset, seed: int) -> float:
    """One trial: train ``algo`` (hyperparameters sampled) for the grid's budget, scored by exact
    regret every ``eval_every`` steps; raises ``optuna.TrialPruned`` when pruned."""
    import optuna
    import torch
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.utils import set_random_seed

    from splitpoker.agents.benchmark.run import RunSpec, Scorer, _regret_callback, build_model
    from splitpoker.agents.policies.baselines import SB3Policy

    sampled = sample_algo(trial, algo)
    spec = RunSpec(env, sampled, seed, cfg.total_timesteps, cfg.eval_every, cfg.eval_hands, cfg.eval_paired_hands,
                   cfg.validation_seed, cfg.test_seed)  # the test seed only names the grid: trials score validation
    torch.set_num_threads(1)
    set_random_seed(seed)
    model, venv = build_model(spec)
    scorer = Scorer(env, evalset, cfg.eval_paired_hands)
    points: list[dict] = []
    policy = SB3Policy.from_env(scorer.env, model=model, name=algo.name)
    regret_cb = _regret_callback(scorer, cfg.eval_every, lambda m: policy, points)
    state = {"reported": 0, "pruned": False}
    t0 = time.perf_counter()
    try:
        model.learn(total_timesteps=cfg.total_timesteps, callback=CallbackList([regret_cb, _pruning_callback(trial, points, state)]),
                    progress_bar=False)
        if not state["pruned"] and points[-1]["steps"] != model.num_timesteps:
            regret_cb.evaluate()
    finally:
        venv.close()
        scorer.close()
    final = points[-1]
    trial.set_user_attr("steps", int(model.num_timesteps))
    trial.set_user_attr("train_seconds", time.perf_counter() - t0 - regret_cb.eval_seconds)
    trial.set_user_attr("regret_ci95", final["regret_ci95"])
    trial.set_user_attr("optimal_rate", final["optimal_rate"])
    trial.set_user_attr("curve", [[p["steps"], p["mean_regret"]] for p in points])
    trial.set_user_attr("algo_kwargs", sampled.algo_kwargs)
    trial.set_user_attr("policy_kwargs", sampled.policy_kwargs)
    if state["pruned"]:
        raise optuna.TrialPruned(f"exact regret {final['mean_regret']:.4f} at step {final['steps']}")
    return float(final["mean_regret"])


def open_study(out: Path, name: str, seed: int, trials: int):
    """The study in ``<out>/optuna.journal`` (created or reopened); stale running trials (a
    crashed process) are marked failed so that they are rerun."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    out.mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(out / "optuna.journal")))
    study = optuna.create_study(study_name=name, storage=storage, direction="minimize", load_if_exists=True,
                                sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(4, trials)),
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=0))
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    return study


def done_trials(study) -> int:
    from optuna.trial import TrialState

    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))


def summary(study, cfg: BenchmarkConfig, env: EnvSpec, algo: AlgoSpec, evalset, command: str, seed: int) -> dict:
    from optuna.trial import TrialState

    rows = []
    for t in study.get_trials(deepcopy=False):
        rows.append({"number": t.number, "state": t.state.name, "value": t.value, "params": t.params,
                     **{k: t.user_attrs.get(k) for k in ("steps", "train_seconds", "regret_ci95", "optimal_rate",
                                                         "algo_kwargs", "policy_kwargs", "curve")}})
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    best = None
    if complete:
        b = study.best_trial
        best = {"number": b.number, "mean_regret": b.value, "regret_ci95": b.user_attrs.get("regret_ci95"),
                "params": b.params, "algo_kwargs": b.user_attrs.get("algo_kwargs"),
                "policy_kwargs": b.user_attrs.get("policy_kwargs")}
    return {"study": study.study_name, "command": command, "grid": cfg.name, "env": env.label, "env_id": env.id,
            "algorithm": algo.name, "policy": algo.policy, "seed": seed, "timesteps_per_trial": cfg.total_timesteps,
            "eval_every": cfg.eval_every, "evalset": {"split": "validation", "hands": evalset.hands, "seed": evalset.seed,
                                                               "sha256": evalset.sha256},
            "space": [list(map(str, s)) for s in search_space(algo)], "trials_done": done_trials(study),
            "best": best, "trials": rows}


def tune(cfg: BenchmarkConfig, algo_name: str, env_label: str | None, trials: int, out: Path, *, seed: int = 0,
         command: str = "", log: Callable[[str], None] = print, progress: Callable[[int], None] | None = None) -> dict:
    """Run the missing trials of the study and return (and write to ``<out>/tune.json``) its
    summary. ``cfg`` carries the budget (``total_timesteps``, ``eval_every``) and evaluation set."""
    import optuna

    from splitpoker.agents.benchmark.harness import write_json_atomic
    from splitpoker.agents.exact.eval_set import load_evalset

    algos = {a.name: a for a in cfg.algorithms}
    if algo_name not in algos:
        raise ConfigError(f"unknown algorithm name {algo_name!r}: this config has {list(algos)}")
    algo = algos[algo_name]
    search_space(algo)
    envs_by_label = {e.label: e for e in cfg.envs}
    if env_label is None:
        env = cfg.envs[0]
    elif env_label in envs_by_label:
        env = envs_by_label[env_label]
    else:
        raise ConfigError(f"unknown env label {env_label!r}: this config has {list(envs_by_label)}")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ConfigError(f"trials={trials!r}: expected a positive integer")
    # the validation set only: the test set is for the published table, never for choosing
    evalset = load_evalset(env.id, env.kwargs, cfg.eval_hands, cfg.validation_seed, log=log)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = open_study(Path(out), f"{cfg.name}-{env.label}-{algo.name}", seed, trials)
    done = done_trials(study)
    if progress is not None and done:
        progress(min(done, trials))
    if done:
        log(f"resuming: {done} trial(s) already done in {Path(out) / 'optuna.journal'}")

    def after(study, t) -> None:
        if t.state.name in ("COMPLETE", "PRUNED"):
            v = t.value if t.value is not None else t.user_attrs.get("curve", [[0, float("nan")]])[-1][1]
            log(f"trial {t.number} {t.state.name.lower()}: exact regret {v:.4f} "
                f"({t.user_attrs.get('steps')} steps, {t.user_attrs.get('train_seconds', 0):.0f} s) {t.params}")
            if progress is not None:
                progress(1)
        write_json_atomic(Path(out) / "tune.json", summary(study, cfg, env, algo, evalset, command, seed))

    remaining = max(trials - done, 0)
    if remaining:
        study.optimize(lambda t: run_trial(t, cfg, env, algo, evalset, seed), n_trials=remaining, callbacks=[after],
                       catch=())
    result = summary(study, cfg, env, algo, evalset, command, seed)
    write_json_atomic(Path(out) / "tune.json", result)
    return result


def config_snippet(best: dict[str, Any]) -> str:
    """The best trial's keys as YAML flow mappings, for pasting into a config."""
    import yaml

    dump = lambda d: yaml.safe_dump(d, default_flow_style=True, width=200).strip()  # noqa: E731
    return f"algo_kwargs: {dump(best['algo_kwargs'])}\npolicy_kwargs: {dump(best['policy_kwargs'])}"
