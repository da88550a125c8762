"""One run of the RL benchmark: train one (environment, algorithm, seed) at a fixed step budget
and score it by exact regret every ``eval_every`` steps (:func:`run_one`).

Scoring (:class:`Scorer`): the deterministic policy plays the evaluation deals; the settings it
plays on the evaluation set's hands are looked up in the cached exact EVs (:mod:`splitpoker.agents.exact.eval_set`),
and its rewards on all the deals are paired with the house way's (common random numbers,
:mod:`splitpoker.agents.evaluation.evaluate`). Random states (Python, NumPy, torch) are saved before and restored after
every scoring, so scoring never changes training. Seeding: ``set_random_seed(seed)``, the model's
``seed`` and the vectorised env's ``seed``; one torch thread. The same :class:`RunSpec` therefore
gives the same curve in any process (a Ray worker or the driver). A run with ``warm_start``
behaviour-clones its teacher first (:func:`warm_start_model`); the clone's time is part of the
run's wall time and the first learning-curve point (step 0) scores the cloned policy.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, EnvSpec, resolve_policy
from splitpoker.agents.benchmark.scorer import Scorer  # noqa: F401  (re-exported: tuning and the callbacks use it)
from splitpoker.agents.exact.eval_set import EvalSet, make_eval_env  # noqa: F401  (EvalSet: Scorer's input)
from splitpoker.agents.process_state import leaves_process_as_found
from splitpoker.envs.rules.cache import key_digest

RESULT_FORMAT = 1
MODEL_KEY = "model_zip"  # the trained model's bytes in a task's result; stored as model.zip, not in JSON


def git_commit() -> dict:
    """The checkout's commit and whether it had uncommitted changes (``None`` outside a git
    checkout, e.g. an installed wheel on a Ray worker)."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def machine() -> dict:
    """The machine a run trained on: CPU model and count, torch and numba thread counts, host."""
    import os
    import platform

    import numba
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu_model": cpu, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "torch_interop_threads": torch.get_num_interop_threads(), "numba_threads": numba.get_num_threads(),
            "niceness": os.nice(0), "platform": platform.platform(), "hostname": platform.node()}


def versions() -> dict[str, str]:
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for pkg in ("splitpoker", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "numba", "numpy", "ray"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out


@dataclass(frozen=True)
class RunSpec:
    """Everything a run depends on (its hash guards resumption against a changed config)."""

    env: EnvSpec
    algo: AlgoSpec
    seed: int
    total_timesteps: int
    eval_every: int
    eval_hands: int
    eval_paired_hands: int
    validation_seed: int
    test_seed: int
    card_removal_hands: int = 100
    card_removal_margin: float = 0.03

    @property
    def run_id(self) -> str:
        safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in self.algo.name)
        return f"{self.env.label}__{safe}__{self.seed}"

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def digest(self) -> str:
        return key_digest(self.to_dict())


def grid(cfg: BenchmarkConfig) -> list[RunSpec]:
    return [RunSpec(e, a.on(e), s, cfg.total_timesteps, cfg.eval_every, cfg.eval_hands, cfg.eval_paired_hands,
                    cfg.validation_seed, cfg.test_seed, cfg.card_removal_hands, cfg.card_removal_margin)
            for s in cfg.seeds for e in cfg.envs for a in cfg.algorithms]  # seed-major: a grid stopped early has
    # every algorithm and task at about the same number of seeds


# ---- scoring ----------------------------------------------------------------------------------

def _regret_callback(scorer: Scorer, eval_every: int, make_policy: Callable, points: list):
    from stable_baselines3.common.callbacks import BaseCallback

    class ExactRegretCallback(BaseCallback):
        """Scores the model every ``eval_every`` environment steps; RNG states are restored after
        scoring so that evaluation never changes training."""

        def __init__(self):
            super().__init__()
            self.next_eval = eval_every
            self.eval_seconds = 0.0

        def evaluate(self) -> None:
            import random

            import torch

            t0 = time.perf_counter()
            states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
            point = scorer.score(make_policy(self.model))
            random.setstate(states[0])
            np.random.set_state(states[1])
            torch.set_rng_state(states[2])
            point["steps"] = int(self.model.num_timesteps)
            points.append(point)
            self.eval_seconds += time.perf_counter() - t0

        def _on_training_start(self) -> None:
            if not points:
                self.evaluate()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_eval:
                self.evaluate()
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += eval_every
            return True

    return ExactRegretCallback()


def build_model(spec: RunSpec, n_envs: int | None = None):
    """The untrained model and its vectorised env, seeded from ``spec.seed``."""
    from splitpoker.agents.training.algorithms import quiet_logger
    from splitpoker.agents.training.resources import check_model_memory
    from splitpoker.agents.training.run import TrainConfig, algo_class, make_vec_env
    from splitpoker.agents.training.run import resolve_policy as training_policy
    from splitpoker.agents.training.schedules import resolve_schedules
    from splitpoker.envs.registration import VECTOR_ENTRY_POINTS

    a = spec.algo
    # the native vector env where there is one: the same deals as a DummyVecEnv of single envs for
    # the same seed (tests/test_sb3_vec.py), one numba call per step instead of n Python env steps
    vec_env = "native" if spec.env.id in VECTOR_ENTRY_POINTS else "dummy"
    cfg = TrainConfig(env_id=spec.env.id, env_kwargs=dict(spec.env.kwargs), algo=a.algo, policy=a.policy,
                      algo_kwargs=dict(a.algo_kwargs), policy_kwargs=dict(a.policy_kwargs), n_envs=n_envs or a.n_envs,
                      total_timesteps=spec.total_timesteps, seed=spec.seed, vec_env=vec_env)
    venv = make_vec_env(cfg)
    resolve_policy(a.algo, a.policy)  # a clear error for an unknown name
    policy, policy_kwargs = training_policy(cfg)  # the setting scorer's layout is read from the env
    try:
        check_model_memory(a.algo, a.algo_kwargs, a.policy_kwargs, venv.observation_space, venv.action_space,
                           f"algorithm {a.name!r}: ")
    except ValueError:
        venv.close()
        raise
    model = algo_class(a.algo)(policy, venv, seed=spec.seed, device="cpu",
                               policy_kwargs=policy_kwargs or None, verbose=0,
                               **resolve_schedules(a.algo_kwargs))  # lin_2e-3 -> a schedule
    model.set_logger(quiet_logger())  # scores go to run.json; no empty SB3-<date> folder per run in /tmp
    return model, venv


def check_buildable(cfg: BenchmarkConfig) -> None:
    """Build every algorithm's model once on one env (no training), so a bad hyperparameter or
    policy keyword fails before any run starts, with the algorithm named."""
    from splitpoker.agents.benchmark.config import ConfigError

    for e in cfg.envs:
        for a in cfg.algorithms:
            spec = RunSpec(e, a.on(e), 0, cfg.total_timesteps, cfg.eval_every, 2, 2, 0, 1)
            try:
                model, venv = build_model(spec)
                venv.close()
                del model
            except Exception as err:  # noqa: BLE001 - any failure here is a configuration error
                raise ConfigError(f"algorithm {a.name!r} cannot be built on {e.id}: {type(err).__name__}: {err}") from None


class TaskScorers:
    """Every (task, split) scorer of a run behind one ``score(model)``: the learning-curve point
    holds each task's validation and test scores under ``tasks``; its top-level ``mean_regret``
    and ``regret_ci95`` are the first task's *validation* scores (what a log line or an early
    stop may read)."""

    def __init__(self, data: dict, paired_hands: int, name: str):
        from splitpoker.agents.benchmark.tasks import make_scorer
        from splitpoker.agents.policies.baselines import Policy, SB3Policy

        self.scorers = {(label, split): make_scorer(d, paired_hands) for label, splits in data.items()
                        for split, d in splits.items()}
        self.primary = next(iter(data))
        self._policies: dict = {}
        self._sb3, self._policy, self._name = SB3Policy, Policy, name

    def _policy_for(self, key, model):
        if key not in self._policies or self._policies[key].model is not model:
            self._policies[key] = self._sb3.from_env(self.scorers[key].env, model=model, name=self._name)
        return self._policies[key]

    def score(self, model) -> dict:
        tasks: dict = {}
        for key, scorer in self.scorers.items():
            tasks.setdefault(key[0], {})[key[1]] = scorer.score(self._policy_for(key, model))
        first = tasks[self.primary]["validation"]
        return {"mean_regret": first["mean_regret"], "regret_ci95": first["regret_ci95"], "tasks": tasks}

    def close(self):
        for s in self.scorers.values():
            s.close()


@leaves_process_as_found
def run_one(spec: RunSpec, data: dict) -> dict:
    """Train one run and score it at step 0, every ``eval_every`` steps and at the end on every
    task of its environment, validation and test split (``data[label][split]``: the
    :class:`splitpoker.agents.benchmark.tasks.TaskData` the driver prepared). Returns the result
    dict (no files written: the caller stores it), with the machine, wall and CPU seconds and
    the end-to-end training speed."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    torch.set_num_threads(1)
    set_random_seed(spec.seed)
    t_start, cpu_start = time.perf_counter(), time.process_time()
    model, venv = build_model(spec)
    scorers = TaskScorers(data, spec.eval_paired_hands, spec.algo.name)
    points: list[dict] = []
    warm, warm_seconds = None, 0.0
    if spec.algo.warm_start is not None:
        t0 = time.perf_counter()
        warm = warm_start_model(model, spec)
        warm_seconds = time.perf_counter() - t0
    callback = _regret_callback(scorers, spec.eval_every, lambda m: m, points)
    t0, cpu0 = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=spec.total_timesteps, callback=callback, progress_bar=False)
    if points[-1]["steps"] != model.num_timesteps:
        callback.evaluate()
    wall = time.perf_counter() - t0 + warm_seconds
    cpu_train = time.process_time() - cpu0  # scoring included; subtracted below by its wall share
    venv.close()
    scorers.close()
    buf = io.BytesIO()
    model.save(buf)
    train_seconds = wall - callback.eval_seconds
    steps = int(model.num_timesteps)
    timing = {"train_seconds": train_seconds, "eval_seconds": callback.eval_seconds, "warm_start_seconds": warm_seconds,
              "wall_seconds": time.perf_counter() - t_start, "cpu_seconds": time.process_time() - cpu_start,
              "train_cpu_seconds_with_scoring": cpu_train,
              "steps_per_second": steps / train_seconds if train_seconds > 0 else float("nan")}
    return {MODEL_KEY: buf.getvalue(), "format": RESULT_FORMAT, "run_id": spec.run_id, "spec": spec.to_dict(), "spec_digest": spec.digest,
            "env": spec.env.label, "env_id": spec.env.id, "algorithm": spec.algo.name, "seed": spec.seed,
            "steps": steps, "train_seconds": train_seconds,
            "eval_seconds": callback.eval_seconds, "total_seconds": timing["wall_seconds"],
            "steps_per_second": timing["steps_per_second"], "timing": timing, "machine": machine(),
            "warm_start": warm, "warm_start_seconds": warm_seconds,
            "evalsets": {label: {split: d.identity for split, d in splits.items()} for label, splits in data.items()},
            "versions": versions(), "curve": points, "final": points[-1]}


def warm_start_model(model, spec: RunSpec) -> dict:
    """Behaviour-clone the untrained ``model`` from the run's ``warm_start`` teacher
    (:mod:`splitpoker.agents.training.warm_start`; the teacher's dataset is written to a temporary directory and
    dropped: it is reproducible from the teacher, its seed and the env). Its time counts in the
    run's ``train_seconds``: the step budget is the RL fine-tuning that follows. The run's seed is
    added to the block's ``seed``: every seed of a grid deals (and shuffles) its own hands, so
    the interval across seeds covers the dataset too."""
    import dataclasses
    import tempfile

    import gymnasium as gym

    from splitpoker.agents.training.warm_start import WarmStart, warm_start

    ws = WarmStart.from_dict(dict(spec.algo.warm_start))
    ws = dataclasses.replace(ws, seed=ws.seed + spec.seed)
    with tempfile.TemporaryDirectory(prefix="warm_start_") as tmp:
        return warm_start(model, lambda: gym.make(spec.env.id, **spec.env.kwargs), ws, Path(tmp), log=lambda m: None)


def _ray_run_one(spec_dict: dict, data: dict) -> dict:
    """Ray task body: rebuild the spec (plain data travels better than dataclasses)."""
    return run_one(spec_from_dict(spec_dict), data)


def spec_from_dict(d: dict) -> RunSpec:
    env = {**d["env"], "tasks": tuple(d["env"].get("tasks") or ())}
    return RunSpec(EnvSpec(**env), AlgoSpec(**d["algo"]), *(d[k] for k in (
        "seed", "total_timesteps", "eval_every", "eval_hands", "eval_paired_hands", "validation_seed", "test_seed",
        "card_removal_hands", "card_removal_margin")))
