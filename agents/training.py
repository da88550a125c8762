"""Training with stable-baselines3 / sb3-contrib from a YAML experiment config.

Config (``configs/asia_maskable_ppo.yaml``)::

    env:
      id: splitpoker/AsiaPokerSetting-v0
      kwargs: {house_way: asia-000, dealer_samples: 1}
    algo: maskable_ppo            # maskable_ppo | ppo | a2c | dqn
    policy: MlpPolicy             # or SettingScorerPolicy (agents.setting_scorer; env kwarg setting_features: true)
    algo_kwargs: {learning_rate: 0.0003, n_steps: 512, batch_size: 256}
    policy_kwargs: {net_arch: [256, 256]}
    n_envs: 4
    vec_env: dummy                # dummy | subproc
    total_timesteps: 200000
    seed: 0
    checkpoint_freq: 50000        # environment steps between checkpoints
    log_dir: runs
    warm_start: null              # or {teacher: table, hands: 20000, epochs: 3}: behaviour cloning
                                  # from a teacher before RL (agents/warm_start.py)

Masking: MaskablePPO reads ``action_masks()`` from every sub-environment (also through
``SubprocVecEnv``). PPO, A2C and DQN cannot mask; for them the environment is built with
``invalid_action: penalize`` (an illegal action ends the episode with reward
``-invalid_action_penalty``, one table minimum by default — what a foul costs), unless the config
sets ``invalid_action`` itself. docs/training.md explains the choice.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.rules.options import dataclass_from_dict

ALGOS = ("maskable_ppo", "ppo", "a2c", "dqn")
MASKING_ALGOS = ("maskable_ppo",)
SCORER_POLICIES = ("SettingScorerPolicy",)  # agents.setting_scorer; needs env kwarg setting_features: true


@dataclass
class TrainConfig:
    """A training run; every field has a line of help in the module docstring."""

    env_id: str = "splitpoker/AsiaPokerSetting-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algo: str = "maskable_ppo"
    policy: str = "MlpPolicy"
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    n_envs: int = 4
    vec_env: str = "dummy"
    total_timesteps: int = 200_000
    seed: int = 0
    checkpoint_freq: int = 50_000
    log_dir: str = "runs"
    run_name: str | None = None
    device: str = "cpu"
    warm_start: dict[str, Any] | None = None  # agents.warm_start: behaviour cloning before RL

    def __post_init__(self):
        import envs  # noqa: F401  (registers the ids)

        if self.env_id not in envs.ENV_IDS:
            raise ValueError(f"unknown env id {self.env_id!r}: expected one of {list(envs.ENV_IDS)}")
        if self.algo not in ALGOS:
            raise ValueError(f"unknown algo {self.algo!r}: expected one of {ALGOS}")
        if self.policy in SCORER_POLICIES:
            if self.algo not in ("maskable_ppo", "ppo", "a2c"):
                raise ValueError(f"policy {self.policy!r} works with maskable_ppo, ppo and a2c, not algo {self.algo!r}")
            if self.env_kwargs.get("setting_features") is not True:
                raise ValueError(f"policy {self.policy!r} scores each setting from its feature row: set "
                                 f"env kwargs setting_features: true")
        if self.warm_start is not None:
            from .warm_start import WarmStart

            WarmStart.from_dict(self.warm_start)
        if self.vec_env not in ("dummy", "subproc"):
            raise ValueError(f"vec_env={self.vec_env!r}: expected 'dummy' or 'subproc'")
        for name in ("n_envs", "total_timesteps", "checkpoint_freq"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r}: expected a positive integer")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        data = dict(data or {})
        data.pop("versions", None)  # recorded by train() for provenance, not a setting
        env = data.pop("env", None)
        if env is not None:
            if not isinstance(env, dict) or "id" not in env:
                raise ValueError("config 'env' must be a mapping with an 'id' (and optional 'kwargs')")
            data["env_id"] = env["id"]
            data["env_kwargs"] = dict(env.get("kwargs") or {})
        return dataclass_from_dict(cls, data, "field(s)")

    @classmethod
    def from_yaml(cls, path: str | Path) -> TrainConfig:
        import yaml

        with open(path) as f:
            return cls.from_dict(yaml.safe_load(f))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["env"] = {"id": d.pop("env_id"), "kwargs": d.pop("env_kwargs")}
        return d

    @property
    def resolved_env_kwargs(self) -> dict[str, Any]:
        kw = dict(self.env_kwargs)
        if self.algo not in MASKING_ALGOS:
            kw.setdefault("invalid_action", "penalize")
        return kw

    def make_run_name(self) -> str:
        return self.run_name or f"{self.env_id.replace('/', '_')}__{self.algo}__{self.seed}__{int(time.time())}"


def resolve_policy(cfg: TrainConfig):
    """The policy (an SB3 alias such as ``MlpPolicy``, or a class for ``SettingScorerPolicy``) and
    its keyword arguments; the setting scorer's layout is read from the environment."""
    if cfg.policy not in SCORER_POLICIES:
        return cfg.policy, dict(cfg.policy_kwargs)
    from .setting_scorer import layout_kwargs, policy_class

    env = EnvFactory(cfg.env_id, cfg.resolved_env_kwargs)()
    try:
        kwargs = {**layout_kwargs(env), **cfg.policy_kwargs}
    finally:
        env.close()
    return policy_class(cfg.policy, cfg.algo), kwargs


def algo_class(name: str):
    if name == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    import stable_baselines3 as sb3

    return {"ppo": sb3.PPO, "a2c": sb3.A2C, "dqn": sb3.DQN}[name]


class EnvFactory:
    """Picklable env constructor: worker processes (``SubprocVecEnv``) import ``envs`` to register
    the ids before ``gym.make``."""

    def __init__(self, env_id: str, kwargs: dict[str, Any]):
        self.env_id = env_id
        self.kwargs = dict(kwargs)

    def __call__(self):
        import gymnasium as gym

        import envs  # noqa: F401

        return gym.make(self.env_id, **self.kwargs)


def make_vec_env(cfg: TrainConfig, n_envs: int | None = None, seed: int | None = None):
    """The vectorised training env (Monitor-wrapped), seeded from ``cfg.seed``."""
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    vec_cls = SubprocVecEnv if cfg.vec_env == "subproc" else DummyVecEnv
    return sb3_make_vec_env(EnvFactory(cfg.env_id, cfg.resolved_env_kwargs), n_envs=n_envs or cfg.n_envs,
                            seed=cfg.seed if seed is None else seed, vec_env_cls=vec_cls)


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
                self.sums["invalid"] += float("invalid_action" in info)
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


_CKPT = re.compile(r"model_(\d+)_steps\.zip$")


def latest_checkpoint(run_dir: Path) -> Path | None:
    ckpts = [(int(m.group(1)), p) for p in (run_dir / "checkpoints").glob("model_*_steps.zip") if (m := _CKPT.search(p.name))]
    return max(ckpts)[1] if ckpts else None


def train(cfg: TrainConfig, *, resume: Path | None = None, progress_bar: bool = True, log=print) -> Path:
    """Train (or resume) and return the run directory, which holds ``config.yaml``, TensorBoard
    logs, ``checkpoints/`` and the final ``model.zip``."""
    import torch
    import yaml
    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback

    torch.set_num_threads(1)
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").exists():
            raise FileNotFoundError(f"cannot resume {run_dir}: no config.yaml there (is it a run directory?)")
        saved = TrainConfig.from_yaml(run_dir / "config.yaml")
        saved.total_timesteps = cfg.total_timesteps
        cfg = saved
    else:
        run_dir = Path(cfg.log_dir) / cfg.make_run_name()
        run_dir.mkdir(parents=True, exist_ok=False)
        cfg.run_name = run_dir.name
        meta = cfg.to_dict()
        meta["versions"] = _versions()
        (run_dir / "config.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    env = make_vec_env(cfg)
    cls = algo_class(cfg.algo)
    ckpt = latest_checkpoint(run_dir) if resume is not None else None
    if ckpt is not None:
        log(f"resuming {run_dir} from {ckpt.name}")
        model = cls.load(ckpt, env=env, device=cfg.device, tensorboard_log=str(run_dir))
        remaining = cfg.total_timesteps - model.num_timesteps
        reset = False
    else:
        if resume is not None:
            log(f"no checkpoint in {run_dir}/checkpoints: starting from scratch")
        policy, policy_kwargs = resolve_policy(cfg)
        model = cls(policy, env, seed=cfg.seed, device=cfg.device, tensorboard_log=str(run_dir),
                    policy_kwargs=policy_kwargs or None, verbose=0, **cfg.algo_kwargs)
        remaining = cfg.total_timesteps
        reset = True
        if cfg.warm_start is not None:
            from .warm_start import WarmStart, warm_start

            warm_start(model, EnvFactory(cfg.env_id, cfg.resolved_env_kwargs), WarmStart.from_dict(cfg.warm_start),
                       run_dir, log=log)
    if remaining <= 0:
        log(f"{run_dir} already has {model.num_timesteps} >= {cfg.total_timesteps} steps; nothing to do")
    else:
        callbacks = CallbackList([
            CheckpointCallback(save_freq=max(cfg.checkpoint_freq // cfg.n_envs, 1), save_path=str(run_dir / "checkpoints"),
                               name_prefix="model"),
            metrics_callback(),
        ])
        t0 = time.perf_counter()
        model.learn(total_timesteps=remaining, callback=callbacks, progress_bar=progress_bar,
                    tb_log_name="tb", reset_num_timesteps=reset)
        seconds = time.perf_counter() - t0
        log(f"trained {remaining} steps in {seconds:.1f} s ({remaining / seconds:.0f} steps/s)")
        (run_dir / "train_stats.json").write_text(json.dumps(
            {"timesteps": int(model.num_timesteps), "seconds_last_session": seconds,
             "steps_per_second": remaining / seconds}, indent=1))
    model.save(run_dir / "model.zip")
    env.close()
    return run_dir


def load_model(path: str | Path):
    """Load a saved model; the algorithm is read from the run's ``config.yaml`` when present,
    else tried in order (MaskablePPO, PPO, A2C, DQN)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"model {path} does not exist")
    cfg_path = path.parent / "config.yaml"
    if path.parent.name == "checkpoints":
        cfg_path = path.parent.parent / "config.yaml"
    if cfg_path.exists():
        cfg = TrainConfig.from_yaml(cfg_path)
        return algo_class(cfg.algo).load(path, device="cpu"), cfg
    last = None
    for name in ALGOS:
        try:
            return algo_class(name).load(path, device="cpu"), None
        except Exception as e:  # noqa: BLE001 - try the next algorithm
            last = e
    raise ValueError(f"could not load {path} with any of {ALGOS}: {last}")


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for pkg in ("splitpoker", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "numba", "numpy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out

