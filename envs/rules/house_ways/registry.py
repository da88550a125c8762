"""The three house-way styles behind one interface, plus their batch kernels.

=================  =======  ===========================================================
style              game     source
=================  =======  ===========================================================
``asia-000``       asia     seed 000, "Playing the House Way" (mostly Wizard of Odds)
``asia-borgata``   asia     seed 002, Borgata Asia Poker House Way, revised 11/3/06
``paigow-igw``     paigow   seed 003, IGW Pai Gow Poker house way (English rendering)
=================  =======  ===========================================================

Each style lives in its own module (``house_way_asia_000.py``, ``house_way_borgata.py``,
``house_way_igw.py``) as small numba functions quoting the seed; docs/house_ways.md records every
interpretation. Here: the style registry, a validated Python entry point
(:func:`house_way_setting`), and numba kernels that dispatch on an integer style id for batch work
(exhaustive checks, simulation, dealer tables).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from numba import njit
from splitpoker.envs.rules.house_ways.asia_000 import house_way_asia_000_with_rule
from splitpoker.envs.rules.house_ways.asia_borgata import house_way_borgata_with_rule
from splitpoker.envs.rules.house_ways.paigow_igw import house_way_igw_with_rule
from splitpoker.envs.rules.house_ways.rule_ids import ASIA_000_RULES, BORGATA_RULES, IGW_RULES


class HouseWayStyle(str, Enum):
    ASIA_000 = "asia-000"
    ASIA_BORGATA = "asia-borgata"
    PAIGOW_IGW = "paigow-igw"

    @property
    def game(self) -> str:
        return "paigow" if self is HouseWayStyle.PAIGOW_IGW else "asia"

    @property
    def style_id(self) -> int:
        return _STYLE_IDS[self]

    @property
    def rule_names(self) -> tuple[str, ...]:
        return _RULE_NAMES[self]

    @classmethod
    def parse(cls, value: str | HouseWayStyle, game: str | None = None) -> HouseWayStyle:
        try:
            style = cls(value)
        except ValueError:
            raise ValueError(f"unknown house-way style {value!r}: expected one of {[s.value for s in cls]}") from None
        if game is not None and style.game != game:
            allowed = [s.value for s in cls if s.game == game]
            raise ValueError(f"house-way style {style.value!r} is for {style.game}, not {game}: expected one of {allowed}")
        return style


ASIA_000_ID = 0
ASIA_BORGATA_ID = 1
PAIGOW_IGW_ID = 2
_STYLE_IDS = {HouseWayStyle.ASIA_000: ASIA_000_ID, HouseWayStyle.ASIA_BORGATA: ASIA_BORGATA_ID,
              HouseWayStyle.PAIGOW_IGW: PAIGOW_IGW_ID}
_RULE_NAMES = {HouseWayStyle.ASIA_000: tuple(ASIA_000_RULES), HouseWayStyle.ASIA_BORGATA: tuple(BORGATA_RULES),
               HouseWayStyle.PAIGOW_IGW: tuple(IGW_RULES)}
STYLES = tuple(s.value for s in HouseWayStyle)


@njit(cache=True)
def house_way_with_rule(style_id, hand, rank_table, to_two):
    """(setting, rule id) of the house way ``style_id`` for the sorted 7-card ``hand``.

    ``rank_table``/``to_two``: the four-card table (Asia styles) or five-card table (Pai Gow)
    ``rank`` array and its ``class_to_two`` projection as int64."""
    if style_id == ASIA_000_ID:
        return house_way_asia_000_with_rule(hand, rank_table, to_two)
    if style_id == ASIA_BORGATA_ID:
        return house_way_borgata_with_rule(hand, rank_table, to_two)
    return house_way_igw_with_rule(hand, rank_table, to_two)


@njit(cache=True)
def house_way(style_id, hand, rank_table, to_two):
    return house_way_with_rule(style_id, hand, rank_table, to_two)[0]


@dataclass(frozen=True)
class HouseWayResult:
    setting: int
    rule_id: int
    rule: str


def house_way_setting(style: str | HouseWayStyle, game_engine, cards) -> HouseWayResult:
    """Validated Python entry point: the house-way setting of seven cards.

    ``game_engine``: an :class:`~splitpoker.envs.rules.games.asia.AsiaPoker` or :class:`~splitpoker.envs.rules.games.paigow.PaiGowPoker`
    (it carries the rules options and tables)."""
    style = HouseWayStyle.parse(style)
    engine_game = "paigow" if hasattr(game_engine, "back_rank") else "asia"
    if style.game != engine_game:
        raise ValueError(f"house-way style {style.value!r} plays {style.game}, but the game engine is {engine_game}")
    hand = game_engine.hand(cards)
    table = game_engine.back_rank if engine_game == "paigow" else game_engine.high_rank
    to_two = game_engine.back_to_two if engine_game == "paigow" else game_engine.high_to_two
    s, r = house_way_with_rule(style.style_id, hand, table, to_two)
    return HouseWayResult(int(s), int(r), style.rule_names[int(r)])
