"""Canonical hand classes: seven cards from 53 up to a permutation of the four suits.

No rule of either game looks at a suit's name: flushes only ask whether cards share a suit, and
the joker has no suit. Relabelling the suits of the player's hand and of every dealer hand with
the same permutation therefore changes no outcome, so all hands related by a suit permutation have
the same exact EVs (setting by setting, once settings are matched card for card). Solving one
hand per class solves all 154,143,080 hands.

Layout (cards are ``rank * 4 + suit``, 0..51, joker 52; see :mod:`splitpoker.envs.rules.cards`)::

    suit masks   m[s] = bit r set when the hand holds rank r in suit s (13 bits each)
    canonical    suits relabelled so that m[0] >= m[1] >= m[2] >= m[3] (as integers);
                 the joker, if held, stays card 52
    class index  rank of the canonical hand's colex index (splitpoker.envs.rules.ranking.combinatorics) among all
                 canonical hands, sorted: 0 .. N_CLASSES - 1. The joker-free classes come first
                 (colex < C(52, 7)), then the classes holding the joker.
    weight       hands in the class = 24 / prod(multiplicity of each distinct mask)!
                 (the empty mask counts too): 1..24

Counts (pinned in tests/test_classes.py, checked against Burnside's lemma):

    joker-free classes (7 of 52 cards)     6,009,159
    classes holding the joker (6 of 52)      962,988
    all classes                            6,972,147      weights sum to C(53, 7) = 154,143,080

The index is a sorted ``uint32`` array of the canonical colex indices (28 MB), built by a numba
pass over all C(53, 7) hands in a few seconds and cached (:mod:`splitpoker.envs.rules.cache`). Lookup by any
hand: canonicalise, colex, binary search (:func:`classify`); the way back is :func:`class_hands`.
:func:`setting_map` carries a setting of a hand to the same cards' setting of its canonical hand.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from splitpoker.envs.rules.cache import load_or_build
from splitpoker.envs.rules.enumeration import hands_per_row, thread_bins
from splitpoker.envs.rules.games.spec import GAMES, get_spec
from splitpoker.envs.rules.ranking.combinatorics import BINOM, colex_unrank

JOKER = 52
N_HANDS = math.comb(53, 7)
N_CLASSES_NO_JOKER = 6_009_159
N_CLASSES_JOKER = 962_988
N_CLASSES = N_CLASSES_NO_JOKER + N_CLASSES_JOKER
INDEX_FORMAT = 1
FACTORIAL = np.array([1, 1, 2, 6, 24], dtype=np.int64)


@njit(cache=True, inline="always")
def _suit_masks(hand, masks):
    masks[:] = 0
    for c in hand:
        if c < JOKER:
            masks[c & 3] |= 1 << (c >> 2)


@njit(cache=True)
def canonical_hand(hand, out, suit_map):
    """Write the canonical form of the sorted 7-card ``hand`` to ``out`` (sorted) and the suit
    relabelling to ``suit_map`` (``suit_map[old] = new``). Ties between equal masks keep suit
    order (equal masks give the same canonical hand whatever their order)."""
    masks = np.zeros(4, dtype=np.int64)
    _suit_masks(hand, masks)
    order = np.argsort(-masks, kind="mergesort")  # new suit n gets old suit order[n]
    for n in range(4):
        suit_map[order[n]] = n
    for i in range(7):
        c = hand[i]
        out[i] = c if c == JOKER else (c & ~3) | suit_map[c & 3]
    out.sort()
    return out


@njit(cache=True, inline="always")
def _colex7(h):
    return (BINOM[h[0], 1] + BINOM[h[1], 2] + BINOM[h[2], 3] + BINOM[h[3], 4] + BINOM[h[4], 5]
            + BINOM[h[5], 6] + BINOM[h[6], 7])


@njit(cache=True)
def _count_canonical(c6, c5, flags_out):
    """Hands with top two cards (c5, c6) whose suit masks are non-increasing."""
    n = 0
    base = np.zeros(4, dtype=np.int64)
    if c6 < JOKER:
        base[c6 & 3] |= 1 << (c6 >> 2)
    base[c5 & 3] |= 1 << (c5 >> 2)
    for c4 in range(4, c5):
        m4 = base.copy()
        m4[c4 & 3] |= 1 << (c4 >> 2)
        for c3 in range(3, c4):
            m3 = m4.copy()
            m3[c3 & 3] |= 1 << (c3 >> 2)
            for c2 in range(2, c3):
                m2 = m3.copy()
                m2[c2 & 3] |= 1 << (c2 >> 2)
                for c1 in range(1, c2):
                    a0, a1, a2, a3 = m2[0], m2[1], m2[2], m2[3]
                    s = c1 & 3
                    b = 1 << (c1 >> 2)
                    if s == 0:
                        a0 |= b
                    elif s == 1:
                        a1 |= b
                    elif s == 2:
                        a2 |= b
                    else:
                        a3 |= b
                    for c0 in range(c1):
                        x0, x1, x2, x3 = a0, a1, a2, a3
                        s = c0 & 3
                        b = 1 << (c0 >> 2)
                        if s == 0:
                            x0 |= b
                        elif s == 1:
                            x1 |= b
                        elif s == 2:
                            x2 |= b
                        else:
                            x3 |= b
                        if x0 >= x1 and x1 >= x2 and x2 >= x3:
                            if flags_out.shape[0] > 0:
                                flags_out[n] = (BINOM[c0, 1] + BINOM[c1, 2] + BINOM[c2, 3] + BINOM[c3, 4]
                                                + BINOM[c4, 5] + BINOM[c5, 6] + BINOM[c6, 7])
                            n += 1
    return n


@njit(cache=True, parallel=True)
def _count_all(tasks, order, starts, counts):
    """``counts[k]``: the canonical hands of task ``k``; the tasks ``order[starts[b]:starts[b + 1]]``
    on thread ``b`` (:func:`~splitpoker.envs.rules.enumeration.thread_bins`)."""
    empty = np.empty(0, dtype=np.uint32)
    for b in prange(starts.shape[0] - 1):
        for j in range(starts[b], starts[b + 1]):
            k = order[j]
            counts[k] = _count_canonical(tasks[k, 1], tasks[k, 0], empty)


@njit(cache=True, parallel=True)
def _fill_all(tasks, order, starts, offsets, out):
    for b in prange(starts.shape[0] - 1):
        for j in range(starts[b], starts[b + 1]):
            k = order[j]
            _count_canonical(tasks[k, 1], tasks[k, 0], out[offsets[k]:offsets[k + 1]])


def build_class_index() -> np.ndarray:
    """The sorted colex indices of all canonical hands (``uint32[N_CLASSES]``), no cache."""
    tasks = np.array([(c5, c6) for c6 in range(6, 53) for c5 in range(5, c6)], dtype=np.int64)
    order, starts = thread_bins(hands_per_row(tasks))
    counts = np.zeros(len(tasks), dtype=np.int64)
    _count_all(tasks, order, starts, counts)
    offsets = np.zeros(len(tasks) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint32)
    _fill_all(tasks, order, starts, offsets, out)
    out.sort()
    return out


_INDEX: dict[str, np.ndarray] = {}


def class_index(*, use_cache: bool = True, log=None) -> np.ndarray:
    """The cached class index (built on first use, ~28 MB, a few seconds)."""
    if "reps" not in _INDEX:
        key = {"what": "hand classes", "format": INDEX_FORMAT, "deck": 53, "cards": 7}
        arr = np.asarray(load_or_build("hand-classes", key, build_class_index, use_cache=use_cache, log=log))
        if arr.shape != (N_CLASSES,):
            raise ValueError(f"hand-class index has {arr.shape[0]:,} classes, expected {N_CLASSES:,}")
        _INDEX["reps"] = arr
    return _INDEX["reps"]


@njit(cache=True)
def _classify(hands, reps, out):
    canon = np.empty(7, dtype=np.int64)
    suit_map = np.empty(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        h = np.sort(hands[i])
        canonical_hand(h, canon, suit_map)
        key = _colex7(canon)
        j = np.searchsorted(reps, key)
        out[i] = j if j < reps.shape[0] and reps[j] == key else -1


def _as_hands(hands) -> np.ndarray:
    arr = np.asarray(hands, dtype=np.int64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 7:
        raise ValueError(f"hands of shape {np.shape(hands)}: expected 7 cards or an array of shape (n, 7)")
    if arr.size and (arr.min() < 0 or arr.max() > JOKER):
        raise ValueError(f"card {int(arr.min() if arr.min() < 0 else arr.max())} out of range: expected 0..52")
    s = np.sort(arr, axis=1)
    if (s[:, 1:] == s[:, :-1]).any():
        raise ValueError("a hand holds the same card twice: expected 7 distinct cards")
    return arr


def classify(hands, reps: np.ndarray | None = None) -> np.ndarray:
    """Class index of each hand (``int64[n]``; one hand of 7 cards or an ``(n, 7)`` array)."""
    arr = _as_hands(hands)
    reps = class_index() if reps is None else reps
    out = np.empty(arr.shape[0], dtype=np.int64)
    _classify(arr, reps, out)
    if (out < 0).any():  # cannot happen with a complete index
        raise ValueError(f"hand {arr[int(np.flatnonzero(out < 0)[0])].tolist()} has no class in this index")
    return out


@njit(cache=True)
def _unrank_many(keys, out):
    for i in range(keys.shape[0]):
        colex_unrank(np.int64(keys[i]), 7, out[i])


def class_hands(classes, reps: np.ndarray | None = None) -> np.ndarray:
    """The canonical (representative) hand of each class, sorted: ``int64[n, 7]``."""
    reps = class_index() if reps is None else reps
    idx = np.atleast_1d(np.asarray(classes, dtype=np.int64))
    if idx.size and (idx.min() < 0 or idx.max() >= reps.shape[0]):
        bad = int(idx.min() if idx.min() < 0 else idx.max())
        raise ValueError(f"class {bad} out of range: expected 0..{reps.shape[0] - 1}")
    out = np.empty((idx.size, 7), dtype=np.int64)
    _unrank_many(reps[idx].astype(np.int64), out)
    return out


@njit(cache=True)
def _weights(hands, out):
    masks = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        _suit_masks(hands[i], masks)
        m = np.sort(masks)
        denom = 1
        run = 1
        for k in range(1, 4):
            if m[k] == m[k - 1]:
                run += 1
            else:
                denom *= FACTORIAL[run]
                run = 1
        denom *= FACTORIAL[run]
        out[i] = 24 // denom


def hand_weights(hands) -> np.ndarray:
    """Number of distinct hands each hand's class stands for (its orbit under the 24 suit
    permutations): ``int64[n]``, 1..24."""
    arr = _as_hands(hands)
    out = np.empty(arr.shape[0], dtype=np.int64)
    _weights(arr, out)
    return out


@njit(cache=True, parallel=True)
def _all_weights(reps, out):
    for i in prange(reps.shape[0]):
        hand = np.empty((1, 7), dtype=np.int64)
        colex_unrank(np.int64(reps[i]), 7, hand[0])
        _weights(hand, out[i:i + 1])


def class_weights(classes=None, reps: np.ndarray | None = None) -> np.ndarray:
    """Weight of each class (all classes when ``classes`` is None; computed once, then kept)."""
    if classes is not None:
        return hand_weights(class_hands(classes, reps))
    if reps is None or reps is _INDEX.get("reps"):
        reps = class_index()
        if "weights" not in _INDEX:
            w = np.empty(reps.shape[0], dtype=np.int64)
            _all_weights(reps, w)
            _INDEX["weights"] = w
        return _INDEX["weights"]
    w = np.empty(reps.shape[0], dtype=np.int64)
    _all_weights(reps, w)
    return w


# ---- settings, card for card -----------------------------------------------------------------

def _slot_codes(game: str) -> tuple[np.ndarray, dict[tuple, int]]:
    """Per setting, the slot of each of the 7 positions (the spec's slot order: Asia 0 high,
    1 medium, 2 low; Pai Gow 0 back, 1 front), and the way back."""
    spec = get_spec(game)
    slots = np.full((spec.n_settings, 7), -1, dtype=np.int64)
    for k, positions in enumerate(spec.positions):
        for s in range(spec.n_settings):
            slots[s, positions[s]] = k
    assert (slots >= 0).all()  # every card in exactly one hand
    return slots, {tuple(row): s for s, row in enumerate(slots.tolist())}


_SLOTS = {g: _slot_codes(g) for g in GAMES}


def setting_map(game: str, hand, canon=None) -> np.ndarray:
    """``m[s]``: the setting of the canonical hand that puts the same cards (suits relabelled) in
    the same slots as setting ``s`` of ``hand``; so ``ev(hand)[s] == ev(canonical)[m[s]]``.

    ``hand``: 7 cards (sorted here); ``canon``: its canonical hand, computed when omitted."""
    if game not in _SLOTS:
        raise ValueError(f"unknown game {game!r}: expected 'asia' or 'paigow'")
    h = np.sort(_as_hands(hand)[0])
    c = np.empty(7, dtype=np.int64)
    suit_map = np.empty(4, dtype=np.int64)
    canonical_hand(h, c, suit_map)
    if canon is not None and not np.array_equal(np.sort(np.asarray(canon)), c):
        raise ValueError(f"hand {h.tolist()} does not canonicalise to {np.asarray(canon).tolist()}")
    mapped = np.where(h == JOKER, JOKER, (h & ~3) | suit_map[h & 3])
    pos = np.searchsorted(c, mapped)  # position p of hand -> position pos[p] of the canonical hand
    slots, back = _SLOTS[game]
    moved = np.empty_like(slots)
    moved[:, pos] = slots
    return np.array([back[tuple(row)] for row in moved.tolist()], dtype=np.int64)


def suit_permutations() -> np.ndarray:
    """The 24 suit permutations, ``int64[24, 4]`` (``p[old] = new``)."""
    from itertools import permutations

    return np.array(list(permutations(range(4))), dtype=np.int64)


def permute_suits(hand, perm) -> np.ndarray:
    """``hand`` with suit ``s`` relabelled ``perm[s]`` (the joker unchanged), sorted."""
    h = np.asarray(hand, dtype=np.int64)
    perm = np.asarray(perm, dtype=np.int64)
    return np.sort(np.where(h == JOKER, JOKER, (h & ~3) | perm[h & 3]))


def burnside_count(n_cards: int = 7, joker: bool = True) -> dict:
    """Independent count of classes by Burnside's lemma: the number of orbits is the mean over
    the 24 suit permutations of the hands each fixes. A hand is fixed by a permutation when, for
    every rank, its suits are a union of the permutation's cycles: per rank the generating
    polynomial is prod over cycles (1 + x^len), over 13 ranks its 13th power, times (1 + x) for
    the joker. Returns ``{"no_joker": ..., "joker": ..., "total": ...}`` for ``n_cards`` cards."""
    def poly_mul(a, b):
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                out[i + j] += x * y
        return out

    def cycles(p):
        seen, lens = set(), []
        for s in range(4):
            if s not in seen:
                n, t = 0, s
                while t not in seen:
                    seen.add(t)
                    t = p[t]
                    n += 1
                lens.append(n)
        return lens

    fixed_no_joker = [0] * (n_cards + 1)
    for p in suit_permutations().tolist():
        per_rank = [1]
        for n in cycles(p):
            per_rank = poly_mul(per_rank, [1] + [0] * (n - 1) + [1])
        total = [1]
        for _ in range(13):
            total = poly_mul(total, per_rank)
        for k in range(n_cards + 1):
            fixed_no_joker[k] += total[k] if k < len(total) else 0
    no_joker = fixed_no_joker[n_cards] // 24
    with_joker = fixed_no_joker[n_cards - 1] // 24 if joker else 0
    return {"no_joker": no_joker, "joker": with_joker, "total": no_joker + with_joker}
