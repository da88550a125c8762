"""Gymnasium wrappers for libraries that want the action mask inside the observation.

:class:`MaskInObservation` turns any splitpoker env's ``Box`` observation into
``Dict(observations=Box, action_mask=Box(0, 1, (n,), float32))``, the form RLlib's action-masking
RLModule (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) reads, and that any
policy can read without a side channel::

    env = MaskInObservation(gym.make("splitpoker/AsiaPokerSetting-v0"))
    obs, info = env.reset(seed=0)          # obs["observations"] (202,), obs["action_mask"] (105,)

The mask is the env's own ``info["action_mask"]`` (so it passes through every Gymnasium wrapper),
never all zero: on a terminal step every action is marked (:mod:`splitpoker.envs.info`).
:mod:`splitpoker.envs.rllib` builds RLlib envs from it; the PettingZoo tables' equivalents are in
:mod:`splitpoker.envs.table_wrappers`.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

#: RLlib's keys (its action-masking RLModule pops ``action_mask`` and feeds ``observations``)
OBSERVATION_KEY, MASK_KEY = "observations", "action_mask"
MASK_DTYPES = ("float32", "int8", "bool")


def mask_space(n: int, dtype: str) -> spaces.Space:
    """The space of an ``n``-action mask held as ``dtype`` (one of :data:`MASK_DTYPES`)."""
    if dtype == "bool":
        return spaces.MultiBinary(n)
    return spaces.Box(0, 1, shape=(n,), dtype=np.dtype(dtype))


def check_mask_options(observation_key, mask_dtype) -> None:
    """ValueError naming the value unless ``observation_key`` is a non-empty string other than
    ``"action_mask"`` and ``mask_dtype`` one of :data:`MASK_DTYPES`."""
    if not isinstance(observation_key, str) or not observation_key or observation_key == MASK_KEY:
        raise ValueError(f"observation_key={observation_key!r}: expected a non-empty string other than "
                         f"{MASK_KEY!r} (RLlib reads {OBSERVATION_KEY!r}, PettingZoo classic 'observation')")
    if mask_dtype not in MASK_DTYPES:
        raise ValueError(f"mask_dtype={mask_dtype!r}: expected one of {list(MASK_DTYPES)} (RLlib's masking "
                         f"module takes the log of the mask, so it needs 'float32')")


class MaskInObservation(gym.Wrapper):
    """The env with its action mask inside the observation.

    Observation: ``Dict({observation_key: <the env's Box>, "action_mask": <mask>})`` where the mask
    is ``Box(0, 1, (n,), float32)`` by default (``mask_dtype="int8"``: ``Box`` of ``int8``,
    ``"bool"``: ``MultiBinary(n)``). Actions, rewards, episode ends and ``info`` are the env's
    (``info["action_mask"]`` stays). ``action_masks()`` is forwarded (sb3-contrib's protocol).

    Arguments: ``env`` a Gymnasium env with a ``Discrete`` action space whose ``info`` carries
    ``"action_mask"`` (every splitpoker id); ``observation_key`` (default ``"observations"``,
    RLlib's key); ``mask_dtype`` (default ``"float32"``). Each is checked here, with an error
    naming the value.
    """

    def __init__(self, env: gym.Env, observation_key: str = OBSERVATION_KEY, mask_dtype: str = "float32"):
        if not isinstance(env, gym.Env):
            raise TypeError(f"env={env!r}: expected a gymnasium.Env (gym.make(...)), got {type(env).__name__}")
        check_mask_options(observation_key, mask_dtype)
        if not isinstance(env.action_space, spaces.Discrete):
            raise ValueError(f"env action space {env.action_space}: expected Discrete (one mask entry per action)")
        super().__init__(env)
        self.observation_key = observation_key
        self.mask_dtype = np.dtype(np.bool_ if mask_dtype == "bool" else mask_dtype)
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict({observation_key: env.observation_space,
                                              MASK_KEY: mask_space(n, mask_dtype)})

    def _with_mask(self, obs, info: dict):
        if MASK_KEY not in info:
            raise KeyError(f"the wrapped env's info has no {MASK_KEY!r} (keys: {sorted(info)}): MaskInObservation "
                           f"needs an env that reports its mask in info, as every splitpoker env does")
        return {self.observation_key: obs, MASK_KEY: np.asarray(info[MASK_KEY]).astype(self.mask_dtype)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._with_mask(obs, info), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The current legal actions, ``bool[n]`` (sb3-contrib's protocol)."""
        return self.env.get_wrapper_attr("action_masks")()
