"""Stable-Baselines3 ``VecEnv`` over the native splitpoker vector environments (:mod:`splitpoker.envs.vector.env`).

``NativeVecEnv("splitpoker/AsiaPokerSetting-v0", n_envs=64, env_kwargs={...})`` is a drop-in for
``DummyVecEnv([lambda: gym.make(id, **kwargs)] * 64)``: the same spaces, the same games (sub-env
``i`` after ``seed(s)`` deals what the DummyVecEnv's env ``i`` deals: SB3 seeds env ``i`` with
``s + i`` too), but one numba call per step. MaskablePPO, PPO, A2C and DQN train on it unchanged;
MaskablePPO reads the masks through ``env_method("action_masks")``.

SB3's conventions, which differ from Gymnasium's vector API:

* autoreset in the same step: ``step_wait`` returns the next round's first observation for a
  finished sub-environment, its final observation in ``infos[i]["terminal_observation"]`` and
  ``infos[i]["TimeLimit.truncated"] = False`` (the envs never truncate) — the native env runs in
  ``AutoresetMode.SAME_STEP``;
* ``infos`` is a list of dicts, one per sub-environment; a finished one carries what the single
  env's final ``info`` holds (every key of :data:`splitpoker.envs.info.ROUND_INFO`, cards as
  text), which the training metrics read;
* rewards are float32, dones bool.

Wrap with ``VecMonitor`` for episode statistics (:func:`make_native_vec_env` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from splitpoker.envs.info import ROUND_INFO
from splitpoker.envs.rules.cards import format_card_rows

#: the ``final_info`` columns that hold cards (as integers there, as text in SB3's ``infos``)
CARD_KEYS = ("cards", "dealer_cards")


class NativeVecEnv(VecEnv):
    """SB3 ``VecEnv`` stepping ``n_envs`` games of ``env_id`` natively (see the module docstring)."""

    def __init__(self, env_id: str, n_envs: int, env_kwargs: dict[str, Any] | None = None,
                 num_threads: int | None = None):
        import splitpoker.envs as envs  # noqa: F401  (registers the ids and their vector entry points)

        if env_id not in envs.ENV_IDS:
            raise ValueError(f"unknown env id {env_id!r}: expected one of {list(envs.ENV_IDS)}")
        self.venv = gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point",
                                 autoreset_mode=AutoresetMode.SAME_STEP, num_threads=num_threads,
                                 **dict(env_kwargs or {}))
        self.env_id = env_id
        self._actions: np.ndarray | None = None
        self._obs: np.ndarray | None = None
        super().__init__(n_envs, self.venv.single_observation_space, self.venv.single_action_space)

    # ---- VecEnv API ----------------------------------------------------------------------
    def reset(self):
        seeds = self._seeds
        obs, _ = self.venv.reset(seed=None if all(s is None for s in seeds) else list(seeds))
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._obs = obs
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs) if np.ndim(actions) else np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(): call step(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            rows = np.flatnonzero(dones)
            for i, d in zip(rows.tolist(), final_infos(info, rows), strict=True):
                infos[i] = d
        self._obs = obs
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """``bool[n_envs, A]`` masks of all sub-environments at once."""
        return self.venv.action_masks()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        idx = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [(lambda i=i: self.venv.action_masks()[i]) for i in idx]
        if attr_name == "render_mode":
            return [None for _ in idx]
        if attr_name in ("config", "bet_table", "n_bet_actions", "setting_offset", "n_settings", "house_way_action",
                         "observation_space", "action_space"):
            value = getattr(self.venv, attr_name) if attr_name not in ("observation_space", "action_space") \
                else getattr(self.venv, f"single_{attr_name}")
            return [value for _ in idx]
        raise AttributeError(f"{type(self).__name__} has no per-environment attribute {attr_name!r}: the native "
                             "sub-environments share one config (try 'config', 'bet_table', 'action_masks')")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"cannot set {attr_name!r} on native sub-environments: they share one config; "
                             "build a new NativeVecEnv with the changed env_kwargs")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"{type(self).__name__} supports env_method('action_masks') only, got {method_name!r}")
        masks = self.venv.action_masks()
        return list(masks[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def make_native_vec_env(env_id: str, n_envs: int, env_kwargs: dict[str, Any] | None = None, seed: int | None = None,
                        num_threads: int | None = None) -> VecMonitor:
    """A ``VecMonitor``-wrapped :class:`NativeVecEnv` seeded like SB3's ``make_vec_env`` (env ``i``
    gets ``seed + i`` at the first reset)."""
    env = NativeVecEnv(env_id, n_envs, env_kwargs, num_threads=num_threads)
    if seed is not None:
        env.seed(seed)
    return VecMonitor(env)


def final_infos(info: dict[str, Any], rows: np.ndarray) -> list[dict[str, Any]]:
    """SB3's ``infos`` entries of the finished sub-environments ``rows`` (ascending) from the
    native env's ``info`` of one step: what the single env's final ``info`` holds (every key of
    :data:`~splitpoker.envs.info.ROUND_INFO`, in the order of :func:`~splitpoker.envs.info.complete`:
    the keys present first, then the rest at their defaults; cards as text), with
    ``terminal_observation`` and ``TimeLimit.truncated``. Column by column (one numpy selection and
    one text conversion per key, not one per key and row): with one-step episodes every
    sub-environment finishes at every step, so this runs for all of them each step."""
    final, final_obs = info["final_info"], info["final_obs"]
    out: list[dict[str, Any]] = [{"action_mask": m, "phase": "done"} for m in final["action_mask"][rows]]
    for key, column in final.items():
        if key.startswith("_") or key in ("action_mask", "phase"):
            continue
        has = final[f"_{key}"][rows]
        if has.all():
            targets, values = out, column[rows]
        else:
            targets, values = [out[j] for j in np.flatnonzero(has).tolist()], column[rows[has]]
        values = format_card_rows(values) if key in CARD_KEYS else values.tolist()
        for d, value in zip(targets, values, strict=True):
            d[key] = value
    untyped = [k for k in final if not k.startswith("_") and k not in ROUND_INFO and k not in ("action_mask", "phase")]
    stray = sorted({k for d in out for k in untyped if d.get(k, 0) is None})
    if stray:
        raise ValueError(f"info keys {stray} are None and have no typed default: add them to the schema")
    for d, obs in zip(out, final_obs[rows], strict=True):
        for key, default in ROUND_INFO.items():
            if d.get(key) is None:
                d[key] = default
        d["terminal_observation"] = obs
        d["TimeLimit.truncated"] = False
    return out
