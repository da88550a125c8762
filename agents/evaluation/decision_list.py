"""An ordered rule list, read top to bottom: the first rule whose conditions all hold decides.

A pruned tree (:mod:`splitpoker.agents.evaluation.rule_learner`) gives one rule per leaf, its
conditions the whole path from the root. Read in order with "first rule that applies", most of
those conditions are not needed: a rule need not exclude hands that an earlier rule already took,
and the last rule needs no condition at all ("any other hand"). :func:`simplify` drops, rule by
rule, every condition whose removal does not raise the total cost on the training hands (tried
least readable first: the conditions on singletons' ranks before those on pairs, counts and the
hand's category). The list that results is what the card prints and what is scored, so the
printed card and its reported regret always agree.

A rule: ``(bounds, action)``, ``bounds`` = {feature index: (lo, hi)} (inclusive).
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-12


def rules_from_leaves(leaves) -> list[tuple[dict, int]]:
    """The leaves (left to right) as rules: their path conditions and actions."""
    return [(dict(leaf.bounds), int(leaf.action)) for leaf in leaves]


def matches(X: np.ndarray, bounds: dict) -> np.ndarray:
    """Which rows of ``X`` satisfy every condition of ``bounds``."""
    ok = np.ones(X.shape[0], dtype=bool)
    for f, (lo, hi) in bounds.items():
        ok &= (X[:, f] >= lo) & (X[:, f] <= hi)
    return ok


def which_rule(X: np.ndarray, rules) -> np.ndarray:
    """Index of the first rule that applies to each row (``len(rules)`` if none does)."""
    X = np.asarray(X, dtype=np.int64)
    out = np.full(X.shape[0], len(rules), dtype=np.int64)
    free = np.ones(X.shape[0], dtype=bool)
    for j, (bounds, _) in enumerate(rules):
        hit = free & matches(X, bounds)
        out[hit] = j
        free &= ~hit
    return out


def actions(X: np.ndarray, rules, default: int | None = None) -> np.ndarray:
    """The action of the first rule that applies to each row (``default`` when none does;
    ValueError if there is no default and a row is left over)."""
    j = which_rule(X, rules)
    acts = np.array([a for _, a in rules] + [-1 if default is None else default], dtype=np.int64)
    if default is None and (j == len(rules)).any():
        raise ValueError(f"{int((j == len(rules)).sum())} hands match no rule and there is no default")
    return acts[j]


def total_cost(X: np.ndarray, C: np.ndarray, rules) -> float:
    return float(C[np.arange(X.shape[0]), actions(X, rules)].sum())


def simplify(X: np.ndarray, C: np.ndarray, rules, order: list[int] | None = None) -> list[tuple[dict, int]]:
    """``rules`` with every condition dropped whose removal does not raise the training cost
    (and the last rule's conditions all dropped: it takes every hand left). ``order``: the
    feature indices in the order their conditions are tried (first = dropped most eagerly).

    Incremental: only a hand taken by a later rule can move to rule ``j``, and only when the
    condition dropped is the one condition of rule ``j`` it fails; so each rule counts, once, the
    conditions each such hand fails, and each try costs one pass over those hands instead of
    re-matching every hand against every remaining condition (tests/test_strategy_card.py checks
    it against the literal definition)."""
    X = np.asarray(X, dtype=np.int64)
    rules = [(dict(b), a) for b, a in rules]
    if not rules:
        return rules
    rules[-1] = ({}, rules[-1][1])  # the leaves partition every hand: the last takes the rest
    C = np.asarray(C, dtype=np.float64)
    n = X.shape[0]
    assigned = which_rule(X, rules)
    acts = np.array([a for _, a in rules], dtype=np.int64)
    total = float(C[np.arange(n), acts[assigned]].sum())
    rank = {f: i for i, f in enumerate(order)} if order is not None else {}
    for j in range(len(rules) - 1):
        bounds = rules[j][0]
        # only hands now taken by a later rule can move to rule j, and each of them fails at least
        # one of its conditions; one that fails only f moves when f is dropped
        later = np.flatnonzero(assigned > j)
        if later.size == 0:  # no hand can move: dropping any condition costs nothing
            rules[j] = ({}, rules[j][1])
            continue
        Xl = X[later]
        fails_of = {f: (Xl[:, f] < lo) | (Xl[:, f] > hi) for f, (lo, hi) in bounds.items()}
        fails = np.sum(list(fails_of.values()), axis=0)
        for f in sorted(bounds, key=lambda f: rank.get(f, -1)):
            hit = (fails == 1) & fails_of[f]  # a hand moved already fails none any more
            moved = later[hit]
            delta = C[moved, acts[j]].sum() - C[moved, acts[assigned[moved]]].sum()
            if delta <= TOLERANCE * max(1.0, total):
                rules[j] = ({g: b for g, b in rules[j][0].items() if g != f}, rules[j][1])
                assigned[moved] = j
                fails = fails - fails_of[f]
                if moved.size:
                    total = float(C[np.arange(n), acts[assigned]].sum())
    # the first rule left without conditions takes every hand left: the rules after it go, and
    # so does a rule that no training hand reaches any more
    first_free = next(j for j, (b, _) in enumerate(rules) if not b)
    rules = rules[:first_free + 1]
    used = set(which_rule(X, rules).tolist())
    return [r for j, r in enumerate(rules) if j in used or j == len(rules) - 1]
