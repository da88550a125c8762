"""Strict JSON from the benchmark: ``write_json_atomic`` (result.json, benchmark.json, tune.json,
the reference caches) and ``benchmark_rl.py --json`` wrote bare ``NaN`` (``regret_ci95`` with one
seed) against docs/cli.md's "JSON is strict (NaN/inf are null)"."""

import json
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _strict(text: str):
    """Parse as a strict JSON parser (JavaScript's, jq's) does: NaN / Infinity are errors."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_write_json_atomic_writes_undefined_values_as_null(tmp_path):
    from splitpoker.agents.benchmark.harness import write_json_atomic

    path = tmp_path / "new" / "result.json"  # its folder is made
    write_json_atomic(path, {"mean_regret": np.float32(0.25), "regret_ci95": math.nan, "high": [math.inf, -math.inf, 1],
                             "seeds": np.array([0, 1]), "n": np.int64(3)})
    assert _strict(path.read_text()) == {"mean_regret": 0.25, "regret_ci95": None, "high": [None, None, 1],
                                         "seeds": [0, 1], "n": 3}
    assert [p.name for p in path.parent.iterdir()] == ["result.json"]  # no temporary file left


def test_benchmark_rl_json_is_strict(tmp_path, monkeypatch, capsys):
    """The summary printed by ``--json`` (a one-seed grid's regret_ci95 is undefined) is strict
    JSON, with the undefined values null, as benchmark.json is."""
    from splitpoker.agents.benchmark import harness, report
    from splitpoker.scripts import benchmark_rl

    summary = {"name": "smoke", "runs_done": 1, "runs_total": 1, "failed": [],
               "rows": [{"seeds": [0], "mean_regret": 0.5, "regret_ci95": math.nan, "iqm_regret_ci95": None}]}
    monkeypatch.setattr(harness, "run_grid", lambda *a, **k: summary)
    monkeypatch.setattr(report, "write_report", lambda *a, **k: {"data": tmp_path / "o" / "data.json"})
    code = benchmark_rl.main(["--config", str(ROOT / "configs" / "benchmark" / "smoke.yaml"), "--out",
                              str(tmp_path / "o"), "--json", "--no-ray"])
    out = capsys.readouterr().out
    assert code == 0
    assert _strict(out)["rows"][0]["regret_ci95"] is None
    assert "NaN" not in out
