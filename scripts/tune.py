#!/usr/bin/env python
"""Hyperparameter search for one algorithm of an RL benchmark grid (Optuna), scored by exact regret.

Each trial trains the chosen algorithm of the grid (--algorithm, by its name in the config) on one
of its environments (--env, by label; default the first) with sampled hyperparameters for
--timesteps steps, one seed, and scores it by exact regret on the grid's cached evaluation set
every --eval-every steps; trials whose intermediate regret is worse than the median of the earlier
trials at that step are pruned. The search spaces are listed in agents/benchmark/tuning.py.

Outputs in --out: optuna.journal (the study; rerunning the same command resumes it and runs only
the missing trials) and tune.json (every trial, the best one and its hyperparameters). The best
trial's keys are printed as a config snippet at the end.

--out is one study's folder: an existing one is resumed, but only by the settings it was made
with (the same --timesteps, --eval-every, --eval-hands, --seed, algorithm and environment;
anything else is refused before any work); a new one is made inside an existing folder. One run at
a time per --out: a second run on a study folder in use exits 2 naming the pid of the run holding it
(it would mark the first run's running trial failed, and the first run would crash).

Exit codes: 0 done, 2 bad arguments or config (nothing trained), 130 Ctrl-C / 143 SIGTERM (the
finished trials are kept in the journal; rerun the same command to resume).

Examples:
    python scripts/tune.py --config configs/benchmark/asia.yaml --algorithm MaskablePPO+SettingScorer \\
        --trials 8 --timesteps 40000 --eval-every 10000 --eval-hands 500 --out runs/tune/asia
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
    from splitpoker.agents.benchmark.config import MAX_EVAL_HANDS
    from splitpoker.agents.training.config import MAX_TIMESTEPS, SEED_LIMIT
    from splitpoker.scripts.support import cli

    steps = cli.count(1, MAX_TIMESTEPS, "a bound against typos: 23 days of training at ~5,000 steps/s")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True, help="benchmark YAML (configs/benchmark/*.yaml) naming the algorithm")
    p.add_argument("--algorithm", required=True, help="the algorithm's name in the config (e.g. MaskablePPO+SettingScorer)")
    p.add_argument("--env", help="environment label in the config (default: its first environment)")
    p.add_argument("--trials", type=cli.count(1, MAX_TRIALS, "each trial is a training run"), default=8,
                   help=f"number of trials in the study (default 8, at most {MAX_TRIALS:,})")
    p.add_argument("--timesteps", type=steps, required=True, help="environment steps per trial")
    p.add_argument("--eval-every", type=steps, help="scoring (and pruning) interval in steps (default timesteps/4)")
    p.add_argument("--eval-hands", type=cli.count(2, MAX_EVAL_HANDS, "time and memory: the exact EV of every "
                                                  "setting, ~0.1-0.2 s of solving per hand"),
                   help=f"exact-regret hands, 2..{MAX_EVAL_HANDS:,} (default: the config's eval.hands)")
    p.add_argument("--seed", type=cli.count(0, SEED_LIMIT - 1, "numpy and torch take 32-bit seeds"), default=0,
                   help="training seed of every trial and the sampler's seed, 0..2**32-1 (default 0)")
    p.add_argument("--out", help="the study's folder (default runs/tune/<config name>-<env>); an existing one is "
                                 "resumed, with the settings it was made with")
    p.add_argument("--json", action="store_true", help="print tune.json on stdout at the end")
    return p.parse_args(argv)


MAX_TRIALS = 10_000


@leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    from splitpoker.scripts.support import cli

    # Ctrl-C/SIGTERM raise KeyboardInterrupt (deferred while numba compiles); one landing before
    # the work starts (config checks, imports) ends here in one line
    return cli.run_interruptible(lambda a: _main(a, argv), args, "nothing was started; rerun the same command")


def _main(args, argv) -> int:
    from splitpoker.scripts.support import cli

    say = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if args.out is not None and cli.refuse_output_dir("--out", args.out):
        return 2
    from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError

    every = args.eval_every or max(args.timesteps // 4, 1)
    try:
        cfg = BenchmarkConfig.from_yaml(args.config, min_seeds=1, algorithms=[args.algorithm], references=[], seeds=[args.seed],
                                        total_timesteps=args.timesteps, eval_every=every, eval_hands=args.eval_hands,
                                        paired_hands=args.eval_hands or None)
    except ConfigError as e:
        say(f"error: {e}")
        return 2
    from tqdm import tqdm

    from splitpoker.agents.benchmark.tuning import config_snippet, tune

    out = Path(args.out or Path("runs") / "tune" / f"{cfg.name}-{args.env or cfg.envs[0].label}")
    if args.out is None and cli.refuse_output_dir("--out", out, default=True):
        return 2
    command = "python scripts/tune.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    try:
        with tqdm(total=args.trials, desc=f"tune {args.algorithm}", unit="trial", file=sys.stderr, disable=None) as bar:
            result = tune(cfg, args.algorithm, args.env, args.trials, out, seed=args.seed, command=command,
                          log=lambda m: bar.write(m, file=sys.stderr), progress=bar.update)
    except ConfigError as e:
        say(f"error: {e}")
        return 2
    except BaseException as e:
        if not cli.is_interrupt(e):
            raise
        say(f"\ninterrupted: finished trials are kept in {out / 'optuna.journal'}; resume with: {command}"
            + ("" if args.out else f" --out {shlex.quote(str(out))}"))
        return cli.interrupt_exit_code()
    best = result["best"]
    if best is None:
        say(f"no trial completed (all pruned or failed); see {out / 'tune.json'}")
    else:
        say(f"best trial {best['number']}: exact regret {best['mean_regret']:.4f} ± {best['regret_ci95']:.4f} "
            f"({result['trials_done']} trials of {result['timesteps_per_trial']:,} steps); config keys:\n"
            f"{config_snippet(best)}")
    say(f"data: {out / 'tune.json'}")
    if args.json:
        print(cli.dumps(result))
    return 0

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import finished

    sys.exit(finished(main()))
