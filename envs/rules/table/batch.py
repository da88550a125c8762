"""Table rounds in bulk (numba): every taken seat plays the house way, every seat bets one unit on
the main bet and one on the bonus, and every seat takes Envy where the table has it.

Round ``i`` of a run seeded by ``seed`` is dealt by :func:`splitpoker.envs.rules.table.table.deal_table` (the same
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

``sums[t, 2K]`` = sum of (value 1 × value 3), for the covariance of the bonus and Envy results
(the Fortune wager's combined return). ``lines[t, l]`` counts seat hands paying Envy line ``l`` (the last column: hands paying none).
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.bonus.features import N_FEATURE_CODES
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.dealing import MASK63
from splitpoker.envs.rules.house_ways.check import Z95
from splitpoker.envs.rules.play.rounds import SCRATCH_ROWS, SCRATCH_WIDTH
from splitpoker.envs.rules.table.table import N_SPOTS, TableRules, deal_table, settle_table

N_STATS = 4


@njit(cache=True, parallel=True)
def simulate_table_rounds(game_id, style_id, rank, to_two, cat5, commission, n_seats, seed, start, n_rounds,
                          line_of_code, line_odds, bonus_cap, envy_amount, envy_line, sums, lines):
    """House way at every seat of ``n_seats`` (seats 1..n) over rounds ``start .. start+n_rounds-1``."""
    n_lines = lines.shape[1] - 1
    has_envy = n_lines > 0
    for i in prange(n_rounds):
        t = numba.get_thread_id()
        hands = np.empty((N_SPOTS, 7), dtype=np.int64)
        scratch = np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), dtype=np.int64)
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
        settle_table(game_id, style_id, rank, to_two, cat5, commission, hands, settings, active, main, bonus, envy,
                     line_of_code, line_odds, bonus_cap, envy_amount, o_set, o_foul, o_won, o_main, o_bonus, o_code,
                     o_envy, o_hits, scratch)
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
        sums[t, 2 * N_STATS] += vals[1] * vals[3]


def _ci(mean: float, var: float, n: int) -> dict:
    se = math.sqrt(max(var, 0.0) / n)
    half = Z95 * se
    return {"mean": mean, "ci95": [mean - half, mean + half], "stderr": se}


def simulate_table(rules: TableRules, n_seats: int, n_rounds: int, seed: int = 0, progress=None,
                   chunk: int = 500_000, fortune_wager: float = 5.0) -> dict:
    """Simulate ``n_rounds`` table rounds with ``n_seats`` house-way seats; means and 95% CIs.

    Amounts: main and bonus per unit wagered; Envy in Envy units (``rules.envy_unit`` chips each);
    ``fortune_with_envy_chips``: a ``fortune_wager`` bonus bet plus its Envy, in chips per seat.
    ``progress(n)`` after each chunk. Ctrl-C stops after the current chunk and reports the rounds
    done (``"interrupted": true``)."""
    if not is_integer(n_seats) or not 1 <= n_seats <= N_SPOTS - 1:
        raise ValueError(f"seats={n_seats!r}: expected 1..{N_SPOTS - 1}")
    if not is_integer(n_rounds) or n_rounds < 1:
        raise ValueError(f"rounds={n_rounds!r}: expected a positive integer")
    a = rules.arrays()
    nt = numba.config.NUMBA_NUM_THREADS
    chunks = []
    et = rules.envy_paytable
    n_lines = len(et.lines) if et is not None else 0
    envy_line = et.line_of_code.astype(np.int64) if et is not None else np.full(N_FEATURE_CODES, -1, dtype=np.int64)
    envy_units = a["envy_amount"] / rules.envy_unit  # the kernel's Envy in units
    seed = int(seed) & MASK63
    args = (rules.spec.game_id, a["style_id"], a["rank"], a["to_two"], a["cat5"], a["commission"], int(n_seats))
    simulate_table_rounds(*args, seed, 0, 1, a["line_of_code"], a["line_odds"], a["bonus_cap"], envy_units, envy_line,  # compile first
                          np.zeros((nt, 2 * N_STATS + 1)), np.zeros((nt, n_lines + 1), dtype=np.int64))
    t0 = time.perf_counter()
    done = 0
    interrupted = False
    try:
        while done < n_rounds:
            n = min(chunk, n_rounds - done)
            sums = np.zeros((nt, 2 * N_STATS + 1))
            lines = np.zeros((nt, n_lines + 1), dtype=np.int64)
            simulate_table_rounds(*args, seed, done, n, a["line_of_code"], a["line_odds"], a["bonus_cap"], envy_units, envy_line,
                                  sums, lines)
            chunks.append((n, sums.sum(axis=0), lines.sum(axis=0)))  # one statement: a chunk counts whole or not
            done = sum(c[0] for c in chunks)
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - t0
    done = sum(c[0] for c in chunks)
    if done == 0:
        raise KeyboardInterrupt("interrupted before the first chunk finished")
    tot = sum(c[1] for c in chunks)
    counts = sum(c[2] for c in chunks)
    names = ("main_per_unit", "bonus_per_unit", "envy_units_per_other_seat", "envy_units_per_seat")
    stats = {}
    means = tot[:N_STATS] / done
    var = (tot[N_STATS: 2 * N_STATS] / done - means**2) * done / max(done - 1, 1)
    for k, name in enumerate(names):
        stats[name] = _ci(float(means[k]), float(var[k]), done)
    cov = (tot[2 * N_STATS] / done - means[1] * means[3]) * done / max(done - 1, 1)
    w, u = float(fortune_wager), rules.envy_unit
    stats["fortune_with_envy_chips"] = _ci(w * means[1] + u * means[3], w * w * var[1] + u * u * var[3] + 2 * w * u * cov, done)
    out = {"game": rules.game, "house_way": rules.house_way, "seats": int(n_seats), "rounds": int(done),
           "rounds_requested": int(n_rounds), "interrupted": interrupted, "seed": seed, "fortune_wager": w,
           "envy_unit": u, "stats": stats, "seconds": seconds,
           "rounds_per_second": done / seconds if seconds else math.nan}
    if et is not None:
        out["envy_line_hands"] = {ln.key: int(counts[i]) for i, ln in enumerate(et.lines)}
        out["envy_line_hands"]["none"] = int(counts[-1])
    return out
