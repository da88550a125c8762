"""Batch kernels over many hands (numba, parallel): the exhaustive house-way check, house way vs
house way simulation, and plain batch setting.

Exhaustive work is split into tasks by the two largest cards ``(c5, c6)`` of a sorted 7-card hand
(1,128 tasks, :mod:`splitpoker.envs.rules.enumeration`), dealt to one bin per thread by hand
count (:func:`~splitpoker.envs.rules.enumeration.thread_bins`); each thread accumulates into its own row of the count arrays (``numba.get_thread_id()``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.dealing import deal_round, sort7
from splitpoker.envs.rules.enumeration import for_each_hand_in
from splitpoker.envs.rules.games.outcome import (
    main_outcome,
    n_settings,
    setting_fouled,
    setting_values,
)
from splitpoker.envs.rules.house_ways.registry import (
    STYLE_GAME_ID,
    house_way,
    house_way_with_rule,
    house_way_with_rule_into,
    new_work_block,
)


@njit(cache=True)  # a visitor: never inline="always" (see splitpoker.envs.rules.enumeration)
def _check_hand(hand, index, args):
    style_id, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts, t, work = args
    s, r = house_way_with_rule_into(style_id, hand, rank_table, to_two, work)
    game_id = STYLE_GAME_ID[style_id]
    if s < 0 or s >= n_settings(game_id) or r < 0 or r >= n_rules:
        error_counts[t] += 1
        return
    v0, v1, v2 = setting_values(game_id, hand, s, rank_table)
    if setting_fouled(game_id, v0, v1, v2, to_two):
        foul_counts[t, r] += 1
    rule_counts[t, r] += 1


@njit(cache=True, parallel=True)
def exhaustive_check_tasks(style_id, tasks, starts, rank_table, to_two, n_rules, rule_counts, foul_counts,
                           error_counts):
    """Run the house way on every 7-card hand of ``tasks`` (rows of ``split_tasks``, one bin of
    rows per thread: :func:`~splitpoker.envs.rules.enumeration.thread_bins`); count hands per
    rule, fouls per rule and errors (a setting or rule id out of range), per thread (the house
    way's work arrays: one block per bin)."""
    for b in prange(starts.shape[0] - 1):
        args = (style_id, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts, numba.get_thread_id(),
                new_work_block())
        for k in range(starts[b], starts[b + 1]):
            for_each_hand_in(tasks[k], _check_hand, args)


@njit(cache=True)
def house_way_round(style_id, seed, r, rank_table, to_two, commission, cards):
    """Round ``r`` of run ``seed``, house way against house way: deals 7 + 7 cards into ``cards``
    (player ``cards[:7]``, dealer ``cards[7:]``, each sorted) and returns the player's main result
    per unit wagered (a house-way setting never fouls: the exhaustive check)."""
    deal_round(seed, r, 14, cards)
    sort7(cards, 0)
    sort7(cards, 7)
    player = cards[:7]
    dealer = cards[7:]
    game_id = STYLE_GAME_ID[style_id]
    p0, p1, p2 = setting_values(game_id, player, house_way(style_id, player, rank_table, to_two), rank_table)
    d0, d1, d2 = setting_values(game_id, dealer, house_way(style_id, dealer, rank_table, to_two), rank_table)
    return main_outcome(game_id, p0, p1, p2, d0, d1, d2, to_two, commission)[2]


@njit(cache=True, parallel=True)
def simulate_rounds(style_id, seed, start, n_rounds, rank_table, to_two, commission, outcomes, sums):
    """Player house way vs dealer house way over rounds ``start .. start+n_rounds-1`` of run ``seed``.

    Per thread: ``outcomes[t, 0..2]`` = player wins / pushes / losses, ``sums[t, 0..1]`` = sum and
    sum of squares of the player's result per unit."""
    for i in prange(n_rounds):
        t = numba.get_thread_id()
        cards = np.empty(14, dtype=np.int64)
        x = house_way_round(style_id, seed, start + i, rank_table, to_two, commission, cards)
        if x > 0:
            outcomes[t, 0] += 1
        elif x == 0:
            outcomes[t, 1] += 1
        else:
            outcomes[t, 2] += 1
        sums[t, 0] += x
        sums[t, 1] += x * x


@njit(cache=True, parallel=True)
def house_way_batch(style_id, hands, rank_table, to_two, out):
    """``out[i]`` = house-way setting of the sorted hand ``hands[i]`` (parallel)."""
    for i in prange(hands.shape[0]):
        out[i] = house_way(style_id, hands[i], rank_table, to_two)


@njit(cache=True, parallel=True)
def house_way_batch_with_rule(style_id, hands, rank_table, to_two, out, rules_out):
    """:func:`house_way_batch` that also writes each hand's rule id to ``rules_out[i]``
    (``style.rule_names[rules_out[i]]`` names it)."""
    for i in prange(hands.shape[0]):
        out[i], rules_out[i] = house_way_with_rule(style_id, hands[i], rank_table, to_two)


@njit(cache=True)
def house_way_batch_serial(style_id, hands, rank_table, to_two, out):
    """Single-threaded :func:`house_way_batch` (for per-core speed measurements)."""
    for i in range(hands.shape[0]):
        out[i] = house_way(style_id, hands[i], rank_table, to_two)


@njit(cache=True, parallel=True)
def random_hands(seed, n, out):
    """``out[i]`` = the sorted 7 cards of round ``i`` of run ``seed``."""
    for i in prange(n):
        deal_round(seed, i, 7, out[i])
        sort7(out[i], 0)
