"""Features of seven cards that a person can read at a glance, for the conditions of a strategy
card: how many pairs and of what rank, trips, quads, the high singletons, a straight or flush, the
joker, and the hand's category (:mod:`splitpoker.agents.evaluation.hand_categories`).

Every feature is an integer per hand (``-1`` for a rank that is not there: "no pair"). A condition
is an interval of one feature, and :func:`describe` says it in words::

    top_pair in [-1, 4]     ->  "highest pair 6s or lower (if any)"
    straight in [1, 1]      ->  "a straight"
    cat_two_pair in [1, 1]  ->  "two pair"
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
    hand_shape,
)

FLAG, COUNT, RANK, SINGLE = "flag", "count", "rank", "single"


@dataclass(frozen=True)
class Feature:
    """One readable feature: ``kind`` is a flag (0/1), a count, a group rank (pairs, trips:
    "9s") or a single card's rank ("9"); ``text`` names it in a condition."""

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
)
FEATURE_INDEX = {f.name: i for i, f in enumerate(FEATURES)}
assert all(FEATURE_INDEX[f"cat_{c.name.lower()}"] == int(c) for c in Category)  # the categories come first


def _get(seq, i: int) -> int:
    return int(seq[i]) if len(seq) > i else -1


def hand_features(cards, k: int) -> np.ndarray:
    """``int64[len(FEATURES)]`` of one seven-card hand (``k``: the big hand's size, 5 or 4)."""
    s = hand_shape(cards, k)
    cat = s.category
    values = [*(int(cat == c) for c in Category), len(s.pairs), len(s.trips), len(s.singles),
              sum(r >= HIGH_CARD_MIN for r in s.singles), int(s.straight), int(s.flush), int(s.straight_flush),
              int(s.joker), _get(s.pairs, 0), _get(s.pairs, 1), s.pairs[-1] if s.pairs else -1, _get(s.trips, 0),
              s.quads, _get(s.singles, 0), _get(s.singles, 1), _get(s.singles, 2), _get(s.singles, 3)]
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
    if hi < 0:
        return f"no {f.text}"
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
