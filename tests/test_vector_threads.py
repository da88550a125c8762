"""The vector env's worker threads (envs/vector/threads.py): blocks, errors, interrupts, shutdown."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from splitpoker.envs.vector.threads import BlockPool


def _mark(lo, hi, seen, owner):
    seen[lo:hi] += 1
    owner[lo:hi] = threading.get_ident()


@pytest.mark.parametrize("threads, n", [(1, 5), (2, 256), (3, 17), (4, 3), (2, 1)])
def test_blocks_cover_every_index_once(threads, n):
    pool = BlockPool(threads)
    seen = np.zeros(n, dtype=np.int64)
    owner = np.zeros(n, dtype=np.int64)
    pool.run(_mark, n, seen, owner)
    assert seen.tolist() == [1] * n
    assert len(set(owner.tolist())) <= min(threads, n)
    if n >= threads:
        assert owner[0] == threading.get_ident()  # the first block runs in the calling thread
        assert len(set(owner.tolist())) == threads  # every block got its own thread
    pool.close()
    assert not pool.started


def test_a_workers_error_is_raised_in_the_caller_and_the_pool_goes_on():
    pool = BlockPool(2)

    def kernel(lo, hi, out):
        if lo > 0:
            raise ValueError(f"block {lo}..{hi} failed")
        out[lo:hi] = 1

    out = np.zeros(10, dtype=np.int64)
    with pytest.raises(ValueError, match="block 5..10 failed"):
        pool.run(kernel, 10, out)
    assert out[:5].tolist() == [1] * 5  # the caller's block finished
    seen = np.zeros(10, dtype=np.int64)
    pool.run(_mark, 10, seen, np.zeros(10, dtype=np.int64))  # the worker is still alive
    assert seen.tolist() == [1] * 10
    pool.close()


def test_an_interrupt_waits_for_the_workers_rows():
    """Ctrl-C in the calling thread's block: the worker's block is still finished (written
    completely) before the KeyboardInterrupt reaches the caller."""
    pool = BlockPool(2)
    out = np.zeros(8, dtype=np.int64)

    def kernel(lo, hi, out):
        if lo == 0:
            raise KeyboardInterrupt
        time.sleep(0.2)  # the worker is slow: the caller must wait for it
        out[lo:hi] = 7

    with pytest.raises(KeyboardInterrupt):
        pool.run(kernel, 8, out)
    assert out[4:].tolist() == [7] * 4
    pool.close()


def test_close_stops_the_threads_and_a_new_run_starts_new_ones():
    pool = BlockPool(3, name="test-pool")
    pool.run(_mark, 9, np.zeros(9, dtype=np.int64), np.zeros(9, dtype=np.int64))
    names = {t.name for t in threading.enumerate()}
    assert {"test-pool-1", "test-pool-2"} <= names
    pool.close()
    assert not {"test-pool-1", "test-pool-2"} & {t.name for t in threading.enumerate()}
    pool.run(_mark, 9, np.zeros(9, dtype=np.int64), np.zeros(9, dtype=np.int64))
    assert pool.started
    pool.close()


def test_bad_thread_count():
    with pytest.raises(ValueError, match="threads=0"):
        BlockPool(0)
