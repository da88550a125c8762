"""Binomial coefficients and the colex rank of a sorted card combination.

The colex (co-lexicographic) rank of a sorted k-combination ``c0 < c1 < ... < c(k-1)`` of
``0..n-1`` is ``sum_i C(c_i, i + 1)``. It is a bijection onto ``0 .. C(n, k) - 1``: the four-card
table has C(53, 4) = 292,825 entries, the five-card table C(53, 5) = 2,869,685, and the seven-card
dealer table C(53, 7) = 154,143,080. Colex ranks of combinations of a *subset* of the deck (e.g.
the 46 cards left after the player's 7) are taken over positions in that subset.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_N = 64
MAX_K = 8


def _binomial_table() -> np.ndarray:
    t = np.zeros((MAX_N + 1, MAX_K + 1), dtype=np.int64)
    for n in range(MAX_N + 1):
        t[n, 0] = 1
        for k in range(1, min(n, MAX_K) + 1):
            t[n, k] = t[n - 1, k - 1] + (t[n - 1, k] if k <= n - 1 else 0)
    return t


BINOM = _binomial_table()


@njit(cache=True, inline="always")
def colex_index(cards, k):
    """Colex rank of the first ``k`` entries of ``cards`` (sorted ascending)."""
    idx = 0
    for i in range(k):
        idx += BINOM[cards[i], i + 1]
    return idx


@njit(cache=True, inline="always")
def colex4(a, b, c, d):
    return BINOM[a, 1] + BINOM[b, 2] + BINOM[c, 3] + BINOM[d, 4]


@njit(cache=True, inline="always")
def colex5(a, b, c, d, e):
    return BINOM[a, 1] + BINOM[b, 2] + BINOM[c, 3] + BINOM[d, 4] + BINOM[e, 5]


@njit(cache=True)
def colex_unrank(index, k, out):
    """Inverse of :func:`colex_index`: write the sorted combination of rank ``index`` to ``out``."""
    for i in range(k, 0, -1):
        c = i - 1
        while BINOM[c + 1, i] <= index:
            c += 1
        out[i - 1] = c
        index -= BINOM[c, i]
    return out

