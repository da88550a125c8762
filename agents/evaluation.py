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

Z95 = 1.959963984540054


@dataclass
class HandRecord:
    reward: np.ndarray
    main_result: np.ndarray
    fouled: np.ndarray
    agrees: np.ndarray
    settings: np.ndarray


def hand_seeds(seed: int, n: int) -> list[int]:
    """The reset seeds of an evaluation sample (deterministic in ``seed``)."""
    ss = np.random.SeedSequence(seed)
    return [int(x) for x in ss.generate_state(n, dtype=np.uint32)]


def run_policy(env, policy, seeds: list[int], progress: Callable[[int], None] | None = None) -> HandRecord:
    n = len(seeds)
    rec = HandRecord(np.zeros(n), np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.int64))
    for i, s in enumerate(seeds):
        obs, info = env.reset(seed=s)
        total = 0.0
        while True:
            obs, r, term, trunc, info = env.step(policy.act(obs, info["action_mask"]))
            total += r
            if term or trunc:
                break
        rec.reward[i] = total
        rec.main_result[i] = info.get("main_result", -1.0)
        rec.fouled[i] = bool(info.get("fouled", False)) or "invalid_action" in info
        rec.agrees[i] = bool(info.get("agrees_with_house_way", False))
        rec.settings[i] = info.get("setting", -1)
        if progress is not None:
            progress(1)
    return rec


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
    for i, v in enumerate(vals):
        ax.annotate(f"{v:+.3f}", (i, v), ha="center", va="bottom" if v >= 0 else "top", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
