"""The benchmark's robust statistics (agents/benchmark/stats.py) against worked examples, brute
force and, where it is installed, the reference implementation ``rliable``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from splitpoker.agents.benchmark import stats


def test_iqm_worked_examples():
    # 10 runs: drop floor(2.5) = 2 from each end, average the middle six: (3+4+5+6+7+8)/6
    assert stats.iqm(np.arange(1, 11)) == pytest.approx(5.5)
    # outliers at both ends do not move it: middle four of eight
    assert stats.iqm([100, 0, 1, 2, 3, 4, 100, 0]) == pytest.approx(2.5)
    # pooled over tasks: a (4 runs, 2 tasks) matrix is 8 scores
    assert stats.iqm([[0, 100], [1, 2], [3, 4], [0, 100]]) == pytest.approx(2.5)
    # fewer than 4 scores: nothing is cut, the IQM is the mean
    assert stats.iqm([1.0, 2.0, 6.0]) == pytest.approx(3.0)


def test_bootstrap_interval_matches_brute_force_enumeration():
    """One task, runs [0, 1, 2, 3]: all 4^4 = 256 resamples are equally likely; the percentile
    interval of the mean is read off that exact distribution."""
    runs = np.array([0.0, 1.0, 2.0, 3.0])
    means = np.array([np.mean(c) for c in itertools.product(runs, repeat=4)])
    exact_lo, exact_hi = np.percentile(means, [2.5, 97.5])
    lo, hi = stats.bootstrap_ci(runs, "mean", reps=40000, seed=1)
    # the replicate means live on a 0.25 grid: the Monte Carlo percentile is within one step
    assert abs(lo - exact_lo) <= 0.25 and abs(hi - exact_hi) <= 0.25
    assert lo < runs.mean() < hi


def test_bootstrap_is_stratified_by_task():
    """Task A's runs all score 0, task B's all 1: a stratified replicate always holds four of
    each, so the pooled mean is 0.5 in every replicate; an unstratified one would vary."""
    x = np.column_stack([np.zeros(4), np.ones(4)])
    assert stats.bootstrap_ci(x, "mean", reps=500) == [0.5, 0.5]
    assert stats.bootstrap_ci(x, "iqm", reps=500) == [0.5, 0.5]


def test_bootstrap_refuses_a_single_run():
    with pytest.raises(ValueError, match="1 run.*at least 2 seeds"):
        stats.bootstrap_ci([0.3], "iqm")


def test_performance_profile_worked_example():
    prof = stats.performance_profile([0.1, 0.5, 0.9, 0.9], [0.0, 0.5, 0.9], reps=200)
    assert prof["fraction"] == [1.0, 0.5, 0.0]  # strictly greater than tau
    assert all(lo <= f <= hi for lo, f, hi in zip(prof["low"], prof["fraction"], prof["high"], strict=True))


def test_probability_of_improvement_worked_examples():
    # x=[2,3] vs y=[1,2]: 2>1, 2=2 (half), 3>1, 3>2 -> 3.5 / 4
    assert stats.probability_of_improvement([2, 3], [1, 2], reps=100)["p"] == pytest.approx(0.875)
    # x=[1,2,3] vs y=[0,2,4]: 4 wins and one tie of 9 pairs -> 0.5
    assert stats.probability_of_improvement([1, 2, 3], [0, 2, 4], reps=100)["p"] == pytest.approx(0.5)
    # two tasks: 1.0 on the first, 0.0 on the second -> 0.5 on average
    poi = stats.probability_of_improvement([[5, 0], [6, 1]], [[1, 7], [2, 8]], reps=200)
    assert poi["per_task"] == [1.0, 0.0] and poi["p"] == 0.5
    # a complete separation on every task: every replicate is 1
    assert stats.probability_of_improvement([[5], [6]], [[1], [2]], reps=200)["ci95"] == [1.0, 1.0]


def test_curve_iqm_point_and_band():
    curves = np.array([[1.0, 0.5], [1.0, 0.4], [1.0, 0.6], [1.0, 0.5]])
    c = stats.curve_iqm(curves, reps=300)
    assert c["iqm"] == pytest.approx([1.0, 0.5]) and c["low"][0] == c["high"][0] == 1.0
    assert c["low"][1] <= 0.5 <= c["high"][1]


def test_intervals_apart():
    assert stats.intervals_apart([0, 1], [1.5, 2]) and not stats.intervals_apart([0, 1], [0.5, 2])


# ---- against rliable (`make test` installs it: the extra `rliable`; skipped where it is absent) --

def _rliable():
    pytest.importorskip("scipy")
    try:
        from rliable import library, metrics
    except Exception as e:  # noqa: BLE001 - a broken install (arch against pandas 3) is a skip, not a failure
        pytest.skip(f"rliable does not import here: {type(e).__name__}: {e}")
    return library, metrics


def test_against_rliable_point_estimates_and_intervals():
    library, metrics = _rliable()
    rng = np.random.default_rng(7)
    a = rng.normal(0.6, 0.2, size=(10, 3))
    b = rng.normal(0.5, 0.2, size=(10, 3))
    assert stats.iqm(a) == pytest.approx(metrics.aggregate_iqm(a))
    assert stats.probability_of_improvement(a, b, reps=10)["p"] == pytest.approx(metrics.probability_of_improvement(a, b))
    point, ci = library.get_interval_estimates({"a": a}, lambda x: np.array([metrics.aggregate_iqm(x)]), reps=4000,
                                               random_state=np.random.RandomState(0))
    lo, hi = stats.bootstrap_ci(a, "iqm", reps=4000, seed=0)
    width = ci["a"][1, 0] - ci["a"][0, 0]
    # two independent Monte Carlo bootstraps of one distribution: the ends agree to a few % of the width
    assert abs(lo - ci["a"][0, 0]) < 0.08 * width and abs(hi - ci["a"][1, 0]) < 0.08 * width
    taus = np.linspace(0, 1, 11)
    prof, _ = library.create_performance_profile({"a": a}, taus, reps=50)
    assert stats.performance_profile(a, taus, reps=50)["fraction"] == pytest.approx(prof["a"])
