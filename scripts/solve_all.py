#!/usr/bin/env python
"""Solve every hand class exactly (or a stratified sample of them) on Ray, in Parquet shards.

Every seven-card hand belongs to one of 6,972,147 classes up to a relabelling of the suits
(splitpoker.envs.solver.classes); hands of a class have the same exact EVs. For each class in the plan the
canonical hand is solved against all C(46, 7) dealer hands (splitpoker.envs.solver.exact) and one row is
written: the optimal setting and its exact EV, the house way's setting and EV, and the exact win
(and Pai Gow push) counts of every setting (layout: agents/exact/solved_store.py,
docs/exact_strategy.md). The folder --out becomes a *solved store* that evaluate.py --solved and
OptimalPolicy read instead of solving again.

Plan: all classes, or --sample N classes drawn with probability proportional to their weight in
N strata (seeded by --seed): the summary gives the house edge of the house way and of optimal
play with 95% CIs (exact, no CI, for a finished full run). Shards of about --shard-size classes
each spread over all strata, so the finished shards of a run stopped early (--time-budget,
Ctrl-C) are still an unbiased sample.

Ray: local with no setup (--num-cpus workers, default all cores), --address for a cluster (the
driver writes the shards, so only the driver needs --out; docs/cluster.md is the recipe).
Results do not depend on the number of workers. Shards are written atomically; rerunning the same
command skips finished shards (a different plan, game or rules in the same --out is refused);
killing a worker (or losing its node) retries its shard, killing the driver loses only the shards
in flight.

--single-check K: before the Ray run, solve K classes of the plan in this process, one core,
and report seconds per class beside the Ray run's wall seconds per class per worker (the
scheduling overhead).

Examples:
    python scripts/solve_all.py --game paigow --style paigow-igw --sample 4000 --out runs/solved-igw --json
    python scripts/solve_all.py --game asia --style asia-000 --out /shared/asia-000 --address auto

Exit codes: 0 done, 2 bad arguments or an unusable --out, 130 Ctrl-C, 143 SIGTERM (finished
shards kept; rerun the same command to resume). docs/cli.md has the whole contract.
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import time
from pathlib import Path

from splitpoker.envs.rules.house_ways.registry import STYLES
from splitpoker.scripts.support import cli

FULL = 53


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=["asia", "paigow"], help="the game")
    p.add_argument("--style", choices=STYLES, help="house-way style (default: asia-000 / paigow-igw)")
    p.add_argument("--out", required=True, help="store folder (created if its parent exists; resumed if it exists)")
    p.add_argument("--sample", type=cli.count(2, 1_000_000, "~0.1-0.15 s of solving per class per core"),
                   help="solve N classes of a stratified weight-proportional sample (default: every class)")
    p.add_argument("--seed", type=cli.seed, default=0, help="seed of the sample (default 0)")
    p.add_argument("--shard-size", type=cli.count(1, 100_000, "a shard is one Ray task held in memory"),
                   default=500, help="classes per shard (default 500: about a minute per core)")
    p.add_argument("--address", help="Ray cluster address (default: start Ray locally)")
    p.add_argument("--num-cpus", type=cli.count(1, 4096, "local Ray workers"),
                   help="local Ray workers (default: all cores); ignored with --address")
    p.add_argument("--single-check", type=cli.count(0, 10_000, "classes solved in this process"), default=0,
                   metavar="K", help="time K classes in this process first (one core) for the throughput ratio")
    p.add_argument("--time-budget", type=cli.positive_float(1e7, "seconds"), metavar="SECONDS",
                   help="start no new shard after this many seconds of solving; the summary covers the "
                        "finished shards (interleaved: still an unbiased sample); rerun to continue")
    p.add_argument("--max-pool-card", type=int, metavar="K", help=argparse.SUPPRESS)  # tests: dealer cards < K
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return p.parse_args(argv)


def check_out(path: str) -> Path:
    """The store folder: an existing one (resumed), or a new one in an existing, writable folder,
    made here (cli.check_output_dir: a file, a missing parent or an unwritable folder is refused)."""
    p = cli.check_output_dir("--out", path)
    return cli.make_output_dir(p)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, f"finished shards are in {args.out}; rerun the same command to resume")


def run(args) -> int:
    from splitpoker.agents.exact.solved_store import StoreError
    from splitpoker.agents.exact.strategy import make_plan, prepare_store
    from splitpoker.envs.rules.game import Game

    k = FULL if args.max_pool_card is None else args.max_pool_card
    try:
        game = Game(args.game, args.style)
        if k != FULL and not (16 <= k <= 52 and k % 4 == 0):
            raise ValueError(f"--max-pool-card {k}: expected a multiple of 4 in 16..52 (a pool closed under suit "
                             f"relabelling), or none (the real game)")
        out = check_out(args.out)
        plan, classes = make_plan(args.sample, args.seed, args.shard_size)
        prepare_store(out, game, plan, k)
    except (ValueError, TypeError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.agents.exact.strategy import (
        cost_model,
        read_results,
        run_plan,
        solve_shard,
        store_bytes_per_class,
        summarize,
    )

    def log(m):
        print(m, file=sys.stderr)

    single = single_cpu = None
    if args.single_check:
        probe = classes[: args.single_check]
        solve_shard(game.game, game.style.value, game.rules, k, probe[:1])  # table + compile
        t0, c0 = time.perf_counter(), time.process_time()
        solve_shard(game.game, game.style.value, game.rules, k, probe)
        single = (time.perf_counter() - t0) / probe.size
        single_cpu = (time.process_time() - c0) / probe.size
    with tqdm(total=plan["n_classes"], unit="class", desc=game.style.value, disable=None, file=sys.stderr) as bar:
        stats = run_plan(out, game, plan, classes, universe=k, address=args.address, num_cpus=args.num_cpus,
                         log=log, progress=bar.update, time_budget=args.time_budget)
    rep = summarize(read_results(out, game, plan, k), plan, game)
    rep["out"] = str(out)
    rep["dealer_pool"] = "all 46 unseen cards" if k == FULL else f"unseen cards < {k} (NOT the real game)"
    rep["run"] = stats
    if stats["classes_solved"]:
        per_worker = stats["wall_seconds"] * stats["workers"] / stats["classes_solved"]
        ray_cpu = stats["task_cpu_seconds"] / stats["classes_solved"]
        rep["throughput"] = {
            "ray_wall_seconds_per_class_per_worker": per_worker,
            "single_process_seconds_per_class": single,
            "ray_vs_single_throughput": (single / per_worker) if single else None,
            # load-independent view: CPU seconds per class inside the tasks vs in one process, and
            # the share of the workers' wall time spent inside tasks (the rest is Ray's overhead
            # or waiting for a core)
            "ray_task_cpu_seconds_per_class": ray_cpu,
            "single_process_cpu_seconds_per_class": single_cpu,
            "ray_vs_single_cpu_throughput": (single_cpu / ray_cpu) if single_cpu else None,
            "worker_busy_fraction": stats["task_wall_seconds"] / (stats["wall_seconds"] * stats["workers"]),
        }
    if rep.get("classes_done"):
        bpc = store_bytes_per_class(out, plan)
        rep["cost_model_full_run"] = {f"{c}_cores": cost_model(rep["seconds_per_class"], bpc, c) for c in (1, 2, 64, 512)}
    if args.json:
        print(cli.dumps(rep))
    else:
        print_human(rep)
    return 0


def print_human(rep: dict) -> None:
    print(f"{rep['game']} / {rep['style']}: {rep.get('classes_done', 0):,} of {rep['classes_planned']:,} classes "
          f"in {rep['out']} ({rep['dealer_pool']})")
    if not rep.get("classes_done"):
        return

    def ci(name):
        c = rep.get(f"{name}_ci95")
        return "" if c is None else f" (95% CI {100 * c[0]:.3f} .. {100 * c[1]:.3f})"

    print(f"house edge, house way    {100 * rep['house_way_edge']:.3f}%{ci('house_way_edge')}")
    print(f"house edge, optimal play {100 * rep['optimal_edge']:.3f}%{ci('optimal_edge')}")
    print(f"optimal play gains       {100 * rep['gain']:.3f} pp{ci('gain')}")
    cm = rep["cost_model_full_run"]["1_cores"]
    print(f"full run on paper: {cm['cpu_hours']:.0f} CPU-hours ({rep['seconds_per_class']:.3f} s/class), "
          f"{cm['disk_gb']:.2f} GB")
    t = rep.get("throughput")
    if t and t["ray_vs_single_throughput"]:
        print(f"Ray throughput per worker: {100 * t['ray_vs_single_throughput']:.0f}% of one process")


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
