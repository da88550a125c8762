"""Fault injection: the long scripts interrupted by SIGINT (Ctrl-C) at seeded random moments.

Each run starts the real CLI in a subprocess and sends SIGINT after a random delay drawn from a
seeded generator (some land while the script is still importing, most during the work). Every
interruption must end the process with exit code 130 within a few seconds, one ``interrupted``
line on stderr and no traceback; nothing half-written may sit under a final file name (cache
entries and outputs are written atomically); and a rerun must succeed, resuming where the script
promises it (solve_sample keeps every hand saved before the interrupt).

The latency bound is loose (``MAX_LATENCY``): the machine running the suite may be shared and
loaded; the scripts check for Ctrl-C between chunks of about 0.1 s of numba work.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import splitpoker.envs.rules as rules
from splitpoker.envs.rules import cache

ROOT = Path(__file__).resolve().parent.parent
MAX_LATENCY = 5.0  # seconds from SIGINT to exit, generous for a loaded CI machine
RNG = np.random.default_rng(20261201)
SURVIVED = []  # (script, delay, latency) of every interruption that ended in exit 130


@pytest.fixture(scope="module", autouse=True)
def _count_interruptions():
    """Prints (with ``-s``) how many interruptions the scripts survived in this module."""
    yield
    print(f"\ninterruptions survived: {len(SURVIVED)} (script, delay s, latency s): {SURVIVED}")


#: one short run of each script interrupted below, to compile its kernels into numba's cache
WARM_RUNS = (("simulate.py", ["--game", "paigow", "--rounds", "10000"]),
             ("check_house_way.py", ["--style", "asia-borgata", "--max-tasks", "1"]),
             ("analyze.py", ["--game", "asia", "--samples", "1000", "--json", "Qh Th 8h 3h Kd 5d Tc"]),
             ("evaluate.py", ["--hands", "1000"]),
             ("benchmark.py", ["--only", "simulate", "--only", "rules", "--rounds", "10000", "--seconds", "0.2",
                               "--repeats", "1"]),
             ("solve_sample.py", ["--game", "asia", "--hands", "1", "--seed", "4", "--max-pool-card", "20"]))


@pytest.fixture(scope="module")
def warm_kernels(tmp_path_factory):
    """Compile (into the numba cache) the kernels of the scripts interrupted at random moments.
    On a fresh clone a script's first run spends most of its time in numba's compiler (analyze.py
    about 55 s, solve_sample.py about 65 s: in CI an interrupt of solve_sample.py 5 s in waited
    11.6 s for it). A Ctrl-C there is honoured when that compile ends, or at once on a second
    Ctrl-C (scripts/support/cli.py; tests/test_cli_signals.py pins both), so the bound here is
    about the work loops. The bonus enumeration's kernel is compiled in this process, on one row."""
    import contextlib
    import importlib
    import io

    sample = tmp_path_factory.mktemp("warm") / "one_hand.csv"
    for script, args in WARM_RUNS:  # in this process: one import of the package for all six
        main = importlib.import_module(f"splitpoker.scripts.{script[:-3]}").main
        argv = [str(a) for a in args] + (["--out", str(sample)] if script == "solve_sample.py" else [])
        log = io.StringIO()
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            code = main(argv)
        assert code in (0, None), f"{script}: exit {code}\n{log.getvalue()[-2000:]}"
    import numba

    from splitpoker.envs.rules.bonus.features import N_FEATURE_CODES, _histogram_tasks
    from splitpoker.envs.rules.enumeration import split_tasks, thread_bins, top_two_tasks
    from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table

    hist = np.zeros((numba.config.NUMBA_NUM_THREADS, N_FEATURE_CODES), dtype=np.int64)
    rows = split_tasks(top_two_tasks(53))[-1:]
    _histogram_tasks(rows, thread_bins(rows[:, 3] - rows[:, 2])[1], paigow_back_table().category, hist)
    assert hist.sum() > 0


def start(script, args, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.Popen([sys.executable, str(ROOT / "scripts" / script), *map(str, args)], cwd=ROOT, env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def interrupt(script, args, delay, env=None):
    """Run, SIGINT after ``delay`` s; returns (exit code, latency, stdout, stderr)."""
    p = start(script, args, env)
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        pass
    t0 = time.monotonic()
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail(f"{script} ignored SIGINT for 60 s")
    latency = time.monotonic() - t0
    out, err = p.communicate()
    return p.returncode, latency, out, err


def check_interrupted(script, code, latency, err, delay):
    assert code == 130, f"{script}: exit {code} after SIGINT at {delay:.2f} s\n{err[-3000:]}"
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("interrupted"), err[-3000:]
    assert latency < MAX_LATENCY, f"{script}: {latency:.2f} s from SIGINT to exit\n{err[-3000:]}"
    SURVIVED.append((script, round(delay, 2), round(latency, 2)))


def delays(n, lo, hi):
    return [float(x) for x in RNG.uniform(lo, hi, n)]


@pytest.mark.parametrize("delay", delays(2, 0.3, 8.0))
def test_simulate_interrupted(delay, warm_kernels):
    code, latency, out, err = interrupt("simulate.py", ["--game", "paigow", "--rounds", 10**9, "--json"], delay)
    check_interrupted("simulate", code, latency, err, delay)
    assert out == ""  # no half result on stdout


@pytest.mark.slow
def test_solve_sample_interrupted_twice_then_resumed(tmp_path, warm_kernels):
    """Rows saved before each interrupt survive; the resumed file equals an uninterrupted run."""
    out = tmp_path / "s.csv"
    args = ["--game", "asia", "--hands", 40, "--seed", 4, "--max-pool-card", 20, "--checkpoint", 3, "--out", out]
    kept = 0
    for delay in delays(2, 3.0, 7.0):
        code, latency, _, err = interrupt("solve_sample.py", args, delay)
        if code == 0:  # finished before the signal: nothing to check
            continue
        check_interrupted("solve_sample", code, latency, err, delay)
        assert [p.name for p in tmp_path.iterdir()] == ([out.name] if out.exists() else [])  # no temp file
        if out.exists():
            n = len(out.read_text().splitlines()) - 1
            assert n >= kept  # nothing saved before is lost
            kept = n
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_sample.py"), *map(str, args), "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hands"] == 40
    clean = tmp_path / "clean.csv"
    spec = ["--game", "asia", "--hands", 40, "--seed", 4, "--max-pool-card", 20, "--checkpoint", 400, "--out", clean]
    again = subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_sample.py"), *map(str, spec)],
                           capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert again.returncode == 0, again.stderr
    assert out.read_text() == clean.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("delay", delays(2, 0.3, 10.0))
def test_analyze_interrupted(delay, warm_kernels):
    code, latency, out, err = interrupt("analyze.py", ["--game", "asia", "--samples", 10**8, "--json",
                                                       "Qh Th 8h 3h Kd 5d Tc"], delay)
    check_interrupted("analyze", code, latency, err, delay)
    assert out == ""


@pytest.mark.slow
@pytest.mark.parametrize("delay", delays(2, 1.0, 12.0))
def test_check_house_way_interrupted(delay, warm_kernels):
    code, latency, out, err = interrupt("check_house_way.py", ["--style", "asia-borgata", "--json"], delay)
    check_interrupted("check_house_way", code, latency, err, delay)


@pytest.mark.slow
@pytest.mark.parametrize("delay", delays(2, 0.5, 15.0))
def test_evaluate_interrupted(tmp_path, delay, warm_kernels):
    res = tmp_path / "r.json"
    code, latency, out, err = interrupt("evaluate.py", ["--hands", 1_000_000, "--out", res], delay)
    check_interrupted("evaluate", code, latency, err, delay)
    assert list(tmp_path.iterdir()) == []  # no result file, no temporary file


@pytest.mark.slow
def test_benchmark_interrupted_prints_partial_json(tmp_path, warm_kernels):
    res = tmp_path / "b.json"
    delay = delays(1, 8.0, 14.0)[0]
    code, latency, out, err = interrupt("benchmark.py", ["--only", "simulate", "--only", "rules", "--rounds",
                                                         10**9, "--out", res], delay)
    check_interrupted("benchmark", code, latency, err, delay)
    if out:  # interrupted after the imports: the sections done so far, as strict JSON
        rep = json.loads(out)
        assert "interrupted" in rep and "machine" in rep
    assert not res.exists() and list(tmp_path.iterdir()) == []


def _warm_numba_copy(dst_root: Path):
    """A fresh cache root that reuses this checkout's compiled kernels (hard links), so a test
    of the data cache does not wait for numba to compile everything again."""
    src = Path(rules.NUMBA_CACHE_DIR)
    dst = dst_root / "numba" / src.name
    for p in src.rglob("*"):
        q = dst / p.relative_to(src)
        if p.is_dir():
            q.mkdir(parents=True, exist_ok=True)
        else:
            q.parent.mkdir(parents=True, exist_ok=True)
            os.link(p, q)


@pytest.mark.slow
def test_bonus_table_interrupted_leaves_no_cache_entry_and_reruns(tmp_path, warm_kernels):
    root = tmp_path / "cache"
    _warm_numba_copy(root)
    env = {"SPLITPOKER_CACHE_DIR": str(root)}
    delay = delays(1, 3.0, 20.0)[0]
    code, latency, out, err = interrupt("bonus_table.py", ["--game", "asia", "--paytable", "seed-000", "--json"],
                                        delay, env)
    check_interrupted("bonus_table", code, latency, err, delay)
    leftovers = [p.name for p in root.iterdir() if p.name != "numba"]
    assert leftovers == []  # no entry under the final name, no temporary file
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bonus_table.py"), "--game", "asia",
                           "--paytable", "seed-000", "--json"], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **env), timeout=900)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["lines"]["five_aces"]["combinations"] == 1128
    assert len(cache.entries(root)) == 1


def test_cache_write_interrupted_midway_is_not_visible(tmp_path, monkeypatch):
    """A Ctrl-C (or crash) while the data is written leaves the old entry, no new one, no temp file."""
    cache.save("t", {"v": 1}, np.arange(5), directory=tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real_save = np.save

    def half_then_interrupt(f, arr, allow_pickle=False):
        real_save(f, arr[: len(arr) // 2], allow_pickle=allow_pickle)
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.np, "save", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        cache.save("t", {"v": 1}, np.arange(10**6), directory=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        cache.save("t", {"v": 2}, np.arange(10**6), directory=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    monkeypatch.undo()
    assert cache.load("t", {"v": 1}, directory=tmp_path).tolist() == list(range(5))
