"""Cards as integers, and their text form.

Layout (phevaluator/treys style): a card is ``rank * 4 + suit`` for the 52 standard cards and
``52`` for the joker::

               s    h    d    c          suit index 0..3 (spades, hearts, diamonds, clubs)
      2  (0)   0    1    2    3
      3  (1)   4    5    6    7
      ...
      K (11)  44   45   46   47
      A (12)  48   49   50   51
      joker   52

Ranks run 0 = deuce .. 12 = ace. Text form: rank character ``23456789TJQKA`` (``10`` accepted for
ten, any case) followed by a suit character ``shdc`` (any case) or a suit symbol ``♠♥♦♣`` (as
``format_cards(..., symbols=True)`` prints them; ``♤♡♢♧`` too); the joker is ``JK`` (``Joker`` and
``JKR`` accepted). Formatting is canonical (``Th``, ``JK``) and ``parse_cards(format_cards(x)) ==
x``.

Everything here is validation at the boundary: the hot paths (numba kernels) take integer arrays
that these functions produced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

import numpy as np

from splitpoker.envs.rules.checks import is_integer

N_RANKS = 13
N_SUITS = 4
N_STANDARD = 52
JOKER = 52
DECK_SIZE = 53

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
_SUIT_OF = {**{ch: i for i, ch in enumerate(SUIT_CHARS)}, **{ch: i for i, ch in enumerate(SUIT_SYMBOLS)},
            **{ch: i for i, ch in enumerate("♤♡♢♧")}}  # letters, the symbols format_cards prints, white symbols
JOKER_TEXT = "JK"
_JOKER_ALIASES = {"JK", "JOKER", "JKR"}


class Rank(IntEnum):
    """Card ranks, deuce low (0) to ace high (12)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12


def make_card(rank: int, suit: int) -> int:
    """Integer card of ``rank`` (0..12) and ``suit`` (0..3)."""
    if not 0 <= int(rank) < N_RANKS:
        raise ValueError(f"rank {rank!r} out of range: expected 0 (deuce) .. 12 (ace)")
    if not 0 <= int(suit) < N_SUITS:
        raise ValueError(f"suit {suit!r} out of range: expected 0..3 (s, h, d, c)")
    return int(rank) * 4 + int(suit)


def card_rank(card: int) -> int:
    """Rank 0..12 of a standard card; the joker has no rank of its own (raises)."""
    card = check_card(card)
    if card == JOKER:
        raise ValueError("the joker (52) has no rank: its rank depends on the hand it plays in")
    return card >> 2


def card_suit(card: int) -> int:
    card = check_card(card)
    if card == JOKER:
        raise ValueError("the joker (52) has no suit")
    return card & 3


def check_card(card: object) -> int:
    """Return ``card`` as int if it is a valid card integer 0..52, else raise naming it."""
    if not is_integer(card):
        raise TypeError(f"card {card!r} is not an integer: expected 0..52 (rank*4+suit, joker 52)")
    if not 0 <= int(card) <= JOKER:
        raise ValueError(f"card {card!r} out of range: expected 0..52 (rank*4+suit, joker 52)")
    return int(card)


def parse_card(token: str) -> int:
    """Parse one card token (``As``, ``10h``, ``td``, ``A♠``, ``10♥``, ``JK``, ``Joker``) into its integer."""
    if not isinstance(token, str):
        raise TypeError(f"card token {token!r} is not a string")
    t = token.strip().replace("\ufe0f", "")  # emoji presentation selector after a suit symbol
    if t.upper() in _JOKER_ALIASES:
        return JOKER
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise ValueError(
            f"bad card {token!r}: expected a rank of 23456789TJQKA (or 10) and a suit of shdc (or ♠♥♦♣), "
            f"e.g. 'As', 'Th', '10d', 'K♥', or the joker 'JK'"
        )
    r = RANK_CHARS.find(t[0].upper())
    if r < 0:
        raise ValueError(f"bad card {token!r}: unknown rank {t[0]!r}, expected one of 23456789TJQKA or 10")
    s = _SUIT_OF.get(t[1].lower(), -1)
    if s < 0:
        raise ValueError(f"bad card {token!r}: unknown suit {t[1]!r}, expected one of s h d c (or ♠ ♥ ♦ ♣)")
    return r * 4 + s


def format_card(card: int, symbols: bool = False) -> str:
    """Canonical text of a card (``Th``, ``JK``); ``symbols=True`` uses suit symbols (``T♥``)."""
    card = check_card(card)
    if card == JOKER:
        return JOKER_TEXT
    suit = SUIT_SYMBOLS[card & 3] if symbols else SUIT_CHARS[card & 3]
    return RANK_CHARS[card >> 2] + suit


def _tokens(text: str) -> list[str]:
    return text.replace(",", " ").split()


def parse_cards(cards: str | Iterable[str | int], n: int | None = None) -> list[int]:
    """Parse a hand: a string ``"As Kd Th 9c 2h"``, or a sequence of tokens or card integers.

    Raises ``ValueError`` naming the offending token for an unknown rank or suit, a duplicate
    card, or (when ``n`` is given) the wrong number of cards.
    """
    items = _tokens(cards) if isinstance(cards, str) else list(cards)
    out: list[int] = []
    seen: dict[int, object] = {}
    for item in items:
        card = parse_card(item) if isinstance(item, str) else check_card(item)
        if card in seen:
            raise ValueError(
                f"duplicate card {item!r} ({format_card(card)}): each of the 53 cards appears once"
            )
        seen[card] = item
        out.append(card)
    if n is not None and len(out) != n:
        raise ValueError(f"expected {n} cards, got {len(out)}: {' '.join(format_card(c) for c in out)!r}")
    return out


_TEXT = tuple(RANK_CHARS[c >> 2] + SUIT_CHARS[c & 3] for c in range(52)) + (JOKER_TEXT,)
_SYMBOL_TEXT = tuple(RANK_CHARS[c >> 2] + SUIT_SYMBOLS[c & 3] for c in range(52)) + (JOKER_TEXT,)


def _check_range(cards: np.ndarray) -> None:
    """Every value of an integer array is a card 0..52 (else a ``ValueError`` naming the first that is not)."""
    if cards.size and (cards.min() < 0 or cards.max() > JOKER):
        bad = cards[(cards < 0) | (cards > JOKER)][0]
        raise ValueError(f"card {bad!r} out of range: expected 0..52 (rank*4+suit, joker 52)")


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    """Space-separated canonical text of ``cards``."""
    if isinstance(cards, np.ndarray) and np.issubdtype(cards.dtype, np.integer):
        _check_range(cards)
        text = _SYMBOL_TEXT if symbols else _TEXT
        return " ".join([text[c] for c in cards.tolist()])
    return " ".join(format_card(c, symbols=symbols) for c in cards)


def format_card_rows(rows: np.ndarray) -> list[str]:
    """:func:`format_cards` of every row of an integer array ``[n, k]`` (one range check for the
    whole array, then one join a row): the text of many hands at once."""
    rows = np.asarray(rows)
    if rows.ndim != 2 or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"card rows of shape {rows.shape} and dtype {rows.dtype}: expected a 2-d integer array")
    _check_range(rows)
    text = _TEXT
    return [" ".join([text[c] for c in row]) for row in rows.tolist()]


def hand_array(cards: str | Sequence[str | int], n: int | None = None) -> np.ndarray:
    """Validated hand as a sorted ``int64`` array (the form every numba kernel takes)."""
    return np.array(sorted(parse_cards(cards, n=n)), dtype=np.int64)


def full_deck() -> np.ndarray:
    """All 53 cards, 0..52."""
    return np.arange(DECK_SIZE, dtype=np.int64)


class SevenCardGame:
    """What the two games' Python APIs share (:class:`~splitpoker.envs.rules.games.asia.AsiaPoker`,
    :class:`~splitpoker.envs.rules.games.paigow.PaiGowPoker`): seven validated cards, a validated setting index
    ``0..n_settings-1`` and the legal-setting mask."""

    n_settings: int

    @staticmethod
    def hand(cards) -> np.ndarray:
        """Seven validated cards as a sorted int64 array (the order settings index into)."""
        return hand_array(cards, n=7)

    @classmethod
    def _check_setting(cls, s) -> int:
        if not is_integer(s) or not 0 <= int(s) < cls.n_settings:
            raise ValueError(f"setting {s!r} out of range: expected an integer 0..{cls.n_settings - 1}")
        return int(s)

    def legal_mask(self, cards) -> np.ndarray:
        """Boolean mask of the non-fouled settings."""
        return ~self.all_settings(cards)[1]
