"""Evaluate policies on the same dealt hands and dealer hands (common random numbers).

Hand ``i`` of an evaluation is the episode ``env.reset(seed=seed_i)``: the environment deals the
player's cards *and* the dealer's cards at reset from that seed, so every policy meets exactly
the same player and dealer hands. Per policy: mean reward per hand with a 95% confidence
interval, win / push / loss rates of the main bet, foul rate, agreement with the house way, and
the paired difference to the house way (per-hand differences, so the shared luck cancels).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from splitpoker.envs.rules.house_ways.check import Z95  # the two-sided 95% normal quantile


@dataclass
class HandRecord:
    reward: np.ndarray
    main_result: np.ndarray
    fouled: np.ndarray
    agrees: np.ndarray
    settings: np.ndarray  # the setting played (-1 for a penalised invalid action)
    cards: np.ndarray  # int64[n, 7] the player's sorted cards


def hand_seeds(seed: int, n: int) -> list[int]:
    """The reset seeds of an evaluation sample (deterministic in ``seed``)."""
    ss = np.random.SeedSequence(seed)
    return [int(x) for x in ss.generate_state(n, dtype=np.uint32)]


def run_policy(env, policy, seeds: list[int], progress: Callable[[int], None] | None = None) -> HandRecord:
    n = len(seeds)
    rec = HandRecord(np.zeros(n), np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.int64),
                     np.zeros((n, 7), np.int64))
    for i, s in enumerate(seeds):
        obs, info = env.reset(seed=s)
        rec.cards[i] = env.unwrapped.player
        total = 0.0
        while True:
            obs, r, term, trunc, info = env.step(policy.act(obs, info["action_mask"]))
            total += r
            if term or trunc:
                break
        rec.reward[i] = total
        settled = info.get("setting", -1) >= 0  # else a penalised action ended the round
        rec.main_result[i] = info["main_result"] if settled else -1.0
        rec.fouled[i] = bool(info.get("fouled", False)) or info.get("invalid_action", -1) >= 0
        rec.agrees[i] = bool(info.get("agrees_with_house_way", False))
        rec.settings[i] = info.get("setting", -1)
        if progress is not None:
            progress(1)
    return rec


def regret_summary(records: dict[str, HandRecord], solver, n_hands: int, progress=None) -> dict[str, dict]:
    """Exact regret of each policy on the first ``n_hands`` hands: EV(optimal setting) − EV(chosen
    setting), from one exact solve per hand (:class:`splitpoker.envs.solver.exact.ExactSolver`). Also the share of
    hands played optimally (the chosen setting ties the optimum exactly) and the policies' mean
    exact EV. A penalised invalid action counts as EV −1 (what a foul loses)."""
    first = next(iter(records.values()))
    n = min(n_hands, first.cards.shape[0])
    regrets = {name: np.zeros(n) for name in records}
    optimal = {name: np.zeros(n, bool) for name in records}
    evs = {name: np.zeros(n) for name in records}
    best_ev = np.zeros(n)
    for i in range(n):
        result = solver.solve(first.cards[i])
        opt = set(result.optimal_settings().tolist())
        best_ev[i] = result.ev[next(iter(opt))]
        for name, rec in records.items():
            if not np.array_equal(rec.cards[i], first.cards[i]):
                raise ValueError(f"policy {name!r} saw different cards on hand {i}: evaluation is not paired")
            s = int(rec.settings[i])
            ev = -1.0 if s < 0 else float(result.ev[s])
            evs[name][i] = ev
            regrets[name][i] = best_ev[i] - ev
            optimal[name][i] = s in opt
        if progress is not None:
            progress(1)
    out = {}
    for name in records:
        m, ci = mean_ci(regrets[name])
        e, eci = mean_ci(evs[name])
        out[name] = {"hands": n, "mean_regret": m, "regret_ci95": ci, "optimal_rate": float(optimal[name].mean()),
                     "mean_exact_ev": e, "exact_ev_ci95": eci}
    out["optimal" if "optimal" not in out else "optimal (exact)"] = {"hands": n, "mean_regret": 0.0, "regret_ci95": 0.0, "optimal_rate": 1.0,
                      "mean_exact_ev": mean_ci(best_ev)[0], "exact_ev_ci95": mean_ci(best_ev)[1]}
    return out


def format_regret_table(regret: dict[str, dict]) -> str:
    head = f"{'policy':<28} {'exact regret/hand':>18} {'±95%':>8} {'optimal':>8} {'exact EV/hand':>14} {'±95%':>8}"
    lines = [head, "-" * len(head)]
    for name, r in regret.items():
        lines.append(f"{name[:28]:<28} {r['mean_regret']:>18.5f} {r['regret_ci95']:>8.5f} {r['optimal_rate']:>8.3f} "
                     f"{r['mean_exact_ev']:>+14.5f} {r['exact_ev_ci95']:>8.5f}")
    lines.append("(main bet per unit wagered, exact over all dealer hands; optimal: share of hands played optimally)")
    return "\n".join(lines)


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% confidence interval."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return float(x.mean()) if x.size else math.nan, math.nan
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size))


def summarize(records: dict[str, HandRecord], baseline: str = "house-way") -> dict[str, dict]:
    out = {}
    base = records.get(baseline)
    for name, rec in records.items():
        m, ci = mean_ci(rec.reward)
        row = {
            "hands": int(rec.reward.size),
            "mean_reward": m, "ci95": ci,
            "win_rate": float((rec.main_result > 1e-12).mean()),
            "push_rate": float((np.abs(rec.main_result) <= 1e-12).mean()),
            "loss_rate": float((rec.main_result < -1e-12).mean()),
            "foul_rate": float(rec.fouled.mean()),
            "house_way_agreement": float(rec.agrees.mean()),
        }
        if base is not None:
            d, dci = mean_ci(rec.reward - base.reward)
            row["diff_vs_house_way"] = d
            row["diff_vs_house_way_ci95"] = dci if name != baseline else 0.0
        out[name] = row
    return out


def format_table(summary: dict[str, dict], unit: str = "units") -> str:
    head = (f"{'policy':<28} {'reward/hand':>12} {'±95%':>8} {'win':>7} {'push':>7} {'loss':>7} "
            f"{'foul':>7} {'=HW':>7} {'vs house way':>20}")
    lines = [head, "-" * len(head)]
    for name, r in summary.items():
        diff = ""
        if "diff_vs_house_way" in r:
            diff = f"{r['diff_vs_house_way']:+.4f} ± {r['diff_vs_house_way_ci95']:.4f}"
        lines.append(f"{name[:28]:<28} {r['mean_reward']:>+12.4f} {r['ci95']:>8.4f} {r['win_rate']:>7.3f} "
                     f"{r['push_rate']:>7.3f} {r['loss_rate']:>7.3f} {r['foul_rate']:>7.3f} "
                     f"{r['house_way_agreement']:>7.3f} {diff:>20}")
    lines.append(f"(reward in {unit}; =HW: share of hands set exactly as the house way)")
    return "\n".join(lines)


def bar_plot(summary: dict[str, dict], path: str, title: str, key: str = "mean_reward", ci_key: str = "ci95",
             ylabel: str = "mean reward per hand (table minimums)") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary)
    vals = [summary[n][key] for n in names]
    errs = [summary[n][ci_key] for n in names]
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(names)), 4))
    ax.bar(names, vals, yerr=errs, capsize=6, color=["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"][: len(names)])
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    for i, (v, e) in enumerate(zip(vals, errs, strict=True)):
        e = 0.0 if e != e else e  # NaN (a single hand) draws no bar
        ax.annotate(f"{v:+.3f}", (i, v + e if v >= 0 else v - e), ha="center", va="bottom" if v >= 0 else "top",
                    fontsize=9, xytext=(0, 2 if v >= 0 else -2), textcoords="offset points")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
