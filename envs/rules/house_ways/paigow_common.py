"""What the Pai Gow Poker house ways share (IGW, Foxwoods): the category of each dense five-card
rank, rank-mask helpers, and resolving a rule's choice (the ranks of the two front cards, or a back
category) to a setting index. Input hands are sorted ``int64[7]`` (joker 52 last)."""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.paigow import FRONT_POS, N_PAIGOW_SETTINGS
from splitpoker.envs.rules.house_ways.common import group_hand, rank_of
from splitpoker.envs.rules.ranking.categories import HandCategory as C

# --------------------------------------------------------------------------------------------
# dense rank -> category of the five-card table. The number of rank classes per category is the
# same under both ``ace_low_straight`` options (rank_tables.py docstring); a test pins this array
# against ``paigow_back_table(rules).class_category`` for both.

_CLASSES_PER_CATEGORY = (
    (C.HIGH_CARD, 1277), (C.PAIR, 2860), (C.TWO_PAIR, 858), (C.THREE_OF_A_KIND, 858),
    (C.STRAIGHT, 10), (C.FLUSH, 1277), (C.FULL_HOUSE, 156), (C.FOUR_OF_A_KIND, 156),
    (C.STRAIGHT_FLUSH, 9), (C.ROYAL_FLUSH, 1), (C.FIVE_ACES, 1),
)
CLASS_CATEGORY = np.concatenate(
    [np.full(n, int(c), dtype=np.int64) for c, n in _CLASSES_PER_CATEGORY]
)
CLASS_CATEGORY.setflags(write=False)


@njit(cache=True, inline="always")
def top_rank(mask):
    """Highest rank set in a 13-bit rank mask, -1 if empty."""
    r = 12
    while r >= 0 and not (mask >> r) & 1:
        r -= 1
    return r


@njit(cache=True, inline="always")
def drop_rank(mask, r):
    """``mask`` without rank ``r``."""
    return mask & ~(1 << r)


# --------------------------------------------------------------------------------------------
# resolving a rule's choice to a setting index


@njit(cache=True)
def setting_for_front_ranks(hand, ra, rb, br, have_br):
    """Setting whose front holds one card of rank ``ra`` and one of ``rb`` (the joker is an ace):
    the best back among those (so the joker and suits go where they make a straight or flush),
    then the lowest index. Without ``have_br`` (no straight or flush is possible, so every such
    setting has the same back) simply the lowest index."""
    lo = min(ra, rb)
    hi = max(ra, rb)
    best = -1
    bb = -1
    for s in range(N_PAIGOW_SETTINGS):
        # hand is sorted, so the front's first card never outranks its second
        if rank_of(hand[FRONT_POS[s, 0]]) == lo and rank_of(hand[FRONT_POS[s, 1]]) == hi:
            if not have_br:
                return s
            if br[s] > bb:
                bb = br[s]
                best = s
    return best


@njit(cache=True)
def best_front_in(br, fr, cat_a, cat_b):
    """Among settings whose back category is ``cat_a`` or ``cat_b``: the highest front, then the
    best back, then the lowest index; -1 if none."""
    best = -1
    bf = -1
    bb = -1
    for s in range(N_PAIGOW_SETTINGS):
        c = CLASS_CATEGORY[br[s]]
        if c != cat_a and c != cat_b:
            continue
        if fr[s] > bf or (fr[s] == bf and br[s] > bb):
            best = s
            bf = fr[s]
            bb = br[s]
    return best


@njit(cache=True, inline="always")
def rank_masks(hand, rk, gr, gs, gc):
    """The hand's 13-bit rank masks by multiplicity (the joker is an ace): ``(singles, pairs,
    trips, quads_rank or -1, five_aces)``; ``rk, gr, gs, gc`` are :func:`group_hand`'s work arrays."""
    m1 = 0
    m2 = 0
    m3 = 0
    q = -1
    five = False
    for k in range(group_hand(hand, rk, gr, gs, gc)):
        n = gc[k]
        if n == 1:
            m1 |= 1 << gr[k]
        elif n == 2:
            m2 |= 1 << gr[k]
        elif n == 3:
            m3 |= 1 << gr[k]
        else:
            q = gr[k]
            five = n == 5
    return m1, m2, m3, q, five
