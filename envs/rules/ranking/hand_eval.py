"""Slow-path hand evaluation kernels (numba): the *raw key* of a four- or five-card hand.

These kernels are what the lookup tables in :mod:`splitpoker.envs.rules.ranking.rank_tables` are built from; hot
paths never call them, they read the tables. A raw key is an integer that orders hands of one size
under one set of rules options::

    key = order(category) << 20 | f0 << 16 | f1 << 12 | f2 << 8 | f3 << 4 | f4

``order`` maps a :class:`~splitpoker.envs.rules.ranking.categories.HandCategory` to its place in the game's ranking
(options can swap flush and straight). The fields ``f0..f4`` are the tie-break ranks, most
significant first, as in standard poker: the rank of the largest group first, then kickers
descending. Straights and straight flushes have one field, the *straight value* (see
:func:`straight_value`). Suits never break ties.

Joker (seed 001: "The joker is treated as an ace, except that it may stand for any card needed to
complete a straight, a flush, a straight flush or a royal flush"): the key of a hand with the
joker is the best of

* the joker as an ace (of no particular suit; it can make pairs, trips, quads and five aces);
* the joker as a card absent from the hand that gives a flush or straight flush (all other cards
  of one suit); the best such card is the highest absent rank of that suit, so an ace-high flush
  with the joker plays as ace-king high when the ace of that suit is present (docs/rules.md);
* the joker as any rank that gives a straight.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import JOKER, Rank
from splitpoker.envs.rules.ranking.categories import HandCategory as C

ACE = int(Rank.ACE)

# Category order arrays (index: HandCategory value -> order). Larger is better.
PAIGOW_ORDER = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=np.int64)
ASIA_ORDER_FLUSH_OVER_STRAIGHT = np.array([0, 1, 2, 3, 4, 5, -1, 7, 6, -1, -1], dtype=np.int64)
ASIA_ORDER_STRAIGHT_OVER_FLUSH = np.array([0, 1, 2, 3, 5, 4, -1, 7, 6, -1, -1], dtype=np.int64)

_HIGH = np.int64(C.HIGH_CARD)
_PAIR = np.int64(C.PAIR)
_TWO = np.int64(C.TWO_PAIR)
_TRIPS = np.int64(C.THREE_OF_A_KIND)
_STR = np.int64(C.STRAIGHT)
_FL = np.int64(C.FLUSH)
_FH = np.int64(C.FULL_HOUSE)
_QUADS = np.int64(C.FOUR_OF_A_KIND)
_SF = np.int64(C.STRAIGHT_FLUSH)
_ROYAL = np.int64(C.ROYAL_FLUSH)
_FIVE = np.int64(C.FIVE_ACES)


@njit(cache=True)
def straight_value(top, n, wheel, wheel_high):
    """Field value of an ``n``-card straight whose top card has rank ``top``.

    Ordinary straights: ``top + 1``. The ace-low straight (A-2-3-4 for n=4, A-2-3-4-5 for n=5,
    ``wheel=True``) is the lowest straight (value ``n - 1``) unless ``wheel_high``, in which case
    it is second-highest: value 13, and the ace-high straight moves up to 14.
    """
    if wheel:
        return 13 if wheel_high else n - 1
    if wheel_high and top == ACE:
        return 14
    return top + 1


@njit(cache=True)
def pack_key(order, f0, f1, f2, f3, f4):
    return (order << 20) | (f0 << 16) | (f1 << 12) | (f2 << 8) | (f3 << 4) | f4


@njit(cache=True)
def key_category(key, order):
    """HandCategory of a raw key (inverse of ``order``)."""
    o = key >> 20
    for c in range(order.shape[0]):
        if order[c] == o:
            return c
    return -1


@njit(cache=True)
def _straight_top(counts, n):
    """Top rank of an n-card straight made by the distinct ranks in ``counts``; -1 if none.

    Returns ``-2`` for the ace-low straight (wheel)."""
    lo = -1
    hi = -1
    for r in range(13):
        if counts[r] > 1:
            return -1
        if counts[r] == 1:
            if lo < 0:
                lo = r
            hi = r
    if hi - lo == n - 1:
        return hi
    if counts[ACE] == 1:
        # wheel: A with 2..(n-1)  (ranks 0..n-2)
        for r in range(n - 1):
            if counts[r] != 1:
                return -1
        return -2
    return -1


@njit(cache=True)
def key_natural(ranks, suits, n, order, wheel_high, royal_label):
    """Raw key of ``n`` cards given as ranks (0..12, repeats allowed) and suits (-1 = no suit).

    ``royal_label``: label the ace-high straight flush ROYAL_FLUSH (Pai Gow) or not (Asia).
    """
    counts = np.zeros(13, dtype=np.int64)
    for i in range(n):
        counts[ranks[i]] += 1
    flush = suits[0] >= 0
    for i in range(1, n):
        if suits[i] != suits[0]:
            flush = False
    top = _straight_top(counts, n)
    straight = top != -1
    sv = 0
    if straight:
        wheel = top == -2
        t = n - 2 if wheel else top
        sv = straight_value(t, n, wheel, wheel_high)
        if flush:
            cat = _ROYAL if (royal_label and t == ACE) else _SF
            return pack_key(order[cat], sv, 0, 0, 0, 0)
    # groups: (count, rank) sorted by count desc then rank desc
    g_rank = np.zeros(5, dtype=np.int64)
    g_cnt = np.zeros(5, dtype=np.int64)
    ng = 0
    for c in range(5, 0, -1):
        for r in range(12, -1, -1):
            if counts[r] == c:
                g_rank[ng] = r
                g_cnt[ng] = c
                ng += 1
    c0 = g_cnt[0]
    c1 = g_cnt[1] if ng > 1 else 0
    if c0 == 5:
        return pack_key(order[_FIVE], 0, 0, 0, 0, 0)
    if c0 == 4:
        cat = _QUADS
    elif c0 == 3 and c1 == 2:
        cat = _FH
    elif flush:
        # flush: all ranks descending (distinct in a real flush)
        f = np.zeros(5, dtype=np.int64)
        k = 0
        for r in range(12, -1, -1):
            for _ in range(counts[r]):
                f[k] = r
                k += 1
        return pack_key(order[_FL], f[0], f[1], f[2], f[3], f[4])
    elif straight:
        return pack_key(order[_STR], sv, 0, 0, 0, 0)
    elif c0 == 3:
        cat = _TRIPS
    elif c0 == 2 and c1 == 2:
        cat = _TWO
    elif c0 == 2:
        cat = _PAIR
    else:
        cat = _HIGH
    f = np.zeros(5, dtype=np.int64)
    for i in range(ng):
        f[i] = g_rank[i]
    return pack_key(order[cat], f[0], f[1], f[2], f[3], f[4])


@njit(cache=True)
def hand_key(cards, n, order, wheel_high, royal_label):
    """Raw key of the ``n`` cards in ``cards`` (ascending; the joker, 52, if present, is last)."""
    ranks = np.empty(5, dtype=np.int64)
    suits = np.empty(5, dtype=np.int64)
    has_joker = cards[n - 1] == JOKER
    m = n - 1 if has_joker else n
    for i in range(m):
        ranks[i] = cards[i] >> 2
        suits[i] = cards[i] & 3
    if not has_joker:
        return key_natural(ranks, suits, n, order, wheel_high, royal_label)
    # 1. the joker as an ace of no suit
    ranks[m] = ACE
    suits[m] = -1
    best = key_natural(ranks, suits, n, order, wheel_high, royal_label)
    # 2. the joker as a card completing a flush / straight flush (real, absent card)
    suited = True
    for i in range(1, m):
        if suits[i] != suits[0]:
            suited = False
    present = np.zeros(13, dtype=np.int64)
    for i in range(m):
        present[ranks[i]] += 1
    if suited:
        s = suits[0]
        for r in range(13):
            if present[r] == 0:
                ranks[m] = r
                suits[m] = s
                k = key_natural(ranks, suits, n, order, wheel_high, royal_label)
                if k > best:
                    best = k
    # 3. the joker as any rank completing a straight
    str_order = order[_STR]
    for r in range(13):
        if present[r] == 0:
            ranks[m] = r
            suits[m] = -1
            k = key_natural(ranks, suits, n, order, wheel_high, royal_label)
            if (k >> 20) == str_order and k > best:
                best = k
    return best


@njit(cache=True)
def two_card_value(a, b):
    """Value 0..90 of a two-card hand (Asia medium, Pai Gow front); the joker plays as an ace.

    Unpaired cards ``hi > lo``: ``hi*(hi-1)/2 + lo`` (0..77, ordered by high card then low card);
    a pair of rank ``r``: ``78 + r`` (78..90). Straights and flushes do not count.
    """
    return two_rank_value(ACE if a == JOKER else a >> 2, ACE if b == JOKER else b >> 2)


@njit(cache=True, inline="always")
def two_rank_value(ra, rb):
    """:func:`two_card_value` of two cards of ranks ``ra`` and ``rb`` (any order)."""
    if ra == rb:
        return 78 + ra
    hi = ra if ra > rb else rb
    lo = rb if ra > rb else ra
    return hi * (hi - 1) // 2 + lo


@njit(cache=True)
def one_card_value(a):
    """Value 0..12 of a one-card hand (Asia low): its rank; the joker is an ace."""
    return ACE if a == JOKER else a >> 2


TWO_CARD_ABOVE_ALL = 91  # projection of any hand better than one pair onto the two-card scale
ONE_CARD_ABOVE_ALL = 13  # projection of a two-card pair onto the one-card scale


@njit(cache=True)
def project_to_two(key, order):
    """Value of a four/five-card hand on the two-card scale, for the foul rule.

    "Category first, then ranks" (docs/rules.md): a high-card hand projects to the two-card
    high-card value of its two top ranks, a one-pair hand to the two-card pair of its pair rank,
    anything better to 91 (above every two-card hand). Not fouled iff projection >= front value.
    """
    cat = key_category(key, order)
    f0 = (key >> 16) & 15
    f1 = (key >> 12) & 15
    if cat == _HIGH:
        return f0 * (f0 - 1) // 2 + f1
    if cat == _PAIR:
        return 78 + f0
    return TWO_CARD_ABOVE_ALL


@njit(cache=True)
def project_two_to_one(value):
    """Value of a two-card hand on the one-card scale: its top rank, or 13 for a pair."""
    if value >= 78:
        return ONE_CARD_ABOVE_ALL
    hi = 1
    while (hi + 1) * hi // 2 <= value:
        hi += 1
    return hi
