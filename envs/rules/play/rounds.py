"""One round's kernels: deal, value the player's settings, settle against the dealer's house way.

Every caller (the round kernel of the environments, :mod:`splitpoker.envs.rules.play.kernel`; the
``Round`` API; ``Game``) goes through the two kernels here, each written once for both games behind
the numba game id (``GameSpec.game_id``):

* :func:`round_start_into` deals the player's 7 cards and ``n_dealers`` dealer hands (each 7 cards
  from the 46 the player does not hold; ``n_dealers > 1`` is the environments' ``dealer_samples``
  variance reduction, 1 is the real game), values every setting (fouls always; values only
  ``with_ranks`` on Asia's fast path) and returns the house way's setting of the player's cards;
* :func:`settle_into` settles one setting's values against every dealer hand set by the house way
  (-1 per dealer hand if the setting fouls) and returns the mean main result per unit.

Both allocate nothing: each caller owns a ``int64[SCRATCH_ROWS, SCRATCH_WIDTH]`` scratch block
(:func:`new_scratch`): rows 0-1 the deal (shuffled deck, remaining cards), rows 2-5 and 8-9 the
house way's work arrays (:data:`splitpoker.envs.rules.house_ways.registry.SCRATCH_WORK_ROWS`), rows
6-7 the setting values' (Asia's fast path, :func:`splitpoker.envs.rules.games.asia.asia_setting_values`:
the 105 settings from 35 high-hand lookups, 21 two-card and 7 one-card values; ``with_ranks=False``
writes only the fouls, what the action mask needs, and the settlement then values the one setting
played). :func:`round_start` and :func:`settle` are the same with fresh scratch, for one-off calls.
Every per-game step is a dispatcher of :mod:`splitpoker.envs.rules.games.outcome`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.dealing import deal_player_and_dealers_into
from splitpoker.envs.rules.games.asia import (  # the fast path's tables, re-exported for its tests
    FOUR_SUBSETS,
    HIGH_OF_SETTING,
    MEDIUM_OF_SETTING,
    PAIRS,
    asia_setting_values,
)
from splitpoker.envs.rules.games.outcome import (
    hands_won,
    main_result,
    setting_values,
    setting_values_into,
)
from splitpoker.envs.rules.house_ways.registry import (
    WORK_BLOCK_ROWS,
    WORK_BLOCK_WIDTH,
    house_way_into,
)

#: the scratch block is the house way's work block (rows 2-5, 8-9) with this module's rows (0-1, 6-7)
SCRATCH_ROWS = WORK_BLOCK_ROWS
SCRATCH_WIDTH = WORK_BLOCK_WIDTH

__all__ = ["FOUR_SUBSETS", "HIGH_OF_SETTING", "MEDIUM_OF_SETTING", "PAIRS", "SCRATCH_ROWS", "SCRATCH_WIDTH",
           "asia_setting_values", "new_scratch", "round_start", "round_start_into", "settle", "settle_into",
           "value_round_into"]


def new_scratch(n: int) -> np.ndarray:
    """Scratch blocks for ``n`` environments: ``int64[n, SCRATCH_ROWS, SCRATCH_WIDTH]``."""
    return np.zeros((n, SCRATCH_ROWS, SCRATCH_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def value_round_into(game_id, style_id, rank, to_two, player, ranks, fouled, scratch, with_ranks):
    """Value the settings of the dealt ``player[7]`` into ``ranks`` and ``fouled`` (Asia's values
    only ``with_ranks``; Pai Gow's always) and return the house way's setting of the player's
    cards (for the "play the house way" action and agreement metrics)."""
    setting_values_into(game_id, player, rank, to_two, scratch, with_ranks, ranks, fouled)
    return house_way_into(style_id, player, rank, to_two, scratch)


@njit(cache=True, inline="always")
def round_start_into(game_id, seed, style_id, rank, to_two, player, dealers, ranks, fouled, scratch, with_ranks):
    """Deal round ``seed`` (one counter-based stream per round) into ``player[7]`` and
    ``dealers[n, 7]`` (each sorted), then :func:`value_round_into`."""
    deal_player_and_dealers_into(seed, dealers.shape[0], player, dealers, scratch[0:2])
    return value_round_into(game_id, style_id, rank, to_two, player, ranks, fouled, scratch, with_ranks)


@njit(cache=True, inline="always")
def settle_into(game_id, v0, v1, v2, fouled, dealers, style_id, rank, to_two, commission, dealer_settings,
                dealer_won, scratch):
    """Settle a setting with values ``(v0, v1, v2)`` against every dealer hand: fills
    ``dealer_settings[d]`` (the dealer's house-way setting) and ``dealer_won[d]`` (the player's
    hands won against dealer ``d``); returns the mean main result per unit (-1 if ``fouled``)."""
    total = 0.0
    for d in range(dealers.shape[0]):
        hand = dealers[d]
        ds = house_way_into(style_id, hand, rank, to_two, scratch)
        d0, d1, d2 = setting_values(game_id, hand, ds, rank)
        won = hands_won(game_id, v0, v1, v2, d0, d1, d2)
        dealer_settings[d] = ds
        dealer_won[d] = won
        total += -1.0 if fouled else main_result(game_id, won, commission)
    return total / dealers.shape[0]


@njit(cache=True)
def round_start(game_id, seed, style_id, rank, to_two, player, dealers, ranks, fouled):
    """:func:`round_start_into` with fresh scratch and every setting's values."""
    return round_start_into(game_id, seed, style_id, rank, to_two, player, dealers, ranks, fouled,
                            np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), np.int64), True)


@njit(cache=True)
def settle(game_id, v0, v1, v2, fouled, dealers, style_id, rank, to_two, commission, dealer_settings, dealer_won):
    """:func:`settle_into` with fresh scratch."""
    return settle_into(game_id, v0, v1, v2, fouled, dealers, style_id, rank, to_two, commission, dealer_settings,
                       dealer_won, np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), np.int64))
