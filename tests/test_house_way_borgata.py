"""The Borgata Asia Poker house way (seed 002) against hand-worked settings.

* One case per rule and per exception/branch (``BORGATA_RULES``), each a concrete hand with the
  exact three hands written out by hand from the seed sentence and docs/house_ways.md (asia-borgata).
* Both worked examples of the seed, verbatim (example 2 under several suit assignments).
* Properties: any seven cards give a legal, non-fouled setting that uses exactly those cards
  (hypothesis); a seeded sample of 300,000 hands has zero fouls and zero fallbacks.
* Slow: every hand that holds the joker (C(52, 6) = 20,358,520), rule counts pinned.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit, prange

from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.games.asia import AsiaPoker, asia_is_fouled, asia_setting_ranks
from splitpoker.envs.rules.house_ways.asia_borgata import (
    BORGATA_RULES,
    BorgataRule,
    house_way_borgata,
    house_way_borgata_with_rule,
)
from splitpoker.envs.rules.house_ways.batch import house_way_batch, house_way_batch_with_rule
from splitpoker.envs.rules.house_ways.registry import ASIA_BORGATA_ID
from splitpoker.envs.rules.house_ways.straights import SF_FLUSH, SF_STRAIGHT, SF_TABLE
from splitpoker.envs.rules.options import AsiaRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.rank_tables import asia_high_table

GAME = AsiaPoker()
R = BorgataRule


def play(text: str):
    hand = GAME.hand(text)
    s, rule = house_way_borgata_with_rule(hand, GAME.high_rank, GAME.high_to_two)
    return GAME.describe(hand, int(s)), BorgataRule(int(rule))


def assert_setting(text: str, high: str, medium: str, low: str, rule: BorgataRule):
    got, got_rule = play(text)
    assert (set(got.high), set(got.medium), set(got.low)) == (
        set(parse_cards(high)), set(parse_cards(medium)), set(parse_cards(low))
    ), f"{text}: got {got}"
    assert got_rule == rule, f"{text}: rule {BORGATA_RULES[got_rule]!r}, expected {BORGATA_RULES[rule]!r}"
    assert not got.fouled


# (hand, high, medium, low, rule); cards listed high to low.
CASES = [
    # NO PAIR: 1st high, 2nd medium, 3rd low, 4th medium, rest high
    ("As Kh 9c 7h 5s 3d 2c", "As 5s 3d 2c", "Kh 7h", "9c", R.NO_PAIR),
    # ONE PAIR: pair high, 1st and 3rd single medium, 2nd low
    ("Ks Th 8c 8d 6c 4d 2s", "8c 8d 4d 2s", "Ks 6c", "Th", R.ONE_PAIR),
    # high pair, no other high card: split high/medium; highest single high, 2nd low, 3rd medium
    ("Qc Qs Ts 7d 6h 4s 2d", "Qs Ts 4s 2d", "Qc 6h", "7d", R.ONE_PAIR_SPLIT_HIGH_PAIR),
    # high pair, one other high card (above the pair)
    ("As Jc Js 9c 6s 4h 2d", "Js As 4h 2d", "Jc 6s", "9c", R.ONE_PAIR_SPLIT_HIGH_PAIR),
    # high pair with two other high cards: the ONE PAIR rule
    ("Ad Ks Jd Jh Tc 8s 3s", "Jd Jh 8s 3s", "Ad Tc", "Ks", R.ONE_PAIR_HIGH_PAIR_KEPT),
    # TWO PAIRS: higher pair high, lower pair medium, highest single low
    ("Tc Td 9s 6c 6s 5d 3h", "Tc Td 5d 3h", "6c 6s", "9s", R.TWO_PAIRS),
    # kings and another pair, no other high card: kings split medium/low
    ("Kd Kh Tc 8h 8s 6d 5d", "8h 8s 6d 5d", "Kh Tc", "Kd", R.TWO_PAIRS_SPLIT_ACES_KINGS),
    # aces and another pair with another high card: don't split (aces high, pair medium)
    ("Ad Ah Js 6s 5d 5s 2d", "Ad Ah 6s 2d", "5d 5s", "Js", R.TWO_PAIRS_ACES_KINGS_HIGH_CARD),
    # THREE PAIRS: highest pair medium, two pairs high
    ("Qc Qh 9s 9h 5d 5h 2c", "9s 9h 5d 5h", "Qc Qh", "2c", R.THREE_PAIRS),
    # with aces: one ace medium (with the singleton), one low
    ("Ad As 9c 9h 5d 2c 2d", "9c 9h 2c 2d", "As 5d", "Ad", R.THREE_PAIRS_SPLIT_ACES_KINGS),
    # with kings and a high singleton: kings together in medium
    ("Kh Ks Js 7c 7h 6c 6s", "7c 7h 6c 6s", "Kh Ks", "Js", R.THREE_PAIRS_ACES_KINGS_HIGH_CARD),
    # three high pairs: 2nd pair + one ace high, lowest pair medium, one ace low
    ("Ac Ah Qc Qd Jc Jh 5d", "Ah Qc Qd 5d", "Jc Jh", "Ac", R.THREE_PAIRS_HIGH_PAIRS),
    # three high pairs and a high singleton: singleton low, two top pairs high
    ("Ac As Kd Ks Qd Qs Jh", "Ac As Kd Ks", "Qd Qs", "Jh", R.THREE_PAIRS_HIGH_PAIRS_HIGH_CARD),
    # THREE OF A KIND: trips high, 1st and 3rd single medium, 2nd low
    ("Ad Kd Th 9c 5c 5d 5s", "5c 5d 5s 9c", "Ad Th", "Kd", R.TRIPS),
    # three aces, no high card: one in each hand
    ("Ad Ah As Ts 9d 3c 2h", "As Ts 3c 2h", "Ah 9d", "Ad", R.TRIPS_AKQ_SPLIT),
    # three queens with one high card: pair high, the rest as ONE PAIR (A Q 6 5 3)
    ("As Qc Qd Qs 6d 5h 3h", "Qs Qd 5h 3h", "As 6d", "Qc", R.TRIPS_AKQ_HIGH_CARDS),
    # three jacks with one high card: a jack low, two highest singles medium
    ("Qd Jc Jh Js 9h 6h 2c", "Jh Js 6h 2c", "Qd 9h", "Jc", R.TRIPS_JACKS_ONE_HIGH),
    # three jacks, no high card: pair high, jack + 2nd single medium, highest single low
    ("Jc Jd Jh 9s 7d 3s 2h", "Jd Jh 3s 2h", "Jc 7d", "9s", R.TRIPS_JACKS_NO_HIGH),
    # THREE OF A KIND TWICE
    ("Qd Qh Qs 6d 6h 6s 2c", "6d 6h 6s 2c", "Qh Qs", "Qd", R.TRIPS_TWICE),
    # straight, no pair: straight high, other three highest+lowest medium, middle low
    ("Ac Ts 9c 8d 7d 5h 2d", "Ts 9c 8d 7d", "Ac 2d", "5h", R.SF_NO_PAIR),
    # straight with 4 high cards: NO PAIR rule
    ("As Ks Qd Jc 9d 7c 6h", "As 9d 7c 6h", "Ks Jc", "Qd", R.SF_NO_PAIR_TOO_HIGH),
    # pair inside a flush, two high cards outside: flush high
    ("Qs Jc 9h 8h 6h 6c 2h", "9h 8h 6h 2h", "Qs 6c", "Jc", R.SF_PAIR_INSIDE),
    # pair of eights outside a straight: straight high, pair medium
    ("Ad 8c 8s 6d 5c 4s 3h", "6d 5c 4s 3h", "8c 8s", "Ad", R.SF_IN_ADDITION),
    # three kings outside a straight: straight high, two kings medium, one low
    ("Kc Kd Kh 8s 7d 6c 5h", "8s 7d 6c 5h", "Kh Kd", "Kc", R.SF_IN_ADDITION),
    # pair of aces outside a straight flush: split the aces
    ("Ad As Kc Qc Jc Tc 6h", "Kc Qc Jc Tc", "As 6h", "Ad", R.SF_ACES_IN_ADDITION),
    # straight 8-J and flush K-J-T-5 of hearts: the straight leaves the better medium (K 5)
    ("Kh Jh Th 9c 8s 6s 5h", "Jh Th 9c 8s", "Kh 5h", "6s", R.SF_BOTH),
    # FULL HOUSE: trips high, pair medium, higher single low
    ("Tc Ts 9c 9d 9h 6c 4s", "9c 9d 9h 4s", "Tc Ts", "6c", R.FULL_HOUSE),
    # three kings and jacks: pair of kings high, jacks medium, king low
    ("Kc Kd Kh Jc Jh 4c 3d", "Kh Kd 4c 3d", "Jc Jh", "Kc", R.FULL_HOUSE_AKQ_TRIPS),
    # three tens and aces: aces split medium (with the higher single) and low
    ("Ac Ad Qh Tc Th Ts 4d", "Tc Th Ts 4d", "Ad Qh", "Ac", R.FULL_HOUSE_ACES_KINGS_PAIR),
    # three kings and aces: the K exception would foul (aces over kings): the aces split
    ("Ac Ad Kc Kh Ks 7d 3s", "Kc Kh Ks 3s", "Ad 7d", "Ac", R.FULL_HOUSE_ACES_KINGS_PAIR),
    # FULL HOUSE WITH A PAIR: trips + one of the high pair high, low pair medium
    ("9c 9d 9s 8c 8h 4c 4s", "9c 9d 9s 8h", "4c 4s", "8c", R.FULL_HOUSE_PAIR),
    # high trips with two low pairs: pairs high, trips split medium/low
    ("Qd Qh Qs 6c 6h 5c 5s", "6c 6h 5c 5s", "Qh Qs", "Qd", R.FULL_HOUSE_PAIR_HIGH_TRIPS),
    # FOUR OF A KIND: pair high, pair medium, highest single low
    ("Tc Td Th Ts 9c 7h 3h", "Ts Th 7h 3h", "Tc Td", "9c", R.QUADS),
    # low quads with ace and king: quads high
    ("Ah Kc 5c 5d 5h 5s 2s", "5c 5d 5h 5s", "Ah 2s", "Kc", R.QUADS_LOW_WITH_ACE),
    # four kings, no other high card: pair high, one medium (with the highest single), one low
    ("Kc Kd Kh Ks Tc 3c 2s", "Ks Kh 3c 2s", "Kd Tc", "Kc", R.QUADS_ACES_KINGS),
    # four aces with a king: pair high, pair medium
    ("Ac Ad Ah As Kh 7s 5s", "As Ah 7s 5s", "Ac Ad", "Kh", R.QUADS_ACES_KINGS_HIGH_CARD),
    # FOUR OF A KIND WITH A PAIR
    ("Ks 7d 7h 2c 2d 2h 2s", "2c 2d 2h 2s", "7d 7h", "Ks", R.QUADS_PAIR),
    ("Kc Kd Kh Ks 8d 8h 3s", "Kd Kh Ks 3s", "8d 8h", "Kc", R.QUADS_PAIR_ACES_KINGS),
    # FOUR OF A KIND WITH THREE OF A KIND
    ("Jc Jd Jh Js 7c 7d 7s", "Jc Jd Jh Js", "7d 7s", "7c", R.QUADS_TRIPS),
    ("Ac Ad Ah As 7d 7h 7s", "As 7d 7h 7s", "Ah Ad", "Ac", R.QUADS_TRIPS_AKQ),
    # FIVE ACES
    ("JK Ac Ad Ah As Td 8s", "As Ah Td 8s", "Ad Ac", "JK", R.FIVE_ACES),
]


@pytest.mark.parametrize("text,high,medium,low,rule", CASES, ids=[f"{c[4].name}:{c[0]}" for c in CASES])
def test_rule(text, high, medium, low, rule):
    assert_setting(text, high, medium, low, rule)


def test_every_rule_but_fallback_has_a_case():
    assert {c[4] for c in CASES} | {R.SF_PAIR_INSIDE_PAIR_HIGH, R.FALLBACK} == set(BorgataRule)


def test_rule_names():
    assert len(BORGATA_RULES) == len(BorgataRule)
    assert BORGATA_RULES[R.FALLBACK] == "fallback"
    assert len(set(BORGATA_RULES)) == len(BORGATA_RULES)


# -- the seed's worked examples ----------------------------------------------------------------


def test_worked_example_1():
    """"Q, 10, 8, 3 hearts, K, 5 diamonds, 10 Clubs - play Q, 1O, 8, 3 hearts in high hand, the
    K, 5 in the medium hand, the 10 Clubs in low hand." """
    assert_setting("Qh Th 8h 3h Kd 5d Tc", "Qh Th 8h 3h", "Kd 5d", "Tc", R.SF_PAIR_INSIDE)


@pytest.mark.parametrize("suits", ["shdcdc", "hscdcs", "dcshhd", "cdhssh"])
def test_worked_example_2(suits):
    """"5, 6, 7, Joker, 2, 6, J .- play the pair of 6's in the high hand, Joker, 7 in medium hand
    and J in low hand." Suits free, no three real cards of one suit (the joker would flush)."""
    five, six_a, seven, two, six_b, jack = (r + s for r, s in zip("56726J", suits, strict=True))
    hand = f"{five} {six_a} {seven} JK {two} {six_b} {jack}"
    assert_setting(hand, f"{six_a} {six_b} {five} {two}", f"JK {seven}", jack, R.SF_PAIR_INSIDE_PAIR_HIGH)


# -- decisions (docs/house_ways.md (asia-borgata)) -----------------------------------------------


def test_joker_pairs_an_ace():
    # D1: joker + ace = a pair of aces; one other high card (Q) -> split high/medium
    assert_setting("JK Ad Qs 9h 7c 5d 3h", "Ad Qs 5d 3h", "JK 7c", "9h", R.ONE_PAIR_SPLIT_HIGH_PAIR)


def test_joker_completes_straight_and_best_of_two_straights():
    # 5-6-7-JK and 6-7-JK-9 are both straights: 5-6-7-JK leaves K 9 / Q (better than K 5 / Q)
    assert_setting("JK Kd Qs 9h 7c 6d 5h", "JK 7c 6d 5h", "Kd 9h", "Qs", R.SF_NO_PAIR)


def test_joker_counts_as_the_card_it_stands_for_in_a_straight():
    # D1: 9-JK(10)-J-Q has two high cards, not three: the straight is played
    assert_setting("JK Qs Jd 9c 6h 4d 2c", "JK Qs Jd 9c", "6h 2c", "4d", R.SF_NO_PAIR)


def test_joker_completes_flush():
    assert_setting("JK Kh 9h 5h Qc 7d 2s", "JK Kh 9h 5h", "Qc 2s", "7d", R.SF_NO_PAIR)


def test_equal_rank_choice_makes_the_best_high_hand():
    # D2: the pair of aces in the high hand is the joker and the ace of spades: a spade flush
    assert_setting("JK Ah As Js Ts 5c 5h", "JK As Js Ts", "5c 5h", "Ah", R.FULL_HOUSE_AKQ_TRIPS)


def test_trips_sharing_a_card_with_a_flush_use_the_three_of_a_kind_rule():
    # D11: Jd is in the flush Q-J-6-5 of diamonds, so the jacks are not "in addition"
    assert_setting("Ah Qd Jd Jh Js 6d 5d", "Jd Jh Js 5d", "Ah 6d", "Qd", R.TRIPS)


def test_two_pairs_inside_a_straight_use_the_two_pair_rule():
    # straight 6-7-8-9 holds one card of each pair: TWO PAIRS (split) applies
    assert_setting("Kc 9s 9h 8d 7c 7s 6h", "9s 9h 8d 6h", "7c 7s", "Kc", R.TWO_PAIRS)


@pytest.mark.parametrize("flush_beats_straight", [True, False])
@pytest.mark.parametrize("ace_low", ["lowest", "second_highest"])
def test_straight_flush_table_agrees_with_rank_table(flush_beats_straight, ace_low):
    """D1: SF_TABLE marks exactly the four-card straights, flushes and straight flushes, under
    every ranking option."""
    cat = asia_high_table(AsiaRules(flush_beats_straight=flush_beats_straight, ace_low_straight=ace_low)).category
    sf = SF_TABLE >= 0
    assert np.array_equal(sf, np.isin(cat, [HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH]))
    assert np.array_equal(sf & (SF_TABLE & SF_STRAIGHT > 0), np.isin(cat, [HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH]))
    assert np.array_equal(sf & (SF_TABLE & SF_FLUSH > 0), np.isin(cat, [HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH]))


def test_api_agrees():
    hand = GAME.hand("Qh Th 8h 3h Kd 5d Tc")
    s, _ = house_way_borgata_with_rule(hand, GAME.high_rank, GAME.high_to_two)
    assert house_way_borgata(hand, GAME.high_rank, GAME.high_to_two) == s
    out = np.empty(1, dtype=np.int64)
    house_way_batch(ASIA_BORGATA_ID, hand[None, :], GAME.high_rank, GAME.high_to_two, out)
    assert out[0] == s


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 52), min_size=7, max_size=7, unique=True))
def test_any_hand_gives_a_legal_setting(cards):
    hand = GAME.hand(cards)
    s, rule = house_way_borgata_with_rule(hand, GAME.high_rank, GAME.high_to_two)
    assert 0 <= s < 105 and 0 <= rule < len(BORGATA_RULES)
    d = GAME.describe(hand, int(s))
    assert not d.fouled
    assert sorted(d.high + d.medium + d.low) == sorted(cards)


@njit(cache=True)
def _count_fouls(hands, out, high_rank, high_to_two):
    n = 0
    for i in range(hands.shape[0]):
        hr, mr, lr = asia_setting_ranks(hands[i], out[i], high_rank)
        if asia_is_fouled(hr, mr, lr, high_to_two):
            n += 1
    return n


def _random_hands(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(np.argsort(rng.random((n, 53)), axis=1)[:, :7], axis=1).astype(np.int64)


def test_random_sample_never_fouls():
    hands = _random_hands(300_000, seed=2006)
    out = np.empty(len(hands), dtype=np.int64)
    rules = np.empty(len(hands), dtype=np.int64)
    house_way_batch_with_rule(ASIA_BORGATA_ID, hands, GAME.high_rank, GAME.high_to_two, out, rules)
    assert out.min() >= 0 and out.max() < 105
    assert _count_fouls(hands, out, GAME.high_rank, GAME.high_to_two) == 0
    assert np.count_nonzero(rules == R.FALLBACK) == 0
    # every rule shows up in a sample this size, but the fallback and the three rarest (< 1 hand
    # in 100,000: four of a kind with three of a kind, five aces)
    rare = {R.QUADS_TRIPS, R.QUADS_TRIPS_AKQ, R.FIVE_ACES, R.FALLBACK}
    assert set(np.unique(rules).tolist()) >= {int(m) for m in BorgataRule} - {int(m) for m in rare}


# -- slow: every hand holding the joker --------------------------------------------------------


@njit(parallel=True)
def _joker_hands(high_rank, high_to_two, n_rules):
    counts = np.zeros((47, n_rules), dtype=np.int64)
    fouls = np.zeros(47, dtype=np.int64)
    for a in prange(47):
        hand = np.empty(7, dtype=np.int64)
        hand[6] = 52
        hand[0] = a
        for b in range(a + 1, 48):
            hand[1] = b
            for c in range(b + 1, 49):
                hand[2] = c
                for d in range(c + 1, 50):
                    hand[3] = d
                    for e in range(d + 1, 51):
                        hand[4] = e
                        for f in range(e + 1, 52):
                            hand[5] = f
                            s, rule = house_way_borgata_with_rule(hand, high_rank, high_to_two)
                            counts[a, rule] += 1
                            hr, mr, lr = asia_setting_ranks(hand, s, high_rank)
                            if asia_is_fouled(hr, mr, lr, high_to_two):
                                fouls[a] += 1
    return counts.sum(axis=0), fouls.sum()


# Rule counts over the 20,358,520 joker hands (regression pin; the exhaustive run over all
# C(53, 7) hands is reported in docs/house_ways.md (asia-borgata)).
JOKER_SLICE_COUNTS = {
    R.NO_PAIR: 72_000,
    R.ONE_PAIR: 472_464,
    R.ONE_PAIR_SPLIT_HIGH_PAIR: 140_544,
    R.ONE_PAIR_HIGH_PAIR_KEPT: 119_952,
    R.TWO_PAIRS: 888_732,
    R.TWO_PAIRS_SPLIT_ACES_KINGS: 561_816,
    R.TWO_PAIRS_ACES_KINGS_HIGH_CARD: 1_233_720,
    R.THREE_PAIRS: 35_640,
    R.THREE_PAIRS_SPLIT_ACES_KINGS: 269_568,
    R.THREE_PAIRS_ACES_KINGS_HIGH_CARD: 104_976,
    R.THREE_PAIRS_HIGH_PAIRS: 15_552,
    R.THREE_PAIRS_HIGH_PAIRS_HIGH_CARD: 1_944,
    R.TRIPS: 347_136,
    R.TRIPS_AKQ_SPLIT: 181_440,
    R.TRIPS_AKQ_HIGH_CARDS: 605_376,
    R.TRIPS_JACKS_ONE_HIGH: 15_600,
    R.TRIPS_JACKS_NO_HIGH: 0,
    R.TRIPS_TWICE: 13_728,
    R.SF_NO_PAIR: 1_598_208,
    R.SF_NO_PAIR_TOO_HIGH: 179_292,
    R.SF_PAIR_INSIDE: 2_242_716,
    R.SF_PAIR_INSIDE_PAIR_HIGH: 1_666_596,
    R.SF_IN_ADDITION: 4_679_544,
    R.SF_ACES_IN_ADDITION: 434_816,
    R.SF_BOTH: 3_690_544,
    R.FULL_HOUSE: 96_000,
    R.FULL_HOUSE_AKQ_TRIPS: 400_320,
    R.FULL_HOUSE_ACES_KINGS_PAIR: 179_520,
    R.FULL_HOUSE_PAIR: 19_152,
    R.FULL_HOUSE_PAIR_HIGH_TRIPS: 7_776,
    R.QUADS: 7_520,
    R.QUADS_LOW_WITH_ACE: 2_160,
    R.QUADS_ACES_KINGS: 21_504,
    R.QUADS_ACES_KINGS_HIGH_CARD: 35_696,
    R.QUADS_PAIR: 2_662,
    R.QUADS_PAIR_ACES_KINGS: 12_914,
    R.QUADS_TRIPS: 60,
    R.QUADS_TRIPS_AKQ: 204,
    R.FIVE_ACES: 1_128,
    R.FALLBACK: 0,
}


@pytest.mark.slow
def test_every_joker_hand_never_fouls():
    counts, fouls = _joker_hands(GAME.high_rank, GAME.high_to_two, len(BORGATA_RULES))
    assert counts.sum() == 20_358_520  # C(52, 6)
    assert fouls == 0
    assert counts[R.FALLBACK] == 0
    assert counts[R.FIVE_ACES] == 1_128  # C(48, 2): four aces, the joker and any two others
    assert {m: int(counts[m]) for m in BorgataRule} == JOKER_SLICE_COUNTS
