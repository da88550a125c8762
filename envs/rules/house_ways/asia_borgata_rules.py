"""The rules of the Borgata Asia Poker house way (seed 002), one small numba function per rule:
positions in, ``(low, medium_a, medium_b)`` out; the high hand is the other four cards. The
dispatch that picks the rule, the rule ids and the straight/flush rules are in
:mod:`splitpoker.envs.rules.house_ways.asia_borgata`, which documents the conventions.
``s`` = singles, ``p`` = pairs (start positions), highest rank first; ``t``/``q``/``f`` = start of
the trips / quads / five aces."""

from __future__ import annotations

import numpy as np
from numba import njit

# ------------------------------------------------------------------------------------------------
# the rules: positions in, (low, medium_a, medium_b) out. ``s`` = singles, ``p`` = pairs (start
# positions), highest rank first; ``t``/``q``/``f`` = start of the trips / quads / five aces.


@njit(cache=True)
def no_pair(s):
    """*NO PAIR - Place the highest card in the high hand, second highest card in the medium hand,
    and third highest card in the low hand Place fourth highest card in the medium hand and the
    remaining cards in the high hand."""
    return s[2], s[1], s[3]


@njit(cache=True)
def one_pair(s):
    """*ONE PAIR - Place the pair in the high hand, the highest and third highest cards in the
    medium hand and the second highest card in the low hand."""
    return s[1], s[0], s[2]


@njit(cache=True)
def one_pair_split_high_pair(p, s):
    """** High pair with one or no other high card, always split up the pair

    One of the pair high, one medium (D4); the highest single joins the high hand so that it
    outranks the medium (pair card + third highest); the second highest stays low."""
    return s[1], p + 1, s[2]


@njit(cache=True)
def two_pairs(p, s):
    """*TWO PAIRS - Always split.

    Higher pair high, lower pair medium, highest single low, the other two high (D5)."""
    return s[0], p[1], p[1] + 1


@njit(cache=True)
def two_pairs_split_aces_kings(p, s):
    """Exception: - Pair of Aces or Kings with any other pair, play the other pair in the high
    hand and split Aces! Kings, one in the medium hand and one in the low hand, UNLESS you have
    another high card, then don’t split.

    The medium A/K takes the highest single (D6)."""
    return p[0] + 1, p[0], s[0]


@njit(cache=True)
def three_pairs(p, x):
    """*THREE PAIRS - Always play the highest pair in the medium hand and two pairs in the high
    hand."""
    return x, p[0], p[0] + 1


@njit(cache=True)
def three_pairs_split_aces_kings(p, x):
    """Exception: - Three pairs when one of the pairs are Aces or Kings. Place one Ace/King in the
    medium and one in the low hand, unless you have another high card, then keep the pair
    together in the medium hand."""
    return p[0] + 1, p[0], x


@njit(cache=True)
def three_high_pairs(p, x, x_is_high):
    """- Any three high pairs, place second high pair in the high hand, lowest pair in the medium
    hand and split the high pair, place one in the low, UNLESS you have another high card place
    in low hand.

    With a high singleton it goes low and the highest pair stays high with the second (D8)."""
    if x_is_high:
        return x, p[2], p[2] + 1
    return p[0] + 1, p[2], p[2] + 1


@njit(cache=True)
def trips(s):
    """*THREE OF A KIND - Always play three of a kind in the high hand, highest and third single
    ranking card in the medium hand, second highest in the low hand."""
    return s[1], s[0], s[2]


@njit(cache=True)
def trips_akq_split(t, s):
    """- Three Aces, Kings or Queens- place one in the high, medium and low hand.

    The medium one takes the second highest single, the high one the others (D9)."""
    return t + 2, t + 1, s[1]


@njit(cache=True)
def trips_akq_high_cards(t, s, r):
    """- Three Aces, Kings or Queens with one or two high cards -always play one pair in the high
    hand.

    The third card joins the singles, placed as ONE PAIR: 1st+3rd medium, 2nd low (D9)."""
    u = np.empty(5, dtype=np.int64)
    k = 0
    placed = False
    for i in range(4):
        if not placed and r[t + 2] > r[s[i]]:
            u[k] = t + 2
            k += 1
            placed = True
        u[k] = s[i]
        k += 1
    if not placed:
        u[4] = t + 2
    return u[1], u[0], u[2]


@njit(cache=True)
def trips_jacks_one_high(t, s):
    """- Three Jacks with one high card- place one Jack in the low hand.

    The two highest singles medium (seed 000's wording), the pair of jacks high."""
    return t + 2, s[0], s[1]


@njit(cache=True)
def trips_jacks_no_high(t, s):
    """- Three Jacks without any high card - play one pair in the high hand and the third Jack in
    the medium hand

    The highest single low, the second with the jack (seed 000's wording)."""
    return s[0], t + 2, s[1]


@njit(cache=True)
def trips_twice(t):
    """*THREE OF A KIND TWICE - Always play the lowest three of a kind in the high hand, and split
    up the highest three of a kind - play a pair in the medium hand and the final card in the low
    hand"""
    return t[0] + 2, t[0], t[0] + 1


@njit(cache=True)
def full_house(t, p, s):
    """*FULL HOUSE - Always play three of a kind in the high hand, and a pair in the medium hand.

    The higher single low, the lower with the trips (D12)."""
    return s[0], p, p + 1


@njit(cache=True)
def full_house_akq_trips(t, p):
    """Exception: - Three Aces, Kings or Queens. Play pair of Aces, Kings, Queens in the high hand
    and one Ace, King, Queen in the low hand.

    The pair medium; only when it ranks below the trips (else it would foul, D12)."""
    return t + 2, p, p + 1


@njit(cache=True)
def full_house_aces_kings_pair(p, s):
    """- Any three of a kind with a pair of Aces or Kings, then split the Aces/Kings, place one in
    the medium hand and one in low hand.

    The medium one takes the higher single (D12)."""
    return p + 1, p, s[0]


@njit(cache=True)
def full_house_pair(p):
    """*FULL HOUSE WITH A PAIR - Always play three of a kind in the high hand, the low pair in the
    medium hand and one card of the high pair in the low hand."""
    return p[0] + 1, p[1], p[1] + 1


@njit(cache=True)
def full_house_pair_high_trips(t):
    """Exception: - Any high three of a kind with 2 medium/low pairs, play the two pairs in the
    high hand and split the three of a kind — a pair in the medium hand and the third card in the
    low hand."""
    return t + 2, t, t + 1


@njit(cache=True)
def quads(q, s):
    """*FOUR OF A KIND - Always split

    A pair high and a pair medium (seed 000), the highest single low (D13)."""
    return s[0], q + 2, q + 3


@njit(cache=True)
def quads_low_with_ace(s):
    """Exception - Low four of a kind with 2 high cards when one of them is Ace, then keep four of
    a kind in the high hand.

    The three singles: highest and lowest medium, middle low (D13)."""
    return s[1], s[0], s[2]


@njit(cache=True)
def quads_aces_kings(q, s):
    """- Four Aces or Kings - Play one pair in the high hand, one in the medium, and one in the
    low hand, unless you have another high card, then keep pair in the high and medium hand.

    The medium one takes the highest single (D13)."""
    return q + 3, q + 2, s[0]


@njit(cache=True)
def quads_pair(p, x):
    """*FOUR OF A KIND WITH A PAIR - Play four of a kind in the high hand and pair in the medium
    hand."""
    return x, p, p + 1


@njit(cache=True)
def quads_pair_aces_kings(q, p):
    """Exception: - Four Aces or Kings - Play three Aces/Kings in the high hand one Ace/ King in
    the low hand.

    The pair medium, the single with the three (D14)."""
    return q + 3, p, p + 1


@njit(cache=True)
def quads_trips(t):
    """*FOUR OF A KIND WITH THREE OF A KIND - Play four of a kind in the high hand and pair in the
    medium hand."""
    return t + 2, t, t + 1


@njit(cache=True)
def quads_trips_akq(q):
    """Exception: - Four Aces, Kings or Queens - Play other three of a kind in the high hand,
    split up the four of a kind — a pair in the medium hand and one in the low hand."""
    return q + 3, q + 1, q + 2


@njit(cache=True)
def five_aces(f):
    """*FIVE ACES - Play a pair of Aces in the high hand, a pair of Aces in the medium hand, and
    one Ace in the low hand."""
    return f + 4, f + 2, f + 3
