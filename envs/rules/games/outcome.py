"""A setting's values, foul and main-bet result for either game, behind one ``paigow`` flag: the
numba helpers the batch kernels (:mod:`splitpoker.envs.rules.house_ways.batch`) and the table settlement
(:mod:`splitpoker.envs.rules.table.table`) share.

Values are ``(v0, v1, v2)``: Asia ``(high, medium, low)``; Pai Gow ``(back, front, 0)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import (
    asia_hands_won,
    asia_is_fouled,
    asia_main_result,
    asia_setting_ranks,
)
from splitpoker.envs.rules.games.paigow import (
    paigow_hands_won,
    paigow_is_fouled,
    paigow_main_result,
    paigow_setting_ranks,
)


@njit(cache=True)
def setting_values(paigow, hand, s, rank):
    """(v0, v1, v2) hand values of setting ``s`` of the sorted ``hand`` (Pai Gow: back, front, 0)."""
    if paigow:
        b, f = paigow_setting_ranks(hand, s, rank)
        return b, f, np.int64(0)
    return asia_setting_ranks(hand, s, rank)


@njit(cache=True)
def setting_fouled(paigow, v0, v1, v2, to_two):
    """True iff the values of a setting foul (a lower hand outranks a higher one)."""
    if paigow:
        return paigow_is_fouled(v0, v1, to_two)
    return asia_is_fouled(v0, v1, v2, to_two)


@njit(cache=True)
def main_outcome(paigow, v0, v1, v2, d0, d1, d2, to_two, commission):
    """``(fouled, hands won, main result per unit)`` of the player's values against the dealer's;
    a fouled setting loses (-1)."""
    if paigow:
        won = paigow_hands_won(v0, v1, d0, d1)
        result = paigow_main_result(won, commission)
    else:
        won = asia_hands_won(v0, v1, v2, d0, d1, d2)
        result = asia_main_result(won)
    fouled = setting_fouled(paigow, v0, v1, v2, to_two)
    if fouled:
        result = -1.0
    return fouled, won, result
