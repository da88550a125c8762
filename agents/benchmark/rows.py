"""The benchmark's published rows: one (task, algorithm) row aggregated across seeds
(:func:`aggregate`: IQM with its stratified-bootstrap interval, mean with its Student-t
interval, curves) and the grid's statistics across tasks (:func:`grid_statistics`: aggregate
IQM, performance profiles, probability of improvement). The harness
(:mod:`splitpoker.agents.benchmark.harness`) writes them into ``benchmark.json``; the
statistics themselves are :mod:`splitpoker.agents.benchmark.stats`."""

from __future__ import annotations

import math

import numpy as np

from splitpoker.agents.benchmark import stats
from splitpoker.agents.benchmark.config import AlgoSpec, EnvSpec

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        15: 2.131, 20: 2.086, 30: 2.042}


def t_ci(x) -> tuple[float, float]:
    """Mean and half-width of the 95% Student-t interval (across seeds: few samples)."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return float(x.mean()), float("nan")
    df = x.size - 1
    t = T975.get(df) or next((T975[k] for k in sorted(T975) if k >= df), 1.96)
    return float(x.mean()), float(t * x.std(ddof=1) / np.sqrt(x.size))


def _final(r: dict, label: str, split: str) -> dict:
    return r["final"]["tasks"][label][split]


def aggregate(env: EnvSpec, algo: AlgoSpec, runs: list[dict], label: str) -> dict:
    """One row: a task's final test scores across the seeds of one algorithm."""
    task = next(t for t, lbl in env.task_labels().items() if lbl == label)
    finals = [_final(r, label, "test") for r in runs]
    row = {"env": label, "task": task, "env_label": env.label, "env_id": env.id, "algorithm": algo.name, "algo": algo.algo,
           "policy": algo.policy, "seeds": [r["seed"] for r in runs], "steps": int(np.mean([r["steps"] for r in runs])),
           "warm_start": algo.warm_start, "split": "test"}
    regrets = np.array([f["mean_regret"] for f in finals])
    row["regret_per_seed"] = regrets.tolist()
    row["mean_regret"], row["mean_regret_ci95"] = t_ci(regrets)
    if len(runs) >= stats.MIN_RUNS:
        row["iqm_regret"], row["iqm_regret_ci95"] = stats.iqm_with_ci(regrets)
        norm = np.array([f["normalized"] for f in finals])
        row["iqm_normalized"], row["iqm_normalized_ci95"] = stats.iqm_with_ci(norm)
    else:
        row["iqm_regret"], row["iqm_regret_ci95"] = stats.iqm(regrets), None
        row["iqm_normalized"], row["iqm_normalized_ci95"] = stats.iqm([f["normalized"] for f in finals]), None
    row["normalized_per_seed"] = [f["normalized"] for f in finals]
    for key in ("optimal_rate", "diff_vs_house_way", "mean_reward", "regret_vs_table", "success", "min_bet_rate",
                "setting_regret", "invalid_rate"):
        vals = [f.get(key) for f in finals]
        if all(v is not None and not (isinstance(v, float) and math.isnan(v)) for v in vals):
            row[key], row[key + "_ci95"] = t_ci(vals)
    val = np.array([_final(r, label, "validation")["mean_regret"] for r in runs])
    row["validation"] = {"mean_regret": float(val.mean()), "iqm_regret": stats.iqm(val)}
    row["train_seconds"], row["train_seconds_ci95"] = t_ci([r["train_seconds"] for r in runs])
    sps = [r.get("steps_per_second", r["steps"] / r["train_seconds"]) for r in runs]
    row["steps_per_second"], row["steps_per_second_ci95"] = t_ci(sps)
    n_points = min(len(r["curve"]) for r in runs)
    curve = []
    for split in ("test", "validation"):
        mat = np.array([[r["curve"][i]["tasks"][label][split]["mean_regret"] for i in range(n_points)] for r in runs])
        band = stats.curve_iqm(mat)
        for i in range(n_points):
            m, ci = t_ci(mat[:, i])
            pt = {"steps": int(np.mean([r["curve"][i]["steps"] for r in runs])), "iqm": band["iqm"][i],
                  "low": band["low"][i], "high": band["high"][i], "mean_regret": m, "ci95": ci}
            if split == "test":
                curve.append(pt)
            else:
                curve[i]["validation_iqm"] = pt["iqm"]
    row["curve"] = curve
    return row


def grid_statistics(rows: list[dict], labels: list[str]) -> dict:
    """Across tasks (normalised scores; the algorithms with every task and the same seeds on each):
    aggregate IQM with its interval, performance profiles, and the probability of improvement of
    every ordered pair (also per task, on the regret: lower is better there, so P(X better than Y)
    is computed on −regret)."""
    by_algo: dict[str, dict[str, dict]] = {}
    for r in rows:
        if r.get("warm_start") is None:
            by_algo.setdefault(r["algorithm"], {})[r["env"]] = r
    # per algorithm, the seeds finished on every task (a grid stopped early may differ by one)
    common = {a: sorted(set.intersection(*(set(t[lbl]["seeds"]) for lbl in labels)))
              for a, t in by_algo.items() if all(lbl in t for lbl in labels)}
    complete = {a: by_algo[a] for a, seeds in common.items() if len(seeds) >= stats.MIN_RUNS}

    def per_seed(row: dict, key: str, seeds: list[int]) -> list[float]:
        return [row[key][row["seeds"].index(s)] for s in seeds]

    mats = {a: np.array([per_seed(t[lbl], "normalized_per_seed", common[a]) for lbl in labels]).T
            for a, t in complete.items()}
    aggregate_rows = {a: {**dict(zip(("iqm_normalized", "iqm_normalized_ci95"), stats.iqm_with_ci(m), strict=True)),
                          "seeds": common[a]} for a, m in mats.items()}
    taus = np.linspace(0.0, 1.0, 41)
    profiles = {a: stats.performance_profile(m, taus) for a, m in mats.items()}
    poi = []
    names = list(mats)
    for x in names:
        for y in names:
            if x == y:
                continue
            overall = stats.probability_of_improvement(mats[x], mats[y])
            per_task = {}
            for lbl in labels:
                px = -np.asarray(per_seed(complete[x][lbl], "regret_per_seed", common[x]))
                py = -np.asarray(per_seed(complete[y][lbl], "regret_per_seed", common[y]))
                per_task[lbl] = stats.probability_of_improvement(px, py)
            poi.append({"x": x, "y": y, "p": overall["p"], "ci95": overall["ci95"], "per_task": {
                lbl: {"p": v["p"], "ci95": v["ci95"]} for lbl, v in per_task.items()}})
    separated = {}
    for lbl in labels:
        algos = [a for a in by_algo if lbl in by_algo[a] and by_algo[a][lbl].get("iqm_regret_ci95")]
        pairs = [(x, y) for i, x in enumerate(algos) for y in algos[i + 1:]
                 if stats.intervals_apart(by_algo[x][lbl]["iqm_regret_ci95"], by_algo[y][lbl]["iqm_regret_ci95"])]
        separated[lbl] = {"pairs_apart": len(pairs), "pairs": len(algos) * (len(algos) - 1) // 2}
    return {"aggregate": {"tasks": labels, "algorithms": aggregate_rows, "performance_profiles": profiles},
            "probability_of_improvement": poi, "separation": separated}
