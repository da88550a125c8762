"""One round of play as numba kernels: deal, evaluate the player's settings, settle against the
dealer's house way. The environments, baseline agents and simulators call these; no rules logic
lives in an environment's ``step()``.

A round deals the player's 7 cards and ``n_dealers`` dealer hands, each 7 cards from the 46 the
player does not hold (``n_dealers > 1`` is the environments' ``dealer_samples`` variance
reduction: independent dealer hands from the same remaining deck; 1 is the real game).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import asia_all_setting_ranks
from splitpoker.envs.rules.games.paigow import paigow_all_setting_ranks
from splitpoker.envs.rules.house_ways.registry import house_way
from splitpoker.envs.rules.play.dealing import deal_player_and_dealers
from splitpoker.envs.rules.play.rounds_batch import (
    SCRATCH_ROWS,
    SCRATCH_WIDTH,
    asia_settle_into,
    paigow_settle_into,
)


@njit(cache=True)
def asia_settle(ph, pm, pl, fouled, dealers, style_id, high_rank, high_to_two, dealer_settings, dealer_won):
    """Settle a player setting with values (ph, pm, pl) against every dealer hand.

    Fills ``dealer_settings[d]`` (the dealer's house-way setting) and ``dealer_won[d]`` (the
    player's hands won against dealer ``d``); returns the mean ante result per unit (-1 if
    fouled). The work is :func:`splitpoker.envs.rules.play.rounds_batch.asia_settle_into`'s, with fresh scratch."""
    return asia_settle_into(ph, pm, pl, fouled, dealers, style_id, high_rank, high_to_two, dealer_settings,
                            dealer_won, np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), np.int64))


@njit(cache=True)
def paigow_settle(pb, pf, fouled, dealers, style_id, back_rank, back_to_two, commission, dealer_settings, dealer_won):
    """Pai Gow counterpart of :func:`asia_settle` (1 - commission / 0 / -1 per dealer hand)."""
    return paigow_settle_into(pb, pf, fouled, dealers, style_id, back_rank, back_to_two, commission, dealer_settings,
                              dealer_won, np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), np.int64))


@njit(cache=True)
def asia_round_start(seed, style_id, high_rank, high_to_two, player, dealers, ranks, fouled):
    """Deal a round and evaluate the player's 105 settings; returns the house-way setting of the
    player's own cards (for the "Play the House Way" action and for agreement metrics)."""
    deal_player_and_dealers(seed, dealers.shape[0], player, dealers)
    asia_all_setting_ranks(player, high_rank, high_to_two, ranks, fouled)
    return house_way(style_id, player, high_rank, high_to_two)


@njit(cache=True)
def paigow_round_start(seed, style_id, back_rank, back_to_two, player, dealers, ranks, fouled):
    deal_player_and_dealers(seed, dealers.shape[0], player, dealers)
    paigow_all_setting_ranks(player, back_rank, back_to_two, ranks, fouled)
    return house_way(style_id, player, back_rank, back_to_two)
