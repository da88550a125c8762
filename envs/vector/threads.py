"""The worker threads of a native vector env: each step hands contiguous blocks of environments
to ``k - 1`` threads of the env's own and runs the first block in the calling thread.

The kernels release the GIL (``nogil``) and write disjoint rows, so the blocks run in parallel.
What remains is the hand-off, paid on every ``step``: waking a worker and hearing back from it.
A :class:`concurrent.futures.ThreadPoolExecutor` costs about 40 microseconds per step for that
(a ``Future``, a queue, a condition variable); this pool gives each worker one lock to wait on
and one to signal with, about 16 microseconds (``docs/vector.md``, "Threads"). A step
of 256 environments takes a few hundred microseconds, so the difference shows.

Workers block (they never spin), so an idle env costs no CPU. A forked child has none of the
parent's threads: :meth:`BlockPool.run` notices the new process id and starts its own. A
``KeyboardInterrupt`` that arrives while workers are still writing their rows is held until
they finish, so no environment is left half stepped.
"""

from __future__ import annotations

import os
import threading


class _Worker:
    """One thread running one job at a time: ``go`` starts it, ``done`` says it finished."""

    def __init__(self, name: str):
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.job = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            job, self.job = self.job, None
            if job is None:  # shutdown
                self.done.release()
                return
            fn, args = job
            try:
                fn(*args)
            except BaseException as exc:  # handed to the calling thread, which re-raises it
                self.error = exc
            finally:
                del fn, args, job  # hold no arrays between steps
                self.done.release()

    def start(self, fn, args) -> None:
        self.job = (fn, args)
        self.go.release()

    def wait(self) -> BaseException | None:
        """Block until the job is done; its error, else a ``KeyboardInterrupt`` that arrived while
        waiting (held until the worker finished writing its rows), else ``None``."""
        interrupted = None
        while True:
            try:
                self.done.acquire()
                break
            except KeyboardInterrupt as exc:
                interrupted = exc
        error, self.error = self.error, None
        return error if error is not None else interrupted

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end and wait for it (bounded: at interpreter exit a daemon thread
        may never run again)."""
        self.job = None
        self.go.release()
        if self.done.acquire(timeout=timeout):
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

    def run(self, kernel, n: int, *args) -> None:
        k = self.threads
        if k == 1:
            kernel(0, n, *args)
            return
        if self._pid != os.getpid():  # first use, or a forked child: the parent's threads are gone
            self._workers = [_Worker(f"{self.name}-{j}") for j in range(1, k)]
            self._pid = os.getpid()
        bounds = [n * j // k for j in range(k + 1)]
        for j, w in enumerate(self._workers, start=1):
            w.start(kernel, (bounds[j], bounds[j + 1]) + args)
        try:
            kernel(bounds[0], bounds[1], *args)
        finally:
            errors = [w.wait() for w in self._workers]
        for e in errors:
            if e is not None:
                raise e

    @property
    def started(self) -> bool:
        """Whether worker threads exist in this process."""
        return bool(self._workers) and self._pid == os.getpid()

    def close(self) -> None:
        """Stop the workers (the pool starts new ones if used again)."""
        if self._pid == os.getpid():
            for w in self._workers:
                w.stop()
        self._workers, self._pid = [], 0
