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
    hands_per_row,
    popcount,
    run_in_batches,
    split_tasks,
    thread_bins,
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
def _visit_all(tasks, starts, seen, bad):
    for b in prange(starts.shape[0] - 1):
        for k in range(starts[b], starts[b + 1]):
            for_each_hand(tasks[k, 0], tasks[k, 1], _record, (seen, bad[numba.get_thread_id()]))


def test_every_hand_once_at_its_colex_index():
    n = 16
    seen = np.zeros(math.comb(n, 7), dtype=np.int64)
    bad = np.zeros((numba.config.NUMBA_NUM_THREADS, 1), dtype=np.int64)
    tasks = top_two_tasks(n)
    assert hands_in(tasks) == math.comb(n, 7) == 11_440
    done = []
    run_in_batches(tasks, lambda rows, starts: _visit_all(rows, starts, seen, bad), progress=done.append, n_batches=7)
    assert (seen == 1).all() and bad.sum() == 0 and sum(done) == 11_440


@njit(parallel=True)
def _visit_split(rows, starts, seen, bad):
    for b in prange(starts.shape[0] - 1):
        for k in range(starts[b], starts[b + 1]):
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
    run_in_batches(rows, lambda rows, starts: _visit_split(rows, starts, seen, bad), progress=done.append, n_batches=5)
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


@pytest.mark.parametrize("n_bins", [1, 2, 3, 8])
@pytest.mark.parametrize("rows", ["tasks", "split"])
def test_thread_bins_partition_the_rows_within_the_largest_row_of_the_mean(n_bins, rows):
    tasks = top_two_tasks(53) if rows == "tasks" else split_tasks(top_two_tasks(53))
    order_by_batch = np.argsort(np.arange(len(tasks)) % 40, kind="stable")
    for batch in np.array_split(tasks[order_by_batch], 40):  # run_in_batches' batches
        sizes = hands_per_row(batch)
        order, starts = thread_bins(sizes, n_bins)
        assert sorted(order.tolist()) == list(range(len(batch)))  # every row once
        assert starts[0] == 0 and starts[-1] == len(batch) and (np.diff(starts) >= 0).all()
        loads = [int(sizes[order[starts[b]:starts[b + 1]]].sum()) for b in range(n_bins)]
        assert sum(loads) == int(sizes.sum())
        # the greedy rule's bound: no bin above the mean by more than the largest row
        assert max(loads) <= sizes.sum() / n_bins + sizes.max()


def test_thread_bins_of_the_dealer_builds_first_batch():
    # 12 tasks of 3,201,373 hands, one of them 2,349,060 (C(51, 5)): a prange over these rows gave the
    # first thread the six largest (3,191,116 hands); two bins give it the largest alone
    batch = np.array_split(top_two_tasks(53)[np.argsort(np.arange(1_128) % 100, kind="stable")], 100)[0]
    sizes = hands_per_row(batch)
    assert len(batch) == 12 and sizes.sum() == 3_201_373 and sizes[:6].sum() == 3_191_116
    order, starts = thread_bins(sizes, 2)
    assert [int(sizes[order[starts[b]:starts[b + 1]]].sum()) for b in range(2)] == [2_349_060, 852_313]
    with pytest.raises(ValueError, match="n_bins=0"):
        thread_bins(sizes, 0)


@njit(parallel=True)
def _bin_threads(starts, out):
    for b in prange(starts.shape[0] - 1):
        for k in range(starts[b], starts[b + 1]):
            out[k] = numba.get_thread_id()


def test_each_bin_runs_on_its_own_thread():
    n = numba.get_num_threads()
    sizes = hands_per_row(top_two_tasks(53))
    order, starts = thread_bins(sizes)
    out = np.full(len(sizes), -1, dtype=np.int64)
    _bin_threads(starts, out)
    per_bin = [set(out[starts[b]:starts[b + 1]].tolist()) for b in range(n)]
    assert all(len(s) == 1 for s in per_bin) and len(set.union(*per_bin)) == n
