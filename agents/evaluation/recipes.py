"""Setting recipes: short instructions a person can carry out that turn seven cards into a setting.

A recipe is a *constraint* on where cards go and an *order* of the hands to make as strong as
possible. To carry it out: among the settings that obey the constraint and do not foul, make the
first hand of the order as strong as it can be, then the second, then the third. Examples
(Pai Gow: back = the five-card hand, front = the two-card hand)::

    pairs in back, best front     "Keep every pair, trips and quads in back; then the best front
                                   hand, then the best back" (one pair: the two highest other
                                   cards in front)
    a pair in front, best back    "A pair in front; then the best back" (two pair: split the
                                   pairs, the higher in back)
    straight/flush, best front    "Keep a straight or flush in back; then the best front hand"

When no setting obeys the constraint, the recipe plays the order alone (the card says so once).
Ties (equal hand values, e.g. cards differing only by suit) go to the lowest setting index, so a
recipe is a function of the cards. The cost of a recipe on a hand is its exact regret: the best
EV minus the EV of the setting it makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from splitpoker.agents.evaluation.hand_categories import big_hand_size, card_rank, hand_shape
from splitpoker.envs.rules.games.spec import SPECS, get_spec
from splitpoker.envs.rules.ranking.categories import HandCategory

PAIR_VALUE = 78  # two-card values 78..90 are pairs (splitpoker.envs.rules.ranking.hand_eval.two_card_value)
SF_CATEGORIES = (HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH)
_BASE = 8192  # above every hand value (five-card classes < 7,463), so a lexicographic key is one integer


def _slot_table(game: str) -> np.ndarray:
    """``slot[s, p]``: the hand (0 big, 1 middle/front, 2 low) position ``p`` goes to in setting ``s``."""
    pos = get_spec(game).positions
    out = np.zeros((pos[0].shape[0], 7), dtype=np.int64)
    for slot, p in enumerate(pos):
        np.put_along_axis(out, p, slot, axis=1)
    return out


#: per game, ``slot[s, p]`` of every setting (:func:`_slot_table`)
SLOTS = {spec.name: _slot_table(spec.name) for spec in SPECS.values()}


@dataclass(frozen=True)
class HandView:
    """Everything a recipe looks at for one hand: each setting's hand values and whether it
    fouls, its big hand's category, where each card goes, and each card's rank group size."""

    game: str
    cards: np.ndarray
    values: np.ndarray  # int64[S, slots]
    fouled: np.ndarray  # bool[S]
    big_category: np.ndarray  # int64[S]
    slot: np.ndarray  # int64[S, 7]
    group_size: np.ndarray  # int64[7]
    ranks: np.ndarray  # int64[7]: each card's rank (the joker an ace)
    top_group: np.ndarray  # bool[7]: the card is of the largest group (trips or quads)


def hand_view(game, cards) -> HandView:
    hand = game.hand(cards)
    values, fouled = game.settings(hand)
    shape = hand_shape(hand, big_hand_size(game))
    sizes = np.array([shape.group_size(c) for c in hand], dtype=np.int64)
    top = (sizes >= 3) & (sizes == sizes.max())
    ranks = np.array([card_rank(c) for c in hand], dtype=np.int64)
    return HandView(game.game, hand, values.astype(np.int64), np.asarray(fouled, bool),
                    game.table.class_category[values[:, 0]].astype(np.int64), SLOTS[game.game], sizes, ranks, top)


# ---- constraints: HandView -> bool[S] -----------------------------------------------------------

def _any(v: HandView) -> np.ndarray:
    return np.ones(v.values.shape[0], dtype=bool)


def _groups_in_big(v: HandView) -> np.ndarray:
    grouped = v.group_size >= 2
    return ~((v.slot != 0) & grouped[None, :]).any(axis=1)


def _big_straight_or_flush(v: HandView) -> np.ndarray:
    return np.isin(v.big_category, SF_CATEGORIES)


def _second_pair(v: HandView) -> np.ndarray:
    return v.values[:, 1] >= PAIR_VALUE


def _big_pair(v: HandView) -> np.ndarray:
    return v.big_category != HandCategory.HIGH_CARD


def _both_pairs(v: HandView) -> np.ndarray:
    return _second_pair(v) & _big_pair(v)


def _second_and_fourth(v: HandView) -> np.ndarray:
    """The second- and fourth-highest singletons in the two-card hand (by rank: either card of
    a rank held once)."""
    singles = sorted({int(r) for r, g in zip(v.ranks, v.group_size, strict=True) if g == 1}, reverse=True)
    if len(singles) < 4:
        return np.zeros(v.values.shape[0], dtype=bool)
    want = np.isin(v.ranks, (singles[1], singles[3])) & (v.group_size == 1)
    return ((v.slot == 1) == want[None, :]).all(axis=1)


def _split_top_group(v: HandView) -> np.ndarray:
    return ((v.slot == 1) & v.top_group[None, :]).sum(axis=1) == 1


@dataclass(frozen=True)
class Constraint:
    """A constraint: its name, its words (a template over the hands' names as the cards print
    them: ``{big}`` the first hand, ``{second}`` the next, e.g. High / Medium, back / front) and
    its test."""

    name: str
    words: str
    test: object

    def text(self, game: str) -> str:
        titles = get_spec(game).slot_titles
        return self.words.format(big=titles[0], second=titles[1])


CONSTRAINTS = {c.name: c for c in (
    Constraint("any", "", _any),
    Constraint("groups", "Keep every pair, trips and quads in {big}", _groups_in_big),
    Constraint("sf", "Keep a straight or flush in {big}", _big_straight_or_flush),
    Constraint("pair2", "A pair in {second}", _second_pair),
    Constraint("pair1", "At least a pair in {big}", _big_pair),
    Constraint("pairs", "A pair in {second} and at least a pair in {big}", _both_pairs),
    Constraint("alt", "The second- and fourth-highest singletons in {second}", _second_and_fourth),
    Constraint("split", "One card of the trips (or quads) in {second}", _split_top_group),
)}
# The card language's choices per game (not restated from the spec: which constraints a game's
# cards use and in which order the orders are tried; the order of a book fixes ties in the learners).
ORDERS = {"asia": tuple(permutations(range(3))), "paigow": ((1, 0), (0, 1))}  # choice: the book's order
GAME_CONSTRAINTS = {"asia": ("any", "groups", "sf", "pair2", "pair1", "pairs", "alt"),  # choice: the book
                    "paigow": ("any", "groups", "sf", "pair2", "split", "alt")}


def hand_words(game: str) -> tuple[str, ...]:
    """How a card names making each hand strong: "the best High hand", ..., "the best Low card"."""
    spec = get_spec(game)
    return tuple(f"the best {t} {'card' if k == 1 else 'hand'}" for t, k in zip(spec.slot_titles, spec.hand_sizes,
                                                                               strict=True))


@dataclass(frozen=True)
class Recipe:
    """A constraint and an order of hands to maximise (see the module docstring)."""

    game: str
    constraint: str
    order: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.constraint}:" + "".join(get_spec(self.game).slot_titles[i][0] for i in self.order)

    @property
    def text(self) -> str:
        words = [hand_words(self.game)[i] for i in self.order]
        c = CONSTRAINTS[self.constraint].text(self.game)
        if len(words) == 2:
            tail = f"{words[0]}, then {words[1]}"
        else:
            tail = f"{words[0]}, then {words[1]}, then {words[2]}"
        return f"{c}; then {tail}." if c else f"{tail[0].upper()}{tail[1:]}."

    def setting(self, view: HandView) -> int:
        """The setting this recipe makes of the hand in ``view``."""
        return choose(view, CONSTRAINTS[self.constraint].test(view), self.order)


def choose(view: HandView, allowed: np.ndarray, order: tuple[int, ...]) -> int:
    """Among the allowed, unfouled settings (all unfouled ones if none is allowed), the one whose
    hands in ``order`` are strongest, lexicographically; ties to the lowest index."""
    ok = allowed & ~view.fouled
    if not ok.any():
        ok = ~view.fouled
    key = np.zeros(view.values.shape[0], dtype=np.int64)
    for slot in order:
        key = key * _BASE + view.values[:, slot]
    key = np.where(ok, key, -1)
    return int(np.argmax(key))


@dataclass(frozen=True)
class HouseWayRecipe:
    """"Set the hand as the ``style`` house way does": a recipe a card may fall back on (so a
    fitted card can be the house way with a few named fixes; ``strategy_card.py
    --house-way-recipe``)."""

    game: str
    style: str
    constraint: str = "house-way"

    @property
    def name(self) -> str:
        return f"house-way:{self.style}"

    @property
    def text(self) -> str:
        return f"Set the hand as the {self.style} house way does."


def recipes(game: str) -> tuple[Recipe, ...]:
    """The recipes of ``game`` (``asia``: 7 constraints x 6 orders; ``paigow``: 6 x 2)."""
    return tuple(Recipe(game, c, o) for c in GAME_CONSTRAINTS[game] for o in ORDERS[game])


def recipe_settings(game, cards: np.ndarray, book: tuple[Recipe, ...]) -> np.ndarray:
    """``int64[n, len(book)]``: the setting every recipe of ``book`` makes of every hand."""
    cards = np.asarray(cards, dtype=np.int64)
    out = np.empty((cards.shape[0], len(book)), dtype=np.int64)
    plain = [j for j, r in enumerate(book) if isinstance(r, Recipe)]
    for j, r in enumerate(book):
        if isinstance(r, HouseWayRecipe):
            from splitpoker.agents.evaluation.labels import house_way_rules
            from splitpoker.envs.rules.game import Game

            way = game if game.style.value == r.style else Game(game.game, r.style, game.rules)
            out[:, j] = house_way_rules(way, cards)[0]
    tests = {c: CONSTRAINTS[c].test for c in {book[j].constraint for j in plain}}
    for i, hand in enumerate(cards):
        v = hand_view(game, hand)
        masks = {c: t(v) for c, t in tests.items()}
        for j in plain:
            r = book[j]
            out[i, j] = choose(v, masks[r.constraint], r.order)
    return out
