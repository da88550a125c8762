"""The process-global state a script or a training run may change, and putting it back.

A script's ``main()`` (and :func:`splitpoker.agents.training.run.train`) may be called in-process,
from a notebook or a test, not only as a program. What it changes for its own run must then be undone
when it returns or raises, or the caller's session is left altered: a Ctrl-C that no longer reaches
Python (SIGINT left ignored after a training run's final save hung a test suite: the next test's
Ctrl-C never arrived), torch left on one thread, an environment variable or a working directory left
changed. :func:`preserved` (a context manager) and :func:`leaves_process_as_found` (a decorator, on
every script's ``main``) snapshot what is listed below and restore it.

What is covered (:class:`ProcessState`):

=====================  ==========================================================================
signal handlers        every signal whose handler Python can read (``signal.getsignal``), restored
                       from the main thread only (Python sets handlers there alone)
environment            ``os.environ``: keys added are removed, changed or removed ones put back
working directory      ``os.getcwd()``
warnings filters       ``warnings.filters`` (the list ``warnings.simplefilter`` edits); filters
                       only *added* while modules were imported are taken as the imports' own
                       (torch, numba, SB3 add theirs when first imported) and kept
torch threads          ``torch.get_num_threads()``, where torch is imported
numba threads          ``numba.get_num_threads()`` of the calling thread, where numba's threading
                       layer has been started (numba keeps the count per thread)
=====================  ==========================================================================

What a package does once when it is first imported (numba's cache folder in ``NUMBA_CACHE_DIR``,
set when ``splitpoker.envs.rules`` is imported; a library's own warnings filters) is part of loading
it, not of a run: :func:`preserved` keeps ``NUMBA_CACHE_DIR`` as the package set it, since numba
re-reads its configuration from the environment at every compile, and keeps the filters that
imports inside the block added (dropping them would bring back warnings a library hides).

``tests/conftest.py`` checks every test against the same snapshot (:func:`differences`), so a test
that leaves any of these changed fails, naming what it changed. There, a variable or a filter
*added* while modules were imported is taken as the import's own (torch adds
``TORCHINDUCTOR_CACHE_DIR``, RLlib ``TF_CPP_MIN_LOG_LEVEL`` when first imported) and not reported;
:func:`restore` still removes every variable the block added (``ray.init`` sets ``PYTHONBREAKPOINT``
to Ray's debugger, which would outlive ``ray.shutdown()`` in a notebook).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

#: environment variables a package sets once, when first imported, for the whole process (see the
#: module docstring): kept as they are when a run's changes are undone
IMPORT_TIME_ENVIRON = ("NUMBA_CACHE_DIR",)

#: variables a library sets once for itself, at its first use rather than its import, to the default it
#: would use anyway: not reported when added (torch's inductor writes its default cache folder
#: into ``TORCHINDUCTOR_CACHE_DIR`` the first time it asks for it, inside SB3's first update)
LIBRARY_ENVIRON = ("TORCHINDUCTOR_CACHE_DIR",)

_UNSETTABLE = {getattr(signal, n) for n in ("SIGKILL", "SIGSTOP") if hasattr(signal, n)}


def _signals() -> list[int]:
    return sorted(s for s in signal.valid_signals() if s not in _UNSETTABLE)


@dataclass(frozen=True)
class ProcessState:
    """One snapshot of the process-global state (the table in the module docstring)."""

    handlers: tuple[tuple[int, Any], ...]
    environ: tuple[tuple[str, str], ...]
    cwd: str | None
    warnings_filters: tuple
    torch_threads: int | None
    numba_threads: int | None
    modules: int = 0  # len(sys.modules): whether the block imported anything


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except FileNotFoundError:  # the folder was removed under us: nothing to restore to
        return None


def _torch_threads() -> int | None:
    torch = sys.modules.get("torch")
    get = getattr(torch, "get_num_threads", None)
    return int(get()) if get is not None else None


def _numba_threads() -> int | None:
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return None  # asking would start numba's threading layer
    return int(parallel.get_num_threads())


def snapshot() -> ProcessState:
    """The process-global state now."""
    handlers = []
    for s in _signals():
        try:
            h = signal.getsignal(s)
        except (ValueError, OSError):  # pragma: no cover - a signal this platform lists but cannot read
            continue
        if h is not None:  # None: a handler installed outside Python, which Python cannot put back
            handlers.append((int(s), h))
    return ProcessState(handlers=tuple(handlers), environ=tuple(sorted(os.environ.items())), cwd=_cwd(),
                        warnings_filters=tuple(warnings.filters), torch_threads=_torch_threads(),
                        numba_threads=_numba_threads(), modules=len(sys.modules))


def _describe(h: Any) -> str:
    if h is signal.SIG_IGN:
        return "SIG_IGN (ignored)"
    if h is signal.SIG_DFL:
        return "SIG_DFL"
    return getattr(h, "__qualname__", None) or repr(h)


def differences(before: ProcessState, after: ProcessState, ignore_environ: tuple[str, ...] = ()) -> list[str]:
    """What changed from ``before`` to ``after``, one line each, naming the signal, variable,
    folder or count with its old and new value (empty: nothing changed). Variables named in
    ``ignore_environ`` are not compared (a test runner's own, such as ``PYTEST_CURRENT_TEST``)."""
    out: list[str] = []
    old_h, new_h = dict(before.handlers), dict(after.handlers)
    for s in sorted(set(old_h) | set(new_h)):
        if old_h.get(s) is not new_h.get(s) and old_h.get(s) != new_h.get(s):
            out.append(f"handler of {signal.Signals(s).name}: {_describe(old_h.get(s))} -> {_describe(new_h.get(s))}")
    old_e, new_e = dict(before.environ), dict(after.environ)
    imported = after.modules > before.modules
    for k in sorted((set(old_e) | set(new_e)) - set(ignore_environ)):
        if k not in old_e and (imported or k in LIBRARY_ENVIRON):
            continue  # a variable added while modules were imported: the import's own (see above)
        if old_e.get(k) != new_e.get(k):
            out.append(f"environment variable {k}: {old_e.get(k)!r} -> {new_e.get(k)!r}")
    if before.cwd != after.cwd:
        out.append(f"working directory: {before.cwd} -> {after.cwd}")
    if before.warnings_filters != after.warnings_filters and not _imports_added_filters(before, after):
        added = [f for f in after.warnings_filters if f not in before.warnings_filters]
        removed = [f for f in before.warnings_filters if f not in after.warnings_filters]
        out.append(f"warnings filters: {len(added)} added {added[:3]}, {len(removed)} removed {removed[:3]}")
    for what, a, b in (("torch threads", before.torch_threads, after.torch_threads),
                       ("numba threads", before.numba_threads, after.numba_threads)):
        if a is not None and b is not None and a != b:
            out.append(f"{what}: {a} -> {b}")
    return out


def _imports_added_filters(before: ProcessState, after: ProcessState) -> bool:
    """Whether the change of warnings filters is only additions made while modules were imported."""
    return after.modules > before.modules and all(f in after.warnings_filters for f in before.warnings_filters)


def restore(state: ProcessState) -> None:
    """Put the process back as ``state`` found it (signal handlers only from the main thread,
    where Python can set them). Variables in :data:`IMPORT_TIME_ENVIRON` keep their current value."""
    if threading.current_thread() is threading.main_thread():
        now = {int(s): signal.getsignal(s) for s in _signals()}
        for s, h in state.handlers:
            if now.get(s) is not h:
                try:
                    signal.signal(s, h)
                except (ValueError, OSError):  # pragma: no cover - a signal the platform will not set
                    pass
    wanted = dict(state.environ)
    for k in IMPORT_TIME_ENVIRON:
        wanted.pop(k, None)
    for k in list(os.environ):
        if k not in wanted and k not in IMPORT_TIME_ENVIRON:
            del os.environ[k]
    for k, v in wanted.items():
        if os.environ.get(k) != v:
            os.environ[k] = v
    if state.cwd is not None and _cwd() != state.cwd:
        with contextlib.suppress(OSError):  # the folder is gone: stay where we are
            os.chdir(state.cwd)
    if tuple(warnings.filters) != state.warnings_filters and not _imports_added_filters(state, snapshot()):
        warnings.filters[:] = list(state.warnings_filters)
        mutated = getattr(warnings, "_filters_mutated", None)  # what simplefilter calls: the caches go stale
        if mutated is not None:
            mutated()
    if state.torch_threads is not None and _torch_threads() not in (None, state.torch_threads):
        sys.modules["torch"].set_num_threads(state.torch_threads)
    if state.numba_threads is not None and _numba_threads() not in (None, state.numba_threads):
        sys.modules["numba.np.ufunc.parallel"].set_num_threads(state.numba_threads)


@contextlib.contextmanager
def preserved() -> Iterator[ProcessState]:
    """``with preserved(): ...``: whatever the block changes of the state above is undone when it
    ends, by return or by exception (a Ctrl-C included)."""
    state = snapshot()
    try:
        yield state
    finally:
        restore(state)


def leaves_process_as_found(func: Callable) -> Callable:
    """Decorator: ``func`` runs under :func:`preserved`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with preserved():
            return func(*args, **kwargs)

    return wrapper
