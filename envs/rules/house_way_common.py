"""Shared numba helpers for the house ways: card classes, rank counts, building setting indices.

All functions take a hand as a sorted ``int64[7]`` (joker 52 last) and return setting indices of
:mod:`envs.rules.asia` (0..104) or :mod:`envs.rules.paigow` (0..20).

Card classes (seed 000: "2-6 = Low 7-10 = Medium J-A = High"; seed 002 the same):
``LOW_CLASS`` ranks 0..4, ``MEDIUM_CLASS`` ranks 5..8, ``HIGH_CLASS`` ranks 9..12. The joker is
an ace for classification unless a house way says otherwise (docs/house_ways.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .asia import HIGH_POS, LOW_POS, MEDIUM_POS, N_ASIA_SETTINGS, asia_is_fouled, asia_setting_ranks
from .cards import JOKER
from .paigow import FRONT_POS, N_PAIGOW_SETTINGS, paigow_is_fouled, paigow_setting_ranks

ACE = 12
KING = 11
QUEEN = 10
JACK = 9
TEN = 8
SEVEN = 5
SIX = 4

LOW_CLASS = 0
MEDIUM_CLASS = 1
HIGH_CLASS = 2


def _asia_index_table() -> np.ndarray:
    t = np.full((7, 7, 7), -1, dtype=np.int64)
    for s in range(N_ASIA_SETTINGS):
        lo = LOW_POS[s]
        a, b = MEDIUM_POS[s]
        t[lo, a, b] = s
        t[lo, b, a] = s
    return t


def _paigow_index_table() -> np.ndarray:
    t = np.full((7, 7), -1, dtype=np.int64)
    for s in range(N_PAIGOW_SETTINGS):
        a, b = FRONT_POS[s]
        t[a, b] = s
        t[b, a] = s
    return t


ASIA_INDEX = _asia_index_table()
PAIGOW_INDEX = _paigow_index_table()


@njit(cache=True, inline="always")
def rank_of(card):
    """Rank 0..12 of a card; the joker counts as an ace."""
    return ACE if card == JOKER else card >> 2


@njit(cache=True, inline="always")
def rank_class(rank):
    """LOW_CLASS (2-6), MEDIUM_CLASS (7-10) or HIGH_CLASS (J-A)."""
    if rank <= SIX:
        return LOW_CLASS
    if rank <= TEN:
        return MEDIUM_CLASS
    return HIGH_CLASS


@njit(cache=True, inline="always")
def asia_index(low, med_a, med_b):
    """Asia setting index with position ``low`` in the low hand and ``med_a``, ``med_b`` in the
    medium hand (positions into the sorted hand, any order); -1 if the positions collide."""
    return ASIA_INDEX[low, med_a, med_b]


@njit(cache=True, inline="always")
def paigow_index(front_a, front_b):
    """Pai Gow setting index with positions ``front_a``, ``front_b`` in the front hand."""
    return PAIGOW_INDEX[front_a, front_b]


@njit(cache=True)
def rank_counts(hand, joker_as_ace):
    """Counts per rank (13); the joker adds to the aces when ``joker_as_ace``."""
    counts = np.zeros(13, dtype=np.int64)
    for c in hand:
        if c == JOKER:
            if joker_as_ace:
                counts[ACE] += 1
        else:
            counts[c >> 2] += 1
    return counts


@njit(cache=True)
def asia_best_unfouled(hand, high_rank, high_to_two):
    """The non-fouled Asia setting with the lexicographically largest (high, medium, low) values.

    A documented fallback for hands no house-way rule covers; every hand has a non-fouled setting
    (keeping the four highest-ranked cards together never fouls against lower cards), so this
    never returns -1 for a valid hand."""
    best = -1
    bh = -1
    bm = -1
    bl = -1
    for s in range(N_ASIA_SETTINGS):
        h, m, lo = asia_setting_ranks(hand, s, high_rank)
        if asia_is_fouled(h, m, lo, high_to_two):
            continue
        if h > bh or (h == bh and (m > bm or (m == bm and lo > bl))):
            best = s
            bh = h
            bm = m
            bl = lo
    return best


@njit(cache=True)
def paigow_best_unfouled(hand, back_rank, back_to_two):
    """The non-fouled Pai Gow setting with the largest (front, back) values: the highest front hand
    the back can support, then the best back (a documented fallback)."""
    best = -1
    bb = -1
    bf = -1
    for s in range(N_PAIGOW_SETTINGS):
        b, f = paigow_setting_ranks(hand, s, back_rank)
        if paigow_is_fouled(b, f, back_to_two):
            continue
        if f > bf or (f == bf and b > bb):
            best = s
            bb = b
            bf = f
    return best


__all__ = [
    "ASIA_INDEX", "PAIGOW_INDEX", "HIGH_POS", "MEDIUM_POS", "LOW_POS", "FRONT_POS",
    "asia_index", "paigow_index", "rank_of", "rank_class", "rank_counts",
    "asia_best_unfouled", "paigow_best_unfouled",
]
