"""RL benchmark harness: algorithms × seeds × environments at a fixed step budget, scored by exact
regret on a fixed evaluation set (a lookup, :mod:`splitpoker.agents.exact.eval_set`) every ``eval_every`` steps,
plus the paired reward against the house way on common random numbers. One run:
:mod:`splitpoker.agents.benchmark.run`; the report: :mod:`splitpoker.agents.benchmark.report`.

Runs execute as Ray tasks (local Ray by default, a cluster with ``address``) or in this process
(``executor: local``); both call :func:`splitpoker.agents.benchmark.run.run_one` with the same arguments and
give identical curves. The driver writes each finished run's files atomically (temporary file +
rename); a restarted grid skips every run whose ``result.json`` is there. A run that raises is
recorded (``error.txt``) and the others go on. Reference rows (strategy table when installed, house
way, Monte Carlo best, random) are scored on the same evaluation set and cached.

Layout of ``<out>``::

    runs/<env>__<algo>__<seed>/run.json     spec, seed, package versions, evaluation-set hash (at start)
    runs/<env>__<algo>__<seed>/config.yaml  the run as a training config (scripts/evaluate.py reads it)
    runs/<env>__<algo>__<seed>/model.zip    the trained model
    runs/<env>__<algo>__<seed>/result.json  learning curve and final scores (last: marks the run done)
    references/<env>.json                   reference rows of that environment
    benchmark.json                          everything (the report's data)
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, EnvSpec
from splitpoker.agents.benchmark.run import (
    MODEL_KEY,
    RunSpec,
    Scorer,
    _ray_run_one,
    grid,
    run_one,
    versions,
)
from splitpoker.agents.exact.eval_set import EvalSet, load_evalset

__all__ = ["GridInterrupted", "collect", "grid", "run_grid", "run_one"]


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a temporary file in the same directory, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, default=float)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---- the grid ---------------------------------------------------------------------------------

def run_dir(out: Path, spec: RunSpec) -> Path:
    return out / "runs" / spec.run_id


def finished(out: Path, spec: RunSpec) -> dict | None:
    """The stored result of ``spec``, or None. A result of another configuration under the same
    run id is an error: resuming must not mix two grids."""
    path = run_dir(out, spec) / "result.json"
    if not path.exists():
        return None
    try:
        res = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None  # unreadable (cannot happen with atomic writes, but never trust it): redo
    if res.get("spec_digest") != spec.digest:
        raise ValueError(f"{path} holds a run of a different configuration (spec {res.get('spec_digest')} != "
                         f"{spec.digest}): use another --out directory or delete it")
    return res


def store(out: Path, spec: RunSpec, result: dict) -> None:
    """``model.zip`` first, then ``result.json`` (the marker of a finished run), each atomically."""
    blob = result.pop(MODEL_KEY, None)
    if blob is not None:
        path = run_dir(out, spec) / "model.zip"
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".model.", suffix=".zip.tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    write_json_atomic(run_dir(out, spec) / "result.json", result)


def write_run_info(out: Path, spec: RunSpec, evalset: EvalSet) -> None:
    """``run.json`` (spec, seed, versions, evaluation-set hash) and ``config.yaml`` in the training
    config format, so that ``scripts/evaluate.py --model <run>/model.zip`` finds env and algorithm."""
    import yaml

    from splitpoker.agents.training.run import TrainConfig
    from splitpoker.envs.registration import VECTOR_ENTRY_POINTS

    a = spec.algo
    train_cfg = TrainConfig(env_id=spec.env.id, env_kwargs=dict(spec.env.kwargs), algo=a.algo, policy=a.policy,
                            algo_kwargs=dict(a.algo_kwargs), policy_kwargs=dict(a.policy_kwargs), n_envs=a.n_envs,
                            total_timesteps=spec.total_timesteps, seed=spec.seed, run_name=spec.run_id,
                            checkpoint_freq=spec.total_timesteps, warm_start=a.warm_start,
                            vec_env="native" if spec.env.id in VECTOR_ENTRY_POINTS else "dummy")
    d = run_dir(out, spec)
    d.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".config.", suffix=".yaml.tmp")
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump({**train_cfg.to_dict(), "versions": versions()}, f, sort_keys=False)
    os.replace(tmp, d / "config.yaml")
    write_json_atomic(run_dir(out, spec) / "run.json",
                      {"run_id": spec.run_id, "seed": spec.seed, "spec": spec.to_dict(), "spec_digest": spec.digest,
                       "evalset": {"env_id": evalset.env_id, "hands": evalset.hands, "seed": evalset.seed,
                                   "sha256": evalset.sha256}, "versions": versions()})


def reference_rows(cfg: BenchmarkConfig, env: EnvSpec, evalset: EvalSet, out: Path, log=print) -> dict:
    """Score each reference baseline on the evaluation set (cached in ``<out>/references``)."""
    from splitpoker.agents.policies.baselines import make_baseline

    path = out / "references" / f"{env.label}.json"
    key = {"refs": list(cfg.references), "kwargs": cfg.reference_kwargs, "evalset": evalset.sha256,
           "paired_hands": cfg.eval_paired_hands, "env": asdict(env)}
    if path.exists():
        try:
            data = json.loads(path.read_text())
            if data.get("key") == json.loads(json.dumps(key)):
                return data["rows"]
        except (OSError, json.JSONDecodeError):
            pass
    scorer = Scorer(env, evalset, cfg.eval_paired_hands)
    rows = {}
    for name in cfg.references:
        kw = dict(cfg.reference_kwargs.get(name, {}))
        if name in ("random", "mc-best"):
            kw.setdefault("seed", cfg.eval_seed)
        t0 = time.perf_counter()
        rows[name] = scorer.score(make_baseline(name, scorer.env, **kw))
        rows[name]["seconds"] = time.perf_counter() - t0
        log(f"[{env.label}] reference {name}: exact regret {rows[name]['mean_regret']:.4f} ± {rows[name]['regret_ci95']:.4f}")
    scorer.close()
    write_json_atomic(path, {"key": key, "rows": rows})
    return rows


def _load_evalset_with_bar(e: EnvSpec, cfg: BenchmarkConfig, log) -> EvalSet:
    """The evaluation set; a progress bar while it is being solved (first use only)."""
    import sys

    from tqdm import tqdm

    with tqdm(total=cfg.eval_hands, desc=f"solving {e.label} evaluation set", unit="hand", file=sys.stderr,
              disable=None, leave=False, delay=2.0) as bar:
        return load_evalset(e.id, e.kwargs, cfg.eval_hands, cfg.eval_seed, log=log, progress=bar.update,
                            solved=cfg.eval_solved)


class GridInterrupted(Exception):
    """Ctrl-C: finished runs are stored; rerunning the same command resumes."""

    def __init__(self, done: int, total: int):
        super().__init__(f"interrupted with {done}/{total} runs finished")
        self.done, self.total = done, total


def run_grid(cfg: BenchmarkConfig, out: Path, *, executor: str | None = None, address: str | None = None,
             num_cpus: int | None = None, log: Callable[[str], None] = print, progress=None) -> dict:
    """Run every unfinished run of the grid; return the collected results (``benchmark.json``).

    ``progress(n)`` is called as runs finish (a tqdm ``update``). Raises :class:`GridInterrupted`
    on Ctrl-C after storing what finished."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    executor = executor or cfg.executor
    evalsets, references = {}, {}
    for e in cfg.envs:
        log(f"[{e.label}] evaluation set: {cfg.eval_hands} hands, seed {cfg.eval_seed} (exact EVs, cached)")
        evalsets[e.label] = _load_evalset_with_bar(e, cfg, log)
        log(f"[{e.label}] evaluation set sha256 {evalsets[e.label].sha256[:16]}…")
        references[e.label] = reference_rows(cfg, e, evalsets[e.label], out, log=log)
    specs = grid(cfg)
    results = {s.run_id: r for s in specs if (r := finished(out, s)) is not None}
    todo = [s for s in specs if s.run_id not in results]
    if results:
        log(f"skipping {len(results)} finished run(s) found in {out / 'runs'}")
    if progress is not None and results:
        progress(len(results))
    log(f"{len(todo)} run(s) to do with executor {executor!r}")
    for s in todo:
        write_run_info(out, s, evalsets[s.env.label])

    def done(spec: RunSpec, res: dict) -> None:
        store(out, spec, res)
        results[spec.run_id] = res
        f = res["final"]
        log(f"done {spec.run_id}: {res['steps']} steps in {res['train_seconds']:.0f} s, exact regret "
            f"{f['mean_regret']:.4f} ± {f['regret_ci95']:.4f}")
        if progress is not None:
            progress(1)

    failed: dict[str, str] = {}

    def fail(spec: RunSpec, err: BaseException) -> None:
        """A run that raised: its error goes to ``error.txt``; the other runs go on."""
        import traceback

        text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
        (run_dir(out, spec) / "error.txt").write_text(text)
        failed[spec.run_id] = f"{type(err).__name__}: {err}"
        log(f"FAILED {spec.run_id}: {failed[spec.run_id]} (traceback in {run_dir(out, spec) / 'error.txt'})")
        if progress is not None:
            progress(1)

    try:
        if todo and executor == "local":
            import torch

            torch.set_num_threads(1)
            for s in todo:
                try:
                    res = run_one(s, evalsets[s.env.label])
                except Exception as err:  # noqa: BLE001 - recorded, reported, the grid goes on
                    fail(s, err)
                    continue
                done(s, res)
        elif todo:
            _run_ray(todo, evalsets, done, fail, address=address, num_cpus=num_cpus or cfg.num_cpus, log=log)
    except KeyboardInterrupt:
        raise GridInterrupted(len(results), len(specs)) from None
    summary = collect(cfg, out, evalsets, references, results)
    summary["failed"] = failed
    write_json_atomic(out / "benchmark.json", summary)
    return summary


def _run_ray(todo: list[RunSpec], evalsets: dict, done: Callable, fail: Callable, *, address, num_cpus, log) -> None:
    import logging

    try:
        import ray
    except ImportError:
        raise ValueError("executor 'ray' needs Ray (pip install 'ray>=2.9'); or run with --no-ray / executor: local") from None

    started_here = not ray.is_initialized()
    if started_here:
        quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
        from splitpoker.agents.exact.strategy import keep_signal_handlers

        with keep_signal_handlers():  # Ray's own SIGTERM handler aborts with stack traces
            if address:  # the cluster's resources and dashboard are the cluster's business
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    log(f"Ray: {int(ray.cluster_resources().get('CPU', 0))} CPU(s) at {address or 'local'}")
    task = ray.remote(num_cpus=1, max_retries=0)(_ray_run_one)
    refs_evalset = {k: ray.put(v) for k, v in evalsets.items()}
    pending = {task.remote(s.to_dict(), refs_evalset[s.env.label]): s for s in todo}
    try:
        while pending:
            # a timeout, so that Ctrl-C (handled between Python bytecodes) is seen within a second
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                spec = pending.pop(ref)
                try:
                    res = ray.get(ref)
                except ray.exceptions.RayTaskError as err:
                    fail(spec, err)
                    continue
                done(spec, res)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()


# ---- collecting -------------------------------------------------------------------------------

def collect(cfg: BenchmarkConfig, out: Path, evalsets: dict, references: dict, results: dict) -> dict:
    """Aggregate per (environment, algorithm): final exact regret mean ± 95% CI across seeds
    (Student t), curves, wall time; plus the reference rows. Written to ``<out>/benchmark.json``."""
    rows = []
    for e in cfg.envs:
        for a in cfg.algorithms:
            runs = [results[s.run_id] for s in grid(cfg) if s.env == e and s.algo == a and s.run_id in results]
            if not runs:
                continue
            rows.append(aggregate(e, a, runs))
    summary = {"name": cfg.name, "description": cfg.description, "total_timesteps": cfg.total_timesteps,
               "eval_every": cfg.eval_every, "seeds": list(cfg.seeds),
               "evalsets": {k: {"env_id": v.env_id, "hands": v.hands, "seed": v.seed, "sha256": v.sha256,
                                "paired_hands": cfg.eval_paired_hands} for k, v in evalsets.items()},
               "references": references, "rows": rows, "runs_done": len(results), "runs_total": len(grid(cfg)),
               "versions": versions()}
    write_json_atomic(out / "benchmark.json", summary)
    return summary


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


def aggregate(env: EnvSpec, algo: AlgoSpec, runs: list[dict]) -> dict:
    finals = [r["final"] for r in runs]
    row = {"env": env.label, "env_id": env.id, "algorithm": algo.name, "algo": algo.algo, "policy": algo.policy,
           "seeds": [r["seed"] for r in runs], "steps": int(np.mean([r["steps"] for r in runs])),
           "warm_start": algo.warm_start}
    for key in ("mean_regret", "optimal_rate", "diff_vs_house_way", "mean_reward"):
        row[key], row[key + "_ci95"] = t_ci([f[key] for f in finals])
    row["train_seconds"], row["train_seconds_ci95"] = t_ci([r["train_seconds"] for r in runs])
    n_points = min(len(r["curve"]) for r in runs)
    curve = []
    for i in range(n_points):
        pts = [r["curve"][i] for r in runs]
        m, ci = t_ci([p["mean_regret"] for p in pts])
        d, dci = t_ci([p["diff_vs_house_way"] for p in pts])
        curve.append({"steps": int(np.mean([p["steps"] for p in pts])), "mean_regret": m, "ci95": ci,
                      "diff_vs_house_way": d, "diff_ci95": dci})
    row["curve"] = curve
    return row
