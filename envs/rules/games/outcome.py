"""A setting's values, foul and main-bet result for either game, behind the one numba game id
(:data:`splitpoker.envs.rules.games.spec.ASIA_ID` / ``PAIGOW_ID``, ``GameSpec.game_id``): the
primitives every batch kernel, the round kernels, the Monte Carlo and the table share, so that no
caller picks an ``asia_*`` or ``paigow_*`` function itself.

Values are ``(v0, v1, v2)``: Asia ``(high, medium, low)``; Pai Gow ``(back, front, 0)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import (
    asia_all_setting_ranks,
    asia_hands_won,
    asia_is_fouled,
    asia_main_result,
    asia_setting_ranks,
)
from splitpoker.envs.rules.games.paigow import (
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_is_fouled,
    paigow_main_result,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.games.spec import PAIGOW_ID


@njit(cache=True)
def setting_values(game_id, hand, s, rank):
    """(v0, v1, v2) hand values of setting ``s`` of the sorted ``hand`` (Pai Gow: back, front, 0)."""
    if game_id == PAIGOW_ID:
        b, f = paigow_setting_ranks(hand, s, rank)
        return b, f, np.int64(0)
    return asia_setting_ranks(hand, s, rank)


@njit(cache=True)
def all_setting_values(game_id, hand, rank, to_two, out_ranks, out_fouled):
    """Every setting's values into ``out_ranks[n_settings, width]`` and fouls into ``out_fouled``."""
    if game_id == PAIGOW_ID:
        paigow_all_setting_ranks(hand, rank, to_two, out_ranks, out_fouled)
    else:
        asia_all_setting_ranks(hand, rank, to_two, out_ranks, out_fouled)


@njit(cache=True)
def setting_fouled(game_id, v0, v1, v2, to_two):
    """True iff the values of a setting foul (a lower hand outranks a higher one)."""
    if game_id == PAIGOW_ID:
        return paigow_is_fouled(v0, v1, to_two)
    return asia_is_fouled(v0, v1, v2, to_two)


@njit(cache=True, inline="always")
def hands_won(game_id, v0, v1, v2, d0, d1, d2):
    """Hands the player's values win against the dealer's (copies go to the dealer)."""
    if game_id == PAIGOW_ID:
        return paigow_hands_won(v0, v1, d0, d1)
    return asia_hands_won(v0, v1, v2, d0, d1, d2)


@njit(cache=True, inline="always")
def main_result(game_id, won, commission):
    """The main wager's result per unit for ``won`` hands (Asia: two of three win even money;
    Pai Gow: both win ``1 - commission``, one each pushes), before fouls."""
    if game_id == PAIGOW_ID:
        return paigow_main_result(won, commission)
    return asia_main_result(won)


@njit(cache=True)
def main_outcome(game_id, v0, v1, v2, d0, d1, d2, to_two, commission):
    """``(fouled, hands won, main result per unit)`` of the player's values against the dealer's;
    a fouled setting loses (-1)."""
    won = hands_won(game_id, v0, v1, v2, d0, d1, d2)
    result = main_result(game_id, won, commission)
    fouled = setting_fouled(game_id, v0, v1, v2, to_two)
    if fouled:
        result = -1.0
    return fouled, won, result
