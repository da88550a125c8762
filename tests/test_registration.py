"""The env id tables are generated from one naming row per game (envs/registration.py,
``GAME_ENVS``): the public ids and entry points they produce are pinned here, written out by hand,
so a change to the generation cannot rename or drop an id that users' scripts name."""

from __future__ import annotations

import importlib

import pytest

from splitpoker.envs import registration as reg
from splitpoker.envs.rules.games.spec import GAMES

PUBLIC = {  # id: (entry point, vector entry point or None, game)
    "splitpoker/AsiaPoker-v0": ("splitpoker.envs.asia_poker:AsiaPokerEnv",
                                "splitpoker.envs.vector.env:AsiaPokerVectorEnv", "asia"),
    "splitpoker/AsiaPokerSetting-v0": ("splitpoker.envs.asia_poker:AsiaPokerSettingEnv",
                                       "splitpoker.envs.vector.env:AsiaPokerSettingVectorEnv", "asia"),
    "splitpoker/PaiGowPoker-v0": ("splitpoker.envs.pai_gow_poker:PaiGowPokerEnv",
                                  "splitpoker.envs.vector.env:PaiGowPokerVectorEnv", "paigow"),
    "splitpoker/PaiGowPokerSetting-v0": ("splitpoker.envs.pai_gow_poker:PaiGowPokerSettingEnv",
                                         "splitpoker.envs.vector.env:PaiGowPokerSettingVectorEnv", "paigow"),
    "splitpoker/AsiaTable-v0": ("splitpoker.envs.table.gym_env:AsiaTableEnv", None, "asia"),
    "splitpoker/PaiGowTable-v0": ("splitpoker.envs.table.gym_env:PaiGowTableEnv", None, "paigow"),
    "splitpoker/AsiaPokerSession-v0": ("splitpoker.envs.session:AsiaPokerSessionEnv", None, "asia"),
    "splitpoker/PaiGowPokerSession-v0": ("splitpoker.envs.session:PaiGowPokerSessionEnv", None, "paigow"),
}
PETTINGZOO = {"splitpoker/asia_table_v0": "splitpoker.envs.table.asia_table_v0",
              "splitpoker/paigow_table_v0": "splitpoker.envs.table.paigow_table_v0"}


def test_the_generated_tables_are_the_public_ids():
    assert reg.ALL_ENV_IDS == {i: e for i, (e, _, _) in PUBLIC.items()}
    assert reg.VECTOR_ENTRY_POINTS == {i: v for i, (_, v, _) in PUBLIC.items() if v is not None}
    assert reg.GAME_OF_ENV == {i: g for i, (_, _, g) in PUBLIC.items()}
    assert reg.PETTINGZOO_IDS == PETTINGZOO
    assert set(reg.ENV_IDS) == {i for i in PUBLIC if "Table" not in i and "Session" not in i}
    assert reg.SETTING_ENV_OF_GAME == {"asia": "splitpoker/AsiaPokerSetting-v0",
                                       "paigow": "splitpoker/PaiGowPokerSetting-v0"}


def test_every_game_spec_has_its_env_names_and_every_entry_point_exists():
    assert sorted(reg.GAME_ENVS) == sorted(GAMES)
    for entry in [*reg.ALL_ENV_IDS.values(), *reg.VECTOR_ENTRY_POINTS.values()]:
        module, name = entry.split(":")
        assert isinstance(getattr(importlib.import_module(module), name), type), entry
    for module in reg.PETTINGZOO_IDS.values():
        mod = importlib.import_module(module)
        assert callable(mod.env) and callable(mod.parallel_env), module


def test_setting_env_id_names_an_unknown_game():
    assert reg.setting_env_id("paigow") == "splitpoker/PaiGowPokerSetting-v0"
    with pytest.raises(ValueError, match=r"unknown game 'blackjack': expected one of \['asia', 'paigow'\]"):
        reg.setting_env_id("blackjack")
