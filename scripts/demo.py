#!/usr/bin/env python
"""The README demo (``make demo``): train MaskablePPO with the setting-scoring policy
(``configs/asia_setting_scorer.yaml``) on AsiaPokerSetting-v0 for a small budget, evaluate it
against the strategy table (reference), the house way and random play on the same fixed hands,
score every policy by its exact regret against optimal play, and say in one line whether the
learned agent beats the house way with the 95% intervals apart.

Writes the run directory (model, config, TensorBoard logs) and ``evaluation.json`` (each
policy's reward and its exact regret with 95% intervals) plus ``evaluation.png`` and
``evaluation_regret.png``. The exact regret needs the dealer table (built on first use, about a
minute on two cores, then cached) and one exact solve per hand (~0.1-0.2 s).

Examples:
    python scripts/demo.py                                   # 50k steps, 3,000 hands, regret on 300
    python scripts/demo.py --timesteps 20000 --hands 300 --regret-hands 0   # quick, no exact regret
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import evaluate  # noqa: E402  (scripts/evaluate.py)

from agents.training import TrainConfig, train  # noqa: E402


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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=str(ROOT / "configs" / "asia_setting_scorer.yaml"), help="training config")
    p.add_argument("--timesteps", type=int, default=50_000, help="training steps (default 50,000)")
    p.add_argument("--hands", type=int, default=3000, help="evaluation hands (default 3,000)")
    p.add_argument("--regret-hands", type=int, default=300,
                   help="hands scored by exact regret, with the strategy table as a reference row (default 300; "
                        "0 skips both)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--eval-seed", type=int, default=2024, help="seed of the evaluation hands (default 2024)")
    p.add_argument("--log-dir", default="runs", help="where runs go (default runs/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.timesteps < 1 or args.hands < 1 or args.regret_hands < 0:
        print(f"error: --timesteps {args.timesteps} / --hands {args.hands} / --regret-hands {args.regret_hands}: "
              "expected positive numbers (regret hands may be 0)", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    try:
        cfg = TrainConfig.from_yaml(args.config)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cfg.total_timesteps = args.timesteps
    cfg.seed = args.seed
    cfg.log_dir = args.log_dir
    cfg.run_name = f"demo__{cfg.env_id.replace('/', '_')}__{cfg.algo}__{cfg.seed}__{int(time.time())}"
    print(f"[demo] training {cfg.algo} ({cfg.policy}) on {cfg.env_id} for {cfg.total_timesteps:,} steps ...", flush=True)
    try:
        run_dir = train(cfg, progress_bar=not args.no_progress)
    except KeyboardInterrupt:
        print("[demo] interrupted during training; nothing evaluated", file=sys.stderr)
        return 130
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
    sys.exit(main())
