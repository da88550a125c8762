"""The Borgata Asia Poker house way (seed 002, "REVISED 11/3/06") as numba kernels.

Input: a hand as a sorted ``int64[7]`` (card = rank*4 + suit, joker 52 last); output: an Asia
setting index 0..104 (:mod:`splitpoker.envs.rules.games.asia`) and the id of the rule that chose it
(``BORGATA_RULES[id]`` names it). Cards of one rank sit next to each other in the sorted hand
(the joker, 52, right after the aces), so a rank group is a run of positions::

    positions   0    1    2    3    4    5    6        hand sorted ascending by card integer
    e.g.        4d   5s   6h   6c   7s   Jd   JK       ranks ascending; the joker counts as an ace
    groups     [4] [5]  [6 6]      [7]  [J]  [A]       singles / pairs / trips as runs

Classes (seed 002: "2-6=Low 7-1O=Medium J,Q,K,A=High"); the joker counts as an ace when the hand
is classified (it can pair an ace), and as the card it stands for inside a four-card straight or
flush (docs/house_ways.md (asia-borgata), D1). Every rule is a small function returning the
positions ``(low, medium_a, medium_b)``; the high hand is the other four cards. Equal-rank cards
are dealt lowest card integer first, to the high hand first, then medium, then low; afterwards
:func:`best_suits_borgata` swaps a high card for an equal-rank card of the medium/low
hand when that makes a better high hand (a flush or joker straight); medium and low values only
depend on ranks, so they never change (D2). The rule functions themselves are in
:mod:`splitpoker.envs.rules.house_ways.asia_borgata_rules`. A setting that would still be fouled is replaced by
:func:`splitpoker.envs.rules.house_ways.common.asia_best_unfouled` under rule id ``FALLBACK`` (the exhaustive
check over all C(53, 7) hands finds none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import asia_is_fouled, asia_setting_ranks
from splitpoker.envs.rules.house_ways.asia_borgata_rules import (
    five_aces,
    full_house,
    full_house_aces_kings_pair,
    full_house_akq_trips,
    full_house_pair,
    full_house_pair_high_trips,
    no_pair,
    one_pair,
    one_pair_split_high_pair,
    quads,
    quads_aces_kings,
    quads_low_with_ace,
    quads_pair,
    quads_pair_aces_kings,
    quads_trips,
    quads_trips_akq,
    three_high_pairs,
    three_pairs,
    three_pairs_split_aces_kings,
    trips,
    trips_akq_high_cards,
    trips_akq_split,
    trips_jacks_no_high,
    trips_jacks_one_high,
    trips_twice,
    two_pairs,
    two_pairs_split_aces_kings,
)
from splitpoker.envs.rules.house_ways.common import (
    ACE,
    JACK,
    KING,
    QUEEN,
    SCRATCH_SIZE,
    SIX,
    asia_best_unfouled,
    asia_index,
    best_suits_borgata,
    group_hand,
    may_make_straight_or_flush,
)
from splitpoker.envs.rules.house_ways.rule_ids import rule_ids
from splitpoker.envs.rules.house_ways.straights import (
    MODE_IN_ADDITION,
    MODE_NO_PAIR,
    MODE_PAIR_INSIDE,
    best_straight_or_flush,
)

BORGATA_RULE_TABLE = (  # (enum name, human name); the position is the rule id
    ("NO_PAIR", "NO PAIR"),
    ("ONE_PAIR", "ONE PAIR: pair high, 1st+3rd medium, 2nd low"),
    ("ONE_PAIR_SPLIT_HIGH_PAIR", "ONE PAIR: high pair with 0-1 high card, split high/medium"),
    ("ONE_PAIR_HIGH_PAIR_KEPT", "ONE PAIR: high pair with 2+ high cards, pair high"),
    ("TWO_PAIRS", "TWO PAIRS: split, higher pair high, lower pair medium"),
    ("TWO_PAIRS_SPLIT_ACES_KINGS", "TWO PAIRS: aces/kings split medium/low"),
    ("TWO_PAIRS_ACES_KINGS_HIGH_CARD", "TWO PAIRS: aces/kings + another high card, don't split"),
    ("THREE_PAIRS", "THREE PAIRS: highest pair medium, two pairs high"),
    ("THREE_PAIRS_SPLIT_ACES_KINGS", "THREE PAIRS: aces/kings split medium/low"),
    ("THREE_PAIRS_ACES_KINGS_HIGH_CARD", "THREE PAIRS: aces/kings + high card, pair medium"),
    ("THREE_PAIRS_HIGH_PAIRS", "THREE PAIRS: three high pairs, split highest (one low)"),
    ("THREE_PAIRS_HIGH_PAIRS_HIGH_CARD", "THREE PAIRS: three high pairs + high card in low"),
    ("TRIPS", "THREE OF A KIND: trips high"),
    ("TRIPS_AKQ_SPLIT", "THREE OF A KIND: A/K/Q trips, one in each hand"),
    ("TRIPS_AKQ_HIGH_CARDS", "THREE OF A KIND: A/K/Q trips + 1-2 high cards, pair high"),
    ("TRIPS_JACKS_ONE_HIGH", "THREE OF A KIND: jacks + one high card, jack low"),
    ("TRIPS_JACKS_NO_HIGH", "THREE OF A KIND: jacks, no high card, pair high, jack medium"),
    ("TRIPS_TWICE", "THREE OF A KIND TWICE"),
    ("SF_NO_PAIR", "STRAIGHT/FLUSH: no pair, play it high"),
    ("SF_NO_PAIR_TOO_HIGH", "STRAIGHT/FLUSH: no pair, 3-4 high cards -> NO PAIR"),
    ("SF_PAIR_INSIDE", "STRAIGHT/FLUSH: pair inside, K/A or 2 high outside, play it high"),
    ("SF_PAIR_INSIDE_PAIR_HIGH", "STRAIGHT/FLUSH: pair inside, otherwise pair high"),
    ("SF_IN_ADDITION", "STRAIGHT/FLUSH: pair/trips in addition, pair medium"),
    ("SF_ACES_IN_ADDITION", "STRAIGHT/FLUSH: aces in addition, split aces"),
    ("SF_BOTH", "STRAIGHT/FLUSH: both a straight and a flush, best medium/low"),
    ("FULL_HOUSE", "FULL HOUSE: trips high, pair medium"),
    ("FULL_HOUSE_AKQ_TRIPS", "FULL HOUSE: A/K/Q trips, pair of them high, one low"),
    ("FULL_HOUSE_ACES_KINGS_PAIR", "FULL HOUSE: pair of aces/kings split medium/low"),
    ("FULL_HOUSE_PAIR", "FULL HOUSE WITH A PAIR: trips high, low pair medium"),
    ("FULL_HOUSE_PAIR_HIGH_TRIPS", "FULL HOUSE WITH A PAIR: high trips, two pairs high"),
    ("QUADS", "FOUR OF A KIND: split, pair high, pair medium"),
    ("QUADS_LOW_WITH_ACE", "FOUR OF A KIND: low quads + 2 high cards incl. ace, quads high"),
    ("QUADS_ACES_KINGS", "FOUR OF A KIND: aces/kings, pair high, one medium, one low"),
    ("QUADS_ACES_KINGS_HIGH_CARD", "FOUR OF A KIND: aces/kings + high card, pair high+medium"),
    ("QUADS_PAIR", "FOUR OF A KIND WITH A PAIR: quads high, pair medium"),
    ("QUADS_PAIR_ACES_KINGS", "FOUR OF A KIND WITH A PAIR: aces/kings, three high, one low"),
    ("QUADS_TRIPS", "FOUR OF A KIND WITH THREE OF A KIND: quads high, pair medium"),
    ("QUADS_TRIPS_AKQ", "FOUR OF A KIND WITH THREE OF A KIND: A/K/Q quads split"),
    ("FIVE_ACES", "FIVE ACES"),
    ("FALLBACK", "fallback"),
)
BorgataRule, BORGATA_RULES = rule_ids("BorgataRule", BORGATA_RULE_TABLE, __name__)


R = BorgataRule  # numba reads IntEnum members as integer constants



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
                return lo, ma, mb, R.SF_BOTH
            if r[lo] == ACE and r[ma] != r[mb]:
                return lo, ma, mb, R.SF_ACES_IN_ADDITION
            return lo, ma, mb, R.SF_IN_ADDITION
    if n_pairs >= 2 or n_trips > 0:
        return -1, -1, -1, -1
    if n_pairs == 1:
        lo, ma, mb, both = best_straight_or_flush(hand, r, counts, high_rank, MODE_PAIR_INSIDE)
        if lo >= 0:
            return lo, ma, mb, R.SF_BOTH if both else R.SF_PAIR_INSIDE
        lo, ma, mb = one_pair(s)
        return lo, ma, mb, R.SF_PAIR_INSIDE_PAIR_HIGH
    lo, ma, mb, both = best_straight_or_flush(hand, r, counts, high_rank, MODE_NO_PAIR)
    if lo >= 0:
        return lo, ma, mb, R.SF_BOTH if both else R.SF_NO_PAIR
    lo, ma, mb = no_pair(s)
    return lo, ma, mb, R.SF_NO_PAIR_TOO_HIGH


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
    if may_make_straight_or_flush(hand, 4):
        lo, ma, mb, rule = straight_flush_rules(hand, r, counts, s, p, n_pairs, n_trips, high_rank)
        if rule >= 0:
            return lo, ma, mb, rule
    high_singles = _n_high(r, s, ns)
    if n_trips == 1:
        tr = r[t[0]]
        if tr >= QUEEN:
            if high_singles == 0:
                return trips_akq_split(t[0], s) + (R.TRIPS_AKQ_SPLIT,)
            if high_singles <= 2:
                return trips_akq_high_cards(t[0], s, r) + (R.TRIPS_AKQ_HIGH_CARDS,)
        elif tr == JACK:
            if high_singles == 1:
                return trips_jacks_one_high(t[0], s) + (R.TRIPS_JACKS_ONE_HIGH,)
            if high_singles == 0:
                return trips_jacks_no_high(t[0], s) + (R.TRIPS_JACKS_NO_HIGH,)
        return trips(s) + (R.TRIPS,)
    if n_pairs == 3:
        x = s[0]
        x_high = r[x] >= JACK
        if r[p[2]] >= JACK:
            rule = R.THREE_PAIRS_HIGH_PAIRS_HIGH_CARD if x_high else R.THREE_PAIRS_HIGH_PAIRS
            return three_high_pairs(p, x, x_high) + (rule,)
        if r[p[0]] >= KING:
            if x_high:
                return three_pairs(p, x) + (R.THREE_PAIRS_ACES_KINGS_HIGH_CARD,)
            return three_pairs_split_aces_kings(p, x) + (R.THREE_PAIRS_SPLIT_ACES_KINGS,)
        return three_pairs(p, x) + (R.THREE_PAIRS,)
    if n_pairs == 2:
        if r[p[0]] >= KING:
            if high_singles > 0:
                return two_pairs(p, s) + (R.TWO_PAIRS_ACES_KINGS_HIGH_CARD,)
            return two_pairs_split_aces_kings(p, s) + (R.TWO_PAIRS_SPLIT_ACES_KINGS,)
        return two_pairs(p, s) + (R.TWO_PAIRS,)
    if n_pairs == 1:
        if r[p[0]] >= JACK:
            if high_singles <= 1:
                return one_pair_split_high_pair(p[0], s) + (R.ONE_PAIR_SPLIT_HIGH_PAIR,)
            return one_pair(s) + (R.ONE_PAIR_HIGH_PAIR_KEPT,)
        return one_pair(s) + (R.ONE_PAIR,)
    return no_pair(s) + (R.NO_PAIR,)


@njit(cache=True)
def _big_hand_rules(r, s, ns, p, n_pairs, t, n_trips, q, f):
    """Full houses, four of a kind, five aces (straights and flushes are not looked at, D3)."""
    if f >= 0:
        lo, ma, mb = five_aces(f)
        return lo, ma, mb, R.FIVE_ACES
    if q >= 0:
        qr = r[q]
        if n_trips == 1:
            if qr >= QUEEN:
                return quads_trips_akq(q) + (R.QUADS_TRIPS_AKQ,)
            return quads_trips(t[0]) + (R.QUADS_TRIPS,)
        if n_pairs == 1:
            if qr >= KING:
                return quads_pair_aces_kings(q, p[0]) + (R.QUADS_PAIR_ACES_KINGS,)
            return quads_pair(p[0], s[0]) + (R.QUADS_PAIR,)
        high_singles = _n_high(r, s, ns)
        if qr <= SIX and high_singles >= 2 and r[s[0]] == ACE:
            return quads_low_with_ace(s) + (R.QUADS_LOW_WITH_ACE,)
        if qr >= KING:
            if high_singles == 0:
                return quads_aces_kings(q, s) + (R.QUADS_ACES_KINGS,)
            return quads(q, s) + (R.QUADS_ACES_KINGS_HIGH_CARD,)
        return quads(q, s) + (R.QUADS,)
    if n_trips == 2:
        return trips_twice(t) + (R.TRIPS_TWICE,)
    tt = t[0]
    if n_pairs == 2:
        if r[tt] >= JACK and r[p[0]] < JACK:
            return full_house_pair_high_trips(tt) + (R.FULL_HOUSE_PAIR_HIGH_TRIPS,)
        return full_house_pair(p) + (R.FULL_HOUSE_PAIR,)
    pp = p[0]
    if r[tt] >= QUEEN and r[pp] < r[tt]:
        return full_house_akq_trips(tt, pp) + (R.FULL_HOUSE_AKQ_TRIPS,)
    if r[pp] >= KING:
        return full_house_aces_kings_pair(pp, s) + (R.FULL_HOUSE_ACES_KINGS_PAIR,)
    return full_house(tt, pp, s) + (R.FULL_HOUSE,)


@njit(cache=True)
def house_way_borgata_with_rule(hand, high_rank, high_to_two):
    """Setting index (0..104) and rule id (``BORGATA_RULES``) of the Borgata house way for a
    sorted ``int64[7]`` hand; ``high_rank``/``high_to_two`` from :func:`asia_high_table`."""
    r = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gr = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gs = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gc = np.empty(SCRATCH_SIZE, dtype=np.int64)
    buf = np.zeros(25, dtype=np.int64)
    counts = buf[0:13]
    s = buf[13:20]
    p = buf[20:23]
    t = buf[23:25]
    ns = 0
    n_pairs = 0
    n_trips = 0
    q = -1
    f = -1
    for k in range(group_hand(hand, r, gr, gs, gc)):
        c = gc[k]
        counts[gr[k]] = c
        if c == 1:
            s[ns] = gs[k]
            ns += 1
        elif c == 2:
            p[n_pairs] = gs[k]
            n_pairs += 1
        elif c == 3:
            t[n_trips] = gs[k]
            n_trips += 1
        elif c == 4:
            q = gs[k]
        else:
            f = gs[k]
    if f >= 0 or q >= 0 or n_trips == 2 or (n_trips == 1 and n_pairs > 0):
        lo, ma, mb, rule = _big_hand_rules(r, s, ns, p, n_pairs, t, n_trips, q, f)
    else:
        lo, ma, mb, rule = _pair_rules(hand, r, counts, s, ns, p, n_pairs, t, n_trips, high_rank)
    lo, ma, mb = best_suits_borgata(hand, r, lo, ma, mb, high_rank)
    setting = asia_index(lo, ma, mb)
    hr, mr, lr = asia_setting_ranks(hand, setting, high_rank)
    if asia_is_fouled(hr, mr, lr, high_to_two):
        return asia_best_unfouled(hand, high_rank, high_to_two), R.FALLBACK
    return setting, rule


@njit(cache=True)
def house_way_borgata(hand, high_rank, high_to_two):
    """Setting index (0..104) of the Borgata house way (see :func:`house_way_borgata_with_rule`)."""
    return house_way_borgata_with_rule(hand, high_rank, high_to_two)[0]


__all__ = ["BORGATA_RULES", "BorgataRule", "house_way_borgata", "house_way_borgata_with_rule"]
