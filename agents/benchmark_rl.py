"""RL benchmark harness: algorithms × seeds × environments at a fixed step budget, scored by exact
regret on a fixed evaluation set (a lookup, :mod:`agents.eval_set`) every ``eval_every`` steps,
plus the paired reward against the house way on common random numbers
(:mod:`agents.evaluation`).

One *run* = one (environment, algorithm, seed). Runs execute as Ray tasks (local Ray by default,
a cluster with ``address``) or in this process (``executor: local``); both call :func:`run_one`
with the same arguments, seed Python, NumPy and torch (``set_random_seed``), the vectorised env
(``seed``) and use one torch thread, so they give identical curves. The driver writes each
finished run's ``result.json`` atomically (temporary file + rename) into
``<out>/runs/<run_id>/``, next to ``run.json`` (the run's config, seed, package versions and the
evaluation set's hash); a restarted grid skips every run whose result is there. Reference rows
(house way, Monte Carlo best, random, the strategy table when installed) are scored on the same
evaluation set and cached in ``<out>/references/``.

Layout of ``<out>``::

    runs/<env>__<algo>__<seed>/run.json     spec, seed, versions, evaluation-set hash (at start)
    runs/<env>__<algo>__<seed>/result.json  curve and final scores (atomically, when done)
    references/<env>.json                   reference rows of that environment
    benchmark.json                          everything (the report's data)
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envs.rules.cache import key_digest

from .benchmark_config import AlgoSpec, BenchmarkConfig, EnvSpec, resolve_policy
from .eval_set import EvalSet, load_evalset, make_eval_env
from .evaluation import hand_seeds, mean_ci, run_policy

RESULT_FORMAT = 1
MODEL_KEY = "model_zip"  # the trained model's bytes in a task's result; stored as model.zip, not in JSON


@dataclass(frozen=True)
class RunSpec:
    """Everything a run depends on (its hash guards resumption against a changed config)."""

    env: EnvSpec
    algo: AlgoSpec
    seed: int
    total_timesteps: int
    eval_every: int
    eval_hands: int
    eval_paired_hands: int
    eval_seed: int

    @property
    def run_id(self) -> str:
        safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in self.algo.name)
        return f"{self.env.label}__{safe}__{self.seed}"

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def digest(self) -> str:
        return key_digest(self.to_dict())


def grid(cfg: BenchmarkConfig) -> list[RunSpec]:
    return [RunSpec(e, a, s, cfg.total_timesteps, cfg.eval_every, cfg.eval_hands, cfg.eval_paired_hands, cfg.eval_seed)
            for e in cfg.envs for a in cfg.algorithms for s in cfg.seeds]


def versions() -> dict[str, str]:
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for pkg in ("splitpoker", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "numba", "numpy", "ray"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out


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


# ---- scoring ----------------------------------------------------------------------------------

class Scorer:
    """Scores a policy on one environment's evaluation set: exact regret on its ``hands`` hands and
    the paired reward difference to the house way on ``paired_hands`` hands (the same deals for
    every policy; the regret hands are the first ones)."""

    def __init__(self, env: EnvSpec, evalset: EvalSet, paired_hands: int):
        from .policies import HouseWayPolicy

        self.evalset = evalset
        self.env = make_eval_env(env.id, env.kwargs)
        self.seeds = list(evalset.seeds) + hand_seeds(evalset.seed, max(paired_hands, evalset.hands))[evalset.hands:]
        self.paired_hands = max(paired_hands, evalset.hands)
        self.house_way = run_policy(self.env, HouseWayPolicy.from_env(self.env), self.seeds)

    def score(self, policy) -> dict:
        rec = run_policy(self.env, policy, self.seeds)
        out = self.evalset.score(rec.settings[: self.evalset.hands], rec.cards)
        d, dci = mean_ci(rec.reward - self.house_way.reward)
        r, rci = mean_ci(rec.reward)
        out.update({"paired_hands": self.paired_hands, "diff_vs_house_way": d, "diff_vs_house_way_ci95": dci,
                    "mean_reward": r, "reward_ci95": rci, "foul_rate": float(rec.fouled.mean())})
        return out

    def close(self):
        self.env.close()


def _regret_callback(scorer: Scorer, eval_every: int, make_policy: Callable, points: list):
    from stable_baselines3.common.callbacks import BaseCallback

    class ExactRegretCallback(BaseCallback):
        """Scores the model every ``eval_every`` environment steps; RNG states are restored after
        scoring so that evaluation never changes training."""

        def __init__(self):
            super().__init__()
            self.next_eval = eval_every
            self.eval_seconds = 0.0

        def evaluate(self) -> None:
            import random

            import torch

            t0 = time.perf_counter()
            states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
            point = scorer.score(make_policy(self.model))
            random.setstate(states[0])
            np.random.set_state(states[1])
            torch.set_rng_state(states[2])
            point["steps"] = int(self.model.num_timesteps)
            points.append(point)
            self.eval_seconds += time.perf_counter() - t0

        def _on_training_start(self) -> None:
            if not points:
                self.evaluate()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_eval:
                self.evaluate()
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += eval_every
            return True

    return ExactRegretCallback()


def build_model(spec: RunSpec, n_envs: int | None = None):
    """The untrained model and its vectorised env, seeded from ``spec.seed``."""
    from .training import TrainConfig, algo_class, make_vec_env

    a = spec.algo
    cfg = TrainConfig(env_id=spec.env.id, env_kwargs=dict(spec.env.kwargs), algo=a.algo, policy=a.policy,
                      algo_kwargs=dict(a.algo_kwargs), policy_kwargs=dict(a.policy_kwargs), n_envs=n_envs or a.n_envs,
                      total_timesteps=spec.total_timesteps, seed=spec.seed, vec_env="dummy")
    venv = make_vec_env(cfg)
    model = algo_class(a.algo)(resolve_policy(a.algo, a.policy), venv, seed=spec.seed, device="cpu",
                               policy_kwargs=dict(a.policy_kwargs) or None, verbose=0, **a.algo_kwargs)
    return model, venv


def check_buildable(cfg: BenchmarkConfig) -> None:
    """Build every algorithm's model once on one env (no training), so a bad hyperparameter or
    policy keyword fails before any run starts, with the algorithm named."""
    from .benchmark_config import ConfigError

    for e in cfg.envs:
        for a in cfg.algorithms:
            spec = RunSpec(e, a, 0, cfg.total_timesteps, cfg.eval_every, 2, 2, 0)
            try:
                model, venv = build_model(spec, n_envs=a.n_envs)
                venv.close()
                del model
            except Exception as err:  # noqa: BLE001 - any failure here is a configuration error
                raise ConfigError(f"algorithm {a.name!r} cannot be built on {e.id}: {type(err).__name__}: {err}") from None


def run_one(spec: RunSpec, evalset: EvalSet) -> dict:
    """Train one run and score it at step 0, every ``eval_every`` steps and at the end. Returns the
    result dict (no files written: the caller stores it)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from .policies import SB3Policy

    torch.set_num_threads(1)
    set_random_seed(spec.seed)
    t_start = time.perf_counter()
    model, venv = build_model(spec)
    scorer = Scorer(spec.env, evalset, spec.eval_paired_hands)
    points: list[dict] = []
    policy = SB3Policy.from_env(scorer.env, model=model, name=spec.algo.name)
    callback = _regret_callback(scorer, spec.eval_every, lambda m: policy, points)
    t0 = time.perf_counter()
    model.learn(total_timesteps=spec.total_timesteps, callback=callback, progress_bar=False)
    if points[-1]["steps"] != model.num_timesteps:
        callback.evaluate()
    wall = time.perf_counter() - t0
    venv.close()
    scorer.close()
    buf = io.BytesIO()
    model.save(buf)
    return {MODEL_KEY: buf.getvalue(), "format": RESULT_FORMAT, "run_id": spec.run_id, "spec": spec.to_dict(), "spec_digest": spec.digest,
            "env": spec.env.label, "env_id": spec.env.id, "algorithm": spec.algo.name, "seed": spec.seed,
            "steps": int(model.num_timesteps), "train_seconds": wall - callback.eval_seconds,
            "eval_seconds": callback.eval_seconds, "total_seconds": time.perf_counter() - t_start,
            "evalset_sha256": evalset.sha256, "versions": versions(), "curve": points, "final": points[-1]}


def _ray_run_one(spec_dict: dict, evalset: EvalSet) -> dict:
    """Ray task body: rebuild the spec (plain data travels better than dataclasses)."""
    return run_one(spec_from_dict(spec_dict), evalset)


def spec_from_dict(d: dict) -> RunSpec:
    return RunSpec(EnvSpec(**d["env"]), AlgoSpec(**d["algo"]), *(d[k] for k in (
        "seed", "total_timesteps", "eval_every", "eval_hands", "eval_paired_hands", "eval_seed")))


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

    from .training import TrainConfig

    a = spec.algo
    train_cfg = TrainConfig(env_id=spec.env.id, env_kwargs=dict(spec.env.kwargs), algo=a.algo, policy=a.policy,
                            algo_kwargs=dict(a.algo_kwargs), policy_kwargs=dict(a.policy_kwargs), n_envs=a.n_envs,
                            total_timesteps=spec.total_timesteps, seed=spec.seed, run_name=spec.run_id,
                            checkpoint_freq=spec.total_timesteps)
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
    from .policies import make_baseline

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
        return load_evalset(e.id, e.kwargs, cfg.eval_hands, cfg.eval_seed, log=log, progress=bar.update)


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
        kw = {"include_dashboard": False, "logging_level": logging.ERROR, "log_to_driver": False}
        if address:
            ray.init(address=address, **kw)
        else:
            ray.init(num_cpus=num_cpus, **kw)
    log(f"Ray: {int(ray.cluster_resources().get('CPU', 0))} CPU(s) at {address or 'local'}")
    task = ray.remote(num_cpus=1, max_retries=0)(_ray_run_one)
    refs_evalset = {k: ray.put(v) for k, v in evalsets.items()}
    pending = {task.remote(s.to_dict(), refs_evalset[s.env.label]): s for s in todo}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
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
           "seeds": [r["seed"] for r in runs], "steps": int(np.mean([r["steps"] for r in runs]))}
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
