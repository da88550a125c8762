"""RLlib environments with the action mask in the observation (``pip install .[rllib]``).

RLlib's action-masking RLModule
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``) reads
``Dict(observations=..., action_mask=Box(0, 1, (n,), float32))``. These classes give that form
and take RLlib's ``env_config`` as their one argument, so a config names them directly (RLlib
ships the class to its env runners, local or on a cluster, by its import path)::

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from splitpoker.envs.rllib import MaskedEnv, PaiGowTableMultiAgentEnv

    single = (PPOConfig().environment(MaskedEnv, env_config={"id": "splitpoker/AsiaPokerSetting-v0"})
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule)))
    table = (PPOConfig().environment(PaiGowTableMultiAgentEnv, env_config={"num_seats": 3})
             .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
             .rl_module(rl_module_spec=MultiRLModuleSpec(
                 rl_module_specs={"shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule)})))

``scripts/rllib_ppo.py`` trains both. This module imports Ray; nothing else in the package does.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

from splitpoker.envs.registration import ALL_ENV_IDS, GAME_ENVS
from splitpoker.envs.table_wrappers import TableObservation
from splitpoker.envs.wrappers import MaskInObservation

DEFAULT_ENV_ID = "splitpoker/AsiaPokerSetting-v0"


def _config(config, owner: str) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, dict):  # RLlib passes an EnvContext, a dict
        raise TypeError(f"{owner} config={config!r}: expected a dict of keywords (RLlib's env_config)")
    return dict(config)


class MaskedEnv(MaskInObservation):
    """``gym.make(config["id"], **the other keys)`` with the mask in the observation
    (:class:`splitpoker.envs.wrappers.MaskInObservation`: ``Dict(observations, action_mask
    float32)``). ``config["id"]`` is any registered splitpoker id (default
    ``splitpoker/AsiaPokerSetting-v0``); every other key is a keyword of that env, checked by it."""

    def __init__(self, config: dict | None = None):
        kwargs = _config(config, "MaskedEnv")
        env_id = kwargs.pop("id", DEFAULT_ENV_ID)
        if env_id.startswith("splitpoker:"):
            env_id = env_id.split(":", 1)[1]
        if env_id not in ALL_ENV_IDS:
            raise ValueError(f"MaskedEnv id={env_id!r}: expected one of {sorted(ALL_ENV_IDS)}")
        super().__init__(gym.make(env_id, **kwargs))


class TableMultiAgentEnv(ParallelPettingZooEnv):
    """A PettingZoo table as an RLlib ``MultiAgentEnv``: agents ``seat_k``, each observing
    ``Dict(observations, action_mask float32)`` (:class:`splitpoker.envs.table_wrappers.TableObservation`,
    form ``"rllib"``). ``config`` holds the table's keywords (``num_seats``, ``house_way_seats``,
    ``seats``, every config field), checked by the table. Subclasses fix the game."""

    game = ""

    def __init__(self, config: dict | None = None):
        kwargs = _config(config, type(self).__name__)
        if self.game not in GAME_ENVS:
            raise TypeError("TableMultiAgentEnv is abstract: use PaiGowTableMultiAgentEnv or AsiaTableMultiAgentEnv")
        table = importlib.import_module(f"splitpoker.envs.table.{GAME_ENVS[self.game].pettingzoo}")
        super().__init__(TableObservation(table.parallel_env(**kwargs), form="rllib"))


class PaiGowTableMultiAgentEnv(TableMultiAgentEnv):
    """``paigow_table_v0.parallel_env(**config)`` for RLlib (see :class:`TableMultiAgentEnv`)."""

    game = "paigow"


class AsiaTableMultiAgentEnv(TableMultiAgentEnv):
    """``asia_table_v0.parallel_env(**config)`` for RLlib (see :class:`TableMultiAgentEnv`)."""

    game = "asia"
