"""What the three house-way styles share: rule ids, rank names, the straight/flush pre-check,
the four-of-seven split, setting indices and the fallback.

All functions take a hand as a sorted ``int64[7]`` (joker 52 last) and return setting indices of
:mod:`splitpoker.envs.rules.games.asia` (0..104) or :mod:`splitpoker.envs.rules.games.paigow` (0..20).

Every style module has the same shape:

* its rule ids, an ``IntEnum`` built from a table of ``(NAME, text)`` pairs in
  :mod:`splitpoker.envs.rules.house_ways.rule_ids` (numba reads the members as integer constants, so the
  kernels say ``R.TWO_PAIRS``);
* one small numba function per rule, its docstring quoting the seed sentence it implements;
* a dispatch function ``house_way_<style>_with_rule(hand, rank_table, to_two)`` returning
  ``(setting, rule id)``. Batch work goes through :mod:`splitpoker.envs.rules.house_ways.batch`, which
  dispatches on the style id.

Card classes (seed 000: "2-6 = Low 7-10 = Medium J-A = High"; seed 002 the same):
ranks ``TWO..SIX``, ``SEVEN..TEN``, ``JACK..ACE``; the rules test them as ``r <= SIX`` and
``r >= JACK``. The joker is an ace for classification unless a house way says otherwise
(docs/house_ways.md).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import JOKER, Rank
from splitpoker.envs.rules.enumeration import popcount
from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    N_ASIA_SETTINGS,
    asia_is_fouled,
    asia_setting_ranks,
)
from splitpoker.envs.rules.games.paigow import (
    N_PAIGOW_SETTINGS,
    paigow_is_fouled,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.ranking.combinatorics import colex4

# rank names the rules use, all from the one :class:`~splitpoker.envs.rules.cards.Rank`
TWO, FIVE, SIX, SEVEN = int(Rank.TWO), int(Rank.FIVE), int(Rank.SIX), int(Rank.SEVEN)
TEN, JACK, QUEEN, KING, ACE = int(Rank.TEN), int(Rank.JACK), int(Rank.QUEEN), int(Rank.KING), int(Rank.ACE)


# The 35 ways to pick four of seven positions: columns 0-3 the four, 4-6 the other three
# (both ascending), in ``itertools.combinations`` order.
FOUR_OF_SEVEN = np.array([list(h) + [p for p in range(7) if p not in h]
                          for h in combinations(range(7), 4)], dtype=np.int64)
FOUR_OF_SEVEN.setflags(write=False)


def _asia_index_table() -> np.ndarray:
    t = np.full((7, 7, 7), -1, dtype=np.int64)
    for s in range(N_ASIA_SETTINGS):
        lo = LOW_POS[s]
        a, b = MEDIUM_POS[s]
        t[lo, a, b] = s
        t[lo, b, a] = s
    return t



ASIA_INDEX = _asia_index_table()


@njit(cache=True, inline="always")
def rank_of(card):
    """Rank 0..12 of a card; the joker counts as an ace."""
    return ACE if card == JOKER else card >> 2


SCRATCH_SIZE = 14  # length of each of the four scratch arrays of :func:`group_hand`


@njit(cache=True)
def group_hand(hand, rk, gr, gs, gc):
    """Rank groups of ``hand``, the one grouping of cards all three styles read; returns their
    number. ``rk[i]`` is card i's rank (the joker is an ace); groups ``k = 0..n-1`` are ordered
    by size, then rank, descending: rank ``gr[k]``, first position ``gs[k]`` (its cards are positions ``gs[k] .. gs[k] + gc[k] - 1``), size ``gc[k]``.
    ``gc[n..6]`` are zeroed. Entries 7..13 are scratch. The hand is sorted, so a group is a run of
    positions (the joker, 52, right after the aces)::

        positions   0    1    2    3    4    5    6
        hand       4d   5s   6h   6c   Jd   Ad   JK
        groups     k=0: A JK (gr 12, gs 5, gc 2)   k=1: 6 6 (gr 4, gs 2, gc 2)
                   k=2: J (gs 4)   k=3: 5 (gs 1)   k=4: 4 (gs 0)             n = 5
    """
    n = 0
    for i in range(7):
        r = rank_of(hand[i])
        rk[i] = r
        if i > 0 and r == rk[i - 1]:
            gc[6 + n] += 1
        else:
            gr[7 + n] = r
            gs[7 + n] = i
            gc[7 + n] = 1
            n += 1
    k = 0
    for size in range(5, 0, -1):
        for j in range(n - 1, -1, -1):
            if gc[7 + j] == size:
                gr[k] = gr[7 + j]
                gs[k] = gs[7 + j]
                gc[k] = size
                k += 1
    for j in range(n, 7):
        gc[j] = 0
    return n


@njit(cache=True, inline="always")
def n_high(gr, first, n):
    """Number of High cards (J-A; the joker is an ace) among groups ``first .. n-1``."""
    count = 0
    for k in range(first, n):
        if gr[k] >= JACK:
            count += 1
    return count


@njit(cache=True, inline="always")
def asia_index(low, med_a, med_b):
    """Asia setting index with position ``low`` in the low hand and ``med_a``, ``med_b`` in the
    medium hand (positions into the sorted hand, any order); -1 if the positions collide."""
    return ASIA_INDEX[low, med_a, med_b]


@njit(cache=True)
def may_make_straight_or_flush(hand, n_cards):
    """Cheap pre-check: False only if no ``n_cards`` (4 or 5) of the seven cards can make a
    straight or a flush, the joker filling any gap: no suit with ``n_cards`` cards counting the
    joker, no window of ``n_cards`` consecutive ranks (the ace also low) holding ``n_cards``
    cards counting the joker."""
    joker = 1 if hand[6] == JOKER else 0
    suits = 0  # four 4-bit counters, one per suit
    mask = 0
    for i in range(7 - joker):
        suits += 1 << ((hand[i] & 3) << 2)
        mask |= 1 << (hand[i] >> 2)
    for u in range(4):
        if ((suits >> (u << 2)) & 15) + joker >= n_cards:
            return True
    wide = (mask << 1) | ((mask >> ACE) & 1)  # bit 0: ace low, bit r+1: rank r
    window = (1 << n_cards) - 1
    for lo in range(15 - n_cards):
        if popcount((wide >> lo) & window) + joker >= n_cards:
            return True
    return False


@njit(cache=True, inline="always")
def setting_positions(s):
    """``(low, medium_a, medium_b)`` positions of Asia setting ``s``, the inverse of
    :func:`asia_index` (``(-1, -1, -1)`` for ``s < 0``): the shape an Asia rule returns."""
    if s < 0:
        return -1, -1, -1
    return LOW_POS[s], MEDIUM_POS[s, 0], MEDIUM_POS[s, 1]


# ---------------------------------------------------------------------------------------------
# equal-rank choice: which of equal-rank cards goes to the Asia high hand. Both styles swap a
# high-hand card for an equal-rank medium/low card when that makes a strictly better high hand
# (a suit completing a flush, the joker completing a straight); medium and low values depend on
# ranks only, so they never change. They differ in the order of swaps (D2 of each style).


@njit(cache=True)
def best_suits_asia_000(hand, s, rk, high_rank):
    """asia-000 D2: swap one High-hand card with an equal-rank Medium/Low card if that makes the High hand
    strictly better (a suit completing a flush); Medium and Low values cannot change. Of equal-rank
    Medium/Low cards the lower card integer then goes Low. The best swap wins, ties to the lowest
    setting index; no improving swap keeps ``s``."""
    best = s
    best_hr = asia_setting_ranks(hand, s, high_rank)[0]
    for i in range(4):
        h = HIGH_POS[s, i]
        for j in range(3):
            o = LOW_POS[s] if j == 2 else MEDIUM_POS[s, j]
            if rk[h] != rk[o]:
                continue
            low = h if j == 2 else LOW_POS[s]
            ma = h if j == 0 else MEDIUM_POS[s, 0]
            mb = h if j == 1 else MEDIUM_POS[s, 1]
            if rk[ma] == rk[low] and ma < low:  # equal ranks: the lower card Low (D2)
                low, ma = ma, low
            if rk[mb] == rk[low] and mb < low:
                low, mb = mb, low
            s2 = asia_index(low, ma, mb)
            hr = asia_setting_ranks(hand, s2, high_rank)[0]
            if hr > best_hr or (hr == best_hr and best != s and s2 < best):
                best, best_hr = s2, hr
    return best


@njit(cache=True)
def best_suits_borgata(hand, r, lo, ma, mb, high_rank):
    """asia-borgata D2: which of equal-rank cards goes to the high hand: swap a high card for an equal-rank
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
    "ASIA_INDEX", "FOUR_OF_SEVEN", "SCRATCH_SIZE", "TWO", "FIVE", "SIX", "SEVEN", "TEN", "JACK", "QUEEN",
    "KING", "ACE", "asia_index", "setting_positions", "rank_of", "group_hand", "n_high", "may_make_straight_or_flush",
    "best_suits_asia_000", "best_suits_borgata", "asia_best_unfouled", "paigow_best_unfouled",
]
