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
from splitpoker.agents.evaluation.evaluate import hand_seeds, mean_ci, run_policy
from splitpoker.agents.exact.eval_set import EvalSet, make_eval_env
from splitpoker.envs.rules.cache import key_digest

RESULT_FORMAT = 1
MODEL_KEY = "model_zip"  # the trained model's bytes in a task's result; stored as model.zip, not in JSON


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
    eval_seed: int

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
    return [RunSpec(e, a, s, cfg.total_timesteps, cfg.eval_every, cfg.eval_hands, cfg.eval_paired_hands, cfg.eval_seed)
            for e in cfg.envs for a in cfg.algorithms for s in cfg.seeds]


# ---- scoring ----------------------------------------------------------------------------------

class Scorer:
    """Scores a policy on one environment's evaluation set: exact regret on its ``hands`` hands and
    the paired reward difference to the house way on ``paired_hands`` hands (the same deals for
    every policy; the regret hands are the first ones)."""

    def __init__(self, env: EnvSpec, evalset: EvalSet, paired_hands: int):
        from splitpoker.agents.policies.baselines import HouseWayPolicy

        self.evalset = evalset
        self.env = make_eval_env(env.id, env.kwargs)
        self.seeds = list(evalset.seeds) + hand_seeds(evalset.seed, max(paired_hands, evalset.hands))[evalset.hands:]
        self.paired_hands = max(paired_hands, evalset.hands)
        self.house_way = run_policy(self.env, HouseWayPolicy.from_env(self.env), self.seeds)

    def score(self, policy) -> dict:
        rec = run_policy(self.env, policy, self.seeds)
        out = self.evalset.score(rec.settings[: self.evalset.hands], rec.cards)
        d, dci = mean_ci(rec.reward - self.house_way.reward)
        r, rci = mean_ci(rec.reward)
        out.update({"paired_hands": self.paired_hands, "diff_vs_house_way": d, "diff_vs_house_way_ci95": dci,
                    "mean_reward": r, "reward_ci95": rci, "foul_rate": float(rec.fouled.mean())})
        return out

    def close(self):
        self.env.close()


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
    model = algo_class(a.algo)(policy, venv, seed=spec.seed, device="cpu",
                               policy_kwargs=policy_kwargs or None, verbose=0,
                               **resolve_schedules(a.algo_kwargs))  # lin_2e-3 -> a schedule
    return model, venv


def check_buildable(cfg: BenchmarkConfig) -> None:
    """Build every algorithm's model once on one env (no training), so a bad hyperparameter or
    policy keyword fails before any run starts, with the algorithm named."""
    from splitpoker.agents.benchmark.config import ConfigError

    for e in cfg.envs:
        for a in cfg.algorithms:
            spec = RunSpec(e, a, 0, cfg.total_timesteps, cfg.eval_every, 2, 2, 0)
            try:
                model, venv = build_model(spec, n_envs=a.n_envs)
                venv.close()
                del model
            except Exception as err:  # noqa: BLE001 - any failure here is a configuration error
                raise ConfigError(f"algorithm {a.name!r} cannot be built on {e.id}: {type(err).__name__}: {err}") from None


def run_one(spec: RunSpec, evalset: EvalSet) -> dict:
    """Train one run and score it at step 0, every ``eval_every`` steps and at the end. Returns the
    result dict (no files written: the caller stores it)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from splitpoker.agents.policies.baselines import SB3Policy

    torch.set_num_threads(1)
    set_random_seed(spec.seed)
    t_start = time.perf_counter()
    model, venv = build_model(spec)
    scorer = Scorer(spec.env, evalset, spec.eval_paired_hands)
    points: list[dict] = []
    policy = SB3Policy.from_env(scorer.env, model=model, name=spec.algo.name)
    warm, warm_seconds = None, 0.0
    if spec.algo.warm_start is not None:
        t0 = time.perf_counter()
        warm = warm_start_model(model, spec)
        warm_seconds = time.perf_counter() - t0
    callback = _regret_callback(scorer, spec.eval_every, lambda m: policy, points)
    t0 = time.perf_counter()
    model.learn(total_timesteps=spec.total_timesteps, callback=callback, progress_bar=False)
    if points[-1]["steps"] != model.num_timesteps:
        callback.evaluate()
    wall = time.perf_counter() - t0 + warm_seconds
    venv.close()
    scorer.close()
    buf = io.BytesIO()
    model.save(buf)
    return {MODEL_KEY: buf.getvalue(), "format": RESULT_FORMAT, "run_id": spec.run_id, "spec": spec.to_dict(), "spec_digest": spec.digest,
            "env": spec.env.label, "env_id": spec.env.id, "algorithm": spec.algo.name, "seed": spec.seed,
            "steps": int(model.num_timesteps), "train_seconds": wall - callback.eval_seconds,
            "eval_seconds": callback.eval_seconds, "total_seconds": time.perf_counter() - t_start,
            "warm_start": warm, "warm_start_seconds": warm_seconds,
            "evalset_sha256": evalset.sha256, "versions": versions(), "curve": points, "final": points[-1]}


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


def _ray_run_one(spec_dict: dict, evalset: EvalSet) -> dict:
    """Ray task body: rebuild the spec (plain data travels better than dataclasses)."""
    return run_one(spec_from_dict(spec_dict), evalset)


def spec_from_dict(d: dict) -> RunSpec:
    return RunSpec(EnvSpec(**d["env"]), AlgoSpec(**d["algo"]), *(d[k] for k in (
        "seed", "total_timesteps", "eval_every", "eval_hands", "eval_paired_hands", "eval_seed")))
