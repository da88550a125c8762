"""Enumerating seven-card hands in parallel: the loop nest, the task split, the scheduling.

Every exhaustive job (bonus counts, the house-way proof, the dealer table, the exact solver's
pass over dealer hands) walks the 7-card combinations of ``n`` items (cards 0..52, or positions in
a pool of unseen cards) the same way:

* a *task* is the pair ``(c5, c6)`` of the two largest items; the task holds the C(c5, 5) hands
  below them, so tasks range from 1 to 2.35 million hands — :func:`top_two_tasks` lists them
  largest first, :func:`thread_bins` deals them to one bin per thread by their hands, and
  :func:`run_in_batches` runs them in interleaved batches so a progress bar advances evenly;
* :func:`for_each_hand` runs the five inner loops of one task and calls ``visit(hand, index,
  args)`` for each sorted hand with its colex index (updated incrementally, loop by loop);
* a long job that a Ctrl-C must stop promptly splits the largest tasks by the third largest item
  (:func:`split_tasks`: rows ``(c5, c6, c4_lo, c4_hi)``, at most about 250,000 hands each instead
  of 2.35 million) and runs a row with :func:`for_each_hand_in`. Python sees the interrupt only
  between batches, and a batch lasts at least as long as its largest task on one thread: the
  bonus enumeration's largest batch took 1.2 s on an idle machine before this, 0.3 s after.

A parallel kernel loops over the bins, not over the tasks: ``for b in prange(starts.shape[0] - 1)``,
then ``for k in range(starts[b], starts[b + 1])`` over that bin's rows. Numba gives each thread
one contiguous block of ``prange`` iterations of equal *count*, and on the omp and workqueue
threading layers ``numba.set_parallel_chunksize`` does not change that (numba issue 8280): a
``prange`` over tasks sorted largest first ran the dealer-table build, the house-way proof and the
exact solves on little more than one thread of two (1.07 CPU seconds per second in
``scripts/benchmark.py --only schedule``; the dealer build's first 12-task batch sent 99.7% of its
hands to the first thread). With one bin per thread, balanced by hand count, every layer
splits the work evenly (tests/test_enumeration.py checks the balance).

Visitors are plain ``@njit`` functions. Do **not** mark a visitor ``inline="always"``: numba
(0.68) then silently drops its writes to arrays passed in ``args`` when it is called through a
function argument (tests/test_enumeration.py guards the counts).
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterator

import numba
import numpy as np
from numba import njit

from splitpoker.envs.rules.ranking.combinatorics import BINOM


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative integer."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(inline="always")
def for_each_hand(c5, c6, visit, args):
    """Call ``visit(hand, colex_index, args)`` for every sorted 7-card hand of items ``0..c6``
    whose two largest items are ``c5 < c6`` (``hand`` is reused: copy it to keep it)."""
    for_each_hand_range(c5, c6, 4, c5, visit, args)


@njit(inline="always")
def for_each_hand_in(task, visit, args):
    """:func:`for_each_hand` over one row of :func:`split_tasks`: ``(c5, c6, c4_lo, c4_hi)``."""
    for_each_hand_range(task[0], task[1], task[2], task[3], visit, args)


@njit(inline="always")
def for_each_hand_range(c5, c6, c4_lo, c4_hi, visit, args):
    """:func:`for_each_hand` for the hands whose third largest item is ``c4_lo <= c4 < c4_hi``."""
    hand = np.empty(7, dtype=np.int64)
    hand[5] = c5
    hand[6] = c6
    b5 = BINOM[c6, 7] + BINOM[c5, 6]
    for c4 in range(c4_lo, c4_hi):
        hand[4] = c4
        b4 = b5 + BINOM[c4, 5]
        for c3 in range(3, c4):
            hand[3] = c3
            b3 = b4 + BINOM[c3, 4]
            for c2 in range(2, c3):
                hand[2] = c2
                b2 = b3 + BINOM[c2, 3]
                for c1 in range(1, c2):
                    hand[1] = c1
                    b1 = b2 + BINOM[c1, 2]
                    for c0 in range(c1):
                        hand[0] = c0
                        visit(hand, b1 + c0, args)


def top_two_tasks(n: int = 53) -> np.ndarray:
    """``int64[C(n, 2) - ..., 2]``: the (c5, c6) pairs of the two largest of 7 items from ``n``,
    largest task first."""
    tasks = [(c5, c6) for c6 in range(6, n) for c5 in range(5, c6)]
    tasks.sort(key=lambda t: -int(BINOM[t[0], 5]))
    return np.array(tasks, dtype=np.int64).reshape(-1, 2)


#: the most hands in a row of :func:`split_tasks` (one value of the third largest item can hold
#: C(49, 4) = 211,876 hands, so that is the least a row can be)
SPLIT_HANDS = 250_000


def split_tasks(tasks: np.ndarray, max_hands: int = SPLIT_HANDS) -> np.ndarray:
    """``int64[T, 4]``: the tasks ``(c5, c6)`` as rows ``(c5, c6, c4_lo, c4_hi)``, a task above
    ``max_hands`` hands cut into ranges of its third largest item ``c4`` of at most ``max_hands``
    hands each (or one value of ``c4``, C(c4, 4) hands, if that is more); largest row first. The
    rows hold the same hands as the tasks, each once (tests/test_enumeration.py)."""
    rows = []
    for c5, c6 in np.asarray(tasks, dtype=np.int64).reshape(-1, 2).tolist():
        lo = 4
        while lo < c5:
            hi = lo + 1
            while hi < c5 and int(BINOM[hi + 1, 5] - BINOM[lo, 5]) <= max_hands:
                hi += 1
            rows.append((c5, c6, lo, hi))
            lo = hi
    rows.sort(key=lambda r: -int(BINOM[r[3], 5] - BINOM[r[2], 5]))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def hands_per_row(tasks: np.ndarray) -> np.ndarray:
    """``int64[T]``: the 7-card hands each row of ``tasks`` covers: rows ``(c5, c6)`` hold
    C(c5, 5) hands, rows ``(c5, c6, c4_lo, c4_hi)`` of :func:`split_tasks` C(c4_hi, 5) - C(c4_lo, 5)."""
    tasks = np.asarray(tasks, dtype=np.int64)
    if not len(tasks):
        return np.zeros(0, dtype=np.int64)
    if tasks.shape[1] == 4:
        return (BINOM[tasks[:, 3], 5] - BINOM[tasks[:, 2], 5]).astype(np.int64)
    return BINOM[tasks[:, 0], 5].astype(np.int64)


def hands_in(tasks: np.ndarray) -> int:
    """Number of 7-card hands the tasks cover (:func:`hands_per_row`, summed)."""
    return int(hands_per_row(tasks).sum())


def thread_bins(sizes: np.ndarray, n_bins: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows of sizes ``sizes`` dealt to ``n_bins`` bins (default: numba's current thread count)
    of nearly equal total size: largest row first, each to the bin with the least so far (the
    greedy LPT rule: no bin exceeds the mean by more than the largest row). Returns ``(order,
    starts)``: the row indices grouped bin by bin (largest first within a bin), bin ``b`` holding
    ``order[starts[b]:starts[b + 1]]``. A kernel runs bin ``b`` on ``prange`` iteration ``b``, so
    each thread gets one bin, whatever the threading layer (see the module docstring)."""
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1)
    n_bins = int(numba.get_num_threads() if n_bins is None else n_bins)
    if n_bins < 1:
        raise ValueError(f"n_bins={n_bins!r}: expected a positive integer")
    loads = [(0, b) for b in range(n_bins)]  # (hands so far, bin): a heap, lightest first
    heapq.heapify(loads)
    owner = np.empty(sizes.shape[0], dtype=np.int64)
    for i in np.argsort(-sizes, kind="stable").tolist():
        load, b = heapq.heappop(loads)
        owner[i] = b
        heapq.heappush(loads, (load + int(sizes[i]), b))
    order = np.lexsort((-sizes, owner)).astype(np.int64)
    starts = np.zeros(n_bins + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n_bins), out=starts[1:])
    return order, starts


@functools.lru_cache(maxsize=64)
def _binned_tasks(n: int, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    tasks = top_two_tasks(n)
    order, starts = thread_bins(hands_per_row(tasks), n_bins)
    rows = np.ascontiguousarray(tasks[order])
    rows.flags.writeable = False
    starts.flags.writeable = False
    return rows, starts


def binned_tasks(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, starts)``: all of :func:`top_two_tasks` ``(n)`` in one bin per thread
    (:func:`thread_bins`), for a kernel that walks every hand in one call (an exact solve's pass
    over the dealer hands); kept per ``(n, thread count)``, read-only."""
    return _binned_tasks(int(n), int(numba.get_num_threads()))


def binned_batches(tasks: np.ndarray, n_batches: int = 40) -> Iterator[tuple[np.ndarray, np.ndarray, int]]:
    """``(rows, starts, hands)`` for each of ``n_batches`` interleaved batches of ``tasks`` (batch
    ``j`` holds tasks ``j, j + n_batches, ...``, so every batch mixes large and small ones), its rows
    regrouped into one bin per thread (:func:`thread_bins`: bin ``b`` is
    ``rows[starts[b]:starts[b + 1]]``); ``hands``: the hands the batch covers. Empty batches are
    skipped."""
    interleaved = np.argsort(np.arange(len(tasks)) % n_batches, kind="stable")
    for batch in np.array_split(tasks[interleaved], n_batches):
        if len(batch):
            sizes = hands_per_row(batch)
            order, starts = thread_bins(sizes)
            yield np.ascontiguousarray(batch[order]), starts, int(sizes.sum())


def run_in_batches(tasks: np.ndarray, run: Callable[[np.ndarray, np.ndarray], None], progress=None,
                   n_batches: int = 40) -> None:
    """``run(rows, starts)`` on each of :func:`binned_batches`; ``progress(n)`` after each batch
    with the number of hands it covered."""
    for rows, starts, hands in binned_batches(tasks, n_batches):
        run(rows, starts)
        if progress is not None:
            progress(hands)
