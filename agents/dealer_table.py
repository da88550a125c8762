"""The dealer table: the dealer's house-way hand values for every seven-card hand.

For one (game, house-way style, ranking options), entry ``i`` holds the *outcome class* of the
hand whose colex rank (:mod:`envs.rules.combinatorics`) is ``i``: the values of the hands the
house way sets, packed into one integer so that the exact solver can histogram them directly:

* Asia Poker: ``(high * 91 + medium) * 13 + low`` (high: dense four-card rank, < 2,535 classes;
  medium: two-card value 0..90; low: 0..12) — fewer than 3.0 million classes;
* Pai Gow Poker: ``back * 91 + front`` (back: dense five-card rank < 7,463) — < 680,000 classes.

``uint32`` per hand: 154,143,080 × 4 bytes = 617 MB. Built once with numba in parallel over all
cores (about a minute per style on two cores) and cached in the user cache directory under a key
holding the game, style, ranking options, table format and a hash of the rules sources
(:data:`envs.rules.RULES_SOURCE_DIGEST`); written atomically and verified by SHA-256 on load
(:mod:`envs.rules.cache`). Commission does not enter: it does not change how hands rank.

``universe=K < 53`` builds only the hands made of cards ``0..K-1`` (indices ``< C(K, 7)``, a
prefix of the full table) — small tables for tests.
"""

from __future__ import annotations

import dataclasses
import time

import numba
import numpy as np
from numba import njit, prange

from envs.rules import RULES_SOURCE_DIGEST
from envs.rules.asia import asia_setting_ranks
from envs.rules.cache import load_or_build, prune
from envs.rules.combinatorics import BINOM
from envs.rules.game import Game
from envs.rules.house_way import house_way
from envs.rules.paigow import paigow_setting_ranks

TABLE_FORMAT = 1
N_MEDIUM = 91
N_LOW = 13


def n_classes(game: Game) -> int:
    n_rank = int(game.engine.table.n_classes)
    return n_rank * N_MEDIUM * N_LOW if game.game == "asia" else n_rank * N_MEDIUM


def table_key(game: Game, universe: int = 53) -> dict:
    rules = dataclasses.asdict(game.rules)
    rules.pop("commission", None)
    return {"what": "dealer table", "format": TABLE_FORMAT, "game": game.game, "style": game.style.value,
            "rules": rules, "universe": universe, "rules_source": RULES_SOURCE_DIGEST}


@njit(cache=True, inline="always")
def outcome_class(asia, style_id, hand, rank_table, to_two):
    s = house_way(style_id, hand, rank_table, to_two)
    if asia:
        h, m, lo = asia_setting_ranks(hand, s, rank_table)
        return (h * 91 + m) * 13 + lo
    b, f = paigow_setting_ranks(hand, s, rank_table)
    return b * 91 + f


@njit(cache=True, parallel=True)
def _build_tasks(asia, style_id, tasks, rank_table, to_two, out):
    for k in prange(tasks.shape[0]):
        hand = np.empty(7, dtype=np.int64)
        c5 = tasks[k, 0]
        c6 = tasks[k, 1]
        hand[5] = c5
        hand[6] = c6
        b56 = BINOM[c6, 7] + BINOM[c5, 6]
        for c4 in range(4, c5):
            hand[4] = c4
            b4 = b56 + BINOM[c4, 5]
            for c3 in range(3, c4):
                hand[3] = c3
                b3 = b4 + BINOM[c3, 4]
                for c2 in range(2, c3):
                    hand[2] = c2
                    b2 = b3 + BINOM[c2, 3]
                    for c1 in range(1, c2):
                        hand[1] = c1
                        b1 = b2 + BINOM[c1, 2]
                        for c0 in range(c1):
                            hand[0] = c0
                            out[b1 + c0] = outcome_class(asia, style_id, hand, rank_table, to_two)


def build_dealer_table(game: Game, universe: int = 53, progress=None, n_batches: int = 40) -> np.ndarray:
    """Compute the table (no cache). ``progress(n)`` after each batch of hands."""
    if not 7 <= universe <= 53:
        raise ValueError(f"universe={universe!r}: expected 7..53 cards")
    size = int(BINOM[universe, 7])
    out = np.empty(size, dtype=np.uint32)
    tasks = np.array([(c5, c6) for c6 in range(6, universe) for c5 in range(5, c6)], dtype=np.int64)
    tasks = tasks[np.argsort([-int(BINOM[c5, 5]) for c5, _ in tasks], kind="stable")]
    order = np.argsort(np.arange(len(tasks)) % n_batches, kind="stable")
    old = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    try:
        for batch in np.array_split(tasks[order], n_batches):
            if len(batch):
                _build_tasks(game.game == "asia", game.style_id, batch, game.rank_table, game.to_two, out)
                if progress is not None:
                    progress(int(sum(BINOM[c5, 5] for c5, _ in batch)))
    finally:
        numba.set_parallel_chunksize(old)
    return out


def dealer_table(game: Game, universe: int = 53, *, use_cache: bool = True, progress=None, log=None) -> np.ndarray:
    """The cached dealer table (built on first use; a corrupt or stale cache entry is rebuilt with
    a warning naming it). Memory-mapped, read-only."""
    name = f"dealer-{game.game}-{game.style.value}"
    if use_cache:  # tables of older rules sources or formats can never load again: free the disk
        prune("dealer-", lambda k: k.get("rules_source") == RULES_SOURCE_DIGEST and k.get("format") == TABLE_FORMAT,
              log=log)
    t0 = time.perf_counter()
    arr = load_or_build(name, table_key(game, universe), lambda: build_dealer_table(game, universe, progress),
                        mmap=True, use_cache=use_cache, log=log)
    if log is not None:
        log(f"dealer table {name}: {arr.nbytes / 1e6:.0f} MB ready in {time.perf_counter() - t0:.1f} s")
    return arr
