"""What each interpretation of the Foxwoods house way is worth: the way as decided against one
alternative reading (:class:`~splitpoker.envs.rules.house_ways.paigow_foxwoods.Reading`), house
way against house way on the *same* deals, so the difference is measured paired.

Both the player and the dealer set their hands by the way under test, as in
``scripts/simulate.py``; the deals are those of :func:`splitpoker.envs.rules.house_ways.batch.house_way_round`
(same seed, same rounds). :func:`changed_hands` counts, over all C(53, 7) hands, those a
reading sets differently. Examples (the figures of docs/house_ways.md, paigow-foxwoods)::

    python -c "from splitpoker.envs.rules.house_ways.paigow_foxwoods_readings import compare_all; \\
               import json; print(json.dumps(compare_all(2_000_000, seed=23), indent=1))"
    python -c "from splitpoker.envs.rules.house_ways.paigow_foxwoods_readings import changed_hands; \\
               print(changed_hands())"
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.checks import check_int
from splitpoker.envs.rules.dealing import deal_round, sort7
from splitpoker.envs.rules.enumeration import for_each_hand, run_in_batches, top_two_tasks
from splitpoker.envs.rules.games.outcome import main_outcome
from splitpoker.envs.rules.games.paigow import PaiGowPoker, paigow_setting_ranks
from splitpoker.envs.rules.games.spec import PAIGOW_ID
from splitpoker.envs.rules.house_ways.check import Z95
from splitpoker.envs.rules.house_ways.paigow_foxwoods import (
    ALL_READINGS,
    Reading,
    house_way_foxwoods,
)

# per-thread accumulator columns
N_COLS = 9
_CHANGED, _SUM0, _SUM1, _DIFF, _DIFF2, _PUSH0, _PUSH1, _WIN0, _WIN1 = range(N_COLS)


@njit(cache=True)
def _round_result(hand_p, hand_d, readings, back_rank, back_to_two, commission):
    """(player's result, player's setting) of one round, both hands set with ``readings``."""
    sp = house_way_foxwoods(hand_p, back_rank, back_to_two, readings)
    sd = house_way_foxwoods(hand_d, back_rank, back_to_two, readings)
    pb, pf = paigow_setting_ranks(hand_p, sp, back_rank)
    db, df = paigow_setting_ranks(hand_d, sd, back_rank)
    return main_outcome(PAIGOW_ID, pb, pf, 0, db, df, 0, back_to_two, commission)[2], sp


@njit(cache=True, parallel=True)
def compare_rounds(readings, seed, start, n_rounds, back_rank, back_to_two, commission, out):
    """Rounds ``start .. start+n_rounds-1`` of run ``seed``, played as decided (0) and with
    ``readings``; adds to ``out[thread]``: hands set differently, result sums, the paired
    difference's sum and sum of squares, pushes and wins of each."""
    for i in prange(n_rounds):
        t = numba.get_thread_id()
        cards = np.empty(14, dtype=np.int64)
        deal_round(seed, start + i, 14, cards)
        sort7(cards, 0)
        sort7(cards, 7)
        x0, s0 = _round_result(cards[:7], cards[7:], 0, back_rank, back_to_two, commission)
        x1, s1 = _round_result(cards[:7], cards[7:], readings, back_rank, back_to_two, commission)
        d = x1 - x0
        out[t, _CHANGED] += s0 != s1
        out[t, _SUM0] += x0
        out[t, _SUM1] += x1
        out[t, _DIFF] += d
        out[t, _DIFF2] += d * d
        out[t, _PUSH0] += x0 == 0
        out[t, _PUSH1] += x1 == 0
        out[t, _WIN0] += x0 > 0
        out[t, _WIN1] += x1 > 0


def compare(readings: int, n_rounds: int, seed: int = 1, chunk: int = 2_000_000, rules=None) -> dict:
    """The way as decided against ``readings`` over ``n_rounds`` rounds: house edges, push rates,
    the change of the house edge (alternative minus decided) with its paired 95% CI, and the share
    of player hands set differently."""
    n_rounds = check_int("n_rounds", n_rounds, 2, 2**62)
    if int(readings) & ~sum(int(r) for r in ALL_READINGS) or int(readings) <= 0:
        raise ValueError(f"readings={readings!r}: expected a non-empty combination of {[r.name for r in Reading]}")
    game = PaiGowPoker(rules)
    out = np.zeros((numba.config.NUMBA_NUM_THREADS, N_COLS))
    done = 0
    while done < n_rounds:
        n = min(chunk, n_rounds - done)
        compare_rounds(int(readings), int(seed), done, n, game.back_rank, game.back_to_two,
                       float(game.rules.commission), out)
        done += n
    tot = out.sum(axis=0)
    n = float(n_rounds)
    mean_d = tot[_DIFF] / n
    var_d = max(tot[_DIFF2] / n - mean_d * mean_d, 0.0) * n / (n - 1)
    half = Z95 * math.sqrt(var_d / n)
    # the house edge is minus the player's mean result: its change is minus the mean difference
    return {
        "reading": Reading(int(readings)).name, "readings": int(readings), "rounds": int(n_rounds), "seed": int(seed),
        "hands_set_differently": tot[_CHANGED] / n,
        "house_edge_decided": -tot[_SUM0] / n, "house_edge_alternative": -tot[_SUM1] / n,
        "house_edge_change": -mean_d, "house_edge_change_ci95": [-mean_d - half, -mean_d + half],
        "push_rate_decided": tot[_PUSH0] / n, "push_rate_alternative": tot[_PUSH1] / n,
        "win_rate_decided": tot[_WIN0] / n, "win_rate_alternative": tot[_WIN1] / n,
    }


def compare_all(n_rounds: int, seed: int = 1, rules=None) -> list[dict]:
    """:func:`compare` for every alternative reading, one at a time."""
    return [compare(int(r), n_rounds, seed, rules=rules) for r in ALL_READINGS]


@njit(cache=True)  # a visitor: never inline="always" (see splitpoker.envs.rules.enumeration)
def _count_changed(hand, index, args):
    back_rank, back_to_two, readings, counts, t = args
    decided = house_way_foxwoods(hand, back_rank, back_to_two, 0)
    for k in range(readings.shape[0]):
        if house_way_foxwoods(hand, back_rank, back_to_two, readings[k]) != decided:
            counts[t, k] += 1


@njit(cache=True, parallel=True)
def changed_hands_tasks(tasks, starts, back_rank, back_to_two, readings, counts):
    """``counts[thread, k]`` += the hands of ``tasks`` that ``readings[k]`` sets differently from
    the way as decided (one bin of rows per thread: :func:`~splitpoker.envs.rules.enumeration.thread_bins`)."""
    for b in prange(starts.shape[0] - 1):
        args = (back_rank, back_to_two, readings, counts, numba.get_thread_id())
        for i in range(starts[b], starts[b + 1]):
            for_each_hand(tasks[i, 0], tasks[i, 1], _count_changed, args)


def changed_hands(readings=ALL_READINGS, rules=None, progress=None) -> dict:
    """Over all 154,143,080 hands: how many each reading sets differently from the way as decided
    (a setting with other cards in front)."""
    readings = np.array([int(r) for r in readings], dtype=np.int64)
    game = PaiGowPoker(rules)
    counts = np.zeros((numba.config.NUMBA_NUM_THREADS, len(readings)), dtype=np.int64)
    run_in_batches(top_two_tasks(53), lambda rows, starts: changed_hands_tasks(rows, starts, game.back_rank, game.back_to_two,
                                                                         readings, counts), progress)
    return {Reading(int(r)).name: int(n) for r, n in zip(readings, counts.sum(axis=0), strict=True)}


__all__ = ["changed_hands", "changed_hands_tasks", "compare", "compare_all", "compare_rounds"]
