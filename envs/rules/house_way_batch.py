"""Batch kernels over many hands (numba, parallel): the exhaustive house-way check, house way vs
house way simulation, and plain batch setting.

Exhaustive work is split into tasks by the two largest cards ``(c5, c6)`` of a sorted 7-card hand
(1,128 tasks, :mod:`envs.rules.enumeration`), dealt to threads dynamically; each thread
accumulates into its own row of the count arrays (``numba.get_thread_id()``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from .asia import (
    N_ASIA_SETTINGS,
    asia_hands_won,
    asia_is_fouled,
    asia_main_result,
    asia_setting_ranks,
)
from .dealing import deal_round, sort7
from .enumeration import for_each_hand
from .house_way import PAIGOW_IGW_ID, house_way, house_way_with_rule
from .paigow import (
    N_PAIGOW_SETTINGS,
    paigow_hands_won,
    paigow_is_fouled,
    paigow_main_result,
    paigow_setting_ranks,
)


@njit(cache=True)  # a visitor: never inline="always" (see envs.rules.enumeration)
def _check_hand(hand, index, args):
    style_id, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts, t = args
    s, r = house_way_with_rule(style_id, hand, rank_table, to_two)
    if style_id == PAIGOW_IGW_ID:
        if s < 0 or s >= N_PAIGOW_SETTINGS or r < 0 or r >= n_rules:
            error_counts[t] += 1
            return
        b, f = paigow_setting_ranks(hand, s, rank_table)
        if paigow_is_fouled(b, f, to_two):
            foul_counts[t, r] += 1
    else:
        if s < 0 or s >= N_ASIA_SETTINGS or r < 0 or r >= n_rules:
            error_counts[t] += 1
            return
        h, m, lo = asia_setting_ranks(hand, s, rank_table)
        if asia_is_fouled(h, m, lo, to_two):
            foul_counts[t, r] += 1
    rule_counts[t, r] += 1


@njit(cache=True, parallel=True)
def exhaustive_check_tasks(style_id, tasks, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts):
    """Run the house way on every 7-card hand of ``tasks``; count hands per rule, fouls per rule
    and errors (a setting or rule id out of range), per thread."""
    for k in prange(tasks.shape[0]):
        args = (style_id, rank_table, to_two, n_rules, rule_counts, foul_counts, error_counts, numba.get_thread_id())
        for_each_hand(tasks[k, 0], tasks[k, 1], _check_hand, args)


@njit(cache=True)
def house_way_round(style_id, seed, r, rank_table, to_two, commission, cards):
    """Round ``r`` of run ``seed``, house way against house way: deals 7 + 7 cards into ``cards``
    (player ``cards[:7]``, dealer ``cards[7:]``, each sorted) and returns the player's main result
    per unit wagered."""
    deal_round(seed, r, 14, cards)
    sort7(cards, 0)
    sort7(cards, 7)
    player = cards[:7]
    dealer = cards[7:]
    ps = house_way(style_id, player, rank_table, to_two)
    ds = house_way(style_id, dealer, rank_table, to_two)
    if style_id == PAIGOW_IGW_ID:
        pb, pf = paigow_setting_ranks(player, ps, rank_table)
        db, df = paigow_setting_ranks(dealer, ds, rank_table)
        return paigow_main_result(paigow_hands_won(pb, pf, db, df), commission)
    ph, pm, pl = asia_setting_ranks(player, ps, rank_table)
    dh, dm, dl = asia_setting_ranks(dealer, ds, rank_table)
    return asia_main_result(asia_hands_won(ph, pm, pl, dh, dm, dl))


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
