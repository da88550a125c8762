"""The flat observation shared by every splitpoker environment (numba fill, documented layout).

==========  =====  ==========================================================================
index       size   meaning (all values in [0, 1])
==========  =====  ==========================================================================
0-52        53     the player's cards, multi-hot by card integer (rank*4+suit; 52 = joker)
53-65       13     count of each rank (2..A) / 4, joker not counted
66-69       4      count of each suit (s h d c) / 7
70          1      joker held
71-196      126    the 7 cards in sorted order (the order actions index): per position 18 values,
                   a one-hot of 14 ranks (2..A, joker) then a one-hot of 4 suits (none for joker)
197-199     3      phase one-hot: bet, set, done
200         1      ante (Pai Gow: wager) / table maximum
201         1      bonus (Pai Gow: Fortune) wager / its maximum
==========  =====  ==========================================================================

With ``observe_settings=True`` the environments append, for every setting ``s`` in action order,
its hand values scaled to [0, 1] (Asia: indices ``202 + 3s .. 202 + 3s + 2`` = high rank class /
2,534, medium value / 90, low value / 12; Pai Gow: ``202 + 2s``, ``202 + 2s + 1`` = back rank class
/ 7,462, front value / 90): 517 values in all for Asia, 244 for Pai Gow.

During the bet phase the card (and setting) fields are zero (the cards are not dealt yet).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import JOKER

OBS_SIZE = 202
RANK_COUNTS_START, SUIT_COUNTS_START, JOKER_FLAG, POSITIONS_START, PHASE_START = 53, 66, 70, 71, 197
POSITION_WIDTH = 18
ANTE = 200
BONUS = 201
HAND = slice(0, RANK_COUNTS_START)
RANK_COUNTS = slice(RANK_COUNTS_START, SUIT_COUNTS_START)
SUIT_COUNTS = slice(SUIT_COUNTS_START, JOKER_FLAG)
POSITIONS = slice(POSITIONS_START, PHASE_START)
PHASE = slice(PHASE_START, ANTE)
JOKER_RANK = 13  # the joker's cell in a position's 14-rank one-hot (after 2..A)
assert POSITIONS_START + 7 * POSITION_WIDTH == PHASE_START and PHASE_START + 3 == ANTE and BONUS + 1 == OBS_SIZE


@njit(cache=True)
def fill_observation(hand, show_cards, phase, ante_frac, bonus_frac, obs):
    """Write the observation of ``hand`` (sorted 7 cards) into ``obs`` (float32[202])."""
    obs[:] = 0.0
    if show_cards:
        for p in range(7):
            c = hand[p]
            obs[c] = 1.0
            base = POSITIONS_START + p * POSITION_WIDTH
            if c == JOKER:
                obs[JOKER_FLAG] = 1.0
                obs[base + JOKER_RANK] = 1.0
            else:
                r = c >> 2
                s = c & 3
                obs[RANK_COUNTS_START + r] += 0.25
                obs[SUIT_COUNTS_START + s] += 1.0 / 7.0
                obs[base + r] = 1.0
                obs[base + JOKER_RANK + 1 + s] = 1.0
    obs[PHASE_START + phase] = 1.0
    obs[ANTE] = ante_frac
    obs[BONUS] = bonus_frac


def cards_from_observation(obs: np.ndarray) -> np.ndarray:
    """The sorted hand encoded in an observation (for policies that read the cards)."""
    cards = np.flatnonzero(np.asarray(obs)[HAND] > 0.5)
    if cards.size != 7:
        raise ValueError(f"observation holds {cards.size} cards, expected 7 (is this the bet phase?)")
    return cards.astype(np.int64)
