"""PPO with action masks on RLlib: a setting env (or any single id) or a multi-agent table, local or
on a cluster; resumable; the trained policy scored against random legal play on the same deals.

The envs are :class:`splitpoker.envs.rllib.MaskedEnv` and the ``*TableMultiAgentEnv`` classes
(the mask in the observation as ``Dict(observations, action_mask float32)``); the RLModule is
RLlib's own ``ActionMaskingTorchRLModule``, one policy shared by every seat of a table.

A run folder holds ``algorithm/`` (RLlib's checkpoint, replaced after every iteration: a
temporary folder, then a rename) and ``progress.json`` (the run's spec and one row per finished
iteration, written atomically after the checkpoint). Starting again with the same folder and
spec continues after the last finished iteration; another spec is refused. One session at a time per folder: :func:`train` holds it with train.py's
lock (:func:`splitpoker.agents.training.state.run_lock`), so a second run on the same folder stops
at once (:class:`~splitpoker.agents.training.state.RunBusy`, naming the holder's pid) instead of
both writing it.

Every remote env runner holds one of Ray's CPUs (``num_cpus_per_env_runner=1``, RLlib's default);
the learner runs in the driver, outside Ray's count. Measured on 2 cores (local Ray, 2 CPUs): 2 env
runners train, 3 wait for a CPU forever (no progress in 150 s). :func:`train` therefore refuses more
env runners than Ray has CPUs (:func:`check_env_runners`), right after ``ray.init``.

Ray is imported by :func:`train` only (``pip install .[rllib]``).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from splitpoker.agents.training.state import run_lock
from splitpoker.envs.registration import ALL_ENV_IDS, PETTINGZOO_IDS
from splitpoker.envs.rules.house_ways.check import Z95

SHARED_POLICY = "shared"
MAX_BATCH = 1_000_000


def canonical_env(env: str) -> str:
    """``env`` as a registered name: a Gymnasium id (``splitpoker/AsiaPokerSetting-v0``, the
    ``splitpoker:`` prefix allowed) or a PettingZoo table id (``splitpoker/paigow_table_v0``, also
    spelled ``-v0``); ValueError naming it otherwise."""
    name = env.split(":", 1)[1] if env.startswith("splitpoker:") else env
    table = name.replace("-v0", "_v0") if name.endswith("table-v0") else name
    if name in ALL_ENV_IDS:
        return name
    if table in PETTINGZOO_IDS:
        return table
    raise ValueError(f"env {env!r}: expected a splitpoker Gymnasium id ({', '.join(sorted(ALL_ENV_IDS))}) or a "
                     f"PettingZoo table ({', '.join(sorted(PETTINGZOO_IDS))})")


def is_table(env: str) -> bool:
    return env in PETTINGZOO_IDS


@dataclasses.dataclass(frozen=True)
class PPORun:
    """What a run trains (``progress.json``'s ``spec``; a resumed run must match it but for
    ``iterations``, the total to reach)."""

    env: str = "splitpoker/AsiaPokerSetting-v0"
    env_kwargs: dict = dataclasses.field(default_factory=dict)
    iterations: int = 10
    batch_size: int = 512  # env steps per iteration (train_batch_size_per_learner)
    minibatch_size: int = 128
    epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    num_env_runners: int = 0  # 0: sample in the driver; >= 1: remote env runners (a cluster)
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "env", canonical_env(self.env))
        if not isinstance(self.env_kwargs, dict):
            raise TypeError(f"env_kwargs={self.env_kwargs!r}: expected a dict of the env's keywords")
        if "id" in self.env_kwargs:  # MaskedEnv's own key: it would train on that id, not on env
            raise ValueError(f"env_kwargs {self.env_kwargs!r}: 'id' is not an env keyword; the env is "
                             f"{self.env!r} (--env): give the id there")
        for name, lo, hi in (("iterations", 1, 1_000_000), ("batch_size", 2, MAX_BATCH),
                             ("minibatch_size", 1, MAX_BATCH), ("epochs", 1, 1_000), ("num_env_runners", 0, 4096),
                             ("seed", 0, 2**63 - 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{name}={v!r}: expected an integer {lo}..{hi:,}")
        if self.minibatch_size > self.batch_size:
            raise ValueError(f"minibatch_size={self.minibatch_size} is larger than batch_size={self.batch_size}")
        if not (isinstance(self.lr, (int, float)) and 0 < self.lr <= 1):
            raise ValueError(f"lr={self.lr!r}: expected a number > 0 and <= 1")
        if not (isinstance(self.gamma, (int, float)) and 0 <= self.gamma <= 1):
            raise ValueError(f"gamma={self.gamma!r}: expected a number 0..1")

    def spec(self) -> dict[str, Any]:
        """The fields a resumed run must share (all but ``iterations``)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "iterations"}


def env_class_and_config(run: PPORun):
    """RLlib's ``(env, env_config)`` for ``run``."""
    from splitpoker.envs import rllib

    if run.env == "splitpoker/paigow_table_v0":
        return rllib.PaiGowTableMultiAgentEnv, dict(run.env_kwargs)
    if run.env == "splitpoker/asia_table_v0":
        return rllib.AsiaTableMultiAgentEnv, dict(run.env_kwargs)
    return rllib.MaskedEnv, {**run.env_kwargs, "id": run.env}


def check_env(run: PPORun) -> None:
    """Build the env once in this process, so a bad keyword fails before Ray starts."""
    env_cls, env_config = env_class_and_config(run)
    env_cls(env_config).close()


class TooFewCPUs(ValueError):
    """More env runners than Ray has CPUs: the ones without a CPU would never start."""


def check_env_runners(num_env_runners: int, cpus: float, where: str) -> None:
    """:class:`TooFewCPUs` unless Ray's ``cpus`` (at ``where``: ``local`` or the cluster's address)
    can hold ``num_env_runners`` remote env runners, one CPU each (the module docstring: the learner
    runs in the driver, outside Ray's count; 0 env runners sample in the driver)."""
    cpus = int(cpus)
    if num_env_runners > cpus:
        raise TooFewCPUs(f"{num_env_runners} env runner(s) need {num_env_runners} CPUs, but Ray has {cpus} CPU(s) at "
                         f"{where}: each env runner holds one CPU, and the ones without a CPU would wait for it "
                         f"forever; give at most {cpus} env runners (--num-env-runners), or Ray more CPUs")


def _policy_mapping(agent_id, episode, **kwargs) -> str:
    return SHARED_POLICY


def build_config(run: PPORun):
    """The ``PPOConfig`` of ``run``: the masked env, RLlib's action-masking RLModule (shared by
    every seat of a table), the sizes and the seed."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_cls, env_config = env_class_and_config(run)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [128, 128], "head_fcnet_activation": "relu"})
    config = (PPOConfig()
              .environment(env_cls, env_config=env_config)
              # sample_timeout_s: RLlib drops what an env runner has not sampled in 60 s, by default,
              # and trains on the rest (or nothing): an iteration's batch then depended on the
              # machine's load (a first iteration with env runners still loading their tables
              # sampled 0 steps). None waits for the whole batch; a lost runner still fails fast
              .env_runners(num_env_runners=run.num_env_runners, sample_timeout_s=None)
              .training(train_batch_size_per_learner=run.batch_size, minibatch_size=run.minibatch_size,
                        num_epochs=run.epochs, lr=run.lr, gamma=run.gamma)
              .debugging(seed=run.seed, log_level="ERROR")
              .reporting(min_sample_timesteps_per_iteration=0))
    if is_table(run.env):
        config = (config.multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=_policy_mapping)
                  .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module})))
    else:
        config = config.rl_module(rl_module_spec=module)
    return config


def read_progress(run_dir: Path, run: PPORun) -> list[dict]:
    """The finished iterations recorded in ``run_dir`` (empty for a new folder); ValueError when
    the folder holds another run or a checkpoint without its progress."""
    progress = run_dir / "progress.json"
    if not progress.exists():
        if (run_dir / "algorithm").exists():
            raise ValueError(f"{run_dir} has an algorithm/ checkpoint but no progress.json: not a folder of this script")
        return []
    try:
        saved = json.loads(progress.read_text())
        if not isinstance(saved, dict) or not isinstance(saved.get("iterations"), list):
            raise ValueError("expected an object with 'spec' and 'iterations'")
    except ValueError as e:  # a truncated or edited file (written atomically, so not by a crash of ours)
        raise ValueError(f"{progress} is damaged ({e}): move it away (with algorithm/) to start the run over") from None
    if saved.get("spec") != json.loads(json.dumps(run.spec())):
        diff = sorted(k for k, v in run.spec().items() if saved.get("spec", {}).get(k) != v)
        raise ValueError(f"{run_dir} holds another run ({', '.join(diff)} differ): give another --run-dir, or the "
                         f"same settings to resume it")
    return list(saved["iterations"])


def _save(algo, run_dir: Path, run: PPORun, rows: list[dict]) -> None:
    from splitpoker.agents.output import write_json

    tmp, final, old = run_dir / "algorithm.tmp", run_dir / "algorithm", run_dir / "algorithm.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    write_json(run_dir / "progress.json", {"spec": run.spec(), "iterations": rows})


def _row(result: dict, iteration: int) -> dict:
    runners = result.get("env_runners", {})
    return {"iteration": iteration,
            "episode_return_mean": runners.get("episode_return_mean"),
            "episodes": runners.get("num_episodes"),
            "env_steps_sampled_lifetime": runners.get("num_env_steps_sampled_lifetime"),
            "seconds": result.get("time_this_iter_s")}


def train(run: PPORun, run_dir: Path, *, address: str | None = None, num_cpus: int | None = None,
          eval_episodes: int = 200, log: Callable[[str], None] = print, progress=None) -> dict[str, Any]:
    """Train ``run`` into ``run_dir`` (resuming what is there), then score the policy on
    ``eval_episodes`` deals against random legal play on the same deals. ``progress(n)`` is
    called after each iteration. Returns the summary (also what ``progress.json`` records).

    Raises :class:`~splitpoker.agents.training.state.RunBusy` before Ray starts when another
    process trains ``run_dir``, and :class:`TooFewCPUs` right after ``ray.init`` (Ray shut down
    again) when Ray has fewer CPUs than ``run.num_env_runners``."""
    from splitpoker.agents.exact.strategy import ray_messages_to_stderr

    # the lock is held to the end: one session per folder; Ray prints a lost node's report on
    # stdout, where the script prints its JSON summary (after Ray is shut down)
    with run_lock(run_dir), ray_messages_to_stderr():
        return _train(run, run_dir, address, num_cpus, eval_episodes, log, progress)


def _train(run: PPORun, run_dir: Path, address, num_cpus, eval_episodes, log, progress) -> dict[str, Any]:
    import logging

    import ray

    rows = read_progress(run_dir, run)
    started_here = not ray.is_initialized()
    if started_here:
        quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
        from splitpoker.agents.exact.strategy import keep_signal_handlers

        with keep_signal_handlers():  # Ray's own SIGTERM handler aborts with stack traces
            if address:
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        log(f"Ray: {int(cpus)} CPU(s) at {address or 'local'}")
        check_env_runners(run.num_env_runners, cpus, address or "local")
        algo = build_config(run).build_algo()
        try:
            if rows:
                algo.restore_from_path(str((run_dir / "algorithm").resolve()))
                log(f"resumed {run_dir}: {len(rows)} iteration(s) done")
                if progress:
                    progress(min(len(rows), run.iterations))
            while len(rows) < run.iterations:
                rows.append(_row(algo.train(), len(rows) + 1))
                _save(algo, run_dir, run, rows)
                if progress:
                    progress(1)
            module = algo.get_module(SHARED_POLICY) if is_table(run.env) else algo.get_module()
            evaluation = evaluate(module, run, eval_episodes) if eval_episodes else None
        finally:
            algo.stop()
    finally:
        if started_here:
            ray.shutdown()
    return {"env": run.env, "env_kwargs": run.env_kwargs, "multi_agent": is_table(run.env),
            "iterations": rows, "evaluation": evaluation, "run_dir": str(run_dir), "address": address or "local",
            "spec": run.spec()}


def _greedy(module, obs: dict) -> int:
    import torch

    batch = {"obs": {k: torch.as_tensor(np.asarray(v, dtype=np.float32))[None] for k, v in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"][0]
    return int(torch.argmax(logits))


def evaluate(module, run: PPORun, episodes: int) -> dict[str, Any]:
    """Mean reward per episode (per seat at a table) of the greedy masked policy and of uniform
    random legal play on the same ``episodes`` deals (seeds ``10**9 + i``), and how many episodes
    (seat-rounds at a table) each ended with a penalised action (``info["invalid_action"] >= 0``;
    0 when the masks are obeyed)."""
    env_cls, env_config = env_class_and_config(run)
    env = env_cls(env_config)
    rng = np.random.default_rng(run.seed)
    table = is_table(run.env)

    def act(name: str, obs: dict) -> int:
        return _greedy(module, obs) if name == "policy" else int(rng.choice(np.flatnonzero(obs["action_mask"])))

    out: dict[str, Any] = {}
    for name in ("policy", "random_legal"):
        totals, penalised = [], 0
        for i in range(episodes):
            obs, _ = env.reset(seed=10**9 + i)
            if table:
                seats = list(obs)
                total = dict.fromkeys(seats, 0.0)
                done = False
                while not done:
                    obs, rewards, terms, truncs, infos = env.step({a: act(name, o) for a, o in obs.items()})
                    for a, r in rewards.items():
                        total[a] += float(r)
                    done = terms["__all__"] or truncs["__all__"]
                totals.extend(total.values())
                penalised += sum(int(infos[a]["invalid_action"] >= 0) for a in seats)
            else:
                done, total = False, 0.0
                while not done:
                    obs, reward, terminated, truncated, info = env.step(act(name, obs))
                    total += float(reward)
                    done = terminated or truncated
                totals.append(total)
                penalised += int(info["invalid_action"] >= 0)
        t = np.asarray(totals)
        out[name] = {"reward_mean": float(t.mean()),
                     "reward_ci95": Z95 * float(t.std(ddof=1) / np.sqrt(t.size)) if t.size > 1 else None,
                     "penalised": penalised}
    env.close()
    out["episodes"] = episodes
    out["reward_per"] = "seat (every seat of every round)" if table else "episode"
    return out
