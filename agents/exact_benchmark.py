"""Timing of the exact solver against the naive method, for ``scripts/benchmark.py``."""

from __future__ import annotations

import math
import resource
import time

import numpy as np

from envs.rules.game import Game

from envs.solver.exact import ExactSolver, solve_naive


def run_exact_benchmark(args) -> dict:
    """Per style: dealer-table load/build time and size; seconds per exact solve (one core and all
    cores) over ``args.exact_hands`` seeded hands; the naive method (house way per dealer hand,
    all cores) timed on a 25-card sub-pool and extrapolated to the 53,524,680 dealer hands of a
    full solve; their ratio."""
    out = {}
    rng = np.random.default_rng(0)
    for game_name, style in (("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")):
        g = Game(game_name, style)
        t0 = time.perf_counter()
        solver = ExactSolver(g)
        table_seconds = time.perf_counter() - t0
        hands = [np.sort(rng.choice(53, 7, replace=False)) for _ in range(args.exact_hands)]
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
        pool = np.setdiff1d(np.arange(53), hands[0])[:25]
        solve_naive(g, hands[0], pool=pool[:9])  # compile
        t = time.perf_counter()
        naive = solve_naive(g, hands[0], pool=pool)
        naive_seconds = time.perf_counter() - t
        per_dealer_hand = naive_seconds / naive.n_dealer_hands
        naive_full = per_dealer_hand * math.comb(46, 7)
        out[style] = {
            "table_mb": solver.table.nbytes / 1e6, "table_ready_seconds": table_seconds,
            "solve_seconds_one_core": float(np.median(serial)), "solve_seconds_all_cores": float(np.median(parallel)),
            "target_seconds_per_hand_per_core": 0.5, "meets_target": float(np.median(serial)) <= 0.5,
            "naive_dealer_hands_timed": naive.n_dealer_hands, "naive_seconds_per_dealer_hand_all_cores": per_dealer_hand,
            "naive_seconds_per_full_solve_all_cores_extrapolated": naive_full,
            "speedup_vs_naive": naive_full / float(np.median(parallel)),
            "hands_timed": len(hands),
        }
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out
