"""A cost-sensitive decision tree over readable features: its leaves are the rules of a strategy
card.

Input: features ``X[n, F]`` (integers) and costs ``C[n, R]`` (the exact regret of action ``r``
on hand ``i``). A leaf plays the one action with the least total cost over its hands; a split
``X[:, f] <= t`` is worth the cost it saves (the leaf's cost minus its two children's). Growth is
best-first: the leaf whose best split saves most is split next, so the tree of ``k`` leaves is
the tree of ``k - 1`` leaves with one more split, and one growth gives every size up to the
largest (:meth:`CostTree.leaves`, :meth:`CostTree.predict` take ``k``). A child needs at least
``min_leaf`` hands, and a split must save more than ``1e-12`` in total.

This is CART's best-first growth (``max_leaf_nodes``) with the misclassification loss replaced by
the per-hand cost of each action: what a mistake costs in EV, not whether it is a mistake.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

MIN_GAIN = 1e-12


@dataclass
class Node:
    index: np.ndarray  # rows of X in this node
    bounds: dict  # feature -> (lo, hi), inclusive: the conditions of the path from the root
    action: int
    cost: float
    split: tuple | None = None  # (gain, feature, threshold) of the best split, None if none
    step: int | None = None  # when it was split (0 = first split)
    children: tuple = field(default=())


def best_split(X: np.ndarray, C: np.ndarray, index: np.ndarray, min_leaf: int) -> tuple | None:
    """``(gain, feature, threshold)`` of the split of rows ``index`` that saves most, or None."""
    Cn = C[index]
    total = Cn.sum(axis=0)
    here = float(total.min())
    n = index.size
    best = None
    for f in range(X.shape[1]):
        x = X[index, f]
        order = np.argsort(x, kind="stable")
        xs = x[order]
        cut = np.flatnonzero(xs[:-1] < xs[1:])
        cut = cut[(cut + 1 >= min_leaf) & (n - cut - 1 >= min_leaf)]
        if cut.size == 0:
            continue
        cs = np.cumsum(Cn[order], axis=0)[cut]
        gain = here - cs.min(axis=1) - (total[None, :] - cs).min(axis=1)
        j = int(np.argmax(gain))
        if gain[j] > MIN_GAIN and (best is None or gain[j] > best[0] + MIN_GAIN):
            best = (float(gain[j]), f, int(xs[cut[j]]))
    return best


class CostTree:
    """Grow a cost-sensitive tree of up to ``max_leaves`` leaves (see the module docstring)."""

    def __init__(self, X, C, *, max_leaves: int, min_leaf: int = 10, feature_ranges=None):
        X = np.asarray(X, dtype=np.int64)
        C = np.asarray(C, dtype=np.float64)
        if X.ndim != 2 or C.ndim != 2 or X.shape[0] != C.shape[0] or X.shape[0] == 0:
            raise ValueError(f"X {X.shape} and C {C.shape}: expected (n, features) and (n, actions), n >= 1")
        for name, v in (("max_leaves", max_leaves), ("min_leaf", min_leaf)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name}={v!r}: expected an integer >= 1")
        self.n_features = X.shape[1]
        self.ranges = feature_ranges or [(int(X[:, f].min()), int(X[:, f].max())) for f in range(X.shape[1])]
        root_index = np.arange(X.shape[0])
        self.root = self._node(X, C, root_index, {}, min_leaf)
        self.n_splits = 0
        heap = [(-self.root.split[0], 0, self.root)] if self.root.split else []
        tie = 1
        while heap and self.n_splits < max_leaves - 1:
            _, _, node = heapq.heappop(heap)
            _, f, t = node.split
            go_left = X[node.index, f] <= t
            lo, hi = node.bounds.get(f, self.ranges[f])
            kids = []
            for sel, b in ((go_left, (lo, min(hi, t))), (~go_left, (max(lo, t + 1), hi))):
                kid = self._node(X, C, node.index[sel], {**node.bounds, f: b}, min_leaf)
                kids.append(kid)
                if kid.split:
                    heapq.heappush(heap, (-kid.split[0], tie, kid))
                    tie += 1
            node.children = tuple(kids)
            node.step = self.n_splits
            self.n_splits += 1

    @staticmethod
    def _node(X, C, index, bounds, min_leaf) -> Node:
        total = C[index].sum(axis=0)
        a = int(np.argmin(total))
        return Node(index, bounds, a, float(total[a]), best_split(X, C, index, min_leaf))

    @property
    def max_leaves(self) -> int:
        return self.n_splits + 1

    def _check_k(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.max_leaves:
            raise ValueError(f"k={k!r}: expected 1..{self.max_leaves} leaves (the grown tree's sizes)")
        return int(k)

    def _is_split(self, node: Node, k: int) -> bool:
        return node.step is not None and node.step < k - 1

    def leaves(self, k: int) -> list[Node]:
        """The leaves of the tree of ``k`` leaves, left to right."""
        k = self._check_k(k)
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if self._is_split(node, k):
                stack.extend(reversed(node.children))
            else:
                out.append(node)
        return out

    def predict_leaf(self, X, k: int) -> np.ndarray:
        """Index (into :meth:`leaves` of ``k``) of the leaf each row of ``X`` falls in."""
        k = self._check_k(k)
        X = np.asarray(X, dtype=np.int64)
        leaves = self.leaves(k)
        ids = {id(n): j for j, n in enumerate(leaves)}
        out = np.empty(X.shape[0], dtype=np.int64)
        for i, x in enumerate(X):
            node = self.root
            while self._is_split(node, k):
                f, t = node.split[1], node.split[2]
                node = node.children[0] if x[f] <= t else node.children[1]
            out[i] = ids[id(node)]
        return out

    def predict(self, X, k: int) -> np.ndarray:
        """The action of the leaf each row of ``X`` falls in, in the tree of ``k`` leaves."""
        leaves = self.leaves(k)
        actions = np.array([n.action for n in leaves], dtype=np.int64)
        return actions[self.predict_leaf(X, k)]
