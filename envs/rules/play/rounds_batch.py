"""Round kernels for batch loops: the rounds of :mod:`splitpoker.envs.rules.play.rounds`, allocating nothing.

The batched environments (:mod:`splitpoker.envs.vector.kernels`) start and settle thousands of rounds per
call. These kernels compute exactly what :func:`splitpoker.envs.rules.play.rounds.asia_round_start`,
:func:`~splitpoker.envs.rules.play.rounds.paigow_round_start`, :func:`~splitpoker.envs.rules.play.rounds.asia_settle` and
:func:`~splitpoker.envs.rules.play.rounds.paigow_settle` compute (same cards, values, fouls, house-way settings
and results: ``tests/test_rounds_batch.py`` compares them), with two savings:

* **scratch instead of allocations**: each environment owns a ``int64[SCRATCH_ROWS,
  SCRATCH_WIDTH]`` block (:data:`SCRATCH_ROWS`), passed in: rows 0-1 the deal (shuffled deck,
  remaining cards), rows 2-5 and 8-9 the house way's work arrays, rows 6-7 the setting values below;
* **each value once**: an Asia setting is one of the C(7, 4) = 35 four-card high hands with one
  of the 3 ways to split the other three cards, so the 105 settings share 35 high-hand lookups,
  21 two-card values and 7 one-card values (:data:`HIGH_OF_SETTING`, :data:`MEDIUM_OF_SETTING`),
  instead of 105 of each. ``with_ranks=False`` writes only the fouls (what the action mask needs);
  the settlement then evaluates the one setting played.

Layout of the Asia decomposition (positions 0..6 of the sorted hand, as in :mod:`splitpoker.envs.rules.games.asia`)::

    FOUR_SUBSETS[k]   the k-th 4-subset of positions in lexicographic order (k = 0..34)
    PAIRS[k]          the k-th 2-subset (k = 0..20)
    HIGH_OF_SETTING[s] = k such that FOUR_SUBSETS[k] == HIGH_POS[s]
    MEDIUM_OF_SETTING[s] = k such that PAIRS[k] == MEDIUM_POS[s]

The house way runs through the house-way modules' scratch-taking cores where they have one (seed
000 and IGW); the Borgata house way allocates its own small buffer.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    N_ASIA_SETTINGS,
    TWO_TO_ONE,
    asia_hands_won,
    asia_main_result,
    asia_setting_ranks,
)
from splitpoker.envs.rules.games.paigow import (
    N_PAIGOW_SETTINGS,
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_main_result,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.house_ways.asia_000 import SCRATCH_SIZE
from splitpoker.envs.rules.house_ways.registry import house_way_into
from splitpoker.envs.rules.play.dealing import deal_player_and_dealers_into
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
def asia_round_start_into(seed, style_id, high_rank, high_to_two, player, dealers, ranks, fouled, scratch,
                          with_ranks):
    """:func:`splitpoker.envs.rules.play.rounds.asia_round_start` with scratch; ``ranks`` only ``with_ranks``."""
    deal_player_and_dealers_into(seed, dealers.shape[0], player, dealers, scratch[0:2])
    asia_setting_values(player, high_rank, high_to_two, scratch, with_ranks, ranks, fouled)
    return house_way_into(style_id, player, high_rank, high_to_two, scratch)


@njit(cache=True, inline="always")
def paigow_round_start_into(seed, style_id, back_rank, back_to_two, player, dealers, ranks, fouled, scratch):
    """:func:`splitpoker.envs.rules.play.rounds.paigow_round_start` with scratch."""
    deal_player_and_dealers_into(seed, dealers.shape[0], player, dealers, scratch[0:2])
    paigow_all_setting_ranks(player, back_rank, back_to_two, ranks, fouled)
    return house_way_into(style_id, player, back_rank, back_to_two, scratch)


@njit(cache=True, inline="always")
def asia_settle_into(ph, pm, pl, fouled, dealers, style_id, high_rank, high_to_two, dealer_settings, dealer_won,
                     scratch):
    """:func:`splitpoker.envs.rules.play.rounds.asia_settle` with scratch for the dealer's house way."""
    total = 0.0
    for d in range(dealers.shape[0]):
        hand = dealers[d]
        ds = house_way_into(style_id, hand, high_rank, high_to_two, scratch)
        dh, dm, dl = asia_setting_ranks(hand, ds, high_rank)
        won = asia_hands_won(ph, pm, pl, dh, dm, dl)
        dealer_settings[d] = ds
        dealer_won[d] = won
        total += -1.0 if fouled else asia_main_result(won)
    return total / dealers.shape[0]


@njit(cache=True, inline="always")
def paigow_settle_into(pb, pf, fouled, dealers, style_id, back_rank, back_to_two, commission, dealer_settings,
                       dealer_won, scratch):
    """:func:`splitpoker.envs.rules.play.rounds.paigow_settle` with scratch for the dealer's house way."""
    total = 0.0
    for d in range(dealers.shape[0]):
        hand = dealers[d]
        ds = house_way_into(style_id, hand, back_rank, back_to_two, scratch)
        db, df = paigow_setting_ranks(hand, ds, back_rank)
        won = paigow_hands_won(pb, pf, db, df)
        dealer_settings[d] = ds
        dealer_won[d] = won
        total += -1.0 if fouled else paigow_main_result(won, commission)
    return total / dealers.shape[0]
