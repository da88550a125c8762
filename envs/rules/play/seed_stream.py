"""The single environments' episode seeds, reproduced in numba for the vector environments.

A single environment draws one 64-bit *round seed* per episode,
``self.np_random.integers(0, 2**63 - 1)`` (``SplitHandEnv.reset``), where ``np_random`` is
Gymnasium's ``np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))``; the numba
dealer (:mod:`splitpoker.envs.rules.dealing`) then deals the round from that seed. A vector environment that
deals "what the single environment deals" must draw the same integers for every sub-environment
at every autoreset, inside one numba call. This module does that:

* the generator state is numpy's PCG64 (O'Neill 2014, ``setseq_128_xsl_rr_64``): a 128-bit LCG
  ``state = state * M + inc (mod 2**128)`` with ``M = 0x2360ED051FC65DA4_4385DF649FCCF645``,
  output ``rotr64(hi ^ lo, hi >> 58)`` of the *new* state. Numba has no 128-bit integers, so a
  state is four ``uint64`` words ``[state_hi, state_lo, inc_hi, inc_lo]``;
* ``Generator.integers(0, 2**63 - 1)`` (int64, ``endpoint=False``) is numpy's Lemire bounded draw
  on the range ``rng = 2**63 - 2``: ``m = next64() * (rng + 1)`` as a 128-bit product, result the
  high word, redrawn while the low word is below ``(2**64 - 1 - rng) % (rng + 1) = 2``.

:func:`states_from_generators` reads the state of ``np.random.Generator`` objects (numpy's public
``bit_generator.state``); :func:`generator_from_state` goes back. tests/test_vector.py checks the
stream against numpy's own ``integers`` for many seeds, so a change in numpy's algorithm would be
caught rather than silently dealing different rounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_M_HI = uint64(0x2360ED051FC65DA4)
_M_LO = uint64(0x4385DF649FCCF645)
_LOW32 = uint64(0xFFFFFFFF)
#: the exclusive upper bound of a round seed: ``np_random.integers(0, ROUND_SEED_BOUND)``
ROUND_SEED_BOUND = 2**63 - 1
_ROUND_RANGE = uint64(ROUND_SEED_BOUND - 1)  # rng of integers(0, ROUND_SEED_BOUND): high - low - 1
MASK64 = (1 << 64) - 1


@njit(cache=True, inline="always")
def _mul64(a, b):
    """Full 128-bit product of two uint64: (hi, lo)."""
    a_lo = a & _LOW32
    a_hi = a >> uint64(32)
    b_lo = b & _LOW32
    b_hi = b >> uint64(32)
    ll = a_lo * b_lo
    lh = a_lo * b_hi
    hl = a_hi * b_lo
    hh = a_hi * b_hi
    mid = (ll >> uint64(32)) + (lh & _LOW32) + (hl & _LOW32)
    lo = (ll & _LOW32) | (mid << uint64(32))
    hi = hh + (lh >> uint64(32)) + (hl >> uint64(32)) + (mid >> uint64(32))
    return hi, lo


@njit(cache=True, inline="always")
def pcg64_next(st):
    """Advance the PCG64 state ``st`` (uint64[4]: state hi, state lo, inc hi, inc lo) in place and
    return its next 64-bit output (numpy's ``random_raw``)."""
    hi = st[0]
    lo = st[1]
    p_hi, p_lo = _mul64(lo, _M_LO)
    p_hi = p_hi + lo * _M_HI + hi * _M_LO
    new_lo = p_lo + st[3]
    carry = uint64(1) if new_lo < p_lo else uint64(0)
    new_hi = p_hi + st[2] + carry
    st[0] = new_hi
    st[1] = new_lo
    x = new_hi ^ new_lo
    rot = new_hi >> uint64(58)
    return (x >> rot) | (x << ((uint64(64) - rot) & uint64(63)))


@njit(cache=True, inline="always")
def next_round_seed(st):
    """``Generator.integers(0, 2**63 - 1)`` for the PCG64 state ``st``: the single environment's
    per-episode round seed (int64)."""
    rng_excl = _ROUND_RANGE + uint64(1)
    hi, lo = _mul64(pcg64_next(st), rng_excl)
    if lo < rng_excl:
        threshold = (uint64(0xFFFFFFFFFFFFFFFF) - _ROUND_RANGE) % rng_excl
        while lo < threshold:
            hi, lo = _mul64(pcg64_next(st), rng_excl)
    return np.int64(hi)


@njit(cache=True)
def round_seeds(states, out):
    """Draw one round seed per row of ``states`` (uint64[n, 4]) into ``out`` (int64[n])."""
    for i in range(states.shape[0]):
        out[i] = next_round_seed(states[i])


def _words(x: int) -> tuple[int, int]:
    return (x >> 64) & MASK64, x & MASK64


def states_from_generators(generators) -> np.ndarray:
    """uint64[n, 4] PCG64 states of ``n`` ``np.random.Generator(PCG64)`` objects."""
    out = np.empty((len(generators), 4), dtype=np.uint64)
    for i, g in enumerate(generators):
        st = g.bit_generator.state
        if st.get("bit_generator") != "PCG64":
            raise ValueError(f"generator {i} uses {st.get('bit_generator')!r}: expected PCG64 (Gymnasium's np_random)")
        out[i, 0], out[i, 1] = _words(int(st["state"]["state"]))
        out[i, 2], out[i, 3] = _words(int(st["state"]["inc"]))
    return out


def generator_from_state(row) -> np.random.Generator:
    """An ``np.random.Generator`` in the PCG64 state ``row`` (uint64[4]): the ``np_random`` a
    single environment would hold at that point of its stream."""
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64",
                "state": {"state": (int(row[0]) << 64) | int(row[1]), "inc": (int(row[2]) << 64) | int(row[3])},
                "has_uint32": 0, "uinteger": 0}
    return np.random.Generator(bg)
