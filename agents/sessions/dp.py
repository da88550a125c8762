"""Exact dynamic programme of a bankroll session: the betting policy that maximises the probability
of reaching a target, and the exact success probability of any fixed betting policy (bold play,
flat minimum betting, a learned policy's table).

Model (docs/sessions.md). The bankroll ``B`` lives on a grid of ``g`` chips, the largest amount
of which every bet and every payout is a multiple (Asia at seed 000's levels: $5, one table
minimum; Pai Gow with 5% commission: $0.25, since a $5 win pays $4.75). State ``i`` is
``B = i * g``; the session ends in *success* when ``B >= target`` and in *ruin* when ``B`` is
below the smallest main level. A bet is a pair (main level, bonus level) of the table, allowed
when main + bonus <= ``B``; its outcome follows :class:`splitpoker.agents.sessions.round_distribution.RoundDistribution`.

* **With a hand limit H**: backward induction, ``V_0 = [B >= target]`` and
  ``V_h(i) = max_a sum_o p_o V_{h-1}(next(i, a, o))``; exact.
* **Without one**: policy iteration on the transient states. Every bet loses with positive
  probability and a run of losses ruins, so every policy ends the session with probability 1 and
  ``(I - P_pi)`` is invertible: each evaluation is one dense linear solve, each improvement takes
  the best action where it beats the current one by more than 1e-12, and the loop stops when no
  state changes (finite, typically 3-10 rounds). This works whatever the sign of the edge: with a
  positive edge (optimal setter against ``asia-000``) timid play wins and the solve finds it; with
  a push-heavy game (Pai Gow) value iteration would converge slowly, policy iteration does not
  care.

Ties between bets of equal value go to the smaller total bet (lower action index).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from splitpoker.agents.sessions.round_distribution import RoundDistribution
from splitpoker.envs.rules.checks import is_integer

MAX_STATES = 6000  # dense linear solves: 6000^2 float64 = 288 MB
TIE = 1e-12


def _frac(x: float) -> Fraction:
    return Fraction(str(float(x))).limit_denominator(10_000)


def _gcd(values) -> Fraction:
    g = Fraction(0)
    for v in values:
        v = abs(v)
        if v == 0:
            continue
        if g == 0:
            g = v
        else:
            g = Fraction(math.gcd(g.numerator * v.denominator, v.numerator * g.denominator), g.denominator * v.denominator)
    return g


@dataclass(frozen=True)
class BetTable:
    """The bets of a table in chips: ``bets[a] = (main, bonus)`` in the environments' action
    order (main level major, bonus level minor); ``min_bet`` is the smallest main level."""

    bets: tuple[tuple[float, float], ...]

    @classmethod
    def from_levels(cls, main_levels, bonus_levels) -> BetTable:
        bets = tuple((float(m), float(b)) for m in main_levels for b in bonus_levels)
        if not bets:
            raise ValueError("no bet levels: expected at least one main level")
        return cls(bets)

    @classmethod
    def from_config(cls, config) -> BetTable:
        """From an :class:`splitpoker.envs.config.AsiaPokerConfig` or ``PaiGowPokerConfig``."""
        if hasattr(config, "ante_levels"):
            return cls.from_levels(config.ante_levels, config.bonus_levels)
        return cls.from_levels(config.wager_levels, config.fortune_levels)

    @property
    def min_bet(self) -> float:
        """The smallest bet the table takes (main + bonus): below it the player is ruined."""
        return min(m + b for m, b in self.bets)

    def totals(self) -> np.ndarray:
        return np.array([m + b for m, b in self.bets])


def outcome_amounts(dist: RoundDistribution, main: float, bonus: float) -> np.ndarray:
    """``float64[3, n_cols]``: net chips of each (main outcome, bonus column) for one bet."""
    res = np.asarray(dist.main_results)[:, None] * main
    cols = np.empty(len(dist.bonus_odds) + 1)
    cols[0] = -bonus
    for j, odds in enumerate(dist.bonus_odds):
        win = bonus * odds
        cols[j + 1] = min(win, dist.max_payout) if dist.max_payout is not None else win
    return res + cols[None, :]


def grid_size(dist: RoundDistribution, table: BetTable, *amounts: float) -> Fraction:
    """The largest chip amount every bet, payout and the given amounts (bankroll, target) are
    whole multiples of."""
    vals = [_frac(a) for a in amounts]
    for m, b in table.bets:
        vals += [_frac(m), _frac(b)]
        vals += [_frac(x) for x in outcome_amounts(dist, m, b).ravel()]
    g = _gcd(vals)
    if g == 0:
        raise ValueError("every amount is zero: no bankroll grid")
    return g


@dataclass
class SessionModel:
    """The Markov decision process of a session on its bankroll grid."""

    dist: RoundDistribution
    table: BetTable
    target: float
    grid: float
    n: int  # states 0..n-1 below the target; index n = success
    live: np.ndarray  # bool[n]: a bet is possible (bankroll >= min bet)
    shifts: list  # per action: int64[k] grid shifts of its distinct outcomes
    probs: list  # per action: float64[k] their probabilities
    cost: np.ndarray  # int64[A]: total bet in grid units

    @classmethod
    def build(cls, dist: RoundDistribution, table: BetTable, bankroll: float, target: float) -> SessionModel:
        check_session(table, bankroll, target)
        g = grid_size(dist, table, bankroll, target)
        n = int(_frac(target) / g)
        if n > MAX_STATES:
            raise ValueError(f"target ${target:g} on a ${float(g):g} grid gives {n} states, more than the "
                             f"{MAX_STATES} this exact solve handles: lower the target or use coarser levels")
        shifts, probs = [], []
        p = dist.prob.ravel()
        for m, b in table.bets:
            amounts = outcome_amounts(dist, m, b).ravel()
            s = np.array([int(_frac(x) / g) for x in amounts], dtype=np.int64)
            keep = p > 0
            u, inv = np.unique(s[keep], return_inverse=True)
            shifts.append(u)
            probs.append(np.bincount(inv, weights=p[keep], minlength=u.size))
        cost = np.array([int(_frac(m + b) / g) for m, b in table.bets], dtype=np.int64)
        live = np.arange(n) >= int(cost.min())
        return cls(dist, table, float(target), float(g), n, live, shifts, probs, cost)

    def state(self, bankroll: float) -> int:
        """Grid index of a bankroll (``n`` at or above the target)."""
        i = int(round(bankroll / self.grid))
        if abs(i * self.grid - bankroll) > 1e-6 * max(1.0, self.grid):
            raise ValueError(f"bankroll ${bankroll:g} is not a multiple of the ${self.grid:g} grid")
        return min(i, self.n)

    def q_values(self, v_ext: np.ndarray) -> np.ndarray:
        """``Q[a, i]`` for every action and state ``i < n`` given values ``v_ext[0..n]``
        (``v_ext[n] = 1``); -inf where the bet exceeds the bankroll or the state is not live."""
        idx = np.arange(self.n)
        q = np.full((len(self.shifts), self.n), -np.inf)
        for a, (s, p) in enumerate(zip(self.shifts, self.probs, strict=True)):
            ok = self.live & (idx >= self.cost[a])
            nxt = np.minimum(idx[ok][None, :] + s[:, None], self.n)
            q[a, ok] = p @ v_ext[nxt]
        return q

    def evaluate(self, policy: np.ndarray) -> np.ndarray:
        """Exact success probability ``v_ext[0..n]`` of a stationary ``policy[i]`` (action per
        state; ignored where not live) with no hand limit: one linear solve."""
        live_idx = np.flatnonzero(self.live)
        pos = np.full(self.n + 1, -1)
        pos[live_idx] = np.arange(live_idx.size)
        m = live_idx.size
        P = np.zeros((m, m))
        r = np.zeros(m)
        for k, i in enumerate(live_idx):
            a = int(policy[i])
            if self.cost[a] > i:
                raise ValueError(f"policy bets {self.table.bets[a]} at bankroll ${i * self.grid:g}: more than it holds")
            nxt = np.minimum(i + self.shifts[a], self.n)
            for j, p in zip(nxt, self.probs[a], strict=True):
                if j == self.n:
                    r[k] += p
                elif pos[j] >= 0:
                    P[k, pos[j]] += p
        v = np.linalg.solve(np.eye(m) - P, r)
        out = np.zeros(self.n + 1)
        out[live_idx] = np.clip(v, 0.0, 1.0)
        out[self.n] = 1.0
        return out

    def evaluate_finite(self, policy_fn, hands: int) -> np.ndarray:
        """Success probability within ``hands`` hands of a policy ``policy_fn(i) -> action``."""
        v = np.zeros(self.n + 1)
        v[self.n] = 1.0
        acts = np.array([policy_fn(i) if self.live[i] else -1 for i in range(self.n)])
        groups = [(a, np.flatnonzero(acts == a)) for a in np.unique(acts[acts >= 0])]
        for _ in range(hands):
            new = np.zeros_like(v)
            new[self.n] = 1.0
            for a, states in groups:
                new[states] = self.probs[a] @ v[np.minimum(states[None, :] + self.shifts[a][:, None], self.n)]
            v = new
        return v


@dataclass
class SessionSolution:
    """Values and policy of a solve. ``values[i]``: success probability from state ``i``
    (``i = n`` is the target); ``policy[i]`` the action (-1 where no bet is possible); with a
    hand limit, ``policy[h - 1, i]`` is the action with ``h`` hands left."""

    model: SessionModel
    values: np.ndarray
    policy: np.ndarray
    hands: int | None
    iterations: int

    def success(self, bankroll: float) -> float:
        return float(self.values[self.model.state(bankroll)])

    def action(self, bankroll: float, hands_left: int | None = None) -> int:
        i = self.model.state(bankroll)
        if i >= self.model.n:
            return -1
        if self.hands is None:
            return int(self.policy[i])
        h = self.hands if hands_left is None else hands_left
        return int(self.policy[h - 1, i]) if h >= 1 else -1

    def bet_rows(self) -> list[dict]:
        """The optimal bet per live bankroll (no hand limit: the stationary policy; with one: the
        first hand's)."""
        pol = self.policy if self.hands is None else self.policy[self.hands - 1]
        rows = []
        for i in np.flatnonzero(self.model.live):
            a = int(pol[i])
            m, b = self.model.table.bets[a]
            rows.append({"bankroll": i * self.model.grid, "main": m, "bonus": b, "action": a,
                         "success": float(self.values[i])})
        return rows


def check_session(table: BetTable, bankroll, target) -> None:
    for name, v in (("bankroll", bankroll), ("target", target)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"{name}={v!r}: expected a positive number of chips")
    if target <= bankroll:
        raise ValueError(f"target={target:g} must be above the starting bankroll={bankroll:g}")
    if bankroll < table.min_bet:
        raise ValueError(f"bankroll={bankroll:g} is below the smallest bet ${table.min_bet:g}: no bet is possible")


def solve(dist: RoundDistribution, table: BetTable, bankroll: float, target: float,
          hands: int | None = None, max_iterations: int = 200) -> SessionSolution:
    """The optimal betting policy for reaching ``target`` from ``bankroll`` (chips), within
    ``hands`` hands or with no limit."""
    model = SessionModel.build(dist, table, bankroll, target)
    if hands is not None:
        if not is_integer(hands) or hands < 1:
            raise ValueError(f"hands={hands!r}: expected a positive integer (or None for no limit)")
        v = np.zeros(model.n + 1)
        v[model.n] = 1.0
        policy = np.full((hands, model.n), -1, dtype=np.int64)
        for h in range(hands):
            q = model.q_values(v)
            best = np.argmax(q, axis=0)
            new = np.zeros_like(v)
            new[model.n] = 1.0
            new[: model.n] = np.where(model.live, q[best, np.arange(model.n)], 0.0)
            policy[h] = np.where(model.live, best, -1)
            v = new
        return SessionSolution(model, v, policy, int(hands), int(hands))
    policy = np.zeros(model.n, dtype=np.int64)  # flat minimum bet: proper, as every policy is
    policy[:] = int(np.argmin(model.cost))
    for it in range(1, max_iterations + 1):
        v = model.evaluate(policy)
        q = model.q_values(v)
        cur = q[policy, np.arange(model.n)]
        best = np.argmax(q, axis=0)
        better = model.live & (q[best, np.arange(model.n)] > cur + TIE)
        if not better.any():
            out = np.where(model.live, policy, -1)
            return SessionSolution(model, v, out, None, it)
        policy = np.where(better, best, policy)
    raise RuntimeError(f"policy iteration did not settle in {max_iterations} rounds")


def bold_action(table: BetTable, dist: RoundDistribution, bankroll: float, target: float) -> int:
    """Bold play (Dubins–Savage) on the table's levels, no bonus: the smallest main level whose
    win reaches the target if the bankroll covers it, else the largest main level it covers."""
    win = dist.main_results[0]
    need = target - bankroll
    mains = [(a, m) for a, (m, b) in enumerate(table.bets) if b == 0 and m <= bankroll + 1e-9]
    if not mains:
        raise ValueError(f"no main bet without bonus fits bankroll ${bankroll:g}")
    reach = [(a, m) for a, m in mains if m * win >= need - 1e-9]
    return min(reach, key=lambda x: x[1])[0] if reach else max(mains, key=lambda x: x[1])[0]


def flat_action(table: BetTable) -> int:
    """Flat betting: the smallest main level, no bonus."""
    options = [(m, a) for a, (m, b) in enumerate(table.bets) if b == 0]
    if not options:
        raise ValueError("the table offers no bet without a bonus: flat minimum betting is undefined")
    return min(options)[1]


def policy_success(dist: RoundDistribution, table: BetTable, bankroll: float, target: float,
                   action_of, hands: int | None = None) -> tuple[float, SessionModel, np.ndarray]:
    """Exact success probability of the stationary betting rule ``action_of(bankroll) -> action``."""
    model = SessionModel.build(dist, table, bankroll, target)
    acts = np.zeros(model.n, dtype=np.int64)
    for i in np.flatnonzero(model.live):
        acts[i] = action_of(i * model.grid)
    if hands is None:
        v = model.evaluate(acts)
    else:
        v = model.evaluate_finite(lambda i: acts[i], hands)
    return float(v[model.state(bankroll)]), model, acts


def compare(dist: RoundDistribution, table: BetTable, bankroll: float, target: float,
            hands: int | None = None) -> dict:
    """Optimal, bold and flat betting for one session: success probabilities and bets (chips)."""
    sol = solve(dist, table, bankroll, target, hands)
    out = {"bankroll": bankroll, "target": target, "hands": hands, "grid": sol.model.grid,
           "states": sol.model.n, "distribution": dist.to_dict()}
    out["optimal"] = {"success": sol.success(bankroll), "iterations": sol.iterations, "bets": sol.bet_rows()}
    for name, rule in (("bold", lambda b: bold_action(table, dist, b, target)), ("flat", lambda b: flat_action(table))):
        p, model, acts = policy_success(dist, table, bankroll, target, rule, hands)
        out[name] = {"success": p, "bets": [{"bankroll": i * model.grid, "main": table.bets[acts[i]][0],
                                             "bonus": table.bets[acts[i]][1], "action": int(acts[i])}
                                            for i in np.flatnonzero(model.live)]}
    return out
