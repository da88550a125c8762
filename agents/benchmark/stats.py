"""Robust aggregate statistics across runs: the estimators of Agarwal et al., "Deep RL at the Edge
of the Statistical Precipice" (NeurIPS 2021), as its ``rliable`` package computes them, in numpy.

A *score matrix* is ``float[n_runs, n_tasks]``: one row per seed, one column per task (a single
task is one column). Every estimator below reads it the way ``rliable`` does:

* **IQM** (:func:`iqm`): the interquartile mean of all ``n_runs * n_tasks`` scores pooled, i.e.
  ``scipy.stats.trim_mean(scores, 0.25, axis=None)``: sort, drop ``floor(0.25 * n)`` from each
  end, average the rest (10 seeds: the middle 6).
* **Stratified bootstrap** (:func:`bootstrap_ci`): each replicate resamples the runs of *every
  task separately* (with replacement, as many as it has), so each task keeps its weight;
  the 95% interval is the 2.5th and 97.5th percentiles of the statistic over the replicates
  (``rliable.library.get_interval_estimates(method="percentile")``).
* **Performance profile** (:func:`performance_profile`): for each threshold ``tau`` the share of
  runs whose score exceeds ``tau`` (``score > tau``, pooled over tasks), with stratified
  bootstrap bands (``rliable.library.create_performance_profile``).
* **Probability of improvement** (:func:`probability_of_improvement`): ``P(X > Y)`` per task as
  the Mann-Whitney U statistic over all pairs of runs (a tie counts one half), averaged over
  tasks; its interval bootstraps the runs of both algorithms, each stratified by task
  (``rliable.metrics.probability_of_improvement``).

Replicates are drawn from ``numpy.random.default_rng(seed)``: a report is reproducible to the
digit. ``tests/test_benchmark_stats.py`` checks every estimator against worked examples (hand
or brute force) and, where ``rliable`` is installed, against it.

Why these and not mean ± t: with 10 seeds a single diverged run moves the mean by a tenth of its
distance and widens a t-interval for every algorithm alike; the IQM ignores the outer quarters
and the percentile bootstrap makes no normality assumption. The t-interval columns stay in the
tables beside them.
"""

from __future__ import annotations

import math

import numpy as np

DEFAULT_REPS = 2000
CONFIDENCE = 0.95
MIN_RUNS = 2  # a bootstrap of one run has no spread: refused


def _matrix(scores, what: str = "scores") -> np.ndarray:
    """``scores`` as ``float[n_runs, n_tasks]`` (a 1-D array is one task)."""
    x = np.asarray(scores, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"{what} of shape {np.shape(scores)}: expected a non-empty (runs,) or (runs, tasks) array")
    if not np.isfinite(x).all():
        raise ValueError(f"{what} holds a non-finite value: every run needs a finite score")
    return x


def check_runs(n_runs: int, what: str = "a bootstrap interval") -> None:
    if n_runs < MIN_RUNS:
        raise ValueError(f"{n_runs} run(s): {what} needs at least {MIN_RUNS} seeds")


def iqm(scores) -> float:
    """Interquartile mean of all scores pooled (``scipy.stats.trim_mean(x, 0.25, axis=None)``)."""
    x = np.sort(_matrix(scores).ravel())
    cut = int(0.25 * x.size)
    return float(x[cut: x.size - cut].mean())


def _iqm_rows(x: np.ndarray) -> np.ndarray:
    """IQM of each replicate: ``x`` is ``float[reps, n]``."""
    x = np.sort(x, axis=1)
    cut = int(0.25 * x.shape[1])
    return x[:, cut: x.shape[1] - cut].mean(axis=1)


def stratified_indices(n_runs: int, n_tasks: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``int[reps, n_runs, n_tasks]``: per replicate and task, the resampled run indices."""
    return rng.integers(0, n_runs, size=(reps, n_runs, n_tasks))


def _resample(x: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``float[reps, n_runs, n_tasks]`` stratified bootstrap replicates of the score matrix."""
    idx = stratified_indices(x.shape[0], x.shape[1], reps, rng)
    return np.take_along_axis(np.broadcast_to(x, (reps, *x.shape)), idx, axis=1)


def _percentile_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> list[float]:
    alpha = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(values, [alpha, 100 - alpha], axis=0)
    return [float(lo), float(hi)] if np.ndim(lo) == 0 else [lo, hi]


def bootstrap_ci(scores, statistic: str = "iqm", *, reps: int = DEFAULT_REPS, seed: int = 0,
                 confidence: float = CONFIDENCE) -> list[float]:
    """Stratified-bootstrap percentile interval ``[low, high]`` of ``statistic`` (``iqm``, ``mean``
    or ``median``) of the score matrix."""
    x = _matrix(scores)
    check_runs(x.shape[0])
    boot = _resample(x, reps, np.random.default_rng(seed)).reshape(reps, -1)
    if statistic == "iqm":
        values = _iqm_rows(boot)
    elif statistic == "mean":
        values = boot.mean(axis=1)
    elif statistic == "median":
        values = np.median(boot, axis=1)
    else:
        raise ValueError(f"statistic={statistic!r}: expected 'iqm', 'mean' or 'median'")
    return _percentile_interval(values, confidence)


def iqm_with_ci(scores, *, reps: int = DEFAULT_REPS, seed: int = 0) -> tuple[float, list[float]]:
    """IQM and its stratified-bootstrap 95% interval."""
    return iqm(scores), bootstrap_ci(scores, "iqm", reps=reps, seed=seed)


def performance_profile(scores, taus, *, reps: int = DEFAULT_REPS, seed: int = 0) -> dict:
    """Share of runs with score > tau for each ``tau``, and its stratified-bootstrap band."""
    x = _matrix(scores)
    taus = np.asarray(taus, dtype=float)
    point = (x.ravel()[None, :] > taus[:, None]).mean(axis=1)
    out = {"tau": taus.tolist(), "fraction": point.tolist(), "low": None, "high": None}
    if x.shape[0] >= MIN_RUNS:
        boot = _resample(x, reps, np.random.default_rng(seed)).reshape(reps, -1)
        frac = (boot[:, None, :] > taus[None, :, None]).mean(axis=2)  # [reps, taus]
        lo, hi = _percentile_interval(frac)
        out["low"], out["high"] = np.asarray(lo).tolist(), np.asarray(hi).tolist()
    return out


def _poi_tasks(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``P(X > Y)`` per task (ties one half), ``x`` ``[..., n, tasks]``, ``y`` ``[..., m, tasks]``."""
    gt = (x[..., :, None, :] > y[..., None, :, :]).mean(axis=(-3, -2))
    eq = (x[..., :, None, :] == y[..., None, :, :]).mean(axis=(-3, -2))
    return gt + 0.5 * eq


def probability_of_improvement(scores_x, scores_y, *, reps: int = DEFAULT_REPS, seed: int = 0) -> dict:
    """``P(X > Y)`` averaged over tasks (higher scores better) with its bootstrap 95% interval;
    ``per_task`` holds each task's own probability."""
    x, y = _matrix(scores_x, "scores_x"), _matrix(scores_y, "scores_y")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"scores_x has {x.shape[1]} task(s) and scores_y {y.shape[1]}: expected the same tasks")
    per_task = _poi_tasks(x, y)
    out = {"p": float(per_task.mean()), "per_task": per_task.tolist(), "ci95": None}
    if min(x.shape[0], y.shape[0]) >= MIN_RUNS:
        rng = np.random.default_rng(seed)
        bx, by = _resample(x, reps, rng), _resample(y, reps, rng)
        out["ci95"] = _percentile_interval(_poi_tasks(bx, by).mean(axis=1))
    return out


def curve_iqm(curves, *, reps: int = DEFAULT_REPS, seed: int = 0) -> dict:
    """Sample-efficiency curve: ``curves`` is ``float[n_runs, n_points]`` (one task, the score at
    each evaluation step); per point the IQM across runs and its bootstrap 95% band."""
    c = np.asarray(curves, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"curves of shape {c.shape}: expected (runs, points)")
    point = [iqm(c[:, j]) for j in range(c.shape[1])]
    if c.shape[0] < MIN_RUNS:
        return {"iqm": point, "low": [math.nan] * len(point), "high": [math.nan] * len(point)}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, c.shape[0], size=(reps, c.shape[0]))
    lo, hi = [], []
    for j in range(c.shape[1]):
        a, b = _percentile_interval(_iqm_rows(c[idx, j]))
        lo.append(a)
        hi.append(b)
    return {"iqm": point, "low": lo, "high": hi}


def intervals_apart(a: list[float] | None, b: list[float] | None) -> bool:
    """True when two ``[low, high]`` intervals do not overlap."""
    if a is None or b is None:
        return False
    return a[1] < b[0] or b[1] < a[0]
