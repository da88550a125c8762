"""How the exhaustive passes share their work among threads, side by side (the ``schedule``
section of ``scripts/benchmark.py``).

The same hands (the first ``n_batches`` of the house-way proof's 40 batches of rows, the largest
rows, as :func:`~splitpoker.envs.rules.house_ways.check.exhaustive_check` runs them) go through
the same visitor twice, interleaved ``repeats`` times:

* ``prange_over_rows``: ``for k in prange(rows)``, the schedule before thread bins: numba gives
  each thread one contiguous block of equal row *count* (``set_parallel_chunksize`` does not
  change that on the omp and workqueue layers, numba issue 8280), and the rows come largest first;
* ``thread_bins``: one bin of rows per thread, balanced by hand count
  (:func:`~splitpoker.envs.rules.enumeration.thread_bins`), the schedule of every exhaustive pass.

Per schedule: hands per second and the process's CPU seconds per wall second (2.0 = both of two
threads busy throughout); the ratio of their rates; and whether both counted the same hands, rules
and fouls.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.checks import check_int
from splitpoker.envs.rules.enumeration import (
    binned_batches,
    for_each_hand_in,
    hands_per_row,
    split_tasks,
    top_two_tasks,
)
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import _check_hand, exhaustive_check_tasks
from splitpoker.envs.rules.house_ways.registry import new_work_block

N_BATCHES = 40  # exhaustive_check's batches


@njit(cache=True, parallel=True)
def _check_rows_prange(style_id, tasks, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts):
    """:func:`~splitpoker.envs.rules.house_ways.batch.exhaustive_check_tasks` with a ``prange``
    over the rows (the schedule this section compares against)."""
    for k in prange(tasks.shape[0]):
        args = (style_id, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts, numba.get_thread_id(),
                new_work_block())
        for_each_hand_in(tasks[k], _check_hand, args)


def schedule_benchmark(style: str = "paigow-foxwoods", n_batches: int = 4, repeats: int = 3) -> dict:
    """Time both schedules on the first ``n_batches`` batches of ``style``'s exhaustive check."""
    check_int("n_batches", n_batches, 1, N_BATCHES)
    check_int("repeats", repeats, 1, 1000)
    game = _game(style)
    binned = list(binned_batches(split_tasks(top_two_tasks(53)), N_BATCHES))[:n_batches]
    # the rows in their batch order, largest first, as a prange over a batch took them
    batches = [rows[np.argsort(-hands_per_row(rows), kind="stable")] for rows, _, _ in binned]
    n_rules = len(game.style.rule_names)
    nt = numba.config.NUMBA_NUM_THREADS
    hands = sum(h for _, _, h in binned)

    def counts():
        return (np.zeros((nt, n_rules), dtype=np.int64), np.zeros((nt, n_rules), dtype=np.int64),
                np.zeros(nt, dtype=np.int64))

    def by_rows(c):
        for b in batches:
            _check_rows_prange(game.style_id, b, game.rank_table, game.to_two, n_rules, *c)

    def by_bins(c):
        for b, starts, _ in binned:
            exhaustive_check_tasks(game.style_id, b, starts, game.rank_table, game.to_two, n_rules, *c)

    runs = {"prange_over_rows": by_rows, "thread_bins": by_bins}
    for run in runs.values():  # compile, and warm the caches
        run(counts())
    timing = {name: {"seconds": [], "cpu_seconds": []} for name in runs}
    totals = {}
    for _ in range(repeats):
        for name, run in runs.items():
            c = counts()
            t0, p0 = time.perf_counter(), time.process_time()
            run(c)
            timing[name]["seconds"].append(time.perf_counter() - t0)
            timing[name]["cpu_seconds"].append(time.process_time() - p0)
            totals[name] = [x.sum(axis=0).tolist() for x in c]
    out = {"style": style, "batches": n_batches, "hands": hands, "repeats": repeats, "numba_threads": nt,
           "threading_layer": numba.threading_layer()}
    for name, t in timing.items():
        wall, cpu = float(np.median(t["seconds"])), float(np.median(t["cpu_seconds"]))
        out[name] = {"hands_per_second": hands / wall, "median_seconds": wall, "cpu_per_wall": cpu / wall,
                     "seconds": t["seconds"]}
    out["speedup"] = out["thread_bins"]["hands_per_second"] / out["prange_over_rows"]["hands_per_second"]
    out["same_counts"] = totals["prange_over_rows"] == totals["thread_bins"]
    return out


def _game(style: str) -> Game:
    from splitpoker.envs.rules.house_ways.registry import HouseWayStyle

    names = [s.value for s in HouseWayStyle]
    if style not in names:
        raise ValueError(f"style={style!r}: expected one of {names}")
    return Game(HouseWayStyle(style).game, style)
