"""The same four faults for every script in scripts/ and every registered env id, from one table.

For each script (:data:`SCRIPTS`) and env id (:data:`ENVS`) the table gives a case, or the reason
the fault cannot arise, for each of:

* **interrupt**: SIGINT or SIGTERM at a seeded random moment, then the same command again (scripts),
  or a ``KeyboardInterrupt`` at a random point of a step loop, then more steps (envs);
* **state**: a corrupt or truncated file the script reads back (a resumed output, a journal, a
  model, a store), or for an env, an action it refuses partway;
* **output**: an output path that cannot be written (``/proc`` refuses new files, even to root),
  refused before any work;
* **bound**: a size one past its stated bound.

Each ends in a clear message and the documented exit code (docs/cli.md: 2 bad input, 130 Ctrl-C,
143 SIGTERM), and nothing is lost or mixed. A script or env id without a row fails
:func:`test_every_script_and_env_has_a_row`, so a new one cannot skip the suite.

The cheap checks (bad paths, bounds, most state files) call ``main(argv)`` in-process; the
interrupts run the real command in a subprocess and are marked slow, except two (a short script
and every env id).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import signal
import subprocess
import sys
import time
import traceback
import zlib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids; numba's cache is chosen at this first import)
from splitpoker.envs.registration import ALL_ENV_IDS, VECTOR_ENTRY_POINTS

ROOT = Path(__file__).resolve().parent.parent
UNWRITABLE = "/proc"  # exists, and takes no new file or folder, whoever asks (root included)
RNG = np.random.default_rng(20261202)
CACHE = os.environ.get("SPLITPOKER_CACHE_DIR")
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


class NA(str):
    """A table cell for a fault that cannot arise: the reason."""


def na(reason: str) -> NA:
    return NA(reason)


# name -> {fault: case or reason}. Cases: "output"/"bound": (argv, fragment of stderr);
# "state": (setup(tmp) -> None, argv, fragment); "interrupt": (argv, rerun ends in 0: bool, slow: bool).
# "{t}" is the test's temporary folder, "{r}" the checkout, "{u}" the unwritable folder.
SMOKE_BENCH = ["--config", "{r}/configs/benchmark/smoke.yaml"]
SCRIPTS = {
    "analyze": {
        "interrupt": (["--game", "asia", "--samples", "100000000", "Qh Th 8h 3h Kd 5d Tc"], False, True),
        "state": na("reads no file back (its cache entries: tests/test_cache.py rebuilds a corrupt one)"),
        "output": na("writes no file (stdout only)"),
        "bound": (["--game", "asia", "--samples", "100000001", "Qh Th 8h 3h Kd 5d Tc"],
                  "argument --samples: 100000001: expected an integer 1..100,000,000"),
    },
    "serve": {
        "interrupt": (["--port", "0", "--styles", "paigow-igw"], False, True),
        "state": na("reads no file back (its dealer tables: tests/test_cache.py rebuilds a corrupt one)"),
        "output": na("writes no file (it answers requests)"),
        "bound": (["--workers", "17"], "argument --workers: 17: expected an integer 1..16"),
    },
    "bench_card_removal": {
        "interrupt": (["--game", "paigow", "--hands", "2000", "--seed", "91"], False, True),
        "state": na("reads no file back (its evaluation hands and removal arrays: the cache, tests/test_cache.py)"),
        "output": (["--out", "{u}/c.json"], "/proc"),
        "bound": (["--hands", "100001"], "argument --hands: 100001: expected an integer 2..100,000"),
    },
    "bench_scorer_speed": {
        "interrupt": (["--steps", "1000000"], False, True),
        "state": na("reads no file back"),
        "output": (["--out", "{u}/b.json"], "cannot write in the folder /proc"),
        "bound": (["--steps", "10000000000000"], "argument --steps: 10000000000000: expected an integer"),
    },
    "bench_warm_start": {
        "interrupt": (["--hands", "20000"], False, True),
        "state": na("reads no file back (its evaluation sets: the cache, tests/test_cache.py)"),
        "output": (["--out", "{u}/b.json"], "cannot write in the folder /proc"),
        "bound": (["--hands", "10000000000000"], "argument --hands: 10000000000000: expected an integer"),
    },
    "benchmark": {
        "interrupt": (["--seconds", "0.2", "--repeats", "1"], False, True),
        "state": na("reads no file back"),
        "output": (["--out", "{u}/b.json"], "cannot write in the folder /proc"),
        "bound": (["--repeats", "10000000000000"], "argument --repeats: 10000000000000: expected an integer"),
    },
    "benchmark_rl": {
        "interrupt": ([*SMOKE_BENCH, "--no-ray", "--out", "{t}/bench"], True, True),
        "state": (lambda t: (t / "bad.yaml").write_text("name: smoke\nenvs: [\n"), ["--config", "{t}/bad.yaml"],
                  "is not valid YAML"),
        "output": ([*SMOKE_BENCH, "--out", "{u}/bench"], "cannot write in the folder /proc"),
        "bound": ([*SMOKE_BENCH, "--total-timesteps", "10000000001"],
                  "argument --total-timesteps: 10000000001: expected an integer 1..10,000,000,000"),
    },
    "bonus_table": {
        "interrupt": (["--game", "asia", "--paytable", "seed-000", "--no-cache"], False, True),
        "state": (lambda t: (t / "p.yaml").write_text("name: t\ngame: asia\nkind: odds\nlines: [\n"),
                  ["--paytable-file", "{t}/p.yaml"], "p.yaml"),
        "output": na("writes no file (its one cache entry is written atomically: tests/test_script_faults.py)"),
        "bound": na("takes no size (the enumeration is the fixed 154,143,080 hands)"),
    },
    "cache": {
        "interrupt": na("lists or deletes a few files in well under a second (Ctrl-C: tests/test_cache.py)"),
        "state": (lambda t: _corrupt_cache_entry(t), ["--list"], "corrupt"),
        "output": na("writes no file (it only lists and deletes the cache's own entries)"),
        "bound": na("takes no size"),
    },
    "check_house_way": {
        "interrupt": (["--style", "asia-borgata"], False, True),
        "state": na("reads no file back"),
        "output": na("writes no file (stdout only)"),
        "bound": (["--style", "asia-borgata", "--max-tasks", "1000000001"],
                  "argument --max-tasks: 1000000001: expected an integer 1..1,000,000,000"),
    },
    "dataset": {
        "interrupt": (["--policy", "table", "--episodes", "200000", "--out", "{t}/d.parquet"], False, True),
        "state": na("reads no state file of its own (a saved model given as --policy: tests/test_training.py)"),
        "output": (["--policy", "table", "--episodes", "2", "--out", "{u}/d.parquet"], "/proc"),
        "bound": (["--policy", "table", "--episodes", "10000001", "--out", "{t}/d.parquet"],
                  "argument --episodes: 10000001: expected an integer 1..10,000,000"),
    },
    "demo": {
        "interrupt": (["--timesteps", "2000"], False, True),
        "state": (lambda t: (t / "c.yaml").write_text("env:\n  id: [\n"), ["--config", "{t}/c.yaml"], "c.yaml"),
        "output": na("writes no file of its own (training writes under runs/, train.py's row)"),
        "bound": (["--timesteps", "10000000001"], "argument --timesteps: 10000000001: expected an integer"),
    },
    "entry_points": {
        "interrupt": na("a launcher: each splitpoker-<name> command runs scripts/<name>.py, whose row applies"),
        "state": na("a launcher (see interrupt)"),
        "output": na("a launcher (see interrupt)"),
        "bound": na("a launcher (see interrupt)"),
    },
    "evaluate": {
        "interrupt": (["--hands", "200000", "--mc-samples", "50"], False, True),
        "state": (lambda t: (t / "m.zip").write_bytes(b"PK\x03\x04 truncated"), ["--model", "{t}/m.zip"], "m.zip"),
        "output": (["--hands", "2", "--out", "{u}/e.json"], "cannot write in the folder /proc"),
        "bound": (["--hands", "100000000001"], "argument --hands: 100000000001: expected an integer"),
    },
    "evaluate_sessions": {
        "interrupt": (["--sessions", "100000"], False, True),  # the default 20,000,000-round simulation, in chunks
        "state": (lambda t: (t / "m.zip").write_bytes(b"PK\x03\x04 truncated"), ["--model", "{t}/m.zip"], "m.zip"),
        "output": (["--sessions", "2", "--out", "{u}/e.json"], "cannot write in the folder /proc"),
        "bound": (["--sessions", "1000000000"], "argument --sessions: 1000000000: expected an integer"),
    },
    "report": {
        "interrupt": (["--policy", "house-way", "--hands", "60", "--out", "{t}/rep"], True, True),
        "state": (lambda t: _corrupt_store(t), ["--policy", "house-way", "--solved", "{t}/store", "--out", "{t}/rep"],
                  "store"),
        "output": (["--policy", "house-way", "--out", "{u}/rep"], "cannot write in the folder /proc"),
        "bound": (["--policy", "house-way", "--hands", "100000000001", "--out", "{t}/rep"],
                  "argument --hands: 100000000001: expected an integer"),
    },
    "rllib_ppo": {
        "interrupt": (["--env", "splitpoker/PaiGowPokerSetting-v0", "--iterations", "2", "--batch-size", "64",
                       "--minibatch-size", "32", "--eval-episodes", "10", "--num-cpus", "1", "--run-dir", "{t}/rl",
                       "--no-progress"], True, True),
        "state": (lambda t: _damaged_progress(t), ["--env", "splitpoker/PaiGowPokerSetting-v0", "--run-dir", "{t}/rl"],
                  "progress.json is damaged"),
        "output": (["--env", "splitpoker/PaiGowPokerSetting-v0", "--out", "{u}/r.json"], "cannot write in the folder /proc"),
        "bound": (["--iterations", "1000001"], "argument --iterations: 1000001: expected an integer 1..1,000,000"),
    },
    "session_dp": {
        "interrupt": (["--game", "asia", "--bankroll", "50", "--target", "100"], False, True),  # default rounds, in chunks
        "state": (lambda t: (t / "s.csv").write_text("game,style,seed\nasia,asia-0"),
                  ["--game", "asia", "--bankroll", "50", "--target", "100", "--setter", "optimal",
                   "--sample", "{t}/s.csv"], "s.csv"),
        "output": na("writes no file (stdout; its simulation cache entry is atomic: tests/test_cache.py)"),
        "bound": (["--game", "asia", "--bankroll", "50", "--target", "100", "--hands", "10001"],
                  "argument --hands: 10001: expected an integer 1..10,000"),
    },
    "simulate": {
        "interrupt": (["--game", "paigow", "--rounds", "100000000"], False, False),
        "state": na("reads no file back"),
        "output": na("writes no file (stdout only)"),
        "bound": (["--game", "asia", "--rounds", "100000000000000"], "argument --rounds: 100000000000000: expected"),
    },
    "simulate_table": {
        "interrupt": (["--game", "paigow", "--rounds", "100000000", "--out", "{t}/t.json"], False, True),
        "state": na("reads no file back (the seven-card histogram: the cache, tests/test_cache.py)"),
        "output": (["--out", "{u}/t.json"], "cannot write in the folder /proc"),
        "bound": (["--rounds", "1000000000001"], "argument --rounds: 1000000000001: expected an integer"),
    },
    "solve_all": {
        "interrupt": (["--game", "paigow", "--sample", "8", "--shard-size", "1", "--num-cpus", "1",
                       "--max-pool-card", "28", "--out", "{t}/store"], True, True),
        "state": (lambda t: _corrupt_store(t), ["--game", "paigow", "--sample", "8", "--max-pool-card", "28",
                                                 "--out", "{t}/store"], "store"),
        "output": (["--game", "paigow", "--out", "{u}/store"], "/proc"),
        "bound": (["--game", "paigow", "--sample", "1000001", "--out", "{t}/store"],
                  "argument --sample: 1000001: expected an integer 2..1,000,000"),
    },
    "solve_sample": {
        "interrupt": (["--game", "paigow", "--hands", "40", "--checkpoint", "2", "--max-pool-card", "24",
                       "--out", "{t}/s.csv"], True, True),
        "state": (lambda t: (t / "s.csv").write_text("game,style,seed,max_pool_card\npaigow,paigow-i"),
                  ["--game", "paigow", "--hands", "2", "--out", "{t}/s.csv"], "s.csv"),
        "output": (["--game", "paigow", "--hands", "2", "--out", "{u}/s.csv"], "cannot write in the folder /proc"),
        "bound": (["--game", "paigow", "--hands", "1000001", "--out", "{t}/s.csv"],
                  "argument --hands: 1000001: expected an integer 1..1,000,000"),
    },
    "strategy_card": {
        "interrupt": (["--game", "paigow", "--train-hands", "3000", "--test-hands", "3000", "--out", "{t}/c.json"],
                      False, True),
        "state": (lambda t: _corrupt_store(t), ["--game", "paigow", "--solved", "{t}/store", "--out", "{t}/c.json"],
                  "store"),
        "output": (["--game", "paigow", "--out", "{u}/c.json"], "cannot write in the folder /proc"),
        "bound": (["--game", "paigow", "--train-hands", "100000000001"], "argument --train-hands: 100000000001"),
    },
    "train": {
        "interrupt": (["--config", "{r}/configs/asia_maskable_ppo.yaml", "--total-timesteps", "20000",
                       "--log-dir", "{t}/runs", "--run-name", "r", "--no-progress"], True, True),
        "state": (lambda t: _truncated_run(t), ["--resume", "{t}/runs/r"], "config.yaml"),
        "output": (["--config", "{r}/configs/asia_maskable_ppo.yaml", "--log-dir", "{u}/runs"], "/proc"),
        "bound": (["--config", "{r}/configs/asia_maskable_ppo.yaml", "--total-timesteps", "10000000001",
                   "--log-dir", "{t}/runs"], "10000000001"),
    },
    "tune": {
        "interrupt": (["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--trials", "2",
                       "--timesteps", "2000", "--eval-hands", "20", "--out", "{t}/study"], True, True),
        "state": (lambda t: _truncated_journal(t),
                  ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--trials", "2",
                   "--timesteps", "2000", "--eval-hands", "20", "--out", "{t}/study"], "optuna.journal"),
        "output": (["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "2000",
                    "--out", "{u}/study"], "cannot write in the folder /proc"),
        "bound": (["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP",
                   "--timesteps", "10000000001"], "argument --timesteps: 10000000001: expected an integer"),
    },
}


def _corrupt_cache_entry(t: Path) -> None:
    d = t / "cache"
    d.mkdir(exist_ok=True)
    (d / "bonus-features-0123456789abcdef.json").write_text('{"format": 1, "key": {"kind": "bonus-fe')
    (d / "bonus-features-0123456789abcdef.npy").write_bytes(b"\x93NUMPY trunc")


def _corrupt_store(t: Path) -> None:
    d = t / "store"
    d.mkdir()
    (d / "manifest.json").write_text('{"format": 1, "game": "paig')


def _truncated_run(t: Path) -> None:
    d = t / "runs" / "r"
    (d / "checkpoints").mkdir(parents=True)
    (d / "config.yaml").write_text("env:\n  id: splitpoker/AsiaPoker-v0\nalgo: [\n")
    (d / "checkpoints" / "model_100_steps.zip").write_bytes(b"PK\x03\x04 truncated")


def _damaged_progress(t: Path) -> None:
    d = t / "rl"
    d.mkdir()
    (d / "progress.json").write_text('{"spec": {"env": "splitpoker/PaiGowPokerSett')


def _truncated_journal(t: Path) -> None:
    d = t / "study"
    d.mkdir()
    # a garbled record before the last: refused (a cut-off last record is repaired: tests/test_tuning.py)
    (d / "optuna.journal").write_text('{"op_code": 0, "worker_id": "a", "study_na\n{"op_code": 4}\n')


# ---- running a script -------------------------------------------------------------------------

_modules: dict = {}


def script(name):
    if name not in _modules:
        sys.path.insert(0, str(ROOT / "scripts"))  # demo.py imports evaluate.py
        spec = importlib.util.spec_from_file_location(f"_faults_{name}", ROOT / "scripts" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[name] = mod
    return _modules[name]


def fill(argv, t: Path) -> list[str]:
    return [a.replace("{t}", str(t)).replace("{r}", str(ROOT)).replace("{u}", UNWRITABLE) for a in argv]


def call(name, argv, capsys) -> tuple[int, str, float]:
    """``main(argv)`` in-process: (exit code, stdout + stderr, seconds)."""
    t0 = time.perf_counter()
    try:
        code = script(name).main(argv)
    except SystemExit as e:
        code = e.code
    cap = capsys.readouterr()
    return code, cap.out + cap.err, time.perf_counter() - t0


def cases(fault: str):
    return [pytest.param(name, row[fault], id=name) for name, row in SCRIPTS.items() if not isinstance(row[fault], NA)]


@pytest.fixture
def tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def files_under(t: Path) -> set[str]:
    return {str(p.relative_to(t)) for p in t.rglob("*")}


def test_every_script_and_env_has_a_row():
    """A script or env id without a row fails here: every one gets the four checks."""
    scripts = {p.stem for p in (ROOT / "scripts").glob("*.py") if p.stem != "__init__"}
    assert scripts == set(SCRIPTS), f"rows missing: {sorted(scripts - set(SCRIPTS))}; stale: {sorted(set(SCRIPTS) - scripts)}"
    assert set(ALL_ENV_IDS) | {f"{i} (vector)" for i in VECTOR_ENTRY_POINTS} == set(ENVS)
    for table in (SCRIPTS, ENVS):
        for name, row in table.items():
            assert set(row) == {"interrupt", "state", "output", "bound"}, name
            for fault, cell in row.items():
                assert not isinstance(cell, NA) or len(cell) > 10, f"{name} {fault}: say why it cannot arise"


@pytest.mark.parametrize("name,case", cases("output"))
def test_an_unwritable_output_is_refused_before_any_work(tmp, capsys, name, case):
    argv, fragment = case
    before = files_under(tmp)
    code, err, seconds = call(name, fill(argv, tmp), capsys)
    assert code == 2 and fragment in err and "Traceback" not in err, err[-2000:]
    assert files_under(tmp) == before  # no run folder, output or cache entry: nothing was done
    assert seconds < 60


@pytest.mark.parametrize("name,case", cases("bound"))
def test_a_size_past_its_bound_is_refused(tmp, capsys, name, case):
    argv, fragment = case
    before = files_under(tmp)
    code, err, seconds = call(name, fill(argv, tmp), capsys)
    assert code == 2 and fragment in err and "Traceback" not in err, err[-2000:]
    assert files_under(tmp) == before
    assert seconds < 60


@pytest.mark.parametrize("name,case", cases("state"))
def test_a_corrupt_state_file_is_a_clear_error(tmp, capsys, monkeypatch, name, case):
    setup, argv, fragment = case
    if name != "cache" and CACHE:  # the shared cache: tables a script builds before it reads the file
        monkeypatch.setenv("SPLITPOKER_CACHE_DIR", CACHE)
    setup(tmp)

    def state():  # every file but the cache's (a script may fill the cache before it reads the file)
        return {p: p.read_bytes() for p in tmp.rglob("*") if p.is_file() and "cache" not in p.relative_to(tmp).parts}

    before = state()
    code, err, seconds = call(name, fill(argv, tmp), capsys)
    if name == "cache":  # --list reports the damaged entry (exit 0): it is the tool that removes it
        assert code == 0 and fragment in err, err[-2000:]
    else:
        assert code == 2 and ("error: " in err or f"{name}.py: error" in err), (code, err[-2000:])
        assert fragment in err and "Traceback" not in err, err[-2000:]
    assert state() == before  # the damaged file is left as it was (to be looked at or removed by hand)
    assert seconds < 60


def run_interrupted(name, argv, t: Path, signum: int, delay: float):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SPLITPOKER_CACHE_DIR=os.environ.get("SPLITPOKER_CACHE_DIR", ""))
    p = subprocess.Popen([sys.executable, str(ROOT / "scripts" / f"{name}.py"), *fill(argv, t)], cwd=t, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        time.sleep(delay)
        sent = time.perf_counter()
        p.send_signal(signum)
        _, err = p.communicate(timeout=180)
        return p.returncode, err, time.perf_counter() - sent
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


def interrupt_cases():
    out = []
    for name, row in SCRIPTS.items():
        if isinstance(row["interrupt"], NA):
            continue
        argv, resumable, slow = row["interrupt"]
        signum = signal.SIGTERM if len(out) % 2 else signal.SIGINT  # both, alternately
        # from 2.5 s: before that, Python may still be importing numpy for `import splitpoker`,
        # ahead of the scripts' startup guard (docs/cli.md, "Ctrl-C and SIGTERM": a known limit)
        delay = float(RNG.uniform(2.5, 8.0))
        marks = [pytest.mark.slow] if slow else []
        out.append(pytest.param(name, argv, resumable, signum, delay, marks=marks,
                                id=f"{name}-{signal.Signals(signum).name}-{delay:.1f}s"))
    return out


@pytest.mark.parametrize("name,argv,resumable,signum,delay", interrupt_cases())
def test_an_interrupt_at_a_random_moment_then_the_same_command(tmp_path, name, argv, resumable, signum, delay):
    """Interrupted at a seeded random moment (imports, set-up or work): the documented exit code,
    one ``interrupted`` line and no traceback (or a normal finish if it was quicker), nothing
    half-written; a resumable command run again finishes from what was kept."""
    code, err, latency = run_interrupted(name, argv, tmp_path, signum, delay)
    assert code in (0, EXIT[signum]), (code, err[-3000:])
    # "*** SIGTERM received at time=...": Ray's C++ handler (abseil), which prints stack traces and aborts
    assert "Traceback" not in err and "*** SIGTERM received" not in err, err[-3000:]
    if code:
        assert "interrupted" in err, err[-3000:]
        assert latency < 60, latency
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".tmp", ".partial"))]
    if resumable:
        r = subprocess.run([sys.executable, str(ROOT / "scripts" / f"{name}.py"), *resume_args(err, name, argv, tmp_path)],
                           cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                           timeout=1800)
        assert r.returncode == 0, r.stderr[-3000:]


def resume_args(err: str, name: str, argv, t: Path) -> list[str]:
    """The arguments of the command the interrupted run said to resume with (``resume with:
    python scripts/<name>.py ...``), else those of the same command."""
    said = [line.split("resume with: ", 1)[1] for line in err.splitlines() if "resume with: " in line]
    if not said:
        return fill(argv, t)
    words = shlex.split(said[-1])
    assert words[0] == "python" and Path(words[1]).name == f"{name}.py", said[-1]
    return words[2:]


# ---- environments -----------------------------------------------------------------------------

def _make(env_id: str, **kw):
    if env_id.endswith(" (vector)"):
        return gym.make_vec(env_id.removesuffix(" (vector)"), num_envs=kw.pop("num_envs", 96),
                            vectorization_mode="vector_entry_point", **kw)
    return gym.make(env_id, **kw)


ONE_ROUND_BOUND = ({"dealer_samples": 1001}, "dealer_samples=1001: expected an integer 1..1000")
TABLE_BOUND = ({"other_seats": 6}, "other_seats=6")
SESSION_BOUND = ({"bankroll": 1e13, "target": 2e13}, "bankroll=1e+13: expected at most 1e+12 chips")
VECTOR_BOUND = ({"num_envs": (1 << 20) + 1}, "num_envs=1048577: expected an integer 1..1,048,576")
NO_FILE = na("an env writes no file (render returns text or an array)")
# env id -> {fault: case or reason}; "interrupt" and "state" run the same loop for every id
ENVS = {
    **{i: {"interrupt": "steps", "state": "refused action", "output": NO_FILE, "bound": ONE_ROUND_BOUND}
       for i in ("splitpoker/AsiaPoker-v0", "splitpoker/AsiaPokerSetting-v0", "splitpoker/PaiGowPoker-v0",
                 "splitpoker/PaiGowPokerSetting-v0")},
    **{i: {"interrupt": "steps", "state": "refused action", "output": NO_FILE, "bound": TABLE_BOUND}
       for i in ("splitpoker/AsiaTable-v0", "splitpoker/PaiGowTable-v0")},
    **{i: {"interrupt": "steps", "state": "refused action", "output": NO_FILE, "bound": SESSION_BOUND}
       for i in ("splitpoker/AsiaPokerSession-v0", "splitpoker/PaiGowPokerSession-v0")},
    **{f"{i} (vector)": {"interrupt": "steps", "state": "refused action", "output": NO_FILE, "bound": VECTOR_BOUND}
       for i in VECTOR_ENTRY_POINTS},
}


def _masks(env, vector: bool) -> np.ndarray:
    m = np.asarray(env.unwrapped.action_masks() if not vector else env.action_masks(), dtype=bool)
    return m if vector else m[None]


def _play(env, vector: bool, rng: np.random.Generator, steps: int, record: list | None = None) -> None:
    """``steps`` legal actions drawn by ``rng`` from the masks; episodes restarted by seed."""
    for _ in range(steps):
        m = _masks(env, vector)
        acts = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        out = env.step(acts if vector else int(acts[0]))
        if record is not None:
            record.append((np.asarray(out[0]).copy() if not isinstance(out[0], dict) else
                           {k: np.asarray(v).copy() for k, v in out[0].items()}, np.asarray(out[1]).copy()))
        if not vector and (out[2] or out[3]):
            env.reset(seed=int(rng.integers(2**31)))


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


class _Interrupt:
    """A ``KeyboardInterrupt`` after ``delay`` seconds, raised in the main thread between any two
    bytecodes, as a Ctrl-C is (SIGALRM by ``setitimer``). ``arm()`` starts the clock inside the
    ``with`` body, so the interrupt can only land where ``__exit__`` catches it.

    The interpreter drops an exception raised inside a ``__del__`` or a weakref callback (it
    prints "Exception ignored in ..."), so a garbage collection at the wrong moment can swallow
    the interrupt. ``swallowed()`` tells the loop so: it re-arms, and the place where each
    interrupt landed is kept in ``landed`` for the test's message."""

    def __init__(self, delay: float):
        self.delay = delay
        self.fired = 0
        self.landed: list[str] = []

    def __enter__(self):
        def fire(signum, frame):
            self.fired += 1
            self.landed.append(" < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}"
                                          for f in reversed(traceback.extract_stack(frame, limit=4))))
            raise KeyboardInterrupt

        self.previous = signal.signal(signal.SIGALRM, fire)
        return self

    def arm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, self.delay)

    def swallowed(self) -> bool:
        """True when an interrupt fired but the loop goes on: it is re-armed."""
        if self.fired and signal.getitimer(signal.ITIMER_REAL)[0] == 0.0:
            self.fired = 0
            self.arm()
            return True
        return False

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)
        return exc[0] is KeyboardInterrupt  # the interrupt is the test's


def _env_kwargs(env_id: str) -> dict:
    return {"num_threads": 2} if env_id.endswith(" (vector)") else {}


@pytest.mark.parametrize("env_id", list(ENVS))
def test_an_env_interrupted_at_random_points_steps_again(env_id, tmp_path):
    """Ten ``KeyboardInterrupt``s at random moments of a step loop (inside ``step``, ``reset``,
    the mask, the numba call or the thread hand-off), each caught as a training loop would, then
    a step at once: the vector env takes it; a single env takes it or refuses it with a
    ValueError (stopped mid-step or at its episode's end: reset). Then the env, reset by seed,
    plays exactly what a never-interrupted twin plays. Under a watchdog: a hang fails the test
    instead of blocking the suite."""
    import faulthandler

    vector = env_id.endswith(" (vector)")
    env, twin = _make(env_id, **_env_kwargs(env_id)), _make(env_id, **_env_kwargs(env_id))
    rng = np.random.default_rng(zlib.crc32(env_id.encode()))  # the same delays in every process
    # compile every kernel first (a clean clone has no numba cache): an interrupt that lands
    # inside numba's compiler is not an env fault, and it leaves numba unusable in this process
    twin.reset(seed=0)
    _play(twin, vector, np.random.default_rng(0), 60)
    env.reset(seed=1)
    watchdog = open(tmp_path / "watchdog.txt", "w")  # a deadlock's stacks (xdist drops the worker's stderr)
    faulthandler.dump_traceback_later(120, exit=True, file=watchdog)
    swallowed = []
    try:
        for delay in rng.uniform(0.0005, 0.03, size=10):
            with _Interrupt(float(delay)) as alarm:
                alarm.arm()
                t0 = time.monotonic()
                while True:
                    _play(env, vector, rng, 1)
                    if alarm.swallowed():
                        swallowed.append(alarm.landed[-1])
                        # the interpreter drops one rarely (0 in 8,000 measured); code that eats a
                        # Ctrl-C drops every one that lands in it
                        assert len(swallowed) <= 3, f"KeyboardInterrupts swallowed, landed at {swallowed}"
                    assert time.monotonic() - t0 < 30, f"no interrupt ended the loop in 30 s: landed {alarm.landed}"
            if vector:  # step again at once: each sub-env was stepped whole or not at all
                _play(env, vector, rng, 1)
            else:  # a single env may have been stopped mid-step: reset is the way on (docs/cli.md)
                env.reset(seed=int(rng.integers(2**31)))
        seed, play_seed = int(rng.integers(2**31)), int(rng.integers(2**31))
        got, want = [], []
        env.reset(seed=seed)
        twin.reset(seed=seed)
        _play(env, vector, np.random.default_rng(play_seed), 30, got)
        _play(twin, vector, np.random.default_rng(play_seed), 30, want)
    finally:
        faulthandler.cancel_dump_traceback_later()
        watchdog.close()
        env.close()
        twin.close()
    assert len(got) == len(want) == 30
    assert all(_same(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize("env_id", list(ENVS))
def test_a_refused_action_leaves_the_env_as_it_was(env_id):
    """An action outside the space is refused with a ValueError naming it, and the env goes on as
    if it had never been sent (a twin that never saw it plays the same)."""
    vector = env_id.endswith(" (vector)")
    env, twin = _make(env_id, **_env_kwargs(env_id)), _make(env_id, **_env_kwargs(env_id))
    try:
        env.reset(seed=5)
        twin.reset(seed=5)
        n = int(env.single_action_space.n if vector else env.action_space.n)
        bad = np.full(env.num_envs, n) if vector else n
        with pytest.raises(ValueError, match=str(n)):
            env.step(bad)
        got, want = [], []
        _play(env, vector, np.random.default_rng(3), 10, got)
        _play(twin, vector, np.random.default_rng(3), 10, want)
    finally:
        env.close()
        twin.close()
    assert all(_same(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize("env_id", list(ENVS))
def test_an_env_size_past_its_bound_is_refused(env_id):
    kwargs, fragment = ENVS[env_id]["bound"]
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        _make(env_id, **kwargs)


def test_only_the_one_round_ids_have_a_native_vector_env():
    """README's "batched" column says which ids have a native vector env; asking one of the
    others for it is Gymnasium's clear error, not a silent fallback."""
    rows = {line.split("|")[1].strip(" `"): line.rstrip(" |").rsplit("|", 1)[1].strip()
            for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `splitpoker/")}
    assert rows == {i: "yes" if i in VECTOR_ENTRY_POINTS else "—" for i in ALL_ENV_IDS}  # the "batched" column
    assert sorted(VECTOR_ENTRY_POINTS) == sorted(i for i in ALL_ENV_IDS if "Table" not in i and "Session" not in i)
    for env_id in set(ALL_ENV_IDS) - set(VECTOR_ENTRY_POINTS):
        with pytest.raises(gym.error.Error, match="doesn't have a vector entry point"):
            gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
