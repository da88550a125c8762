"""Uniform sampling of legal actions for N rows of masks, in numba (the vector env's
``sample_legal_actions``, the benchmark's random contenders)."""

from __future__ import annotations

from numba import njit

from splitpoker.envs.rules.dealing import bounded, stream_state

#: random draws :func:`sample_legal` tries before it counts its way to a legal action
SAMPLE_TRIES = 8


@njit(cache=True)
def sample_legal(mask, seed, out):
    """A uniformly random legal action per row of ``mask`` (0 where nothing is legal: a finished
    env whose next action is ignored), from a counter-based stream seeded by ``seed``.

    Rejection sampling: up to :data:`SAMPLE_TRIES` uniform draws from all actions, the first legal
    one taken; if none is, the k-th legal action for a uniform k. Either way each legal action
    has probability 1/L (a draw accepted at any try is uniform over the legal ones), and a row
    whose actions are mostly legal costs a draw or two instead of a scan of the mask."""
    width = mask.shape[1]
    for i in range(mask.shape[0]):
        n = 0
        for a in range(width):
            n += mask[i, a]
        out[i] = 0
        if n == 0:
            continue
        state = stream_state(seed, i)
        found = False
        for _ in range(SAMPLE_TRIES):
            state, a = bounded(state, width)
            if mask[i, a]:
                out[i] = a
                found = True
                break
        if found:
            continue
        _, k = bounded(state, n)
        for a in range(width):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
