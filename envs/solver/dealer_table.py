"""The dealer table: the dealer's house-way hand values for every seven-card hand.

For one (game, house-way style, ranking options), entry ``i`` holds the *outcome class* of the
hand whose colex rank (:mod:`splitpoker.envs.rules.ranking.combinatorics`) is ``i``: the values of the hands the
house way sets, packed into one integer so that the exact solver can histogram them directly:

* Asia Poker: ``(high * 91 + medium) * 13 + low`` (high: dense four-card rank, < 2,535 classes;
  medium: two-card value 0..90; low: 0..12) — fewer than 3.0 million classes;
* Pai Gow Poker: ``back * 91 + front`` (back: dense five-card rank < 7,463) — < 680,000 classes.

``uint32`` per hand: 154,143,080 × 4 bytes = 617 MB. Built once with numba in parallel over all
cores (measured on two idle cores: 24 s for asia-000, 17 s for paigow-igw) and cached in the user cache directory under a key
holding the game, style, ranking options, table format and a hash of the rules sources
(:data:`splitpoker.envs.rules.RULES_SOURCE_DIGEST`); written atomically and verified by SHA-256 on load
(:mod:`splitpoker.envs.rules.cache`). Commission does not enter: it does not change how hands rank.

``universe=K < 53`` builds only the hands made of cards ``0..K-1`` (indices ``< C(K, 7)``, a
prefix of the full table) — small tables for tests.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from numba import njit, prange

from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.cache import load_or_build
from splitpoker.envs.rules.enumeration import (
    for_each_hand_in,
    run_in_batches,
    split_tasks,
    top_two_tasks,
)
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.outcome import (
    N_LOW,
    N_MEDIUM,
    n_outcome_classes,
    outcome_index,
    setting_values,
)
from splitpoker.envs.rules.house_ways.registry import house_way_into, new_work_block
from splitpoker.envs.rules.ranking.combinatorics import BINOM

TABLE_FORMAT = 1
__all__ = ["N_LOW", "N_MEDIUM", "TABLE_FORMAT", "build_dealer_table", "dealer_table", "n_classes", "outcome_class",
           "table_key"]


def n_classes(game: Game) -> int:
    """The number of outcome classes of ``game`` (the exact solver's histogram length)."""
    return n_outcome_classes(game.game_id, int(game.engine.table.n_classes))


def table_key(game: Game, universe: int = 53) -> dict:
    rules = dataclasses.asdict(game.rules)
    rules.pop("commission", None)
    return {"what": "dealer table", "format": TABLE_FORMAT, "game": game.game, "style": game.style.value,
            "rules": rules, "universe": universe, "rules_source": RULES_SOURCE_DIGEST}


@njit(cache=True, inline="always")
def outcome_class(game_id, style_id, hand, rank_table, to_two, work):
    """The dealer's outcome class: its house-way setting's values as one index
    (:func:`splitpoker.envs.rules.games.outcome.outcome_index`); ``work``: the house way's work
    block (:func:`splitpoker.envs.rules.house_ways.registry.new_work_block`)."""
    s = house_way_into(style_id, hand, rank_table, to_two, work)
    v0, v1, v2 = setting_values(game_id, hand, s, rank_table)
    return outcome_index(game_id, v0, v1, v2)


@njit(cache=True)  # a visitor: never inline="always" (see splitpoker.envs.rules.enumeration)
def _store_class(hand, index, args):
    game_id, style_id, rank_table, to_two, out, work = args
    out[index] = outcome_class(game_id, style_id, hand, rank_table, to_two, work)


@njit(cache=True, parallel=True)
def _build_tasks(game_id, style_id, tasks, starts, rank_table, to_two, out):
    """The outcome class of every hand of ``tasks`` (rows of ``split_tasks``), one bin of rows per
    thread (:func:`~splitpoker.envs.rules.enumeration.thread_bins`)."""
    for b in prange(starts.shape[0] - 1):
        args = (game_id, style_id, rank_table, to_two, out, new_work_block())
        for k in range(starts[b], starts[b + 1]):
            for_each_hand_in(tasks[k], _store_class, args)


def build_dealer_table(game: Game, universe: int = 53, progress=None, n_batches: int = 100) -> np.ndarray:
    """Compute the table (no cache). ``progress(n)`` after each batch of hands."""
    if not 7 <= universe <= 53:
        raise ValueError(f"universe={universe!r}: expected 7..53 cards")
    out = np.empty(int(BINOM[universe, 7]), dtype=np.uint32)
    # rows of <= 250,000 hands: two threads' bins balance to within one row in every batch
    run_in_batches(split_tasks(top_two_tasks(universe)),
                   lambda rows, starts: _build_tasks(game.game_id, game.style_id, rows, starts, game.rank_table,
                                                     game.to_two, out),
                   progress, n_batches)
    return out


def dealer_table(game: Game, universe: int = 53, *, use_cache: bool = True, progress=None, log=None) -> np.ndarray:
    """The cached dealer table (built on first use; a corrupt or stale cache entry is rebuilt with
    a warning naming it). Memory-mapped, read-only."""
    name = f"dealer-{game.game}-{game.style.value}"
    t0 = time.perf_counter()
    # once a new table is saved, tables of older rules sources or formats can never load again: free the disk
    arr = load_or_build(name, table_key(game, universe), lambda: build_dealer_table(game, universe, progress),
                        mmap=True, use_cache=use_cache, log=log, prune_prefix="dealer-",
                        keep=lambda k: k.get("rules_source") == RULES_SOURCE_DIGEST and k.get("format") == TABLE_FORMAT)
    if log is not None:
        log(f"dealer table {name}: {arr.nbytes / 1e6:.0f} MB ready in {time.perf_counter() - t0:.1f} s")
    return arr
