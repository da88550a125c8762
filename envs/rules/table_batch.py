"""Table rounds in bulk (numba): every taken seat plays the house way, every seat bets one unit on
the main bet and one on the bonus, and every seat takes Envy where the table has it.

Round ``i`` of a run seeded by ``seed`` is dealt by :func:`envs.rules.table.deal_table` (the same
counter-based stream as every batch job), so results do not depend on threads or chunking. Per
round, the kernel records the seat-averaged results (rounds are independent, so their variance
gives honest confidence intervals even though seats at one table are not):

====  ===========================================================================
k     per-round value (``sums[t, k]`` = sum, ``sums[t, K + k]`` = sum of squares)
====  ===========================================================================
0     main result per unit wagered, mean over the taken seats
1     bonus (Fortune / seed-000) result per unit wagered, mean over the seats
2     Envy units collected per seat per other seat (0 with one seat)
3     Envy units collected per seat (all other seats together)
====  ===========================================================================

``lines[t, l]`` counts seat hands paying Envy line ``l`` (the last column: hands paying none).
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np
from numba import njit, prange

from .table import N_SPOTS, TableRules, deal_table, settle_table

N_STATS = 4


@njit(cache=True, parallel=True)
def simulate_table_rounds(paigow, style_id, rank, to_two, cat5, commission, n_seats, seed, start, n_rounds,
                          bonus_odds, bonus_cap, envy_amount, envy_line, sums, lines):
    """House way at every seat of ``n_seats`` (seats 1..n) over rounds ``start .. start+n_rounds-1``."""
    n_lines = lines.shape[1] - 1
    has_envy = n_lines > 0
    for i in prange(n_rounds):
        t = numba.get_thread_id()
        hands = np.empty((N_SPOTS, 7), dtype=np.int64)
        deal_table(seed, start + i, hands)
        settings = np.full(N_SPOTS, -1, dtype=np.int64)
        active = np.zeros(N_SPOTS, dtype=np.bool_)
        main = np.zeros(N_SPOTS)
        bonus = np.zeros(N_SPOTS)
        envy = np.zeros(N_SPOTS, dtype=np.bool_)
        for s in range(1, n_seats + 1):
            active[s] = True
            main[s] = 1.0
            bonus[s] = 1.0
            envy[s] = has_envy
        o_set = np.empty(N_SPOTS, dtype=np.int64)
        o_foul = np.empty(N_SPOTS, dtype=np.bool_)
        o_won = np.empty(N_SPOTS, dtype=np.int64)
        o_main = np.empty(N_SPOTS)
        o_bonus = np.empty(N_SPOTS)
        o_code = np.empty(N_SPOTS, dtype=np.int64)
        o_envy = np.empty(N_SPOTS)
        o_hits = np.empty(N_SPOTS, dtype=np.int64)
        settle_table(paigow, style_id, rank, to_two, cat5, commission, hands, settings, active, main, bonus, envy,
                     bonus_odds, bonus_cap, envy_amount, o_set, o_foul, o_won, o_main, o_bonus, o_code, o_envy, o_hits)
        m = 0.0
        b = 0.0
        e = 0.0
        for s in range(1, n_seats + 1):
            m += o_main[s]
            b += o_bonus[s]
            e += o_envy[s]
            if has_envy:
                ln = envy_line[o_code[s]]
                lines[t, ln if ln >= 0 else n_lines] += 1
        vals = (m / n_seats, b / n_seats, e / n_seats / (n_seats - 1) if n_seats > 1 else 0.0, e / n_seats)
        for k in range(N_STATS):
            sums[t, k] += vals[k]
            sums[t, N_STATS + k] += vals[k] * vals[k]


def simulate_table(rules: TableRules, n_seats: int, n_rounds: int, seed: int = 0, progress=None,
                   chunk: int = 1_000_000) -> dict:
    """Simulate ``n_rounds`` table rounds with ``n_seats`` house-way seats; means and 95% CIs.

    Amounts: main and bonus per unit wagered; Envy in Envy units (``rules.envy_unit`` chips each).
    ``progress(n)`` after each chunk."""
    if isinstance(n_seats, bool) or not isinstance(n_seats, (int, np.integer)) or not 1 <= n_seats <= N_SPOTS - 1:
        raise ValueError(f"seats={n_seats!r}: expected 1..{N_SPOTS - 1}")
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, (int, np.integer)) or n_rounds < 1:
        raise ValueError(f"rounds={n_rounds!r}: expected a positive integer")
    a = rules.arrays()
    nt = numba.config.NUMBA_NUM_THREADS
    sums = np.zeros((nt, 2 * N_STATS))
    et = rules.envy_paytable
    n_lines = len(et.lines) if et is not None else 0
    lines = np.zeros((nt, n_lines + 1), dtype=np.int64)
    envy_line = et.line_of_code.astype(np.int64) if et is not None else np.full(1 << 17, -1, dtype=np.int64)
    envy_units = a["envy_amount"] / rules.envy_unit  # the kernel's Envy in units
    seed = int(seed) & ((1 << 63) - 1)
    t0 = time.perf_counter()
    done = 0
    while done < n_rounds:
        n = min(chunk, n_rounds - done)
        simulate_table_rounds(rules.game == "paigow", a["style_id"], a["rank"], a["to_two"], a["cat5"], a["commission"],
                              int(n_seats), seed, done, n, a["bonus_odds"], a["bonus_cap"], envy_units, envy_line,
                              sums, lines)
        done += n
        if progress is not None:
            progress(n)
    seconds = time.perf_counter() - t0
    tot = sums.sum(axis=0)
    names = ("main_per_unit", "bonus_per_unit", "envy_units_per_other_seat", "envy_units_per_seat")
    stats = {}
    for k, name in enumerate(names):
        mean = tot[k] / n_rounds
        var = max(tot[N_STATS + k] / n_rounds - mean * mean, 0.0) * n_rounds / max(n_rounds - 1, 1)
        half = 1.959963984540054 * math.sqrt(var / n_rounds)
        stats[name] = {"mean": mean, "ci95": [mean - half, mean + half], "stderr": math.sqrt(var / n_rounds)}
    out = {"game": rules.game, "house_way": rules.house_way, "seats": int(n_seats), "rounds": int(n_rounds),
           "seed": seed, "stats": stats, "seconds": seconds,
           "rounds_per_second": n_rounds / seconds if seconds else math.nan}
    if et is not None:
        counts = lines.sum(axis=0)
        out["envy_line_hands"] = {ln.key: int(counts[i]) for i, ln in enumerate(et.lines)}
        out["envy_line_hands"]["none"] = int(counts[-1])
    return out
