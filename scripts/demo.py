#!/usr/bin/env python
"""The README demo (``make demo``): train MaskablePPO on AsiaPokerSetting-v0 for a small budget,
evaluate it against the random policy and the house way on the same fixed hands, print the
comparison, and write the plot, the JSON and the TensorBoard logs.

Examples:
    python scripts/demo.py                          # ~250k steps, 3,000 evaluation hands
    python scripts/demo.py --timesteps 20000 --hands 300
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=str(ROOT / "configs" / "asia_maskable_ppo.yaml"), help="training config")
    p.add_argument("--timesteps", type=int, default=250_000, help="training steps (default 250,000)")
    p.add_argument("--hands", type=int, default=3000, help="evaluation hands (default 3,000)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--eval-seed", type=int, default=2024, help="seed of the evaluation hands (default 2024)")
    p.add_argument("--log-dir", default="runs", help="where runs go (default runs/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)

    t0 = time.perf_counter()
    cfg = TrainConfig.from_yaml(args.config)
    cfg.total_timesteps = args.timesteps
    cfg.seed = args.seed
    cfg.log_dir = args.log_dir
    cfg.run_name = f"demo__{cfg.env_id.replace('/', '_')}__{cfg.algo}__{cfg.seed}__{int(time.time())}"
    print(f"[demo] training {cfg.algo} on {cfg.env_id} for {cfg.total_timesteps:,} steps ...", flush=True)
    run_dir = train(cfg, progress_bar=not args.no_progress)
    plot = run_dir / "evaluation.png"
    out = run_dir / "evaluation.json"
    print(f"[demo] evaluating on {args.hands:,} hands (same cards and dealer hands for every policy) ...", flush=True)
    code = evaluate.main(["--model", str(run_dir / "model.zip"), "--model", "random", "--hands", str(args.hands),
                          "--seed", str(args.eval_seed), "--plot", str(plot), "--out", str(out)])
    if code:
        return code
    res = json.loads(out.read_text())["policies"]
    learned = res["learned"]
    print()
    print(f"[demo] done in {time.perf_counter() - t0:.0f} s")
    print(f"  learned policy: {learned['mean_reward']:+.4f} ± {learned['ci95']:.4f} per hand, "
          f"{learned['diff_vs_house_way']:+.4f} ± {learned['diff_vs_house_way_ci95']:.4f} vs the house way, "
          f"agrees with it on {100 * learned['house_way_agreement']:.0f}% of hands")
    print(f"  outputs:     {run_dir}/ (model.zip, config.yaml, checkpoints/, evaluation.json, evaluation.png)")
    print(f"  plot:        {plot}")
    print(f"  tensorboard: tensorboard --logdir {args.log_dir}   (then open http://localhost:6006)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
