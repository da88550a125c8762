#!/usr/bin/env python
"""Train an agent on a splitpoker environment from a YAML config (MaskablePPO by default).

Writes ``runs/<env>__<algo>__<seed>__<time>/``: ``config.yaml`` (the resolved config with the seed
and package versions), TensorBoard logs (``tensorboard --logdir runs``; custom scalars under
``splitpoker/``), ``checkpoints/model_<steps>_steps.zip`` every ``checkpoint_freq`` steps, and the
final ``model.zip``.

Examples:
    python scripts/train.py --config configs/asia_maskable_ppo.yaml
    python scripts/train.py --config configs/asia_maskable_ppo.yaml --total-timesteps 20000 --seed 3
    python scripts/train.py --config configs/asia_maskable_ppo.yaml --resume runs/<run-name> --total-timesteps 400000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.training import TrainConfig, train


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True, help="experiment YAML (configs/*.yaml)")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps (with --resume: the new total)")
    p.add_argument("--seed", type=int, help="override the seed (recorded in the run's config.yaml)")
    p.add_argument("--n-envs", type=int, help="override the number of parallel environments")
    p.add_argument("--run-name", help="run directory name under log_dir (default: env__algo__seed__time)")
    p.add_argument("--log-dir", help="override log_dir (default runs/)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue RUN_DIR from its latest checkpoint")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        cfg = TrainConfig.from_yaml(args.config)
        for name in ("total_timesteps", "seed", "n_envs", "run_name", "log_dir"):
            value = getattr(args, name)
            if value is not None:
                setattr(cfg, name, value)
        cfg.__post_init__()
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run_dir = train(cfg, resume=Path(args.resume) if args.resume else None, progress_bar=not args.no_progress)
    print(f"run directory: {run_dir}")
    print(f"model:         {run_dir / 'model.zip'}")
    print(f"tensorboard:   tensorboard --logdir {run_dir.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
