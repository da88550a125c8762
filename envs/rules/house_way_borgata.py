"""The Borgata Asia Poker house way (seed 002, "REVISED 11/3/06") as numba kernels.

Input: a hand as a sorted ``int64[7]`` (card = rank*4 + suit, joker 52 last); output: an Asia
setting index 0..104 (:mod:`envs.rules.asia`) and the id of the rule that chose it
(``BORGATA_RULES[id]`` names it). Cards of one rank sit next to each other in the sorted hand
(the joker, 52, right after the aces), so a rank group is a run of positions::

    positions   0    1    2    3    4    5    6        hand sorted ascending by card integer
    e.g.        4d   5s   6h   6c   7s   Jd   JK       ranks ascending; the joker counts as an ace
    groups     [4] [5]  [6 6]      [7]  [J]  [A]       singles / pairs / trips as runs

Classes (seed 002: "2-6=Low 7-1O=Medium J,Q,K,A=High"); the joker counts as an ace when the hand
is classified (it can pair an ace), and as the card it stands for inside a four-card straight or
flush (docs/house_ways.md (asia-borgata), D1). Every rule below is a small function returning the
positions ``(low, medium_a, medium_b)``; the high hand is the other four cards. Equal-rank cards
are dealt lowest card integer first, to the high hand first, then medium, then low; afterwards
:func:`best_high_among_equal_ranks` swaps a high card for an equal-rank card of the medium/low
hand when that makes a better high hand (a flush or joker straight); medium and low values only
depend on ranks, so they never change (D2). A setting that would still be fouled is replaced by
:func:`envs.rules.house_way_common.asia_best_unfouled` under rule id ``FALLBACK`` (the exhaustive
check over all C(53, 7) hands finds none).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from .asia import HIGH_POS, asia_is_fouled, asia_setting_ranks
from .cards import JOKER
from .combinatorics import BINOM, colex4, colex_unrank
from .hand_eval import one_card_value, two_card_value
from .house_way_common import ACE, JACK, KING, QUEEN, SIX, asia_best_unfouled, asia_index, rank_of


class BorgataRule(IntEnum):
    """Rule ids: one per rule and per exception or branch of seed 002."""

    NO_PAIR = 0
    ONE_PAIR = 1
    ONE_PAIR_SPLIT_HIGH_PAIR = 2
    ONE_PAIR_HIGH_PAIR_KEPT = 3
    TWO_PAIRS = 4
    TWO_PAIRS_SPLIT_ACES_KINGS = 5
    TWO_PAIRS_ACES_KINGS_HIGH_CARD = 6
    THREE_PAIRS = 7
    THREE_PAIRS_SPLIT_ACES_KINGS = 8
    THREE_PAIRS_ACES_KINGS_HIGH_CARD = 9
    THREE_PAIRS_HIGH_PAIRS = 10
    THREE_PAIRS_HIGH_PAIRS_HIGH_CARD = 11
    TRIPS = 12
    TRIPS_AKQ_SPLIT = 13
    TRIPS_AKQ_HIGH_CARDS = 14
    TRIPS_JACKS_ONE_HIGH = 15
    TRIPS_JACKS_NO_HIGH = 16
    TRIPS_TWICE = 17
    SF_NO_PAIR = 18
    SF_NO_PAIR_TOO_HIGH = 19
    SF_PAIR_INSIDE = 20
    SF_PAIR_INSIDE_PAIR_HIGH = 21
    SF_IN_ADDITION = 22
    SF_ACES_IN_ADDITION = 23
    SF_BOTH = 24
    FULL_HOUSE = 25
    FULL_HOUSE_AKQ_TRIPS = 26
    FULL_HOUSE_ACES_KINGS_PAIR = 27
    FULL_HOUSE_PAIR = 28
    FULL_HOUSE_PAIR_HIGH_TRIPS = 29
    QUADS = 30
    QUADS_LOW_WITH_ACE = 31
    QUADS_ACES_KINGS = 32
    QUADS_ACES_KINGS_HIGH_CARD = 33
    QUADS_PAIR = 34
    QUADS_PAIR_ACES_KINGS = 35
    QUADS_TRIPS = 36
    QUADS_TRIPS_AKQ = 37
    FIVE_ACES = 38
    FALLBACK = 39


_NAMES = {
    BorgataRule.NO_PAIR: "NO PAIR",
    BorgataRule.ONE_PAIR: "ONE PAIR: pair high, 1st+3rd medium, 2nd low",
    BorgataRule.ONE_PAIR_SPLIT_HIGH_PAIR: "ONE PAIR: high pair with 0-1 high card, split high/medium",
    BorgataRule.ONE_PAIR_HIGH_PAIR_KEPT: "ONE PAIR: high pair with 2+ high cards, pair high",
    BorgataRule.TWO_PAIRS: "TWO PAIRS: split, higher pair high, lower pair medium",
    BorgataRule.TWO_PAIRS_SPLIT_ACES_KINGS: "TWO PAIRS: aces/kings split medium/low",
    BorgataRule.TWO_PAIRS_ACES_KINGS_HIGH_CARD: "TWO PAIRS: aces/kings + another high card, don't split",
    BorgataRule.THREE_PAIRS: "THREE PAIRS: highest pair medium, two pairs high",
    BorgataRule.THREE_PAIRS_SPLIT_ACES_KINGS: "THREE PAIRS: aces/kings split medium/low",
    BorgataRule.THREE_PAIRS_ACES_KINGS_HIGH_CARD: "THREE PAIRS: aces/kings + high card, pair medium",
    BorgataRule.THREE_PAIRS_HIGH_PAIRS: "THREE PAIRS: three high pairs, split highest (one low)",
    BorgataRule.THREE_PAIRS_HIGH_PAIRS_HIGH_CARD: "THREE PAIRS: three high pairs + high card in low",
    BorgataRule.TRIPS: "THREE OF A KIND: trips high",
    BorgataRule.TRIPS_AKQ_SPLIT: "THREE OF A KIND: A/K/Q trips, one in each hand",
    BorgataRule.TRIPS_AKQ_HIGH_CARDS: "THREE OF A KIND: A/K/Q trips + 1-2 high cards, pair high",
    BorgataRule.TRIPS_JACKS_ONE_HIGH: "THREE OF A KIND: jacks + one high card, jack low",
    BorgataRule.TRIPS_JACKS_NO_HIGH: "THREE OF A KIND: jacks, no high card, pair high, jack medium",
    BorgataRule.TRIPS_TWICE: "THREE OF A KIND TWICE",
    BorgataRule.SF_NO_PAIR: "STRAIGHT/FLUSH: no pair, play it high",
    BorgataRule.SF_NO_PAIR_TOO_HIGH: "STRAIGHT/FLUSH: no pair, 3-4 high cards -> NO PAIR",
    BorgataRule.SF_PAIR_INSIDE: "STRAIGHT/FLUSH: pair inside, K/A or 2 high outside, play it high",
    BorgataRule.SF_PAIR_INSIDE_PAIR_HIGH: "STRAIGHT/FLUSH: pair inside, otherwise pair high",
    BorgataRule.SF_IN_ADDITION: "STRAIGHT/FLUSH: pair/trips in addition, pair medium",
    BorgataRule.SF_ACES_IN_ADDITION: "STRAIGHT/FLUSH: aces in addition, split aces",
    BorgataRule.SF_BOTH: "STRAIGHT/FLUSH: both a straight and a flush, best medium/low",
    BorgataRule.FULL_HOUSE: "FULL HOUSE: trips high, pair medium",
    BorgataRule.FULL_HOUSE_AKQ_TRIPS: "FULL HOUSE: A/K/Q trips, pair of them high, one low",
    BorgataRule.FULL_HOUSE_ACES_KINGS_PAIR: "FULL HOUSE: pair of aces/kings split medium/low",
    BorgataRule.FULL_HOUSE_PAIR: "FULL HOUSE WITH A PAIR: trips high, low pair medium",
    BorgataRule.FULL_HOUSE_PAIR_HIGH_TRIPS: "FULL HOUSE WITH A PAIR: high trips, two pairs high",
    BorgataRule.QUADS: "FOUR OF A KIND: split, pair high, pair medium",
    BorgataRule.QUADS_LOW_WITH_ACE: "FOUR OF A KIND: low quads + 2 high cards incl. ace, quads high",
    BorgataRule.QUADS_ACES_KINGS: "FOUR OF A KIND: aces/kings, pair high, one medium, one low",
    BorgataRule.QUADS_ACES_KINGS_HIGH_CARD: "FOUR OF A KIND: aces/kings + high card, pair high+medium",
    BorgataRule.QUADS_PAIR: "FOUR OF A KIND WITH A PAIR: quads high, pair medium",
    BorgataRule.QUADS_PAIR_ACES_KINGS: "FOUR OF A KIND WITH A PAIR: aces/kings, three high, one low",
    BorgataRule.QUADS_TRIPS: "FOUR OF A KIND WITH THREE OF A KIND: quads high, pair medium",
    BorgataRule.QUADS_TRIPS_AKQ: "FOUR OF A KIND WITH THREE OF A KIND: A/K/Q quads split",
    BorgataRule.FIVE_ACES: "FIVE ACES",
    BorgataRule.FALLBACK: "fallback",
}
BORGATA_RULES: tuple[str, ...] = tuple(_NAMES[BorgataRule(i)] for i in range(len(BorgataRule)))

# numba reads module-level ints as compile-time constants; the table below pins them to the enum
R_NO_PAIR, R_ONE_PAIR, R_ONE_PAIR_SPLIT, R_ONE_PAIR_KEPT = 0, 1, 2, 3
R_TWO_PAIRS, R_TWO_PAIRS_AK_SPLIT, R_TWO_PAIRS_AK_HIGH = 4, 5, 6
R_THREE_PAIRS, R_THREE_PAIRS_AK_SPLIT, R_THREE_PAIRS_AK_HIGH = 7, 8, 9
R_THREE_PAIRS_HIGH, R_THREE_PAIRS_HIGH_HIGH = 10, 11
R_TRIPS, R_TRIPS_AKQ_SPLIT, R_TRIPS_AKQ_HIGH, R_TRIPS_J_ONE, R_TRIPS_J_NONE = 12, 13, 14, 15, 16
R_TRIPS_TWICE = 17
R_SF_NO_PAIR, R_SF_NO_PAIR_TOO_HIGH, R_SF_PAIR_INSIDE, R_SF_PAIR_HIGH = 18, 19, 20, 21
R_SF_IN_ADDITION, R_SF_ACES_IN_ADDITION, R_SF_BOTH = 22, 23, 24
R_FULL_HOUSE, R_FULL_HOUSE_AKQ, R_FULL_HOUSE_AK_PAIR = 25, 26, 27
R_FULL_HOUSE_PAIR, R_FULL_HOUSE_PAIR_HIGH = 28, 29
R_QUADS, R_QUADS_LOW_ACE, R_QUADS_AK, R_QUADS_AK_HIGH = 30, 31, 32, 33
R_QUADS_PAIR, R_QUADS_PAIR_AK, R_QUADS_TRIPS, R_QUADS_TRIPS_AKQ = 34, 35, 36, 37
R_FIVE_ACES, R_FALLBACK = 38, 39
_CONSTANTS = (R_NO_PAIR, R_ONE_PAIR, R_ONE_PAIR_SPLIT, R_ONE_PAIR_KEPT, R_TWO_PAIRS,
              R_TWO_PAIRS_AK_SPLIT, R_TWO_PAIRS_AK_HIGH, R_THREE_PAIRS, R_THREE_PAIRS_AK_SPLIT,
              R_THREE_PAIRS_AK_HIGH, R_THREE_PAIRS_HIGH, R_THREE_PAIRS_HIGH_HIGH, R_TRIPS,
              R_TRIPS_AKQ_SPLIT, R_TRIPS_AKQ_HIGH, R_TRIPS_J_ONE, R_TRIPS_J_NONE, R_TRIPS_TWICE,
              R_SF_NO_PAIR, R_SF_NO_PAIR_TOO_HIGH, R_SF_PAIR_INSIDE, R_SF_PAIR_HIGH,
              R_SF_IN_ADDITION, R_SF_ACES_IN_ADDITION, R_SF_BOTH, R_FULL_HOUSE, R_FULL_HOUSE_AKQ,
              R_FULL_HOUSE_AK_PAIR, R_FULL_HOUSE_PAIR, R_FULL_HOUSE_PAIR_HIGH, R_QUADS,
              R_QUADS_LOW_ACE, R_QUADS_AK, R_QUADS_AK_HIGH, R_QUADS_PAIR, R_QUADS_PAIR_AK,
              R_QUADS_TRIPS, R_QUADS_TRIPS_AKQ, R_FIVE_ACES, R_FALLBACK)
assert _CONSTANTS == tuple(int(m) for m in BorgataRule), "rule constants out of step with BorgataRule"

# ------------------------------------------------------------------------------------------------
# four-card straights and flushes: one byte per colex index of C(53, 4)

SF_NOT = -1  # not a straight, flush or straight flush
SF_HIGH_MASK = 7  # number of high cards (J-A) in it; the joker counts as the card it stands for
SF_STRAIGHT = 8
SF_FLUSH = 16
_POP4 = np.array([bin(i).count("1") for i in range(16)], dtype=np.int64)


@njit(cache=True)
def _sf_info(cards):
    """``SF_NOT`` or high-card count | SF_STRAIGHT | SF_FLUSH of four sorted cards.

    The joker completes a flush (it then stands for the highest absent card of the suit, always a
    J-A) or a straight (it stands for the missing rank of the highest straight in natural order,
    A-2-3-4 lowest)."""
    has_joker = cards[3] == JOKER
    m = 3 if has_joker else 4
    mask = 0
    suited = True
    for i in range(m):
        bit = 1 << (cards[i] >> 2)
        if mask & bit:
            return SF_NOT
        mask |= bit
        if (cards[i] & 3) != (cards[0] & 3):
            suited = False
    fill = -1
    straight = False
    for top in range(12, 2, -1):
        w = 15 << (top - 3)
        if mask & ~w == 0:
            straight = True
            miss = w & ~mask
            for rk in range(13):
                if miss == 1 << rk:
                    fill = rk
            break
    if not straight:
        w = (1 << ACE) | 7
        if mask & ~w == 0:
            straight = True
            miss = w & ~mask
            for rk in range(13):
                if miss == 1 << rk:
                    fill = rk
    if not (straight or suited):
        return SF_NOT
    high = 0
    for i in range(m):
        if (cards[i] >> 2) >= JACK:
            high += 1
    if has_joker and ((straight and fill >= JACK) or not straight):
        high += 1
    return high | (SF_STRAIGHT if straight else 0) | (SF_FLUSH if suited else 0)


@njit(cache=True)
def _build_sf_table():
    out = np.empty(BINOM[53, 4], dtype=np.int8)
    cards = np.empty(4, dtype=np.int64)
    for idx in range(out.shape[0]):
        colex_unrank(idx, 4, cards)
        out[idx] = _sf_info(cards)
    return out


SF_TABLE = _build_sf_table()
SF_TABLE.setflags(write=False)


def _combos():
    from itertools import combinations

    c4 = np.array(list(combinations(range(7), 4)), dtype=np.int64)
    rest = np.array([[p for p in range(7) if p not in c] for c in c4], dtype=np.int64)
    return c4, rest


COMB4, REST3 = _combos()


@njit(cache=True)
def may_have_straight_or_flush(hand):
    """Cheap pre-check: could four of the seven cards make a straight or a flush?"""
    joker = 1 if hand[6] == JOKER else 0
    suits = np.zeros(4, dtype=np.int64)
    mask = 0
    for i in range(7 - joker):
        suits[hand[i] & 3] += 1
        mask |= 1 << (hand[i] >> 2)
    for s in range(4):
        if suits[s] + joker >= 4:
            return True
    for top in range(3, 13):
        if _POP4[(mask >> (top - 3)) & 15] + joker >= 4:
            return True
    return _POP4[(mask & 7) | (((mask >> ACE) & 1) << 3)] + joker >= 4


MODE_NO_PAIR = 0
MODE_PAIR_INSIDE = 1
MODE_IN_ADDITION = 2


@njit(cache=True)
def best_straight_or_flush(hand, r, counts, high_rank, mode):
    """The four-card straight/flush to play high: ``(low, med_a, med_b, both)``, low -1 if none.

    Seed: "If the hand contains both a straight and flush play the hand that will give you the
    best medium and low hand." Applied to every choice among several straights/flushes (D10):
    of the eligible four-card hands, the one leaving the best medium hand, then the best low hand,
    then the best high hand; ties keep the first in position order. ``both``: the eligible
    hands included a straight and a flush. Eligible, by ``mode``:

    * MODE_NO_PAIR: at most 2 high cards in it; the other three cards go highest and lowest
      medium, middle low (worked example 1: "the K, 5 in the medium hand, the 10 Clubs in low").
    * MODE_PAIR_INSIDE: a King or an Ace, or two high cards, among the three cards outside it;
      same placement.
    * MODE_IN_ADDITION: a whole pair or three of a kind outside it: the pair medium, the other
      card low; a pair of aces is split, one medium (with the third card) and one low.
    """
    best_m = -1
    best_l = -1
    best_h = -1
    out_low = -1
    out_a = -1
    out_b = -1
    n = 0
    has_s = False
    has_f = False
    for k in range(35):
        c = COMB4[k]
        info = SF_TABLE[colex4(hand[c[0]], hand[c[1]], hand[c[2]], hand[c[3]])]
        if info < 0:
            continue
        o0, o1, o2 = REST3[k, 0], REST3[k, 1], REST3[k, 2]
        distinct = r[o0] != r[o1] and r[o1] != r[o2]
        if mode == MODE_IN_ADDITION:
            if r[o0] == r[o1] and r[o1] == r[o2]:
                if counts[r[o0]] != 3:
                    continue
                lo, ma, mb = o2, o0, o1
            elif r[o1] == r[o2] and counts[r[o1]] == 2:
                lo, ma, mb = (o2, o1, o0) if r[o1] == ACE else (o0, o1, o2)
            elif r[o0] == r[o1] and counts[r[o0]] == 2:
                lo, ma, mb = (o1, o0, o2) if r[o0] == ACE else (o2, o0, o1)
            else:
                continue
        else:
            if not distinct:
                continue
            if mode == MODE_NO_PAIR and (info & SF_HIGH_MASK) > 2:
                continue
            if mode == MODE_PAIR_INSIDE and not (r[o2] >= KING or r[o1] >= JACK):
                continue
            lo, ma, mb = o1, o2, o0
        n += 1
        has_s = has_s or (info & SF_STRAIGHT) != 0
        has_f = has_f or (info & SF_FLUSH) != 0
        mv = two_card_value(hand[ma], hand[mb])
        lv = one_card_value(hand[lo])
        hv = np.int64(high_rank[colex4(hand[c[0]], hand[c[1]], hand[c[2]], hand[c[3]])])
        if mv > best_m or (mv == best_m and (lv > best_l or (lv == best_l and hv > best_h))):
            best_m, best_l, best_h = mv, lv, hv
            out_low, out_a, out_b = lo, ma, mb
    return out_low, out_a, out_b, n >= 2 and has_s and has_f


# ------------------------------------------------------------------------------------------------
# the rules: positions in, (low, medium_a, medium_b) out. ``s`` = singles, ``p`` = pairs (start
# positions), highest rank first; ``t``/``q``/``f`` = start of the trips / quads / five aces.


@njit(cache=True)
def no_pair(s):
    """*NO PAIR - Place the highest card in the high hand, second highest card in the medium hand,
    and third highest card in the low hand Place fourth highest card in the medium hand and the
    remaining cards in the high hand."""
    return s[2], s[1], s[3]


@njit(cache=True)
def one_pair(s):
    """*ONE PAIR - Place the pair in the high hand, the highest and third highest cards in the
    medium hand and the second highest card in the low hand."""
    return s[1], s[0], s[2]


@njit(cache=True)
def one_pair_split_high_pair(p, s):
    """** High pair with one or no other high card, always split up the pair

    One of the pair high, one medium (D4); the highest single joins the high hand so that it
    outranks the medium (pair card + third highest); the second highest stays low."""
    return s[1], p + 1, s[2]


@njit(cache=True)
def two_pairs(p, s):
    """*TWO PAIRS - Always split.

    Higher pair high, lower pair medium, highest single low, the other two high (D5)."""
    return s[0], p[1], p[1] + 1


@njit(cache=True)
def two_pairs_split_aces_kings(p, s):
    """Exception: - Pair of Aces or Kings with any other pair, play the other pair in the high
    hand and split Aces! Kings, one in the medium hand and one in the low hand, UNLESS you have
    another high card, then don’t split.

    The medium A/K takes the highest single (D6)."""
    return p[0] + 1, p[0], s[0]


@njit(cache=True)
def three_pairs(p, x):
    """*THREE PAIRS - Always play the highest pair in the medium hand and two pairs in the high
    hand."""
    return x, p[0], p[0] + 1


@njit(cache=True)
def three_pairs_split_aces_kings(p, x):
    """Exception: - Three pairs when one of the pairs are Aces or Kings. Place one Ace/King in the
    medium and one in the low hand, unless you have another high card, then keep the pair
    together in the medium hand."""
    return p[0] + 1, p[0], x


@njit(cache=True)
def three_high_pairs(p, x, x_is_high):
    """- Any three high pairs, place second high pair in the high hand, lowest pair in the medium
    hand and split the high pair, place one in the low, UNLESS you have another high card place
    in low hand.

    With a high singleton it goes low and the highest pair stays high with the second (D8)."""
    if x_is_high:
        return x, p[2], p[2] + 1
    return p[0] + 1, p[2], p[2] + 1


@njit(cache=True)
def trips(s):
    """*THREE OF A KIND - Always play three of a kind in the high hand, highest and third single
    ranking card in the medium hand, second highest in the low hand."""
    return s[1], s[0], s[2]


@njit(cache=True)
def trips_akq_split(t, s):
    """- Three Aces, Kings or Queens- place one in the high, medium and low hand.

    The medium one takes the second highest single, the high one the others (D9)."""
    return t + 2, t + 1, s[1]


@njit(cache=True)
def trips_akq_high_cards(t, s, r):
    """- Three Aces, Kings or Queens with one or two high cards -always play one pair in the high
    hand.

    The third card joins the singles, placed as ONE PAIR: 1st+3rd medium, 2nd low (D9)."""
    u = np.empty(5, dtype=np.int64)
    k = 0
    placed = False
    for i in range(4):
        if not placed and r[t + 2] > r[s[i]]:
            u[k] = t + 2
            k += 1
            placed = True
        u[k] = s[i]
        k += 1
    if not placed:
        u[4] = t + 2
    return u[1], u[0], u[2]


@njit(cache=True)
def trips_jacks_one_high(t, s):
    """- Three Jacks with one high card- place one Jack in the low hand.

    The two highest singles medium (seed 000's wording), the pair of jacks high."""
    return t + 2, s[0], s[1]


@njit(cache=True)
def trips_jacks_no_high(t, s):
    """- Three Jacks without any high card - play one pair in the high hand and the third Jack in
    the medium hand

    The highest single low, the second with the jack (seed 000's wording)."""
    return s[0], t + 2, s[1]


@njit(cache=True)
def trips_twice(t):
    """*THREE OF A KIND TWICE - Always play the lowest three of a kind in the high hand, and split
    up the highest three of a kind - play a pair in the medium hand and the final card in the low
    hand"""
    return t[0] + 2, t[0], t[0] + 1


@njit(cache=True)
def full_house(t, p, s):
    """*FULL HOUSE - Always play three of a kind in the high hand, and a pair in the medium hand.

    The higher single low, the lower with the trips (D12)."""
    return s[0], p, p + 1


@njit(cache=True)
def full_house_akq_trips(t, p):
    """Exception: - Three Aces, Kings or Queens. Play pair of Aces, Kings, Queens in the high hand
    and one Ace, King, Queen in the low hand.

    The pair medium; only when it ranks below the trips (else it would foul, D12)."""
    return t + 2, p, p + 1


@njit(cache=True)
def full_house_aces_kings_pair(p, s):
    """- Any three of a kind with a pair of Aces or Kings, then split the Aces/Kings, place one in
    the medium hand and one in low hand.

    The medium one takes the higher single (D12)."""
    return p + 1, p, s[0]


@njit(cache=True)
def full_house_pair(p):
    """*FULL HOUSE WITH A PAIR - Always play three of a kind in the high hand, the low pair in the
    medium hand and one card of the high pair in the low hand."""
    return p[0] + 1, p[1], p[1] + 1


@njit(cache=True)
def full_house_pair_high_trips(t):
    """Exception: - Any high three of a kind with 2 medium/low pairs, play the two pairs in the
    high hand and split the three of a kind — a pair in the medium hand and the third card in the
    low hand."""
    return t + 2, t, t + 1


@njit(cache=True)
def quads(q, s):
    """*FOUR OF A KIND - Always split

    A pair high and a pair medium (seed 000), the highest single low (D13)."""
    return s[0], q + 2, q + 3


@njit(cache=True)
def quads_low_with_ace(s):
    """Exception - Low four of a kind with 2 high cards when one of them is Ace, then keep four of
    a kind in the high hand.

    The three singles: highest and lowest medium, middle low (D13)."""
    return s[1], s[0], s[2]


@njit(cache=True)
def quads_aces_kings(q, s):
    """- Four Aces or Kings - Play one pair in the high hand, one in the medium, and one in the
    low hand, unless you have another high card, then keep pair in the high and medium hand.

    The medium one takes the highest single (D13)."""
    return q + 3, q + 2, s[0]


@njit(cache=True)
def quads_pair(p, x):
    """*FOUR OF A KIND WITH A PAIR - Play four of a kind in the high hand and pair in the medium
    hand."""
    return x, p, p + 1


@njit(cache=True)
def quads_pair_aces_kings(q, p):
    """Exception: - Four Aces or Kings - Play three Aces/Kings in the high hand one Ace/ King in
    the low hand.

    The pair medium, the single with the three (D14)."""
    return q + 3, p, p + 1


@njit(cache=True)
def quads_trips(t):
    """*FOUR OF A KIND WITH THREE OF A KIND - Play four of a kind in the high hand and pair in the
    medium hand."""
    return t + 2, t, t + 1


@njit(cache=True)
def quads_trips_akq(q):
    """Exception: - Four Aces, Kings or Queens - Play other three of a kind in the high hand,
    split up the four of a kind — a pair in the medium hand and one in the low hand."""
    return q + 3, q + 1, q + 2


@njit(cache=True)
def five_aces(f):
    """*FIVE ACES - Play a pair of Aces in the high hand, a pair of Aces in the medium hand, and
    one Ace in the low hand."""
    return f + 4, f + 2, f + 3


@njit(cache=True)
def straight_flush_rules(hand, r, counts, s, p, n_pairs, n_trips, high_rank):
    """*STRAIGHTS, FLUSHES, STRAIGHT FLUSHES, AND ROYAL FLUSH: ``(low, med_a, med_b, rule)``;
    rule -1 hands the hand to its pair rule.

    * "With one pair, two pairs, three pairs or three of a kind IN ADDITION to the straight or
      flush, keep the straight or flush in the high hand and a pair in the medium hand UNLESS YOU
      HAVE A PAIR OF ACES. With a pair of Aces, play the straight or flush in the high hand and
      split the pair of Aces; one in the medium hand and one in the low hand." (a whole pair or
      three of a kind outside the straight/flush, D11)
    * "If the hand contains two pairs use the TWO PAIR rule. - If the hand contains three pairs
      use the THREE PAIR rule. - If the hand contains three of a kind use the THREE OF A KIND
      rule."
    * "If the hand contains one pair inside the straight or flush and you have 1 King or 1 Ace OR
      2 additional high cards outside the straight or flush, play the straight or flush in the
      high hand Otherwise, play the pair in the high hand (Please note that we do not revert back
      to the one pair rule from this point)" (pair high, singles as in ONE PAIR: worked
      example 2, D10)
    * "With no pair, play the straight or flush in the high hand unless the straight or flush
      contains 3 or 4 high cards; then use the NO PAIR rule."
    """
    if n_pairs + n_trips > 0 and n_pairs < 3:
        lo, ma, mb, both = best_straight_or_flush(hand, r, counts, high_rank, MODE_IN_ADDITION)
        if lo >= 0:
            if both:
                return lo, ma, mb, R_SF_BOTH
            if r[lo] == ACE and r[ma] != r[mb]:
                return lo, ma, mb, R_SF_ACES_IN_ADDITION
            return lo, ma, mb, R_SF_IN_ADDITION
    if n_pairs >= 2 or n_trips > 0:
        return -1, -1, -1, -1
    if n_pairs == 1:
        lo, ma, mb, both = best_straight_or_flush(hand, r, counts, high_rank, MODE_PAIR_INSIDE)
        if lo >= 0:
            return lo, ma, mb, R_SF_BOTH if both else R_SF_PAIR_INSIDE
        lo, ma, mb = one_pair(s)
        return lo, ma, mb, R_SF_PAIR_HIGH
    lo, ma, mb, both = best_straight_or_flush(hand, r, counts, high_rank, MODE_NO_PAIR)
    if lo >= 0:
        return lo, ma, mb, R_SF_BOTH if both else R_SF_NO_PAIR
    lo, ma, mb = no_pair(s)
    return lo, ma, mb, R_SF_NO_PAIR_TOO_HIGH


# ------------------------------------------------------------------------------------------------
# dispatch


@njit(cache=True)
def _n_high(r, s, n):
    k = 0
    for i in range(n):
        if r[s[i]] >= JACK:
            k += 1
    return k


@njit(cache=True)
def _pair_rules(hand, r, counts, s, ns, p, n_pairs, t, n_trips, high_rank):
    """Hands without a full house or better: the straight/flush section first, then the rules by
    number of pairs/trips."""
    if may_have_straight_or_flush(hand):
        lo, ma, mb, rule = straight_flush_rules(hand, r, counts, s, p, n_pairs, n_trips, high_rank)
        if rule >= 0:
            return lo, ma, mb, rule
    high_singles = _n_high(r, s, ns)
    if n_trips == 1:
        tr = r[t[0]]
        if tr >= QUEEN:
            if high_singles == 0:
                lo, ma, mb = trips_akq_split(t[0], s)
                return lo, ma, mb, R_TRIPS_AKQ_SPLIT
            if high_singles <= 2:
                lo, ma, mb = trips_akq_high_cards(t[0], s, r)
                return lo, ma, mb, R_TRIPS_AKQ_HIGH
        elif tr == JACK:
            if high_singles == 1:
                lo, ma, mb = trips_jacks_one_high(t[0], s)
                return lo, ma, mb, R_TRIPS_J_ONE
            if high_singles == 0:
                lo, ma, mb = trips_jacks_no_high(t[0], s)
                return lo, ma, mb, R_TRIPS_J_NONE
        lo, ma, mb = trips(s)
        return lo, ma, mb, R_TRIPS
    if n_pairs == 3:
        x = s[0]
        x_high = r[x] >= JACK
        if r[p[2]] >= JACK:
            lo, ma, mb = three_high_pairs(p, x, x_high)
            return lo, ma, mb, R_THREE_PAIRS_HIGH_HIGH if x_high else R_THREE_PAIRS_HIGH
        if r[p[0]] >= KING:
            if x_high:
                lo, ma, mb = three_pairs(p, x)
                return lo, ma, mb, R_THREE_PAIRS_AK_HIGH
            lo, ma, mb = three_pairs_split_aces_kings(p, x)
            return lo, ma, mb, R_THREE_PAIRS_AK_SPLIT
        lo, ma, mb = three_pairs(p, x)
        return lo, ma, mb, R_THREE_PAIRS
    if n_pairs == 2:
        if r[p[0]] >= KING:
            if high_singles > 0:
                lo, ma, mb = two_pairs(p, s)
                return lo, ma, mb, R_TWO_PAIRS_AK_HIGH
            lo, ma, mb = two_pairs_split_aces_kings(p, s)
            return lo, ma, mb, R_TWO_PAIRS_AK_SPLIT
        lo, ma, mb = two_pairs(p, s)
        return lo, ma, mb, R_TWO_PAIRS
    if n_pairs == 1:
        if r[p[0]] >= JACK:
            if high_singles <= 1:
                lo, ma, mb = one_pair_split_high_pair(p[0], s)
                return lo, ma, mb, R_ONE_PAIR_SPLIT
            lo, ma, mb = one_pair(s)
            return lo, ma, mb, R_ONE_PAIR_KEPT
        lo, ma, mb = one_pair(s)
        return lo, ma, mb, R_ONE_PAIR
    lo, ma, mb = no_pair(s)
    return lo, ma, mb, R_NO_PAIR


@njit(cache=True)
def _big_hand_rules(r, s, ns, p, n_pairs, t, n_trips, q, f):
    """Full houses, four of a kind, five aces (straights and flushes are not looked at, D3)."""
    if f >= 0:
        lo, ma, mb = five_aces(f)
        return lo, ma, mb, R_FIVE_ACES
    if q >= 0:
        qr = r[q]
        if n_trips == 1:
            if qr >= QUEEN:
                return quads_trips_akq(q) + (R_QUADS_TRIPS_AKQ,)
            return quads_trips(t[0]) + (R_QUADS_TRIPS,)
        if n_pairs == 1:
            if qr >= KING:
                return quads_pair_aces_kings(q, p[0]) + (R_QUADS_PAIR_AK,)
            return quads_pair(p[0], s[0]) + (R_QUADS_PAIR,)
        high_singles = _n_high(r, s, ns)
        if qr <= SIX and high_singles >= 2 and r[s[0]] == ACE:
            return quads_low_with_ace(s) + (R_QUADS_LOW_ACE,)
        if qr >= KING:
            if high_singles == 0:
                return quads_aces_kings(q, s) + (R_QUADS_AK,)
            return quads(q, s) + (R_QUADS_AK_HIGH,)
        return quads(q, s) + (R_QUADS,)
    if n_trips == 2:
        return trips_twice(t) + (R_TRIPS_TWICE,)
    tt = t[0]
    if n_pairs == 2:
        if r[tt] >= JACK and r[p[0]] < JACK:
            return full_house_pair_high_trips(tt) + (R_FULL_HOUSE_PAIR_HIGH,)
        return full_house_pair(p) + (R_FULL_HOUSE_PAIR,)
    pp = p[0]
    if r[tt] >= QUEEN and r[pp] < r[tt]:
        return full_house_akq_trips(tt, pp) + (R_FULL_HOUSE_AKQ,)
    if r[pp] >= KING:
        return full_house_aces_kings_pair(pp, s) + (R_FULL_HOUSE_AK_PAIR,)
    return full_house(tt, pp, s) + (R_FULL_HOUSE,)


@njit(cache=True)
def best_high_among_equal_ranks(hand, r, lo, ma, mb, high_rank):
    """Which of equal-rank cards goes to the high hand (D2): swap a high card for an equal-rank
    card of the medium or low hand while that makes a strictly better high hand."""
    improved = True
    while improved:
        improved = False
        s0 = asia_index(lo, ma, mb)
        h = HIGH_POS[s0]
        best = np.int64(high_rank[colex4(hand[h[0]], hand[h[1]], hand[h[2]], hand[h[3]])])
        for i in range(4):
            hi = h[i]
            for which in range(3):
                j = lo if which == 0 else (ma if which == 1 else mb)
                if r[hi] != r[j]:
                    continue
                nl = hi if which == 0 else lo
                na = hi if which == 1 else ma
                nb = hi if which == 2 else mb
                s1 = asia_index(nl, na, nb)
                h1 = HIGH_POS[s1]
                v = np.int64(high_rank[colex4(hand[h1[0]], hand[h1[1]], hand[h1[2]], hand[h1[3]])])
                if v > best:
                    lo, ma, mb = nl, na, nb
                    improved = True
                    break
            if improved:
                break
    return lo, ma, mb


@njit(cache=True)
def house_way_borgata_with_rule(hand, high_rank, high_to_two):
    """Setting index (0..104) and rule id (``BORGATA_RULES``) of the Borgata house way for a
    sorted ``int64[7]`` hand; ``high_rank``/``high_to_two`` from :func:`asia_high_table`."""
    buf = np.empty(32, dtype=np.int64)
    r = buf[0:7]
    counts = buf[7:20]
    s = buf[20:27]
    p = buf[27:30]
    t = buf[30:32]
    counts[:] = 0
    for i in range(7):
        r[i] = rank_of(hand[i])
        counts[r[i]] += 1
    ns = 0
    n_pairs = 0
    n_trips = 0
    q = -1
    f = -1
    i = 6
    while i >= 0:
        j = i
        while j > 0 and r[j - 1] == r[i]:
            j -= 1
        c = i - j + 1
        if c == 1:
            s[ns] = j
            ns += 1
        elif c == 2:
            p[n_pairs] = j
            n_pairs += 1
        elif c == 3:
            t[n_trips] = j
            n_trips += 1
        elif c == 4:
            q = j
        else:
            f = j
        i = j - 1
    if f >= 0 or q >= 0 or n_trips == 2 or (n_trips == 1 and n_pairs > 0):
        lo, ma, mb, rule = _big_hand_rules(r, s, ns, p, n_pairs, t, n_trips, q, f)
    else:
        lo, ma, mb, rule = _pair_rules(hand, r, counts, s, ns, p, n_pairs, t, n_trips, high_rank)
    lo, ma, mb = best_high_among_equal_ranks(hand, r, lo, ma, mb, high_rank)
    setting = asia_index(lo, ma, mb)
    hr, mr, lr = asia_setting_ranks(hand, setting, high_rank)
    if asia_is_fouled(hr, mr, lr, high_to_two):
        return asia_best_unfouled(hand, high_rank, high_to_two), R_FALLBACK
    return setting, rule


@njit(cache=True)
def house_way_borgata(hand, high_rank, high_to_two):
    """Setting index (0..104) of the Borgata house way (see :func:`house_way_borgata_with_rule`)."""
    return house_way_borgata_with_rule(hand, high_rank, high_to_two)[0]


@njit(cache=True)
def house_way_borgata_batch(hands, high_rank, high_to_two, out):
    """``out[i]`` = the house-way setting of ``hands[i]`` (``int64[N, 7]``, each row sorted)."""
    for i in range(hands.shape[0]):
        out[i] = house_way_borgata_with_rule(hands[i], high_rank, high_to_two)[0]


@njit(cache=True)
def house_way_borgata_batch_with_rule(hands, high_rank, high_to_two, out, rules):
    """As :func:`house_way_borgata_batch`, also writing each hand's rule id to ``rules[i]``."""
    for i in range(hands.shape[0]):
        out[i], rules[i] = house_way_borgata_with_rule(hands[i], high_rank, high_to_two)
