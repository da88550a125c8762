"""``Game``: one game (Asia Poker or Pai Gow Poker) with its rules options, the dealer's house
way and the bonus pay table — the validated owner of a round's whole payoff that the environments,
scripts, agents and solvers share.

A ``Game`` holds the hand-rank tables, the house-way style, the rules options and the bonus pay
table, and settles with them: the main wager against the dealer's house way (the numba kernels of
:mod:`splitpoker.envs.rules.play.rounds`) and the bonus on the player's seven cards. One round's state (the deal,
the player's settings, the dealer hands) lives in a :class:`~splitpoker.envs.rules.play.round.Round` made by
:meth:`Game.round`; a batch of rounds (house way against house way) is :meth:`Game.simulate`.

Example::

    g = Game("asia", "asia-borgata")
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

import numpy as np

from splitpoker.envs.rules.bonus.features import features_sorted
from splitpoker.envs.rules.bonus.paytables import PayLine, PayTable, get_paytable
from splitpoker.envs.rules.games.asia import HIGH_POS, LOW_POS, MEDIUM_POS, AsiaPoker
from splitpoker.envs.rules.games.options import AsiaRules, PaiGowRules
from splitpoker.envs.rules.games.paigow import BACK_POS, FRONT_POS, PaiGowPoker
from splitpoker.envs.rules.house_ways.registry import (
    HouseWayResult,
    HouseWayStyle,
    house_way_setting,
)
from splitpoker.envs.rules.play.monte_carlo import (
    asia_finish,
    asia_setting_sums,
    paigow_finish,
    paigow_setting_sums,
)
from splitpoker.envs.rules.play.round import Round
from splitpoker.envs.rules.play.rounds import (
    asia_round_start,
    asia_settle,
    paigow_round_start,
    paigow_settle,
)
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

GAMES = ("asia", "paigow")
DEFAULT_STYLE = {"asia": "asia-000", "paigow": "paigow-igw"}
DEFAULT_PAYTABLE = {"asia": "seed-000", "paigow": "fortune"}
_DEFAULT = object()


def _bonus_paytable(game: str, table) -> PayTable | None:
    """The bonus pay table of ``game``: a :class:`PayTable`, a built-in name or None (no bonus)."""
    if table is None:
        return None
    if isinstance(table, str):
        table = get_paytable(table)
    if not isinstance(table, PayTable):
        raise ValueError(f"bonus_paytable={table!r} ({type(table).__name__}): expected a PayTable, a pay table "
                         f"name or None")
    if table.game != game or table.kind != "odds":
        raise ValueError(f"bonus_paytable {table.name!r} is a {table.game}/{table.kind} table: "
                         f"expected a {game} odds table")
    return table


def slot_cards(game: str, cards, setting: int) -> list[tuple[str, list[int]]]:
    """``(slot name, cards high to low)`` of each hand of setting ``setting`` of the sorted seven
    ``cards`` of ``game`` (``"asia"``: high, medium, low; ``"paigow"``: back, front)."""
    hand = np.asarray(cards)
    if game == "asia":
        named = (("high", HIGH_POS[setting]), ("medium", MEDIUM_POS[setting]), ("low", [LOW_POS[setting]]))
    else:
        named = (("back", BACK_POS[setting]), ("front", FRONT_POS[setting]))
    return [(name, sorted(hand[list(pos)].tolist(), reverse=True)) for name, pos in named]


class Game:
    """One game under one set of rules options, house-way style and bonus pay table.

    Arguments: ``game`` (``"asia"`` or ``"paigow"``), ``style`` (house-way name, default
    ``asia-000`` / ``paigow-igw``), ``rules`` (:class:`AsiaRules` / :class:`PaiGowRules`, default
    the game's defaults), ``bonus_paytable`` (a :class:`PayTable` of the game, a built-in name, or
    None for a table without a bonus; default ``seed-000`` / ``fortune``).
    """

    def __init__(self, game: str, style: str | None = None, rules: AsiaRules | PaiGowRules | None = None,
                 bonus_paytable: PayTable | str | None = _DEFAULT):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}: expected one of {GAMES}")
        self.game = game
        self.style = HouseWayStyle.parse(style or DEFAULT_STYLE[game], game=game)
        if game == "asia":
            if rules is not None and not isinstance(rules, AsiaRules):
                raise ValueError(f"rules {rules!r} are not AsiaRules")
            self.engine = AsiaPoker(rules)
            self.rank_table = self.engine.high_rank
            self.to_two = self.engine.high_to_two
            self.slots = ("high", "medium", "low")
        else:
            if rules is not None and not isinstance(rules, PaiGowRules):
                raise ValueError(f"rules {rules!r} are not PaiGowRules")
            self.engine = PaiGowPoker(rules)
            self.rank_table = self.engine.back_rank
            self.to_two = self.engine.back_to_two
            self.slots = ("back", "front")
        self.rules = self.engine.rules
        self.table = self.engine.table  # the hand-rank table settings are valued with
        self.n_settings = self.engine.n_settings
        self.style_id = self.style.style_id
        self.commission = float(getattr(self.rules, "commission", 0.0))
        self.bonus_paytable = _bonus_paytable(game, DEFAULT_PAYTABLE[game] if bonus_paytable is _DEFAULT
                                              else bonus_paytable)
        #: five-card category per colex index, the bonus classification (the same for every option)
        self.bonus_categories = paigow_back_table().category

    def __repr__(self) -> str:
        table = None if self.bonus_paytable is None else self.bonus_paytable.name
        return f"Game({self.game!r}, {self.style.value!r}, {self.rules!r}, bonus_paytable={table!r})"

    # ---- one round ------------------------------------------------------------------------
    def round(self, n_dealers: int = 1) -> Round:
        """A :class:`Round` of this game against ``n_dealers`` dealer hands (1 is the real game)."""
        return Round(self, n_dealers)

    def start_round(self, seed: int, player, dealers, ranks, fouled) -> int:
        """Deal round ``seed`` into ``player[7]`` and ``dealers[n, 7]`` (sorted), value every
        setting of the player's cards into ``ranks`` and ``fouled``; returns the house-way setting
        of the player's cards (numba)."""
        start = asia_round_start if self.game == "asia" else paigow_round_start
        return int(start(seed, self.style_id, self.rank_table, self.to_two, player, dealers, ranks, fouled))

    def main_result(self, values, fouled: bool, dealers, dealer_settings, dealer_won) -> float:
        """Mean main result per unit wagered of a setting with hand ``values`` (a row of
        ``ranks``) against every dealer hand set by the house way (-1 if ``fouled``); fills
        ``dealer_settings`` and ``dealer_won`` per dealer hand (numba)."""
        if self.game == "asia":
            ph, pm, pl = values
            return float(asia_settle(ph, pm, pl, fouled, dealers, self.style_id, self.rank_table, self.to_two,
                                     dealer_settings, dealer_won))
        pb, pf = values
        return float(paigow_settle(pb, pf, fouled, dealers, self.style_id, self.rank_table, self.to_two,
                                   self.commission, dealer_settings, dealer_won))

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
        return slot_cards(self.game, cards, setting)

    # ---- a batch of rounds ----------------------------------------------------------------
    def simulate(self, n_rounds: int, seed: int = 0, progress=None, chunk: int = 2_000_000) -> dict:
        """House way (player) against house way (dealer) over ``n_rounds`` dealt rounds: rates,
        edge and its 95% CI (:func:`splitpoker.envs.rules.house_ways.check.simulate`, the kernel of
        ``scripts/simulate.py``)."""
        from splitpoker.envs.rules.house_ways.check import simulate

        return simulate(self, n_rounds, seed, progress=progress, chunk=chunk)

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
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(f"n_samples={n_samples!r}: expected a positive integer")
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1):
            raise ValueError(f"chunk={chunk!r}: expected a positive integer or None")
        hand = self.hand(cards)
        mean = np.empty(self.n_settings)
        stderr = np.empty(self.n_settings)
        seed = int(seed) & ((1 << 63) - 1)
        n = int(n_samples)
        step = n if chunk is None else int(chunk)
        s1, s2 = np.zeros(self.n_settings), np.zeros(self.n_settings)
        for start in range(0, n, step):
            stop = min(n, start + step)
            if self.game == "asia":
                fouled = asia_setting_sums(hand, start, stop, seed, self.style_id, self.rank_table, self.to_two, s1)
            else:
                fouled = paigow_setting_sums(hand, start, stop, seed, self.style_id, self.rank_table, self.to_two,
                                             self.rules.commission, s1, s2)
            if progress is not None:
                progress(stop - start)
        if self.game == "asia":
            asia_finish(fouled, s1, n, mean, stderr)
        else:
            paigow_finish(fouled, s1, s2, n, mean, stderr)
        return mean, stderr
