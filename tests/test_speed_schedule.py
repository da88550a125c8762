"""The ``schedule`` section of scripts/benchmark.py: both schedules count the same hands (one test:
the section compiles a kernel of its own, once)."""

import contextlib
import io
import json
import math

import numpy as np
import pytest

from splitpoker.envs.rules.enumeration import split_tasks, top_two_tasks
from splitpoker.scripts.support.speed_schedule import schedule_benchmark


@pytest.mark.parametrize(("kwargs", "match"), [({"style": "paigow-nowhere"}, "style='paigow-nowhere'"),
                                               ({"n_batches": 0}, "n_batches=0"),
                                               ({"n_batches": 41}, "n_batches=41"),
                                               ({"repeats": 0}, "repeats=0")])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        schedule_benchmark(**kwargs)


def test_the_benchmark_script_runs_both_schedules_on_the_same_hands():
    from splitpoker.scripts.benchmark import main

    rows = split_tasks(top_two_tasks(53))
    first = rows[::40]  # run_in_batches' first of 40 interleaved batches
    expected = sum(math.comb(hi, 5) - math.comb(lo, 5) for _, _, lo, hi in first.tolist())
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--only", "schedule", "--schedule-batches", "1", "--repeats", "1"]) == 0
    out = json.loads(log.getvalue())["schedule"]
    assert out["batches"] == 1 and out["hands"] == expected and out["same_counts"] is True
    for name in ("prange_over_rows", "thread_bins"):
        assert out[name]["hands_per_second"] > 0 and len(out[name]["seconds"]) == 1
    assert out["speedup"] == pytest.approx(out["thread_bins"]["hands_per_second"]
                                           / out["prange_over_rows"]["hands_per_second"])
    assert np.isfinite(out["speedup"])
