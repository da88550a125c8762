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
from splitpoker.envs.rules.games.outcome import (
    add_samples,
    all_setting_values,
    n_settings,
    sample_mean_stderr,
    setting_values,
)
from splitpoker.envs.rules.house_ways.registry import house_way

BLOCK = 64  # dealer hands valued before their sums are added (the per-game loop runs once per block)


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
    results are counted as wins in ``s1`` only, its outcomes being +-1:
    :func:`splitpoker.envs.rules.games.outcome.add_samples`). Chunks summed in order give exactly
    the one-call result. Returns the fouls."""
    n = n_settings(game_id)
    ranks = np.empty((n, 3), dtype=np.int64)  # (v0, v1, v2): Pai Gow fills two columns
    fouled = np.empty(n, dtype=np.bool_)
    all_setting_values(game_id, hand, rank, to_two, ranks, fouled)
    rest = remaining_cards(hand)
    dealer = np.empty(7, dtype=np.int64)
    values = np.empty((BLOCK, 3), dtype=np.int64)  # the dealer values of one block
    for first in range(start, stop, BLOCK):
        m = min(BLOCK, stop - first)
        for j in range(m):
            values[j, 0], values[j, 1], values[j, 2] = dealer_values(game_id, seed, first + j, rest, style_id, rank,
                                                                     to_two, dealer)
        add_samples(game_id, ranks, fouled, values, m, commission, s1, s2)
    return fouled


@njit(cache=True)
def finish(game_id, fouled, s1, s2, n_samples, mean, stderr):
    """Per-setting mean and standard error from :func:`setting_sums` over ``n_samples`` dealer
    hands (fouled settings: -1 exactly, error 0)."""
    for s in range(fouled.shape[0]):
        if fouled[s]:
            mean[s] = -1.0
            stderr[s] = 0.0
        else:
            mean[s], stderr[s] = sample_mean_stderr(game_id, s1[s], s2[s], n_samples)
