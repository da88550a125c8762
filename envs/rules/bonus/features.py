"""Seven-card bonus classification (Asia Poker bonus, Pai Gow Fortune and Envy).

Bonus wagers are settled on the player's seven cards "regardless of whether the Player wins the
round" (seed 000), the joker playing as in the main game (an ace, or any card completing a
straight, flush or straight flush). A hand is paid on the **best-paying line it can make with five
of its seven cards** (plus the seven-card lines): a hand holding both a straight and three of a
kind is paid as three of a kind where trips pay more. This is the convention of the published
analyses: with it the exhaustive counts reproduce the Wizard of Odds seven-card table for the
53-card deck exactly (five aces 1,128; royal flush 26,132; straight flush 184,832; four of a kind
307,472; full house 4,188,528; flush 6,172,088; three of a kind 7,672,500; straight 11,034,204;
tests/test_bonus.py pins them).

:func:`bonus_features` reduces a hand to an integer *feature code*:

* bits 0..10: the *makes* mask, bit ``c`` set iff some five of the seven cards rank as
  :class:`~splitpoker.envs.rules.ranking.categories.HandCategory` ``c`` in the five-card table (the same table the
  Pai Gow back hand uses, so the joker plays exactly as in the main game);
* bits 11..16: :class:`BonusFlag` special hands.

A pay table (:mod:`splitpoker.envs.rules.bonus.paytables`) pays the highest line whose predicate the code
satisfies, so one exhaustive pass over all C(53, 7) = 154,143,080 hands
(:func:`feature_histogram`) serves every table.

Special hands (docs/rules.md records the choices):

* ``NATURAL_SF``: five of the cards, without the joker, form a straight flush;
* ``SEVEN_CARD_SF_NATURAL``: all seven cards of one suit in sequence, no joker (A-2-3-4-5-6-7 up
  to 8-9-T-J-Q-K-A);
* ``SEVEN_CARD_SF_JOKER``: six cards of one suit and the joker making such a sequence;
* ``ROYAL_MATCH``: a royal flush without the joker plus a king and queen of one other suit;
* ``QUAD_EIGHTS_AND_TRIPS``: four eights plus three of a kind of another rank among the other
  three cards (two aces and the joker count as three aces);
* ``NINE_HIGH``: the hand makes nothing better than high card, holds no joker, and its highest
  card is a nine (the lowest possible seven-card hand).
"""

from __future__ import annotations

from enum import IntEnum

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.cards import JOKER, Rank
from splitpoker.envs.rules.enumeration import (
    for_each_hand_in,
    popcount,
    run_in_batches,
    split_tasks,
    top_two_tasks,
)
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import BINOM
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

N_CATEGORIES = len(HandCategory)
CATEGORY_MASK = (1 << N_CATEGORIES) - 1


class BonusFlag(IntEnum):
    """Special-hand bits of a feature code (above the 11 *makes* bits)."""

    NATURAL_SF = 11
    SEVEN_CARD_SF_NATURAL = 12
    SEVEN_CARD_SF_JOKER = 13
    ROYAL_MATCH = 14
    QUAD_EIGHTS_AND_TRIPS = 15
    NINE_HIGH = 16


N_FEATURE_CODES = 1 << 17

_ACE = int(Rank.ACE)
_EIGHT = int(Rank.EIGHT)
_NINE = int(Rank.NINE)
_SF_CAT = int(HandCategory.STRAIGHT_FLUSH)
_ROYAL_CAT = int(HandCategory.ROYAL_FLUSH)


def _windows(length: int) -> np.ndarray:
    """Bitmasks of every run of ``length`` consecutive ranks, the ace-low run first."""
    wheel = (1 << 12) | ((1 << (length - 1)) - 1)
    runs = [((1 << length) - 1) << lo for lo in range(13 - length + 1)]
    return np.array([wheel] + runs, dtype=np.int64)


WINDOWS7 = _windows(7)  # the 8 seven-card straights
ROYAL_MASK = np.int64(0b1111100000000)  # T J Q K A
KQ_MASK = np.int64((1 << 11) | (1 << 10))


@njit(cache=True)
def features_sorted(c, cat5):
    """Feature code of the seven sorted cards ``c`` (joker, 52, last) given the five-card
    category table ``cat5`` (indexed by colex rank)."""
    # makes mask: the category of each of the 21 five-card subsets
    joker = c[6] == JOKER
    makes = 0
    natural_sf = False
    for i in range(7):
        for j in range(i + 1, 7):
            idx = 0
            p = 1
            for k in range(7):
                if k != i and k != j:
                    idx += BINOM[c[k], p]
                    p += 1
            cat = cat5[idx]
            makes |= 1 << cat
            # a straight or royal flush among five cards that leave the joker out
            if (cat == _SF_CAT or cat == _ROYAL_CAT) and (not joker or j == 6):
                natural_sf = True
    masks = np.zeros(4, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    for k in range(7):
        if c[k] != JOKER:
            masks[c[k] & 3] |= np.int64(1) << (c[k] >> 2)
            counts[c[k] >> 2] += 1
    flags = 0
    if natural_sf:
        flags |= 1 << BonusFlag.NATURAL_SF
    royal_suit = -1
    for s in range(4):
        m = masks[s]
        if (m & ROYAL_MASK) == ROYAL_MASK:
            royal_suit = s
        for w in range(WINDOWS7.shape[0]):
            k = popcount(m & WINDOWS7[w])
            if k == 7:
                flags |= 1 << BonusFlag.SEVEN_CARD_SF_NATURAL
            elif k == 6 and joker:
                flags |= 1 << BonusFlag.SEVEN_CARD_SF_JOKER
    if royal_suit >= 0:
        for t in range(4):
            if t != royal_suit and (masks[t] & KQ_MASK) == KQ_MASK:
                flags |= 1 << BonusFlag.ROYAL_MATCH
    if counts[_EIGHT] == 4:
        for r in range(13):
            n = counts[r] + (1 if (joker and r == _ACE) else 0)
            if r != _EIGHT and n >= 3:
                flags |= 1 << BonusFlag.QUAD_EIGHTS_AND_TRIPS
    if makes == 1 and not joker:
        union = masks[0] | masks[1] | masks[2] | masks[3]
        if union >> _NINE == 1:
            flags |= 1 << BonusFlag.NINE_HIGH
    return makes | flags


def bonus_features(cards) -> int:
    """Feature code of seven cards (validated integers, any order)."""
    c = np.sort(np.asarray(cards, dtype=np.int64))
    if c.shape != (7,):
        raise ValueError(f"bonus features need exactly 7 cards, got {c.shape[0]}")
    return int(features_sorted(c, paigow_back_table().category))


def best_category(code: int) -> HandCategory:
    """The best five-card category a feature code makes (Pai Gow order: five aces first)."""
    makes = int(code) & CATEGORY_MASK
    if makes == 0:
        raise ValueError(f"feature code {code!r} makes no category")
    return HandCategory(makes.bit_length() - 1)


def makes(code: int) -> set[HandCategory]:
    return {c for c in HandCategory if int(code) >> c & 1}


def feature_flags(code: int) -> set[BonusFlag]:
    return {f for f in BonusFlag if int(code) >> f & 1}


@njit(cache=True)  # a visitor: never inline="always" (see splitpoker.envs.rules.enumeration)
def _count_features(hand, index, args):
    cat5, hist = args
    hist[features_sorted(hand, cat5)] += 1


@njit(cache=True, parallel=True)
def _histogram_tasks(tasks, starts, cat5, hist):
    """Count feature codes of every 7-card hand of ``tasks`` (rows of ``split_tasks``, one bin of
    rows per thread: :func:`~splitpoker.envs.rules.enumeration.thread_bins`); ``hist[thread]``
    per thread."""
    for b in prange(starts.shape[0] - 1):
        args = (cat5, hist[numba.get_thread_id()])
        for t in range(starts[b], starts[b + 1]):
            for_each_hand_in(tasks[t], _count_features, args)


def feature_histogram(progress=None, n_batches: int = 200) -> np.ndarray:
    """Histogram of feature codes over all C(53, 7) = 154,143,080 seven-card hands.

    ``progress``: optional callable receiving the number of hands finished after each batch (a
    tqdm ``update``). Parallel over numba's threads.
    """
    cat5 = paigow_back_table().category
    total = np.zeros(N_FEATURE_CODES, dtype=np.int64)
    hist = np.zeros((numba.config.NUMBA_NUM_THREADS, N_FEATURE_CODES), dtype=np.int64)

    def run(rows, starts):
        hist[:] = 0
        _histogram_tasks(rows, starts, cat5, hist)
        total[:] += hist.sum(axis=0)

    run_in_batches(split_tasks(top_two_tasks(53)), run, progress, n_batches)
    if int(total.sum()) != int(BINOM[53, 7]):
        raise RuntimeError(f"bonus enumeration counted {int(total.sum()):,} hands, expected {int(BINOM[53, 7]):,}")
    return total


FEATURES_VERSION = 1  # the layout of feature codes


def cached_feature_histogram(progress=None, use_cache: bool = True, log=None) -> np.ndarray:
    """:func:`feature_histogram`, cached in the user cache directory (:mod:`splitpoker.envs.rules.cache`).

    The exhaustive pass takes ~35 s on two cores; later calls load the verified cached result. If
    the result cannot be saved (read-only cache), a warning says so and the result is still returned.
    The key holds a hash of the rules sources, so a changed evaluator never reuses an old count."""
    from splitpoker.envs.rules import RULES_SOURCE_DIGEST
    from splitpoker.envs.rules.cache import load_or_build

    key = {"what": "seven-card bonus feature histogram", "features_version": FEATURES_VERSION,
           "hands": int(BINOM[53, 7]), "rules_source": RULES_SOURCE_DIGEST}
    hist = load_or_build("bonus-features", key, lambda: feature_histogram(progress), use_cache=use_cache, log=log,
                         prune_prefix="bonus-features", keep=lambda k: k == key)
    if int(hist.sum()) != int(BINOM[53, 7]):
        raise ValueError(f"bonus feature histogram totals {int(hist.sum())}, expected {int(BINOM[53, 7])}")
    return hist


def paytable_report(table, hist: np.ndarray) -> dict:
    """Per-line combinations, probability, pays and return contribution of ``table`` over the
    exhaustive histogram, then the total return and house edge (``kind == "odds"``) or the
    expected Envy amount per other seat (``kind == "envy"``)."""
    total = int(hist.sum())
    lines = {}
    ret = 0.0
    for i, line in enumerate(table.lines):
        n = int(hist[table.line_of_code == i].sum())
        contrib = n * line.odds / total
        ret += contrib
        lines[line.key] = {"label": line.label, "combinations": n, "probability": n / total,
                           "pays": line.odds, "return": contrib}
    losers = int(hist[table.line_of_code < 0].sum())
    out = {"paytable": table.name, "game": table.game, "kind": table.kind, "source": table.source,
           "lines": lines, "total": total}
    if table.kind == "odds":
        out["losing_combinations"] = losers
        out["losing_probability"] = losers / total
        out["expected_return"] = ret - losers / total
        out["house_edge"] = -(ret - losers / total)
        out["max_payout"] = table.max_payout
    else:
        out["non_qualifying_combinations"] = losers
        out["expected_envy_units_per_other_seat"] = ret
    return out
