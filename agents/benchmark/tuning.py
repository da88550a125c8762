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

One folder, one study: the study records its settings (:func:`study_settings`: the grid's
environment and algorithm, the budget per trial, the scoring interval and evaluation set, the
seed), and a rerun with other settings, or for another algorithm or environment, is refused
before anything runs rather than reported as if its trials had been run that way. A journal
whose last record was cut off (a crash mid-write) is repaired, the original kept beside it; a
record damaged elsewhere is refused with the line number (:func:`check_journal`).
One run at a time per folder (:func:`study_lock`, train.py's run lock).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, ConfigError, EnvSpec
from splitpoker.agents.process_state import leaves_process_as_found
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


@leaves_process_as_found
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


JOURNAL = "optuna.journal"
# study settings -> the tune.py flag that sets them (the others come from the grid's config)
_SETTING_FLAGS = {"timesteps_per_trial": "--timesteps", "eval_every": "--eval-every", "eval_hands": "--eval-hands",
                  "paired_hands": "--eval-hands", "seed": "--seed", "algorithm": "--algorithm", "env_label": "--env"}


def study_settings(cfg: BenchmarkConfig, env: EnvSpec, algo: AlgoSpec, seed: int) -> dict[str, Any]:
    """What a study's trials depend on (recorded in the study, compared on every rerun), as
    plain JSON values."""
    settings = {"grid": cfg.name, "env_label": env.label, "env_id": env.id, "env_kwargs": env.kwargs,
                "algorithm": algo.name, "algo": algo.algo, "policy": algo.policy, "n_envs": algo.n_envs,
                "algo_kwargs": algo.algo_kwargs, "policy_kwargs": algo.policy_kwargs, "warm_start": algo.warm_start,
                "timesteps_per_trial": cfg.total_timesteps, "eval_every": cfg.eval_every, "eval_hands": cfg.eval_hands,
                "paired_hands": cfg.eval_paired_hands, "eval_seed": cfg.eval_seed, "seed": seed}
    return json.loads(json.dumps(settings, default=str))


def check_journal(path: Path, log: Callable[[str], None] = print) -> None:
    """Make sure Optuna can replay the journal at ``path``: every line one JSON record (an object
    with an ``op_code``). A damaged *last* record is what a crash while appending leaves: it is
    dropped (the original is kept as ``<path>.damaged``) and the study resumes from the record
    before it. A damaged record elsewhere (not JSON, or an ``op_code`` Optuna does not know, such
    as 999) is refused (:class:`ConfigError` with its line), as is a journal that cannot be read."""
    from optuna.storages.journal._storage import JournalOperation

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the study journal ({e.strerror or e}): expected a readable file "
                          f"(move it away to start the study over)") from None
    op_codes = {int(op) for op in JournalOperation}
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" for a whole journal
    records = [*lines, tail] if tail else lines
    bad, whole = None, False
    for i, line in enumerate(records):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        known = isinstance(record, dict) and type(record.get("op_code")) is int and record["op_code"] in op_codes
        if not known or i >= len(lines):  # the tail lacks its newline
            # a record written whole (JSON with its newline) but not one Optuna knows is not a crash's
            bad, whole = i, record is not None and i < len(lines)
            break
    if bad is None:
        return
    if bad < len(records) - 1 or whole:
        raise ConfigError(f"{path}: line {bad + 1} of {len(records)} is not a study record "
                          f"({records[bad][:60].decode(errors='replace')!r}): the journal is damaged. Move it away to start the study "
                          f"over, or keep its first {bad} records (head -n {bad}) and rerun to resume from them")
    keep = b"".join(line + b"\n" for line in lines[:bad])
    backup = path.with_name(path.name + ".damaged")
    k = 1
    while backup.exists():  # an earlier repair's copy stays
        k += 1
        backup = path.with_name(f"{path.name}.damaged.{k}")
    shutil.copyfile(path, backup)
    tmp = path.with_name(f".{path.name}.repair.tmp")
    tmp.write_bytes(keep)
    os.replace(tmp, path)
    log(f"{path}: its last record was cut off (a crash while writing it): dropped it, the study resumes from "
        f"the {bad} records before (the original journal is kept as {backup})")


def _differences(stored: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    out = []
    for key in wanted:
        if stored.get(key) != wanted[key]:
            flag = _SETTING_FLAGS.get(key)
            what = f"{key} ({flag})" if flag else f"{key} (the grid config's)"
            out.append(f"{what} {json.dumps(stored.get(key))}, not {json.dumps(wanted[key])}")
    return out


def check_existing_study(out: Path, name: str, settings: dict[str, Any], log: Callable[[str], None] = print) -> None:
    """Refuse (:class:`ConfigError`), before any work, to run study ``name`` into ``out`` when
    ``out`` holds another study, or this one made with other settings. Repairs a journal whose
    last record was cut off (:func:`check_journal`)."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    path = Path(out) / JOURNAL
    if path.exists() and not path.is_file():
        raise ConfigError(f"{path} is {'a folder' if path.is_dir() else 'not a regular file'}, not a study journal: "
                          f"expected a file (or nothing, for a new study); move it away, or give another --out")
    if not path.is_file():
        return
    check_journal(path, log)
    try:
        storage = JournalStorage(JournalFileBackend(str(path)))
        names = [s.study_name for s in optuna.get_all_study_summaries(storage, include_best_trial=False)]
        stored = optuna.load_study(study_name=name, storage=storage).user_attrs.get("settings") \
            if name in names else None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, AssertionError) as e:
        raise ConfigError(f"{path} cannot be replayed ({type(e).__name__}: {e}): move it away to start the study "
                          f"over") from None
    others = [n for n in names if n != name]
    if others:
        raise ConfigError(f"{out} holds the study {others[0]!r}, not {name!r} (another grid, environment or "
                          f"algorithm): one folder holds one study; give another --out")
    if name in names and stored is None:
        log(f"warning: {path} does not record the settings its trials were run with (made by an older version): "
            f"resuming it as if they were this command's")
    elif stored is not None:
        diff = _differences(stored, settings)
        if diff:
            raise ConfigError(f"{out} holds a study run with other settings: {'; '.join(diff)}. Rerun with its "
                              f"settings to resume it, or give another --out for a new study")


def open_study(out: Path, name: str, seed: int, trials: int, settings: dict[str, Any] | None = None):
    """The study in ``<out>/optuna.journal`` (created or reopened; ``settings`` recorded in a
    new one); stale running trials (a crashed process) are marked failed so that they are rerun."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    out.mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(out / JOURNAL)))
    study = optuna.create_study(study_name=name, storage=storage, direction="minimize", load_if_exists=True,
                                sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(4, trials)),
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=0))
    if settings is not None and "settings" not in study.user_attrs:
        study.set_user_attr("settings", settings)
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


@leaves_process_as_found
def tune(cfg: BenchmarkConfig, algo_name: str, env_label: str | None, trials: int, out: Path, *, seed: int = 0,
         command: str = "", log: Callable[[str], None] = print, progress: Callable[[int], None] | None = None) -> dict:
    """Run the missing trials of the study and return (and write to ``<out>/tune.json``) its
    summary. ``cfg`` carries the budget (``total_timesteps``, ``eval_every``) and evaluation set."""
    import optuna

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
    if Path(out).exists() and not Path(out).is_dir():
        raise ConfigError(f"{out} is a file: expected a folder for the study")
    name, settings = f"{cfg.name}-{env.label}-{algo.name}", study_settings(cfg, env, algo, seed)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    Path(out).mkdir(parents=True, exist_ok=True)
    with study_lock(Path(out)):  # held to the end: a second run would mark this one's trial failed
        return _tune(cfg, env, algo, trials, Path(out), name, settings, seed, command, log, progress)


@contextlib.contextmanager
def study_lock(out: Path):
    """One run at a time per study folder: train.py's run lock
    (:func:`splitpoker.agents.training.state.run_lock`, a ``flock`` on the folder). A second run
    on a busy ``out`` is refused (:class:`ConfigError` naming the folder and the holder's pid):
    it would mark the first run's running trial failed and the first run would then crash."""
    from splitpoker.agents.training.state import RunBusy, run_lock

    held = contextlib.ExitStack()
    try:
        held.enter_context(run_lock(out))
    except RunBusy as e:
        raise ConfigError(f"{e} (a tune run of this study)") from None
    with held:
        yield


def _tune(cfg, env, algo, trials, out, name, settings, seed, command, log, progress) -> dict:
    from splitpoker.agents.benchmark.harness import write_json_atomic
    from splitpoker.agents.exact.eval_set import load_evalset

    check_existing_study(Path(out), name, settings, log)
    # the validation set only: the test set is for the published table, never for choosing
    evalset = load_evalset(env.id, env.kwargs, cfg.eval_hands, cfg.validation_seed, log=log)
    study = open_study(Path(out), name, seed, trials, settings)
    done = done_trials(study)
    if progress is not None and done:
        progress(min(done, trials))
    if done:
        log(f"resuming: {done} trial(s) already done in {Path(out) / JOURNAL}")

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
        with quiet_interrupted_trials():  # Ctrl-C is reported once, by the script, not as Optuna's traceback
            study.optimize(lambda t: run_trial(t, cfg, env, algo, evalset, seed), n_trials=remaining,
                           callbacks=[after], catch=())
    result = summary(study, cfg, env, algo, evalset, command, seed)
    write_json_atomic(Path(out) / "tune.json", result)
    return result


@contextlib.contextmanager
def quiet_interrupted_trials():
    """Within: Optuna logs nothing for a trial stopped by Ctrl-C (see :class:`_NoInterruptTraceback`)."""
    quiet = _NoInterruptTraceback()
    # a filter acts only on its own logger's records, not on those its children propagate to it
    log = logging.getLogger("optuna.study._optimize")
    log.addFilter(quiet)
    try:
        yield
    finally:
        log.removeFilter(quiet)


class _NoInterruptTraceback:
    """A logging filter for Optuna's trial loop: drops its "Trial N failed ... KeyboardInterrupt()"
    record with the traceback, and the "Trial N failed with value None." that follows it (the
    interrupt still propagates; the script prints its one ``interrupted`` line)."""

    def __init__(self) -> None:
        self.interrupted = False

    def filter(self, record) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, KeyboardInterrupt) or "KeyboardInterrupt" in record.getMessage():
            self.interrupted = True
        return not (self.interrupted and " failed " in record.getMessage())


def config_snippet(best: dict[str, Any]) -> str:
    """The best trial's keys as YAML flow mappings, for pasting into a config."""
    import yaml

    dump = lambda d: yaml.safe_dump(d, default_flow_style=True, width=200).strip()  # noqa: E731
    return f"algo_kwargs: {dump(best['algo_kwargs'])}\npolicy_kwargs: {dump(best['policy_kwargs'])}"
