"""The strategy table: the exact EV of every sub-hand value combination against the dealer's full
distribution, ignoring which cards the player holds.

A setting's value in the exact solver (:mod:`splitpoker.envs.solver.exact`) depends on the player's cards twice:
through the setting's hand values and through card removal (the dealer is dealt from the 46
cards the player does not hold). The strategy table keeps the first and drops the second: it
histograms the house-way outcome class of *all* C(53, 7) = 154,143,080 dealer hands (one pass
over the dealer table, :mod:`splitpoker.envs.solver.dealer_table`, with the solver's own histogram kernel) and
takes the solver's prefix sums over it. Then, for any setting with values

* Asia Poker ``(high, medium, low)`` — high: dense four-card rank class (< 2,535), medium:
  two-card value 0..90, low: one-card value 0..12 — at most 2,535 × 91 × 13 ≈ 3.0 million
  combinations, of which only those a setting can have are ever asked for;
* Pai Gow Poker ``(back, front)`` — back: five-card rank class (< 7,463), front: 0..90,

the exact number of dealer hands it wins (and pushes, loses) is three (Pai Gow: two) prefix-sum
reads, so the EV of every setting of a hand costs microseconds. Counts are exact integers over
N = C(53, 7); ties are compared exactly (:meth:`splitpoker.envs.solver.exact.ExactResult.best`).

The histogram is built in a few seconds once the dealer table exists (3.5-5.5 s measured,
loading and verifying the 617 MB dealer table included; the dealer table itself takes
17-24 s per style on two idle cores, the first time) and cached in the user cache directory
(:mod:`splitpoker.envs.rules.cache`) under a key holding the game, style, ranking options, universe and the
rules-source digest; commission does not enter the counts, only the EV. Deterministic: the
counts do not depend on thread count or order.

The :class:`StrategyTablePolicy` (``table`` in :mod:`splitpoker.agents.policies.baselines`) plays the non-fouled
setting with the highest table EV (ties: the house way if it is among the best, else the lowest
setting index). Its measured exact regret is in docs/strategy_table.md. Optional refinement
``exact_margin``: when the best two table EVs are closer than the margin, the hand is solved
exactly (with card removal) instead — 0.1-0.2 s per such hand on a free core.

``universe=K < 53`` uses only dealer hands made of cards ``0..K-1`` (small tables for tests).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.cache import load_or_build, prune
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.outcome import counts_from_prefix
from splitpoker.envs.solver.dealer_table import n_classes
from splitpoker.envs.solver.exact import ExactResult, ExactSolver, prefix_counts, result_from_prefix

TABLE_FORMAT = 1


def strategy_key(game: Game, universe: int = 53) -> dict:
    """Cache key of a strategy-table histogram (commission excluded: it does not change counts)."""
    rules = dataclasses.asdict(game.rules)
    rules.pop("commission", None)
    return {"what": "strategy table histogram", "format": TABLE_FORMAT, "game": game.game,
            "style": game.style.value, "rules": rules, "universe": universe, "rules_source": RULES_SOURCE_DIGEST}


def build_histogram(game: Game, universe: int = 53, *, dealer=None, log=None) -> np.ndarray:
    """Outcome-class counts of every dealer hand made of cards ``0..universe-1`` (no cache).
    ``dealer``: a dealer table to use (default: the cached one, built on first use)."""
    if not is_integer(universe) or not 7 <= universe <= 53:
        raise ValueError(f"universe={universe!r}: expected an integer 7..53 (cards 0..universe-1)")
    if dealer is None:
        from splitpoker.envs.solver.dealer_table import dealer_table

        dealer = dealer_table(game, log=log)
    solver = ExactSolver(game, table=dealer)
    hist = solver.histogram(np.arange(int(universe)))
    expected = math.comb(int(universe), 7)
    if int(hist.sum()) != expected:
        raise RuntimeError(f"strategy table histogram counts {int(hist.sum()):,} dealer hands, expected {expected:,}")
    return hist


class StrategyTable:
    """Exact EVs of sub-hand value combinations for one ``game`` (game, style, rules).

    Example::

        table = StrategyTable(Game("asia", "asia-000"))
        table.evaluate("As Kd Qh Jc Ts JK 9h").ev      # every setting's table EV
        table.best("As Kd Qh Jc Ts JK 9h")             # the setting the table policy plays
    """

    def __init__(self, game: Game, *, universe: int = 53, dealer=None, use_cache: bool = True, log=None):
        if not isinstance(game, Game):
            raise TypeError(f"game must be an splitpoker.envs.rules.game.Game, got {type(game).__name__}")
        self.game = game
        self.universe = int(universe)
        name = f"strategy-{game.game}-{game.style.value}"
        if use_cache:  # histograms of older rules sources can never load again: free the disk
            prune("strategy-", lambda k: k.get("rules_source") == RULES_SOURCE_DIGEST and k.get("format") == TABLE_FORMAT,
                  log=log)
        self.histogram = load_or_build(name, strategy_key(game, self.universe),
                                       lambda: build_histogram(game, self.universe, dealer=dealer, log=log),
                                       use_cache=use_cache, log=log)
        if self.histogram.shape != (n_classes(game),):
            raise ValueError(f"strategy table histogram has shape {self.histogram.shape}, expected ({n_classes(game)},)")
        self.prefix = prefix_counts(game, np.asarray(self.histogram, dtype=np.int64))
        self.n_dealer_hands = math.comb(self.universe, 7)

    def counts(self, ranks: np.ndarray, fouled: np.ndarray | None = None, hand: np.ndarray | None = None) -> ExactResult:
        """Table counts of settings with values ``ranks[n, n_slots]`` (fouled ones lose everything)."""
        ranks = np.asarray(ranks, dtype=np.int64)
        width = len(self.game.slots)
        if ranks.ndim != 2 or ranks.shape[1] != width:
            raise ValueError(f"ranks of shape {ranks.shape}: expected (n_settings, {width}) hand values")
        hi = np.array(self.prefix.shape) - 2
        if (ranks < 0).any() or (ranks > hi).any():
            raise ValueError(f"hand values outside 0..{hi.tolist()} for {self.game.game}")
        fouled = np.zeros(len(ranks), dtype=bool) if fouled is None else np.asarray(fouled, dtype=bool)
        hand = np.zeros(0, dtype=np.int64) if hand is None else hand
        return result_from_prefix(self.game, self.prefix, hand, ranks, fouled)

    def evaluate(self, cards) -> ExactResult:
        """Table counts and EVs of every setting of ``cards`` (an :class:`ExactResult` whose
        ``n_dealer_hands`` is C(universe, 7), the dealer hands of the whole deck)."""
        hand = self.game.hand(cards)
        ranks, fouled = self.game.settings(hand)
        return self.counts(ranks, fouled, hand)

    def ev_grid(self) -> np.ndarray:
        """The whole table: ``ev[high, medium, low]`` (Asia) / ``ev[back, front]`` (Pai Gow) for
        every value combination, float64 (about 24 MB for Asia)."""
        grid = np.ogrid[tuple(slice(0, k - 1) for k in self.prefix.shape)]  # every value of every hand
        return counts_from_prefix(self.game.game_id, self.prefix, tuple(grid), float(self.game.commission))[-1]

    def best(self, cards, legal: np.ndarray | None = None) -> int:
        """The table policy's setting: highest table EV among the non-fouled (and ``legal``)
        settings; ties to the house way if it is among the best, else the lowest index."""
        r = self.evaluate(cards)
        return best_setting(r, self.game.house_way(r.cards).setting, legal)


def best_setting(r: ExactResult, house: int, legal: np.ndarray | None = None) -> int:
    """The setting of ``r`` with the highest EV (compared exactly) among the non-fouled and
    ``legal`` ones; ties go to ``house`` if it is among the best, else to the lowest index."""
    key = r._exact_key()
    ok = ~r.fouled if legal is None else (~r.fouled & np.asarray(legal, dtype=bool))
    if not ok.any():
        ok = np.asarray(legal, dtype=bool) if legal is not None and np.any(legal) else np.ones_like(r.fouled)
    top = max(key[ok])
    best = np.flatnonzero(ok & (key == top))
    return int(house) if house in best else int(best[0])
