"""What a player sees in seven cards: the rank groups, the straights and flushes, the joker, and
one partition of all hands into categories a player would name.

Cards are ``rank * 4 + suit`` (0..51), the joker 52 (:mod:`splitpoker.envs.rules.cards`). For
grouping the joker counts as an ace, as every house way reads it (docs/house_ways.md, asia-000
D1): ``A + JK`` is a pair of aces, and four aces with the joker are five aces. For straights and
flushes the joker is wild, as in the game's big hand (Pai Gow's five-card back, Asia's four-card
high hand): a straight or flush "is present" when some ``k`` of the seven cards make one, ``k``
being that hand's size (5 or 4, ``game.table.n_cards``). A-2-3-4(-5) counts as a straight.

The partition (:class:`Category`) is the pattern of group sizes, split by whether a straight or
flush is present for the patterns that can hold one in play (no pair to trips)::

    pattern       group sizes            straight/flush split
    no pair       1 1 1 1 1 1 1          yes
    one pair      2 1 1 1 1 1            yes
    two pair      2 2 1 1 1              yes
    three pairs   2 2 2 1                yes (only a four-card one: Asia)
    trips         3 1 1 1 1              yes
    two trips     3 3 1                  no
    full house    3 2 1 1, 3 2 2         no
    quads         4 1 1 1, 4 2 1, 4 3    no
    five aces     5 1 1, 5 2             no

Every seven-card hand falls in exactly one category (``tests/test_report.py`` checks the counts
on a small deck against brute force and hand-worked hands).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from splitpoker.envs.rules.cards import JOKER, Rank

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_PLURALS = ("2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "jacks", "queens", "kings", "aces")
HIGH_CARD_MIN = Rank.JACK  # "J-A = High" (seed 000's card classes)


class Category(IntEnum):
    """The categories of the partition, in the order reports list them."""

    NO_PAIR = 0
    NO_PAIR_SF = 1
    ONE_PAIR = 2
    ONE_PAIR_SF = 3
    TWO_PAIR = 4
    TWO_PAIR_SF = 5
    THREE_PAIRS = 6
    THREE_PAIRS_SF = 7
    TRIPS = 8
    TRIPS_SF = 9
    TWO_TRIPS = 10
    FULL_HOUSE = 11
    QUADS = 12
    FIVE_ACES = 13

    @property
    def label(self) -> str:
        return CATEGORY_LABELS[self]


CATEGORY_LABELS = {
    Category.NO_PAIR: "no pair", Category.NO_PAIR_SF: "no pair, straight or flush",
    Category.ONE_PAIR: "one pair", Category.ONE_PAIR_SF: "one pair, straight or flush",
    Category.TWO_PAIR: "two pair", Category.TWO_PAIR_SF: "two pair, straight or flush",
    Category.THREE_PAIRS: "three pairs", Category.THREE_PAIRS_SF: "three pairs, straight or flush",
    Category.TRIPS: "trips", Category.TRIPS_SF: "trips, straight or flush",
    Category.TWO_TRIPS: "two trips", Category.FULL_HOUSE: "full house (trips and a pair)",
    Category.QUADS: "four of a kind", Category.FIVE_ACES: "five aces",
}
_PATTERN = {(1,) * 7: Category.NO_PAIR, (2, 1, 1, 1, 1, 1): Category.ONE_PAIR, (2, 2, 1, 1, 1): Category.TWO_PAIR,
            (2, 2, 2, 1): Category.THREE_PAIRS, (3, 1, 1, 1, 1): Category.TRIPS, (3, 3, 1): Category.TWO_TRIPS,
            (3, 2, 1, 1): Category.FULL_HOUSE, (3, 2, 2): Category.FULL_HOUSE, (4, 1, 1, 1): Category.QUADS,
            (4, 2, 1): Category.QUADS, (4, 3): Category.QUADS, (5, 1, 1): Category.FIVE_ACES,
            (5, 2): Category.FIVE_ACES}
SPLIT_BY_SF = (Category.NO_PAIR, Category.ONE_PAIR, Category.TWO_PAIR, Category.THREE_PAIRS, Category.TRIPS)
# each is followed by its "..., straight or flush" twin (Category value + 1)


def card_rank(card: int) -> int:
    """The rank of ``card`` for grouping: the joker is an ace."""
    return int(Rank.ACE) if card == JOKER else int(card) >> 2


def has_straight(cards, k: int) -> bool:
    """Whether ``k`` of ``cards`` make a straight (the joker fills one gap; A-2-3-.. counts)."""
    ranks = {int(c) >> 2 for c in cards if c != JOKER}
    wild = int(JOKER in set(int(c) for c in cards))
    lows = [(-1 if r == Rank.ACE else r) for r in ranks]  # the ace also plays low
    present = ranks | set(lows)
    for start in range(-1, 13 - k + 1):
        missing = sum(1 for r in range(start, start + k) if r not in present)
        if missing <= wild:
            return True
    return False


def has_flush(cards, k: int) -> bool:
    """Whether ``k`` of ``cards`` share a suit (the joker joins any suit)."""
    wild = int(any(int(c) == JOKER for c in cards))
    suits = np.bincount([int(c) & 3 for c in cards if c != JOKER], minlength=4)
    return int(suits.max()) + wild >= k


def has_straight_flush(cards, k: int) -> bool:
    """Whether ``k`` of ``cards`` make a straight flush (the joker wild)."""
    joker = [c for c in cards if int(c) == JOKER]
    for suit in range(4):
        same = [c for c in cards if int(c) != JOKER and int(c) & 3 == suit]
        if len(same) + len(joker) >= k and has_straight(same + joker, k):
            return True
    return False


@dataclass(frozen=True)
class HandShape:
    """The seven cards as a player reads them.

    Attributes:
        groups: ``(rank, size)`` of every rank held, largest group first, then highest rank
            (the joker counted as an ace).
        pairs, trips: ranks of the pairs / trips, highest first; ``quads``: rank of four of a
            kind (or five aces) or -1; ``singles``: ranks of the singletons, highest first.
        joker: the joker is held.
        straight, flush, straight_flush: present among ``k`` cards (``k`` = the big hand's size).
    """

    cards: tuple[int, ...]
    k: int
    groups: tuple[tuple[int, int], ...]
    pairs: tuple[int, ...]
    trips: tuple[int, ...]
    quads: int
    singles: tuple[int, ...]
    joker: bool
    straight: bool
    flush: bool
    straight_flush: bool

    @property
    def pattern(self) -> tuple[int, ...]:
        return tuple(size for _, size in self.groups)

    @property
    def category(self) -> Category:
        c = _PATTERN[self.pattern]
        if c in SPLIT_BY_SF and (self.straight or self.flush):
            return Category(c + 1)
        return c

    def group_size(self, card: int) -> int:
        """Size of the rank group ``card`` belongs to (the joker's is the aces')."""
        r = card_rank(card)
        return next(size for rank, size in self.groups if rank == r)


def hand_shape(cards, k: int) -> HandShape:
    """The :class:`HandShape` of seven ``cards`` (card integers) for a big hand of ``k`` cards."""
    cards = tuple(sorted(int(c) for c in cards))
    if len(cards) != 7 or len(set(cards)) != 7 or min(cards) < 0 or max(cards) > JOKER:
        raise ValueError(f"cards {cards}: expected seven distinct card integers 0..52")
    if k not in (4, 5):
        raise ValueError(f"k={k!r}: expected 4 (Asia's high hand) or 5 (Pai Gow's back hand)")
    counts = np.bincount([card_rank(c) for c in cards], minlength=13)
    groups = tuple(sorted(((r, int(n)) for r, n in enumerate(counts) if n), key=lambda g: (-g[1], -g[0])))
    return HandShape(
        cards=cards, k=k, groups=groups,
        pairs=tuple(r for r, n in groups if n == 2), trips=tuple(r for r, n in groups if n == 3),
        quads=next((r for r, n in groups if n >= 4), -1), singles=tuple(r for r, n in groups if n == 1),
        joker=JOKER in cards, straight=has_straight(cards, k), flush=has_flush(cards, k),
        straight_flush=has_straight_flush(cards, k))


def big_hand_size(game) -> int:
    """Cards in ``game``'s big hand: 5 (Pai Gow back) or 4 (Asia high), from its rank table."""
    return int(game.table.n_cards)


def categorize(hands, game) -> np.ndarray:
    """``int64[n]``: the :class:`Category` of each seven-card hand (rows of ``hands``)."""
    k = big_hand_size(game)
    return np.array([int(hand_shape(h, k).category) for h in np.asarray(hands, dtype=np.int64)], dtype=np.int64)
