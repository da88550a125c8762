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
6-7 Asia's setting values below. :func:`round_start` and :func:`settle` are the same with fresh
scratch, for one-off calls.

Asia's fast path: a setting is one of the C(7, 4) = 35 four-card high hands with one of the 3 ways
to split the other three cards, so the 105 settings share 35 high-hand lookups, 21 two-card values
and 7 one-card values (:data:`HIGH_OF_SETTING`, :data:`MEDIUM_OF_SETTING`) instead of 105 of each;
``with_ranks=False`` writes only the fouls (what the action mask needs) and the settlement then
values the one setting played. Layout (positions 0..6 of the sorted hand, as in
:mod:`splitpoker.envs.rules.games.asia`)::

    FOUR_SUBSETS[k]   the k-th 4-subset of positions in lexicographic order (k = 0..34)
    PAIRS[k]          the k-th 2-subset (k = 0..20)
    HIGH_OF_SETTING[s] = k such that FOUR_SUBSETS[k] == HIGH_POS[s]
    MEDIUM_OF_SETTING[s] = k such that PAIRS[k] == MEDIUM_POS[s]
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from splitpoker.envs.rules.dealing import deal_player_and_dealers_into
from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    N_ASIA_SETTINGS,
    TWO_TO_ONE,
)
from splitpoker.envs.rules.games.outcome import (
    all_setting_values,
    hands_won,
    main_result,
    setting_values,
)
from splitpoker.envs.rules.games.paigow import N_PAIGOW_SETTINGS
from splitpoker.envs.rules.games.spec import ASIA_ID
from splitpoker.envs.rules.house_ways.asia_000 import SCRATCH_SIZE
from splitpoker.envs.rules.house_ways.registry import house_way_into
from splitpoker.envs.rules.ranking.combinatorics import colex4
from splitpoker.envs.rules.ranking.hand_eval import one_card_value, two_card_value

SCRATCH_ROWS = 10
SCRATCH_WIDTH = 53
assert SCRATCH_SIZE <= SCRATCH_WIDTH and N_PAIGOW_SETTINGS <= SCRATCH_WIDTH

FOUR_SUBSETS = np.array(list(combinations(range(7), 4)), dtype=np.int64)
PAIRS = np.array(list(combinations(range(7), 2)), dtype=np.int64)
_FOUR_INDEX = {tuple(c): k for k, c in enumerate(FOUR_SUBSETS.tolist())}
_PAIR_INDEX = {tuple(c): k for k, c in enumerate(PAIRS.tolist())}
HIGH_OF_SETTING = np.array([_FOUR_INDEX[tuple(HIGH_POS[s])] for s in range(N_ASIA_SETTINGS)], dtype=np.int64)
MEDIUM_OF_SETTING = np.array([_PAIR_INDEX[tuple(MEDIUM_POS[s])] for s in range(N_ASIA_SETTINGS)], dtype=np.int64)
for _a in (FOUR_SUBSETS, PAIRS, HIGH_OF_SETTING, MEDIUM_OF_SETTING):
    _a.setflags(write=False)


def new_scratch(n: int) -> np.ndarray:
    """Scratch blocks for ``n`` environments: ``int64[n, SCRATCH_ROWS, SCRATCH_WIDTH]``."""
    return np.zeros((n, SCRATCH_ROWS, SCRATCH_WIDTH), dtype=np.int64)


@njit(cache=True)
def asia_setting_values(hand, high_rank, high_to_two, scratch, with_ranks, out_ranks, out_fouled):
    """:func:`splitpoker.envs.rules.games.asia.asia_all_setting_ranks` from 35 + 21 + 7 lookups (see the module
    docstring); ``out_ranks`` is written only ``with_ranks``, ``out_fouled`` always."""
    high = scratch[6]  # high-hand value of each 4-subset, then (at 35..) its two-card projection
    med = scratch[7]  # two-card value of each pair, then (at 21..) its one-card projection
    for k in range(35):
        p = FOUR_SUBSETS[k]
        hr = np.int64(high_rank[colex4(hand[p[0]], hand[p[1]], hand[p[2]], hand[p[3]])])
        high[k] = hr
    for k in range(21):
        p = PAIRS[k]
        mr = two_card_value(hand[p[0]], hand[p[1]])
        med[k] = mr
        med[21 + k] = TWO_TO_ONE[mr]
    for s in range(N_ASIA_SETTINGS):
        hr = high[HIGH_OF_SETTING[s]]
        m = MEDIUM_OF_SETTING[s]
        mr = med[m]
        lr = one_card_value(hand[LOW_POS[s]])
        out_fouled[s] = high_to_two[hr] < mr or med[21 + m] < lr
        if with_ranks:
            out_ranks[s, 0] = hr
            out_ranks[s, 1] = mr
            out_ranks[s, 2] = lr


@njit(cache=True, inline="always")
def value_round_into(game_id, style_id, rank, to_two, player, ranks, fouled, scratch, with_ranks):
    """Value the settings of the dealt ``player[7]`` into ``ranks`` and ``fouled`` (Asia's values
    only ``with_ranks``; Pai Gow's always) and return the house way's setting of the player's
    cards (for the "play the house way" action and agreement metrics)."""
    if game_id == ASIA_ID:
        asia_setting_values(player, rank, to_two, scratch, with_ranks, ranks, fouled)
    else:
        all_setting_values(game_id, player, rank, to_two, ranks, fouled)
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
