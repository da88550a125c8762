"""Faults at the environments' edges (red-team items): each case failed before its fix."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids)
from splitpoker.envs.table import asia_table_v0, paigow_table_v0


@pytest.mark.parametrize("module", [paigow_table_v0, asia_table_v0])
@pytest.mark.parametrize("render_mode", ["human", "ansi"])
def test_table_renders_a_round_every_player_left_before_the_deal(module, render_mode, capsys):
    """Every player seat makes a wrong-phase move in the bet phase: the round ends undealt, and
    rendering it must not read the undealt (-1) cards."""
    env = module.parallel_env(num_seats=2, house_way_seats=1, render_mode=render_mode)
    env.reset(seed=0)
    n_bet = env.seats.n_bet
    _, rewards, terms, _, infos = env.step({a: n_bet for a in env.agents})  # a setting in the bet phase
    assert all(terms.values()) and all(r == -1.0 for r in rewards.values())
    assert all(i["invalid_action"] == n_bet for i in infos.values())
    text = env.render()
    if render_mode == "ansi":
        assert "dealer: not dealt" in text and "out of the round" in text
    else:
        assert "dealer: not dealt" in capsys.readouterr().out
    aec = module.env(num_seats=1, render_mode=render_mode)
    aec.reset(seed=1)
    aec.step(n_bet)  # the AEC env too
    aec.render()


def test_table_other_policy_must_return_an_action():
    env = gym.make("splitpoker/PaiGowTable-v0", other_seats=2, other_policy=lambda obs, mask: 1.5)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 1.5 \(returned by other_policy for seat 2\) is not an integer"):
        env.step(0)


@pytest.mark.parametrize("bet", ["x", 5, (5,), (5, 0, 0)])
def test_table_house_way_bet_must_be_a_pair_of_wagers(bet):
    with pytest.raises(ValueError, match=r"house_way_bet=.*: expected \(main wager, bonus wager\)"):
        gym.make("splitpoker/PaiGowTable-v0", house_way_bet=bet)


def test_session_setting_callable_errors_name_its_value():
    env = gym.make("splitpoker/AsiaPokerSession-v0", setting=lambda cards: 1_000_000)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 1000000 \(a setting returned by the setting callable\) out of "
                                         r"range: expected 0..104"):
        env.step(0)


@pytest.mark.parametrize("kwargs", [dict(bankroll=1e300, target=1e308), dict(bankroll=100, target=1e13)])
def test_session_sizes_where_bets_vanish_in_rounding_are_refused(kwargs):
    with pytest.raises(ValueError, match=r"expected at most 1e\+12 chips"):
        gym.make("splitpoker/AsiaPokerSession-v0", **kwargs)


def test_session_at_the_largest_bankroll_still_moves():
    env = gym.make("splitpoker/PaiGowPokerSession-v0", bankroll=1e12 - 1000, target=1e12, reward="bankroll")
    env.reset(seed=0)
    seen = set()
    for _ in range(20):  # a push leaves it unchanged; wins and losses must show
        _, _, terminated, _, info = env.step(0)
        seen.add(info["bankroll"])
        if terminated:
            break
    assert len(seen) > 1 and all(np.isfinite(b) for b in seen)
