"""Exact solve of a seeded sample of hands: how much the house way gives up against optimal play.

Hand ``i`` of a sample is row ``i`` of :func:`sample_hands` (``random_hands(seed, N)``,
counter-based: the same hands whatever ``N``). Each hand is solved exactly against every dealer
hand of the unseen cards (:class:`splitpoker.envs.solver.exact.ExactSolver`) and becomes one row
(:func:`solve_hand`): the house-way setting, rule, exact EV and win/push/loss counts, the optimal
setting (ties: the house way if it is optimal, else the lowest index) with its EV and counts, the
regret (optimal EV - house-way EV, exact and >= 0), the number of optimal settings, and both
settings' hands as text. :func:`columns` lists the row's fields and their types.

``max_pool_card`` (tests, quick looks; ``14 <= K <= 52``): the dealer's hands are drawn only from
the unseen cards below ``K`` (card = rank*4 + suit, joker 52), with a small dealer table built in
memory; the player's hands are those of a full run, the EVs are NOT those of the real game.
``K = FULL_POOL`` (53) is the real game against all C(46, 7) dealer hands and the cached 617 MB
dealer table.

Pure rules-level computation (numpy, numba): no file format, no argument parsing; the resumable
sample file lives in :mod:`splitpoker.agents.exact.sample_file`, the command line in ``scripts/solve_sample.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import random_hands
from splitpoker.envs.rules.ranking.combinatorics import BINOM
from splitpoker.envs.solver.dealer_table import build_dealer_table
from splitpoker.envs.solver.exact import ExactSolver

FULL_POOL = 53  # max_pool_card of a run against the full 46-card dealer pool
MIN_POOL = 14  # the smallest K that always leaves the dealer 7 unseen cards below K

# the fields of one row, in file order, and their types ("str", "int", "float", "bool"); the
# per-slot hand columns ("house_way_high", ..., "optimal_front") follow, see :func:`columns`
RUN_COLUMNS = (("game", "str"), ("style", "str"), ("seed", "int"), ("max_pool_card", "int"))
ROW_COLUMNS = (
    ("index", "int"), ("cards", "str"), ("n_dealer_hands", "int"), ("house_way_setting", "int"),
    ("house_way_rule", "str"), ("house_way_ev", "float"), ("house_way_wins", "int"), ("house_way_pushes", "int"),
    ("house_way_losses", "int"), ("optimal_setting", "int"), ("optimal_ev", "float"), ("optimal_wins", "int"),
    ("optimal_pushes", "int"), ("optimal_losses", "int"), ("regret", "float"), ("n_optimal", "int"),
    ("house_way_optimal", "bool"),
)


def columns(game: Game) -> list[tuple[str, str]]:
    """Every column of a sample row of ``game``, in order, with its type name."""
    slots = [(f"{who}_{slot}", "str") for who in ("house_way", "optimal") for slot in game.slots]
    return [*RUN_COLUMNS, *ROW_COLUMNS, *slots]


def check_max_pool_card(k: int) -> int:
    """``k`` if it is a valid dealer-pool bound (14..52, or 53 for the full game), else ValueError."""
    if not is_integer(k) or not MIN_POOL <= k <= FULL_POOL:
        raise ValueError(f"--max-pool-card {k}: expected 14..52 (the dealer needs 7 unseen cards below K)")
    return int(k)


def sample_hands(seed: int, n: int) -> np.ndarray:
    """``int64[n, 7]``: hands ``0 .. n-1`` of the seeded deal (row ``i`` does not depend on ``n``)."""
    hands = np.empty((n, 7), dtype=np.int64)
    random_hands(seed, n, hands)
    return hands


def dealer_hands(max_pool_card: int) -> int:
    """How many 7-card hands the dealer table for ``max_pool_card`` covers (its build's length)."""
    return int(BINOM[max_pool_card, 7])


def make_solver(game: Game, max_pool_card: int = FULL_POOL, *, progress: Callable[[int], None] | None = None,
                log: Callable[[str], None] | None = None) -> ExactSolver:
    """The exact solver of a sample: the cached full dealer table for ``FULL_POOL``, else a small
    table of the cards below ``max_pool_card`` built in memory. ``progress(n)`` is told of the
    dealer hands done while a table is built; ``log`` receives the cache messages."""
    k = check_max_pool_card(max_pool_card)
    if k < FULL_POOL:
        return ExactSolver(game, table=build_dealer_table(game, universe=k, progress=progress))
    return ExactSolver(game, log=log, progress=progress)


def solve_hand(game: Game, solver: ExactSolver, cards: np.ndarray, max_pool_card: int = FULL_POOL) -> dict:
    """One sample row of the 7 ``cards`` (every field of :data:`ROW_COLUMNS` but ``index``, and
    the per-slot hands): the house way against the exact optimum over the dealer's unseen cards
    below ``max_pool_card``."""
    pool = None if max_pool_card == FULL_POOL else np.setdiff1d(np.arange(max_pool_card), cards)
    res = solver.solve(cards, pool=pool)
    hw = game.house_way(cards)
    h, opt = hw.setting, res.best(prefer=hw.setting)
    optimal = res.optimal_settings()
    row = dict(cards=format_cards(res.cards), n_dealer_hands=res.n_dealer_hands, house_way_setting=h,
               house_way_rule=hw.rule, optimal_setting=opt, regret=float(res.ev_fraction(opt) - res.ev_fraction(h)),
               n_optimal=len(optimal), house_way_optimal=bool(h in optimal))
    for who, s in (("house_way", h), ("optimal", opt)):
        row[f"{who}_ev"] = float(res.ev_fraction(s))  # correctly rounded, so optimal_ev >= house_way_ev
        for what in ("wins", "pushes", "losses"):
            row[f"{who}_{what}"] = int(getattr(res, what)[s])
        for slot, hand in game.describe(res.cards, s).hands().items():
            row[f"{who}_{slot}"] = format_cards(hand)
    return row
