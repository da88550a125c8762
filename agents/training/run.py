"""Training with stable-baselines3 / sb3-contrib from a YAML experiment config.

Config (``configs/asia_maskable_ppo.yaml``; every key is described in
:mod:`splitpoker.agents.training.config`, which validates the whole config before anything is written)::

    env:
      id: splitpoker/AsiaPokerSetting-v0
      kwargs: {house_way: asia-000, dealer_samples: 1}
    algo: maskable_ppo            # maskable_ppo | ppo | a2c | dqn
    policy: MlpPolicy             # or SettingScorerPolicy (splitpoker.agents.policies.setting_scorer; env kwarg setting_features: true)
    algo_kwargs: {learning_rate: 0.0003, n_steps: 512, batch_size: 256}
    policy_kwargs: {net_arch: [256, 256]}
    n_envs: 4
    vec_env: native               # native | dummy | subproc
    total_timesteps: 200000
    seed: 0
    checkpoint_freq: 50000        # environment steps between checkpoints
    log_dir: runs
    warm_start: null              # or {teacher: table, hands: 20000, epochs: 3}: behaviour cloning
                                  # from a teacher before RL (agents/training/warm_start.py)

Masking: MaskablePPO reads ``action_masks()`` from every sub-environment (also through
``SubprocVecEnv``). PPO, A2C and DQN cannot mask; for them the environment runs with
``invalid_action: penalize``: a fouled setting is played and loses as in the game, a wrong-phase
action ends the episode, forfeiting every wager placed with ``invalid_action_penalty`` on top (the
penalty alone before the bet). docs/training.md explains it.

Resume and interrupts (:mod:`splitpoker.agents.training.state`): ``train(resume=run_dir)`` continues from
the newest saved state (final model, checkpoint or interrupt save: the one with the most steps),
with the replay buffer, the step counter and the same TensorBoard folder; SIGINT/SIGTERM save a
consistent state and raise :class:`TrainingInterrupted`.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from splitpoker.agents.process_state import leaves_process_as_found
from splitpoker.agents.training.algorithms import ALGOS, MASKING_ALGOS, OFF_POLICY_ALGOS, algo_class
from splitpoker.agents.training.config import (
    SCORER_POLICIES,
    ConfigError,
    TrainConfig,
    check_seed,
    policy_class,
    resolve_policy_kwargs,
)
from splitpoker.agents.training.resources import check_device, check_model_memory
from splitpoker.agents.training.schedules import resolve_schedules
from splitpoker.agents.training.state import (
    FINAL_MODEL,
    RunBusy,
    SignalStop,
    TrainingInterrupted,
    checkpoint_path,
    damaged_states,
    newest_state,
    run_lock,
    save_state,
    saved_steps,
    session_callback,
    write_text,
)

__all__ = ["ALGOS", "MASKING_ALGOS", "ConfigError", "TrainConfig", "TrainingInterrupted", "algo_class",
           "load_run_config", "make_vec_env", "train"]

TENSORBOARD_DIR = "tb_1"  # one TensorBoard folder per run; resumed sessions append to it
# a SubprocVecEnv child whose parent is gone fails in one of these ways
_PIPE_ERRORS = (EOFError, BrokenPipeError, ConnectionResetError)


class EnvFactory:
    """Picklable env constructor: worker processes (``SubprocVecEnv``) import ``envs`` to register
    the ids before ``gym.make``. In a worker (``in_worker``) SIGINT and SIGTERM are ignored: a
    Ctrl-C reaches the whole process group, and the parent must still be able to step and close
    the workers while it saves; a worker exits when its parent closes the pipe."""

    def __init__(self, env_id: str, kwargs: dict[str, Any], in_worker: bool = False):
        self.env_id = env_id
        self.kwargs = dict(kwargs)
        self.in_worker = in_worker
        self.parent_pid = os.getpid()  # the process that made the factory (pickled to the workers)

    def __call__(self):
        import multiprocessing
        import signal

        import gymnasium as gym

        import splitpoker  # noqa: F401

        # only in a worker process of SubprocVecEnv, never in the caller's own process (a notebook
        # or a test would lose Ctrl-C for the rest of its session)
        if self.in_worker and os.getpid() != self.parent_pid and multiprocessing.parent_process() is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        return gym.make(self.env_id, **self.kwargs)


def make_vec_env(cfg: TrainConfig, n_envs: int | None = None, seed: int | None = None):
    """The vectorised training env (Monitor-wrapped), seeded from ``cfg.seed``."""
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg.vec_env == "native":
        from splitpoker.agents.training.sb3_vec import make_native_vec_env

        return make_native_vec_env(cfg.env_id, n_envs or cfg.n_envs, cfg.resolved_env_kwargs,
                                   seed=cfg.seed if seed is None else seed)
    subproc = cfg.vec_env == "subproc"
    return sb3_make_vec_env(EnvFactory(cfg.env_id, cfg.resolved_env_kwargs, in_worker=subproc),
                            n_envs=n_envs or cfg.n_envs, seed=cfg.seed if seed is None else seed,
                            vec_env_cls=SubprocVecEnv if subproc else DummyVecEnv)


def metrics_callback():
    from stable_baselines3.common.callbacks import BaseCallback

    class SplitPokerMetrics(BaseCallback):
        """Logs per-hand game metrics to TensorBoard at the end of every rollout:
        ``splitpoker/reward_per_hand``, ``foul_rate``, ``house_way_agreement``, ``bonus_taken``,
        ``invalid_action_rate``, ``hands``."""

        def __init__(self):
            super().__init__()
            self._reset()

        def _reset(self):
            self.n = 0
            self.sums = {"reward": 0.0, "fouled": 0.0, "agree": 0.0, "bonus": 0.0, "invalid": 0.0}

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if not done:
                    continue
                self.n += 1
                self.sums["reward"] += float(info.get("episode", {}).get("r", 0.0))
                self.sums["fouled"] += float(bool(info.get("fouled", False)))
                self.sums["agree"] += float(bool(info.get("agrees_with_house_way", False)))
                self.sums["bonus"] += float(info.get("bonus_wager", 0.0) > 0)
                self.sums["invalid"] += float(info.get("invalid_action", -1) >= 0)
            return True

        def _on_rollout_end(self) -> None:
            if self.n:
                self.logger.record("splitpoker/reward_per_hand", self.sums["reward"] / self.n)
                self.logger.record("splitpoker/foul_rate", self.sums["fouled"] / self.n)
                self.logger.record("splitpoker/house_way_agreement", self.sums["agree"] / self.n)
                self.logger.record("splitpoker/bonus_taken", self.sums["bonus"] / self.n)
                self.logger.record("splitpoker/invalid_action_rate", self.sums["invalid"] / self.n)
                self.logger.record("splitpoker/hands", self.n)
            self._reset()

    return SplitPokerMetrics()


def resolve_policy(cfg: TrainConfig):
    """The policy passed to the algorithm (an alias such as ``MlpPolicy``, or the class of a
    :data:`~splitpoker.agents.training.config.CUSTOM_POLICIES` entry such as ``SettingScorerPolicy``) and its
    keyword arguments, class names resolved (``activation_fn: Tanh``); the setting scorer's layout
    is read from the environment."""
    kwargs = resolve_policy_kwargs(cfg.policy_kwargs)
    if cfg.policy not in SCORER_POLICIES:
        return cfg.policy, kwargs
    from splitpoker.agents.policies.setting_scorer import layout_kwargs

    env = EnvFactory(cfg.env_id, cfg.resolved_env_kwargs)()
    try:
        kwargs = {**layout_kwargs(env), **kwargs}
    finally:
        env.close()
    return policy_class(cfg.algo, cfg.policy), kwargs


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest saved model of ``run_dir`` (final model, checkpoint or interrupt save), by
    the step count recorded inside the zip; ``None`` if there is none."""
    state = newest_state(run_dir)
    return state.path if state is not None else None


def load_run_config(run_dir: str | Path) -> TrainConfig:
    """The config a run was started with (``run_dir/config.yaml``), validated."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ValueError(f"cannot resume {str(run_dir)!r}: no such run directory")
    if not (run_dir / "config.yaml").is_file():
        raise ValueError(f"cannot resume {str(run_dir)!r}: no config.yaml there (is it a run directory?)")
    return TrainConfig.from_yaml(run_dir / "config.yaml")


def session_seed(seed: int, steps: int) -> int:
    """The seed of a session that starts at ``steps``: ``seed`` itself for a new run (so a run
    is reproducible from its config), a derived one for a resumed session (so it does not replay
    the hands of the first session)."""
    import numpy as np

    if steps == 0:
        return check_seed(seed)
    return int(np.random.SeedSequence([seed, steps]).generate_state(1, dtype=np.uint32)[0])


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _prepare(cfg: TrainConfig | None, resume, total_timesteps, log):
    """Validate everything that can be checked without building anything: (config, run dir,
    newest saved state, its steps), or ``None`` when a resumed run has nothing left to do."""
    state = None
    if resume is not None:
        run_dir = Path(resume)
        saved = load_run_config(run_dir)
        if cfg is not None:
            diff = cfg.differences(saved)
            if diff:
                raise ValueError(f"cannot resume {run_dir} with a different config: {', '.join(diff)} differ from "
                                 f"{run_dir / 'config.yaml'} (a run keeps its config; start a new run instead)")
            total_timesteps = total_timesteps or cfg.total_timesteps
        cfg = saved
        if total_timesteps is not None:
            cfg.total_timesteps = total_timesteps
        cfg.validate()
        damaged = damaged_states(run_dir)
        if damaged:
            raise ValueError(f"{damaged[0]} is not a readable stable-baselines3 model (truncated or damaged"
                             + (f"; {len(damaged) - 1} more saved model(s) too" if len(damaged) > 1 else "")
                             + "): move it away to resume from the newest readable one; nothing was changed")
        state = newest_state(run_dir, warn=log)
        steps = state.steps if state is not None else 0
        if steps >= cfg.total_timesteps:
            log(f"{run_dir} already has {steps:,} steps >= total_timesteps {cfg.total_timesteps:,} "
                f"({state.path if state else 'no model'}): nothing to do")
            return None
    else:
        if total_timesteps is not None:
            cfg.total_timesteps = total_timesteps
        cfg.validate()
        if Path(cfg.log_dir).exists() and not Path(cfg.log_dir).is_dir():
            raise ValueError(f"log_dir={cfg.log_dir!r} is a file: expected a folder for the run directories")
        check_writable_folder(cfg.log_dir)
        run_dir = Path(cfg.log_dir) / cfg.make_run_name()
        if run_dir.exists():
            raise ValueError(f"run directory {run_dir} already exists: choose another run_name, "
                             f"or continue it with --resume {run_dir}")
        steps = 0

    return cfg, run_dir, state, steps


def check_writable_folder(path: str | Path) -> None:
    """``ValueError`` unless ``path`` is a folder this process can write in, or can be made (with
    its parents) inside one: checked before any work, by creating and dropping a file in the
    nearest existing folder (the only sure test: permissions, read-only mounts, /proc)."""
    base = Path(path)
    while not base.exists() and base.parent != base:
        base = base.parent
    if not base.is_dir():
        raise ValueError(f"log_dir={str(path)!r}: {base} is a file, expected a folder for the run directories")
    try:
        with tempfile.NamedTemporaryFile(dir=base, prefix=".splitpoker.", suffix=".probe"):
            pass
    except OSError as e:
        raise ValueError(f"log_dir={str(path)!r}: cannot write in the folder {base} ({e.strerror or e})") from None


@leaves_process_as_found
def train(cfg: TrainConfig | None = None, *, resume: str | Path | None = None, total_timesteps: int | None = None,
          progress_bar: bool = True, log=print) -> Path:
    """Train a new run (``cfg``) or continue one (``resume=run_dir``); return the run directory,
    which holds ``config.yaml`` (the config, the seed, package versions, and one entry per
    resumed session), TensorBoard logs (``tb_1/``), ``checkpoints/`` and the final ``model.zip``.

    ``total_timesteps`` (or ``cfg.total_timesteps`` when resuming with a ``cfg``, which must then
    describe the same experiment) is the new total when resuming; if the newest saved state has
    reached it, nothing is written. The whole config is validated, the environment and the model
    built, before the run directory is made. On SIGINT/SIGTERM the state is saved and
    :class:`TrainingInterrupted` raised (``exc.exit_code`` 130 or 143). A new run stopped before
    it saved any model (in its first rollout, or earlier) leaves no run directory behind.

    One session at a time per run (:func:`~splitpoker.agents.training.state.run_lock`): a second
    ``train(resume=run_dir)`` while one is running raises :class:`ConfigError` before anything is
    built or written.

    Called in-process (a notebook), it leaves the process as it found it
    (:mod:`splitpoker.agents.process_state`: torch's thread count, signal handlers, ...).
    """
    if cfg is None and resume is None:
        raise ValueError("train() needs a config or a run directory to resume")
    with contextlib.ExitStack() as held:
        try:
            if resume is not None and Path(resume).is_dir():  # one session at a time: held to the end
                held.enter_context(run_lock(Path(resume)))
            prepared = _prepare(cfg, resume, total_timesteps, log)
        except ConfigError:
            raise
        except (ValueError, TypeError) as e:  # RunBusy included
            raise ConfigError(str(e)) from None
        if prepared is None:
            return Path(resume)
        return _train(*prepared, resume, progress_bar, log, held)


def _train(cfg: TrainConfig, run_dir: Path, state, steps: int, resume, progress_bar: bool, log,
           held: contextlib.ExitStack) -> Path:
    """:func:`train` once the config is validated (and a resumed run locked)."""
    import torch
    import yaml
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(1)
    try:
        check_device(cfg.device)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    off_policy = cfg.algo in OFF_POLICY_ALGOS
    seed = session_seed(cfg.seed, steps)
    made = None  # the new run's folder, once this session has made it
    try:
        env = make_vec_env(cfg, seed=seed)
    except (ValueError, TypeError, AssertionError) as e:
        raise ConfigError(f"the environment cannot be built from this config: {e}") from None
    try:
        cls = algo_class(cfg.algo)
        if state is not None:
            log(f"resuming {run_dir} from {state.path.relative_to(run_dir)} ({state.steps:,} steps)")
            model = cls.load(state.path, env=env, device=cfg.device)
            if off_policy:
                if state.replay_buffer is not None:
                    model.load_replay_buffer(state.replay_buffer)
                    log(f"replay buffer restored: {model.replay_buffer.size() * cfg.n_envs:,} transitions")
                else:
                    log(f"warning: no replay buffer beside {state.path.name}: continuing with an empty one")
            model.set_random_seed(seed)
        else:
            if resume is not None:
                log(f"no saved model in {run_dir}: starting from scratch")
            try:
                policy, policy_kwargs = resolve_policy(cfg)
                check_model_memory(cfg.algo, cfg.algo_kwargs, cfg.policy_kwargs, env.observation_space,
                                   env.action_space)
                model = cls(policy, env, seed=seed, device=cfg.device, verbose=0,
                            policy_kwargs=policy_kwargs or None, **resolve_schedules(cfg.algo_kwargs))
            except (ValueError, TypeError, AssertionError) as e:
                raise ConfigError(f"{cls.__name__} cannot be built from algo_kwargs={cfg.algo_kwargs} "
                                  f"policy_kwargs={cfg.policy_kwargs}: {e}") from None
        # the config, env and model are good: only now is anything written
        meta = yaml.safe_load((run_dir / "config.yaml").read_text()) if resume is not None else None
        if meta is None:
            cfg.run_name = run_dir.name
            meta = {**cfg.to_dict(), "versions": _versions()}
        else:
            meta["total_timesteps"] = cfg.total_timesteps
            meta.setdefault("resumed", []).append({"time": _now(), "from_steps": steps,
                                                   "total_timesteps": cfg.total_timesteps, "versions": _versions()})
        if resume is None:  # a new run: its folder is ours alone (made here, locked before anything is in it)
            run_dir.parent.mkdir(parents=True, exist_ok=True)
            try:
                run_dir.mkdir()
                made = run_dir
                held.enter_context(run_lock(run_dir))
            except (FileExistsError, RunBusy):
                raise ConfigError(f"run directory {run_dir} was just made by another process: choose another "
                                  f"run_name") from None
        write_text(run_dir / "config.yaml", yaml.safe_dump(meta, sort_keys=False))
        if state is None and cfg.warm_start is not None:  # a new model: behaviour cloning before RL
            from splitpoker.agents.training.warm_start import WarmStart, warm_start

            warm_start(model, EnvFactory(cfg.env_id, cfg.resolved_env_kwargs), WarmStart.from_dict(cfg.warm_start),
                       run_dir, log=log)
        remaining = cfg.total_timesteps - model.num_timesteps
        remaining = cfg.total_timesteps - model.num_timesteps

        with SignalStop() as stop:
            model.set_logger(configure(str(run_dir / TENSORBOARD_DIR), ["tensorboard"]))
            session = session_callback(run_dir, cfg.checkpoint_freq, stop, off_policy, log)
            t0 = time.perf_counter()
            try:
                model.learn(total_timesteps=remaining, callback=CallbackList([session, metrics_callback()]),
                            progress_bar=progress_bar, reset_num_timesteps=False)
            except _PIPE_ERRORS:
                if stop.signum is None:
                    raise
                session.stopped = True  # a worker died on the signal: the last completed state is kept
                if off_policy:
                    session.safe_steps = model.num_timesteps
            seconds = time.perf_counter() - t0
            if session.stopped:
                discarded = model.num_timesteps - session.safe_steps
                model.num_timesteps = session.safe_steps
                path = None
                if session.safe_steps > session.start_steps:
                    path = checkpoint_path(run_dir, session.safe_steps)
                    save_state(model, path, run_dir, off_policy)
                raise TrainingInterrupted(run_dir, session.safe_steps, path, stop.signum, discarded)
            learned = model.num_timesteps - session.start_steps
            log(f"trained {learned:,} steps in {seconds:.1f} s ({learned / max(seconds, 1e-9):.0f} steps/s)")
            final = run_dir / FINAL_MODEL
            old = saved_steps(final) if final.exists() else None
            if old is not None and old > model.num_timesteps:
                raise RuntimeError(f"{final} has {old:,} steps, more than this session's {model.num_timesteps:,}: "
                                   f"not overwritten (was the run trained twice at once?)")
            save_state(model, final, run_dir, off_policy)
            write_text(run_dir / "train_stats.json", json.dumps(
                {"timesteps": int(model.num_timesteps), "seconds_last_session": seconds,
                 "steps_per_second": learned / max(seconds, 1e-9)}, indent=1))
            if stop.signum is not None:  # it came after the last step (the final update, the save):
                # the run is complete and saved, and the caller still has to stop, not go on
                raise TrainingInterrupted(run_dir, int(model.num_timesteps), final, stop.signum, complete=True)
    except BaseException:
        if made is not None and newest_state(made) is None:
            # a new run stopped before it saved any model: nothing to resume, so no folder is left
            # to block the same command (the interrupt message says "nothing saved")
            shutil.rmtree(made, ignore_errors=True)
        raise
    finally:
        try:
            env.close()
        except _PIPE_ERRORS:
            pass
    return run_dir


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for pkg in ("splitpoker", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "numba", "numpy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out

