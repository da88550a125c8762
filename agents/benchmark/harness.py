"""RL benchmark harness: algorithms × seeds × environments at a fixed step budget, scored every
``eval_every`` steps on each task of the environment (:mod:`splitpoker.agents.benchmark.tasks`:
exact regret on a fixed set of hands, the bets' exact EV lost, a session's exact success
probability), on a *validation* split and a disjoint *test* split. One run:
:mod:`splitpoker.agents.benchmark.run`; the rows across seeds:
:mod:`splitpoker.agents.benchmark.rows`; the statistics: :mod:`splitpoker.agents.benchmark.stats`;
the report: :mod:`splitpoker.agents.benchmark.report`.

Which split is read where: nothing in the harness chooses anything; ``scripts/tune.py``
(:mod:`splitpoker.agents.benchmark.tuning`) reads the validation split only; the published rows
(``benchmark.json`` ``rows``, the report) are the test split's final scores, with the
validation split's beside them under ``validation`` for whoever selects.

Runs execute as Ray tasks (local Ray by default, a cluster with ``address``) or in this process
(``executor: local``); both call :func:`splitpoker.agents.benchmark.run.run_one` with the same arguments and
give identical curves. The driver writes each finished run's files atomically (temporary file +
rename); a restarted grid skips every run whose ``result.json`` is there. A run that raises is
recorded (``error.txt``) and the others go on. Reference rows (strategy table when installed, house
way, Monte Carlo best, random, and any card file the grid names) are scored on the same evaluation
set and cached.

Layout of ``<out>``::

    runs/<env>__<algo>__<seed>/run.json     spec, seed, versions, commit, evaluation sets (at start); the
                                            machine (CPU, threads), wall and CPU seconds, steps/s (at the end)
    runs/<env>__<algo>__<seed>/config.yaml  the run as a training config (scripts/evaluate.py reads it)
    runs/<env>__<algo>__<seed>/model.zip    the trained model
    runs/<env>__<algo>__<seed>/result.json  learning curve and final scores (last: marks the run done)
    references/<task label>.json            reference rows of that task (test split)
    benchmark.json                          everything (the report's data)
"""

from __future__ import annotations

import json
import os
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitpoker.agents.benchmark.config import BenchmarkConfig
from splitpoker.agents.benchmark.rows import aggregate, grid_statistics
from splitpoker.agents.benchmark.run import (
    MODEL_KEY,
    RunSpec,
    _ray_run_one,
    git_commit,
    grid,
    run_one,
    versions,
)
from splitpoker.agents.benchmark.tasks import SPLITS, TaskData, prepare
from splitpoker.agents.benchmark.tasks import reference_rows as task_reference_rows
from splitpoker.agents.output import file_mode
from splitpoker.agents.process_state import leaves_process_as_found

__all__ = ["GridInterrupted", "collect", "collect_finished", "grid", "run_grid", "run_one"]


def write_json_atomic(path: Path, data: Any) -> None:
    """Strict JSON (``NaN``/``inf`` as ``null``, numpy values as plain ones:
    :func:`splitpoker.agents.output.write_json`) written to a temporary file in the same folder,
    then renamed into place; the folder is made first."""
    from splitpoker.agents.output import write_json

    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, data)


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
        os.fchmod(fd, file_mode())  # as a plain write would make it, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    write_json_atomic(run_dir(out, spec) / "result.json", result)


def write_run_info(out: Path, spec: RunSpec, data: dict, git: dict, result: dict | None = None) -> None:
    """Before the run: ``config.yaml`` in the training config format (so that ``scripts/evaluate.py
    --model <run>/model.zip`` finds env and algorithm) and ``run.json`` (spec, seed, versions,
    commit, evaluation sets). After it (``result``): ``run.json`` again, with the machine it
    trained on, its wall and CPU seconds and its end-to-end steps per second. Atomic writes."""
    d = run_dir(out, spec)
    d.mkdir(parents=True, exist_ok=True)
    if result is None:
        import yaml

        from splitpoker.agents.training.run import TrainConfig
        from splitpoker.envs.registration import VECTOR_ENTRY_POINTS

        a = spec.algo
        train_cfg = TrainConfig(env_id=spec.env.id, env_kwargs=dict(spec.env.kwargs), algo=a.algo, policy=a.policy,
                                algo_kwargs=dict(a.algo_kwargs), policy_kwargs=dict(a.policy_kwargs), n_envs=a.n_envs,
                                total_timesteps=spec.total_timesteps, seed=spec.seed, run_name=spec.run_id,
                                checkpoint_freq=spec.total_timesteps, warm_start=a.warm_start,
                                vec_env="native" if spec.env.id in VECTOR_ENTRY_POINTS else "dummy")
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".config.", suffix=".yaml.tmp")
        try:
            os.fchmod(fd, file_mode())
            with os.fdopen(fd, "w") as f:
                yaml.safe_dump({**train_cfg.to_dict(), "versions": versions()}, f, sort_keys=False)
            os.replace(tmp, d / "config.yaml")
        except BaseException:  # Ctrl-C included: never leave a half-written file behind
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    info = {"run_id": spec.run_id, "seed": spec.seed, "spec": spec.to_dict(), "spec_digest": spec.digest,
            "evalsets": {label: {split: td.identity for split, td in splits.items()} for label, splits in data.items()},
            "git": git, "versions": versions()}
    if result is not None:  # the finished run: where and how fast it trained
        info.update({"machine": result.get("machine"), "timing": result.get("timing"), "steps": result.get("steps"),
                     "steps_per_second": result.get("steps_per_second"), "worker_versions": result.get("versions")})
    write_json_atomic(d / "run.json", info)


def reference_rows(cfg: BenchmarkConfig, label: str, data: TaskData, out: Path, log=print) -> dict:
    """The reference rows of one task on its test split (cached in ``<out>/references``). A card
    file among the references enters the cache key by the sha256 of its content, read now (not
    by its path): an edited card is scored again, a moved one is not."""
    import hashlib

    from splitpoker.agents.evaluation.card_file import load_card

    path = out / "references" / f"{label}.json"
    cards = cfg.cards
    digests = {r: hashlib.sha256(Path(c.path).read_bytes()).hexdigest() for r, c in cards.items()}
    key = {"refs": [f"card sha256:{digests[r]}" if r in cards else r for r in cfg.references],
           "kwargs": cfg.reference_kwargs, "set": data.identity,
           "paired_hands": cfg.eval_paired_hands, "env": data.env_kwargs, "task": data.task}
    key = json.loads(json.dumps(key, default=float))
    if path.exists():
        try:
            cached = json.loads(path.read_text())
            if cached.get("key") == key:
                return cached["rows"]
        except (OSError, json.JSONDecodeError):
            pass
    rows = task_reference_rows(data, cfg.references, cfg.reference_kwargs, cfg.eval_paired_hands, cfg.test_seed,
                               log=lambda m: log(f"[{label}] {m}"), cards={r: load_card(c.path) for r, c in cards.items()})
    write_json_atomic(path, {"key": key, "rows": rows})
    return rows


def prepare_tasks(cfg: BenchmarkConfig, log=print) -> dict:
    """``{env label: {task label: {split: TaskData}}}``: every task's validation and test data
    (evaluation sets solved on first use, with a progress bar), the two splits checked disjoint."""
    import sys

    from tqdm import tqdm

    from splitpoker.agents.exact.eval_set import check_disjoint

    out: dict = {}
    for e in cfg.envs:
        out[e.label] = {}
        for task, label in e.task_labels().items():
            hands = cfg.card_removal_hands if task == "card_removal" else cfg.eval_hands
            splits = {}
            for split, seed in zip(SPLITS, (cfg.validation_seed, cfg.test_seed), strict=True):
                with tqdm(total=hands, desc=f"{label} {split} set", unit="hand", file=sys.stderr, disable=None,
                          leave=False, delay=2.0) as bar:
                    splits[split] = prepare(task, split, e.id, e.kwargs, hands, seed, solved=cfg.eval_solved,
                                            card_removal_margin=cfg.card_removal_margin, log=log, progress=bar.update)
                d = splits[split]
                what = f"sha256 {d.evalset.sha256[:16]}…" if d.evalset is not None else "exact (no sample)"
                log(f"[{label}] {split} set: {what}; random policy's regret {d.random_regret:.4f}")
            if splits["validation"].evalset is not None:
                check_disjoint(splits["validation"].evalset, splits["test"].evalset, f"{label} validation and test sets")
            out[e.label][label] = splits
    return out


class GridInterrupted(Exception):
    """Ctrl-C: finished runs are stored; rerunning the same command resumes."""

    def __init__(self, done: int, total: int):
        super().__init__(f"interrupted with {done}/{total} runs finished")
        self.done, self.total = done, total


@leaves_process_as_found
def run_grid(cfg: BenchmarkConfig, out: Path, *, executor: str | None = None, address: str | None = None,
             num_cpus: int | None = None, log: Callable[[str], None] = print, progress=None) -> dict:
    """Run every unfinished run of the grid; return the collected results (``benchmark.json``).

    ``progress(n)`` is called as runs finish (a tqdm ``update``). Raises :class:`GridInterrupted`
    on Ctrl-C after storing what finished."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    executor = executor or cfg.executor
    data = prepare_tasks(cfg, log=log)
    references = {label: reference_rows(cfg, label, splits["test"], out, log=log)
                  for env_tasks in data.values() for label, splits in env_tasks.items()}
    git = git_commit()
    specs = grid(cfg)
    results = {s.run_id: r for s in specs if (r := finished(out, s)) is not None}
    todo = [s for s in specs if s.run_id not in results]
    if results:
        log(f"skipping {len(results)} finished run(s) found in {out / 'runs'}")
    if progress is not None and results:
        progress(len(results))
    log(f"{len(todo)} run(s) to do with executor {executor!r}")
    for s in todo:
        write_run_info(out, s, data[s.env.label], git)

    def done(spec: RunSpec, res: dict) -> None:
        write_run_info(out, spec, data[spec.env.label], git, res)  # before result.json, the marker of a finished run
        store(out, spec, res)
        results[spec.run_id] = res
        f = res["final"]
        log(f"done {spec.run_id}: {res['steps']} steps in {res['train_seconds']:.0f} s ({res['steps_per_second']:,.0f} "
            f"steps/s), validation regret {f['mean_regret']:.4f}")
        if progress is not None:
            progress(1)

    failed: dict[str, str] = {}

    def fail(spec: RunSpec, err: BaseException) -> None:
        """A run that raised: its error goes to ``error.txt``; the other runs go on."""
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
                    res = run_one(s, data[s.env.label])
                except Exception as err:  # noqa: BLE001 - recorded, reported, the grid goes on
                    fail(s, err)
                    continue
                done(s, res)
        elif todo:
            from splitpoker.agents.exact.strategy import ray_messages_to_stderr

            with ray_messages_to_stderr():  # Ray prints a lost node's report on stdout, --json's
                _run_ray(todo, data, done, fail, address=address, num_cpus=num_cpus or cfg.num_cpus, log=log)
    except KeyboardInterrupt:
        raise GridInterrupted(len(results), len(specs)) from None
    summary = collect(cfg, out, data, references, results, git)
    summary["failed"] = failed
    write_json_atomic(out / "benchmark.json", summary)
    return summary


def collect_finished(cfg: BenchmarkConfig, out: Path, log: Callable[[str], None] = print) -> dict:
    """``benchmark.json`` of the runs finished so far, training nothing (the evaluation sets and
    reference rows come from the cache): the report of a grid that was stopped early."""
    out = Path(out)
    data = prepare_tasks(cfg, log=log)
    references = {label: reference_rows(cfg, label, splits["test"], out, log=log)
                  for env_tasks in data.values() for label, splits in env_tasks.items()}
    results = {s.run_id: r for s in grid(cfg) if (r := finished(out, s)) is not None}
    summary = collect(cfg, out, data, references, results, git_commit())
    summary["failed"] = {}
    return summary


def _run_ray(todo: list[RunSpec], data: dict, done: Callable, fail: Callable, *, address, num_cpus, log) -> None:
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
                # Ray's raylet starts workers 15 nicer than itself (capped at 19): under `nice -n 10` on a
                # shared machine the runs would get almost no CPU. Local workers inherit the driver's
                # niceness instead (an explicit RAY_worker_niceness wins).
                os.environ.setdefault("RAY_worker_niceness", "0")
                ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    log(f"Ray: {int(ray.cluster_resources().get('CPU', 0))} CPU(s) at {address or 'local'}")
    # a run whose worker process or node died (a lost node, the OOM killer) runs again, on another
    # node if need be: a run is a pure function of its spec and seed, so the retry gives the same
    # result (tests/test_ray_cluster.py); what a run raises itself is not retried but recorded
    task = ray.remote(num_cpus=1, max_retries=3)(_ray_run_one)
    refs_data = {k: ray.put(v) for k, v in data.items()}
    pending = {task.remote(s.to_dict(), refs_data[s.env.label]): s for s in todo}
    try:
        while pending:
            # a timeout, so that Ctrl-C (handled between Python bytecodes) is seen within a second
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                spec = pending.pop(ref)
                try:
                    res = ray.get(ref)
                except ray.exceptions.RayError as err:  # the run raised, or it was lost more often than retried
                    fail(spec, err)
                    continue
                done(spec, res)
    except BaseException as exc:
        # a Ray started here is shut down below, which ends its workers; ray.cancel racing
        # with a task that just finished can abort the driver in Ray's core ("Tried to complete
        # task that was not pending"), so cancel only on a cluster this run does not own
        if not started_here:
            for ref in pending:
                ray.cancel(ref, force=True)
        traceback.clear_frames(exc.__traceback__)  # ray.wait's frames hold ObjectRefs: free them while Ray is up
        raise
    finally:
        if started_here:
            # no ObjectRef may outlive the shutdown (see splitpoker.agents.exact.strategy.run_plan)
            pending = ready = ref = refs_data = None
            ray.shutdown()


# ---- collecting -------------------------------------------------------------------------------

def run_commits(out: Path, cfg: BenchmarkConfig) -> dict[str, int]:
    """How many of the grid's finished runs were trained at each commit (``<sha>`` or
    ``<sha>+dirty``, from their run.json): the summary's own ``git`` is where it was written, which
    a resumed grid or a ``--report-only`` may not share with its runs."""
    counts: dict[str, int] = {}
    for s in grid(cfg):
        try:
            g = json.loads((Path(out) / "runs" / s.run_id / "run.json").read_text()).get("git") or {}
        except (OSError, ValueError):
            continue
        if (Path(out) / "runs" / s.run_id / "result.json").exists():
            name = f"{g.get('commit') or 'unknown'}{'+dirty' if g.get('dirty') else ''}"
            counts[name] = counts.get(name, 0) + 1
    return counts


def collect(cfg: BenchmarkConfig, out: Path, data: dict, references: dict, results: dict, git: dict | None = None) -> dict:
    """Aggregate per (task, algorithm) on the test split: IQM of final exact regret with its
    stratified-bootstrap 95% interval across seeds, mean ± t-interval, normalised score, steps/s,
    curves (IQM and bootstrap band per evaluation step); per grid: the aggregate IQM of the
    normalised score over tasks, performance profiles and the probability of improvement of each
    pair of algorithms. Written to ``<out>/benchmark.json``."""
    rows = []
    for e in cfg.envs:
        for a in cfg.algorithms:
            runs = [results[s.run_id] for s in grid(cfg) if s.env == e and s.algo.name == a.name and s.run_id in results]
            if not runs:
                continue
            for label in e.task_labels().values():
                rows.append(aggregate(e, a.on(e), runs, label))
    task_sets = {label: {split: d.identity for split, d in splits.items()}
                 for env_tasks in data.values() for label, splits in env_tasks.items()}
    summary = {"name": cfg.name, "description": cfg.description, "total_timesteps": cfg.total_timesteps,
               "eval_every": cfg.eval_every, "seeds": list(cfg.seeds),
               "splits": {"validation": {"seed": cfg.validation_seed, "use": "tuning, selecting rows, early stopping"},
                          "test": {"seed": cfg.test_seed, "use": "the published rows only"}},
               "published_split": "test", "tasks": task_sets,
               "references": references, "rows": rows, "runs_done": len(results), "runs_total": len(grid(cfg)),
               "versions": versions(), "git": git or {}, "run_commits": run_commits(out, cfg)}
    summary.update(grid_statistics(rows, [lbl for e in cfg.envs for lbl in e.task_labels().values()]))
    write_json_atomic(out / "benchmark.json", summary)
    return summary
