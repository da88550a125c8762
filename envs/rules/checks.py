"""The boundary checks every validated entry point shares (numbers, integers, flags), with errors
that name the value and say what was expected.

numpy numbers are accepted where numbers are; booleans are never numbers (``True`` is not the
integer 1 here), and numbers are never booleans.
"""

from __future__ import annotations

import math
import os
import reprlib

import numpy as np

#: the most characters of a value an error message shows (:func:`short_repr`)
REPR_LIMIT = 200

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, REPR_LIMIT, REPR_LIMIT
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = 8


def short_repr(value, limit: int = REPR_LIMIT) -> str:
    """``repr(value)`` for an error message, at most ``limit`` characters: nested containers are
    shown to 3 levels and 8 items each (``reprlib``; the full repr is never built, so a value of
    billions of shared items costs no memory), then cut with ``...``."""
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the error being reported
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def is_integer(value) -> bool:
    """``value`` is an integer (Python or numpy), not a boolean."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value) -> bool:
    """``value`` is a real number (Python or numpy), not a boolean."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value, lo: int, hi: int, note: str = "") -> int:
    """``value`` as an int in ``lo..hi``, else ``ValueError`` naming ``name`` and the value."""
    if not is_integer(value):
        raise ValueError(f"{name}={short_repr(value)} ({type(value).__name__}): expected an integer {lo}..{hi}{note}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name}={value!r}: expected an integer {lo}..{hi}{note}")
    return int(value)


def check_real(name: str, value, *, minimum: float | None = None, positive: bool = False) -> float:
    """``value`` as a finite float (``> 0`` with ``positive``, ``>= minimum``), else ``ValueError``."""
    what = "a finite number" + (" > 0" if positive else "" if minimum is None else f" >= {minimum:g}")
    if not is_number(value):
        raise ValueError(f"{name}={short_repr(value)} ({type(value).__name__}): expected {what}")
    x = float(value)
    if not math.isfinite(x) or (positive and not x > 0) or (minimum is not None and x < minimum):
        raise ValueError(f"{name}={value!r}: expected {what}")
    return x


def check_flag(name: str, value) -> bool:
    """``value`` as a bool (Python or numpy), else ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={short_repr(value)} ({type(value).__name__}): expected true or false")
    return bool(value)


def available_memory() -> int | None:
    """The memory this machine can give a new allocation now, in bytes: Linux's ``MemAvailable``
    (``/proc/meminfo``: free memory plus the caches it can drop), else ``os.sysconf``'s available
    pages x page size; ``None`` where the system tells neither (then no size is refused)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not on POSIX
        return None
    return int(pages) * int(size) if pages > 0 and size > 0 else None


def gib(nbytes: float) -> str:
    """``nbytes`` as a short figure: ``54.7 GiB``, ``812 MiB``."""
    return f"{nbytes / 2**30:,.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:,.0f} MiB"


def check_fits_in_memory(what: str, nbytes: float, how: str = "") -> None:
    """``ValueError`` when ``what`` needs more memory than this machine has available
    (``nbytes``, an estimate of the arrays it allocates, against :func:`available_memory`), naming
    both figures and ``how`` to make it smaller. The one check of every size that memory bounds
    (vector envs, networks, replay buffers, bet tables, datasets): a run that cannot fit is refused
    before it starts instead of being killed mid-run (or taking the machine's memory from others)."""
    ram = available_memory()
    if ram is not None and nbytes > ram:
        raise ValueError(f"{what} needs about {gib(nbytes)} of memory, more than the {gib(ram)} this machine has "
                         f"available" + (f": {how}" if how else ""))
