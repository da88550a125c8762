"""What the three house-way styles share (envs/rules/house_ways/common.py, house_way_rule_ids.py,
house_way_straights.py): rule ids, the grouping of cards, the straight/flush pre-check, the
two-card value. Pinned to hand-worked examples and to brute force over the rank tables."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from splitpoker.envs.rules.cards import JOKER, Rank, parse_cards
from splitpoker.envs.rules.house_ways.asia_000 import ASIA_000_RULE_TABLE, Asia000Rule
from splitpoker.envs.rules.house_ways.asia_borgata import BORGATA_RULE_TABLE, BorgataRule
from splitpoker.envs.rules.house_ways.common import (
    ACE,
    JACK,
    SCRATCH_SIZE,
    SIX,
    TWO,
    group_hand,
    may_make_straight_or_flush,
)
from splitpoker.envs.rules.house_ways.paigow_igw import IGW_RULE_TABLE, IgwRule
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle
from splitpoker.envs.rules.house_ways.rule_ids import rule_ids
from splitpoker.envs.rules.house_ways.straights import SF_TABLE
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import colex4, colex5
from splitpoker.envs.rules.ranking.hand_eval import two_card_value, two_rank_value
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table


def test_rank_names_come_from_the_one_rank():
    assert (TWO, SIX, JACK, ACE) == (Rank.TWO, Rank.SIX, Rank.JACK, Rank.ACE) == (0, 4, 9, 12)


@pytest.mark.parametrize("enum,table,style", [
    (Asia000Rule, ASIA_000_RULE_TABLE, HouseWayStyle.ASIA_000),
    (BorgataRule, BORGATA_RULE_TABLE, HouseWayStyle.ASIA_BORGATA),
    (IgwRule, IGW_RULE_TABLE, HouseWayStyle.PAIGOW_IGW),
])
def test_one_rule_id_idiom_for_every_style(enum, table, style):
    assert [m.name for m in enum] == [name for name, _ in table]
    assert [int(m) for m in enum] == list(range(len(table)))
    assert enum(len(table) - 1).name == "FALLBACK"
    assert style.rule_names == tuple(text for _, text in table)
    assert len(set(style.rule_names)) == len(table)


def test_rule_table_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"rule table of X: expected unique names ending in FALLBACK.*'A', 'A'"):
        rule_ids("X", (("A", "a"), ("A", "b"), ("FALLBACK", "f")), __name__)
    with pytest.raises(ValueError, match="ending in FALLBACK"):
        rule_ids("X", (("A", "a"),), __name__)


def _groups(text: str):
    hand = np.array(sorted(parse_cards(text)), dtype=np.int64)
    rk, gr, gs, gc = (np.full(SCRATCH_SIZE, -9, dtype=np.int64) for _ in range(4))
    n = group_hand(hand, rk, gr, gs, gc)
    return n, rk[:7].tolist(), list(zip(gr[:n].tolist(), gs[:n].tolist(), gc[:n].tolist(), strict=True)), gc[n:7].tolist()


def test_group_hand_worked_example():
    # sorted: 4d(10) 5s(12) 6h(17) 6c(19) Jd(38) Ad(50) JK(52); the joker is an ace
    n, rk, groups, rest = _groups("Ad 4d JK 6c 5s Jd 6h")
    assert n == 5
    assert rk == [2, 3, 4, 4, 9, 12, 12]
    assert groups == [(12, 5, 2), (4, 2, 2), (9, 4, 1), (3, 1, 1), (2, 0, 1)]  # by size, then rank
    assert rest == [0, 0]


def test_group_hand_orders_trips_before_a_higher_pair():
    # 2s 2h 2d Ks Kh 9c 3c: trips of deuces, pair of kings, singles 9 and 3
    n, _, groups, rest = _groups("2s 2h 2d Ks Kh 9c 3c")
    assert n == 4 and rest == [0, 0, 0]
    assert groups == [(0, 0, 3), (11, 5, 2), (7, 4, 1), (1, 3, 1)]


def _brute_force_4(hand) -> bool:
    return any(SF_TABLE[colex4(*four)] >= 0 for four in combinations(hand.tolist(), 4))


_FIVE_CAT = paigow_back_table().category
_STRAIGHT_OR_FLUSH = {HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH}


def _brute_force_5(hand) -> bool:
    return any(int(_FIVE_CAT[colex5(*five)]) in _STRAIGHT_OR_FLUSH for five in combinations(hand.tolist(), 5))


def _sample_hands(n: int, seed: int) -> np.ndarray:
    """``n`` random sorted hands, then ``n`` more that hold the joker."""
    rng = np.random.default_rng(seed)
    plain = np.sort(np.argsort(rng.random((n, 53)), axis=1)[:, :7], axis=1)
    six = np.sort(np.argsort(rng.random((n, 52)), axis=1)[:, :6], axis=1)
    return np.vstack([plain, np.hstack([six, np.full((n, 1), JOKER)])]).astype(np.int64)


@pytest.mark.parametrize("n_cards,brute", [(4, _brute_force_4), (5, _brute_force_5)], ids=["four", "five"])
def test_pre_check_is_exact_against_brute_force(n_cards, brute):
    """True iff some ``n_cards`` of the seven make a straight, flush or straight flush (the
    four-card table and the five-card rank table decide), joker included."""
    hands = _sample_hands(3000, seed=11)
    got = [bool(may_make_straight_or_flush(h, n_cards)) for h in hands]
    want = [brute(h) for h in hands]
    assert got == want
    assert 0.05 < np.mean(want) < 0.95  # the sample holds both kinds


def test_pre_check_worked_examples():
    def check(text, n):
        return bool(may_make_straight_or_flush(np.array(sorted(parse_cards(text)), dtype=np.int64), n))

    assert check("As 2d 3c 4h 9s Tc Kd", 4)  # A-2-3-4, the ace low
    assert not check("As 2d 3c 4h 9s Tc Kd", 5)  # no fifth card for the wheel
    assert check("As 2d 3c JK 9s Tc Kd", 4)  # the joker fills A-2-3-(4)
    assert check("2h 7h 9h Kh 3s 4d 5c", 4) and not check("2h 7h 9h Kh 3s 4d 5c", 5)  # four hearts
    assert check("2h 7h 9h Kh JK 4d 5c", 5)  # four hearts and the joker
    assert not check("2s 2h 7d 7c Jh Js Kd", 4)


def test_two_rank_value_is_the_two_card_value():
    assert two_rank_value(Rank.KING, Rank.TWO) == 11 * 10 // 2 + 0 == 55  # K-2, lowest king-high
    assert two_rank_value(Rank.JACK, Rank.ACE) == 12 * 11 // 2 + 9 == 75  # A-J
    assert two_rank_value(Rank.TWO, Rank.TWO) == 78 and two_rank_value(Rank.ACE, Rank.ACE) == 90
    for a, b in combinations(range(53), 2):
        ra = ACE if a == JOKER else a >> 2
        rb = ACE if b == JOKER else b >> 2
        assert two_rank_value(ra, rb) == two_card_value(a, b)


def test_the_registry_dispatches_every_style_to_its_own_module():
    """``house_way_with_rule`` (and the scratch-taking ``house_way_with_rule_into``) is an if-chain on
    the style id whose last line is IGW: a registered style without its branch would be played as
    IGW, silently. Every style is compared here with its own module's entry point, on 600 random
    hands (every other with the joker); a style missing from ``OWN`` fails the test by name."""
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.rules.house_ways import asia_000, asia_borgata, paigow_foxwoods, paigow_igw
    from splitpoker.envs.rules.house_ways.batch import random_hands
    from splitpoker.envs.rules.house_ways.registry import (
        house_way_with_rule,
        house_way_with_rule_into,
        new_work_block,
    )

    OWN = {
        HouseWayStyle.ASIA_000: asia_000.house_way_asia_000_with_rule,
        HouseWayStyle.ASIA_BORGATA: asia_borgata.house_way_borgata_with_rule,
        HouseWayStyle.PAIGOW_IGW: paigow_igw.house_way_igw_with_rule,
        HouseWayStyle.PAIGOW_FOXWOODS: lambda h, r, t: paigow_foxwoods.house_way_foxwoods_with_rule(h, r, t, 0),
        HouseWayStyle.PAIGOW_FOXWOODS_SPLIT_QUADS: lambda h, r, t: paigow_foxwoods.house_way_foxwoods_with_rule(
            h, r, t, paigow_foxwoods.SPLIT_QUADS),
    }
    assert set(OWN) == set(HouseWayStyle), f"no module entry point named here for {set(HouseWayStyle) - set(OWN)}"
    hands = np.empty((600, 7), dtype=np.int64)
    random_hands(11, hands.shape[0], hands)
    hands[::2, 6] = JOKER
    work = new_work_block()
    differs = {}
    for style, own in OWN.items():
        game = Game(style.game, style.value)
        n = 0
        for hand in hands:
            if len(set(hand.tolist())) < 7:
                continue
            hand = np.sort(hand)
            expected = tuple(int(x) for x in own(hand, game.rank_table, game.to_two))
            assert tuple(int(x) for x in house_way_with_rule(style.style_id, hand, game.rank_table, game.to_two)) \
                == expected, (style, hand)
            assert tuple(int(x) for x in house_way_with_rule_into(style.style_id, hand, game.rank_table, game.to_two,
                                                                   work)) == expected, (style, hand)
            n += expected[0] != paigow_igw.house_way_igw_with_rule(hand, game.rank_table, game.to_two)[0] \
                if style.game == "paigow" else 0
        differs[style] = n
    # the check has teeth: each Foxwoods reading sets some of these hands otherwise than IGW would
    assert differs[HouseWayStyle.PAIGOW_FOXWOODS] > 0 and differs[HouseWayStyle.PAIGOW_FOXWOODS_SPLIT_QUADS] > 0
