"""Bonus pay tables as data: name -> ordered lines -> odds.

A :class:`PayTable` is a tuple of :class:`PayLine` s; each line names a *predicate* on the
seven-card feature code of :mod:`splitpoker.envs.rules.bonus.features`. A hand is paid the **highest-paying line whose
predicate it satisfies** (ties: the first listed), or loses the wager if none. Tables load from
plain data (``PayTable.from_dict``; YAML in ``configs/paytables/``), so other published tables are
a config, not code.

Predicates:

* ``makes_<category>`` (e.g. ``makes_flush``): some five of the seven cards make that category
  (:class:`~splitpoker.envs.rules.ranking.categories.HandCategory` name in lower case);
* ``natural_straight_flush``: a straight flush without the joker;
* ``joker_straight_flush``: a straight flush only with the joker;
* ``seven_card_straight_flush_natural`` / ``seven_card_straight_flush_joker``;
* ``royal_flush_natural_plus_royal_match``; ``quad_eights_and_trips``; ``nine_high``.

Built-in tables (``--list`` in ``scripts/bonus_table.py``):

* ``seed-000``: Asia Poker bonus of seed 000 (odds to 1, maximum payout $50,000). Two lines are
  not defined in the seed; docs/rules.md gives the reading and the reason:
  "Straight Flush*" = a straight flush made with the joker (a natural one pays the 50 of the line
  above), "9 High Hand" = the lowest possible seven-card hand, nine high.
* ``fortune``: Fortune Pai Gow bonus of seed 004 (odds to 1).
* ``envy``: the seed 004 Envy column: the amount (in Envy units, default $1 per unit) a qualified
  ($5+ Fortune) wager collects for *another* seat's qualifying hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from splitpoker.envs.rules.bonus.features import CATEGORY_MASK, N_FEATURE_CODES, BonusFlag
from splitpoker.envs.rules.checks import is_number
from splitpoker.envs.rules.ranking.categories import HandCategory


def _predicate_masks() -> dict[str, tuple[int, int]]:
    """Predicate name -> (bits that must be set, bits that must be clear)."""
    preds: dict[str, tuple[int, int]] = {}
    for c in HandCategory:
        preds[f"makes_{c.name.lower()}"] = (1 << c, 0)
    sf = 1 << HandCategory.STRAIGHT_FLUSH
    preds["natural_straight_flush"] = (1 << BonusFlag.NATURAL_SF, 0)
    preds["joker_straight_flush"] = (sf, 1 << BonusFlag.NATURAL_SF)
    preds["seven_card_straight_flush_natural"] = (1 << BonusFlag.SEVEN_CARD_SF_NATURAL, 0)
    preds["seven_card_straight_flush_joker"] = (1 << BonusFlag.SEVEN_CARD_SF_JOKER, 0)
    preds["royal_flush_natural_plus_royal_match"] = (1 << BonusFlag.ROYAL_MATCH, 0)
    preds["quad_eights_and_trips"] = (1 << BonusFlag.QUAD_EIGHTS_AND_TRIPS, 0)
    preds["nine_high"] = (1 << BonusFlag.NINE_HIGH, 0)
    return preds


PREDICATES = _predicate_masks()


@dataclass(frozen=True)
class PayLine:
    """One line of a pay table.

    Attributes:
        key: snake_case id, the seed's wording (``quad_eights_and_trips``).
        label: the seed's wording (``Quad Eights & Trips``).
        odds: pays ``odds`` to 1 (or, for an Envy table, ``odds`` Envy units); a finite number > 0.
        predicate: one of :data:`PREDICATES`.
    """

    key: str
    label: str
    odds: float
    predicate: str

    def __post_init__(self):
        if self.predicate not in PREDICATES:
            raise ValueError(f"pay line {self.key!r}: unknown predicate {self.predicate!r}, expected one of {sorted(PREDICATES)}")
        if not is_number(self.odds) or not math.isfinite(self.odds) or self.odds <= 0:
            # NaN passed ``odds <= 0`` and the line silently never paid; inf paid inf chips
            raise ValueError(f"pay line {self.key!r}: odds={self.odds!r}: expected a finite number > 0")

    def matches(self, code: int) -> bool:
        need, forbid = PREDICATES[self.predicate]
        return (int(code) & need) == need and (int(code) & forbid) == 0


@dataclass(frozen=True)
class PayTable:
    """A bonus pay table.

    Attributes:
        name: id used by configs and scripts (``seed-000``).
        game: ``"asia"`` or ``"paigow"``.
        kind: ``"odds"`` (pays odds to 1 on the wager; a losing hand loses the wager) or
            ``"envy"`` (a fixed amount in Envy units per qualifying hand at another seat).
        lines: in the seed's order.
        max_payout: cap on one hand's bonus win in chips, or None.
        source: where the table comes from.
    """

    name: str
    game: str
    kind: str
    lines: tuple[PayLine, ...]
    max_payout: float | None = None
    source: str = ""
    line_of_code: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        from splitpoker.envs.rules.games.spec import GAMES

        if self.game not in GAMES:
            raise ValueError(f"pay table {self.name!r}: game {self.game!r}, expected one of {list(GAMES)}")
        if self.kind not in ("odds", "envy"):
            raise ValueError(f"pay table {self.name!r}: kind {self.kind!r}, expected 'odds' or 'envy'")
        if not self.lines:
            raise ValueError(f"pay table {self.name!r} has no lines")
        if self.max_payout is not None and (not is_number(self.max_payout) or not math.isfinite(self.max_payout)
                                            or self.max_payout <= 0):
            raise ValueError(f"pay table {self.name!r}: max_payout={self.max_payout!r}: expected a finite number of "
                             f"chips > 0, or null for no cap")
        keys = [ln.key for ln in self.lines]
        dup = {k for k in keys if keys.count(k) > 1}
        if dup:
            raise ValueError(f"pay table {self.name!r}: duplicate line key(s) {sorted(dup)}")
        object.__setattr__(self, "line_of_code", self._line_lookup())

    def _line_lookup(self) -> np.ndarray:
        """``int8[N_FEATURE_CODES]``: index of the paying line per feature code, -1 if none."""
        codes = np.arange(N_FEATURE_CODES, dtype=np.int64)
        best = np.full(N_FEATURE_CODES, -1, dtype=np.int8)
        best_odds = np.zeros(N_FEATURE_CODES)
        for i, line in enumerate(self.lines):
            need, forbid = PREDICATES[line.predicate]
            hit = ((codes & need) == need) & ((codes & forbid) == 0) & (line.odds > best_odds)
            best[hit] = i
            best_odds[hit] = line.odds
        # a code that makes no category is impossible; keep -1
        best[(codes & CATEGORY_MASK) == 0] = -1
        best.setflags(write=False)
        return best

    def line_for(self, code: int) -> PayLine | None:
        i = int(self.line_of_code[int(code)])
        return None if i < 0 else self.lines[i]

    def settle(self, code: int, wager: float) -> tuple[float, PayLine | None]:
        """Net chips of a ``wager`` on a hand with feature ``code`` (:func:`bonus_chips`: the win,
        odds x wager capped at ``max_payout``, or ``-wager``) and the paying line (None if the hand
        loses)."""
        if self.kind != "odds":
            raise ValueError(f"pay table {self.name!r} is an {self.kind} table; only odds tables settle a wager")
        line_of_code, line_odds, cap = self.kernel_arrays()
        i = int(line_of_code[int(code)])
        return float(bonus_chips(i, float(wager), line_odds, cap)), (None if i < 0 else self.lines[i])

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray, float]:
        """What :func:`bonus_chips` reads: the paying line per feature code (``int8``, -1 none),
        the odds per line (``float64``) and the cap (``inf`` if none)."""
        odds = np.array([ln.odds for ln in self.lines], dtype=np.float64)
        return self.line_of_code, odds, float(self.max_payout) if self.max_payout is not None else math.inf

    def odds_array(self) -> np.ndarray:
        """``float64[N_FEATURE_CODES]``: odds paid per feature code (0 where nothing pays)."""
        odds = np.array([ln.odds for ln in self.lines] + [0.0])
        return odds[self.line_of_code]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PayTable:
        data = dict(data)
        allowed = {"name", "game", "kind", "lines", "max_payout", "source"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ValueError(f"unknown pay table field(s) {unknown}: expected some of {sorted(allowed)}")
        for req in ("name", "game", "lines"):
            if req not in data:
                raise ValueError(f"pay table is missing {req!r}")
        lines = []
        if not isinstance(data["lines"], (list, tuple)):
            raise ValueError(f"pay table {data['name']!r}: lines={data['lines']!r}: expected a list of lines")
        for i, ln in enumerate(data.pop("lines")):
            where = f"pay table {data['name']!r} line {i}"
            if not isinstance(ln, dict):
                raise ValueError(f"{where}: {ln!r}: expected a mapping of key, label, odds, predicate")
            extra = sorted(set(ln) - {"key", "label", "odds", "predicate"})
            if extra:
                raise ValueError(f"{where}: unknown field(s) {extra}")
            missing = [k for k in ("key", "odds", "predicate") if k not in ln]
            if missing:
                raise ValueError(f"{where}: missing field(s) {missing}")
            try:
                lines.append(PayLine(key=ln["key"], label=ln.get("label", ln["key"]), odds=ln["odds"],
                                     predicate=ln["predicate"]))
            except ValueError as e:
                raise ValueError(f"{where}: {e}") from None
        return cls(lines=tuple(lines), kind=data.pop("kind", "odds"), **data)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "game": self.game, "kind": self.kind, "max_payout": self.max_payout,
            "source": self.source,
            "lines": [{"key": ln.key, "label": ln.label, "odds": ln.odds, "predicate": ln.predicate} for ln in self.lines],
        }


@njit(cache=True, inline="always")
def bonus_chips(line, wager, line_odds, max_payout):
    """Net chips of a bonus ``wager`` on a hand that pays line ``line`` (-1: no line pays): odds x
    wager capped at ``max_payout``, or ``-wager``; 0 for no wager. The one settlement of a bonus
    (the round kernel, the table and :meth:`PayTable.settle` all call it)."""
    if wager <= 0:
        return 0.0
    if line < 0:
        return -wager
    win = wager * line_odds[line]
    return max_payout if win > max_payout else win


SEED_000 = PayTable(
    name="seed-000",
    game="asia",
    kind="odds",
    max_payout=50_000.0,
    source="seed 000 (Asia Poker casino app), 'Bonus Payouts'",
    lines=(
        PayLine("quad_eights_and_trips", "Quad Eights & Trips", 5000, "quad_eights_and_trips"),
        PayLine("five_aces", "5 Aces", 800, "makes_five_aces"),
        PayLine("royal_flush", "Royal Flush", 200, "makes_royal_flush"),
        PayLine("straight_flush", "Straight Flush", 50, "natural_straight_flush"),
        PayLine("straight_flush_joker", "Straight Flush*", 40, "joker_straight_flush"),
        PayLine("four_of_a_kind", "Four of a Kind", 25, "makes_four_of_a_kind"),
        PayLine("full_house", "Full House", 5, "makes_full_house"),
        PayLine("flush", "Flush", 4, "makes_flush"),
        PayLine("three_of_a_kind", "3 of a Kind", 3, "makes_three_of_a_kind"),
        PayLine("straight", "Straight", 2, "makes_straight"),
        PayLine("nine_high_hand", "9 High Hand", 10, "nine_high"),
    ),
)

# seed 004's pay table: one row per hand, a Fortune Bonus column and an Envy column (Envy pays
# only the top seven hands): (key, label, predicate, Fortune odds, Envy amount or None)
_SEED_004_ROWS = (
    ("seven_card_straight_flush_no_joker", "7 Card Straight Flush (no Joker)", "seven_card_straight_flush_natural", 2500, 1000),
    ("royal_flush_no_joker_plus_royal_match", "Royal Flush (no Joker) plus Royal Match (suited King and Queen)",
     "royal_flush_natural_plus_royal_match", 1000, 750),
    ("seven_card_straight_flush_with_joker", "7 Card Straight Flush (with Joker)", "seven_card_straight_flush_joker", 750, 250),
    ("five_aces", "Five Aces", "makes_five_aces", 250, 100),
    ("royal_flush", "Royal Flush", "makes_royal_flush", 125, 50),
    ("straight_flush", "Straight Flush", "makes_straight_flush", 50, 20),
    ("four_of_a_kind", "Four of a Kind", "makes_four_of_a_kind", 25, 5),
    ("full_house", "Full House", "makes_full_house", 5, None),
    ("flush", "Flush", "makes_flush", 4, None),
    ("three_of_a_kind", "Three of a Kind", "makes_three_of_a_kind", 3, None),
    ("straight", "Straight", "makes_straight", 2, None),
)

FORTUNE = PayTable(
    name="fortune",
    game="paigow",
    kind="odds",
    source="seed 004 (Fortune Pai Gow Bonus Poker), 'Fortune Bonus' column",
    lines=tuple(PayLine(key, label, fortune, pred) for key, label, pred, fortune, _ in _SEED_004_ROWS),
)

ENVY = PayTable(
    name="envy",
    game="paigow",
    kind="envy",
    source="seed 004 (Fortune Pai Gow Bonus Poker), 'Envy' column; paid to a $5+ Fortune wager for another seat's hand",
    lines=tuple(PayLine(key, label, envy, pred) for key, label, pred, _, envy in _SEED_004_ROWS if envy is not None),
)

ENVY_QUALIFYING_FORTUNE_WAGER = 5.0  # seed 004: "With a wager of $5 or more on the Fortune Bonus Spot"

BUILTIN_PAYTABLES: dict[str, PayTable] = {t.name: t for t in (SEED_000, FORTUNE, ENVY)}


def get_paytable(name: str) -> PayTable:
    try:
        return BUILTIN_PAYTABLES[name]
    except KeyError:
        raise ValueError(f"unknown pay table {name!r}: expected one of {sorted(BUILTIN_PAYTABLES)}") from None
