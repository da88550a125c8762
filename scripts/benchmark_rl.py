#!/usr/bin/env python
"""RL benchmark: algorithms × seeds × environments at a fixed step budget, scored by exact regret.

Every run is scored every ``eval_every`` steps on a fixed evaluation set whose exact setting EVs
are computed once and cached (so scoring is a lookup), plus the paired reward against the house
way. Runs go to Ray (local by default, no setup; ``--address`` for a cluster) or, with
``--no-ray``, run one after another in this process; the results are identical for the same seeds.
On a cluster (docs/cluster.md) a run lost with its worker or node runs again on another node.

Outputs in --out (default runs/benchmark/<name>): runs/<env>__<algo>__<seed>/{run.json,result.json},
references/, benchmark.json; the markdown report (--report, default <out>/rl_benchmark.md) and one
learning-curve PNG per environment next to it.

Resuming: each finished run is stored atomically; rerunning the same command skips finished runs.
Ctrl-C stops cleanly and prints the command to resume. An explicit --out is made inside an
existing folder (one level; a typo in a folder name is refused), --report must name a .md file in
an existing folder: both are checked before any work.

Examples:
    python scripts/benchmark_rl.py --config configs/benchmark/smoke.yaml --no-ray
    nice -n 10 python scripts/benchmark_rl.py --config configs/benchmark/asia.yaml --report docs/rl_benchmark/rl_benchmark.md
    python scripts/benchmark_rl.py --config configs/benchmark/asia.yaml --address ray://head:10001
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import shlex
from pathlib import Path

from splitpoker.scripts.support.cli import leaves_process_as_found


def parse_args(argv=None):
    from splitpoker.agents.benchmark.config import MAX_EVAL_HANDS, MAX_NUM_CPUS, MAX_PAIRED_HANDS
    from splitpoker.agents.training.config import MAX_TIMESTEPS
    from splitpoker.scripts.support import cli

    steps = cli.count(1, MAX_TIMESTEPS, "a bound against typos: 23 days of training at ~5,000 steps/s")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True, help="benchmark YAML (configs/benchmark/*.yaml)")
    p.add_argument("--out", help="output directory (default runs/benchmark/<config name>); reused to resume")
    p.add_argument("--report", help="markdown report path (default <out>/rl_benchmark.md); plots go next to it")
    p.add_argument("--append-report", action="store_true",
                   help="add this grid's section to an existing --report (e.g. Pai Gow after Asia) instead of overwriting it")
    p.add_argument("--address", help="Ray cluster address (default: start Ray locally)")
    p.add_argument("--num-cpus", type=cli.count(1, MAX_NUM_CPUS, "a local Ray instance starts a worker process "
                                                "per CPU"),
                   help="CPUs of the local Ray instance (default: the config's, else all)")
    p.add_argument("--no-ray", action="store_true", help="run in this process, one run after another (executor: local)")
    p.add_argument("--algorithms", help="comma-separated subset of the config's algorithm names")
    p.add_argument("--envs", help="comma-separated subset of the config's environment labels (a later run with all "
                   "of them in the same --out reuses the finished runs)")
    p.add_argument("--references", action="append",
                   help="comma-separated reference baselines and card files (configs/strategies/*.yaml, relative to "
                        "the current directory; replaces the config's; '' for none); may be given several times, and a "
                        "card file whose path holds a comma is given whole, as its own --references")
    p.add_argument("--seeds", help="comma-separated seeds 0..2**32-1 (replaces the config's)")
    p.add_argument("--total-timesteps", type=steps, help="budget per run (replaces the config's)")
    p.add_argument("--eval-every", type=steps, help="scoring interval in steps (replaces the config's)")
    p.add_argument("--eval-hands", type=cli.count(2, MAX_EVAL_HANDS, "time and memory: the exact EV of every "
                                                  "setting, ~0.1-0.2 s of solving per hand"),
                   help=f"exact-regret hands, 2..{MAX_EVAL_HANDS:,} (replaces the config's eval.hands)")
    p.add_argument("--paired-hands", type=cli.count(2, MAX_PAIRED_HANDS, "time: every hand is played one Python "
                                                    "step at a time"),
                   help=f"hands of the paired reward, 2..{MAX_PAIRED_HANDS:,} (replaces the config's eval.paired_hands)")
    p.add_argument("--check", action="store_true", help="validate the config (and build each model once), then exit")
    p.add_argument("--report-only", action="store_true",
                   help="train nothing: write benchmark.json and the report from the runs finished in --out so far")
    p.add_argument("--json", action="store_true", help="print the summary JSON on stdout at the end")
    return p.parse_args(argv)


def _references(values: list[str] | None) -> list[str] | None:
    """The references of every ``--references`` given, in order: each a comma-separated list, except
    a value that is a card file as a whole (its path holds a comma: ``my,card.yaml``)."""
    if values is None:
        return None
    from splitpoker.agents.evaluation.card_file import SUFFIXES

    out: list[str] = []
    for v in values:
        whole = Path(v).expanduser()
        out += [v] if "," in v and whole.suffix in SUFFIXES and whole.is_file() else [x for x in v.split(",") if x]
    return out


@leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    from splitpoker.scripts.support import cli

    # Ctrl-C/SIGTERM raise KeyboardInterrupt (deferred while numba compiles); one landing before
    # the work starts (config checks, imports) ends here in one line
    return cli.run_interruptible(lambda a: _main(a, argv), args, "nothing was started; rerun the same command")


def _main(args, argv) -> int:
    from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
    from splitpoker.scripts.support import cli

    say = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if args.num_cpus is not None and args.address:
        say("error: --num-cpus sizes a local Ray instance; a cluster (--address) brings its own CPUs: drop one")
        return 2
    if args.no_ray and args.address:
        say("error: --no-ray and --address contradict each other: pick one")
        return 2
    if args.out is not None and cli.refuse_output_dir("--out", args.out):
        return 2
    if cli.refuse_output("--report", args.report, (".md",)):
        return 2
    try:
        split = lambda v: [x for x in v.split(",") if x] if v is not None else None  # noqa: E731
        try:
            seeds = [int(x) for x in split(args.seeds)] if args.seeds is not None else None
        except ValueError:
            raise ConfigError(f"--seeds {args.seeds!r}: expected comma-separated integers") from None
        overrides = {"algorithms": split(args.algorithms), "envs": split(args.envs),
                     "references": _references(args.references), "seeds": seeds,
                     "total_timesteps": args.total_timesteps, "eval_every": args.eval_every,
                     "eval_hands": args.eval_hands, "paired_hands": args.paired_hands}
        cfg = BenchmarkConfig.from_yaml(args.config, **{k: v for k, v in overrides.items() if v is not None})
        from splitpoker.agents.benchmark.run import check_buildable

        check_buildable(cfg)
    except ConfigError as e:
        say(f"error: {e}")
        return 2
    if args.check:
        say(f"{args.config}: ok ({len(cfg.envs)} env(s) × {len(cfg.algorithms)} algorithm(s) × {len(cfg.seeds)} seed(s))")
        return 0
    from tqdm import tqdm

    from splitpoker.agents.benchmark.harness import GridInterrupted, grid, run_grid
    from splitpoker.agents.benchmark.report import write_report

    out = Path(args.out or Path("runs") / "benchmark" / cfg.name)
    if args.out is None and cli.refuse_output_dir("--out", out, default=True):
        return 2
    report = Path(args.report) if args.report else out / "rl_benchmark.md"
    command = "python scripts/benchmark_rl.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    executor = "local" if args.no_ray else ("ray" if args.address else None)
    if args.report_only:
        from splitpoker.agents.benchmark.harness import collect_finished

        summary = collect_finished(cfg, out, log=say)
        command = command.replace(" --report-only", "")
        plots = write_report(summary, report, command, append=args.append_report)
        say(f"report of {summary['runs_done']}/{summary['runs_total']} finished runs: {report}; data: {plots['data']}")
        return 0
    try:
        with tqdm(total=len(grid(cfg)), desc=cfg.name, unit="run", file=sys.stderr, disable=None) as bar:
            summary = run_grid(cfg, out, executor=executor, address=args.address, num_cpus=args.num_cpus,
                               log=lambda m: bar.write(m, file=sys.stderr), progress=bar.update)
    except GridInterrupted as e:
        say(f"\ninterrupted: {e.done}/{e.total} runs finished and stored in {out / 'runs'}.\n"
            f"resume with: {command}" + ("" if args.out else f" --out {shlex.quote(str(out))}"))
        return cli.interrupt_exit_code()
    except (ValueError, FileNotFoundError) as e:
        say(f"error: {e}")
        return 2
    except BaseException as e:
        if not cli.is_interrupt(e):
            raise
        say(f"\ninterrupted before any run started; nothing to resume. rerun: {command}")
        return cli.interrupt_exit_code()
    try:  # the runs are done and stored: an interrupt now loses only the report
        plots = write_report(summary, report, command, append=args.append_report)
    except BaseException as e:
        if not cli.is_interrupt(e):
            raise
        say(f"\ninterrupted while writing the report: {summary['runs_done']}/{summary['runs_total']} runs are "
            f"finished and stored in {out / 'runs'}; write the report with: {command} --report-only"
            + ("" if args.out else f" --out {shlex.quote(str(out))}"))
        return cli.interrupt_exit_code()
    data = plots.pop("data")
    say(f"report: {report}; curves: {', '.join(str(p) for p in plots.values())}; data: {data} (and {out / 'benchmark.json'})")
    if args.json:
        print(cli.dumps(summary))  # strict JSON: an undefined value (one seed's CI) is null
    if summary["failed"]:
        say(f"{len(summary['failed'])} run(s) failed: {', '.join(summary['failed'])}; fix and rerun the same command "
            "(finished runs are kept)")
        return 1
    return 0


if __name__ == "__main__":
    from splitpoker.scripts.support.cli import finished

    sys.exit(finished(main()))
