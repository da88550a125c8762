#!/usr/bin/env python
"""The README demo (``make demo``): train MaskablePPO on AsiaPokerSetting-v0 for a small budget,
evaluate it against the random policy and the house way on the same fixed hands, print the
comparison, and write the plot, the JSON and the TensorBoard logs.

Examples:
    python scripts/demo.py                          # 50,000 steps, 3,000 evaluation hands
    python scripts/demo.py --timesteps 20000 --hands 300

Ctrl-C exits 130 (during training, the training code's own interrupt handling applies).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
try:
    from splitpoker.scripts import evaluate
except ImportError:  # run as a file with only envs/agents installed: evaluate.py sits next to this file
    sys.path.insert(0, str(ROOT / "scripts"))
    import evaluate

from splitpoker.agents.training.run import TrainConfig, train
from splitpoker.scripts.support import cli


def verdict(regret: dict[str, dict], learned: str = "learned", reference: str = "house-way") -> str:
    """One line: is the learned agent's exact regret below the reference's, 95% intervals apart?"""
    a, b = regret[learned], regret[reference]
    lo_b = b["mean_regret"] - b["regret_ci95"]
    hi_a = a["mean_regret"] + a["regret_ci95"]
    text = (f"exact regret {a['mean_regret']:.4f} ± {a['regret_ci95']:.4f} vs the house way's "
            f"{b['mean_regret']:.4f} ± {b['regret_ci95']:.4f} per hand ({a['hands']} hands)")
    if hi_a < lo_b:
        return f"[demo] the learned agent beats the house way: {text}, 95% intervals apart"
    if a["mean_regret"] < b["mean_regret"]:
        return f"[demo] the learned agent is ahead of the house way but not clearly: {text}, 95% intervals overlap"
    return f"[demo] the learned agent does NOT beat the house way: {text}"


@cli.leaves_process_as_found
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=str(ROOT / "configs" / "asia_setting_scorer.yaml"), help="training config")
    p.add_argument("--timesteps", type=cli.count(1, 100_000_000, "time: ~400-3,000 steps/s on two cores"),
                   default=50_000, help="training steps (default 50,000; at most 10^8)")
    p.add_argument("--hands", type=cli.count(1, evaluate.MAX_HANDS, "see evaluate.py --hands"), default=3000,
                   help="evaluation hands (default 3,000)")
    p.add_argument("--regret-hands", type=cli.count(0, 10_000, "time: one exact solve (~0.1-0.2 s) per hand"),
                   default=300, help="hands scored by exact regret, with the strategy table as a reference row "
                                     "(default 300; 0 skips both)")
    p.add_argument("--seed", type=cli.count(0, 2**32 - 1, "the training seed seeds numpy and torch"), default=0,
                   help="training seed, 0..2**32-1 (default 0)")
    p.add_argument("--eval-seed", type=cli.seed, default=2024,
                   help="seed of the evaluation hands, 0..2**63-1 (default 2024)")
    p.add_argument("--log-dir", default="runs", help="where runs go (default runs/; created if missing)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    return cli.run_interruptible(run, args, "demo stopped")


def run(args) -> int:
    if not Path(args.config).is_file():
        print(f"error: --config {args.config}: no such file (expected a training config YAML)", file=sys.stderr)
        return 2
    log_dir = Path(args.log_dir)
    if log_dir.exists() and not log_dir.is_dir():
        print(f"error: --log-dir {args.log_dir}: exists and is not a directory", file=sys.stderr)
        return 2
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        cli.check_output("--log-dir", log_dir / "probe")
    except (OSError, cli.CliError) as e:
        print(f"error: --log-dir {args.log_dir}: cannot write there ({e})", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    try:
        cfg = TrainConfig.from_yaml(args.config)
    except (ValueError, TypeError, KeyError) as e:
        print(f"error: --config {args.config}: {e}", file=sys.stderr)
        return 2
    cfg.total_timesteps = args.timesteps
    cfg.seed = args.seed
    cfg.log_dir = args.log_dir
    cfg.run_name = None  # the demo's own name, whatever the config says
    cfg.run_name = cfg.make_run_name(prefix="demo__")
    print(f"[demo] training {cfg.algo} ({cfg.policy}) on {cfg.env_id} for {cfg.total_timesteps:,} steps ...", flush=True)
    run_dir = train(cfg, progress_bar=not args.no_progress)
    t_train = time.perf_counter() - t0
    plot = run_dir / "evaluation.png"
    out = run_dir / "evaluation.json"
    print(f"[demo] evaluating on {args.hands:,} hands (same cards and dealer hands for every policy)"
          + (f", exact regret on the first {min(args.regret_hands, args.hands):,}" if args.regret_hands else "")
          + " ...", flush=True)
    eval_args = ["--model", str(run_dir / "model.zip")] + (["--model", "table"] if args.regret_hands else []) + [
        "--model", "random", "--hands", str(args.hands), "--seed", str(args.eval_seed), "--plot", str(plot),
        "--out", str(out)]
    if args.regret_hands:
        eval_args += ["--regret", "--regret-hands", str(args.regret_hands)]
    code = evaluate.main(eval_args)
    if code:
        return code
    result = json.loads(out.read_text())
    learned = result["policies"]["learned"]
    print()
    print(f"[demo] done in {time.perf_counter() - t0:.0f} s (training {t_train:.0f} s)")
    print(f"  learned policy: {learned['mean_reward']:+.4f} ± {learned['ci95']:.4f} per hand, "
          f"{learned['diff_vs_house_way']:+.4f} ± {learned['diff_vs_house_way_ci95']:.4f} vs the house way, "
          f"agrees with it on {100 * learned['house_way_agreement']:.0f}% of hands")
    print(f"  outputs:     {run_dir}/ (model.zip, config.yaml, checkpoints/, evaluation.json, evaluation.png)")
    print(f"  plot:        {plot}")
    print(f"  tensorboard: tensorboard --logdir {args.log_dir}   (then open http://localhost:6006)")
    if args.regret_hands:
        print(verdict(result["regret"]))
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
