"""Deterministic, parallel-safe dealing for batch loops (numba).

Batch jobs (simulation, evaluation samples, Monte Carlo) deal round ``i`` of a run from a
counter-based generator seeded by ``(seed, i)``, so results do not depend on the number of
threads or on the order rounds run in, and a run is reproduced exactly by its seed. The generator
is SplitMix64 (Steele, Lea & Flood 2014), which passes BigCrush as a stream; each round hashes
``seed`` and ``i`` into its own stream. Environments draw from ``self.np_random`` instead (one
64-bit draw per episode seeds this generator, so all of an episode's randomness still comes from
``np_random``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
MASK63 = (1 << 63) - 1


@njit(cache=True, inline="always")
def splitmix64(state):
    """One SplitMix64 step: returns (new_state, output)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return state, z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def stream_state(seed, index):
    """Initial state of the stream for round ``index`` of a run seeded by ``seed``."""
    s, a = splitmix64(uint64(seed))
    s, b = splitmix64(a ^ uint64(index) * _M2)
    return b


@njit(cache=True, inline="always")
def bounded(state, n):
    """Uniform integer in [0, n) (Lemire's multiply-shift on the top 32 bits; n <= 2**32, bias
    below 2**-32 * n, negligible for decks)."""
    state, z = splitmix64(state)
    return state, np.int64(((z >> uint64(32)) * uint64(n)) >> uint64(32))


@njit(cache=True, inline="always")
def shuffle_draw(state, work, n_pool, k, out):
    """Partial Fisher-Yates: deal ``k`` distinct cards of ``work[:n_pool]`` into ``out[:k]``,
    permuting ``work`` in place (the caller's copy of the pool). Returns the new generator state.
    Every dealer of this module draws through it, so all deal the same cards for a state."""
    for i in range(k):
        state, j = bounded(state, n_pool - i)
        j += i
        t = work[i]
        work[i] = work[j]
        work[j] = t
        out[i] = work[i]
    return state


@njit(cache=True)
def deal_from(state, pool, n_pool, k, out):
    """Deal ``k`` distinct cards from ``pool[:n_pool]`` into ``out[:k]`` (partial Fisher-Yates on
    a copy of the pool). Returns the new generator state."""
    return shuffle_draw(state, pool[:n_pool].copy(), n_pool, k, out)


@njit(cache=True)
def deal_from_into(state, pool, n_pool, k, out, work):
    """:func:`deal_from` without allocating: ``work`` (at least ``n_pool`` entries, the caller's
    scratch) receives the copy of the pool that is shuffled. Same cards for the same state."""
    for i in range(n_pool):
        work[i] = pool[i]
    return shuffle_draw(state, work, n_pool, k, out)


_DECK = np.arange(53, dtype=np.int64)


@njit(cache=True)
def deal_round(seed, index, k, out):
    """Deal ``k`` distinct cards from the full 53-card deck for round ``index`` of run ``seed``."""
    return deal_from(stream_state(seed, index), _DECK, 53, k, out)


@njit(cache=True)
def remaining_cards(hand):
    """The 46 cards not in the sorted 7-card ``hand``, ascending."""
    rest = np.empty(46, dtype=np.int64)
    remaining_cards_into(hand, rest)
    return rest


@njit(cache=True)
def remaining_cards_into(hand, rest):
    """:func:`remaining_cards` written into ``rest[:46]`` (no allocation)."""
    k = 0
    j = 0
    for c in range(53):
        if j < 7 and hand[j] == c:
            j += 1
        else:
            rest[k] = c
            k += 1
    return rest


@njit(cache=True, inline="always")
def sort7(a, off):
    """Insertion-sort the 7 entries ``a[off:off+7]`` in place."""
    for i in range(off + 1, off + 7):
        x = a[i]
        j = i - 1
        while j >= off and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


DEAL_SCRATCH_SHAPE = (2, 53)  # deal_player_and_dealers_into's scratch: the shuffled copy, the rest


@njit(cache=True)
def deal_player_and_dealers(seed, n_dealers, player, dealers):
    """Deal a round: ``player[7]`` sorted and ``dealers[n_dealers, 7]`` sorted, from a
    counter-based stream seeded by ``seed`` (one round = one seed)."""
    return deal_player_and_dealers_into(seed, n_dealers, player, dealers, np.empty(DEAL_SCRATCH_SHAPE, np.int64))


@njit(cache=True)
def deal_player_and_dealers_into(seed, n_dealers, player, dealers, work):
    """:func:`deal_player_and_dealers` with caller-owned scratch ``work`` (int64[2, 53]): the
    player's 7 from the full deck (``deal_round(seed, 0, ...)``), then dealer ``d`` from the 46
    remaining cards with stream ``d + 1``. Allocates nothing."""
    deck = work[0]
    for c in range(53):
        deck[c] = c
    state = deal_from_into(stream_state(seed, 0), deck, 53, 7, player, deck)
    sort7(player, 0)
    if n_dealers == 0:
        return state
    return deal_dealers_into(seed, n_dealers, player, dealers, work)


@njit(cache=True)
def deal_dealers_into(seed, n_dealers, player, dealers, work):
    """The dealer hands of :func:`deal_player_and_dealers_into` for the sorted ``player`` hand:
    dealer ``d`` from the 46 cards the player does not hold, with stream ``d + 1`` of ``seed``.
    So a round of ``seed`` whose player hand is given (``reset(options={"cards": ...})``) meets
    the same dealer hands as the round ``seed`` deals when its cards are those. ``work``:
    ``int64[2, 53]`` scratch. Returns the last generator state."""
    rest = remaining_cards_into(player, work[1])
    state = np.uint64(0)
    for d in range(n_dealers):
        row = dealers[d]
        state = deal_from_into(stream_state(seed, d + 1), rest, 46, 7, row, work[0])
        sort7(row, 0)
    return state
