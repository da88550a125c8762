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


_STORM = r"""
import _thread, random, signal, sys, threading, time
import numpy as np
from splitpoker.envs.vector.threads import BlockPool

def kernel(lo, hi, seen):  # Python, so an interrupt can land between any two rows as well
    for i in range(lo, hi):
        seen[i] += 1

armed = [False]

def on_sigint(signum, frame):  # one KeyboardInterrupt per armed step: the driver's own lines stay safe
    if armed[0]:
        armed[0] = False
        raise KeyboardInterrupt

signal.signal(signal.SIGINT, on_sigint)
rng = random.Random(int(sys.argv[1]))
stop = threading.Event()

def storm():
    while not stop.is_set():
        time.sleep(rng.uniform(0, 3e-4))
        _thread.interrupt_main()

threading.Thread(target=storm, daemon=True).start()
n, steps, hits = 30, 0, 0
for threads in (2, 3):
    pool = BlockPool(threads)
    seen = np.zeros(n, dtype=np.int64)
    deadline = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < deadline:
        seen[:] = 0
        try:
            armed[0] = True
            pool.run(kernel, n, seen)
            armed[0] = False
            steps += 1
            assert seen.tolist() == [1] * n, seen
        except KeyboardInterrupt:
            hits += 1
            after = seen.copy()
            time.sleep(0.002)
            assert seen.tolist() == after.tolist(), "a worker was still writing after the interrupt"
            assert set(after.tolist()) <= {0, 1}, after
    armed[0] = False
    for _ in range(50):  # the pool steps again, every row once
        seen[:] = 0
        pool.run(kernel, n, seen)
        assert seen.tolist() == [1] * n, seen
    pool.close()
stop.set()
print(f"ok steps={steps} interrupts={hits}")
"""


def test_random_interrupts_never_hang_the_next_step():
    """Ctrl-C landing anywhere in a threaded step (caught by the caller, as an interactive user or a
    training loop does), thousands of times: the step in flight leaves no worker writing, and the
    next steps run every block once. A pool that lost track of a worker hangs the next step, so
    the storm runs in a child process under a timeout."""
    import subprocess
    import sys

    try:
        out = subprocess.run([sys.executable, "-c", _STORM, "7", "1.5"], capture_output=True, text=True,
                             timeout=60)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"a step after the interrupts hung (stderr: {e.stderr!r})")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok"), out.stdout
    interrupts = int(out.stdout.split("interrupts=")[1])
    assert interrupts >= 200, out.stdout  # the storm really hit the steps


_ENV_STORM = _STORM.split("rng = random.Random")[0].replace(
    "from splitpoker.envs.vector.threads import BlockPool", "from splitpoker.envs.vector.env import AsiaPokerVectorEnv") + r"""
rng = random.Random(int(sys.argv[1]))
env = AsiaPokerVectorEnv(384, num_threads=3, invalid_action="raise")
env.reset(seed=1)
env.step(env.sample_legal_actions())
# numba's first calls leave llvmlite objects as cyclic garbage; a KeyboardInterrupt inside their
# __del__ (run by the garbage collector at any line) frees them twice and aborts the process,
# whatever the thread count (scripts/support/cli.py defers a Ctrl-C there): collect them first
import gc
gc.collect()
stop = threading.Event()

def storm():
    while not stop.is_set():
        time.sleep(rng.uniform(0, 3e-4))
        _thread.interrupt_main()

threading.Thread(target=storm, daemon=True).start()
hits, deadline = 0, time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    actions = env.sample_legal_actions()
    try:
        armed[0] = True
        env.step(actions)
        armed[0] = False
    except KeyboardInterrupt:
        hits += 1
armed[0] = False
stop.set()
for _ in range(20):  # every environment is in a legal state: its legal actions are accepted
    env.step(env.sample_legal_actions())
env.close()
print(f"ok interrupts={hits}")
"""


def test_random_interrupts_in_a_threaded_vector_env_step():
    """The same storm through ``AsiaPokerVectorEnv(384, num_threads=3).step`` (the reported case):
    the env steps again afterwards and every environment accepts its legal actions (an interrupted
    step may have advanced some blocks and not others, each environment whole)."""
    import subprocess
    import sys

    try:
        out = subprocess.run([sys.executable, "-c", _ENV_STORM, "3", "1.5"], capture_output=True, text=True,
                             timeout=120)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"a step after the interrupts hung (stderr: {e.stderr!r})")
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split("interrupts=")[1]) >= 100, out.stdout
