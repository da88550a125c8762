"""The build lock of a cache entry: one process builds a missing table, the others wait for it.

``locks/<name>-<key digest>.lock`` in the cache folder, taken with POSIX ``flock``. The holder
writes :data:`LOCK_HEADER` and ``pid <pid>`` into it (what ``scripts/cache.py --clear`` tells our
lock files by) and removes it when the build is done, while it still holds it. Only the holder
removes it: a waiter that is interrupted (Ctrl-C) leaves it, so the next process still waits for
the running build instead of starting a second one. A waiter that gets a lock whose file its holder
has just removed opens the file that now has the name and waits on that one (the file it holds
is checked to be the one the name points to). The wait polls a non-blocking ``flock``, so a
Ctrl-C ends it on whichever thread the signal lands.

Where no lock can be had (no ``fcntl``, a read-only folder, a ``locks/`` folder that is a
symbolic link or that someone else could write: a warning) the build runs unlocked; atomic saves
keep every entry whole either way.
"""

from __future__ import annotations

import os
import stat
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from splitpoker.envs.rules import numba_cache as _safety

#: the first line of a lock file we hold (its second line: ``pid <pid>``)
LOCK_HEADER = "splitpoker build lock 1"
#: how often a process waiting for another's build tries the lock again
_LOCK_POLL_SECONDS = 0.1


def try_lock(fcntl, fd: int) -> bool:
    """Take the exclusive ``flock`` on ``fd`` if it is free; False if another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (a holder removes its lock file as it
    finishes: a waiter that then gets the lock holds a file no one else will open)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    here = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (here.st_dev, here.st_ino)


def _open_lock_file(path: Path, name: str, say: Callable[[str], None]) -> int | None:
    """Open (creating) the lock file ``path``; ``None`` if no lock can be had (a read-only or
    unsafe folder: the build then runs unlocked, and saving will warn)."""
    for _ in range(100):  # the folder may be removed by a holder finishing (it then is made again)
        problem = _safety.folder_problem(path.parent)
        if problem is not None:
            msg = f"build lock folder {path.parent} is not safe to use ({problem}): building {name} without a lock"
            warnings.warn(msg, stacklevel=4)
            say(msg)
            return None
        try:
            _safety.make_dirs(path.parent)
            return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                           0o600)
        except FileNotFoundError:
            continue
        except OSError:
            return None
    return None


def _acquire(fcntl, path: Path, name: str, say: Callable[[str], None]) -> int | None:
    """Hold the lock ``path`` (its open fd) once no other process does; ``None``: no lock."""
    said = False
    while True:
        fd = _open_lock_file(path, name, say)
        if fd is None:
            return None
        try:
            if not try_lock(fcntl, fd):
                if not said:
                    said = True
                    say(f"{name}: another process is building it, waiting for {path}")
                # poll rather than block: a blocking flock is cut short by SIGINT only when the
                # signal lands on the main thread, and in a process with other threads (Ray, torch)
                # it may not, so a Ctrl-C would never end the wait (seen: a test hung here for hours)
                while not try_lock(fcntl, fd):
                    time.sleep(_LOCK_POLL_SECONDS)
            if same_file(fd, path):
                os.ftruncate(fd, 0)
                os.write(fd, f"{LOCK_HEADER}\npid {os.getpid()}\n".encode())
                return fd
        except BaseException:  # a Ctrl-C while waiting: the lock file is the holder's, left as it is
            os.close(fd)
            raise
        os.close(fd)  # its holder finished and removed it: lock the file that now has the name


@contextmanager
def held(path: Path, name: str, say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the exclusive lock ``path`` for the build of ``name`` (see the module docstring); waits
    while another process holds it (Ctrl-C interrupts the wait, and leaves the holder's lock file
    alone). Without ``fcntl`` or a writable directory: no lock."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    path = Path(path)
    fd = _acquire(fcntl, path, name, say or (lambda msg: None))
    if fd is None:
        yield
        return
    try:
        yield
    finally:
        # only the holder removes the lock file, while it still holds it (a process waiting on it
        # then finds the entry saved; if the save failed it builds: wasted work, never a torn
        # entry, since saves are atomic)
        try:
            if same_file(fd, path):
                path.unlink()
            path.parent.rmdir()
        except OSError:
            pass
        os.close(fd)  # releases the lock


def lock_file_problem(path: Path, remove: bool) -> str | None:
    """Why the file ``path`` of ``locks/`` is not a lock of ours that no build holds (``None``: it
    is, and it was deleted if ``remove``): a regular file of this user's whose first line is
    :data:`LOCK_HEADER`, whose ``flock`` can be taken now (it is deleted while held)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock files are made
        fcntl = None
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot be inspected ({e.strerror or e})"
    if not stat.S_ISREG(st.st_mode):
        return "not ours (not a regular file)"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"not ours (owned by uid {st.st_uid})"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        return f"cannot be opened ({e.strerror or e})"
    try:
        lines = os.read(fd, 200).decode("utf-8", "replace").split("\n")
        if lines[0] != LOCK_HEADER:
            return "not ours (not a splitpoker build lock)"
        if fcntl is None:  # pragma: no cover
            return "cannot tell whether a build holds it (no fcntl)"
        if not try_lock(fcntl, fd):
            return f"held by a running build ({lines[1] if len(lines) > 2 else 'pid unknown'})"
        if remove and same_file(fd, path):
            os.unlink(path)
        return None
    finally:
        os.close(fd)
