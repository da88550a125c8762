"""PettingZoo wrapper of the tables' observation, for the libraries that want another form than
PettingZoo classic's ``Dict(observation=Box, action_mask=Box(int8))``.

=========  ==============================================================  ============================
form       each agent's observation                                         for
=========  ==============================================================  ============================
``flat``   ``Box(0, 1, (obs_size,), float32)``: the ``observation`` alone    SuperSuit's vector stacking
           (the mask stays in ``infos[agent]["action_mask"]``)              + SB3 ``"MlpPolicy"``
``rllib``  ``Dict(observations=Box, action_mask=Box(0, 1, (n,), float32))``  RLlib's action-masking
                                                                            RLModule
=========  ==============================================================  ============================

::

    import supersuit as ss
    from splitpoker.envs.table import paigow_table_v0
    from splitpoker.envs.table_wrappers import TableObservation

    env = TableObservation(paigow_table_v0.parallel_env(num_seats=3), form="flat")
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 4, base_class="stable_baselines3")

Every agent of a table acts at every step of a round (a penalised one stays in ``agents``, its
later actions ignored), which is what ``pettingzoo_env_to_vec_env_v1`` needs; the wrapper keeps
that, and everything but the observation (rewards, episode ends, ``infos``) is the table's.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper

from splitpoker.envs.wrappers import MASK_KEY, OBSERVATION_KEY

FORMS = ("flat", "rllib")
_TABLE_KEYS = ("observation", MASK_KEY)  # PettingZoo classic's keys, the tables' own form


class TableObservation(BaseParallelWrapper):
    """A table (``asia_table_v0.parallel_env(...)``, ``paigow_table_v0.parallel_env(...)``) with each
    agent's observation in ``form`` (``"flat"`` or ``"rllib"``, the table in the module docstring).

    ``env`` must be a PettingZoo ``ParallelEnv`` whose observations are PettingZoo classic's
    ``Dict(observation, action_mask)`` (an AEC ``env()`` is refused: SuperSuit and RLlib's
    ``ParallelPettingZooEnv`` step the parallel form); a bad ``form`` or ``env`` raises at
    construction, naming the value.
    """

    def __init__(self, env: ParallelEnv, form: str = "flat"):
        if not isinstance(env, ParallelEnv):
            raise TypeError(f"env={env!r}: expected a PettingZoo ParallelEnv (paigow_table_v0.parallel_env(...)), "
                            f"got {type(env).__name__}")
        if form not in FORMS:
            raise ValueError(f"form={form!r}: expected one of {list(FORMS)} ('flat': the observation Box alone, "
                             f"for SuperSuit and SB3; 'rllib': Dict(observations, action_mask float32))")
        super().__init__(env)
        self.form = form
        spaces_in = {a: env.observation_space(a) for a in env.possible_agents}
        for agent, space in spaces_in.items():
            if not (isinstance(space, spaces.Dict) and set(space.spaces) == set(_TABLE_KEYS)):
                raise ValueError(f"observation space of {agent!r} is {space}: expected Dict({', '.join(_TABLE_KEYS)}) "
                                 f"(the tables' own form)")
        self.observation_spaces = {a: self._space(s) for a, s in spaces_in.items()}

    def _space(self, space: spaces.Dict) -> spaces.Space:
        if self.form == "flat":
            return space["observation"]
        n = space[MASK_KEY].shape[0]
        return spaces.Dict({OBSERVATION_KEY: space["observation"],
                            MASK_KEY: spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)})

    def _convert(self, obs: dict) -> dict:
        if self.form == "flat":
            return {a: o["observation"] for a, o in obs.items()}
        return {a: {OBSERVATION_KEY: o["observation"], MASK_KEY: o[MASK_KEY].astype(np.float32)}
                for a, o in obs.items()}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._convert(obs), infos

    def step(self, actions: dict):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        return self._convert(obs), rewards, terminations, truncations, infos
