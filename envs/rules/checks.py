"""The boundary checks every validated entry point shares (numbers, integers, flags), with errors
that name the value and say what was expected.

numpy numbers are accepted where numbers are; booleans are never numbers (``True`` is not the
integer 1 here), and numbers are never booleans.
"""

from __future__ import annotations

import math

import numpy as np


def is_integer(value) -> bool:
    """``value`` is an integer (Python or numpy), not a boolean."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value) -> bool:
    """``value`` is a real number (Python or numpy), not a boolean."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value, lo: int, hi: int, note: str = "") -> int:
    """``value`` as an int in ``lo..hi``, else ``ValueError`` naming ``name`` and the value."""
    if not is_integer(value):
        raise ValueError(f"{name}={value!r} ({type(value).__name__}): expected an integer {lo}..{hi}{note}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name}={value!r}: expected an integer {lo}..{hi}{note}")
    return int(value)


def check_real(name: str, value, *, minimum: float | None = None, positive: bool = False) -> float:
    """``value`` as a finite float (``> 0`` with ``positive``, ``>= minimum``), else ``ValueError``."""
    what = "a finite number" + (" > 0" if positive else "" if minimum is None else f" >= {minimum:g}")
    if not is_number(value):
        raise ValueError(f"{name}={value!r} ({type(value).__name__}): expected {what}")
    x = float(value)
    if not math.isfinite(x) or (positive and not x > 0) or (minimum is not None and x < minimum):
        raise ValueError(f"{name}={value!r}: expected {what}")
    return x


def check_flag(name: str, value) -> bool:
    """``value`` as a bool (Python or numpy), else ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} ({type(value).__name__}): expected true or false")
    return bool(value)
