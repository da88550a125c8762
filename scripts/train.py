#!/usr/bin/env python
"""Train an agent on a splitpoker environment from a YAML config (MaskablePPO by default).

Writes ``runs/<env>__<algo>__<seed>__<time>/``: ``config.yaml`` (the resolved config with the seed
and package versions), TensorBoard logs (``tensorboard --logdir runs``; custom scalars under
``splitpoker/``), ``checkpoints/model_<steps>_steps.zip`` every ``checkpoint_freq`` steps, and the
final ``model.zip``. The whole config is checked before anything is written.

Ctrl-C (SIGINT) or SIGTERM stops at the next step, saves ``checkpoints/model_<steps>_steps.zip``
(and the DQN replay buffer), prints the command that resumes, and exits with 130 (SIGINT) or 143
(SIGTERM). A second Ctrl-C aborts without saving. ``--resume RUN_DIR`` continues the run from its
newest saved state (final model, checkpoint or interrupt save) with the run's own config.yaml.

Exit codes: 0 trained (or nothing left to do), 2 bad arguments or config (nothing written),
130/143 interrupted by SIGINT/SIGTERM after saving.

Examples:
    python scripts/train.py --config configs/asia_maskable_ppo.yaml
    python scripts/train.py --config configs/asia_maskable_ppo.yaml --total-timesteps 20000 --seed 3
    python scripts/train.py --resume runs/<run-name>                          # to the run's own total
    python scripts/train.py --resume runs/<run-name> --total-timesteps 400000 # a new total
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

from splitpoker.agents.training.config import check_run_name, check_seed  # noqa: E402
from splitpoker.agents.training.run import (  # noqa: E402
    ConfigError,
    TrainConfig,
    TrainingInterrupted,
    load_run_config,
    train,
)
from splitpoker.scripts.support.cli import leaves_process_as_found  # noqa: E402

# flags that define a new run and cannot change a resumed one
_NEW_RUN_ONLY = ("seed", "n_envs", "run_name", "log_dir")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="experiment YAML (configs/*.yaml); required for a new run, optional with "
                                    "--resume (then it must describe the same experiment as the run)")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps (with --resume: the new total)")
    p.add_argument("--seed", type=int, help="override the seed, 0..2**32-1 (recorded in the run's config.yaml)")
    p.add_argument("--n-envs", type=int, help="override the number of parallel environments")
    p.add_argument("--run-name", help="run directory name under log_dir, a plain name (default: env__algo__seed__time)")
    p.add_argument("--log-dir", help="override log_dir (default runs/)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue RUN_DIR from its newest saved state, with its own config")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def _resume_command(run_dir: Path) -> str:
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0].endswith("train.py") else Path("scripts/train.py")
    return f"python {shlex.quote(str(script))} --resume {shlex.quote(str(run_dir))}"


def _build(args):
    """Validate the arguments and the config: (config or None, run to resume or None, total)."""
    if args.total_timesteps is not None and args.total_timesteps < 1:
        raise ValueError(f"--total-timesteps {args.total_timesteps}: expected a positive integer")
    if args.seed is not None:
        check_seed(args.seed, "--seed")
    if args.n_envs is not None and args.n_envs < 1:
        raise ValueError(f"--n-envs {args.n_envs}: expected a positive integer")
    if args.run_name is not None:
        try:
            check_run_name(args.run_name)
        except ValueError as e:
            raise ValueError(str(e).replace("run_name=", "--run-name ", 1)) from None
    if args.resume is None:
        if args.config is None:
            raise ValueError("--config is required for a new run (or --resume RUN_DIR to continue one)")
        cfg = TrainConfig.from_yaml(args.config)
        for name in ("total_timesteps", "seed", "n_envs", "run_name", "log_dir"):
            value = getattr(args, name)
            if value is not None:
                setattr(cfg, name, value)
        cfg.validate()
        return cfg, None, None
    run_dir = Path(args.resume)
    saved = load_run_config(run_dir)
    for name in _NEW_RUN_ONLY:
        if getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} {getattr(args, name)} cannot be combined with --resume: a resumed run keeps its "
                             f"{name} ({getattr(saved, name)!r} in {run_dir / 'config.yaml'}); "
                             f"start a new run to change it")
    if args.config is not None:
        diff = TrainConfig.from_yaml(args.config).differences(saved)
        if diff:
            raise ValueError(f"--config {args.config} differs from {run_dir / 'config.yaml'} in {', '.join(diff)}: "
                             f"a resumed run keeps its config (drop --config, or start a new run)")
    return None, run_dir, args.total_timesteps


@leaves_process_as_found
def main(argv=None) -> int:
    from splitpoker.scripts.support import cli

    args = parse_args(argv)
    cli.handle_interrupts()  # until training starts (it then has its own handlers: checkpoint, exit 130/143)
    try:
        cfg, resume, total = _build(args)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return cli.interrupted("before training started; nothing saved in this session")
    try:
        run_dir = train(cfg, resume=resume, total_timesteps=total, progress_bar=not args.no_progress)
    except ConfigError as e:  # raised before anything is written
        print(f"error: {e}", file=sys.stderr)
        return 2
    except TrainingInterrupted as e:
        print(str(e), file=sys.stderr)
        if e.complete:  # nothing to resume
            print(f"run directory: {e.run_dir}", file=sys.stderr)
        elif e.run_dir.exists():
            print(f"resume with: {_resume_command(e.run_dir)}", file=sys.stderr)
        else:  # a new run that had saved nothing: its folder is gone
            print("the new run had saved nothing, so its folder is removed; rerun the same command", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt as e:
        print(f"\naborted: {str(e) or 'interrupted before training started'}; nothing saved in this session",
              file=sys.stderr)
        return cli.interrupt_exit_code()
    for signum in (signal.SIGINT, signal.SIGTERM):  # the final model is saved: finish printing, exit 0
        signal.signal(signum, signal.SIG_IGN)
    print(f"run directory: {run_dir}")
    print(f"model:         {run_dir / 'model.zip'}")
    print(f"tensorboard:   tensorboard --logdir {run_dir.parent}")
    return 0


if __name__ == "__main__":
    from splitpoker.scripts.support.cli import finished

    sys.exit(finished(main()))
