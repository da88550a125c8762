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
from typing import Any, ClassVar

import numpy as np

from splitpoker.envs.rules.bonus.paytables import PayTable, get_paytable
from splitpoker.envs.rules.checks import check_flag as _flag
from splitpoker.envs.rules.checks import check_int as _integer
from splitpoker.envs.rules.checks import check_real as _real
from splitpoker.envs.rules.checks import gib, short_repr
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import ASIA_POKER, PAI_GOW_POKER, SPECS, GameSpec
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules, dataclass_from_dict

INVALID_ACTION_MODES = ("raise", "penalize")
MAX_DEALER_SAMPLES = 1000
#: main levels x bonus levels: each bet action is a row of the bet table (~110 bytes as Python
#: floats) and a mask entry per environment, and the policy's output layer has one unit per action
MAX_BET_ACTIONS = 65_536
#: the smallest reward_unit in chips: a table's bets (up to 1e6 chips) stay below 1e12 units
MIN_REWARD_UNIT = 1e-6


def _check_limits(lo_name: str, lo, hi_name: str, hi, bonus_name: str, bonus, chip) -> tuple[float, ...]:
    lo = _real(lo_name, lo, positive=True)
    hi = _real(hi_name, hi, positive=True)
    if hi < lo:
        raise ValueError(f"{hi_name}={hi:g} is below {lo_name}={lo:g}: expected {hi_name} >= {lo_name}")
    return lo, hi, _real(bonus_name, bonus, minimum=0.0), _real("chip", chip, positive=True)


def _check_levels(name: str, levels, lo: float, hi: float, allow_zero: bool, step: float) -> tuple[float, ...]:
    if isinstance(levels, (str, bytes)):  # never read text digit by digit
        raise ValueError(f"{name}={levels!r} is text: expected a number or a list of numbers such as [5, 25, 100]")
    if isinstance(levels, (int, float, np.integer, np.floating)) and not isinstance(levels, (bool, np.bool_)):
        levels = (levels,)
    elif isinstance(levels, np.ndarray):
        levels = tuple(levels.ravel().tolist())
    elif isinstance(levels, (list, tuple)):
        levels = tuple(levels)
    else:
        raise ValueError(f"{name}={levels!r} ({type(levels).__name__}): expected a number or a list of numbers")
    levels = tuple(_real(f"{name}[{i}]", x) for i, x in enumerate(levels))
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
    if isinstance(value, PayTable):
        table = value
    elif isinstance(value, dict):
        try:
            table = PayTable.from_dict(value)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"{what}: {e}") from None
    elif isinstance(value, str):
        try:
            table = get_paytable(value)
        except ValueError as e:
            raise ValueError(f"{what}={value!r}: {e}") from None
    else:
        raise ValueError(f"{what}={short_repr(value)} ({type(value).__name__}): expected a pay table name, a dict or null")
    if table.game != game or table.kind != "odds":
        raise ValueError(f"{what} {table.name!r} is a {table.game}/{table.kind} table: expected a {game} odds table")
    return table


@dataclass(frozen=True)
class _Common:
    mask_fouls: bool = True
    allow_house_way_action: bool = False
    dealer_samples: int = 1
    invalid_action: str = "penalize"
    invalid_action_penalty: float = 1.0
    reward_unit: float | None = None
    observe_settings: bool = False
    setting_features: bool = False

    def _check_common(self):
        for name in ("mask_fouls", "allow_house_way_action", "observe_settings", "setting_features"):
            object.__setattr__(self, name, _flag(name, getattr(self, name)))
        object.__setattr__(self, "dealer_samples", _integer("dealer_samples", self.dealer_samples, 1, MAX_DEALER_SAMPLES,
                                                            " (1 is the real game)"))
        if not isinstance(self.invalid_action, str) or self.invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action={self.invalid_action!r}: expected one of {INVALID_ACTION_MODES}")
        object.__setattr__(self, "invalid_action_penalty",
                           _real("invalid_action_penalty", self.invalid_action_penalty, minimum=0.0))
        if self.reward_unit is not None:
            try:
                unit = _real("reward_unit", self.reward_unit, positive=True)
                if unit < MIN_REWARD_UNIT:  # 1e-320 (subnormal) made every reward -inf or +inf
                    raise ValueError(f"reward_unit={self.reward_unit!r}: expected at least {MIN_REWARD_UNIT:g} chips "
                                     f"(a smaller unit makes rewards of 1e12 and more, beyond float32 training)")
            except ValueError as e:
                raise ValueError(f"{e} (chips per reward unit), or null for the table minimum") from None
            object.__setattr__(self, "reward_unit", unit)

    def _check_rules(self, rules_cls):
        if isinstance(self.rules, dict):
            try:
                object.__setattr__(self, "rules", rules_cls.from_dict(self.rules))
            except (ValueError, TypeError) as e:
                raise ValueError(f"rules: {e}") from None
        elif not isinstance(self.rules, rules_cls):
            raise ValueError(f"rules={short_repr(self.rules)}: expected {rules_cls.__name__} or a dict of its options")

    def _check_house_way(self, game: str):
        if not isinstance(self.house_way, str):
            raise ValueError(f"house_way={short_repr(self.house_way)} ({type(self.house_way).__name__}): expected a house-way name")
        try:
            object.__setattr__(self, "house_way", HouseWayStyle.parse(self.house_way, game=game).value)
        except ValueError as e:
            raise ValueError(f"house_way: {e}") from None

    #: the game (its spec names the fields: main wager ``{main_wager}_min`` / ``_max`` / ``_levels``,
    #: bonus ``{bonus_wager}_max`` / ``_levels``, the pay table and the one-step env's fixed wager)
    spec: ClassVar[GameSpec]
    _paytable_field: ClassVar[str] = ""
    _setting_field: ClassVar[str] = ""

    @property
    def _game(self) -> str:
        return self.spec.name

    @property
    def _main(self) -> str:
        return self.spec.main_wager

    @property
    def _bonus(self) -> str:
        return self.spec.bonus_wager

    def __post_init__(self):
        self._check_table()

    def _check_table(self):
        """Validate every field, in one order for both games (errors name the game's fields)."""
        main, bonus, paytable = self._main, self._bonus, self._paytable_field
        self._check_common()
        self._check_house_way(self._game)
        self._check_rules(self.spec.rules_cls)
        limits = _check_limits(f"{main}_min", getattr(self, f"{main}_min"), f"{main}_max", getattr(self, f"{main}_max"),
                               f"{bonus}_max", getattr(self, f"{bonus}_max"), self.chip)
        for name, v in zip((f"{main}_min", f"{main}_max", f"{bonus}_max", "chip"), limits, strict=True):
            object.__setattr__(self, name, v)
        lo, hi, bonus_max, chip = limits
        object.__setattr__(self, paytable, _paytable(getattr(self, paytable), self._game, paytable))
        object.__setattr__(self, f"{main}_levels",
                           _check_levels(f"{main}_levels", getattr(self, f"{main}_levels"), lo, hi, False, chip))
        levels = _check_levels(f"{bonus}_levels", getattr(self, f"{bonus}_levels"), chip, bonus_max, True, chip)
        if getattr(self, paytable) is None and any(b > 0 for b in levels):
            raise ValueError(f"{bonus}_levels offer a bonus but {paytable} is null: set a pay table or {bonus}_levels: [0]")
        object.__setattr__(self, f"{bonus}_levels", levels)
        n_main = len(getattr(self, f"{main}_levels"))
        if n_main * len(levels) > MAX_BET_ACTIONS:
            raise ValueError(f"{main}_levels ({n_main:,} levels) x {bonus}_levels ({len(levels):,}) = "
                             f"{n_main * len(levels):,} bet actions: expected at most {MAX_BET_ACTIONS:,} (memory: "
                             f"about {gib(110 * n_main * len(levels))} for the bet table of one environment, a mask "
                             f"entry per action in every environment, an output unit per action in the policy)")
        setting = self._setting_field
        object.__setattr__(self, setting, _check_levels(setting, _real(setting, getattr(self, setting)),
                                                        lo, hi, False, chip)[0])

    @property
    def unit(self) -> float:
        """Chips per reward unit: ``reward_unit``, or the table minimum."""
        return float(self.reward_unit) if self.reward_unit is not None else float(getattr(self, f"{self._main}_min"))

    @property
    def bet_levels(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The bet phase's (main wager levels, bonus levels)."""
        return getattr(self, f"{self._main}_levels"), getattr(self, f"{self._bonus}_levels")

    @property
    def limits(self) -> tuple[float, float]:
        """The table's (main wager maximum, bonus maximum)."""
        return getattr(self, f"{self._main}_max"), getattr(self, f"{self._bonus}_max")

    @property
    def fixed_wager(self) -> float:
        """The main wager of the one-step setting env."""
        return float(getattr(self, self._setting_field))

    @property
    def paytable(self) -> PayTable | None:
        """The bonus pay table (Asia ``bonus_paytable``, Pai Gow ``fortune_paytable``), or None."""
        return getattr(self, self._paytable_field)

    def table_rules(self, *, envy: bool, envy_unit: float = 1.0):
        """The :class:`~splitpoker.envs.rules.table.rules.TableRules` of a table with this config's
        house way, rules, pay table and limits (``envy``: the game's Envy pay table, or none)."""
        from splitpoker.envs.rules.table.rules import TableRules

        main = self._main
        return TableRules(game=self._game, house_way=self.house_way, rules=self.rules, bonus_paytable=self.paytable,
                          envy_paytable=self.spec.envy_paytable if envy else None, envy_unit=envy_unit,
                          main_min=getattr(self, f"{main}_min"), main_max=getattr(self, f"{main}_max"),
                          bonus_max=getattr(self, f"{self._bonus}_max"), chip=self.chip)

    def make_game(self) -> Game:
        """The :class:`splitpoker.envs.rules.game.Game` this table plays: game, house way, rules, pay table."""
        return Game(self.spec, self.house_way, self.rules, self.paytable)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None):
        return dataclass_from_dict(cls, data, "field(s)")

    @classmethod
    def from_yaml(cls, path: str | Path, section: str | None = "env"):
        import yaml

        from splitpoker.envs.config_file import load_yaml

        try:
            data = load_yaml(path) or {}
        except yaml.YAMLError as e:
            raise ValueError(f"{path} is not valid YAML: {e}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of {cls.__name__} fields, got {type(data).__name__}")
        if section and section in data:
            data = data[section]
        if not isinstance(data, dict):
            raise ValueError(f"{path}: section {section!r} must be a mapping of {cls.__name__} fields")
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
        invalid_action: ``penalize`` (default: every action steps; a masked fouled setting is
            played and loses the ante, a wrong-phase action ends the episode with reward
            ``-invalid_action_penalty`` units) or ``raise`` (debugging: any masked action raises
            ValueError naming action and phase).
        invalid_action_penalty: the penalty in reward units (a finite number >= 0; default 1).
        reward_unit: chips per reward unit (a finite number >= 1e-6; default ``ante_min``, the
            table minimum).

    Every field is checked when the config is built (``ValueError`` naming the field, the value
    and what is allowed): limits ``0 < ante_min <= ante_max``, ``bonus_max >= 0``, ``chip > 0``;
    levels within the limits, multiples of the chip, distinct and increasing (a single number
    is one level; text is refused, never read digit by digit); numpy numbers accepted where
    numbers are, booleans refused for numbers and numbers refused for booleans.
        observe_settings: append every setting's hand values to the observation (105 × 3 for
            Asia: high rank class, medium value, low value, each scaled to [0, 1]); a feature
            variant that spares the agent from learning hand ranking (default False).
        setting_features: append a fixed-width feature row per setting (19 values for Asia:
            each hand's category, strength, kickers and the foul flag; layout in
            :mod:`splitpoker.envs.setting_features`), after everything else; for policies that score each
            setting with one shared network (``splitpoker.agents.policies.setting_scorer``) (default False).
    """

    house_way: str = ASIA_POKER.default_house_way
    rules: AsiaRules = field(default_factory=AsiaRules)
    bonus_paytable: Any = ASIA_POKER.default_bonus_paytable
    ante_levels: tuple[float, ...] = ASIA_POKER.table.main_levels
    bonus_levels: tuple[float, ...] = ASIA_POKER.table.bonus_levels
    ante_min: float = ASIA_POKER.table.main_min
    ante_max: float = ASIA_POKER.table.main_max
    bonus_max: float = ASIA_POKER.table.bonus_max
    chip: float = ASIA_POKER.table.chip
    setting_ante: float = ASIA_POKER.table.setting_wager

    spec: ClassVar[GameSpec] = ASIA_POKER
    _paytable_field: ClassVar[str] = "bonus_paytable"
    _setting_field: ClassVar[str] = "setting_ante"


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
        (mask_fouls, allow_house_way_action, dealer_samples, invalid_action,
        invalid_action_penalty, reward_unit, observe_settings (21 × 2 values: back rank class,
        front value), setting_features (21 × 18 values) and the validation as Asia, with ``0 < wager_min <= wager_max``,
        ``fortune_max >= 0``.)
    """

    house_way: str = PAI_GOW_POKER.default_house_way
    rules: PaiGowRules = field(default_factory=PaiGowRules)
    fortune_paytable: Any = PAI_GOW_POKER.default_bonus_paytable
    wager_levels: tuple[float, ...] = PAI_GOW_POKER.table.main_levels
    fortune_levels: tuple[float, ...] = PAI_GOW_POKER.table.bonus_levels
    wager_min: float = PAI_GOW_POKER.table.main_min
    wager_max: float = PAI_GOW_POKER.table.main_max
    fortune_max: float = PAI_GOW_POKER.table.bonus_max
    chip: float = PAI_GOW_POKER.table.chip
    setting_wager: float = PAI_GOW_POKER.table.setting_wager

    spec: ClassVar[GameSpec] = PAI_GOW_POKER
    _paytable_field: ClassVar[str] = "fortune_paytable"
    _setting_field: ClassVar[str] = "setting_wager"


#: the environment config class of each game
CONFIGS: dict[str, type[_Common]] = {cls.spec.name: cls for cls in (AsiaPokerConfig, PaiGowPokerConfig)}
assert set(CONFIGS) == set(SPECS), "every GameSpec needs its config class here"


def config_class(game) -> type[_Common]:
    """The config class of ``game`` (a name or a :class:`GameSpec`)."""
    from splitpoker.envs.rules.games.spec import get_spec

    return CONFIGS[get_spec(game).name]
