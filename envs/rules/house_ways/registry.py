"""The registered house-way styles: one table, one validated entry point, the numba dispatch.

===============================  =======  ============================================================
style                            game     source
===============================  =======  ============================================================
``asia-000``                     asia     seed 000, "Playing the House Way" (mostly Wizard of Odds)
``asia-borgata``                 asia     seed 002, Borgata Asia Poker House Way, revised 11/3/06
``paigow-igw``                   paigow   seed 003, IGW Pai Gow Poker house way (English rendering)
``paigow-foxwoods``              paigow   Foxwoods Pai Gow Poker house way (reference, Wizard of Odds)
``paigow-foxwoods-split-quads``  paigow   the same, option D13: four J-A with a pair or trips split
===============================  =======  ============================================================

Each style lives in its own module of this package (``asia_000.py``, ``asia_borgata.py``,
``paigow_igw.py``): small numba functions quoting the source, the style's rule-id table, and its
``house_way_..._with_rule(hand, rank_table, to_two)`` kernel; docs/house_ways.md records every
interpretation. **Adding a style** is its module plus its registration here, in three places
marked ``# registration``: a member of :class:`HouseWayStyle`, a row of :data:`_REGISTRY` (the
row's position is the style's integer id, read by every batch kernel: append, never renumber) and
a branch of :func:`house_way_with_rule` (and, for a scratch-taking core, of :func:`house_way_with_rule_into`).
Everything else (``Game``, the envs' ``house_way=``, the scripts' ``--style`` choices, the exact
solver, the dealer tables, the batch checks) reads this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
from numba import njit

from splitpoker.envs.rules.checks import short_repr
from splitpoker.envs.rules.games.paigow import N_PAIGOW_SETTINGS
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.house_ways import asia_000, asia_borgata, paigow_foxwoods, paigow_igw


class HouseWayStyle(str, Enum):
    """A registered house way, by its public name (``HouseWayStyle("paigow-igw")``)."""

    ASIA_000 = "asia-000"  # registration
    ASIA_BORGATA = "asia-borgata"
    PAIGOW_IGW = "paigow-igw"
    PAIGOW_FOXWOODS = "paigow-foxwoods"
    PAIGOW_FOXWOODS_SPLIT_QUADS = "paigow-foxwoods-split-quads"

    @property
    def game(self) -> str:
        """The game this style sets hands of (``"asia"`` or ``"paigow"``)."""
        return _INFO[self].game

    @property
    def style_id(self) -> int:
        """The integer id the numba kernels dispatch on (the row of :data:`_REGISTRY`)."""
        return _INFO[self].style_id

    @property
    def rule_names(self) -> tuple[str, ...]:
        """The text of each rule id (``rule_names[rule_id]``); the last is the fallback."""
        return _INFO[self].rule_names

    @property
    def source(self) -> str:
        return _INFO[self].source

    @classmethod
    def parse(cls, value: str | HouseWayStyle, game: str | None = None) -> HouseWayStyle:
        """The style named ``value``, checked against ``game`` when given; ``ValueError`` names
        the value and the styles allowed."""
        if isinstance(value, cls):
            style = value
        else:
            try:
                style = cls(value)
            except ValueError:
                raise ValueError(f"unknown house-way style {short_repr(value)}: expected one of "
                                 f"{[s.value for s in cls]}") from None
        if game is not None and style.game != str(game):
            raise ValueError(f"house-way style {style.value!r} is for {style.game}, not {game}: expected one of "
                             f"{styles_of(str(game))}")
        return style


@dataclass(frozen=True)
class StyleInfo:
    """What the registry knows of a style: its game, its id, its rule texts and its source."""

    game: str
    style_id: int
    rule_names: tuple[str, ...]
    source: str


# registration: (style, game, rule texts, source); the position is the style id
_REGISTRY = (
    (HouseWayStyle.ASIA_000, "asia", asia_000.ASIA_000_RULES,
     'seed 000, "Playing the House Way" (mostly Wizard of Odds)'),
    (HouseWayStyle.ASIA_BORGATA, "asia", asia_borgata.BORGATA_RULES,
     "seed 002, Borgata Asia Poker House Way, revised 11/3/06"),
    (HouseWayStyle.PAIGOW_IGW, "paigow", paigow_igw.IGW_RULES,
     "seed 003, IGW Pai Gow Poker house way (English rendering)"),
    (HouseWayStyle.PAIGOW_FOXWOODS, "paigow", paigow_foxwoods.FOXWOODS_RULES,
     "Foxwoods Pai Gow Poker house way (docs/references/paigow_foxwoods_house_way.md)"),
    (HouseWayStyle.PAIGOW_FOXWOODS_SPLIT_QUADS, "paigow", paigow_foxwoods.FOXWOODS_RULES,
     "Foxwoods house way, option D13: four jacks to aces with a pair or trips are split"),
)
_INFO = {style: StyleInfo(game, i, tuple(rules), source) for i, (style, game, rules, source) in enumerate(_REGISTRY)}
assert set(_INFO) == set(HouseWayStyle), "every HouseWayStyle member needs a _REGISTRY row"

ASIA_000_ID = HouseWayStyle.ASIA_000.style_id
ASIA_BORGATA_ID = HouseWayStyle.ASIA_BORGATA.style_id
PAIGOW_IGW_ID = HouseWayStyle.PAIGOW_IGW.style_id
PAIGOW_FOXWOODS_ID = HouseWayStyle.PAIGOW_FOXWOODS.style_id
PAIGOW_FOXWOODS_SPLIT_QUADS_ID = HouseWayStyle.PAIGOW_FOXWOODS_SPLIT_QUADS.style_id
#: every style's public name, in id order
STYLES = tuple(style.value for style, *_ in _REGISTRY)
#: per style id: the numba game id of the game it sets hands of (``GameSpec.game_id``)
STYLE_GAME_ID = np.array([get_spec(game).game_id for _, game, *_ in _REGISTRY], dtype=np.int64)
STYLE_GAME_ID.setflags(write=False)
#: per numba game id, the ids of its styles
STYLE_IDS_OF_GAME_ID: dict[int, tuple[int, ...]] = {}
for _style in HouseWayStyle:
    STYLE_IDS_OF_GAME_ID.setdefault(get_spec(_style.game).game_id, ())
    STYLE_IDS_OF_GAME_ID[get_spec(_style.game).game_id] += (_style.style_id,)
del _style


def styles_of(game: str) -> list[str]:
    """The registered styles of ``game``."""
    return [s.value for s in HouseWayStyle if s.game == str(game)]


@njit(cache=True)
def house_way_with_rule(style_id, hand, rank_table, to_two):
    """(setting, rule id) of the house way ``style_id`` for the sorted 7-card ``hand``.

    ``rank_table``/``to_two``: the four-card table (Asia styles) or five-card table (Pai Gow)
    ``rank`` array and its ``class_to_two`` projection as int64."""
    if style_id == ASIA_000_ID:  # registration
        return asia_000.house_way_asia_000_with_rule(hand, rank_table, to_two)
    if style_id == ASIA_BORGATA_ID:
        return asia_borgata.house_way_borgata_with_rule(hand, rank_table, to_two)
    if style_id == PAIGOW_FOXWOODS_ID:
        return paigow_foxwoods.house_way_foxwoods_with_rule(hand, rank_table, to_two, 0)
    if style_id == PAIGOW_FOXWOODS_SPLIT_QUADS_ID:
        return paigow_foxwoods.house_way_foxwoods_with_rule(hand, rank_table, to_two, paigow_foxwoods.SPLIT_QUADS)
    return paigow_igw.house_way_igw_with_rule(hand, rank_table, to_two)


@njit(cache=True)
def house_way(style_id, hand, rank_table, to_two):
    """The setting :func:`house_way_with_rule` chooses."""
    return house_way_with_rule(style_id, hand, rank_table, to_two)[0]


#: the rows of a per-environment scratch block (``int64[rows, 53]``) a house way may use in
#: :func:`house_way_into`: 2-5 for four work arrays, 8-9 for two setting-length arrays
SCRATCH_WORK_ROWS = (2, 3, 4, 5)
SCRATCH_SETTING_ROWS = (8, 9)
#: the shape of a work block :func:`house_way_with_rule_into` takes (the round kernels' scratch
#: block, ``splitpoker.envs.rules.play.rounds.SCRATCH_ROWS`` by ``SCRATCH_WIDTH``, is one)
WORK_BLOCK_ROWS = 10
WORK_BLOCK_WIDTH = 53
assert asia_000.SCRATCH_SIZE <= WORK_BLOCK_WIDTH and N_PAIGOW_SETTINGS <= WORK_BLOCK_WIDTH


@njit(cache=True, inline="always")
def new_work_block():
    """A fresh work block for :func:`house_way_with_rule_into` (one per task of a batch kernel)."""
    return np.zeros((WORK_BLOCK_ROWS, WORK_BLOCK_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def house_way_with_rule_into(style_id, hand, rank_table, to_two, scratch):
    """:func:`house_way_with_rule` with the work arrays in ``scratch`` (an ``int64[rows >= 10, 53]``
    block, rows :data:`SCRATCH_WORK_ROWS` and :data:`SCRATCH_SETTING_ROWS`; their contents on entry
    do not matter), for styles whose module has a core that takes them (the others allocate their
    own). The exhaustive passes and the round kernels call this: the three allocations it saves cost
    about a fifth of a house way (about 90 of 440 ns a hand, measured on one core)."""
    n = asia_000.SCRATCH_SIZE
    if style_id == ASIA_000_ID:  # registration (optional: a core taking work arrays)
        return asia_000.house_way_asia_000_core(hand, rank_table, to_two, scratch[2, :n], scratch[3, :n],
                                                scratch[4, :n], scratch[5, :n])
    if style_id == PAIGOW_IGW_ID:
        return paigow_igw.house_way_igw_core(hand, rank_table, to_two, scratch[8, :N_PAIGOW_SETTINGS],
                                             scratch[9, :N_PAIGOW_SETTINGS], scratch[2, :n], scratch[3, :n],
                                             scratch[4, :n], scratch[5, :n])
    if style_id == PAIGOW_FOXWOODS_ID or style_id == PAIGOW_FOXWOODS_SPLIT_QUADS_ID:
        readings = 0 if style_id == PAIGOW_FOXWOODS_ID else paigow_foxwoods.SPLIT_QUADS
        return paigow_foxwoods.house_way_foxwoods_core(hand, rank_table, to_two, readings,
                                                       scratch[8, :N_PAIGOW_SETTINGS], scratch[9, :N_PAIGOW_SETTINGS],
                                                       scratch[2, :n], scratch[3, :n], scratch[4, :n], scratch[5, :n])
    return house_way_with_rule(style_id, hand, rank_table, to_two)


@njit(cache=True, inline="always")
def house_way_into(style_id, hand, rank_table, to_two, scratch):
    """The setting :func:`house_way_with_rule_into` chooses (the batch rounds' block)."""
    return house_way_with_rule_into(style_id, hand, rank_table, to_two, scratch)[0]


@dataclass(frozen=True)
class HouseWayResult:
    setting: int
    rule_id: int
    rule: str


def house_way_setting(style: str | HouseWayStyle, game_engine, cards) -> HouseWayResult:
    """Validated Python entry point: the house-way setting of seven cards.

    ``game_engine``: an :class:`~splitpoker.envs.rules.games.asia.AsiaPoker` or
    :class:`~splitpoker.envs.rules.games.paigow.PaiGowPoker` (it carries the rules options and tables)."""
    style = HouseWayStyle.parse(style)
    if style.game != game_engine.game:
        raise ValueError(f"house-way style {style.value!r} plays {style.game}, but the game engine is {game_engine.game}")
    hand = game_engine.hand(cards)
    s, r = house_way_with_rule(style.style_id, hand, game_engine.rank_table, game_engine.to_two)
    return HouseWayResult(int(s), int(r), style.rule_names[int(r)])
