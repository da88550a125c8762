"""The ``vector`` section of ``scripts/benchmark.py``: batched environment steps per second, and
MaskablePPO training speed with the native vector env against SB3's DummyVecEnv.

Every contender steps N environments with random *legal* actions (masks read the way each one
offers them: ``info["action_mask"]`` for the Gymnasium vector envs, ``env_method("action_masks")``
for SB3's VecEnvs, as MaskablePPO does; the random choice itself is one numba call,
:func:`splitpoker.envs.vector.sampling.sample_legal`, the same for all), resets included. Steps/s counts
environment steps: N per ``step`` call. The measurements are interleaved over ``--repeats``
rounds and the median is reported, so machine noise hits every contender alike; compare ratios
within one run.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from splitpoker.agents.process_state import leaves_process_as_found
from splitpoker.envs.registration import SETTING_ENV_OF_GAME
from splitpoker.envs.vector.env import resolve_num_threads, usable_cpus

SETTING_IDS = tuple(SETTING_ENV_OF_GAME.values())
SUBPROC_MAX_ENVS = 8  # one process per env: more than this is not sensible on a small machine


def _rate(step, n_envs: int, seconds: float) -> float:
    step()  # warm (first call may compile or fill caches)
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(4):
            step()
            n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n * n_envs / dt


class _Contender:
    """A vector env plus a ``step()`` closure taking random legal actions."""

    def __init__(self, name: str, make, n_envs: int):
        self.name = name
        self.make = make
        self.n_envs = n_envs
        self.env = None
        self.step = None

    def open(self):
        self.env, self.step = self.make()

    def close(self):
        if self.env is not None:
            self.env.close()
        self.env = self.step = None


def _native(env_id, n, num_threads):
    def make():
        import gymnasium as gym

        env = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", num_threads=num_threads)
        env.reset(seed=0)
        rng = np.random.default_rng(0)

        def step():
            env.step(env.sample_legal_actions(rng))

        return env, step
    return make


def _gym_sync(env_id, n):
    def make():
        import gymnasium as gym

        from splitpoker.envs.vector.sampling import sample_legal

        env = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync")
        _, info = env.reset(seed=0)
        state = {"info": info, "k": 0}
        out = np.empty(n, dtype=np.int64)

        def step():
            state["k"] += 1
            sample_legal(state["info"]["action_mask"], np.uint64(state["k"]), out)
            state["info"] = env.step(out)[4]

        return env, step
    return make


def _sb3(env_id, n, subproc):
    def make():
        from sb3_contrib.common.maskable.utils import get_action_masks
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        from splitpoker.agents.training.run import EnvFactory
        from splitpoker.envs.vector.sampling import sample_legal

        env = make_vec_env(EnvFactory(env_id, {}), n_envs=n, seed=0, vec_env_cls=SubprocVecEnv if subproc else DummyVecEnv)
        env.reset()
        out = np.empty(n, dtype=np.int64)
        k = [0]

        def step():
            k[0] += 1
            sample_legal(get_action_masks(env), np.uint64(k[0]), out)
            env.step(out)

        return env, step
    return make


def _envpool(n):
    def make():
        import envpool

        env = envpool.make_gymnasium("Blackjack-v1", num_envs=n, batch_size=n, num_threads=min(n, usable_cpus()), seed=0)
        env.reset()
        rng = np.random.default_rng(0)
        pool = rng.integers(0, 2, size=(64, n)).astype(np.int32)
        k = [0]

        def step():
            k[0] += 1
            env.step(pool[k[0] % 64])

        return env, step
    return make


def _envpool_available() -> bool:
    try:
        import envpool  # noqa: F401
    except ImportError:
        return False
    return True


def step_rates(sizes, seconds: float, repeats: int, progress=None) -> dict[str, Any]:
    import splitpoker  # noqa: F401  (registers the ids)

    contenders: list[_Contender] = []
    for n in sizes:
        for env_id in SETTING_IDS:
            short = env_id.split("/")[1]
            contenders.append(_Contender(f"native[{short}, default threads]", _native(env_id, n, None), n))
            if resolve_num_threads(None, n) > 1:
                contenders.append(_Contender(f"native[{short}, 1 thread]", _native(env_id, n, 1), n))
            contenders.append(_Contender(f"gym_sync[{short}]", _gym_sync(env_id, n), n))
            contenders.append(_Contender(f"sb3_dummy[{short}]", _sb3(env_id, n, False), n))
            if n <= SUBPROC_MAX_ENVS:
                contenders.append(_Contender(f"sb3_subproc[{short}]", _sb3(env_id, n, True), n))
        if _envpool_available():
            contenders.append(_Contender("envpool[Blackjack-v1]", _envpool(n), n))
    runs: dict[str, dict[int, list[float]]] = {}
    for c in contenders:  # build (and compile) once; interleave the timed repeats
        c.open()
    try:
        for _ in range(repeats):
            for c in contenders:
                runs.setdefault(c.name, {}).setdefault(c.n_envs, []).append(_rate(c.step, c.n_envs, seconds))
                if progress:
                    progress(1)
    finally:
        for c in contenders:
            c.close()
    return {name: {str(n): float(np.median(v)) for n, v in by_n.items()} for name, by_n in runs.items()}, runs


class _TimedVecEnv:
    """Wraps a SB3 VecEnv and adds up the seconds spent in it (steps, resets, mask reads)."""

    @staticmethod
    def wrap(venv):
        from stable_baselines3.common.vec_env import VecEnvWrapper

        class Timed(VecEnvWrapper):
            def __init__(self, v):
                super().__init__(v)
                self.seconds = 0.0

            def _timed(self, fn, *a, **kw):
                t0 = time.perf_counter()
                try:
                    return fn(*a, **kw)
                finally:
                    self.seconds += time.perf_counter() - t0

            def reset(self):
                return self._timed(self.venv.reset)

            def step_async(self, actions):
                return self._timed(self.venv.step_async, actions)

            def step_wait(self):
                return self._timed(self.venv.step_wait)

            def env_method(self, name, *a, indices=None, **kw):
                return self._timed(self.venv.env_method, name, *a, indices=indices, **kw)

        return Timed(venv)


@leaves_process_as_found
def training_rates(train_steps: int, n_envs_list=(4, 64), rollout: int = 4096, batch_size: int = 512) -> dict[str, Any]:
    """MaskablePPO steps/s on AsiaPokerSetting-v0 with the shipped config's env and network
    (dealer_samples 16, observe_settings, [256, 256], batch 512, 5 epochs), native vs DummyVecEnv."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from splitpoker.agents.training.algorithms import quiet_logger
    from splitpoker.agents.training.run import EnvFactory
    from splitpoker.agents.training.sb3_vec import make_native_vec_env

    torch.set_num_threads(1)
    env_id = "splitpoker/AsiaPokerSetting-v0"
    kwargs = {"dealer_samples": 16, "observe_settings": True, "invalid_action": "raise"}
    out: dict[str, Any] = {"env_id": env_id, "env_kwargs": kwargs, "steps": train_steps, "policy": "MlpPolicy [256, 256]",
                           "torch_threads": 1}
    for n_envs in n_envs_list:
        n_steps = max(rollout // n_envs, 2)
        row = {"n_steps": n_steps, "batch_size": batch_size, "n_epochs": 5}
        for name in ("dummy", "native"):
            venv = (make_native_vec_env(env_id, n_envs, kwargs, seed=0) if name == "native"
                    else make_vec_env(EnvFactory(env_id, kwargs), n_envs=n_envs, seed=0, vec_env_cls=DummyVecEnv))
            timed = _TimedVecEnv.wrap(venv)
            model = MaskablePPO("MlpPolicy", timed, n_steps=n_steps, batch_size=batch_size, n_epochs=5, gamma=0.0,
                                policy_kwargs={"net_arch": [256, 256]}, seed=0, device="cpu", verbose=0)
            model.set_logger(quiet_logger())
            t0 = time.perf_counter()
            model.learn(train_steps)
            dt = time.perf_counter() - t0
            row[name] = {"steps_per_second": model.num_timesteps / dt, "seconds": dt, "env_seconds": timed.seconds,
                         "env_share": timed.seconds / dt}
            timed.close()
        row["speedup_native_over_dummy"] = row["native"]["steps_per_second"] / row["dummy"]["steps_per_second"]
        out[f"n_envs={n_envs}"] = row
    return out


MAX_VECTOR_ENVS = 65_536


def parse_sizes(text: str) -> list[int]:
    """``"1,64,256"`` -> ``[1, 64, 256]`` (argparse type of ``--vector-envs``)."""
    try:
        sizes = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1 or max(sizes) > MAX_VECTOR_ENVS:
        raise ValueError(f"{text!r}: expected comma-separated integers 1..{MAX_VECTOR_ENVS:,} such as 1,64,256,1024 "
                         "(memory: the single-env comparisons build one Python env per sub-environment)")
    return sizes


def run_vector_benchmark(args) -> dict[str, Any]:
    sizes = parse_sizes(args.vector_envs) if isinstance(args.vector_envs, str) else list(args.vector_envs)
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    n_contenders = sum((len(SETTING_IDS) * (4 if resolve_num_threads(None, n) > 1 else 3)
                        + (len(SETTING_IDS) if n <= SUBPROC_MAX_ENVS else 0) + (1 if _envpool_available() else 0))
                       for n in sizes)
    bar = tqdm(total=n_contenders * args.repeats, desc="vector", unit="run") if tqdm else None
    load_before = _load_average()
    med, runs = step_rates(sizes, args.seconds, args.repeats, progress=bar.update if bar else None)
    load_after = _load_average()
    if bar:
        bar.close()
    result: dict[str, Any] = {
        "method": "random legal actions (one numba sampler for all), resets included; steps/s = envs x step calls / s; "
                  f"median of {args.repeats} interleaved runs of >= {args.seconds} s each",
        "usable_cpus": usable_cpus(),
        "native_default_threads": {str(n): resolve_num_threads(None, n) for n in sizes},
        "load_average_1_5_15min": {"before": load_before, "after_step_rates": load_after},
        "steps_per_second": med, "runs": {k: {str(n): v for n, v in by.items()} for k, by in runs.items()},
    }
    if not _envpool_available():
        result["envpool"] = "skipped: envpool is not installed (pip install 'splitpoker[bench]')"
    result["subproc_note"] = f"SubprocVecEnv measured up to {SUBPROC_MAX_ENVS} envs only (one process per env)"
    ratios: dict[str, Any] = {}
    for n in sizes:
        for env_id in SETTING_IDS:
            short = env_id.split("/")[1]
            default = med[f"native[{short}, default threads]"][str(n)]  # what gym.make_vec gives a user
            r = {"native_default_steps_per_second": default, "native_default_threads": resolve_num_threads(None, n),
                 "over_gym_sync": default / med[f"gym_sync[{short}]"][str(n)],
                 "over_sb3_dummy": default / med[f"sb3_dummy[{short}]"][str(n)]}
            if str(n) in med.get(f"native[{short}, 1 thread]", {}):
                r["default_over_1_thread"] = default / med[f"native[{short}, 1 thread]"][str(n)]
            if "envpool[Blackjack-v1]" in med:
                r["over_envpool_blackjack"] = default / med["envpool[Blackjack-v1]"][str(n)]
            ratios[f"{short}@{n}"] = r
    result["ratios"] = ratios
    if args.train_steps > 0:
        result["training"] = training_rates(args.train_steps)
        result["load_average_1_5_15min"]["after_training"] = _load_average()
    return result


def _load_average() -> list[float] | None:
    """The machine's 1, 5 and 15 minute load averages (None where the OS has none): a shared
    machine's load explains absolute figures; the ratios of one run are what compare."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None
