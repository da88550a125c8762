"""A slow, deliberately naive reference evaluator for the hand-rank tables.

Written from the ranking specification only (docs / rules seeds), *not* from
``splitpoker.envs.rules.ranking.hand_eval``, so that ``tests/test_rank_tables.py`` is an independent check of the
production lookup tables. Pure Python: ``Counter``, explicit lists of straights, and the joker
handled by literally substituting every card it may stand for and keeping the best result.

Cards are integers ``rank * 4 + suit`` (rank 0 = deuce .. 12 = ace, suit 0..3) and 52 = joker.

Both public functions return ``(category_name, strength)``: ``category_name`` is a
``HandCategory`` member name and ``strength`` is a tuple that sorts in hand-strength order within
one ruleset (greater = stronger, equal = tie). ``strength = (category_position, tiebreak)``
where ``category_position`` is the category's place in that ruleset's category order (weakest
first) and ``tiebreak`` is a tuple of ranks / straight positions compared as in standard poker.
"""

from __future__ import annotations

from collections import Counter

ACE = 12
JOKER = 52
ROYAL_RANKS = frozenset({8, 9, 10, 11, 12})  # T J Q K A

# Category orders, WEAKEST FIRST.
ASIA_ORDER_FLUSH_OVER_STRAIGHT = (
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "STRAIGHT_FLUSH",
    "FOUR_OF_A_KIND",
)
ASIA_ORDER_STRAIGHT_OVER_FLUSH = (
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "FLUSH",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "FOUR_OF_A_KIND",
)
PAIGOW_ORDER = (
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "FULL_HOUSE",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
    "ROYAL_FLUSH",
    "FIVE_ACES",
)


def straight_list(length: int, wheel_high: bool) -> list[frozenset[int]]:
    """All straights of ``length`` cards as rank sets, WEAKEST FIRST.

    The ordinary straights run 2-3-4-5(-6) up to the ace-high one. The ace-low straight
    (A-2-3-4 or A-2-3-4-5) is either the lowest of all (``wheel_high=False``) or sits just
    below the ace-high straight (``wheel_high=True``).
    """
    ordinary = [frozenset(range(low, low + length)) for low in range(0, 13 - length + 1)]
    wheel = frozenset({ACE, *range(0, length - 1)})
    if wheel_high:
        return ordinary[:-1] + [wheel] + ordinary[-1:]
    return [wheel] + ordinary


def _natural_key(cards, order, wheel_high, royal_label):
    """Key of a hand of concrete (rank, suit) pairs; suit ``None`` = a suit-less card (joker as
    an ace / as a straight filler), which never makes a flush. Ranks may repeat (A-A-A-A-A)."""
    n = len(cards)
    ranks = [rank for rank, _ in cards]
    suits = [suit for _, suit in cards]
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    # ranks grouped: bigger groups first, then higher rank first (quads/trips/pairs, then kickers)
    grouped = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    descending = tuple(sorted(ranks, reverse=True))

    is_flush = None not in suits and len(set(suits)) == 1
    straights = straight_list(n, wheel_high)
    straight_pos = straights.index(frozenset(ranks)) if frozenset(ranks) in straights else None
    if len(counts) != n:  # a straight needs n distinct ranks (guards frozenset collapsing)
        straight_pos = None

    if shape == [5]:
        name, tiebreak = "FIVE_ACES", grouped  # only aces can appear five times
    elif straight_pos is not None and is_flush:
        if royal_label and frozenset(ranks) == ROYAL_RANKS:
            name, tiebreak = "ROYAL_FLUSH", (straight_pos,)
        else:
            name, tiebreak = "STRAIGHT_FLUSH", (straight_pos,)
    elif shape[0] == 4:
        name, tiebreak = "FOUR_OF_A_KIND", grouped  # quad rank, then kicker (5 cards)
    elif shape == [3, 2]:
        name, tiebreak = "FULL_HOUSE", grouped  # trips rank, then pair rank
    elif is_flush:
        name, tiebreak = "FLUSH", descending
    elif straight_pos is not None:
        name, tiebreak = "STRAIGHT", (straight_pos,)
    elif shape[0] == 3:
        name, tiebreak = "THREE_OF_A_KIND", grouped  # trips rank, kickers descending
    elif shape[:2] == [2, 2]:
        name, tiebreak = "TWO_PAIR", grouped  # high pair, low pair, kicker
    elif shape[0] == 2:
        name, tiebreak = "PAIR", grouped  # pair rank, kickers descending
    else:
        name, tiebreak = "HIGH_CARD", descending
    assert name in order, (name, cards)
    return name, (order.index(name), tiebreak)


def _best_key(cards, n, order, wheel_high, royal_label):
    cards = list(cards)
    assert len(cards) == n and len(set(cards)) == n, cards
    assert all(0 <= c <= JOKER for c in cards), cards
    real = [(c // 4, c % 4) for c in cards if c != JOKER]

    def key(hand):
        return _natural_key(hand, order, wheel_high, royal_label)

    if len(real) == n:
        return key(real)

    # (a) the joker as a suit-less ace (may duplicate an ace already in the hand)
    candidates = [key(real + [(ACE, None)])]
    # (b) the joker as any absent real card that completes a flush / straight flush
    suits = {suit for _, suit in real}
    if len(suits) == 1:
        (suit,) = suits
        for rank in range(13):
            if (rank, suit) not in real:
                candidates.append(key(real + [(rank, suit)]))
    # (c) the joker as any rank that completes a straight (only counted if it is a straight)
    for rank in range(13):
        name, strength = key(real + [(rank, None)])
        if name == "STRAIGHT":
            candidates.append((name, strength))
    return max(candidates, key=lambda cand: cand[1])


def ref_asia_key(cards, flush_beats_straight: bool = True, wheel_high: bool = False):
    """Reference key of an Asia Poker four-card high hand."""
    order = (
        ASIA_ORDER_FLUSH_OVER_STRAIGHT if flush_beats_straight else ASIA_ORDER_STRAIGHT_OVER_FLUSH
    )
    return _best_key(cards, 4, order, wheel_high, royal_label=False)


def ref_paigow_key(cards, wheel_high: bool = True):
    """Reference key of a Pai Gow Poker five-card back hand."""
    return _best_key(cards, 5, PAIGOW_ORDER, wheel_high, royal_label=True)
