"""The PettingZoo ``ParallelEnv`` behind ``asia_table_v0`` and ``paigow_table_v0`` (the AEC
``env()`` is this env through PettingZoo's ``parallel_to_aec``). The user manuals are the two
modules' docstrings."""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from splitpoker.envs.render import check_render_mode
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.seed_stream import ROUND_SEED_BOUND
from splitpoker.envs.table.seats import TableSeats, table_layout


class TableParallelEnv(ParallelEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "table_v0", "is_parallelizable": True, "render_fps": 1}
    game = ""

    def __init__(self, num_seats: int | None = None, house_way_seats: int = 0, seats=None, *, envy: bool | None = None,
                 envy_unit: float = 1.0, house_way_bet=None, config=None, render_mode: str | None = None,
                 info_text: bool = True, **overrides):
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        layout = table_layout(num_seats, house_way_seats, seats)
        envy = get_spec(self.game).has_envy if envy is None else envy
        self.seats = TableSeats(self.game, layout, envy=envy, envy_unit=envy_unit, house_way_bet=house_way_bet,
                                config=config, info_text=info_text, **overrides)
        self.possible_agents = [f"seat_{s}" for s in self.seats.player_seats]
        self._seat_of = dict(zip(self.possible_agents, self.seats.player_seats, strict=True))
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=(self.seats.obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.seats.n_actions,), dtype=np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.seats.n_actions) for a in self.possible_agents}
        self.agents: list[str] = []
        self._np_random = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @functools.cached_property
    def config(self):
        return self.seats.config

    def _obs(self, agent):
        s = self._seat_of[agent]
        return {"observation": self.seats.observation(s), "action_mask": self.seats.mask(s)}

    def _info(self, agent):
        info = self.seats.info(self._seat_of[agent])
        if not self.seats.info_text:  # a numeric info never repeats the observation (envs/info.py)
            del info["action_mask"]
        return info

    def reset(self, seed: int | None = None, options: dict | None = None):
        """New round; ``options`` are accepted and unused."""
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.seats.reset_round(int(self._np_random.integers(0, ROUND_SEED_BOUND)))
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return {a: self._obs(a) for a in self.agents}, {a: self._info(a) for a in self.agents}

    def step(self, actions: dict):
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        unknown = sorted(str(a) for a in actions if a not in self._seat_of)
        if unknown:
            raise ValueError(f"unknown agent(s) {unknown}: expected some of {self.possible_agents}")
        not_playing = sorted(a for a in actions if a not in self.agents)
        if not_playing:
            raise ValueError(f"action(s) for agent(s) {not_playing} that are not to act: agents to act are {self.agents}")
        rewards = self.seats.apply({self._seat_of[a]: x for a, x in actions.items()})
        agents = self.agents
        done = self.seats.phase == Phase.DONE
        obs = {a: self._obs(a) for a in agents}
        rew = {a: float(rewards.get(self._seat_of[a], 0.0)) for a in agents}
        # every agent stays until the round ends (a penalised one with its reward at once and its
        # later actions ignored), so all agents act at every step (SuperSuit's vector stacking)
        term = {a: done for a in agents}
        trunc = {a: False for a in agents}
        infos = {a: self._info(a) for a in agents}
        self.agents = [a for a in agents if not term[a]]
        if self.render_mode == "human":
            self.render()
        return obs, rew, term, trunc, infos

    def render(self):
        return self.seats.render_text(self.render_mode)

    def close(self):
        pass


def versioned_table_env(game: str, name: str, doc: str):
    """``(parallel_env, env)`` of one versioned PettingZoo module (``asia_table_v0``, ...): the
    :class:`TableParallelEnv` of ``game`` with the module's docstring as its manual, and the AEC
    ``env()`` through PettingZoo's ``parallel_to_aec``."""
    from pettingzoo.utils.conversions import parallel_to_aec

    parallel_env = type("parallel_env", (TableParallelEnv,), {
        "__doc__": doc, "metadata": {**TableParallelEnv.metadata, "name": name}, "game": game,
        "__module__": f"splitpoker.envs.table.{name}", "__qualname__": "parallel_env"})

    def env(**kwargs):
        """The AEC environment: :class:`parallel_env` through PettingZoo's ``parallel_to_aec``."""
        return parallel_to_aec(parallel_env(**kwargs))

    env.__module__ = f"splitpoker.envs.table.{name}"
    return parallel_env, env
