"""The exact optimal strategy for every hand class, solved in shards on Ray.

Plan: the classes to solve (all :data:`splitpoker.envs.solver.classes.N_CLASSES`, or a seeded stratified
sample), dealt into shards of about ``shard_size`` classes, interleaved (:func:`shard_classes`). Each shard is one Ray task
(``num_cpus=1``; the worker keeps its :class:`~splitpoker.envs.solver.exact.ExactSolver` and the
memory-mapped dealer table between tasks, so the page cache holds one copy per machine) that
returns its rows; the driver writes the shard atomically (:mod:`splitpoker.agents.exact.solved_store`). Results
depend only on the plan, never on the number of workers or the order shards finish. A restarted
run with the same plan skips the finished shards; a killed worker's task is retried by Ray; a
killed driver loses the shards in flight.

Sample (``sample=N``): stratified by class order with probability proportional to weight — the
classes, each repeated ``weight`` times, list all 154,143,080 hands; stratum h is the h-th of N
equal slices of that list and one hand is drawn uniformly in it (seeded), giving its class. So a
sampled class is a uniformly dealt hand of its slice: the plain mean of the sampled classes' EVs
estimates the mean over all hands without bias. Its variance is estimated from pairs of adjacent
strata, ``sum (y_2j - y_2j+1)^2 / N^2`` (conservative), and the 95% CI is mean +- 1.96 SE. A full
run weights every class exactly: no sampling error.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from splitpoker.agents.exact.solved_store import (
    FULL_POOL,
    MANIFEST,
    StoreError,
    list_column,
    read_manifest,
    read_shard,
    shard_name,
    shard_table,
    store_key,
    write_shard_atomic,
)
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.registry import house_way
from splitpoker.envs.solver import classes as hc

MAX_SAMPLE = 1_000_000


# ---- plan -------------------------------------------------------------------------------------

def sample_classes(n: int, seed: int, reps: np.ndarray | None = None) -> np.ndarray:
    """The stratified weight-proportional sample of ``n`` classes (sorted, distinct)."""
    if not is_integer(n) or not 2 <= n <= MAX_SAMPLE:
        raise ValueError(f"sample={n!r}: expected an integer 2..{MAX_SAMPLE:,} (or no sample: every class)")
    w = hc.class_weights(reps=reps)
    cum = np.cumsum(w)
    total = int(cum[-1])
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 14]))
    edges = np.arange(n + 1, dtype=np.int64) * total // n  # exact integer slices of the hand list
    u = edges[:-1] + np.floor(rng.random(n) * (edges[1:] - edges[:-1])).astype(np.int64)
    picked = np.searchsorted(cum, u, side="right")
    if (np.diff(picked) <= 0).any():  # impossible while a slice (>= 154 hands) exceeds any weight (24)
        raise ValueError(f"sample={n}: strata narrower than a class")
    return picked.astype(np.int64)


def make_plan(sample: int | None, seed: int, shard_size: int, reps: np.ndarray | None = None) -> tuple[dict, np.ndarray]:
    if not is_integer(shard_size) or not 1 <= shard_size <= 100_000:
        raise ValueError(f"shard_size={shard_size!r}: expected an integer 1..100,000")
    if sample is None:
        classes = np.arange(hc.N_CLASSES, dtype=np.int64)
    else:
        classes = sample_classes(sample, seed, reps)
    digest = hashlib.sha256(classes.tobytes()).hexdigest()
    plan = {"sample": sample, "seed": int(seed) if sample is not None else None, "shard_size": int(shard_size),
            "n_classes": int(classes.size), "n_shards": math.ceil(classes.size / shard_size),
            "classes_sha256": digest}
    return plan, classes


def shard_classes(classes: np.ndarray, plan: dict, k: int) -> np.ndarray:
    """Shard ``k`` takes every ``n_shards``-th class of the plan from the ``k``-th on: each shard
    spreads over the whole class order, so any set of finished shards of a sample is itself a
    systematic sample of all hands (a run stopped early still estimates without bias)."""
    return classes[k::plan["n_shards"]]


def prepare_store(out: Path, game: Game, plan: dict, universe: int) -> dict:
    """Write the manifest of a new store, or check an existing one has the same key and plan
    (else :class:`StoreError` naming what differs)."""
    key = store_key(game, universe)
    path = out / MANIFEST
    if path.exists():
        m = read_manifest(out)
        if m.get("key") != key:
            raise StoreError(f"--out {out} holds a store for another game, style, rules or rules source "
                             f"({m.get('key', {}).get('style')}); use another --out")
        if m.get("plan") != plan:
            diff = sorted(k for k in plan if m.get("plan", {}).get(k) != plan[k])
            raise StoreError(f"--out {out} holds a store with another plan (differs in {', '.join(diff)}: "
                             f"{ {k: m.get('plan', {}).get(k) for k in diff} }); rerun with the same "
                             f"--sample/--seed/--shard-size or use another --out")
        return m
    from splitpoker.agents.output import write_json

    m = {"key": key, "plan": plan}
    write_json(path, m)
    return m


def finished_shards(out: Path, game: Game, key: dict, plan: dict, classes: np.ndarray, log=None) -> set[int]:
    """Shards already written and intact; a corrupt one is reported and solved again."""
    done = set()
    for k in range(plan["n_shards"]):
        path = out / shard_name(k)
        if not path.exists():
            continue
        try:
            t = read_shard(path, game, key, expect_rows=shard_classes(classes, plan, k).size)
            if not np.array_equal(t.column("class").to_numpy(), shard_classes(classes, plan, k)):
                raise StoreError(f"shard {path} holds other classes than the plan's")
            done.add(k)
        except StoreError as e:
            if log is not None:
                log(f"{e}: solving it again")
    return done


# ---- solving (runs in the workers) ------------------------------------------------------------

_SOLVERS: dict = {}


def _solver(game_name: str, style: str, rules, universe: int):
    key = (game_name, style, repr(rules), universe)
    if key not in _SOLVERS:
        from splitpoker.envs.solver.dealer_table import build_dealer_table
        from splitpoker.envs.solver.exact import ExactSolver

        g = Game(game_name, style, rules)
        table = None if universe == FULL_POOL else build_dealer_table(g, universe=universe)
        _SOLVERS[key] = (g, ExactSolver(g, table=table))
    return _SOLVERS[key]


def house_way_over_class(game: Game, hand: np.ndarray, key: np.ndarray, n: int) -> tuple[float, bool]:
    """Mean house-way EV over the hands of ``hand``'s class (the 24 suit relabellings, each
    distinct hand equally often), from the canonical hand's exact counts ``key`` (``wins - losses``
    style integer per setting, see :meth:`ExactResult._exact_key`) scaled to EV by ``n``; and
    whether it varies: house ways that break ties by card position may set two hands of a class
    differently (tests/test_classes.py)."""
    evs = []
    for p in hc.suit_permutations():
        image = hc.permute_suits(hand, p)
        s = int(house_way(game.style_id, image, game.rank_table, game.to_two))
        evs.append(key[int(hc.setting_map(game.game, image)[s])])
    evs = np.asarray(evs, dtype=np.float64)
    return float(evs.mean()) / n, bool((evs != evs[0]).any())


def solve_shard(game_name: str, style: str, rules, universe: int, classes: np.ndarray) -> dict:
    """Rows of one shard (column -> array; ``seconds`` is each class's CPU time). Pure function
    of its arguments apart from ``seconds`` and ``_task`` (the shard's wall and CPU seconds, the
    worker's one-time solver set-up — dealer table, compiled code — excluded)."""
    g, solver = _solver(game_name, style, rules, universe)
    w0, c0 = time.perf_counter(), time.process_time()
    hands = hc.class_hands(classes)
    m = classes.size
    s = g.n_settings
    rows = {"class": classes.astype(np.int64), "weight": hc.hand_weights(hands).astype(np.int8),
            "house_way_setting": np.empty(m, np.int8), "house_way_ev": np.empty(m), "house_way_varies": np.empty(m, bool),
            "optimal_setting": np.empty(m, np.int8), "optimal_ev": np.empty(m), "n_optimal": np.empty(m, np.int8),
            "wins": np.empty((m, s), np.uint32), "pushes": np.empty((m, s), np.uint32), "seconds": np.empty(m)}
    for i in range(m):
        t0 = time.process_time()
        hand = hands[i]
        pool = None if universe == FULL_POOL else np.setdiff1d(np.arange(universe), hand)
        res = solver.solve(hand, pool=pool, parallel=False)
        hw = int(house_way(g.style_id, hand, g.rank_table, g.to_two))
        opt = res.best(prefer=hw)
        ev_key = res._exact_key()
        scale = res.n_dealer_hands * _commission_denominator(g)
        rows["house_way_setting"][i] = hw
        rows["house_way_ev"][i], rows["house_way_varies"][i] = house_way_over_class(g, hand, ev_key, scale)
        rows["optimal_setting"][i] = opt
        rows["optimal_ev"][i] = float(res.ev_fraction(opt))
        rows["n_optimal"][i] = len(res.optimal_settings())
        rows["wins"][i] = res.wins
        rows["pushes"][i] = res.pushes
        rows["seconds"][i] = time.process_time() - t0
    rows["_task"] = np.array([time.perf_counter() - w0, time.process_time() - c0])
    return rows


def _commission_denominator(g: Game) -> int:
    from fractions import Fraction

    return Fraction(str(g.commission)).denominator  # 1 without a commission (Asia Poker)


def _ray_solve_shard(game_name, style, rules, universe, classes):
    return solve_shard(game_name, style, rules, universe, classes)


# ---- driver -----------------------------------------------------------------------------------

@contextlib.contextmanager
def keep_signal_handlers():
    """Around ``ray.init``: put back the SIGINT/SIGTERM handlers it replaces. Ray's driver
    installs a C++ failure handler for SIGTERM that prints its stack traces and aborts, so a
    ``kill`` left half a shard's temporary file and pages of traces instead of the script's own
    one-line stop (scripts/support/cli.py: SIGTERM acts as Ctrl-C, exit 143).

    ``ray.init``'s first act is a SIGTERM handler of its own, ``sys.exit(signum)``
    (ray/_private/worker.py): a SIGTERM that arrives before ``ray.init`` returns surfaces here as
    ``SystemExit(15)``, which would end the run with exit 15 and no message. It is handed to the
    handler Ray replaced, as if that handler had received the signal."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except SystemExit as stop:
        if stop.code != signal.SIGTERM:
            raise
        _resend_sigterm(saved[signal.SIGTERM])
        raise
    finally:
        for s, handler in saved.items():
            if handler is not None:  # None: a handler not set from Python, nothing to put back
                signal.signal(s, handler)


@contextlib.contextmanager
def ray_messages_to_stderr():
    """While a driver uses Ray: what is printed on stdout goes to stderr. Ray's driver prints the
    cluster's error reports on ``sys.stdout``, from a thread of its own (``listen_error_messages``
    in ray/_private/worker.py, whatever ``log_to_driver`` says): a lost cluster node put
    ``(raylet) Raylet is terminated. Termination is unexpected ...`` and the raylet's last log
    lines in front of ``solve_all.py --json``'s summary, which was then no JSON
    (tests/test_ray_cluster.py). The scripts print their results after Ray is shut down, so
    stdout holds the result alone; the reports stay readable on stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _resend_sigterm(handler) -> None:
    """Give a SIGTERM that Ray's handler took to ``handler``, the one it replaced: a Python handler
    is called (the scripts' raises ``KeyboardInterrupt``), the default one ends the process by the
    signal; an ignored SIGTERM leaves Ray's ``SystemExit`` to propagate."""
    if callable(handler):
        handler(signal.SIGTERM, None)
    elif handler == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def start_ray(address: str | None, num_cpus: int | None, log: Callable[[str], None]):
    """Ray as the project starts it (agents/benchmark/harness.py): local with no setup, quiet, no
    dashboard; ``address`` joins a cluster. The workers import this checkout (PYTHONPATH)."""
    import logging

    try:
        import ray
    except ImportError:
        raise ValueError("solve_all needs Ray (pip install 'ray>=2.9')") from None
    root = str(Path(__file__).resolve().parents[2])  # the checkout: splitpoker/ beside envs/, agents/
    env = {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    for var in ("SPLITPOKER_CACHE_DIR", "NUMBA_NUM_THREADS"):
        if var in os.environ:
            env[var] = os.environ[var]
    started = not ray.is_initialized()
    if started:
        quiet = {"logging_level": logging.ERROR, "log_to_driver": False, "runtime_env": {"env_vars": env}}
        with keep_signal_handlers():
            if address:
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    log(f"Ray: {int(ray.cluster_resources().get('CPU', 0))} CPU(s) at {address or 'local'}")
    return ray, started


@ray_messages_to_stderr()
def run_plan(out: Path, game: Game, plan: dict, classes: np.ndarray, *, universe: int = FULL_POOL,
             address: str | None = None, num_cpus: int | None = None, log=lambda m: None,
             progress: Callable[[int], None] | None = None, max_in_flight: int | None = None,
             time_budget: float | None = None) -> dict:
    """Solve the unfinished shards on Ray, writing each as it arrives. With ``time_budget``
    (seconds), no new shard starts after it; the shards in flight finish. Returns run statistics."""
    key = store_key(game, universe)
    done = finished_shards(out, game, key, plan, classes, log=log)
    todo = [k for k in range(plan["n_shards"]) if k not in done]
    stats = {"shards_total": plan["n_shards"], "shards_skipped": len(done), "shards_solved": 0,
             "classes_solved": 0, "wall_seconds": 0.0, "workers": 0, "stopped_by_time_budget": False,
             "task_wall_seconds": 0.0, "task_cpu_seconds": 0.0}
    if progress is not None and done:
        progress(sum(shard_classes(classes, plan, k).size for k in done))
    if not todo:
        return stats
    ray, started = start_ray(address, num_cpus, log)
    try:
        workers = int(ray.cluster_resources().get("CPU", 1))
        stats["workers"] = workers
        task = ray.remote(num_cpus=1, max_retries=3)(_ray_solve_shard)
        rules = game.rules
        limit = max_in_flight or 2 * workers
        queue = list(todo)
        pending = {}
        t0 = time.perf_counter()
        try:
            while queue or pending:
                if queue and time_budget is not None and time.perf_counter() - t0 > time_budget:
                    stats["stopped_by_time_budget"] = True
                    queue = []
                while queue and len(pending) < limit:
                    k = queue.pop(0)
                    pending[task.remote(game.game, game.style.value, rules, universe,
                                        shard_classes(classes, plan, k))] = k
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    k = pending.pop(ref)
                    rows = ray.get(ref)
                    task_wall, task_cpu = rows.pop("_task")
                    stats["task_wall_seconds"] += float(task_wall)
                    stats["task_cpu_seconds"] += float(task_cpu)
                    if not game.spec.is_paigow:  # no pushes in Asia Poker
                        rows.pop("pushes")
                    write_shard_atomic(shard_table(game, key, rows), out / shard_name(k))
                    stats["shards_solved"] += 1
                    stats["classes_solved"] += len(rows["class"])
                    if progress is not None:
                        progress(len(rows["class"]))
        except BaseException as exc:
            # a Ray started here is shut down below, which ends its workers; ray.cancel racing
            # with a task that just finished can abort the driver in Ray's core ("Tried to complete
            # task that was not pending"), so cancel only on a cluster this run does not own
            if not started:
                for ref in pending:
                    ray.cancel(ref, force=True)
            # the frames the interrupt came through (ray.wait's, ray.get's) hold ObjectRefs in
            # their locals: free them now, while Ray is up (see the shutdown below)
            traceback.clear_frames(exc.__traceback__)
            raise
        stats["wall_seconds"] = time.perf_counter() - t0
    finally:
        if started:
            # no ObjectRef may outlive the shutdown: one freed after it (when the interrupt's
            # traceback, which holds this frame, is let go) can end the driver in Ray's core with
            # exit code 1 ("The core worker process is not initialized yet or already shutdown"
            # in the driver's log, then Ray's quick exit): an interrupted solve_all.py printed its
            # line and exited 1 instead of 130 (its test with both cores kept busy: 1 of 6 runs
            # failed before this, 0 of 8 after)
            pending = ready = ref = None
            ray.shutdown()
    return stats


# ---- results ----------------------------------------------------------------------------------

def read_results(out: Path, game: Game, plan: dict, universe: int = FULL_POOL) -> dict:
    """Per-class columns of every finished shard, concatenated in class order."""
    key = store_key(game, universe)
    parts = [read_shard(out / shard_name(k), game, key) for k in range(plan["n_shards"]) if (out / shard_name(k)).exists()]
    if not parts:
        return {}
    import pyarrow as pa

    t = pa.concat_tables(parts).sort_by("class")
    cols = {c: t.column(c).to_numpy() for c in ("class", "weight", "house_way_ev", "house_way_varies", "optimal_ev",
                                                 "n_optimal", "house_way_setting", "optimal_setting", "seconds")}
    cols["wins"] = list_column(t, "wins", game.n_settings)
    return cols


def _mean_ci(y: np.ndarray, stratified: bool) -> tuple[float, list]:
    n = y.size
    m = float(y.mean())
    if n < 2:
        return m, [m, m]
    if stratified:
        pairs = y[: n - n % 2].reshape(-1, 2)
        var = float(((pairs[:, 0] - pairs[:, 1]) ** 2).sum()) / n**2 * (n / (n - n % 2))
    else:
        var = float(y.var(ddof=1)) / n
    half = 1.96 * math.sqrt(var)
    return m, [m - half, m + half]


def summarize(cols: dict, plan: dict, game: Game) -> dict:
    """House edge (= - mean EV per unit of the main bet) of the house way and of optimal play,
    their difference, with 95% CIs for a sample; exact for a complete full run."""
    n = int(cols["class"].size) if cols else 0
    rep = {"game": game.game, "style": game.style.value, "classes_done": n, "classes_planned": plan["n_classes"],
           "sample": plan["sample"], "seed": plan["seed"]}
    if n == 0:
        return rep
    hw, opt = cols["house_way_ev"], cols["optimal_ev"]
    gain = opt - hw
    if plan["sample"] is None:
        w = cols["weight"].astype(np.float64)
        complete = n == hc.N_CLASSES
        rep["hands_covered"] = int(w.sum())
        rep["exact"] = complete
        for name, y in (("house_way", hw), ("optimal", opt), ("gain", gain)):
            rep[f"{name}_mean_ev" if name != "gain" else "gain"] = float((w * y).sum() / w.sum())
        rep["house_way_edge"] = -rep["house_way_mean_ev"]
        rep["optimal_edge"] = -rep["optimal_mean_ev"]
        rep["house_way_optimal_fraction"] = float((w * (gain <= 0)).sum() / w.sum())
    else:
        stratified = n == plan["n_classes"]  # an unfinished sample loses its strata pairing: plain CI
        m, ci = _mean_ci(hw, stratified)
        rep["house_way_edge"], rep["house_way_edge_ci95"] = -m, [-ci[1], -ci[0]]
        m, ci = _mean_ci(opt, stratified)
        rep["optimal_edge"], rep["optimal_edge_ci95"] = -m, [-ci[1], -ci[0]]
        rep["gain"], rep["gain_ci95"] = _mean_ci(gain, stratified)
        rep["house_way_optimal_fraction"] = float((gain <= 0).mean())
        rep["ci"] = "stratified (adjacent strata pairs)" if stratified else "iid over the classes done (sample incomplete)"
    rep["house_way_varies_fraction"] = float(cols["house_way_varies"].mean())
    rep["seconds_per_class"] = float(np.mean(cols["seconds"]))
    return rep


def cost_model(seconds_per_class: float, bytes_per_class: float, cores: int = 1) -> dict:
    """The full run on paper: classes x seconds per class / cores, and its disk size."""
    cpu = hc.N_CLASSES * seconds_per_class
    return {"classes": hc.N_CLASSES, "seconds_per_class": seconds_per_class, "cpu_hours": cpu / 3600,
            "cores": cores, "wall_hours": cpu / 3600 / cores, "bytes_per_class": bytes_per_class,
            "disk_gb": hc.N_CLASSES * bytes_per_class / 1e9}


def store_bytes_per_class(out: Path, plan: dict) -> float:
    files = [out / shard_name(k) for k in range(plan["n_shards"]) if (out / shard_name(k)).exists()]
    rows = 0
    import pyarrow.parquet as pq

    for f in files:
        rows += pq.ParquetFile(f).metadata.num_rows
    return sum(f.stat().st_size for f in files) / rows if rows else float("nan")
