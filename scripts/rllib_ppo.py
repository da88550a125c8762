#!/usr/bin/env python
"""Train PPO with action masks on RLlib: a splitpoker env, or a multi-agent PettingZoo table.

The env gets the mask inside its observation as RLlib's action-masking RLModule reads it
(Dict(observations, action_mask float32): splitpoker.envs.rllib), and the module is RLlib's own
ActionMaskingTorchRLModule, so the policy only ever samples legal actions. --env is a Gymnasium
id (splitpoker/AsiaPokerSetting-v0, ...) or a table (splitpoker/paigow_table_v0,
splitpoker/asia_table_v0: every seat an agent, one policy shared by all seats).

Ray: local with no setup (--num-cpus, default all cores; --num-env-runners 0 samples in this
process), --address for a cluster (give --num-env-runners N to sample on its nodes; splitpoker
must be installed there; docs/cluster.md is the recipe). Each env runner holds one of Ray's
CPUs and the learner runs in this process, outside Ray's count: at most as many env runners as
Ray has CPUs (2 on 2 cores; 3 there waited forever), checked before Ray starts (local) or right
after it connects (--address).

After training, the greedy policy and uniform random legal play are scored on the same
--eval-episodes deals (mean reward with a 95% interval, and how many episodes ended with a
penalised action: 0 when the masks are obeyed).

The run folder (--run-dir, default runs/rllib/<env>__ppo__<seed>) keeps RLlib's checkpoint and
progress.json after every iteration: Ctrl-C exits 130 keeping every finished iteration, and the
same command resumes (a different setting in the same folder is refused; so is a second run while
one trains it, naming its pid). The summary is printed as strict JSON (and written to --out FILE,
in an existing folder, or in the run folder or the folder it is made in: those are made with it).

Resuming loads RLlib's checkpoint in the run folder, which is pickled: loading it runs the code
inside it, so resume only run folders you made (load only models you trust).

Examples:
    python scripts/rllib_ppo.py --env splitpoker/PaiGowPokerSetting-v0 --iterations 20 --out runs/rllib/paigow.json
    python scripts/rllib_ppo.py --env splitpoker/paigow_table_v0 --env-kwargs '{"num_seats": 3}' --iterations 20
    python scripts/rllib_ppo.py --env splitpoker/AsiaPokerSetting-v0 --address auto --num-env-runners 8

Exit codes: 0 done, 2 bad arguments or a run folder another run is training (before any work),
130 Ctrl-C (finished iterations kept).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import gc
import os
from pathlib import Path

from splitpoker.scripts.support import cli


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--env", default="splitpoker/AsiaPokerSetting-v0",
                   help="a splitpoker Gymnasium id or a table, splitpoker/paigow_table_v0 or splitpoker/asia_table_v0 "
                        "(default splitpoker/AsiaPokerSetting-v0)")
    p.add_argument("--env-kwargs", type=cli.json_object("env keywords"), default={},
                   help="JSON object of the env's keywords, e.g. '{\"num_seats\": 3}', not 'id' (the env is "
                        "--env) (default {})")
    p.add_argument("--iterations", type=cli.count(1, 1_000_000, "RLlib training iterations"), default=10,
                   help="training iterations in total, a resumed run's included (default 10)")
    p.add_argument("--batch-size", type=cli.count(2, 1_000_000, "env steps held in memory per iteration"),
                   default=512, help="env steps per iteration (default 512)")
    p.add_argument("--minibatch-size", type=cli.count(1, 1_000_000, "at most --batch-size"), default=128,
                   help="SGD minibatch (default 128)")
    p.add_argument("--epochs", type=cli.count(1, 1_000, "passes over each batch"), default=4,
                   help="SGD passes over each batch (default 4)")
    p.add_argument("--lr", type=cli.positive_float(1.0, "a learning rate"), default=3e-4,
                   help="learning rate (default 3e-4)")
    p.add_argument("--gamma", type=unit_interval, default=0.99, help="discount, 0..1 (default 0.99)")
    cli.add_seed(p, "RLlib (networks, sampling) and of the random baseline")
    p.add_argument("--num-env-runners", type=cli.count(0, 4096, "Ray actors"), default=0,
                   help="remote env runners, one Ray CPU each, at most Ray's CPUs (--num-cpus, or the cluster's: "
                        "the learner runs in this process, outside Ray's count; more would wait forever) "
                        "(default 0: sample in this process)")
    p.add_argument("--address", type=ray_address, help="Ray cluster address: auto, HOST:PORT or ray://HOST:PORT "
                                                     "(default: start Ray locally)")
    p.add_argument("--num-cpus", type=cli.count(1, 4096, "local Ray CPUs"),
                   help="CPUs of the local Ray (default: all cores); ignored with --address")
    p.add_argument("--eval-episodes", type=cli.count(0, 1_000_000, "episodes played in this process"), default=200,
                   help="deals to score the policy and random legal play on after training (default 200; 0: none)")
    p.add_argument("--run-dir", help="run folder: checkpoint + progress.json (default runs/rllib/<env>__ppo__<seed>, "
                                     "made with its parents; another one is made inside an existing folder). "
                                     "Resuming loads its checkpoint, which runs the code pickled in it: load only "
                                     "models you trust (resume your own runs)")
    p.add_argument("--out", help="also write the JSON summary to this .json file: in an existing folder, or in the run "
                                 "folder or the folder it is made in (made with it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def unit_interval(text: str) -> float:
    """argparse type: a number 0..1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"{text}: expected a number 0..1")
    return value


def ray_address(text: str) -> str:
    """argparse type: a Ray address, ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``."""
    rest = text[len("ray://"):] if text.startswith("ray://") else text
    host, _, port = rest.rpartition(":")
    if text != "auto" and not (host and port.isdigit() and 0 < int(port) < 65536):
        raise argparse.ArgumentTypeError(f"{text!r}: expected auto, HOST:PORT or ray://HOST:PORT")
    return text


def run_dir_of(args, env: str) -> Path:
    """The run folder, checked (docs/cli.md, "Outputs"), not made: the default with its parents
    inside the nearest existing folder, a named one inside an existing folder."""
    if args.run_dir is None:
        d = Path("runs") / "rllib" / f"{env.split('/')[-1]}__ppo__{args.seed}"
        return cli.check_output_dir("--run-dir", d, default=True)
    return cli.check_output_dir("--run-dir", args.run_dir)


def out_of(out: str | None, run_dir: Path) -> Path | None:
    """``--out`` checked before anything is made: a .json file in an existing, writable folder, or
    in the run folder or the folder it is made in (those not made yet: the run folder's own check
    stands for them, and the file is checked again once they are made)."""
    if out is None:
        return None
    p = Path(out)
    folder = os.path.abspath(p.parent)
    if not p.parent.exists() and folder in (os.path.abspath(run_dir), os.path.abspath(run_dir.parent)):
        if p.suffix.lower() != ".json":
            raise cli.CliError(f"--out {out}: expected a file ending in .json")
        return p
    return cli.check_output("--out", p, (".json",))


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    if args.minibatch_size > args.batch_size:
        print(f"error: --minibatch-size {args.minibatch_size}: expected at most --batch-size ({args.batch_size})",
              file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError as e:
        print(f"error: RLlib is not installed ({e}): pip install 'splitpoker[rllib]'", file=sys.stderr)
        return 2
    from splitpoker.agents.training.rllib_ppo import (
        PPORun,
        check_env,
        check_env_runners,
        read_progress,
    )

    try:
        run = PPORun(env=args.env, env_kwargs=args.env_kwargs, iterations=args.iterations,
                     batch_size=args.batch_size, minibatch_size=args.minibatch_size, epochs=args.epochs, lr=args.lr,
                     gamma=args.gamma, num_env_runners=args.num_env_runners, seed=args.seed)
        if args.address is None:  # a local Ray gets --num-cpus, else every core (a cluster: checked once connected)
            check_env_runners(run.num_env_runners, args.num_cpus or os.cpu_count() or 1, "local")
        run_dir = run_dir_of(args, run.env)
        out = out_of(args.out, run_dir)
        check_env(run)
        run_dir.mkdir(parents=args.run_dir is None, exist_ok=True)
        if out is not None:
            args.out = cli.check_output("--out", out, (".json",))  # its folder exists now
        read_progress(run_dir, run)
    except (ValueError, TypeError, cli.CliError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.run = run
    args.resolved_run_dir = run_dir
    try:
        return cli.run_interruptible(train, args, f"finished iterations are saved in {run_dir}; rerun the same "
                                                  f"command to resume")
    finally:
        # the interpreter's last garbage collection walks RLlib's whole heap (5-8 s on a loaded
        # machine, measured); frozen objects are skipped, so the exit (Ctrl-C's too) is prompt.
        # Only in a program: in-process (a notebook) the caller's collector is left as it was.
        if cli.is_program():
            gc.freeze()


def train(args) -> int:
    from tqdm import tqdm

    from splitpoker.agents.training import rllib_ppo
    from splitpoker.agents.training.state import RunBusy

    def log(m):
        print(m, file=sys.stderr, flush=True)

    try:
        with tqdm(total=args.run.iterations, unit="iter", desc=args.run.env, file=sys.stderr,
                  disable=True if args.no_progress else None) as bar:
            summary = rllib_ppo.train(args.run, args.resolved_run_dir, address=args.address, num_cpus=args.num_cpus,
                                      eval_episodes=args.eval_episodes, log=log, progress=bar.update)
    except (RunBusy, rllib_ppo.TooFewCPUs) as e:  # before any iteration: another run holds the folder, or a
        print(f"error: {e}", file=sys.stderr)      # cluster with too few CPUs (Ray shut down again)
        return 2
    summary["versions"] = versions()
    cli.report_json(summary, args.out)
    return 0


def versions() -> dict[str, str]:
    import importlib.metadata as md

    return {p: md.version(p) for p in ("splitpoker", "ray", "torch", "gymnasium", "pettingzoo", "numpy")}


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
