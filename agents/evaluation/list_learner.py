"""A rule list learned by prepending exceptions: the other learner of a strategy card.

Input as for :mod:`splitpoker.agents.evaluation.rule_learner`: features ``X[n, F]`` (integers)
and costs ``C[n, R]`` (the exact regret of recipe ``r`` on hand ``i``). Output: a decision list
(:mod:`splitpoker.agents.evaluation.decision_list`) read top to bottom.

1. Start with one rule, "any hand: the recipe with the least total cost".
2. Add a rule **at the top**, as an exception to the list below it: a conjunction of at most
   ``max_conditions`` (1..3) conditions, each an interval of one feature with one end open
   (``top_single >= Q``, ``pair_sum <= 9``, a flag), and one recipe. The hands it covers leave
   the rules below for it, so its gain is exact: the cost the list has on those hands minus the
   recipe's. The rule with the largest gain that covers at least ``min_leaf`` hands wins; every
   pair of conditions is tried (branch and bound: a first condition whose covered hands cannot
   gain more than the best pair found so far is skipped, since a second condition only removes
   hands), and a third condition is tried on the pairs of the largest gain (a search, not
   exhaustive: :data:`TRIPLE_POOL`) and taken when it gains more.
3. Repeat until ``max_rules`` rules or no rule gains anything.

A tree's rules partition the hands, so a rule that fixes a few hands of a large group must spell
out its whole path; an exception on top of a list only names what sets it apart. The lists of
every size are nested (the list of ``k`` rules is the top ``k - 1`` exceptions learned first and
the default), so, like the tree's prune sequence, one fit gives the cards of every size.
"""

from __future__ import annotations

import numpy as np

MIN_GAIN = 1e-9
MAX_CONDITIONS = 3
TRIPLE_POOL = 40  # a third condition is tried on this many pairs, those of the largest gain
# (the candidates: for each first condition, its best second by gain and its best second by bound)


def atoms(X: np.ndarray, feature_ranges: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The candidate conditions ``(feature, lo, hi)``: for every value ``t`` a feature takes in
    ``X`` (other than its extremes there), ``feature <= t`` and ``feature >= t``."""
    out = []
    for f, (low, high) in enumerate(feature_ranges):
        values = np.unique(X[:, f])
        out += [(f, low, int(t)) for t in values[:-1]]
        out += [(f, int(t), high) for t in values[1:]]
    return out


def _best_exception(A: np.ndarray, D: np.ndarray, min_leaf: int, max_conditions: int):
    """``(gain, atom indices, recipe)`` of the best rule to put on top (``D[i, r]``: what recipe
    ``r`` saves on hand ``i`` over the current list), or None when no rule covers ``min_leaf``."""
    Af = A.astype(np.float32)
    Dp = np.maximum(D, 0)
    counts = Af.sum(axis=1)
    single = Af @ D
    single[counts < min_leaf] = -np.inf
    best = None
    a = int(np.argmax(single.max(axis=1)))
    if np.isfinite(single[a].max()):
        best = (float(single[a].max()), (a,), int(single[a].argmax()))
    if max_conditions == 1:
        return best
    bound = (Af @ Dp).max(axis=1)  # no refinement of atom i gains more
    pairs = []
    for i in np.argsort(-bound):
        if best is not None and bound[i] <= best[0] + MIN_GAIN:
            break  # in order of the bound: no atom left can beat the best
        if counts[i] < min_leaf:
            continue
        both = Af * Af[i]
        n_both = both.sum(axis=1)
        gains = both @ D
        ok = (n_both >= min_leaf) & (n_both < counts[i])  # a second condition that restricts
        g = np.where(ok, gains.max(axis=1), -np.inf)
        j = int(np.argmax(g))
        if np.isfinite(g[j]):
            pairs.append((float(g[j]), (int(i), j), int(gains[j].argmax())))
            if best is None or g[j] > best[0] + MIN_GAIN:
                best = pairs[-1]
        if max_conditions >= 3:
            pair_bound = np.where(ok, (both @ Dp).max(axis=1), -np.inf)
            j = int(np.argmax(pair_bound))
            if np.isfinite(pair_bound[j]):
                pairs.append((float(g[j]), (int(i), j), int(gains[j].argmax())))
    if max_conditions < 3 or not pairs:
        return best
    pool = sorted(pairs, key=lambda p: -p[0])[:TRIPLE_POOL]
    for _, (i, j), _ in pool:
        idx = np.flatnonzero(A[i] & A[j])
        sub = Af[:, idx]
        gains = sub @ D[idx]
        n_sub = sub.sum(axis=1)
        g = np.where((n_sub >= min_leaf) & (n_sub < idx.size), gains.max(axis=1), -np.inf)
        k = int(np.argmax(g))
        if np.isfinite(g[k]) and (best is None or g[k] > best[0] + MIN_GAIN):
            best = (float(g[k]), (i, j, k), int(gains[k].argmax()))
    return best


def _bounds(cands: list[tuple[int, int, int]], ids) -> dict[int, tuple[int, int]]:
    bounds: dict[int, tuple[int, int]] = {}
    for a in ids:
        f, lo, hi = cands[a]
        if f in bounds:
            lo, hi = max(lo, bounds[f][0]), min(hi, bounds[f][1])
        bounds[f] = (lo, hi)
    return bounds


def fit_rule_lists(X, C, *, max_rules: int, min_leaf: int = 8, max_conditions: int = MAX_CONDITIONS,
                   feature_ranges: list[tuple[int, int]]) -> list[list[tuple[dict, int]]]:
    """The nested rule lists of 1, 2, ... up to ``max_rules`` rules (fewer when no exception
    gains any more): element ``k - 1`` is the list of ``k`` rules, each ``(bounds, recipe)``,
    its last rule ``({}, default)``. ``feature_ranges``: ``(low, high)`` of every column of ``X``."""
    X = np.asarray(X, dtype=np.int64)
    C = np.asarray(C, dtype=np.float64)
    for name, v in (("max_rules", max_rules), ("min_leaf", min_leaf), ("max_conditions", max_conditions)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name}={v!r}: expected an integer >= 1")
    if max_conditions > MAX_CONDITIONS:
        raise ValueError(f"max_conditions={max_conditions}: expected 1..{MAX_CONDITIONS}")
    if X.ndim != 2 or C.ndim != 2 or X.shape[0] != C.shape[0] or X.shape[1] != len(feature_ranges):
        raise ValueError(f"X {X.shape} and C {C.shape}: expected the same rows, and one feature range per column "
                         f"of X ({len(feature_ranges)} given)")
    cands = atoms(X, feature_ranges)
    A = np.array([(X[:, f] >= lo) & (X[:, f] <= hi) for f, lo, hi in cands]).reshape(len(cands), X.shape[0])
    default = int(C.sum(axis=0).argmin())
    current = C[:, default].copy()
    top: list[tuple[dict, int]] = []
    lists = [[({}, default)]]
    while len(lists) < max_rules and cands:
        found = _best_exception(A, (current[:, None] - C).astype(np.float32), min_leaf, max_conditions)
        if found is None or found[0] <= MIN_GAIN:
            break
        _, ids, recipe = found
        covered = np.logical_and.reduce([A[a] for a in ids])
        top.insert(0, (_bounds(cands, ids), recipe))
        current[covered] = C[covered, recipe]
        lists.append(list(top) + [({}, default)])
    return lists
