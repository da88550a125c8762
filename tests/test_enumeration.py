"""The shared 7-card enumeration: every hand once, in its colex position, over every task."""

import math

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.enumeration import (
    for_each_hand,
    hands_in,
    popcount,
    run_in_batches,
    top_two_tasks,
)
from splitpoker.envs.rules.ranking.combinatorics import colex_index


@njit
def _record(hand, index, args):
    seen, bad = args
    seen[index] += 1
    if colex_index(hand, 7) != index:
        bad[0] += 1
    for j in range(6):
        if hand[j] >= hand[j + 1]:
            bad[0] += 1


@njit(parallel=True)
def _visit_all(tasks, seen, bad):
    for k in prange(tasks.shape[0]):
        for_each_hand(tasks[k, 0], tasks[k, 1], _record, (seen, bad[numba.get_thread_id()]))


def test_every_hand_once_at_its_colex_index():
    n = 16
    seen = np.zeros(math.comb(n, 7), dtype=np.int64)
    bad = np.zeros((numba.config.NUMBA_NUM_THREADS, 1), dtype=np.int64)
    tasks = top_two_tasks(n)
    assert hands_in(tasks) == math.comb(n, 7) == 11_440
    done = []
    run_in_batches(tasks, lambda batch: _visit_all(batch, seen, bad), progress=done.append, n_batches=7)
    assert (seen == 1).all() and bad.sum() == 0 and sum(done) == 11_440


def test_tasks_cover_all_53_card_hands():
    tasks = top_two_tasks(53)
    assert len(tasks) == math.comb(48, 2) == 1_128  # 5 <= c5 < c6 <= 52
    assert hands_in(tasks) == 154_143_080
    assert hands_in(tasks[:1]) == math.comb(51, 5)  # the largest task first


def test_popcount():
    assert [popcount(x) for x in (0, 1, 0b1011, (1 << 13) - 1)] == [0, 1, 3, 13]
