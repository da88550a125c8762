"""The strategy table with card removal: exact first-order effects of removal of the player's cards.

The strategy table (:mod:`splitpoker.agents.policies.strategy_table`) values a setting ``s`` against
the dealer's hands of the whole 53-card deck, ``T(s) = f(s, {})``, where ``f(s, R)`` is the exact
EV of ``s`` against every dealer hand dealt from the deck without the cards ``R``. The exact value
of a hand ``P`` (seven cards) is ``f(s, P)``: the dealer never holds the player's cards. This
module adds the classic *effects of removal* of card counting (Thorp; Griffin, *The Theory of
Blackjack*) to the table, computed exactly for every card::

    EoR(s, c) = f(s, {c}) - f(s, {})            (dealer hands of the 52 cards other than c)
    V(s, P)   = T(s) + sum over c in P of EoR(s, c)

``V`` is the first-order (additive) approximation of ``f(s, P)``; the policy ``table-eor``
(:class:`splitpoker.agents.policies.baselines.RemovalTablePolicy`) plays the non-fouled setting of
highest ``V``. ``f(s, {c})`` is the exact solver's own formula (prefix sums of the dealer's outcome
classes, :func:`splitpoker.envs.solver.exact.result_from_prefix`) over one histogram per card,
that of the C(52, 7) = 133,784,560 dealer hands without it: all C(53, 7) hands minus those that
hold the card, which one pass over the hands counts for every card at once (Asia: a few passes,
to bound memory; measured side by side with the 53 passes it replaces, same arrays, 4 runs: Pai
Gow 2.8-4.2 s against 10.7-12.2 s; Asia, 2 runs, 12.1-13.4 s against 16.6-17.9 s), stored as 53
prefix-sum arrays beside the table's::

    without[c]   int32, the prefix sums P[...] of the dealer hands that do not hold card c
                 (Asia [53, 2536, 92, 14], 690 MB; Pai Gow [53, 7464, 92], 146 MB)

Per decision: seven more prefix-sum reads per setting (microseconds; nothing is solved). Nothing is
fitted: there are no parameters to choose. Measured exact regret on the benchmark's test hands
(docs/rl_benchmark/rl_benchmark_extra.md, ``scripts/bench_card_removal.py``): below the table's with the
intervals apart on both games.

The arrays are cached (:mod:`splitpoker.envs.rules.cache`, opened memory-mapped) under a key
holding the game, style, ranking options, universe and the rules-source digest (commission does
not change counts). ``universe=K < 53`` uses only the cards ``0..K-1`` (small tables for tests).
"""

from __future__ import annotations

import math

import numpy as np

from splitpoker.agents.policies.strategy_table import StrategyTable, strategy_key
from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.cache import load_or_build, prune
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver.dealer_table import n_classes
from splitpoker.envs.solver.exact import (
    ExactResult,
    histograms_with_card,
    prefix_counts,
    result_from_prefix,
)

REMOVAL_FORMAT = 1
N_CARDS = 53


def removal_key(game: Game, universe: int = N_CARDS) -> dict:
    """Cache key of the per-card prefix sums (commission excluded: it does not change counts)."""
    return {**strategy_key(game, universe), "what": "card removal prefix sums", "format": REMOVAL_FORMAT}


def build_without(game: Game, universe: int = N_CARDS, *, dealer=None, log=None, progress=None) -> np.ndarray:
    """``int32[53, *prefix]``: for every card ``c`` the prefix sums of the dealer hands made of the
    cards ``0..universe-1`` other than ``c`` (for ``c >= universe``, all of them: removing a card
    outside the universe changes nothing). No cache. The hands without ``c`` are all hands minus
    those holding ``c``, counted by card in one pass over the hands per block of cards
    (:func:`splitpoker.envs.solver.exact.histograms_with_card`); ``progress(n)`` gets hands covered."""
    if dealer is None:
        from splitpoker.envs.solver.dealer_table import dealer_table

        dealer = dealer_table(game, log=log)
    universe = int(universe)
    with_card = histograms_with_card(dealer, universe, n_classes(game), progress=progress)
    every = with_card.sum(axis=0)  # each hand counted once per card it holds: 7 times
    if np.any(every % 7) or int(every.sum()) != 7 * math.comb(universe, 7):
        raise RuntimeError(f"card removal counts: {int(every.sum()):,} card-hands, expected 7 x C({universe}, 7)")
    hist = every // 7
    full = prefix_counts(game, hist)
    if full.max() >= 2**31:
        raise ValueError(f"{int(full.max()):,} dealer hands do not fit the int32 prefix sums")
    out = np.empty((N_CARDS, *full.shape), dtype=np.int32)
    for c in range(N_CARDS):
        out[c] = full if c >= universe else prefix_counts(game, hist - with_card[c])
    return out


class RemovalTable:
    """The strategy table plus the exact effect of removing each card (module docstring).

    Example::

        rt = RemovalTable(Game("paigow", "paigow-igw"))
        rt.values("As Kd Qh Jc Ts JK 9h")     # V(s, P) of every setting (fouled: -1)
        rt.best("As Kd Qh Jc Ts JK 9h")       # the setting table-eor plays
    """

    def __init__(self, game: Game, *, universe: int = N_CARDS, dealer=None, table: StrategyTable | None = None,
                 use_cache: bool = True, log=None, progress=None):
        if not isinstance(game, Game):
            raise TypeError(f"game must be an splitpoker.envs.rules.game.Game, got {type(game).__name__}")
        self.game = game
        self.universe = int(universe)
        self.table = table if table is not None else StrategyTable(game, universe=universe, dealer=dealer,
                                                                   use_cache=use_cache, log=log)
        if self.table.game != game or self.table.universe != self.universe:
            raise ValueError("table is the strategy table of another game or universe")
        name = f"removal-{game.game}-{game.style.value}"
        if use_cache:  # arrays of older rules sources can never load again: free the disk
            prune("removal-", lambda k: k.get("rules_source") == RULES_SOURCE_DIGEST
                  and k.get("format") == REMOVAL_FORMAT, log=log)
        self.without = load_or_build(name, removal_key(game, self.universe),
                                     lambda: build_without(game, self.universe, dealer=dealer, log=log,
                                                           progress=progress),
                                     use_cache=use_cache, mmap=True, log=log)
        if self.without.shape != (N_CARDS, *self.table.prefix.shape):
            raise ValueError(f"card removal arrays of shape {self.without.shape}, expected "
                             f"({N_CARDS}, {', '.join(map(str, self.table.prefix.shape))})")

    def removed(self, card: int, ranks: np.ndarray, fouled: np.ndarray, hand: np.ndarray) -> ExactResult:
        """Exact counts and EVs of the settings ``ranks`` against the dealer hands without ``card``."""
        return result_from_prefix(self.game, self.without[int(card)], hand, ranks, fouled)

    def values_of(self, hand: np.ndarray, ranks: np.ndarray, fouled: np.ndarray) -> tuple[np.ndarray, ExactResult]:
        """``(V, table result)`` for the settings ``ranks``/``fouled`` of the sorted ``hand``:
        ``V = T + sum_c (f(., {c}) - T)`` over the hand's cards, -1 where fouled."""
        ranks = np.asarray(ranks, dtype=np.int64)
        t = self.table.counts(ranks, fouled, hand)
        v = t.ev.copy()
        for c in np.asarray(hand).tolist():
            v += self.removed(c, ranks, fouled, hand).ev - t.ev
        return np.where(t.fouled, -1.0, v), t

    def values(self, cards) -> np.ndarray:
        """``V(s, P)`` of every setting of ``cards`` (fouled settings -1)."""
        hand = self.game.hand(cards)
        ranks, fouled = self.game.settings(hand)
        return self.values_of(hand, ranks, fouled)[0]

    def best(self, cards, legal: np.ndarray | None = None) -> int:
        """The ``table-eor`` setting: the highest ``V`` among the non-fouled (and ``legal``)
        settings; ties to the house way if it is among the best, else the lowest index."""
        hand = self.game.hand(cards)
        ranks, fouled = self.game.settings(hand)
        v, t = self.values_of(hand, ranks, fouled)
        return best_value(v, t.fouled, self.game.house_way(t.cards).setting, legal)


def best_value(values: np.ndarray, fouled: np.ndarray, house: int, legal: np.ndarray | None = None) -> int:
    """The index of the highest ``values`` among the non-fouled and ``legal`` settings (all legal
    ones if every legal setting fouls); ties go to ``house`` when it is among the best, else to the
    lowest index (the tie rule of :func:`splitpoker.agents.policies.strategy_table.best_setting`)."""
    ok = ~np.asarray(fouled, dtype=bool)
    if legal is not None:
        ok &= np.asarray(legal, dtype=bool)
    if not ok.any():
        ok = np.asarray(legal, dtype=bool) if legal is not None and np.any(legal) else np.ones(len(values), bool)
    v = np.where(ok, values, -np.inf)
    best = np.flatnonzero(ok & (v == v.max()))
    return int(house) if house in best else int(best[0])

