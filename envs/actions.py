"""One discrete action out of whatever an agent hands in (shared by every environment).

Agents pass Python ints, numpy integers or one-element arrays (SB3's ``predict`` returns an array);
anything else — a float, a bool, a string, an array of several values — is refused with an error
naming the value, never truncated or reinterpreted.
"""

from __future__ import annotations

import numpy as np

from splitpoker.envs.rules.checks import is_integer


def as_action(action, n: int, who: str = "", *, check_range: bool = True) -> int:
    """``action`` as a Python ``int``, checked to lie in ``0..n-1`` unless ``check_range=False``.

    ``who`` names the actor in the messages (e.g. ``" for seat 2"``)."""
    if isinstance(action, np.ndarray):
        if action.size != 1:
            raise ValueError(f"action {action!r}{who} must be a single integer")
        action = action.reshape(-1)[0]
    if not is_integer(action):
        raise ValueError(f"action {action!r}{who} is not an integer in 0..{n - 1}")
    action = int(action)
    if check_range and not 0 <= action < n:
        raise ValueError(f"action {action}{who} out of range: expected 0..{n - 1}")
    return action
