"""The shared 7-card enumeration: every hand once, in its colex position, over every task."""

import math

import numba
import numpy as np
import pytest
from numba import njit, prange

from splitpoker.envs.rules.enumeration import (
    for_each_hand,
    for_each_hand_in,
    hands_in,
    popcount,
    run_in_batches,
    split_tasks,
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


@njit(parallel=True)
def _visit_split(rows, seen, bad):
    for k in prange(rows.shape[0]):
        for_each_hand_in(rows[k], _record, (seen, bad[numba.get_thread_id()]))


@pytest.mark.parametrize("max_hands", [1, 40, 300])
def test_split_rows_visit_every_hand_once_at_its_colex_index(max_hands):
    n = 16
    seen = np.zeros(math.comb(n, 7), dtype=np.int64)
    bad = np.zeros((numba.config.NUMBA_NUM_THREADS, 1), dtype=np.int64)
    rows = split_tasks(top_two_tasks(n), max_hands)
    sizes = [math.comb(hi, 5) - math.comb(lo, 5) for _, _, lo, hi in rows.tolist()]
    # a row holds at most max_hands hands, or one value of the third largest card (C(c4, 4) hands)
    assert all(s <= max_hands or hi - lo == 1 for s, (_, _, lo, hi) in zip(sizes, rows.tolist(), strict=True))
    assert sizes == sorted(sizes, reverse=True) and hands_in(rows) == sum(sizes) == 11_440
    done = []
    run_in_batches(rows, lambda batch: _visit_split(batch, seen, bad), progress=done.append, n_batches=5)
    assert (seen == 1).all() and bad.sum() == 0 and sum(done) == 11_440


def test_split_rows_of_53_cards():
    rows = split_tasks(top_two_tasks(53))
    sizes = [math.comb(hi, 5) - math.comb(lo, 5) for _, _, lo, hi in rows.tolist()]
    assert sum(sizes) == hands_in(rows) == 154_143_080
    assert max(sizes) <= 250_000 and sizes[0] > math.comb(49, 4)  # the bound, and one c4 value fits under it
    assert len(rows) > len(top_two_tasks(53))


def test_tasks_cover_all_53_card_hands():
    tasks = top_two_tasks(53)
    assert len(tasks) == math.comb(48, 2) == 1_128  # 5 <= c5 < c6 <= 52
    assert hands_in(tasks) == 154_143_080
    assert hands_in(tasks[:1]) == math.comb(51, 5)  # the largest task first


def test_popcount():
    assert [popcount(x) for x in (0, 1, 0b1011, (1 << 13) - 1)] == [0, 1, 3, 13]
