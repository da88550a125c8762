"""Four-card straights and flushes, joker included, for the Asia Poker house ways: one byte per
four-card hand (colex index of C(53, 4), :mod:`splitpoker.envs.rules.ranking.combinatorics`), and the Borgata way's
choice among several (:func:`best_straight_or_flush`).

``SF_TABLE[colex4(a, b, c, d)]`` is ``SF_NOT`` (-1) unless the four cards rank as a straight, a
flush or a straight flush under every ranking option; then the number of high cards (J-A) in it
(``& SF_HIGH_MASK``), ``| SF_STRAIGHT`` and/or ``| SF_FLUSH``. A test checks it against the
four-card rank table's categories on all 270,725 hands, under every ranking option.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import JOKER
from splitpoker.envs.rules.house_ways.common import ACE, FOUR_OF_SEVEN, JACK, KING
from splitpoker.envs.rules.ranking.combinatorics import BINOM, colex4, colex_unrank
from splitpoker.envs.rules.ranking.hand_eval import one_card_value, two_card_value

SF_NOT = -1  # not a straight, flush or straight flush
SF_HIGH_MASK = 7  # number of high cards (J-A) in it; the joker counts as the card it stands for
SF_STRAIGHT = 8
SF_FLUSH = 16


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
    for top in range(12, 1, -1):  # natural windows, highest first; top 2: the wheel A-2-3-4
        w = 15 << (top - 3) if top > 2 else (1 << ACE) | 7
        if mask & ~w == 0:
            straight = True
            miss = w & ~mask
            for rk in range(13):
                if miss == 1 << rk:
                    fill = rk
            break
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


@njit(cache=True, inline="always")
def is_straight_or_flush(a, b, c, d):
    """True iff the four cards (ascending) rank as a straight, flush or straight flush; the joker
    completes any of them (seed 000: "The Joker is a wild card that can be used as an Ace or to
    complete a straight, a flush, or a straight flush")."""
    return SF_TABLE[colex4(a, b, c, d)] >= 0


# the Borgata way (seed 002): which straight or flush to play high

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
        c = FOUR_OF_SEVEN[k, :4]
        info = SF_TABLE[colex4(hand[c[0]], hand[c[1]], hand[c[2]], hand[c[3]])]
        if info < 0:
            continue
        o0, o1, o2 = FOUR_OF_SEVEN[k, 4], FOUR_OF_SEVEN[k, 5], FOUR_OF_SEVEN[k, 6]
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
