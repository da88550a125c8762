"""Betting policies for the session environments and their evaluation on common random numbers.

Session ``i`` of an evaluation is ``env.reset(seed=seed_i)``; the environment deals hand ``k`` of
a session from the ``k``-th draw of the session's generator, whatever was bet before, so every
policy meets the same cards and dealer hands hand by hand (common random numbers) and the paired
difference of two policies' success indicators carries less noise than either rate.

Policies: the DP optimum (:class:`DPPolicy`, the table of :func:`splitpoker.agents.sessions.dp.solve`), bold
play and flat minimum betting (:class:`RulePolicy`), and a trained SB3 model
(:class:`ModelPolicy`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from splitpoker.agents.evaluation.evaluate import Z95, hand_seeds, mean_ci
from splitpoker.agents.sessions import dp as sd


class DPPolicy:
    """Bets by the exact DP solution (per bankroll, and hands left with a hand limit)."""

    def __init__(self, solution: sd.SessionSolution, name: str = "optimal (DP)"):
        self.solution = solution
        self.name = name

    def act(self, obs, info) -> int:
        hands_left = info["hands_left"]  # -1: no hand limit
        return self.solution.action(info["bankroll"], None if hands_left < 0 else hands_left)


class RulePolicy:
    """A stationary betting rule ``action_of(bankroll) -> action`` (bold, flat)."""

    def __init__(self, action_of: Callable[[float], int], name: str):
        self.action_of = action_of
        self.name = name

    def act(self, obs, info) -> int:
        return int(self.action_of(info["bankroll"]))


class ModelPolicy:
    """A trained SB3 model (MaskablePPO gets the action mask)."""

    def __init__(self, model, name: str = "learned", deterministic: bool = True):
        self.model = model
        self.name = name
        self.deterministic = deterministic
        self.uses_masks = type(model).__name__.startswith("Maskable")

    def act(self, obs, info) -> int:
        kw = {"action_masks": info["action_mask"]} if self.uses_masks else {}
        a, _ = self.model.predict(obs, deterministic=self.deterministic, **kw)
        return int(a)


@dataclass
class SessionRecord:
    reached: np.ndarray  # bool per session
    final_bankroll: np.ndarray
    hands: np.ndarray
    invalid: np.ndarray  # bool: ended by a penalised invalid action


def run_sessions(env, policy, seeds: list[int], progress: Callable[[int], None] | None = None) -> SessionRecord:
    n = len(seeds)
    rec = SessionRecord(np.zeros(n, bool), np.zeros(n), np.zeros(n, np.int64), np.zeros(n, bool))
    for i, s in enumerate(seeds):
        obs, info = env.reset(seed=s)
        while True:
            obs, _, term, trunc, info = env.step(policy.act(obs, info))
            if term or trunc:
                break
        rec.reached[i] = bool(info.get("reached_target", False))
        rec.final_bankroll[i] = info["bankroll"]
        rec.hands[i] = info["hands_played"]
        rec.invalid[i] = info.get("invalid_action", -1) >= 0
        if progress is not None:
            progress(1)
    return rec


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson 95% interval of a binomial proportion (sound near 0 and 1)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize_sessions(records: dict[str, SessionRecord], exact: dict[str, float], reference: str) -> dict:
    """Per policy: simulated success rate and its 95% CI, the exact probability where known, the
    ratio to the reference's exact probability and the paired difference to the reference."""
    ref = records[reference]
    ref_exact = exact.get(reference)
    out = {}
    for name, rec in records.items():
        n, k = rec.reached.size, int(rec.reached.sum())
        lo, hi = wilson(k, n)
        d, dci = mean_ci(rec.reached.astype(float) - ref.reached.astype(float))
        row = {"sessions": n, "success": k / n, "success_ci95": [lo, hi], "exact": exact.get(name),
               "exact_inside_ci": None if name not in exact else bool(lo <= exact[name] <= hi),
               "of_optimum": (k / n) / ref_exact if ref_exact else None,
               "diff_vs_" + reference.split()[0]: d, "diff_ci95": 0.0 if name == reference else dci,
               "mean_hands": float(rec.hands.mean()), "mean_final_bankroll": float(rec.final_bankroll.mean()),
               "invalid_rate": float(rec.invalid.mean())}
        out[name] = row
    return out


def format_sessions_table(summary: dict) -> str:
    head = (f"{'policy':<22} {'success':>8} {'95% CI':>17} {'exact':>8} {'in CI':>6} {'sim/opt':>7} "
            f"{'paired diff':>18} {'hands':>7}")
    lines = [head, "-" * len(head)]
    for name, r in summary.items():
        diff_key = next(k for k in r if k.startswith("diff_vs_"))
        exact = "" if r["exact"] is None else f"{r['exact']:.4f}"
        inside = "" if r["exact_inside_ci"] is None else ("yes" if r["exact_inside_ci"] else "NO")
        of = "" if r["of_optimum"] is None else f"{100 * r['of_optimum']:.1f}%"
        lines.append(f"{name[:22]:<22} {r['success']:>8.4f} {r['success_ci95'][0]:>8.4f}-{r['success_ci95'][1]:<8.4f} "
                     f"{exact:>8} {inside:>6} {of:>7} {r[diff_key]:>+9.4f} ± {r['diff_ci95']:<6.4f} "
                     f"{r['mean_hands']:>7.1f}")
    lines.append("(success: share of sessions reaching the target; exact: the DP's probability; sim/opt: simulated success / "
                 "the DP optimum; paired diff: vs the DP policy on the same sessions)")
    return "\n".join(lines)


def session_seeds(seed: int, n: int) -> list[int]:
    return hand_seeds(seed, n)


def dp_baselines(env, dist, hands: int | None = None) -> tuple[dict, dict, sd.SessionSolution]:
    """The DP optimum, bold and flat policies for a session env, with their exact success
    probabilities."""
    u = env.unwrapped
    if u.agent_sets:
        raise ValueError("the DP policies bet only: use a session env whose setting is delegated "
                         "(setting='house-way' or 'optimal'), not setting='agent'")
    if u.target is None:
        raise ValueError("the DP maximises the chance of reaching a target: the env needs target=...")
    table = sd.BetTable(tuple(u.bet_table))
    hands = u.max_hands if hands is None else hands
    sol = sd.solve(dist, table, u.start_bankroll, u.target, hands)
    bold = lambda b: sd.bold_action(table, dist, b, u.target)  # noqa: E731
    flat = lambda b: sd.flat_action(table)  # noqa: E731
    policies = {"optimal (DP)": DPPolicy(sol), "bold": RulePolicy(bold, "bold"), "flat": RulePolicy(flat, "flat")}
    exact = {"optimal (DP)": sol.success(u.start_bankroll),
             "bold": sd.policy_success(dist, table, u.start_bankroll, u.target, bold, hands)[0],
             "flat": sd.policy_success(dist, table, u.start_bankroll, u.target, flat, hands)[0]}
    return policies, exact, sol


def exact_policy_success(env, policy, dist) -> tuple[float | None, list[dict]]:
    """Exact success probability of a deterministic betting ``policy`` that depends on the
    observation only (a trained model, a rule): its bet is read off at every bankroll of the DP's
    grid (the observation the env would show there), then evaluated by one linear solve. ``None``
    with a hand limit or ``setting='agent'`` (the bet would depend on more than the bankroll).
    Leaves the env needing a ``reset()``."""
    u = env.unwrapped
    if u.max_hands is not None or u.agent_sets or u.target is None:
        return None, []
    table = sd.BetTable(tuple(u.bet_table))
    model = sd.SessionModel.build(dist, table, u.start_bankroll, u.target)
    acts = np.zeros(model.n, dtype=np.int64)
    rows = []
    u.reset(seed=0)
    for i in np.flatnonzero(model.live):
        u.bankroll = float(i * model.grid)
        info = {"bankroll": u.bankroll, "hands_left": -1, "action_mask": u.action_masks()}
        a = int(policy.act(u._observation(), info))
        if not info["action_mask"][a]:
            return 0.0, rows  # a masked bet ends the session with the penalty: never reaches the target
        acts[i] = a
        rows.append({"bankroll": u.bankroll, "main": table.bets[a][0], "bonus": table.bets[a][1], "action": a})
    u.done = True
    v = model.evaluate(acts)
    return float(v[model.state(u.start_bankroll)]), rows
