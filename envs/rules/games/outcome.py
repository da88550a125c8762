"""Everything the numba kernels do differently per game, behind the one numba game id
(:data:`splitpoker.envs.rules.games.spec.ASIA_ID` / ``PAIGOW_ID``, ``GameSpec.game_id``): a
setting's values, foul and main-bet result, the number of settings, the round kernels' valuation of
every setting, the Monte Carlo's per-dealer-hand sums and their statistics, and the dealer table's
outcome classes, and the exact solver's counting from the dealer table's prefix sums
(:func:`prefix_counts`, :func:`counts_from_prefix`). The batch kernels, the round kernels, the Monte
Carlo, the dealer table, the exact solver, the strategy table and the table share these, so that no
caller picks an ``asia_*`` or ``paigow_*`` function or tests the game id itself: a new hand layout
adds its branch here, nowhere else.

Values are ``(v0, v1, v2)``: Asia ``(high, medium, low)``; Pai Gow ``(back, front, 0)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import (
    N_ASIA_SETTINGS,
    asia_all_setting_ranks,
    asia_hands_won,
    asia_is_fouled,
    asia_main_result,
    asia_setting_ranks,
    asia_setting_values,
)
from splitpoker.envs.rules.games.paigow import (
    N_PAIGOW_SETTINGS,
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_is_fouled,
    paigow_main_result,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.games.spec import PAIGOW_ID

#: the dealer table's packing of values into one outcome class: two-card values 0..90, one-card 0..12
N_MEDIUM = 91
N_LOW = 13


@njit(cache=True, inline="always")
def n_settings(game_id):
    """The number of settings of a seven-card hand (Asia 105, Pai Gow 21)."""
    if game_id == PAIGOW_ID:
        return N_PAIGOW_SETTINGS
    return N_ASIA_SETTINGS


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


@njit(cache=True, inline="always")
def setting_values_into(game_id, hand, rank, to_two, scratch, with_ranks, out_ranks, out_fouled):
    """The round kernels' valuation of every setting of the sorted ``hand``: fouls into
    ``out_fouled`` always, values into ``out_ranks`` only ``with_ranks`` on Asia's fast path
    (:func:`splitpoker.envs.rules.games.asia.asia_setting_values`, in rows 6-7 of the round
    ``scratch``), always for Pai Gow."""
    if game_id == PAIGOW_ID:
        paigow_all_setting_ranks(hand, rank, to_two, out_ranks, out_fouled)
    else:
        asia_setting_values(hand, rank, to_two, scratch, with_ranks, out_ranks, out_fouled)


@njit(cache=True)
def add_samples(game_id, ranks, fouled, values, m, commission, s1, s2):
    """The Monte Carlo's sums over dealer hands with values ``values[:m]`` (rows ``(d0, d1, d2)``,
    in dealing order): add to ``s1``/``s2`` the main result and its square of every setting not
    ``fouled`` (values ``ranks[s]``). Asia's results are +-1: only its wins are counted, in ``s1``.
    Each game has its own loop (the hot one)."""
    if game_id == PAIGOW_ID:
        for j in range(m):
            d0, d1 = values[j, 0], values[j, 1]
            for s in range(N_PAIGOW_SETTINGS):
                if not fouled[s]:
                    x = paigow_main_result(paigow_hands_won(ranks[s, 0], ranks[s, 1], d0, d1), commission)
                    s1[s] += x
                    s2[s] += x * x
    else:
        for j in range(m):
            d0, d1, d2 = values[j, 0], values[j, 1], values[j, 2]
            for s in range(N_ASIA_SETTINGS):
                if not fouled[s]:
                    if asia_hands_won(ranks[s, 0], ranks[s, 1], ranks[s, 2], d0, d1, d2) >= 2:
                        s1[s] += 1.0


@njit(cache=True, inline="always")
def sample_mean_stderr(game_id, s1, s2, n_samples):
    """Mean main result and its standard error from one setting's :func:`add_samples` sums over
    ``n_samples`` dealer hands."""
    if game_id == PAIGOW_ID:
        m = s1 / n_samples
        var = max(s2 / n_samples - m * m, 0.0) * n_samples / max(n_samples - 1, 1)
        return m, np.sqrt(var / n_samples)
    p = s1 / n_samples
    # outcomes are +-1: variance 4 p (1 - p)
    return 2.0 * p - 1.0, 2.0 * np.sqrt(p * (1.0 - p) / max(n_samples - 1, 1))


@njit(cache=True, inline="always")
def outcome_index(game_id, v0, v1, v2):
    """The values of a dealer's setting as one outcome class (the dealer table's entry): Asia
    ``(high * N_MEDIUM + medium) * N_LOW + low``, Pai Gow ``back * N_MEDIUM + front``."""
    if game_id == PAIGOW_ID:
        return v0 * N_MEDIUM + v1
    return (v0 * N_MEDIUM + v1) * N_LOW + v2


def n_outcome_classes(game_id: int, n_rank: int) -> int:
    """The number of outcome classes (:func:`outcome_index`) when the first hand has ``n_rank`` values."""
    return n_rank * N_MEDIUM * (1 if game_id == PAIGOW_ID else N_LOW)


def prefix_counts(game_id: int, n_rank: int, hist: np.ndarray) -> np.ndarray:
    """The exact solver's prefix sums of an outcome-class histogram (:func:`outcome_index`):
    ``P[h, m, l]`` (Asia) / ``P[b, f]`` (Pai Gow) = dealer hands whose every hand value is strictly
    below ``(h, m, l)``; the last index along an axis means "any value" (``P[-1, -1, -1]`` is the
    number of dealer hands)."""
    shape = (n_rank, N_MEDIUM) if game_id == PAIGOW_ID else (n_rank, N_MEDIUM, N_LOW)
    P = np.zeros(tuple(k + 1 for k in shape), dtype=np.int64)
    sums = hist.reshape(shape)
    for axis in range(len(shape)):
        sums = sums.cumsum(axis)
    P[(slice(1, None),) * len(shape)] = sums
    return P


def counts_from_prefix(game_id: int, P: np.ndarray, values: tuple, commission: float):
    """``(n, wins, pushes, losses, ev)`` of player hands with ``values`` (one index array per hand,
    broadcast together: a column per setting, or a grid) against the dealer hands of the prefix sums
    ``P`` (:func:`prefix_counts`), before fouls. Asia: two of three hands win, copies lose, no push;
    Pai Gow: both win ``1 - commission``, one each pushes."""
    if game_id == PAIGOW_ID:
        n = int(P[-1, -1])
        pb, pf = values[0], values[1]
        wins = P[pb, pf]
        losses = n - P[pb, -1] - P[-1, pf] + wins
        pushes = n - wins - losses
        return n, wins, pushes, losses, ((1 - commission) * wins - losses) / n
    n = int(P[-1, -1, -1])
    ph, pm, pl = values[0], values[1], values[2]
    wins = P[ph, pm, -1] + P[ph, -1, pl] + P[-1, pm, pl] - 2 * P[ph, pm, pl]
    losses = n - wins
    return n, wins, np.zeros_like(wins), losses, (wins - losses) / n
