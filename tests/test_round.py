"""One owner for a round: :class:`splitpoker.envs.rules.game.Game` holds tables, house way, rules and the
bonus pay table; :class:`splitpoker.envs.rules.play.round.Round` deals and settles the whole payoff; the envs
route to it and the policies read the env's own ``Game``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401
from splitpoker.agents.policies.baselines import HouseWayPolicy, OptimalPolicy, Policy
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
from splitpoker.envs.rules.bonus.paytables import FORTUNE, SEED_000, PayTable
from splitpoker.envs.rules.cards import JOKER, parse_cards
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules
from splitpoker.envs.rules.play.round import Round
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

# A house table: a straight pays 3 to 1, a flush 6 to 1, one hand's win is capped at $12.
HOUSE_TABLE = {"name": "house-straight-flush", "game": "paigow", "max_payout": 12, "lines": [
    {"key": "straight", "odds": 3, "predicate": "makes_straight"},
    {"key": "flush", "odds": 6, "predicate": "makes_flush"}]}
WHEEL_LOW = PaiGowRules(ace_low_straight="lowest", commission=0.0)


def test_bonus_categories_do_not_depend_on_rules_options():
    """The bonus is classified with the five-card categories of Pai Gow's back hand. The ranking
    options reorder hands within a category (where A-2-3-4-5 ranks among straights), never move a
    hand to another category: the table is the same under both options, so settling the bonus
    with it is right whatever rules the env was configured with."""
    default = paigow_back_table().category
    assert np.array_equal(paigow_back_table(PaiGowRules(ace_low_straight="lowest")).category, default)
    for game, rules in (("paigow", WHEEL_LOW), ("asia", AsiaRules(flush_beats_straight=False,
                                                                    ace_low_straight="second_highest"))):
        assert Game(game, rules=rules).bonus_categories is default


@pytest.mark.parametrize(("game", "table", "cards", "wager", "chips", "line"), [
    # seed-000: a natural royal flush pays 200 to 1 (the highest line it satisfies): $5 -> $1,000
    ("asia", "seed-000", "Ah Kh Qh Jh Th 2c 3d", 5.0, 1000.0, "royal_flush"),
    # seed-000 caps one hand's win at $50,000: Quad Eights & Trips pays 5000 x $100 = $500,000 -> $50,000
    ("asia", "seed-000", "8c 8d 8h 8s 4c 4d 4h", 100.0, 50_000.0, "quad_eights_and_trips"),
    # a pair pays no line of seed-000: the wager is lost
    ("asia", "seed-000", "Qh Th 8h 3h Kd 5d Tc", 5.0, -5.0, None),
    # fortune: the joker completes a wheel straight (2 to 1)
    ("paigow", "fortune", "2d 3c 4s 5h 9d Jc", 10.0, 20.0, "straight"),
    # the house table under A-2-3-4-5-lowest rules: the wheel is still a straight, 3 x $5 = $15 capped at $12
    ("paigow", HOUSE_TABLE, "Ah 2d 3c 4s 5h 9d Jc", 5.0, 12.0, "straight"),
    ("paigow", HOUSE_TABLE, "Kh 9h 7h 5h 3h 2d Jc", 1.0, 6.0, "flush"),
    ("paigow", HOUSE_TABLE, "Kh 9d 7c 5s 3h 2d Jc", 5.0, -5.0, None),
    ("paigow", HOUSE_TABLE, "Kh 9d 7c 5s 3h 2d Jc", 0.0, 0.0, None),
])
def test_game_settles_the_bonus_with_its_own_table(game, table, cards, wager, chips, line):
    hand = parse_cards(cards) + ([JOKER] if len(cards.split()) == 6 else [])
    table = PayTable.from_dict(table) if isinstance(table, dict) else table
    g = Game(game, rules=WHEEL_LOW if game == "paigow" else None, bonus_paytable=table)
    got, paid = g.settle_bonus(hand, wager)
    assert got == chips
    assert (None if paid is None else paid.key) == line


def _straight_or_flush_pay(cards, wager: float) -> float | None:
    """HOUSE_TABLE's payout worked out by hand for the seven ``cards``: a flush is five of one
    suit (the joker fills one), a straight five consecutive ranks (ace high or low; the joker
    fills one gap). None when both are possible (a straight flush might be the only flush, which
    this hand-worked rule does not separate)."""
    joker = JOKER in cards
    real = [c for c in cards if c != JOKER]
    flush = max(sum(1 for c in real if c % 4 == s) for s in range(4)) + joker >= 5
    ranks = {c // 4 for c in real} | ({-1} if 12 in {c // 4 for c in real} else set())  # ace plays low too
    straight = any(len(ranks & set(range(lo, lo + 5))) + joker >= 5 for lo in range(-1, 9))
    if flush and straight:
        return None
    if flush:
        return min(6 * wager, 12.0)
    if straight:
        return min(3 * wager, 12.0)
    return -wager


def test_env_bonus_uses_the_configured_paytable_and_rules():
    """PaiGowPoker-v0 under A-2-3-4-5-lowest rules, no commission and a house pay table: every
    round's Fortune result is the hand-worked payout of that table (not the default ``fortune``
    table), and the main result carries no commission."""
    env = gym.make("splitpoker/PaiGowPoker-v0", rules={"ace_low_straight": "lowest", "commission": 0.0},
                   fortune_paytable=HOUSE_TABLE, fortune_levels=[0, 1, 5])
    u = env.unwrapped
    assert u.game.bonus_paytable.name == "house-straight-flush" and u.game.rules == WHEEL_LOW
    bet = u.bet_table.index((5.0, 5.0))
    checked = paid = 0
    for seed in range(300):
        _, info = env.reset(seed=seed)
        env.step(bet)
        _, _, _, _, info = env.step(u.house_way_action if u.house_way_action is not None
                                    else u.setting_offset + u.house_way_setting)
        want = _straight_or_flush_pay([int(c) for c in u.player], 5.0)
        if want is None:
            continue
        checked += 1
        paid += want > 0
        assert info["bonus_chips"] == want, (seed, info["cards"])
        assert info["main_result"] in (1.0, 0.0, -1.0)
        assert info["net_chips"] == 5.0 * info["main_result"] + want
    assert checked > 250 and paid > 20


def test_round_settles_against_every_dealer_hand_like_the_rules_engine():
    """Round.settle's main result is the mean, over the dealer hands, of the rules engine's own
    settle (dealer set by the house way), and its bonus is Game.settle_bonus on the seven cards."""
    for game in (Game("asia", "asia-borgata"), Game("paigow")):
        rnd = game.round(n_dealers=3)
        rng = np.random.default_rng(5)
        for seed in range(40):
            house = rnd.deal(seed)
            assert house == game.house_way(rnd.player).setting
            s = int(rng.integers(game.n_settings))
            out = rnd.settle(s, 10.0, 5.0)
            per_dealer = [game.engine.settle(rnd.player, s, d, game.house_way(d).setting) for d in rnd.dealers]
            assert out["main_result"] == pytest.approx(np.mean([r[0] for r in per_dealer]), abs=1e-12)
            assert out["fouled"] == per_dealer[0][2]
            assert out["hands_won"] == per_dealer[0][1]
            assert out["dealer_setting"] == game.house_way(rnd.dealers[0]).setting
            assert out["bonus_chips"] == game.settle_bonus(rnd.player, 5.0)[0]
            assert out["net_chips"] == pytest.approx(10.0 * out["main_result"] + out["bonus_chips"])
            assert out["agrees_with_house_way"] == (s == house)


def test_round_and_game_refuse_bad_inputs():
    with pytest.raises(ValueError, match="n_dealers=0"):
        Round(Game("asia"), 0)
    with pytest.raises(ValueError, match="setting 21: expected 0..20"):
        Game("paigow").round().settle(21, 5.0)
    with pytest.raises(ValueError, match="'fortune' is a paigow/odds table: expected a asia odds table"):
        Game("asia", bonus_paytable="fortune")
    with pytest.raises(ValueError, match="bonus wager 5.0 .* no bonus pay table"):
        Game("asia", bonus_paytable=None).settle_bonus(parse_cards("Ah Kh Qh Jh Th 2c 3d"), 5.0)
    rnd = Game("asia", bonus_paytable=None).round()
    rnd.deal(1)
    with pytest.raises(ValueError, match="bonus_wager=5.0 on a game without a bonus pay table"):
        rnd.settle(0, 5.0, 5.0)


def test_configs_build_their_game():
    a = AsiaPokerConfig(house_way="asia-borgata", rules={"ace_low_straight": "second_highest"}, bonus_paytable=None,
                        bonus_levels=[0]).make_game()
    assert (a.game, a.style.value, a.rules.wheel_high, a.bonus_paytable) == ("asia", "asia-borgata", True, None)
    p = PaiGowPokerConfig().make_game()
    assert (p.game, p.style.value, p.commission, p.bonus_paytable) == ("paigow", "paigow-igw", 0.05, FORTUNE)
    assert Game("asia").bonus_paytable is SEED_000


@pytest.mark.parametrize("env_id", ["splitpoker/AsiaPokerSetting-v0", "splitpoker/PaiGowPoker-v0",
                                    "splitpoker/AsiaPokerSession-v0"])
def test_policies_read_the_game_of_the_env(env_id):
    kwargs = {"table": {"house_way": "asia-borgata"}} if "Session" in env_id else (
        {"house_way": "asia-borgata", "rules": {"ace_low_straight": "second_highest"}} if "Asia" in env_id
        else {"rules": {"commission": 0.0}})
    env = gym.make(env_id, **kwargs)
    policy = HouseWayPolicy.from_env(env)
    assert policy.game is env.unwrapped.game
    assert policy.game.style.value == ("asia-borgata" if "Asia" in env_id else "paigow-igw")
    assert OptimalPolicy.from_env(env, solver="given").solver == "given"  # never built when given


def test_policy_from_an_env_without_a_game_is_refused():
    env = gym.make("CartPole-v1")
    with pytest.raises(ValueError, match="CartPoleEnv has no game attribute"):
        Policy.from_env(env)
