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

from .asia import asia_all_setting_ranks, asia_hands_won, asia_main_result, asia_setting_ranks
from .dealing import deal_from_into, remaining_cards_into, sort7, stream_state
from .house_way import house_way
from .paigow import (
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_main_result,
    paigow_setting_ranks,
)

DEAL_SCRATCH_SHAPE = (2, 53)  # deal_player_and_dealers_into's scratch: the shuffled copy, the rest


@njit(cache=True)
def deal_player_and_dealers(seed, n_dealers, player, dealers):
    """Deal a round: ``player[7]`` sorted and ``dealers[n_dealers, 7]`` sorted, from a
    counter-based stream seeded by ``seed`` (one round = one seed)."""
    return deal_player_and_dealers_into(seed, n_dealers, player, dealers, np.empty(DEAL_SCRATCH_SHAPE, np.int64))


@njit(cache=True)
def deal_player_and_dealers_into(seed, n_dealers, player, dealers, work):
    """:func:`deal_player_and_dealers` with caller-owned scratch ``work`` (int64[2, 53]): the
    player's 7 from the full deck (``deal_round(seed, 0, ...)``), then dealer ``d`` from the 46
    remaining cards with stream ``d + 1``. Allocates nothing."""
    deck = work[0]
    for c in range(53):
        deck[c] = c
    state = deal_from_into(stream_state(seed, 0), deck, 53, 7, player, deck)
    sort7(player, 0)
    rest = remaining_cards_into(player, work[1])
    for d in range(n_dealers):
        row = dealers[d]
        state = deal_from_into(stream_state(seed, d + 1), rest, 46, 7, row, deck)
        sort7(row, 0)
    return state


@njit(cache=True)
def asia_settle(ph, pm, pl, fouled, dealers, style_id, high_rank, high_to_two, dealer_settings, dealer_won):
    """Settle a player setting with values (ph, pm, pl) against every dealer hand.

    Fills ``dealer_settings[d]`` (the dealer's house-way setting) and ``dealer_won[d]`` (the
    player's hands won against dealer ``d``); returns the mean ante result per unit (-1 if
    fouled)."""
    total = 0.0
    for d in range(dealers.shape[0]):
        hand = dealers[d]
        ds = house_way(style_id, hand, high_rank, high_to_two)
        dh, dm, dl = asia_setting_ranks(hand, ds, high_rank)
        won = asia_hands_won(ph, pm, pl, dh, dm, dl)
        dealer_settings[d] = ds
        dealer_won[d] = won
        total += -1.0 if fouled else asia_main_result(won)
    return total / dealers.shape[0]


@njit(cache=True)
def paigow_settle(pb, pf, fouled, dealers, style_id, back_rank, back_to_two, commission, dealer_settings, dealer_won):
    """Pai Gow counterpart of :func:`asia_settle` (1 - commission / 0 / -1 per dealer hand)."""
    total = 0.0
    for d in range(dealers.shape[0]):
        hand = dealers[d]
        ds = house_way(style_id, hand, back_rank, back_to_two)
        db, df = paigow_setting_ranks(hand, ds, back_rank)
        won = paigow_hands_won(pb, pf, db, df)
        dealer_settings[d] = ds
        dealer_won[d] = won
        total += -1.0 if fouled else paigow_main_result(won, commission)
    return total / dealers.shape[0]


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
