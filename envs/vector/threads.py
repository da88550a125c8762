"""The worker threads of a native vector env: each step hands contiguous blocks of environments
to ``k - 1`` threads of the env's own and runs the first block in the calling thread.

The kernels release the GIL (``nogil``) and write disjoint rows, so the blocks run in parallel.
What remains is the hand-off, paid on every ``step``: waking a worker and hearing back from it.
A :class:`concurrent.futures.ThreadPoolExecutor` costs about 40 microseconds per step for that
(a ``Future``, a queue, a condition variable); this pool gives each worker a queue of jobs and one
lock to signal with, about 16 microseconds (``docs/vector.md``, "Threads"). A step
of 256 environments takes a few hundred microseconds, so the difference shows.

Workers block (they never spin), so an idle env costs no CPU. A forked child has none of the
parent's threads: :meth:`BlockPool.run` notices the new process id and starts its own.

Ctrl-C. A ``KeyboardInterrupt`` can land between any two lines of the calling thread, so the
hand-off keeps no state there that an interrupt could leave half updated: a job is handed out by
one atomic ``put`` and numbered, and each worker counts the jobs it has finished. An interrupt
during a step is held until every worker has finished the jobs it was given (a numbered empty job
queued behind them, waited for), then raised: no environment is left half stepped and no worker
writes after the caller has seen the interrupt. A step interrupted while it was handing out the
blocks may have stepped some blocks and not others (each environment whole); the next step runs
normally (``tests/test_vector_threads.py`` interrupts thousands of steps at random points).
"""

from __future__ import annotations

import os
import queue
import threading


class _Worker:
    """One thread running the jobs of a queue in order. A job is ``(fn, args, seq)``: ``fn(*args)``
    (``fn`` None: an empty job, a barrier), then ``finished = seq`` and a wake-up of ``done``.

    Ctrl-C can land between any two lines of the calling thread, so nothing the caller needs is
    kept on its side: handing out a job is one atomic ``put`` (the job is queued or it is not),
    and what was done is the worker's own ``finished`` counter, which only the worker writes.
    ``done`` is only a wake-up (released when it is locked, so never twice): a caller that missed
    one, or finds a stale one, reads ``finished`` again."""

    def __init__(self, name: str):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.done = threading.Lock()
        self.done.acquire()
        self.finished = 0
        self.error: tuple[int, BaseException] | None = None  # (seq, error) of the last failed job
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:  # shutdown
                return
            fn, args, seq = job
            try:
                if fn is not None:
                    fn(*args)
            except BaseException as exc:  # handed to the calling thread, which re-raises it
                self.error = (seq, exc)
            finally:
                del fn, args, job  # hold no arrays between steps
                self.finished = seq
                if self.done.locked():  # only this thread releases it, so no race with the check
                    self.done.release()

    def start(self, fn, args, seq: int) -> None:
        self.jobs.put((fn, args, seq))

    def wait(self, seq: int) -> BaseException | None:
        """Block until job ``seq`` (and every job before it) is done; its error or ``None``. A
        ``KeyboardInterrupt`` while waiting propagates (see :meth:`BlockPool._settle`)."""
        while self.finished < seq:
            self.done.acquire()
        error, self.error = self.error, None  # an older job's error (of an interrupted step) is dropped
        return error[1] if error is not None and error[0] == seq else None

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end after its queued jobs and wait for it (bounded: at interpreter
        exit a daemon thread may never run again)."""
        self.jobs.put(None)
        self.thread.join(timeout)


class BlockPool:
    """``run(kernel, n, *args)`` calls ``kernel(lo, hi, *args)`` on ``threads`` contiguous blocks
    of ``0..n-1``: the first in the calling thread, the others on the pool's workers (started on
    first use, stopped by :meth:`close`)."""

    def __init__(self, threads: int, name: str = "splitpoker-vector"):
        if threads < 1:
            raise ValueError(f"threads={threads!r}: expected a positive integer")
        self.threads = int(threads)
        self.name = name
        self._workers: list[_Worker] = []
        self._pid = 0
        self._seq = 0  # the number of the last job handed out (steps and barriers)
        self._settled = True  # False from the start of a run until its workers are known idle

    def run(self, kernel, n: int, *args) -> None:
        k = self.threads
        if k == 1:
            kernel(0, n, *args)
            return
        if self._pid != os.getpid():  # first use, or a forked child: the parent's threads are gone
            self._workers = [_Worker(f"{self.name}-{j}") for j in range(1, k)]
            self._pid = os.getpid()
            self._settled = True
        if not self._settled:  # an earlier run was interrupted twice: finish its jobs first
            self._settle()
        self._settled = False
        self._seq += 1
        seq = self._seq
        bounds = [n * j // k for j in range(k + 1)]
        try:
            for j, w in enumerate(self._workers, start=1):
                w.start(kernel, (bounds[j], bounds[j + 1]) + args, seq)
            kernel(bounds[0], bounds[1], *args)
            errors = [w.wait(seq) for w in self._workers]
        except BaseException:  # Ctrl-C anywhere above, or the caller's block failed
            self._settle()
            raise
        self._settled = True
        for e in errors:
            if e is not None:
                raise e

    def _settle(self) -> None:
        """Wait until every worker has finished every job handed to it (an empty job queued
        behind them, waited for). A Ctrl-C meanwhile is held and raised once they are idle, so no
        environment is left half stepped; another one landing in the bookkeeping leaves the pool
        unsettled, and the next run settles it first."""
        held = None
        while True:
            try:
                self._seq += 1
                barrier = self._seq
                for w in self._workers:
                    w.start(None, (), barrier)
                for w in self._workers:
                    w.wait(barrier)
                break
            except KeyboardInterrupt as exc:
                held = exc
        self._settled = True
        if held is not None:
            raise held

    @property
    def started(self) -> bool:
        """Whether worker threads exist in this process."""
        return bool(self._workers) and self._pid == os.getpid()

    def close(self) -> None:
        """Stop the workers (the pool starts new ones if used again)."""
        if self._pid == os.getpid():
            for w in self._workers:
                w.stop()
        self._workers, self._pid, self._settled = [], 0, True
