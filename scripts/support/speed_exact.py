"""Timing of the exact solver against the naive method (the ``exact`` section of
``scripts/benchmark.py``).

Per house-way style: the dealer table's load (or build) time and size; the median seconds per
exact solve on one core and on all cores over ``n_hands`` seeded hands; the naive method (the
house way of every dealer hand, all cores) timed on a 25-card sub-pool of the first hand and
extrapolated to the C(46, 7) = 53,524,680 dealer hands of a full solve; their ratio.
"""

from __future__ import annotations

import math
import resource
import time

import numpy as np

from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver.exact import ExactSolver, solve_naive

STYLES = (("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw"))
TARGET_SECONDS_PER_HAND = 0.5  # one core, the solver's design target
NAIVE_POOL = 25  # cards of the sub-pool the naive method is timed on: C(25, 7) = 480,700 dealer hands


def time_style(game: Game, n_hands: int, rng: np.random.Generator) -> dict:
    """The exact-solver timings of one style (see the module docstring)."""
    if not isinstance(n_hands, (int, np.integer)) or isinstance(n_hands, bool) or n_hands < 1:
        raise ValueError(f"n_hands={n_hands!r}: expected an integer >= 1 (hands to time)")
    t0 = time.perf_counter()
    solver = ExactSolver(game)
    table_seconds = time.perf_counter() - t0
    hands = [np.sort(rng.choice(53, 7, replace=False)) for _ in range(n_hands)]
    solver.solve(hands[0])
    solver.solve(hands[0], parallel=False)  # compile both paths
    serial, parallel = [], []
    for h in hands:
        t = time.perf_counter()
        solver.solve(h, parallel=False)
        serial.append(time.perf_counter() - t)
        t = time.perf_counter()
        solver.solve(h)
        parallel.append(time.perf_counter() - t)
    pool = np.setdiff1d(np.arange(53), hands[0])[:NAIVE_POOL]
    solve_naive(game, hands[0], pool=pool[:9])  # compile
    t = time.perf_counter()
    naive = solve_naive(game, hands[0], pool=pool)
    naive_seconds = time.perf_counter() - t
    per_dealer_hand = naive_seconds / naive.n_dealer_hands
    naive_full = per_dealer_hand * math.comb(46, 7)
    one_core = float(np.median(serial))
    return {
        "table_mb": solver.table.nbytes / 1e6, "table_ready_seconds": table_seconds,
        "solve_seconds_one_core": one_core, "solve_seconds_all_cores": float(np.median(parallel)),
        "target_seconds_per_hand_per_core": TARGET_SECONDS_PER_HAND, "meets_target": one_core <= TARGET_SECONDS_PER_HAND,
        "naive_dealer_hands_timed": naive.n_dealer_hands, "naive_seconds_per_dealer_hand_all_cores": per_dealer_hand,
        "naive_seconds_per_full_solve_all_cores_extrapolated": naive_full,
        "speedup_vs_naive": naive_full / float(np.median(parallel)),
        "hands_timed": len(hands),
    }


def exact_benchmark(n_hands: int = 3, seed: int = 0) -> dict:
    """:func:`time_style` for every style (hands drawn from one generator seeded ``seed``, in the
    order of :data:`STYLES`), and the process's peak resident memory in MB."""
    rng = np.random.default_rng(seed)
    out = {style: time_style(Game(game, style), n_hands, rng) for game, style in STYLES}
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out
