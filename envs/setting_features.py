"""Per-setting feature block (``setting_features=True``): every setting described by the same
fixed-width vector, for policies that score each setting with one shared network
(:mod:`splitpoker.agents.policies.setting_scorer`).

The block follows everything else in the observation: ``n_settings`` rows of ``F`` values in
action order (setting ``s`` at ``start + F*s .. start + F*s + F - 1``), all in [0, 1], zero in the
bet phase. Each row is computed from the setting's hand values alone (the same values the rules
engine ranks with; no strategy knowledge):

Asia Poker (``F = 19``; high = four-card hand, medium = two cards, low = one card)

======  ====  ===========================================================================
offset  size  meaning
======  ====  ===========================================================================
0-10    11    high hand category one-hot (:class:`splitpoker.envs.rules.ranking.categories.HandCategory` order:
              high card, pair, two pair, three of a kind, straight, flush, full house, four
              of a kind, straight flush, royal flush, five aces)
11      1     high hand dense rank class / (classes - 1) (strength over all four-card hands)
12      1     high hand position within its category (0 weakest .. 1 strongest of the category)
13      1     medium value / 90 (two-card scale: unpaired by high then low card, pairs on top)
14      1     medium is a pair
15      1     medium top card rank / 12 (the pair's rank for a pair)
16      1     medium second card rank / 12 (the pair's rank for a pair)
17      1     low card rank / 12
18      1     fouled (the setting loses whatever the dealer holds)
======  ====  ===========================================================================

Pai Gow Poker (``F = 18``): offsets 0-16 as above for the five-card back hand (0-12) and the
two-card front hand (13-16), then 17 = fouled.

Ranks count 2 = 0 .. ace = 12 (the joker plays as an ace in the two- and one-card hands).
"""

from __future__ import annotations

import numpy as np

from splitpoker.envs.rules.games.spec import SPECS, GameSpec
from splitpoker.envs.rules.ranking.categories import HandCategory

N_CATEGORIES = len(HandCategory)
BIG_WIDTH = N_CATEGORIES + 2
TWO_WIDTH = 4
#: the features of a smaller hand, by its size (the first, big hand has :data:`BIG_WIDTH`)
SMALL_WIDTH = {2: TWO_WIDTH, 1: 1}


def feature_width(spec: GameSpec) -> int:
    """``F``, a setting's features: the big hand's, each smaller hand's by its size, then fouled."""
    return BIG_WIDTH + sum(SMALL_WIDTH[k] for k in spec.hand_sizes[1:]) + 1


#: ``F`` of every game (Asia 19, Pai Gow 18)
FEATURES = {spec.name: feature_width(spec) for spec in SPECS.values()}


def big_hand_features(class_category: np.ndarray) -> np.ndarray:
    """``float32[n_classes, 13]``: category one-hot, rank / (n - 1), position within category."""
    cat = np.asarray(class_category, dtype=np.int64)
    n = cat.size
    out = np.zeros((n, BIG_WIDTH), dtype=np.float32)
    out[np.arange(n), cat] = 1.0
    out[:, N_CATEGORIES] = np.arange(n) / max(n - 1, 1)
    for c in np.unique(cat):
        idx = np.flatnonzero(cat == c)  # a category's classes are contiguous in dense rank
        out[idx, N_CATEGORIES + 1] = (idx - idx[0]) / max(idx.size - 1, 1)
    return out


def two_card_features() -> np.ndarray:
    """``float32[91, 4]`` for two-card values (:func:`splitpoker.envs.rules.ranking.hand_eval.two_card_value`:
    unpaired ``hi*(hi-1)/2 + lo``, a pair of rank ``r`` is ``78 + r``)."""
    out = np.zeros((91, TWO_WIDTH), dtype=np.float32)
    for hi in range(1, 13):
        for lo in range(hi):
            v = hi * (hi - 1) // 2 + lo
            out[v] = (v / 90, 0.0, hi / 12, lo / 12)
    for r in range(13):
        out[78 + r] = ((78 + r) / 90, 1.0, r / 12, r / 12)
    return out


class SettingFeatures:
    """Lookup tables for one game and rank table; ``fill(ranks, fouled, out)`` writes the block."""

    def __init__(self, game: str, class_category: np.ndarray):
        if game not in FEATURES:
            raise ValueError(f"game {game!r}: expected one of {sorted(FEATURES)}")
        self.game = game
        self.width = FEATURES[game]
        self._big = big_hand_features(class_category)
        self._two = two_card_features()

    def fill(self, ranks: np.ndarray, fouled: np.ndarray, out: np.ndarray) -> None:
        """``out``: ``float32[n_settings * width]`` view, overwritten."""
        rows = out.reshape(ranks.shape[0], self.width)
        rows[:, :BIG_WIDTH] = self._big[ranks[:, 0]]
        rows[:, BIG_WIDTH:BIG_WIDTH + TWO_WIDTH] = self._two[ranks[:, 1]]
        if ranks.shape[-1] == 3:  # a one-card hand (Asia's low)
            rows[:, BIG_WIDTH + TWO_WIDTH] = ranks[:, 2] / 12.0
        rows[:, -1] = fouled

    def fill_batch(self, ranks: np.ndarray, fouled: np.ndarray, show: np.ndarray, out: np.ndarray) -> None:
        """The block of ``n`` environments at once (the native vector envs): ``ranks``
        ``int64[n, n_settings, w]``, ``fouled`` ``bool[n, n_settings]``, ``show`` ``bool[n]`` (False:
        the bet phase, an all-zero block), ``out`` ``float32[n, n_settings * width]`` (a view of the
        observations), overwritten. Row ``i`` equals :meth:`fill` of environment ``i``."""
        n, s = fouled.shape
        rows = np.empty((n, s, self.width), dtype=np.float32)
        rows[:, :, :BIG_WIDTH] = self._big[ranks[:, :, 0]]
        rows[:, :, BIG_WIDTH:BIG_WIDTH + TWO_WIDTH] = self._two[ranks[:, :, 1]]
        if ranks.shape[-1] == 3:  # a one-card hand (Asia's low)
            rows[:, :, BIG_WIDTH + TWO_WIDTH] = ranks[:, :, 2] / 12.0
        rows[:, :, -1] = fouled
        rows[~np.asarray(show, dtype=bool)] = 0.0
        out[:] = rows.reshape(n, s * self.width)
