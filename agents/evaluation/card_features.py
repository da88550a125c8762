"""Features of seven cards that a person can read at a glance, for the conditions of a strategy
card: how many pairs and of what rank, trips, quads, the high singletons, a straight or flush, the
joker, and the hand's category (:mod:`splitpoker.agents.evaluation.hand_categories`).

Every feature is an integer per hand (``-1`` for a rank that is not there: "no pair"). A condition
is an interval of one feature, and :func:`describe` says it in words::

    top_pair in [-1, 4]     ->  "highest pair 6s or lower (if any)"
    straight in [1, 1]      ->  "a straight"
    cat_two_pair in [1, 1]  ->  "two pair"
    pair_sum in [-1, 9]     ->  "the two highest pairs' ranks sum to 9 or less (if two pairs; aces 14)"

``pair_sum`` adds the card ranks of the two highest pairs (2..10, J 11, Q 12, K 13, A 14), the
sum published two-pair rules are stated in; ``-1`` with fewer than two pairs.

``sf_pair_left`` and ``sf_left_high`` read what a straight or flush leaves beside it, the choice
house ways word as "the highest front that leaves it": among the ways to make the big hand (Pai
Gow's back, Asia's High) a straight or flush, the best two-card hand of the cards left over (a
pair above any two singletons, then by the higher card, then the lower; the joker there is an
ace). ``sf_pair_left`` is 1 when that hand is a pair (0 otherwise, and without a straight or
flush), ``sf_left_high`` its higher card's rank (a pair's rank; ``-1`` without a straight or flush).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splitpoker.agents.evaluation.hand_categories import (
    HIGH_CARD_MIN,
    RANK_NAMES,
    RANK_PLURALS,
    SPLIT_BY_SF,
    Category,
    card_rank,
    hand_shape,
    has_flush,
    has_straight,
)

FLAG, COUNT, RANK, SINGLE, SUM = "flag", "count", "rank", "single", "sum"


@dataclass(frozen=True)
class Feature:
    """One readable feature: ``kind`` is a flag (0/1), a count, a group rank (pairs, trips:
    "9s"), a single card's rank ("9") or a sum of card ranks; ``text`` names it in a condition."""

    name: str
    kind: str
    text: str
    low: int  # the smallest value it takes (-1: "none" for a rank)
    high: int
    absent: str = ""  # a flag's text when it is 0


def condition_label(c: Category) -> str:
    """A category's name inside a card's condition, which joins its parts with commas: the name
    must hold none ("not one pair, straight or flush" would read as two conditions)."""
    return c.label.replace(", straight or flush", " with a straight or flush")


FEATURES = (  # the hand's category first: where two splits cut the hands alike, the first is kept
    *(Feature(f"cat_{c.name.lower()}", FLAG, condition_label(c), 0, 1, f"not {condition_label(c)}")
      for c in Category),
    Feature("pairs", COUNT, "pairs", 0, 3),
    Feature("trips", COUNT, "sets of trips", 0, 2),
    Feature("singles", COUNT, "singletons", 0, 7),
    Feature("high_singles", COUNT, "singletons J or higher", 0, 7),
    Feature("straight", FLAG, "a straight", 0, 1, "no straight"),
    Feature("flush", FLAG, "a flush", 0, 1, "no flush"),
    Feature("straight_flush", FLAG, "a straight flush", 0, 1, "no straight flush"),
    Feature("joker", FLAG, "the joker", 0, 1, "no joker"),
    Feature("top_pair", RANK, "highest pair", -1, 12),
    Feature("second_pair", RANK, "second pair", -1, 12),
    Feature("low_pair", RANK, "lowest pair", -1, 12),
    Feature("trips_rank", RANK, "trips", -1, 12),
    Feature("quads_rank", RANK, "four of a kind", -1, 12),
    Feature("top_single", SINGLE, "highest singleton", -1, 12),
    Feature("second_single", SINGLE, "second-highest singleton", -1, 12),
    Feature("third_single", SINGLE, "third-highest singleton", -1, 12),
    Feature("fourth_single", SINGLE, "fourth-highest singleton", -1, 12),
    Feature("pair_sum", SUM, "the two highest pairs' ranks sum to", -1, 27),  # A + K = 14 + 13
    Feature("sf_pair_left", FLAG, "a straight or flush that leaves a pair", 0, 1,
            "no straight or flush that leaves a pair"),
    Feature("sf_left_high", SINGLE, "the best two cards left beside a straight or flush have a high card", -1, 12,
            "no straight or flush"),
)
FEATURE_INDEX = {f.name: i for i, f in enumerate(FEATURES)}
assert all(FEATURE_INDEX[f"cat_{c.name.lower()}"] == int(c) for c in Category)  # the categories come first


def _get(seq, i: int) -> int:
    return int(seq[i]) if len(seq) > i else -1


def _two_card_key(ra: int, rb: int) -> int:
    """Order of a two-card hand of ranks ``ra``, ``rb``: any pair above any two singletons, then
    the higher card, then the lower (the two-card ranking of both games, suits aside)."""
    hi, lo = max(ra, rb), min(ra, rb)
    return 13 * 13 + hi if hi == lo else hi * 13 + lo  # a non-pair is at most 12 * 13 + 11


def left_beside_straight_or_flush(cards, k: int) -> tuple[int, int]:
    """``(sf_pair_left, sf_left_high)`` of seven ``cards`` (module docstring): of every ``k``
    cards that make a straight or flush, the best two-card hand of the cards left over; ``(0, -1)``
    when no ``k`` cards make one. Brute force over the 21 (or 35) ways to choose the big hand."""
    from itertools import combinations

    cards = [int(c) for c in cards]
    best = None
    for big in combinations(range(7), k):
        chosen = [cards[i] for i in big]
        if not (has_straight(chosen, k) or has_flush(chosen, k)):
            continue
        left = [card_rank(cards[i]) for i in range(7) if i not in big]
        for ra, rb in combinations(left, 2):
            key = _two_card_key(ra, rb)
            if best is None or key > best[0]:
                best = (key, int(ra == rb), max(ra, rb))
    return (0, -1) if best is None else (best[1], best[2])


def hand_features(cards, k: int) -> np.ndarray:
    """``int64[len(FEATURES)]`` of one seven-card hand (``k``: the big hand's size, 5 or 4)."""
    s = hand_shape(cards, k)
    cat = s.category
    values = [*(int(cat == c) for c in Category), len(s.pairs), len(s.trips), len(s.singles),
              sum(r >= HIGH_CARD_MIN for r in s.singles), int(s.straight), int(s.flush), int(s.straight_flush),
              int(s.joker), _get(s.pairs, 0), _get(s.pairs, 1), s.pairs[-1] if s.pairs else -1, _get(s.trips, 0),
              s.quads, _get(s.singles, 0), _get(s.singles, 1), _get(s.singles, 2), _get(s.singles, 3),
              s.pairs[0] + s.pairs[1] + 4 if len(s.pairs) >= 2 else -1,  # rank indices 0..12 are cards 2..A
              *(left_beside_straight_or_flush(cards, k) if s.straight or s.flush else (0, -1))]
    return np.array(values, dtype=np.int64)


def feature_matrix(hands, k: int) -> np.ndarray:
    """``int64[n, len(FEATURES)]``: :func:`hand_features` of each row of ``hands``."""
    hands = np.asarray(hands, dtype=np.int64)
    return np.array([hand_features(h, k) for h in hands], dtype=np.int64).reshape(len(hands), len(FEATURES))


def _rank(f: Feature, r: int) -> str:
    return (RANK_NAMES if f.kind == SINGLE else RANK_PLURALS)[r]


def describe(f: Feature, lo: int, hi: int) -> str | None:
    """The condition ``lo <= f <= hi`` in words (None when it is no condition at all)."""
    lo, hi = max(lo, f.low), min(hi, f.high)
    if lo <= f.low and hi >= f.high:
        return None
    if f.kind == FLAG:
        return f.text if lo == 1 else f.absent
    if f.kind == COUNT:
        if lo == hi:
            return f"{lo} {f.text}" if lo else f"no {f.text}"
        if hi >= f.high:
            return f"{lo} or more {f.text}"
        return f"{hi} or fewer {f.text}" if lo <= f.low else f"{lo} to {hi} {f.text}"
    if f.kind == SUM:
        if hi < 0:
            return "fewer than two pairs"
        none = " (if two pairs; aces 14)" if lo < 0 else " (aces 14)"
        lo = max(lo, 0)
        if lo == hi:
            return f"{f.text} {lo}{none}"
        if hi >= f.high:
            return f"{f.text} {lo} or more{none}"
        return f"{f.text} {hi} or less{none}" if lo <= 0 else f"{f.text} {lo} to {hi}{none}"
    if hi < 0:
        return f.absent or f"no {f.text}"
    none = " (if any)" if lo < 0 else ""
    lo = max(lo, 0)
    if lo == hi:
        return f"{f.text} {_rank(f, lo)}{none}"
    if hi >= f.high:
        return f"{f.text} {_rank(f, lo)} or higher{none}"
    if lo == 0:
        return f"{f.text} {_rank(f, hi)} or lower{none}"
    return f"{f.text} {_rank(f, lo)} to {_rank(f, hi)}{none}"


def describe_conjunction(bounds: dict[int, tuple[int, int]]) -> str:
    """``bounds``: feature index -> (lo, hi). The conditions joined in words; a category that is
    named makes the other categories' exclusions and its implied counts redundant."""
    named = [i for i, (lo, _) in bounds.items() if FEATURES[i].name.startswith("cat_") and lo >= 1]
    # "not one pair, not one pair with a straight or flush" -> "not one pair (with or without ...)"
    excluded = {i for i, (_, hi) in bounds.items() if FEATURES[i].name.startswith("cat_") and hi <= 0}
    both = {int(c) for c in SPLIT_BY_SF if int(c) in excluded and int(c) + 1 in excluded}  # == FEATURES index
    parts = []
    for i, (lo, hi) in sorted(bounds.items(), key=lambda b: (not FEATURES[b[0]].name.startswith("cat_"), b[0])):
        f = FEATURES[i]
        if named and f.name.startswith("cat_") and i not in named:
            continue
        if not named and i in both:
            parts.append(f"not {Category(i).label} (with or without a straight or flush)")
            continue
        if not named and i - 1 in both:
            continue
        if named and f.name in ("pairs", "trips"):
            continue
        text = describe(f, lo, hi)
        if text:
            parts.append(text)
    return ", ".join(parts) if parts else "any hand"
