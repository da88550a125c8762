"""Exact expected value of every setting of a hand against the house-way dealer.

For the player's seven cards, every one of the C(46, 7) = 53,524,680 dealer hands from the other
46 cards is equally likely. Method (docs/exact_solver.md):

1. One pass over all dealer hands (nested loops over the 46-card pool, colex index updated
   incrementally) reads each hand's outcome class from the dealer table
   (:mod:`splitpoker.envs.solver.dealer_table`) and histograms it. No house way runs here.
2. Prefix sums over the histogram give, for every setting at once, how many dealer hands it beats:
   Asia Poker — with ``N(h,m)`` the dealer hands whose high and medium hands are both strictly
   below the player's (and so on), the hands won two or three times are
   ``N(h,m) + N(h,l) + N(m,l) - 2 N(h,m,l)``; EV = (2 wins - N) / N.
   Pai Gow Poker — ``W = N(back<, front<)``, losses ``L = N - N(back<) - N(front<) + W`` (copies
   go to the dealer), pushes ``N - W - L``; EV = ((1 - commission) W - L) / N.
3. Fouled settings have EV -1.

Counts are exact integers, so every EV is an exact rational over N (``Fraction`` available).
The pool may be any subset of the unseen cards (tests use small pools against brute force).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.enumeration import (
    binned_tasks,
    for_each_hand,
    run_in_batches,
    top_two_tasks,
)
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games import outcome
from splitpoker.envs.rules.games.outcome import hands_won, main_result, setting_values
from splitpoker.envs.rules.house_ways.registry import house_way_into, new_work_block
from splitpoker.envs.rules.ranking.combinatorics import BINOM
from splitpoker.envs.solver.dealer_table import dealer_table, n_classes


@njit(cache=True, inline="always")
def _histogram_task(table, pool, i5, i6, hist):
    """Add to ``hist`` the outcome class of every 7-card hand of ``pool`` whose two largest cards
    are ``pool[i6]`` and ``pool[i5]``. This is :func:`splitpoker.envs.rules.enumeration.for_each_hand` over
    pool positions, specialised: the colex index is that of the *cards* in the full deck, updated
    loop by loop, so the innermost loop costs one table read (the hot path of every solve)."""
    b5 = BINOM[pool[i6], 7] + BINOM[pool[i5], 6]
    for i4 in range(4, i5):
        b4 = b5 + BINOM[pool[i4], 5]
        for i3 in range(3, i4):
            b3 = b4 + BINOM[pool[i3], 4]
            for i2 in range(2, i3):
                b2 = b3 + BINOM[pool[i2], 3]
                for i1 in range(1, i2):
                    b1 = b2 + BINOM[pool[i1], 2]
                    for i0 in range(i1):
                        hist[table[b1 + pool[i0]]] += 1


@njit(cache=True)
def _histogram_serial(table, pool, tasks, hist):
    for k in range(tasks.shape[0]):
        _histogram_task(table, pool, tasks[k, 0], tasks[k, 1], hist)


@njit(cache=True, parallel=True)
def _histogram_parallel(table, pool, tasks, starts, hists):
    """Tasks are (i5, i6) pairs of the two largest pool positions, one bin of them per thread
    (:func:`~splitpoker.envs.rules.enumeration.thread_bins`); one histogram per thread."""
    for b in prange(starts.shape[0] - 1):
        hist = hists[numba.get_thread_id()]
        for k in range(starts[b], starts[b + 1]):
            _histogram_task(table, pool, tasks[k, 0], tasks[k, 1], hist)


@njit(cache=True, inline="always")
def _by_card_task(table, i5, i6, lo, hi, hist):
    """Add the outcome class of every 7-card hand of the cards ``0..`` whose two largest cards
    are ``i6`` and ``i5`` to ``hist[a - lo]`` for each of its cards ``a`` in ``lo..hi-1``: the
    hands that hold card ``a``, counted by class (:func:`histograms_with_card`). The loops are
    :func:`_histogram_task`'s on the pool ``0..``, with one add per card of the block."""
    b5 = BINOM[i6, 7] + BINOM[i5, 6]
    for i4 in range(4, i5):
        b4 = b5 + BINOM[i4, 5]
        for i3 in range(3, i4):
            b3 = b4 + BINOM[i3, 4]
            for i2 in range(2, i3):
                b2 = b3 + BINOM[i2, 3]
                for i1 in range(1, i2):
                    b1 = b2 + BINOM[i1, 2]
                    for i0 in range(i1):
                        k = table[b1 + i0]
                        for a in (i0, i1, i2, i3, i4, i5, i6):
                            if lo <= a < hi:
                                hist[a - lo, k] += 1


@njit(cache=True, parallel=True)
def _by_card_parallel(table, tasks, starts, lo, hi, hists):
    for b in prange(starts.shape[0] - 1):
        hist = hists[numba.get_thread_id()]
        for t in range(starts[b], starts[b + 1]):
            _by_card_task(table, tasks[t, 0], tasks[t, 1], lo, hi, hist)


#: the most memory the per-thread histograms of :func:`histograms_with_card` take at once
BY_CARD_BYTES = 512 * 2**20


def histograms_with_card(table: np.ndarray, universe: int, n_cls: int, progress=None,
                         n_batches: int = 40) -> np.ndarray:
    """``int64[universe, n_cls]``: row ``a`` counts, by outcome class, the 7-card hands of the cards
    ``0..universe-1`` that hold card ``a``. One pass over the C(universe, 7) hands per block of
    cards (a block's per-thread int32 histograms fit :data:`BY_CARD_BYTES`: Pai Gow's 53 cards in
    one pass, Asia's in a few), against one pass of C(universe - 1, 7) hands per card for the
    hands *without* it: the histogram of ``universe`` minus card ``a`` is the full one minus row
    ``a``. Runs in ``n_batches`` calls per pass (Ctrl-C is seen between them); ``progress(n)``
    gets the hands covered."""
    universe = int(universe)
    if int(BINOM[universe, 7]) > table.shape[0]:
        raise ValueError(f"a universe of {universe} cards lies outside this dealer table ({table.shape[0]:,} hands)")
    nt = numba.config.NUMBA_NUM_THREADS
    block = max(1, min(universe, BY_CARD_BYTES // (4 * n_cls * nt)))
    out = np.zeros((universe, n_cls), dtype=np.int64)
    tasks = top_two_tasks(universe)
    for lo in range(0, universe, block):
        hi = min(universe, lo + block)
        hists = np.zeros((nt, hi - lo, n_cls), dtype=np.int32)  # a class of one card: < C(52, 6) hands
        run_in_batches(tasks, lambda rows, starts: _by_card_parallel(table, rows, starts, lo, hi, hists), progress, n_batches)
        out[lo:hi] = hists.sum(axis=0, dtype=np.int64)
    return out


@dataclass(frozen=True)
class ExactResult:
    """Exact outcome counts of every setting of one hand.

    Attributes:
        cards: the player's seven cards, sorted.
        n_dealer_hands: N, the number of dealer hands (C(46, 7) for the full pool).
        wins, pushes, losses: ``int64[n_settings]`` dealer hands each setting wins, pushes, loses
            (Asia: pushes are 0; fouled settings: all losses).
        fouled: ``bool[n_settings]``.
        ev: ``float64[n_settings]`` expected main-bet result per unit wagered.
        commission: the commission used for the Pai Gow EV (0 for Asia).
    """

    game: str
    style: str
    cards: np.ndarray
    n_dealer_hands: int
    wins: np.ndarray
    pushes: np.ndarray
    losses: np.ndarray
    fouled: np.ndarray
    ev: np.ndarray
    commission: float

    def ev_fraction(self, s: int) -> Fraction:
        """EV of setting ``s`` as an exact rational (commission taken as its decimal value)."""
        c = Fraction(str(self.commission))  # 0 in Asia Poker
        return ((1 - c) * int(self.wins[s]) - int(self.losses[s])) / self.n_dealer_hands

    def optimal_settings(self) -> np.ndarray:
        """All settings with the maximal EV (compared exactly, by integer counts)."""
        key = self._exact_key()
        return np.flatnonzero(key == key.max())

    def _exact_key(self) -> np.ndarray:
        # (1 - c) W - L compared exactly with c as a rational p/q: q W - p W - q L (Asia: c = 0, W - L)
        c = Fraction(str(self.commission))
        p, q = c.numerator, c.denominator
        return (q - p) * self.wins - q * self.losses

    def best(self, prefer: int | None = None) -> int:
        """The optimal setting; ties go to ``prefer`` (e.g. the house way) if it is optimal,
        else to the lowest setting index (the documented tie rule)."""
        opt = self.optimal_settings()
        if prefer is not None and prefer in opt:
            return int(prefer)
        return int(opt[0])


def prefix_counts(game: Game, hist: np.ndarray) -> np.ndarray:
    """Step 2's prefix sums of an outcome-class histogram (:func:`splitpoker.envs.rules.games.outcome.prefix_counts`):
    ``P[h, m, l]`` (Asia) / ``P[b, f]`` (Pai Gow) = dealer hands whose every hand value is strictly
    below ``(h, m, l)``; the last index along an axis means "any value"."""
    return outcome.prefix_counts(game.game_id, int(game.engine.table.n_classes), hist)


def result_from_prefix(game: Game, P: np.ndarray, hand: np.ndarray, ranks: np.ndarray,
                       fouled: np.ndarray) -> ExactResult:
    """Steps 2-3: the outcome counts of settings with values ``ranks`` (one row per setting, as
    :meth:`Game.settings` gives them) against the dealer hands whose prefix sums are ``P``
    (:func:`prefix_counts`). Shared by :meth:`ExactSolver.solve` and the strategy table
    (:mod:`splitpoker.agents.policies.strategy_table`), which histograms every dealer hand of the full deck."""
    commission = float(game.commission)
    n, wins, pushes, losses, ev = outcome.counts_from_prefix(game.game_id, P, tuple(ranks.T), commission)
    wins = np.where(fouled, 0, wins)
    pushes = np.where(fouled, 0, pushes)
    losses = np.where(fouled, n, losses)
    ev = np.where(fouled, -1.0, ev)
    return ExactResult(game.game, game.style.value, hand, n, wins, pushes, losses, fouled, ev, commission)


class ExactSolver:
    """Exact EVs for ``game`` (game, style, rules); holds the dealer table and scratch buffers.

    ``threads``: numba threads for the pass over dealer hands (default: all)."""

    def __init__(self, game: Game, table: np.ndarray | None = None, *, log=None, progress=None):
        self.game = game
        self.table = dealer_table(game, log=log, progress=progress) if table is None else table
        self.n_classes = n_classes(game)
        self._hists = None

    def histogram(self, pool: np.ndarray, parallel: bool = True) -> np.ndarray:
        pool = np.ascontiguousarray(pool, dtype=np.int64)
        limit = self.table.shape[0]
        if pool.size < 7:
            raise ValueError(f"a pool of {pool.size} cards cannot deal a 7-card dealer hand")
        if int(BINOM[int(pool.max()) + 1, 7]) > limit:
            raise ValueError(f"pool card {int(pool.max())} lies outside this dealer table ({limit:,} hands)")
        if parallel:
            nt = numba.config.NUMBA_NUM_THREADS
            if self._hists is None or self._hists.shape[0] != nt:
                self._hists = np.zeros((nt, self.n_classes), dtype=np.int64)
            else:
                self._hists[:] = 0
            _histogram_parallel(self.table, pool, *binned_tasks(pool.size), self._hists)
            return self._hists.sum(axis=0)
        hist = np.zeros(self.n_classes, dtype=np.int64)
        _histogram_serial(self.table, pool, top_two_tasks(pool.size), hist)
        return hist

    def solve(self, cards, pool=None, parallel: bool = True) -> ExactResult:
        """Exact counts and EVs of every setting of ``cards`` (dealer hands from ``pool``, default
        all 46 unseen cards)."""
        g = self.game
        hand = g.hand(cards)
        if pool is None:
            pool = np.setdiff1d(np.arange(53), hand)
        else:
            pool = np.unique(np.asarray(pool, dtype=np.int64))
            if np.intersect1d(pool, hand).size:
                raise ValueError("the dealer pool overlaps the player's cards")
        ranks, fouled = g.settings(hand)
        return result_from_prefix(g, prefix_counts(g, self.histogram(pool, parallel)), hand, ranks, fouled)


# ---- the naive method: the house way run for every dealer hand (reference and benchmark) -----

@njit(cache=True)  # a visitor: never inline="always" (see splitpoker.envs.rules.enumeration)
def _naive_hand(positions, index, args):
    """Set the dealer hand at ``positions`` of the pool by the house way; score every setting."""
    game_id, style_id, pool, rank_table, to_two, ranks, fouled, wins, pushes, d, work = args
    for j in range(7):
        d[j] = pool[positions[j]]
    ds = house_way_into(style_id, d, rank_table, to_two, work)
    d0, d1, d2 = setting_values(game_id, d, ds, rank_table)
    three = ranks.shape[1] > 2  # Asia's low hand; Pai Gow's values are (back, front)
    for s in range(ranks.shape[0]):
        if fouled[s]:
            continue
        result = main_result(game_id, hands_won(game_id, ranks[s, 0], ranks[s, 1], ranks[s, 2] if three else 0,
                                                d0, d1, d2), 0.0)
        if result > 0:  # Asia: two of three; Pai Gow: both
            wins[s] += 1
        elif result == 0:  # Pai Gow: one each pushes
            pushes[s] += 1


@njit(cache=True, parallel=True)
def naive_counts(game_id, style_id, pool, rank_table, to_two, ranks, fouled, tasks, starts, wins, pushes):
    """Brute force: for every 7-card dealer hand of ``pool`` run the house way, then compare with
    every non-fouled player setting. ``wins[t, s]`` / ``pushes[t, s]`` per thread ``t``."""
    for b in prange(starts.shape[0] - 1):
        t = numba.get_thread_id()
        args = (game_id, style_id, pool, rank_table, to_two, ranks, fouled, wins[t], pushes[t], np.empty(7, dtype=np.int64),
                new_work_block())
        for k in range(starts[b], starts[b + 1]):
            for_each_hand(tasks[k, 0], tasks[k, 1], _naive_hand, args)


def solve_naive(game: Game, cards, pool=None) -> ExactResult:
    """:class:`ExactResult` by brute force (the house way for every dealer hand; no table)."""
    hand = game.hand(cards)
    pool = np.setdiff1d(np.arange(53), hand) if pool is None else np.unique(np.asarray(pool, dtype=np.int64))
    ranks, fouled = game.settings(hand)
    nt = numba.config.NUMBA_NUM_THREADS
    wins = np.zeros((nt, game.n_settings), dtype=np.int64)
    pushes = np.zeros((nt, game.n_settings), dtype=np.int64)
    naive_counts(game.game_id, game.style_id, pool, game.rank_table, game.to_two, ranks, fouled,
                 *binned_tasks(pool.size), wins, pushes)
    n = math.comb(pool.size, 7)
    w = wins.sum(axis=0)
    p = pushes.sum(axis=0)
    losses = n - w - p
    c = float(game.commission)
    ev = np.where(fouled, -1.0, ((1 - c) * w - losses) / n)
    return ExactResult(game.game, game.style.value, hand, n, w, p, losses, fouled, ev, c)

