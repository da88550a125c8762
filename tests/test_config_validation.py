"""Every config field of both games, given a bad value through ``gym.make(id, **{field: value})``,
fails when the config is built with an error naming the field, the value and what is allowed;
numpy numbers are accepted where numbers are; validated values are stored normalised."""

import dataclasses
import math
import re

import gymnasium as gym
import numpy as np
import pytest
import yaml

import splitpoker  # noqa: F401  (registers the ids)
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig

ASIA, PAIGOW = "splitpoker/AsiaPoker-v0", "splitpoker/PaiGowPoker-v0"
BOTH = (ASIA, PAIGOW)

# (field, bad value, fragment of the message): fields both games share
COMMON = [
    ("mask_fouls", 1, "mask_fouls=1 (int): expected true or false"),
    ("mask_fouls", "yes", "mask_fouls='yes' (str): expected true or false"),
    ("allow_house_way_action", None, "allow_house_way_action=None (NoneType): expected true or false"),
    ("observe_settings", 0, "observe_settings=0 (int): expected true or false"),
    ("setting_features", "yes", "setting_features='yes' (str): expected true or false"),
    ("setting_features", 1, "setting_features=1 (int): expected true or false"),
    ("dealer_samples", 0, "dealer_samples=0: expected an integer 1..1000"),
    ("dealer_samples", 1001, "dealer_samples=1001: expected an integer 1..1000"),
    ("dealer_samples", 2.0, "dealer_samples=2.0 (float): expected an integer 1..1000"),
    ("dealer_samples", True, "dealer_samples=True (bool): expected an integer"),
    ("dealer_samples", "16", "dealer_samples='16' (str): expected an integer"),
    ("invalid_action", "ignore", "invalid_action='ignore': expected one of ('raise', 'penalize')"),
    ("invalid_action", None, "invalid_action=None: expected one of"),
    ("invalid_action", ["raise"], "invalid_action=['raise']: expected one of"),
    ("invalid_action_penalty", -5, "invalid_action_penalty=-5: expected a finite number >= 0"),
    ("invalid_action_penalty", float("nan"), "invalid_action_penalty=nan: expected a finite number >= 0"),
    ("invalid_action_penalty", float("inf"), "invalid_action_penalty=inf: expected a finite number >= 0"),
    ("invalid_action_penalty", "1", "invalid_action_penalty='1' (str): expected a finite number >= 0"),
    ("invalid_action_penalty", True, "invalid_action_penalty=True (bool): expected a finite number >= 0"),
    ("reward_unit", "abc", "reward_unit='abc' (str): expected a finite number > 0 (chips per reward unit), or null"),
    ("reward_unit", float("inf"), "reward_unit=inf: expected a finite number > 0"),
    ("reward_unit", float("nan"), "reward_unit=nan: expected a finite number > 0"),
    ("reward_unit", 0, "reward_unit=0: expected a finite number > 0"),
    ("reward_unit", -5, "reward_unit=-5: expected a finite number > 0"),
    ("reward_unit", False, "reward_unit=False (bool): expected a finite number > 0"),
    ("house_way", "borgata", "house_way: unknown house-way style 'borgata'"),
    ("house_way", 3, "house_way=3 (int): expected a house-way name"),
    ("rules", "default", "rules='default': expected"),
    ("rules", {"colour": 1}, "rules: unknown"),
    ("chip", 0, "chip=0: expected a finite number > 0"),
    ("chip", -1, "chip=-1: expected a finite number > 0"),
    ("chip", "5", "chip='5' (str): expected a finite number > 0"),
    ("colour", "red", "got an unexpected keyword argument 'colour'"),
]

ASIA_ONLY = [
    ("house_way", "paigow-igw", "house_way: house-way style 'paigow-igw' is for paigow, not asia"),
    ("rules", {"ace_low_straight": "middle"}, "rules: ace_low_straight='middle': expected one of"),
    ("rules", {"flush_beats_straight": "yes"}, "rules: flush_beats_straight='yes': expected true or false"),
    ("bonus_paytable", "fortune", "bonus_paytable 'fortune' is a paigow/odds table"),
    ("bonus_paytable", "nope", "bonus_paytable='nope': unknown pay table 'nope'"),
    ("bonus_paytable", 5, "bonus_paytable=5 (int): expected a pay table name, a dict or null"),
    ("bonus_paytable", {"name": "x"}, "bonus_paytable: pay table is missing 'game'"),
    ("ante_levels", "100", "ante_levels='100' is text: expected a number or a list of numbers"),
    ("ante_levels", [], "ante_levels is empty"),
    ("ante_levels", [5, "10"], "ante_levels[1]='10' (str): expected a finite number"),
    ("ante_levels", [5, float("nan")], "ante_levels[1]=nan: expected a finite number"),
    ("ante_levels", [True], "ante_levels[0]=True (bool)"),
    ("ante_levels", {"a": 5}, "ante_levels={'a': 5} (dict): expected a number or a list of numbers"),
    ("ante_levels", [5, 2000], "ante_levels level 2000 is off the table limits: expected 5..1000"),
    ("ante_levels", [10, 5], "ante_levels (10.0, 5.0) must be distinct and increasing"),
    ("ante_levels", [5, 7], "ante_levels level 7 is not a multiple of the $5 chip"),
    ("bonus_levels", "0", "bonus_levels='0' is text"),
    ("bonus_levels", [0, 500], "bonus_levels level 500 is off the table limits: expected 0 or 5..100"),
    ("bonus_levels", [0, 7], "bonus_levels level 7 is not a multiple of the $5 chip"),
    ("bonus_levels", [-5], "bonus_levels level -5 is off the table limits"),
    ("ante_min", -5, "ante_min=-5: expected a finite number > 0"),
    ("ante_min", 0, "ante_min=0: expected a finite number > 0"),
    ("ante_min", "5", "ante_min='5' (str)"),
    ("ante_min", float("nan"), "ante_min=nan: expected a finite number > 0"),
    ("ante_max", 1, "ante_max=1 is below ante_min=5: expected ante_max >= ante_min"),
    ("ante_max", float("inf"), "ante_max=inf: expected a finite number > 0"),
    ("ante_max", -1000, "ante_max=-1000: expected a finite number > 0"),
    ("bonus_max", -1, "bonus_max=-1: expected a finite number >= 0"),
    ("bonus_max", None, "bonus_max=None (NoneType)"),
    ("setting_ante", 2000, "setting_ante level 2000 is off the table limits: expected 5..1000"),
    ("setting_ante", 0, "setting_ante level 0 is off the table limits"),
    ("setting_ante", "5", "setting_ante='5' (str)"),
    ("setting_ante", [5], "setting_ante=[5] (list)"),
]

PAIGOW_ONLY = [
    ("house_way", "asia-000", "house_way: house-way style 'asia-000' is for asia, not paigow"),
    ("rules", {"commission": 1.5}, "rules: commission=1.5: expected a fraction in [0, 1)"),
    ("rules", {"commission": "5%"}, "rules: commission='5%': expected a number in [0, 1)"),
    ("rules", {"commission": float("nan")}, "rules: commission=nan"),
    ("rules", {"ace_low_straight": 1}, "rules: ace_low_straight=1: expected one of"),
    ("fortune_paytable", "seed-000", "fortune_paytable 'seed-000' is a asia/odds table"),
    ("fortune_paytable", 1, "fortune_paytable=1 (int): expected a pay table name"),
    ("wager_levels", "100", "wager_levels='100' is text"),
    ("wager_levels", [5, 1000], "wager_levels level 1000 is off the table limits: expected 5..500"),
    ("wager_levels", [5, 5], "must be distinct and increasing"),
    ("fortune_levels", [0, 200], "fortune_levels level 200 is off the table limits: expected 0 or 1..100"),
    ("fortune_levels", "5", "fortune_levels='5' is text"),
    ("wager_min", -5, "wager_min=-5: expected a finite number > 0"),
    ("wager_min", 0, "wager_min=0: expected a finite number > 0"),
    ("wager_min", float("inf"), "wager_min=inf"),
    ("wager_max", 2, "wager_max=2 is below wager_min=5"),
    ("fortune_max", -1, "fortune_max=-1: expected a finite number >= 0"),
    ("setting_wager", 1000, "setting_wager level 1000 is off the table limits"),
    ("setting_wager", None, "setting_wager=None (NoneType)"),
]

TABLE = ([(env_id, *row) for env_id in BOTH for row in COMMON] + [(ASIA, *row) for row in ASIA_ONLY]
         + [(PAIGOW, *row) for row in PAIGOW_ONLY])


@pytest.mark.parametrize("env_id,field,value,message", TABLE,
                         ids=[f"{e.split('/')[1][:-3]}-{f}={v!r}" for e, f, v, _ in TABLE])
def test_bad_value_is_refused_naming_field_and_value(env_id, field, value, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        gym.make(env_id, **{field: value})


def test_table_covers_every_field():
    for env_id, cls in ((ASIA, AsiaPokerConfig), (PAIGOW, PaiGowPokerConfig)):
        tried = {f for e, f, _, _ in TABLE if e == env_id}
        assert {f.name for f in dataclasses.fields(cls)} <= tried


@pytest.mark.parametrize("field,value,stored", [
    ("dealer_samples", np.int64(16), 16),
    ("dealer_samples", np.int32(2), 2),
    ("ante_min", np.float32(5), 5.0),
    ("invalid_action_penalty", np.float64(0.5), 0.5),
    ("invalid_action_penalty", 0, 0.0),
    ("reward_unit", np.int32(10), 10.0),
    ("ante_levels", np.array([5, 25]), (5.0, 25.0)),
    ("ante_levels", 100, (100.0,)),  # one number is one level
    ("ante_levels", np.int64(100), (100.0,)),
    ("mask_fouls", np.bool_(False), False),
    ("setting_ante", np.int64(25), 25.0),
    ("chip", np.float64(5.0), 5.0),
])
def test_numpy_numbers_are_accepted_and_stored_as_python_values(field, value, stored):
    env = gym.make(ASIA, **{field: value})
    got = getattr(env.unwrapped.config, field)
    assert got == stored and type(got) is type(stored)
    if isinstance(got, tuple):
        assert all(type(x) is float for x in got)


def test_normalised_config_dumps_to_yaml_and_back():
    cfg = AsiaPokerConfig(dealer_samples=np.int64(4), ante_min=np.float32(5), reward_unit=np.int64(25),
                          ante_levels=np.array([5, 25, 100]))
    text = yaml.safe_dump(cfg.to_dict())  # numpy scalars would make safe_dump fail
    assert AsiaPokerConfig.from_dict(yaml.safe_load(text)) == cfg


def test_negative_minimum_can_no_longer_flip_rewards():
    """Before, ante_min=-5 made the reward unit -5 and flipped the sign of every reward."""
    with pytest.raises(ValueError, match="ante_min=-5"):
        AsiaPokerConfig(ante_min=-5)
    env = gym.make(ASIA, reward_unit=25)
    _, info = env.reset(seed=0)
    env.step(0)  # $5 ante, no bonus
    _, r, _, _, info = env.step(env.unwrapped.setting_offset + int(np.flatnonzero(~env.unwrapped.fouled)[0]))
    assert math.copysign(1, r) == math.copysign(1, info["net_chips"]) or r == 0
    assert r == pytest.approx(info["net_chips"] / 25)


def test_yaml_that_is_not_a_mapping(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="expected a mapping of AsiaPokerConfig fields"):
        AsiaPokerConfig.from_yaml(p)
    with pytest.raises(ValueError, match="expected a mapping"):
        AsiaPokerConfig.from_dict([("ante_min", 5)])
