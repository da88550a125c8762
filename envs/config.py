"""Environment configurations: frozen dataclasses, loadable from YAML (``configs/*.yaml``).

``AsiaPokerConfig`` and ``PaiGowPokerConfig`` hold everything a table varies: the dealer's house
way, ranking options, pay table, bet levels and limits, the reward unit and the RL conveniences
(masking, the house-way action, dealer samples). Validation happens here, once, with errors that
name the field, the value and what was expected.

Asia defaults follow seed 000: "A maximum of $1000 is allowed for the Ante; a maximum of $100 is
allowed for the optional bonus wager", "an Ante wager between $5 and $1000", chip steps "$5, $10,
$25, $50, $100".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .rules.house_way import HouseWayStyle
from .rules.options import AsiaRules, PaiGowRules, dataclass_from_dict
from .rules.paytables import PayTable, get_paytable

INVALID_ACTION_MODES = ("raise", "penalize")


def _check_levels(name: str, levels, lo: float, hi: float, allow_zero: bool, step: float) -> tuple[float, ...]:
    if isinstance(levels, (int, float)):
        levels = (levels,)
    levels = tuple(float(x) for x in levels)
    if not levels:
        raise ValueError(f"{name} is empty: expected at least one bet level")
    for x in levels:
        if allow_zero and x == 0:
            continue
        if not lo <= x <= hi:
            raise ValueError(f"{name} level {x:g} is off the table limits: expected {'0 or ' if allow_zero else ''}{lo:g}..{hi:g}")
        if step and abs(x / step - round(x / step)) > 1e-9:
            raise ValueError(f"{name} level {x:g} is not a multiple of the ${step:g} chip")
    if len(set(levels)) != len(levels) or list(levels) != sorted(levels):
        raise ValueError(f"{name} {levels} must be distinct and increasing")
    return levels


def _paytable(value, game: str, what: str) -> PayTable | None:
    if value is None:
        return None
    table = value if isinstance(value, PayTable) else (
        PayTable.from_dict(value) if isinstance(value, dict) else get_paytable(str(value)))
    if table.game != game or table.kind != "odds":
        raise ValueError(f"{what} {table.name!r} is a {table.game}/{table.kind} table: expected a {game} odds table")
    return table


@dataclass(frozen=True)
class _Common:
    mask_fouls: bool = True
    allow_house_way_action: bool = False
    dealer_samples: int = 1
    invalid_action: str = "raise"
    invalid_action_penalty: float = 1.0
    reward_unit: float | None = None
    observe_settings: bool = False
    setting_features: bool = False

    def _check_common(self):
        if not isinstance(self.dealer_samples, int) or isinstance(self.dealer_samples, bool) or not 1 <= self.dealer_samples <= 1000:
            raise ValueError(f"dealer_samples={self.dealer_samples!r}: expected an integer 1..1000 (1 is the real game)")
        if self.invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action={self.invalid_action!r}: expected one of {INVALID_ACTION_MODES}")
        if self.reward_unit is not None and not float(self.reward_unit) > 0:
            raise ValueError(f"reward_unit={self.reward_unit!r}: expected a positive number of chips (or null for the table minimum)")
        for name in ("mask_fouls", "allow_house_way_action", "observe_settings", "setting_features"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r}: expected true or false")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None):
        return dataclass_from_dict(cls, data, "field(s)")

    @classmethod
    def from_yaml(cls, path: str | Path, section: str | None = "env"):
        import yaml

        with open(path) as f:
            data = yaml.safe_load(f) or {}
        if section and section in data:
            data = data[section]
        data = {k: v for k, v in data.items() if k not in ("id", "kwargs")}
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (AsiaRules, PaiGowRules)):
                v = dataclasses.asdict(v)
            elif isinstance(v, PayTable):
                v = v.name
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out


@dataclass(frozen=True)
class AsiaPokerConfig(_Common):
    """Asia Poker table.

    Attributes:
        house_way: dealer's style, ``asia-000`` (default) or ``asia-borgata``.
        rules: :class:`AsiaRules` (or a dict of its fields).
        bonus_paytable: bonus pay table name (``seed-000``) or table; ``None`` disables the bonus.
        ante_levels: the ante amounts the bet phase offers ($; seed 000: $5..$1000 in $5 chips).
        bonus_levels: the bonus amounts offered (0 = no bonus; seed 000: at most $100).
        ante_min, ante_max, bonus_max: table limits.
        setting_ante: the fixed ante of the one-step ``AsiaPokerSetting`` env.
        mask_fouls: fouled settings are masked (True) or legal actions that lose (False).
        allow_house_way_action: add the "Play the House Way" action (seed 000).
        dealer_samples: settle against K independent dealer hands and average (1 = real game).
        invalid_action: ``raise`` (ValueError naming action and phase) or ``penalize`` (the episode
            ends with reward ``-invalid_action_penalty`` units; for algorithms that cannot mask).
        reward_unit: chips per reward unit (default: ``ante_min``, the table minimum).
        observe_settings: append every setting's hand values to the observation (105 × 3 for
            Asia: high rank class, medium value, low value, each scaled to [0, 1]); a feature
            variant that spares the agent from learning hand ranking (default False).
        setting_features: append a fixed-width feature row per setting (19 values for Asia:
            each hand's category, strength, kickers and the foul flag; layout in
            :mod:`envs.setting_features`), after everything else; for policies that score each
            setting with one shared network (``agents.setting_scorer``) (default False).
    """

    house_way: str = "asia-000"
    rules: AsiaRules = field(default_factory=AsiaRules)
    bonus_paytable: Any = "seed-000"
    ante_levels: tuple[float, ...] = (5, 10, 25, 50, 100, 250, 500, 1000)
    bonus_levels: tuple[float, ...] = (0, 5, 10, 25, 50, 100)
    ante_min: float = 5.0
    ante_max: float = 1000.0
    bonus_max: float = 100.0
    chip: float = 5.0
    setting_ante: float = 5.0

    def __post_init__(self):
        self._check_common()
        object.__setattr__(self, "house_way", HouseWayStyle.parse(self.house_way, game="asia").value)
        if isinstance(self.rules, dict):
            object.__setattr__(self, "rules", AsiaRules.from_dict(self.rules))
        elif not isinstance(self.rules, AsiaRules):
            raise ValueError(f"rules={self.rules!r}: expected AsiaRules or a dict of its options")
        object.__setattr__(self, "bonus_paytable", _paytable(self.bonus_paytable, "asia", "bonus_paytable"))
        object.__setattr__(self, "ante_levels", _check_levels("ante_levels", self.ante_levels, self.ante_min, self.ante_max, False, self.chip))
        bonus_levels = _check_levels("bonus_levels", self.bonus_levels, self.chip, self.bonus_max, True, self.chip)
        if self.bonus_paytable is None and any(b > 0 for b in bonus_levels):
            raise ValueError("bonus_levels offer a bonus but bonus_paytable is null: set a pay table or bonus_levels: [0]")
        object.__setattr__(self, "bonus_levels", bonus_levels)
        _check_levels("setting_ante", self.setting_ante, self.ante_min, self.ante_max, False, self.chip)

    @property
    def unit(self) -> float:
        return float(self.reward_unit) if self.reward_unit is not None else float(self.ante_min)


@dataclass(frozen=True)
class PaiGowPokerConfig(_Common):
    """Pai Gow Poker table.

    Attributes:
        house_way: dealer's style (``paigow-igw``).
        rules: :class:`PaiGowRules` (ranking option and commission).
        fortune_paytable: Fortune bonus pay table (``fortune``) or ``None``.
        wager_levels, fortune_levels: the amounts the bet phase offers.
        wager_min, wager_max, fortune_max: table limits.
        setting_wager: the fixed wager of the one-step ``PaiGowPokerSetting`` env.
        (mask_fouls, allow_house_way_action, dealer_samples, invalid_action, reward_unit,
        observe_settings (21 × 2 values: back rank class, front value), setting_features
        (21 × 18 values) as Asia.)
    """

    house_way: str = "paigow-igw"
    rules: PaiGowRules = field(default_factory=PaiGowRules)
    fortune_paytable: Any = "fortune"
    wager_levels: tuple[float, ...] = (5, 10, 25, 50, 100, 250, 500)
    fortune_levels: tuple[float, ...] = (0, 5, 10, 25)
    wager_min: float = 5.0
    wager_max: float = 500.0
    fortune_max: float = 100.0
    chip: float = 1.0
    setting_wager: float = 5.0

    def __post_init__(self):
        self._check_common()
        object.__setattr__(self, "house_way", HouseWayStyle.parse(self.house_way, game="paigow").value)
        if isinstance(self.rules, dict):
            object.__setattr__(self, "rules", PaiGowRules.from_dict(self.rules))
        elif not isinstance(self.rules, PaiGowRules):
            raise ValueError(f"rules={self.rules!r}: expected PaiGowRules or a dict of its options")
        object.__setattr__(self, "fortune_paytable", _paytable(self.fortune_paytable, "paigow", "fortune_paytable"))
        object.__setattr__(self, "wager_levels", _check_levels("wager_levels", self.wager_levels, self.wager_min, self.wager_max, False, self.chip))
        levels = _check_levels("fortune_levels", self.fortune_levels, self.chip, self.fortune_max, True, self.chip)
        if self.fortune_paytable is None and any(b > 0 for b in levels):
            raise ValueError("fortune_levels offer a bonus but fortune_paytable is null: set a pay table or fortune_levels: [0]")
        object.__setattr__(self, "fortune_levels", levels)
        _check_levels("setting_wager", self.setting_wager, self.wager_min, self.wager_max, False, self.chip)

    @property
    def unit(self) -> float:
        return float(self.reward_unit) if self.reward_unit is not None else float(self.wager_min)
