"""Enumerating seven-card hands in parallel: the loop nest, the task split, the scheduling.

Every exhaustive job (bonus counts, the house-way proof, the dealer table, the exact solver's
pass over dealer hands) walks the 7-card combinations of ``n`` items (cards 0..52, or positions in
a pool of unseen cards) the same way:

* a *task* is the pair ``(c5, c6)`` of the two largest items; the task holds the C(c5, 5) hands
  below them, so tasks range from 1 to 2.35 million hands — :func:`top_two_tasks` lists them
  largest first and :func:`run_in_batches` deals them to threads dynamically
  (:func:`dynamic_scheduling`), in interleaved batches so a progress bar advances evenly;
* :func:`for_each_hand` runs the five inner loops of one task and calls ``visit(hand, index,
  args)`` for each sorted hand with its colex index (updated incrementally, loop by loop);
* a long job that a Ctrl-C must stop promptly splits the largest tasks by the third largest item
  (:func:`split_tasks`: rows ``(c5, c6, c4_lo, c4_hi)``, at most about 250,000 hands each instead
  of 2.35 million) and runs a row with :func:`for_each_hand_in`. Python sees the interrupt only
  between batches, and a batch lasts at least as long as its largest task on one thread: the
  bonus enumeration's largest batch took 1.2 s on an idle machine before this, 0.3 s after.

Visitors are plain ``@njit`` functions. Do **not** mark a visitor ``inline="always"``: numba
(0.68) then silently drops its writes to arrays passed in ``args`` when it is called through a
function argument (tests/test_enumeration.py guards the counts).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

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


def hands_in(tasks: np.ndarray) -> int:
    """Number of 7-card hands the tasks cover: rows ``(c5, c6)`` hold C(c5, 5) hands, rows ``(c5,
    c6, c4_lo, c4_hi)`` of :func:`split_tasks` C(c4_hi, 5) - C(c4_lo, 5)."""
    if not len(tasks):
        return 0
    if tasks.shape[1] == 4:
        return int((BINOM[tasks[:, 3], 5] - BINOM[tasks[:, 2], 5]).sum())
    return int(BINOM[tasks[:, 0], 5].sum())


@contextmanager
def dynamic_scheduling():
    """Deal ``prange`` iterations to threads one at a time (tasks differ in size a thousandfold)."""
    old = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(old)


def run_in_batches(tasks: np.ndarray, run: Callable[[np.ndarray], None], progress=None, n_batches: int = 40) -> None:
    """``run(batch)`` on interleaved batches of ``tasks`` with dynamic scheduling; ``progress(n)``
    after each batch with the number of hands it covered."""
    order = np.argsort(np.arange(len(tasks)) % n_batches, kind="stable")
    with dynamic_scheduling():
        for batch in np.array_split(tasks[order], n_batches):
            if len(batch):
                run(batch)
                if progress is not None:
                    progress(hands_in(batch))
