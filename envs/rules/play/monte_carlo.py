"""Monte Carlo expected value of every setting against the house-way dealer (numba).

For a player's 7 cards, deal ``n_samples`` dealer hands from the 46 remaining cards (a seeded
counter-based stream, :mod:`splitpoker.envs.rules.dealing`), set each by the house way once, and score every
setting of the player against the **same** dealer hands (common random numbers: differences
between settings carry far less noise than their separate errors). Returns per setting the mean
main-bet result per unit and its standard error. Fouled settings score -1 exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.dealing import deal_from, remaining_cards, sort7, stream_state
from splitpoker.envs.rules.games.asia import N_ASIA_SETTINGS, asia_all_setting_ranks, asia_hands_won
from splitpoker.envs.rules.games.outcome import setting_values
from splitpoker.envs.rules.games.paigow import (
    N_PAIGOW_SETTINGS,
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_main_result,
)
from splitpoker.envs.rules.games.spec import ASIA_ID, PAIGOW_ID
from splitpoker.envs.rules.house_ways.registry import house_way


@njit(cache=True)
def dealer_values(game_id, seed, i, rest, style_id, rank, to_two, dealer):
    """Deal dealer hand ``i`` of the stream ``seed`` from the 46 ``rest`` cards into ``dealer``
    (sorted) and return the values of its house-way setting
    (:func:`splitpoker.envs.rules.games.outcome.setting_values`)."""
    deal_from(stream_state(seed, i), rest, 46, 7, dealer)
    sort7(dealer, 0)
    return setting_values(game_id, dealer, house_way(style_id, dealer, rank, to_two), rank)


@njit(cache=True)
def setting_sums(game_id, hand, start, stop, seed, style_id, rank, to_two, commission, s1, s2):
    """Add to ``s1``/``s2`` (one entry per setting) the results and squared results of every
    setting against dealer hands ``start .. stop-1`` of the stream (fouled settings: 0; Asia's
    results are counted as wins in ``s1`` only, its outcomes being +-1). Chunks summed in order give
    exactly the one-call result. Returns the fouls."""
    if game_id == ASIA_ID:
        return _asia_sums(hand, start, stop, seed, style_id, rank, to_two, s1)
    return _paigow_sums(hand, start, stop, seed, style_id, rank, to_two, commission, s1, s2)


@njit(cache=True)
def finish(game_id, fouled, s1, s2, n_samples, mean, stderr):
    """Per-setting mean and standard error from :func:`setting_sums` over ``n_samples`` dealer
    hands (fouled settings: -1 exactly, error 0)."""
    for s in range(fouled.shape[0]):
        if fouled[s]:
            mean[s] = -1.0
            stderr[s] = 0.0
        elif game_id == PAIGOW_ID:
            m = s1[s] / n_samples
            var = max(s2[s] / n_samples - m * m, 0.0) * n_samples / max(n_samples - 1, 1)
            mean[s] = m
            stderr[s] = np.sqrt(var / n_samples)
        else:
            p = s1[s] / n_samples
            mean[s] = 2.0 * p - 1.0
            # outcomes are +-1: variance 4 p (1 - p)
            stderr[s] = 2.0 * np.sqrt(p * (1.0 - p) / max(n_samples - 1, 1))


@njit(cache=True)
def _asia_sums(hand, start, stop, seed, style_id, high_rank, high_to_two, s1):
    ranks = np.empty((N_ASIA_SETTINGS, 3), dtype=np.int64)
    fouled = np.empty(N_ASIA_SETTINGS, dtype=np.bool_)
    asia_all_setting_ranks(hand, high_rank, high_to_two, ranks, fouled)
    rest = remaining_cards(hand)
    dealer = np.empty(7, dtype=np.int64)
    for i in range(start, stop):
        dh, dm, dl = dealer_values(ASIA_ID, seed, i, rest, style_id, high_rank, high_to_two, dealer)
        for s in range(N_ASIA_SETTINGS):
            if not fouled[s]:
                if asia_hands_won(ranks[s, 0], ranks[s, 1], ranks[s, 2], dh, dm, dl) >= 2:
                    s1[s] += 1.0
    return fouled


@njit(cache=True)
def _paigow_sums(hand, start, stop, seed, style_id, back_rank, back_to_two, commission, s1, s2):
    ranks = np.empty((N_PAIGOW_SETTINGS, 2), dtype=np.int64)
    fouled = np.empty(N_PAIGOW_SETTINGS, dtype=np.bool_)
    paigow_all_setting_ranks(hand, back_rank, back_to_two, ranks, fouled)
    rest = remaining_cards(hand)
    dealer = np.empty(7, dtype=np.int64)
    for i in range(start, stop):
        db, df, _ = dealer_values(PAIGOW_ID, seed, i, rest, style_id, back_rank, back_to_two, dealer)
        for s in range(N_PAIGOW_SETTINGS):
            if not fouled[s]:
                x = paigow_main_result(paigow_hands_won(ranks[s, 0], ranks[s, 1], db, df), commission)
                s1[s] += x
                s2[s] += x * x
    return fouled
