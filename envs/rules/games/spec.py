"""Game specs: everything that differs between Asia Poker and Pai Gow Poker, in one place.

A :class:`GameSpec` is a frozen description of one game: its sizes (settings, hands and their
sizes), the rules-options class and the rules engine, the numba game id the kernels branch on, the
defaults (house way, bonus and Envy pay tables, table limits, bet levels) and the names of its
wagers. Code asks the spec instead of comparing game names::

    spec = get_spec("paigow")            # PAI_GOW_POKER
    spec.n_settings, spec.slots          # 21, ("back", "front")
    spec.default_house_way               # "paigow-igw"
    spec.table.main_levels               # the wager levels a table offers by default

The defaults live here once; ``Game``, the environment configs and ``TableRules`` are built from
them. A new game variant is a new spec (its engine, its setting layout, its kernels' branch).

==============  ==========================  ===================================================
field           Asia Poker                  Pai Gow Poker
==============  ==========================  ===================================================
settings        105 (C(7,1) x C(6,2))       21 (C(7,2) fronts)
hands           high 4, medium 2, low 1     back 5, front 2
win             2 of 3 hands, copies lose   both hands; one each pushes; 5% commission
house way       ``asia-000`` (seed 000)     ``paigow-igw`` (seed 003)
bonus table     ``seed-000`` (seed 000)     ``fortune`` (seed 004), Envy ``envy``
main wager      ante $5..$1,000, $5 chips   wager $5..$500, $1 chips
bonus wager     bonus up to $100            Fortune up to $100
==============  ==========================  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    N_ASIA_SETTINGS,
    AsiaPoker,
)
from splitpoker.envs.rules.games.paigow import BACK_POS, FRONT_POS, N_PAIGOW_SETTINGS, PaiGowPoker
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules

#: the numba game ids (``game_id`` argument of the kernels)
ASIA_ID, PAIGOW_ID = 0, 1


@dataclass(frozen=True)
class TableDefaults:
    """A game's default table: limits, chip, bet levels and the one-step envs' fixed wager
    (seed 000 for Asia Poker: "an Ante wager between $5 and $1000", "a maximum of $100 is allowed
    for the optional bonus wager", chips "$5, $10, $25, $50, $100")."""

    main_min: float
    main_max: float
    bonus_max: float
    chip: float
    main_levels: tuple[float, ...]
    bonus_levels: tuple[float, ...]
    setting_wager: float


#: the largest value of a hand of each small size (``hand_eval``): a two-card hand 0..90 (a pair
#: of aces 90), a one-card hand its rank 0..12 (an ace, or the joker, 12)
SMALL_HAND_MAX_VALUE = {2: 90, 1: 12}


@dataclass(frozen=True, eq=False)
class GameSpec:
    """One game (see the module docstring). ``str(spec)`` is its name, the key configs, caches
    and scripts use (``"asia"``, ``"paigow"``)."""

    name: str
    title: str
    game_id: int
    n_settings: int
    slots: tuple[str, ...]
    slot_titles: tuple[str, ...]  # each slot as a strategy card names it ("High", "back")
    hand_sizes: tuple[int, ...]
    rules_cls: type
    engine_cls: type
    default_house_way: str
    default_bonus_paytable: str
    envy_paytable: str | None
    main_wager: str  # the main wager's name: a config's ``{main_wager}_min``, ``_max``, ``_levels``
    bonus_wager: str  # the bonus wager's name: ``{bonus_wager}_max``, ``_levels``
    bonus_title: str
    table: TableDefaults
    #: per slot, the positions (in the sorted seven cards) of that hand in every setting:
    #: ``positions[k][s]`` is an ``int64[hand_sizes[k]]`` row
    positions: tuple[np.ndarray, ...]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<GameSpec {self.name}>"

    @property
    def ranks_width(self) -> int:
        """Values per setting (one per hand): 3 for Asia Poker, 2 for Pai Gow Poker."""
        return len(self.slots)

    def value_scale(self, table) -> np.ndarray:
        """``float32[ranks_width]``: what each slot's hand value is multiplied by in the
        observation, 1 / its largest value: the first slot's from the hand-rank ``table`` settings
        are valued with (its class count), a smaller slot's from its size
        (:data:`SMALL_HAND_MAX_VALUE`)."""
        top = [table.n_classes - 1] + [SMALL_HAND_MAX_VALUE[k] for k in self.hand_sizes[1:]]
        return 1.0 / np.array(top, dtype=np.float32)

    @property
    def has_envy(self) -> bool:
        return self.envy_paytable is not None

    @property
    def is_paigow(self) -> bool:
        """The numba kernels' game flag (:data:`PAIGOW_ID`)."""
        return self.game_id == PAIGOW_ID

    def rules(self, rules=None):
        """``rules`` checked to be this game's options class (``None``: the defaults)."""
        if rules is None:
            return self.rules_cls()
        if not isinstance(rules, self.rules_cls):
            raise ValueError(f"rules {rules!r} are not {self.rules_cls.__name__} ({self.title})")
        return rules


ASIA_POKER = GameSpec(
    name="asia", title="Asia Poker", game_id=ASIA_ID, n_settings=N_ASIA_SETTINGS, slots=("high", "medium", "low"),
    slot_titles=("High", "Medium", "Low"), hand_sizes=(4, 2, 1), rules_cls=AsiaRules, engine_cls=AsiaPoker, default_house_way="asia-000",
    default_bonus_paytable="seed-000", envy_paytable=None, main_wager="ante", bonus_wager="bonus",
    bonus_title="bonus",
    table=TableDefaults(main_min=5.0, main_max=1000.0, bonus_max=100.0, chip=5.0,
                        main_levels=(5, 10, 25, 50, 100, 250, 500, 1000), bonus_levels=(0, 5, 10, 25, 50, 100),
                        setting_wager=5.0),
    positions=(HIGH_POS, MEDIUM_POS, np.asarray(LOW_POS).reshape(-1, 1)))
PAI_GOW_POKER = GameSpec(
    name="paigow", title="Pai Gow Poker", game_id=PAIGOW_ID, n_settings=N_PAIGOW_SETTINGS, slots=("back", "front"),
    slot_titles=("back", "front"), hand_sizes=(5, 2), rules_cls=PaiGowRules, engine_cls=PaiGowPoker, default_house_way="paigow-igw",
    default_bonus_paytable="fortune", envy_paytable="envy", main_wager="wager", bonus_wager="fortune",
    bonus_title="Fortune",
    table=TableDefaults(main_min=5.0, main_max=500.0, bonus_max=100.0, chip=1.0,
                        main_levels=(5, 10, 25, 50, 100, 250, 500), bonus_levels=(0, 5, 10, 25), setting_wager=5.0),
    positions=(BACK_POS, FRONT_POS))

#: every game by name
SPECS: dict[str, GameSpec] = {s.name: s for s in (ASIA_POKER, PAI_GOW_POKER)}
#: the game names, in spec order
GAMES = tuple(SPECS)


def get_spec(game: str | GameSpec) -> GameSpec:
    """The spec of ``game`` (a name or a spec); ``ValueError`` names an unknown one."""
    if isinstance(game, GameSpec):
        return game
    try:
        return SPECS[game]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game!r}: expected one of {list(SPECS)}") from None


for _spec in SPECS.values():  # the layout a spec declares is the one its settings index
    assert len(_spec.positions) == len(_spec.slots) == len(_spec.slot_titles) == len(_spec.hand_sizes)
    assert all(np.shape(p) == (_spec.n_settings, k) for p, k in zip(_spec.positions, _spec.hand_sizes, strict=True))


def rules_from_json(game: str, text: str | None) -> AsiaRules | PaiGowRules:
    """Ranking options of ``game`` from a JSON object given on a command line (``--rules``)."""
    import json

    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as e:
        raise ValueError(f"--rules {text!r} is not a JSON object: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--rules {text!r} must be a JSON object such as '{{\"commission\": 0}}'")
    return get_spec(game).rules_cls.from_dict(data)
