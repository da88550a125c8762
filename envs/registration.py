"""Gymnasium registration of the splitpoker environment ids (done on ``import envs``)."""

from __future__ import annotations

ENV_IDS = {
    "splitpoker/AsiaPoker-v0": "envs.asia_poker:AsiaPokerEnv",
    "splitpoker/AsiaPokerSetting-v0": "envs.asia_poker:AsiaPokerSettingEnv",
    "splitpoker/PaiGowPoker-v0": "envs.pai_gow_poker:PaiGowPokerEnv",
    "splitpoker/PaiGowPokerSetting-v0": "envs.pai_gow_poker:PaiGowPokerSettingEnv",
    "splitpoker/AsiaPokerSession-v0": "envs.session:AsiaPokerSessionEnv",
    "splitpoker/PaiGowPokerSession-v0": "envs.session:PaiGowPokerSessionEnv",
}
GAME_OF_ENV = {
    "splitpoker/AsiaPoker-v0": "asia", "splitpoker/AsiaPokerSetting-v0": "asia",
    "splitpoker/PaiGowPoker-v0": "paigow", "splitpoker/PaiGowPokerSetting-v0": "paigow",
    "splitpoker/AsiaPokerSession-v0": "asia", "splitpoker/PaiGowPokerSession-v0": "paigow",
}


def register_envs() -> None:
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, disable_env_checker=False)
