"""IGW Pai Gow Poker house way (seed 003): one worked hand per rule and per exception, properties,
and no fouls on random and exhaustive slices.

Each case gives the hand, the exact back and front the house way must produce, and the rule name
(``IGW_RULES``). Decisions behind the expected settings: docs/house_ways.md (paigow-igw).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.games.paigow import PaiGowPoker, paigow_is_fouled, paigow_setting_ranks
from splitpoker.envs.rules.house_ways import paigow_igw as hw
from splitpoker.envs.rules.house_ways.batch import house_way_batch, house_way_batch_with_rule
from splitpoker.envs.rules.house_ways.paigow_igw import (
    CLASS_CATEGORY,
    IGW_RULES,
    N_IGW_RULES,
    IgwRule,
    house_way_igw,
    house_way_igw_with_rule,
)
from splitpoker.envs.rules.house_ways.registry import PAIGOW_IGW_ID
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

GAME = PaiGowPoker()


def play(cards, game=GAME):
    h = game.hand(cards)
    s, r = house_way_igw_with_rule(h, game.back_rank, game.back_to_two)
    return game.describe(h, int(s)), IGW_RULES[r]


def check(cards, back, front, rule, game=GAME):
    d, name = play(cards, game)
    assert (set(d.back), set(d.front)) == (set(parse_cards(back)), set(parse_cards(front))), (
        f"{cards}: got {d}, expected back [{back}] front [{front}]"
    )
    assert name == rule
    assert not d.fouled


def case(cards, back, front, rule, id):
    return pytest.param(cards, back, front, rule, id=id)


# ----------------------------------------------------------------------------------------------
# one test per rule and per exception

NO_PAIR = "no pair: second and third highest in front"
ONE_PAIR = "one pair: pair in back, two highest singletons in front"
STRAIGHT = "straight: in back, highest possible front"
FLUSH = "flush: in back, highest possible front"


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Kd 9h 7c 5s 3d 2h", "As 7c 5s 3d 2h", "Kd 9h", NO_PAIR, "rule1"),
    case("JK Kd 9h 7c 5s 3d 2h", "JK 7c 5s 3d 2h", "Kd 9h", NO_PAIR, "rule1-joker-is-the-ace"),
])
def test_rule_1_no_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Kd 9h 9c 5s 3d 2h", "9c 9h 5s 3d 2h", "As Kd", ONE_PAIR, "rule2"),
    case("JK As 9h 7c 5s 3d Kh", "JK As 7c 5s 3d", "Kh 9h", ONE_PAIR, "rule2-joker-pairs-an-ace"),
])
def test_rule_2_one_pair(cards, back, front, rule):
    check(cards, back, front, rule)


def test_rule_3_two_pair_split():
    check("Ks Kd 9h 9c 5s 3d 2h", "Kd Ks 5s 3d 2h", "9c 9h", "two pair: split")


def test_rule_3_two_pair_split_when_no_exception_holds():
    # face pair + 6s (not 5s or lower) + ace: not the third exception
    check("Ks Kd 6h 6c As 3d 2h", "As Kd Ks 3d 2h", "6c 6h", "two pair: split")


def test_rule_3_exception_both_6s_or_lower():
    # no ace needed: the exception as written keeps two low pairs together unconditionally
    check("6s 6d 5h 5c Ks 3d 2h", "6d 6s 5c 5h 2h", "Ks 3d", "two pair: both 6s or lower")


@pytest.mark.parametrize("cards,back,front", [
    ("Ts Td 5h 5c As 3d 2h", "Td Ts 5c 5h 2h", "As 3d"),
    ("Ts Td 5h 5c JK 3d 2h", "Td Ts 5c 5h 2h", "JK 3d"),  # the joker is the ace
])
def test_rule_3_exception_10s_or_lower_and_ace(cards, back, front):
    check(cards, back, front, "two pair: 10s or lower + ace")


def test_rule_3_exception_face_5s_or_lower_and_ace():
    check("Ks Kd 5h 5c As 3d 2h", "Kd Ks 5c 5h 2h", "As 3d", "two pair: face + 5s or lower + ace")


def test_rule_4_three_pairs():
    check("Ks Kd 5h 5c 9s 9d 2h", "9d 9s 5c 5h 2h", "Kd Ks", "three pairs: highest pair in front")


def test_rule_5_three_of_a_kind():
    check("9s 9d 9h 5c As 3d Kh", "9d 9h 9s 5c 3d", "As Kh", "three of a kind: trips in back")


@pytest.mark.parametrize("cards,back,front", [
    ("As Ad Ah 5c 8s 3d Kh", "Ad Ah 8s 5c 3d", "As Kh"),
    ("As Ad JK 5c 8s 3d Kh", "JK Ad 8s 5c 3d", "As Kh"),  # joker = third ace; real ace in front
])
def test_rule_5_split_three_aces(cards, back, front):
    check(cards, back, front, "three of a kind: split three aces")


def test_rule_6_two_sets_of_trips():
    check("9s 9d 9h 5c 5s 5d Kh", "Kh 9d 5c 5d 5s", "9h 9s", "two sets of trips: pair of the higher in front")


@pytest.mark.parametrize("cards,back,front", [
    ("5s 6d 7h 8c 9s 9d Kh", "9d 8c 7h 6d 5s", "Kh 9s"),  # straight + pair: straight stays in back
    ("5s 6d 7h 8c 9s 4d 4h", "9s 8c 7h 6d 5s", "4d 4h"),  # ... and the pair goes in front if it can
    ("5s 5d 5h 6c 7s 8d 9h", "9h 8d 7s 6c 5d", "5h 5s"),  # straight + trips
    ("JK Ks Qd Jh Tc 9s 2d", "Ks Qd Jh Tc 9s", "JK 2d"),  # joker in front as an ace
])
def test_rule_7_straight(cards, back, front):
    check(cards, back, front, STRAIGHT)


@pytest.mark.parametrize("cards,back,front", [
    ("3s 4d 5h 6c 7s Kd 2h", "6c 5h 4d 3s 2h", "Kd 7s"),  # six-card straight
    ("3s 4d 5h 6c 7s 8d 9h", "7s 6c 5h 4d 3s", "9h 8d"),  # seven-card straight
])
def test_rule_7_six_or_seven_card_straight_highest_front(cards, back, front):
    check(cards, back, front, STRAIGHT)


@pytest.mark.parametrize("cards,back,front", [
    ("2h 5h 7h 9h Jh 3d 4s", "Jh 9h 7h 5h 2h", "4s 3d"),
    ("2h 5h 7h 9h Jh Kh Ah", "Jh 9h 7h 5h 2h", "Ah Kh"),  # seven-card flush
    ("2h 5h 7h 9h Jh Js 4s", "Jh 9h 7h 5h 2h", "Js 4s"),  # flush + pair: flush stays in back
])
def test_rule_7_flush(cards, back, front):
    check(cards, back, front, FLUSH)


def test_rule_7_straight_and_flush_straight_leaves_king_high():
    check("2h 3h 4h 9h Kh 5s 6c", "6c 5s 4h 3h 2h", "Kh 9h",
          "straight and flush: straight in back (higher front, king-high or better)")


@pytest.mark.parametrize("cards,back,front", [
    ("2h 3h 4h 9h Qh 5s 6c", "Qh 9h 4h 3h 2h", "6c 5s"),  # straight's front Q-9 is below king-high
    ("2h 5h 7h 9h Jh Ts 8c", "Jh 9h 7h 5h 2h", "Ts 8c"),  # flush leaves the higher front
])
def test_rule_7_straight_and_flush_otherwise_flush(cards, back, front):
    check(cards, back, front, "straight and flush: flush in back")


@pytest.mark.parametrize("cards,back,front", [
    ("As Ad 2h 3c 4d 5s 5h", "Ad As 4d 3c 2h", "5h 5s"),
    ("JK Ks Kd Qh Jc Tc As", "JK As Qh Jc Tc", "Kd Ks"),  # joker pairs the ace, then fills the straight
])
def test_rule_7_play_as_two_pair_aces_and_any_pair(cards, back, front):
    check(cards, back, front, "straight/flush: play as two pair (aces and any other pair)")


def test_rule_7_play_as_two_pair_both_10s_or_higher():
    check("Ts Td Js Jd Qh Kc Ah", "Ah Kc Qh Jd Js", "Td Ts",
          "straight/flush: play as two pair (both pairs 10s or higher)")


def test_rule_7_play_as_two_pair_both_10s_or_lower_and_ace():
    check("As 2d 2h 3c 3s 4d 5h", "4d 3c 3s 2d 2h", "As 5h",
          "straight/flush: play as two pair (both pairs 10s or lower + ace)")


def test_rule_7_two_pair_without_a_condition_keeps_the_straight():
    # J-J and 9-9: neither both 10s or higher nor both 10s or lower
    check("9s 9d Ts Jh Jd Qc Kh", "Kh Qc Jd Ts 9d", "Jh 9s", STRAIGHT)


def test_rule_8_full_house_split():
    check("2s 2d Kh Kc Ks As 3c", "As Kc Kh Ks 3c", "2d 2s", "full house: split")


@pytest.mark.parametrize("cards,back,front", [
    ("2s 2d 7h 7c 7s As Kc", "7c 7h 7s 2d 2s", "As Kc"),
    ("2s 2d 7h 7c 7s JK Kc", "7c 7h 7s 2d 2s", "JK Kc"),
])
def test_rule_8_full_house_deuces_with_ace_king(cards, back, front):
    check(cards, back, front, "full house: pair of 2s with ace and king, keep")


def test_rule_9_full_house_trips_and_two_pairs():
    check("2s 2d Kh Kc Ks Ah Ac", "Kc Kh Ks 2d 2s", "Ac Ah",
          "full house with trips and two pairs: highest pair in front")


@pytest.mark.parametrize("cards,back,front", [
    ("5s 5d 5h 5c As Kd 2h", "5c 5d 5h 5s 2h", "As Kd"),
    ("5s 5d 5h 5c 9s 9d 2h", "5c 5d 5h 5s 2h", "9d 9s"),
])
def test_rule_10_quads_2_to_6_keep(cards, back, front):
    check(cards, back, front, "four of a kind 2-6: keep together")


def test_rule_10_quads_7_to_10_split():
    check("8s 8d 8h 8c Ah 9s 2c", "Ah 9s 8c 8d 2c", "8h 8s", "four of a kind 7-10: split")


@pytest.mark.parametrize("cards,back,front", [
    ("8s 8d 8h 8c Ah Js 2c", "8c 8d 8h 8s 2c", "Ah Js"),
    ("8s 8d 8h 8c 3h 3s 2c", "8c 8d 8h 8s 2c", "3h 3s"),  # any pair is "better"
])
def test_rule_10_quads_7_to_10_keep(cards, back, front):
    check(cards, back, front, "four of a kind 7-10: keep, ace+face or better in front")


def test_rule_10_quads_jacks_to_kings_split():
    check("Ks Kd Kh Kc 9h 9s 2c", "Kc Kd 9h 9s 2c", "Kh Ks", "four of a kind J-K: split")


def test_rule_10_quads_jacks_to_kings_keep():
    check("Ks Kd Kh Kc Th Ts 2c", "Kc Kd Kh Ks 2c", "Th Ts",
          "four of a kind J-K: keep, pair of 10s or better in front")


@pytest.mark.parametrize("cards,back,front", [
    ("As Ad Ah Ac 6h 6s 2c", "Ac Ad 6h 6s 2c", "Ah As"),
    ("JK Ad Ac As Kh Qs 2c", "JK Ac Kh Qs 2c", "Ad As"),  # three aces + joker are four aces
    ("As Ad Ah JK Kc Qd Jh", "JK Ad Kc Qd Jh", "Ah As"),  # joker stays back and makes a straight
])
def test_rule_10_four_aces_split(cards, back, front):
    check(cards, back, front, "four aces: split")


def test_rule_10_four_aces_keep():
    check("As Ad Ah Ac 7h 7s 2c", "Ac Ad Ah As 2c", "7h 7s",
          "four aces: keep, pair of 7s or better in front")


@pytest.mark.parametrize("cards,back,front", [
    ("5h 6h 7h 8h 9h Ac 2c", "9h 8h 7h 6h 5h", "Ac 2c"),
    ("5h 6h 7h 8h 9h Ac Kc", "9h 8h 7h 6h 5h", "Ac Kc"),
])
def test_rule_11_straight_flush_in_back(cards, back, front):
    check(cards, back, front, "straight flush: in back")


def test_rule_11_play_as_two_pair_aces():
    check("Ah 2h 3h 4h 5h As 5s", "Ah As 4h 3h 2h", "5h 5s",
          "straight flush: play as two pair (aces and any other pair)")


def test_rule_11_play_as_two_pair_both_10s_or_higher():
    check("9h Th Jh Qh Kh Ts Js", "Kh Qh Jh Js 9h", "Th Ts",
          "straight flush: play as two pair (both pairs 10s or higher)")


def test_rule_11_play_as_two_pair_both_10s_or_lower_and_ace():
    check("Ah 2h 3h 4h 5h 2s 3s", "4h 3h 3s 2h 2s", "Ah 5h",
          "straight flush: play as two pair (both pairs 10s or lower + ace)")


@pytest.mark.parametrize("cards,back,front", [
    ("Kh Qh Jh Th 9h As 8s", "Qh Jh Th 9h 8s", "As Kh"),  # ace and a face card
    ("Kh Qh Jh Th 9h Ks 8s", "Qh Jh Th 9h 8s", "Kh Ks"),  # a pair
])
def test_rule_11_straight_or_flush_instead(cards, back, front):
    check(cards, back, front, "straight flush: straight or flush instead, ace+face or pair in front")


@pytest.mark.parametrize("cards,back,front", [
    ("Ah Kh Qh Jh Th 3c 2c", "Ah Kh Qh Jh Th", "3c 2c"),
    ("Ah Kh Qh Jh Th 9s Ks", "Ah Kh Qh Jh Th", "Ks 9s"),  # front is already king-high: keep
])
def test_rule_12_royal_flush_in_back(cards, back, front):
    check(cards, back, front, "royal flush: in back")


def test_rule_12_play_as_two_pair_aces():
    check("Ah Kh Qh Jh Th As Ks", "Ah As Qh Jh Th", "Kh Ks",
          "royal flush: play as two pair (aces and any other pair)")


def test_rule_12_play_as_two_pair_both_10s_or_higher():
    check("Ah Kh Qh Jh Th Js Ts", "Ah Kh Qh Jh Js", "Th Ts",
          "royal flush: play as two pair (both pairs 10s or higher)")


@pytest.mark.parametrize("cards,back,front", [
    ("Ah Kh Qh Jh Th 9h 2c", "Kh Qh Jh Th 9h", "Ah 2c"),  # king-high straight flush in back
    ("Ah Kh Qh Jh Th 9s 2c", "Kh Qh Jh Th 9s", "Ah 2c"),  # king-high straight in back
])
def test_rule_12_break_up_royal(cards, back, front):
    check(cards, back, front, "royal flush: break up, straight or straight flush with king or better in front")


def test_rule_13_five_aces_split():
    check("As Ad Ah Ac JK Qh Qs", "JK Ac Ad Qh Qs", "Ah As", "five aces: split")


def test_rule_13_five_aces_keep_with_kings():
    check("As Ad Ah Ac JK Kh Ks", "JK Ac Ad Ah As", "Kh Ks", "five aces: keep, pair of kings in front")


# ----------------------------------------------------------------------------------------------
# precedence: the best five-card hand picks the rule


@pytest.mark.parametrize("cards,back,front,rule", [
    # four aces (joker) and a royal flush (joker): the royal rule
    case("Ah Kh Qh Jh JK As Ad", "JK Ah Kh Qh Jh", "Ad As", "royal flush: in back", "quads+royal"),
    # aces full (joker) and a royal flush (joker): the royal rule, not "aces and any other pair"
    case("Ah As Kh Ks Qh Jh JK", "JK Ah Kh Qh Jh", "As Ks", "royal flush: in back", "fullhouse+royal"),
    # three aces (joker) and a straight: the straight rule
    case("As Ad JK Kc Qd Jh 5c", "JK Ad Kc Qd Jh", "As 5c", STRAIGHT, "trips+straight"),
])
def test_precedence(cards, back, front, rule):
    check(cards, back, front, rule)


def test_fallback_when_the_rule_would_foul():
    # A doctored foul table (every front above 3-2 fouls) forces the documented fallback:
    # the non-fouled setting with the highest front, here 3-2.
    h = GAME.hand("As Kd 9h 7c 5s 3d 2h")
    s, r = house_way_igw_with_rule(h, GAME.back_rank, np.zeros_like(GAME.back_to_two))
    assert r == IgwRule.FALLBACK and IGW_RULES[r] == "fallback"
    assert set(GAME.describe(h, int(s)).front) == set(parse_cards("3d 2h"))


# ----------------------------------------------------------------------------------------------
# tables and names


def test_rule_names_unique_and_fallback_last():
    assert len(IGW_RULES) == N_IGW_RULES == len(set(IGW_RULES))
    assert IGW_RULES[IgwRule.FALLBACK] == "fallback"


@pytest.mark.parametrize("ace_low", ["second_highest", "lowest"])
def test_class_category_matches_table(ace_low):
    table = paigow_back_table(PaiGowRules(ace_low_straight=ace_low))
    assert np.array_equal(CLASS_CATEGORY, table.class_category.astype(np.int64))


def test_wheel_option_changes_nothing_but_ranks():
    game = PaiGowPoker(PaiGowRules(ace_low_straight="lowest"))
    check("As 2d 2h 3c 3s 4d 5h", "4d 3c 3s 2d 2h", "As 5h",
          "straight/flush: play as two pair (both pairs 10s or lower + ace)", game)


# ----------------------------------------------------------------------------------------------
# properties


@given(st.lists(st.integers(0, 52), min_size=7, max_size=7, unique=True))
@settings(max_examples=400, deadline=None)
def test_property_legal_permutation_not_fouled(cards):
    h = GAME.hand(cards)
    s, r = house_way_igw_with_rule(h, GAME.back_rank, GAME.back_to_two)
    assert 0 <= s <= 20 and 0 <= r < N_IGW_RULES and r != IgwRule.FALLBACK
    assert house_way_igw(h, GAME.back_rank, GAME.back_to_two) == s
    d = GAME.describe(h, int(s))
    assert sorted(d.back + d.front) == sorted(cards)
    assert not d.fouled


@njit
def _count_fouls(hands, settings_, back_rank, back_to_two):
    n = 0
    for k in range(hands.shape[0]):
        s = settings_[k]
        if s < 0 or s > 20:
            return -1
        b, f = paigow_setting_ranks(hands[k], s, back_rank)
        if paigow_is_fouled(b, f, back_to_two):
            n += 1
    return n


def random_hands(n, seed):
    rng = np.random.default_rng(seed)
    out = np.empty((n, 7), dtype=np.int64)
    for k in range(0, n, 50_000):
        m = min(50_000, n - k)
        out[k:k + m] = np.sort(rng.random((m, 53)).argsort(axis=1)[:, :7], axis=1)
    return out


def test_random_sample_no_fouls():
    hands = random_hands(300_000, seed=3)
    out = np.empty(len(hands), dtype=np.int64)
    rules = np.empty(len(hands), dtype=np.int64)
    house_way_batch_with_rule(PAIGOW_IGW_ID, hands, GAME.back_rank, GAME.back_to_two, out, rules)
    assert _count_fouls(hands, out, GAME.back_rank, GAME.back_to_two) == 0
    assert not np.any(rules == IgwRule.FALLBACK)
    out2 = np.empty(len(hands), dtype=np.int64)
    house_way_batch(PAIGOW_IGW_ID, hands, GAME.back_rank, GAME.back_to_two, out2)
    assert np.array_equal(out, out2)
    for k in range(0, len(hands), 9973):  # batch == single-hand API
        assert house_way_igw(hands[k], GAME.back_rank, GAME.back_to_two) == out[k]


# ----------------------------------------------------------------------------------------------
# slow: every hand holding the joker, C(52, 6) = 20,358,520


@njit
def _all_joker_hands(back_rank, back_to_two, counts):
    h = np.empty(7, dtype=np.int64)
    h[6] = 52
    fouls = 0
    for a in range(47):
        h[0] = a
        for b in range(a + 1, 48):
            h[1] = b
            for c in range(b + 1, 49):
                h[2] = c
                for d in range(c + 1, 50):
                    h[3] = d
                    for e in range(d + 1, 51):
                        h[4] = e
                        for f in range(e + 1, 52):
                            h[5] = f
                            s, r = house_way_igw_with_rule(h, back_rank, back_to_two)
                            counts[r] += 1
                            bb, ff = paigow_setting_ranks(h, s, back_rank)
                            if paigow_is_fouled(bb, ff, back_to_two):
                                fouls += 1
    return fouls


# per-rule counts over all joker hands (a regression pin from the exhaustive run; order as
# IGW_RULES). Independent checks: four aces + joker + two others = C(48, 2) = 1,128 hands, of
# which C(4, 2) = 6 hold the pair of kings.
JOKER_HAND_COUNTS = [
    1_485_960, 5_594_160, 2_641_896, 216_000, 579_960, 291_600,
    390_960, 450_912, 558_144, 13_728, 4_487_064, 1_184_592,
    214_752, 348_180, 791_136, 22_824, 131_904, 673_728,
    960, 26_928, 5_640, 1_792, 2_720, 2_784,
    600, 61_584, 7_504, 95_900, 11_520, 720,
    5_256, 34_176, 11_032, 6_048, 216, 4_512,
    1_122, 6, 0,
]


@pytest.mark.slow
def test_all_joker_hands_no_fouls():
    counts = np.zeros(N_IGW_RULES, dtype=np.int64)
    fouls = _all_joker_hands(GAME.back_rank, GAME.back_to_two, counts)
    assert fouls == 0
    assert counts.sum() == 20_358_520
    assert counts[IgwRule.FALLBACK] == 0
    five_aces = IGW_RULES.index("five aces: split"), IGW_RULES.index("five aces: keep, pair of kings in front")
    assert (counts[five_aces[0]] + counts[five_aces[1]], counts[five_aces[1]]) == (1_128, 6)
    assert counts.tolist() == JOKER_HAND_COUNTS


SEED_EN = Path(__file__).resolve().parents[1] / "docs" / "seeds" / "003_d88cd9e8f268a7c8.en.md"


@pytest.mark.parametrize("fn", [
    hw.rule_no_pair, hw.rule_one_pair, hw.rule_two_pair, hw.rule_three_pairs,
    hw.rule_three_of_a_kind, hw.rule_two_trips, hw.rule_straight_or_flush, hw.rule_full_house,
    hw.rule_full_house_two_pairs, hw.rule_four_of_a_kind, hw.rule_straight_flush,
    hw.rule_royal_flush, hw.rule_five_aces, hw._play_as_two_pair_reason,
], ids=lambda f: f.__name__)
def test_docstrings_quote_the_seed_verbatim(fn):
    """Every quoted seed sentence (docstring text before the first blank line, split at "[...]"
    and at rule numbers) appears word for word in the English rendering."""
    seed = " ".join(SEED_EN.read_text().split())
    quote = fn.__doc__.split("\n\n")[0]
    for part in re.split(r"\[\.\.\.\]|\s(?=\d+\.\s)", " ".join(quote.split())):
        part = re.sub(r"^\d+\.\s*", "", part.strip())
        if part:
            assert part in seed, f"{fn.__name__}: {part!r} is not in the seed"
