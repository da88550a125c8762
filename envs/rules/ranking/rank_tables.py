"""Lookup tables of hand ranks, built deterministically from the raw-key kernels.

A table maps the colex index of a sorted card combination (:mod:`splitpoker.envs.rules.ranking.combinatorics`) to a
*dense rank*: 0 for the weakest class of hands, increasing with strength, equal for hands that tie.
Building one takes about a second; tables are cached per rules option in memory.

Four-card table (Asia Poker high hand), C(53, 4) = 292,825 hands, default options. Hands per
category (the exhaustive test pins these against a separate slow evaluator). The 270,725 hands
without the joker give the published 52-card four-card counts (13 / 44 / 2,816 / 2,772 / 2,496 /
2,808 / 82,368 / 177,408):

    ===================  ========  =============
    category              hands     rank classes
    ===================  ========  =============
    four of a kind            17             13
    straight flush           180             11
    flush                  3,824            704
    straight               4,812             11
    three of a kind        2,832            156
    two pair               3,096             78
    pair                  89,136            858
    high card            188,928            704
    total                292,825          2,535
    ===================  ========  =============

Five-card table (Pai Gow Poker back hand), C(53, 5) = 2,869,685 hands, default options. The
2,598,960 hands without the joker give the published 52-card counts (4 royal, 36 straight flush,
624 / 3,744 / 5,108 / 10,200 / 54,912 / 123,552 / 1,098,240 / 1,302,540):

    ===================  ==========  =============
    category               hands      rank classes
    ===================  ==========  =============
    five aces                  1              1
    royal flush               24              1
    straight flush           180              9
    four of a kind           828            156
    full house             4,368            156
    flush                  7,804          1,277
    straight              20,532             10
    three of a kind       63,360            858
    two pair             138,600            858
    pair               1,215,024          2,860
    high card          1,418,964          1,277
    total              2,869,685          7,463
    ===================  ==========  =============

The option ``ace_low_straight`` moves the ace-low straight without changing any count;
``flush_beats_straight=False`` swaps the two categories' ranks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.options import AsiaRules, PaiGowRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import BINOM, colex_unrank
from splitpoker.envs.rules.ranking.hand_eval import (
    ASIA_ORDER_FLUSH_OVER_STRAIGHT,
    ASIA_ORDER_STRAIGHT_OVER_FLUSH,
    PAIGOW_ORDER,
    hand_key,
    key_category,
    project_to_two,
)


@njit(cache=True, parallel=True)
def _keys_from(start, n, order, wheel_high, royal_label, keys):
    """``keys[i]`` = the raw key of the hand of colex index ``start + i``."""
    for i in prange(keys.shape[0]):
        cards = np.empty(5, dtype=np.int64)
        colex_unrank(start + i, n, cards)
        keys[i] = hand_key(cards, n, order, wheel_high, royal_label)


#: hands per call of the key kernel: Python sees a Ctrl-C between calls, not only after the whole
#: five-card table (11 calls; measured with the other core busy: 2.0 s in all, 0.6 s at most)
KEY_CHUNK = 1 << 18


def _all_keys(n: int, order: np.ndarray, wheel_high: bool, royal_label: bool) -> np.ndarray:
    keys = np.empty(int(BINOM[53, n]), dtype=np.int64)
    for start in range(0, keys.shape[0], KEY_CHUNK):
        _keys_from(start, n, order, wheel_high, royal_label, keys[start:start + KEY_CHUNK])
    return keys


@dataclass(frozen=True)
class HandTable:
    """A rank table for one hand size under one set of ranking options.

    Attributes:
        n_cards: 4 (Asia high hand) or 5 (Pai Gow back hand).
        rank: ``uint16[C(53, n)]`` dense rank per colex index (the hot-path lookup).
        category: ``uint8[C(53, n)]`` :class:`HandCategory` per colex index.
        class_keys: ``int64[n_classes]`` the raw key of each dense rank (ascending).
        class_category: ``uint8[n_classes]`` category of each dense rank.
        class_to_two: ``uint8[n_classes]`` each rank projected onto the two-card scale (0..91),
            used by the foul rule (:func:`splitpoker.envs.rules.ranking.hand_eval.project_to_two`).
    """

    n_cards: int
    rank: np.ndarray
    category: np.ndarray
    class_keys: np.ndarray
    class_category: np.ndarray
    class_to_two: np.ndarray

    @property
    def n_classes(self) -> int:
        return int(self.class_keys.shape[0])

    def category_counts(self) -> dict[HandCategory, int]:
        """Number of hands per category (the counts the module docstring documents)."""
        counts = np.bincount(self.category, minlength=len(HandCategory))
        return {HandCategory(c): int(counts[c]) for c in range(len(HandCategory)) if counts[c]}

    def class_counts(self) -> dict[HandCategory, int]:
        counts = np.bincount(self.class_category, minlength=len(HandCategory))
        return {HandCategory(c): int(counts[c]) for c in range(len(HandCategory)) if counts[c]}


def _build(n: int, order: np.ndarray, wheel_high: bool, royal_label: bool) -> HandTable:
    keys = _all_keys(n, order, wheel_high, royal_label)
    class_keys, inverse = np.unique(keys, return_inverse=True)
    class_category = np.array([key_category(k, order) for k in class_keys], dtype=np.uint8)
    class_to_two = np.array([project_to_two(k, order) for k in class_keys], dtype=np.uint8)
    rank = inverse.reshape(-1).astype(np.uint16)
    for arr in (rank, class_keys, class_category, class_to_two):
        arr.setflags(write=False)
    category = class_category[rank]
    category.setflags(write=False)
    return HandTable(n, rank, category, class_keys, class_category, class_to_two)


@cache
def _asia_table(flush_beats_straight: bool, wheel_high: bool) -> HandTable:
    order = ASIA_ORDER_FLUSH_OVER_STRAIGHT if flush_beats_straight else ASIA_ORDER_STRAIGHT_OVER_FLUSH
    return _build(4, order, wheel_high, False)


@cache
def _paigow_table(wheel_high: bool) -> HandTable:
    return _build(5, PAIGOW_ORDER, wheel_high, True)


def asia_high_table(rules: AsiaRules | None = None) -> HandTable:
    """The four-card table for Asia Poker high hands under ``rules`` (cached)."""
    rules = rules or AsiaRules()
    return _asia_table(rules.flush_beats_straight, rules.wheel_high)


def paigow_back_table(rules: PaiGowRules | None = None) -> HandTable:
    """The five-card table for Pai Gow Poker back hands under ``rules`` (cached)."""
    rules = rules or PaiGowRules()
    return _paigow_table(rules.wheel_high)

