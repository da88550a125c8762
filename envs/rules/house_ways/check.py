"""Exhaustive proof that a house way never fouls, and house way vs house way simulation —
Python drivers over :mod:`splitpoker.envs.rules.house_ways.batch` (progress callbacks, validated inputs)."""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.dealing import MASK63
from splitpoker.envs.rules.enumeration import run_in_batches, split_tasks, top_two_tasks
from splitpoker.envs.rules.house_ways.batch import exhaustive_check_tasks, simulate_rounds
from splitpoker.envs.rules.ranking.combinatorics import BINOM

TOTAL_HANDS = int(BINOM[53, 7])
#: the two-sided 95% normal quantile
Z95 = 1.959963984540054


def exhaustive_check(game, progress=None, n_batches: int = 40, max_tasks: int | None = None) -> dict:
    """Run ``game``'s (a :class:`~splitpoker.envs.rules.game.Game`) house way on every seven-card hand (or the first ``max_tasks`` tasks, for
    smoke tests): hands per rule, fouls per rule, errors. ``progress(n)`` after each batch."""
    tasks = split_tasks(top_two_tasks(53))  # rows of <= 250,000 hands: a Ctrl-C is seen within a batch
    if max_tasks is not None:
        tasks = tasks[-max_tasks:]  # the smallest tasks
    names = game.style.rule_names
    nt = numba.config.NUMBA_NUM_THREADS
    rules = np.zeros((nt, len(names)), dtype=np.int64)
    fouls = np.zeros((nt, len(names)), dtype=np.int64)
    errors = np.zeros(nt, dtype=np.int64)
    t0 = time.perf_counter()
    run_in_batches(tasks, lambda rows, starts: exhaustive_check_tasks(game.style_id, rows, starts, game.rank_table, game.to_two,
                                                               len(names), rules, fouls, errors), progress, n_batches)
    seconds = time.perf_counter() - t0
    per_rule = rules.sum(axis=0)
    per_rule_fouls = fouls.sum(axis=0)
    hands = int(per_rule.sum() + errors.sum())
    return {
        "style": game.style.value, "game": game.game, "rules_options": repr(game.rules),
        "hands": hands, "exhaustive": max_tasks is None, "expected_hands": TOTAL_HANDS if max_tasks is None else hands,
        "fouls": int(per_rule_fouls.sum()), "errors": int(errors.sum()),
        "rules": {name: {"hands": int(per_rule[i]), "fouls": int(per_rule_fouls[i])} for i, name in enumerate(names)},
        "seconds": seconds, "hands_per_second": hands / seconds if seconds else math.nan,
    }


def _rate_ci95(k: int, n: int) -> list[float]:
    """95% normal-approximation interval of a rate ``k / n`` (binomial standard error)."""
    r = k / n
    half = Z95 * math.sqrt(r * (1.0 - r) / n)
    return [r - half, r + half]


def simulate(game, n_rounds: int, seed: int = 0, progress=None, chunk: int = 2_000_000) -> dict:
    """House way (player) vs house way (dealer) of ``game`` (a :class:`~splitpoker.envs.rules.game.Game`)
    over ``n_rounds`` dealt rounds: win, push and loss rates, the player and house edges, each with
    its 95% CI."""
    if not is_integer(n_rounds) or n_rounds < 1:
        raise ValueError(f"rounds={n_rounds!r}: expected a positive integer")
    nt = numba.config.NUMBA_NUM_THREADS
    outcomes = np.zeros((nt, 3), dtype=np.int64)
    sums = np.zeros((nt, 2))
    commission = getattr(game.rules, "commission", 0.0)
    seed = int(seed) & MASK63
    t0 = time.perf_counter()
    done = 0
    while done < n_rounds:
        n = min(chunk, n_rounds - done)
        simulate_rounds(game.style_id, seed, done, n, game.rank_table, game.to_two, commission, outcomes, sums)
        done += n
        if progress is not None:
            progress(n)
    seconds = time.perf_counter() - t0
    w, p, lost = (int(x) for x in outcomes.sum(axis=0))
    s, s2 = sums.sum(axis=0)
    mean = s / n_rounds
    var = max(s2 / n_rounds - mean * mean, 0.0) * n_rounds / max(n_rounds - 1, 1)
    half = Z95 * math.sqrt(var / n_rounds)
    return {
        "game": game.game, "style": game.style.value, "rules_options": repr(game.rules),
        "rounds": int(n_rounds), "seed": seed,
        "win_rate": w / n_rounds, "push_rate": p / n_rounds, "loss_rate": lost / n_rounds,
        "win_rate_ci95": _rate_ci95(w, n_rounds), "push_rate_ci95": _rate_ci95(p, n_rounds),
        "loss_rate_ci95": _rate_ci95(lost, n_rounds),
        "player_edge": mean, "player_edge_ci95": [mean - half, mean + half], "house_edge": -mean,
        "house_edge_ci95": [-mean - half, -mean + half],
        "seconds": seconds, "rounds_per_second": n_rounds / seconds if seconds else math.nan,
    }
