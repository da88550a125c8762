"""``Game``: one game (Asia Poker or Pai Gow Poker) with its rules options, the dealer's house
way and the bonus pay table — the validated owner of a round's whole payoff that the environments,
scripts, agents and solvers share.

A ``Game`` holds the hand-rank tables, the house-way style, the rules options and the bonus pay
table, and settles with them: the main wager against the dealer's house way (the numba kernels of
:mod:`splitpoker.envs.rules.play.rounds`) and the bonus on the player's seven cards. One round's state (the deal,
the player's settings, the dealer hands) lives in a :class:`~splitpoker.envs.rules.play.round.Round` made by
:meth:`Game.round`; a batch of rounds (house way against house way) is
:func:`splitpoker.envs.rules.house_ways.check.simulate`.

Example::

    g = Game("asia", "asia-borgata")        # or Game(ASIA_POKER, ...): a name or a GameSpec
    hand = g.hand("Qh Th 8h 3h Kd 5d Tc")
    g.house_way(hand)                       # HouseWayResult(setting=..., rule=...)
    mean, stderr = g.monte_carlo(hand, 20_000, seed=1)
    g.settle_bonus(hand, 5.0)               # (-5.0, None): a pair pays no line of seed-000

The bonus is paid on the best line five of the seven cards make, classified with the five-card
category table of Pai Gow's back hand (:data:`Game.bonus_categories`). That table is the same for
every rules option (the options reorder hands *within* a category, e.g. where A-2-3-4-5 ranks
among straights, never move a hand to another category), so a bonus is the same under every
option and the pay tables' exhaustive counts hold for all of them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from splitpoker.envs.rules.bonus.features import N_FEATURE_CODES, features_sorted
from splitpoker.envs.rules.bonus.paytables import PayLine, PayTable, get_paytable
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.dealing import MASK63
from splitpoker.envs.rules.games.spec import GAMES, GameSpec, get_spec
from splitpoker.envs.rules.house_ways.registry import (
    HouseWayResult,
    HouseWayStyle,
    house_way_setting,
)
from splitpoker.envs.rules.play.monte_carlo import finish, setting_sums
from splitpoker.envs.rules.play.round import Round
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

__all__ = ["GAMES", "Game", "GameTables", "slot_cards"]
_DEFAULT = object()


class GameTables(NamedTuple):
    """A :class:`Game`'s constants as every numba kernel takes them, built once per ``Game``
    (:attr:`Game.tables`): the round kernel's ``game`` argument starts with them
    (:class:`~splitpoker.envs.rules.play.kernel.KernelGame`) and the table's bulk settlement reads
    them (:meth:`~splitpoker.envs.rules.table.rules.TableRules.arrays`)."""

    game_id: np.int64  #: the spec's numba game id
    style_id: np.int64  #: the house way's registry id
    rank: np.ndarray  #: the hand-rank table settings are valued with (colex index -> dense rank)
    to_two: np.ndarray  #: its projection onto the two-card scale, int64
    commission: float  #: the main wager's commission on a win (Pai Gow 0.05)
    cat5: np.ndarray  #: five-card category per colex index: the bonus classification
    line_of_code: np.ndarray  #: bonus line per seven-card feature code (-1: none), int8
    line_odds: np.ndarray  #: odds of each bonus line
    max_payout: float  #: the bonus's cap in chips (inf: none)


def game_tables(game_id: int, style_id: int, rank: np.ndarray, to_two: np.ndarray, commission: float,
                bonus_paytable: PayTable | None) -> GameTables:
    """:class:`GameTables` of a game's ranking, house way and bonus pay table (no table: no line
    pays, every code maps to -1)."""
    if bonus_paytable is not None:
        line_of_code, line_odds, cap = bonus_paytable.kernel_arrays()
    else:
        line_of_code, line_odds, cap = np.full(N_FEATURE_CODES, -1, np.int8), np.zeros(1), np.inf
    return GameTables(np.int64(game_id), np.int64(style_id), rank, to_two, float(commission),
                      paigow_back_table().category, line_of_code, line_odds, float(cap))


def _bonus_paytable(spec: GameSpec, table) -> PayTable | None:
    """The bonus pay table of the game: a :class:`PayTable`, a built-in name or None (no bonus)."""
    if table is None:
        return None
    if isinstance(table, str):
        table = get_paytable(table)
    if not isinstance(table, PayTable):
        raise ValueError(f"bonus_paytable={table!r} ({type(table).__name__}): expected a PayTable, a pay table "
                         f"name or None")
    if table.game != spec.name or table.kind != "odds":
        raise ValueError(f"bonus_paytable {table.name!r} is a {table.game}/{table.kind} table: "
                         f"expected a {spec.name} odds table")
    return table


def slot_cards(game: str | GameSpec, cards, setting: int) -> list[tuple[str, list[int]]]:
    """``(slot name, cards high to low)`` of each hand of setting ``setting`` of the sorted seven
    ``cards`` of ``game`` (``"asia"``: high, medium, low; ``"paigow"``: back, front)."""
    spec = get_spec(game)
    hand = np.asarray(cards)
    return [(name, sorted(hand[pos[setting]].tolist(), reverse=True)) for name, pos in zip(spec.slots, spec.positions,
                                                                                          strict=True)]


class Game:
    """One game under one set of rules options, house-way style and bonus pay table.

    Arguments: ``game`` (``"asia"``, ``"paigow"`` or a :class:`GameSpec`), ``style`` (house-way
    name, default the spec's: ``asia-000`` / ``paigow-igw``), ``rules`` (the spec's options class,
    :class:`AsiaRules` / :class:`PaiGowRules`, default its defaults), ``bonus_paytable`` (a
    :class:`PayTable` of the game, a built-in name, or None for a table without a bonus; default
    the spec's: ``seed-000`` / ``fortune``).

    Attributes: ``spec`` (the :class:`GameSpec`), ``game`` (its name), ``style`` (the
    :class:`HouseWayStyle`, parsed once here), ``style_id``, ``rules``, ``engine`` (the validated
    per-game Python API), ``rank_table`` and ``to_two`` (the table settings are valued with and its
    two-card projection), ``n_settings``, ``slots``, ``commission``, ``bonus_paytable``,
    ``bonus_categories``, ``tables`` (all of these as the numba kernels take them, :class:`GameTables`).
    """

    def __init__(self, game: str | GameSpec, style: str | None = None, rules=None,
                 bonus_paytable: PayTable | str | None = _DEFAULT):
        self.spec = spec = get_spec(game)
        self.game = spec.name
        self.game_id = spec.game_id
        self.style = HouseWayStyle.parse(style or spec.default_house_way, game=spec.name)
        self.engine = spec.engine_cls(spec.rules(rules))
        self.rank_table, self.to_two = self.engine.rank_table, self.engine.to_two
        self.slots = spec.slots
        self.rules = self.engine.rules
        self.table = self.engine.table  # the hand-rank table settings are valued with
        self.n_settings = spec.n_settings
        self.style_id = self.style.style_id
        self.commission = float(getattr(self.rules, "commission", 0.0))
        self.bonus_paytable = _bonus_paytable(spec, spec.default_bonus_paytable if bonus_paytable is _DEFAULT
                                              else bonus_paytable)
        #: the numba kernels' constants, built once (the round kernel's and the table's bulk settlement)
        self.tables = game_tables(self.game_id, self.style_id, self.rank_table, self.to_two, self.commission,
                                  self.bonus_paytable)
        #: five-card category per colex index, the bonus classification (the same for every option)
        self.bonus_categories = self.tables.cat5

    def __repr__(self) -> str:
        table = None if self.bonus_paytable is None else self.bonus_paytable.name
        return f"Game({self.game!r}, {self.style.value!r}, {self.rules!r}, bonus_paytable={table!r})"

    # ---- one round ------------------------------------------------------------------------
    def round(self, n_dealers: int = 1) -> Round:
        """A :class:`Round` of this game against ``n_dealers`` dealer hands (1 is the real game)."""
        return Round(self, n_dealers)

    def bonus_code(self, cards) -> int:
        """The seven-card feature code (:mod:`splitpoker.envs.rules.bonus.features`) of ``cards`` (any order)."""
        return int(features_sorted(np.sort(self.hand(cards)), self.bonus_categories))

    def settle_bonus(self, cards, wager: float) -> tuple[float, PayLine | None]:
        """Net chips of a bonus ``wager`` on the seven ``cards`` (paid regardless of the main
        result, seed 000) and the paying line: odds x wager capped at the table's maximum payout,
        ``-wager`` if no line pays, 0 for no wager."""
        if wager > 0 and self.bonus_paytable is None:
            raise ValueError(f"bonus wager {wager!r} on {self!r}, which has no bonus pay table: expected 0")
        if self.bonus_paytable is None:
            return 0.0, None
        return self.bonus_paytable.settle(self.bonus_code(cards), wager)

    def slot_cards(self, cards, setting: int) -> list[tuple[str, list[int]]]:
        """``(slot name, cards high to low)`` of each hand of ``setting`` of the sorted ``cards``."""
        return slot_cards(self.spec, cards, setting)

    def hand(self, cards) -> np.ndarray:
        return self.engine.hand(cards)

    def house_way(self, cards) -> HouseWayResult:
        return house_way_setting(self.style, self.engine, cards)

    def settings(self, cards) -> tuple[np.ndarray, np.ndarray]:
        """Values ``ranks[n_settings, n_slots]`` and ``fouled[n_settings]``."""
        return self.engine.all_settings(cards)

    def describe(self, cards, s: int):
        return self.engine.describe(cards, s)

    def monte_carlo(self, cards, n_samples: int, seed: int = 0, *, chunk: int | None = None,
                    progress=None) -> tuple[np.ndarray, np.ndarray]:
        """Per-setting mean main result and standard error against ``n_samples`` dealer hands
        (the same hands for every setting). With ``chunk``, the dealer hands are dealt ``chunk`` at
        a time (``progress(n)`` after each), so a Ctrl-C is seen between chunks; the result is
        exactly the same."""
        if not is_integer(n_samples) or n_samples < 1:
            raise ValueError(f"n_samples={n_samples!r}: expected a positive integer")
        if chunk is not None and (not is_integer(chunk) or chunk < 1):
            raise ValueError(f"chunk={chunk!r}: expected a positive integer or None")
        hand = self.hand(cards)
        mean = np.empty(self.n_settings)
        stderr = np.empty(self.n_settings)
        seed = int(seed) & MASK63
        n = int(n_samples)
        step = n if chunk is None else int(chunk)
        s1, s2 = np.zeros(self.n_settings), np.zeros(self.n_settings)
        for start in range(0, n, step):
            stop = min(n, start + step)
            fouled = setting_sums(self.game_id, hand, start, stop, seed, self.style_id, self.rank_table, self.to_two,
                                  self.commission, s1, s2)
            if progress is not None:
                progress(stop - start)
        finish(self.game_id, fouled, s1, s2, n, mean, stderr)
        return mean, stderr
