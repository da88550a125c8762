"""``TableRules``: one casino table's game, house way, pay tables and limits, validated once; the
:class:`~splitpoker.envs.rules.game.Game` its seats' rounds are played with (:meth:`TableRules.make_game`)
and the arrays of the bulk settlement kernel (:mod:`splitpoker.envs.rules.table.table`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from splitpoker.envs.rules.bonus.features import N_FEATURE_CODES
from splitpoker.envs.rules.bonus.paytables import (
    ENVY_QUALIFYING_FORTUNE_WAGER,
    PayTable,
    get_paytable,
)
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import GameSpec, get_spec
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle


def _check_amount(name: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(float(x)):
        raise ValueError(f"{name}={x!r}: expected a finite number of chips")
    return float(x)


@dataclass(frozen=True)
class TableRules:
    """One table's game, house way, pay tables and limits (validated; ``None`` = the game's default).

    Attributes:
        game: ``"asia"`` or ``"paigow"``.
        house_way: the dealer's style (default ``asia-000`` / ``paigow-igw``).
        rules: :class:`AsiaRules` / :class:`PaiGowRules` (default options).
        bonus_paytable: Asia ``seed-000`` / Pai Gow ``fortune`` (name, table or None = no bonus).
        envy_paytable: Pai Gow ``envy`` (None = no Envy; Asia has none).
        envy_unit: chips per Envy unit (default $1: the Envy column's "5" is $5).
        envy_min_fortune: smallest Fortune wager that qualifies for Envy (seed 004: $5).
        main_min, main_max, bonus_max, chip: table limits (Asia seed 000: ante $5..$1000, bonus
            up to $100, $5 chips; Pai Gow: wager $5..$500, Fortune up to $100, $1 chips).
    """

    game: str = "paigow"
    house_way: Any = None
    rules: Any = None
    bonus_paytable: Any = "default"
    envy_paytable: Any = "default"
    envy_unit: float = 1.0
    envy_min_fortune: float = ENVY_QUALIFYING_FORTUNE_WAGER
    main_min: float | None = None
    main_max: float | None = None
    bonus_max: float | None = None
    chip: float | None = None
    _cache: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        spec = get_spec(self.game)
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("game", spec.name)
        set_("house_way", HouseWayStyle.parse(self.house_way or spec.default_house_way, game=spec.name).value)
        rules_cls = spec.rules_cls
        if self.rules is None:
            set_("rules", rules_cls())
        elif isinstance(self.rules, dict):
            set_("rules", rules_cls.from_dict(self.rules))
        elif not isinstance(self.rules, rules_cls):
            raise ValueError(f"rules={self.rules!r}: expected {rules_cls.__name__} or a dict of its options")
        bonus = spec.default_bonus_paytable if self.bonus_paytable == "default" else self.bonus_paytable
        set_("bonus_paytable", self._table(bonus, "odds", "bonus_paytable"))
        envy = spec.envy_paytable if self.envy_paytable == "default" else self.envy_paytable
        if not spec.has_envy and envy is not None:
            raise ValueError(f"envy_paytable={envy!r}: {spec.title} has no Envy bonus (seed 000 pays only the player's own "
                             "hand); use None")
        set_("envy_paytable", self._table(envy, "envy", "envy_paytable"))
        d = spec.table
        for name, default in (("main_min", d.main_min), ("main_max", d.main_max), ("bonus_max", d.bonus_max),
                              ("chip", d.chip)):
            v = default if getattr(self, name) is None else _check_amount(name, getattr(self, name))
            set_(name, v)
        if not 0 < self.chip <= self.main_min <= self.main_max:
            raise ValueError(f"limits chip={self.chip:g}, main_min={self.main_min:g}, main_max={self.main_max:g}: "
                             "expected 0 < chip <= main_min <= main_max")
        if self.bonus_max < 0:
            raise ValueError(f"bonus_max={self.bonus_max:g}: expected 0 or more")
        set_("envy_unit", _check_amount("envy_unit", self.envy_unit))
        set_("envy_min_fortune", _check_amount("envy_min_fortune", self.envy_min_fortune))
        if self.envy_unit <= 0 or self.envy_min_fortune <= 0:
            raise ValueError(f"envy_unit={self.envy_unit:g}, envy_min_fortune={self.envy_min_fortune:g}: expected positive amounts")
        set_("_cache", {})

    def _table(self, value, kind: str, what: str) -> PayTable | None:
        if value is None:
            return None
        table = value if isinstance(value, PayTable) else (
            PayTable.from_dict(value) if isinstance(value, dict) else get_paytable(str(value)))
        if table.game != self.game or table.kind != kind:
            raise ValueError(f"{what} {table.name!r} is a {table.game}/{table.kind} table: expected a {self.game} {kind} table")
        return table

    # ---- derived, cached ---------------------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        return get_spec(self.game)

    @property
    def n_settings(self) -> int:
        return self.spec.n_settings

    @property
    def has_envy(self) -> bool:
        return self.envy_paytable is not None

    def make_game(self) -> Game:
        """The :class:`~splitpoker.envs.rules.game.Game` of this table (game, house way, rules options,
        bonus pay table): what every seat's round is played with, built once per rules object; its
        :attr:`~splitpoker.envs.rules.game.Game.tables` are the ones :meth:`arrays` gives the bulk kernel."""
        if "game" not in self._cache:
            self._cache["game"] = Game(self.spec, self.house_way, self.rules, self.bonus_paytable)
        return self._cache["game"]

    def arrays(self) -> dict[str, Any]:
        """The arrays the bulk kernel takes: the game's (:attr:`Game.tables
        <splitpoker.envs.rules.game.Game.tables>`, under the bulk kernel's names) and the Envy
        amount per feature code (chips)."""
        if "arrays" not in self._cache:
            t = self.make_game().tables
            a = self._cache["arrays"] = dict(rank=t.rank, to_two=t.to_two, cat5=t.cat5, style_id=int(t.style_id),
                                             commission=t.commission, line_of_code=t.line_of_code,
                                             line_odds=t.line_odds, bonus_cap=t.max_payout)
            et = self.envy_paytable
            a["envy_amount"] = et.odds_array() * self.envy_unit if et is not None else np.zeros(N_FEATURE_CODES)
        return self._cache["arrays"]

    def check_bet(self, main, bonus=0.0, envy: bool = False) -> tuple[float, float, bool]:
        """Validate one seat's wagers against the limits; returns them as floats."""
        main = _check_amount("main wager", main)
        bonus = _check_amount("bonus wager", bonus)
        what, bname = self.spec.main_wager, self.spec.bonus_title
        if not self.main_min <= main <= self.main_max:
            raise ValueError(f"{what} ${main:g} is off the table limits: expected ${self.main_min:g}..${self.main_max:g}")
        if abs(main / self.chip - round(main / self.chip)) > 1e-9:
            raise ValueError(f"{what} ${main:g} is not a multiple of the ${self.chip:g} chip")
        if bonus != 0:
            if self.bonus_paytable is None:
                raise ValueError(f"{bname} wager ${bonus:g}: this table offers no {bname} bet (bonus_paytable is None)")
            if not self.chip <= bonus <= self.bonus_max:
                raise ValueError(f"{bname} wager ${bonus:g} is off the table limits: expected 0 or ${self.chip:g}..${self.bonus_max:g}")
            if abs(bonus / self.chip - round(bonus / self.chip)) > 1e-9:
                raise ValueError(f"{bname} wager ${bonus:g} is not a multiple of the ${self.chip:g} chip")
        if not isinstance(envy, (bool, np.bool_)):
            raise ValueError(f"envy={envy!r}: expected True or False")
        if envy:
            if not self.has_envy:
                raise ValueError(f"an Envy wager on a {self.game} table without an Envy pay table: "
                                 + (f"{self.spec.title} has no Envy bonus" if not self.spec.has_envy
                                    else "envy_paytable is None"))
            if bonus < self.envy_min_fortune:
                raise ValueError(f"an Envy wager needs a Fortune wager of ${self.envy_min_fortune:g} or more, got ${bonus:g} "
                                 "(seed 004: 'With a wager of $5 or more on the Fortune Bonus Spot, the Player is qualified')")
        return main, bonus, bool(envy)
