"""A cost-sensitive decision tree over readable features: its leaves are the rules of a strategy
card.

Input: features ``X[n, F]`` (integers) and costs ``C[n, R]`` (the exact regret of action ``r``
on hand ``i``). A leaf plays the one action with the least total cost over its hands.

Grow, then prune (CART's recipe, with the cost in place of the misclassification rate):

1. **Grow** best-first to ``grow_leaves`` leaves. A split ``X[:, f] <= t`` is ranked by the
   cost it saves (the leaf's cost minus its two children's) and, among splits that save the same
   (most often: none), by how much it reduces the squared spread of the hands' cost vectors
   (``sum_i ||C_i - mean(C)||^2``, a multi-output regression tree on ``C``): the ``hybrid``
   criterion. The cost alone is a poor guide for *growing*: a split that only pays off after a
   second one (two pair *and* low pairs *and* no ace) saves nothing by itself, so a greedy tree
   on the cost never makes it; the spread sees it at once. (``cost`` and ``spread`` alone are
   available for comparison.)
2. **Prune** by the real cost: repeatedly merge the pair of sibling leaves whose merge adds the
   least cost (total regret over the training hands), until one leaf is left. Each merge removes
   one leaf, so the trees of every size ``k`` are nested, and :meth:`CostTree.leaves` and
   :meth:`CostTree.predict` take ``k``.

A child needs at least ``min_leaf`` hands.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

MIN_GAIN = 1e-12
CRITERIA = ("hybrid", "spread", "cost")


@dataclass
class Node:
    index: np.ndarray  # rows of X in this node
    bounds: dict  # feature -> (lo, hi), inclusive: the conditions of the path from the root
    action: int
    cost: float  # total cost of the rows when the node is a leaf
    split: tuple | None = None  # (gain, feature, threshold) of its best split, None if none
    children: tuple = field(default=())
    merged: int | None = None  # the pruning step at which it becomes a leaf again (0 = first)


def best_split(X: np.ndarray, C: np.ndarray, index: np.ndarray, min_leaf: int,
               criterion: str = "hybrid", G: np.ndarray | None = None) -> tuple | None:
    """``(gain, feature, threshold)`` of the split of rows ``index`` that gains most, or None.
    ``criterion``: ``cost`` (the drop in the total cost of the best action), ``spread`` (the
    drop in the squared spread of the rows of ``G``, default ``C``), or ``hybrid``: the cost
    first, the spread among splits that save the same cost; its gain is the pair
    ``(cost gain, spread gain)``."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion={criterion!r}: expected one of {CRITERIA}")
    G = C if G is None else G
    Cn, Gn = C[index], G[index]
    n = index.size
    total, gtotal = Cn.sum(axis=0), Gn.sum(axis=0)
    here_cost = float(total.min())
    sq = float((Gn * Gn).sum())
    here_spread = sq - float((gtotal * gtotal).sum()) / n
    best, best_key = None, None
    for f in range(X.shape[1]):
        x = X[index, f]
        order = np.argsort(x, kind="stable")
        xs = x[order]
        cut = np.flatnonzero(xs[:-1] < xs[1:])
        cut = cut[(cut + 1 >= min_leaf) & (n - cut - 1 >= min_leaf)]
        if cut.size == 0:
            continue
        cs = np.cumsum(Cn[order], axis=0)[cut]
        cost_gain = here_cost - cs.min(axis=1) - (total[None, :] - cs).min(axis=1)
        g_sorted = Gn[order]
        gs = np.cumsum(g_sorted, axis=0)[cut]
        sq_left = np.cumsum((g_sorted * g_sorted).sum(axis=1))[cut]
        n_left = (cut + 1).astype(float)
        right = gtotal[None, :] - gs
        spread_gain = here_spread - (sq_left - (gs * gs).sum(axis=1) / n_left) \
            - ((sq - sq_left) - (right * right).sum(axis=1) / (n - n_left))
        if criterion == "cost":
            keys = [(c,) for c in cost_gain]
        elif criterion == "spread":
            keys = [(g,) for g in spread_gain]
        else:
            keys = list(zip(np.where(cost_gain > MIN_GAIN, cost_gain, 0.0), spread_gain, strict=True))
        j = max(range(len(keys)), key=keys.__getitem__)
        if keys[j][-1] > MIN_GAIN * max(1.0, here_spread) or keys[j][0] > MIN_GAIN:
            if best_key is None or keys[j] > best_key:
                best_key, best = keys[j], (keys[j], f, int(xs[cut[j]]))
    if best is None:
        return None
    gain = best[0] if criterion == "hybrid" else best[0][0]
    return (gain, best[1], best[2])


def _priority(gain) -> tuple:
    """Heap key of a split: the largest gain (a number or a hybrid pair) first."""
    return tuple(-g for g in gain) if isinstance(gain, tuple) else (-gain,)


class CostTree:
    """Grow to ``grow_leaves`` leaves, then prune by cost (see the module docstring)."""

    def __init__(self, X, C, *, grow_leaves: int, min_leaf: int = 10, feature_ranges=None,
                 criterion: str = "hybrid", clip: float | None = None):
        X = np.asarray(X, dtype=np.int64)
        C = np.asarray(C, dtype=np.float64)
        if X.ndim != 2 or C.ndim != 2 or X.shape[0] != C.shape[0] or X.shape[0] == 0:
            raise ValueError(f"X {X.shape} and C {C.shape}: expected (n, features) and (n, actions), n >= 1")
        for name, v in (("grow_leaves", grow_leaves), ("min_leaf", min_leaf)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name}={v!r}: expected an integer >= 1")
        self.criterion = criterion
        self._grow_cost = C if clip is None else np.minimum(C, clip)
        self.ranges = feature_ranges or [(int(X[:, f].min()), int(X[:, f].max())) for f in range(X.shape[1])]
        self.root = self._node(X, C, np.arange(X.shape[0]), {}, min_leaf)
        n_leaves = 1
        heap = [(_priority(self.root.split[0]), 0, self.root)] if self.root.split else []
        tie = 1
        while heap and n_leaves < grow_leaves:
            _, _, node = heapq.heappop(heap)
            _, f, t = node.split
            go_left = X[node.index, f] <= t
            lo, hi = node.bounds.get(f, self.ranges[f])
            kids = []
            for sel, b in ((go_left, (lo, min(hi, t))), (~go_left, (max(lo, t + 1), hi))):
                kid = self._node(X, C, node.index[sel], {**node.bounds, f: b}, min_leaf)
                kids.append(kid)
                if kid.split:
                    heapq.heappush(heap, (_priority(kid.split[0]), tie, kid))
                    tie += 1
            node.children = tuple(kids)
            n_leaves += 1
        self.n_leaves = n_leaves
        self._prune()

    def _node(self, X, C, index, bounds, min_leaf) -> Node:
        total = C[index].sum(axis=0)
        a = int(np.argmin(total))
        return Node(index, bounds, a, float(total[a]),
                    best_split(X, C, index, min_leaf, self.criterion, G=self._grow_cost))

    def _prune(self) -> None:
        """Number the merges: the sibling leaves whose merge adds least cost go first."""
        leaf_cost = {}

        def subtree_cost(node):
            if not node.children:
                leaf_cost[id(node)] = node.cost
                return node.cost
            return sum(subtree_cost(k) for k in node.children)

        subtree_cost(self.root)
        parents = {}
        stack = [self.root]
        while stack:
            node = stack.pop()
            for k in node.children:
                parents[id(k)] = node
                stack.append(k)
        heap, tie = [], 0

        def offer(node):
            nonlocal tie
            if node.children and all(not k.children or k.merged is not None for k in node.children):
                below = sum(leaf_cost[id(k)] for k in node.children)
                heapq.heappush(heap, (node.cost - below, tie, node))
                tie += 1

        stack = [self.root]
        while stack:
            node = stack.pop()
            offer(node)
            stack.extend(node.children)
        step = 0
        while heap:
            _, _, node = heapq.heappop(heap)
            node.merged = step
            leaf_cost[id(node)] = node.cost
            step += 1
            parent = parents.get(id(node))
            if parent is not None:
                offer(parent)

    @property
    def max_leaves(self) -> int:
        return self.n_leaves

    def _check_k(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= self.max_leaves:
            raise ValueError(f"k={k!r}: expected 1..{self.max_leaves} leaves (the grown tree's sizes)")
        return int(k)

    def _is_split(self, node: Node, k: int) -> bool:
        # the tree of k leaves is the grown tree after its first n_leaves - k merges
        return bool(node.children) and node.merged >= self.n_leaves - k

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
        ids = {id(n): j for j, n in enumerate(self.leaves(k))}
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
        actions = np.array([n.action for n in self.leaves(k)], dtype=np.int64)
        return actions[self.predict_leaf(X, k)]
