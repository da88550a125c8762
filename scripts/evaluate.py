#!/usr/bin/env python
"""Evaluate policies against the house-way dealer on the same hands (common random numbers).

Every policy plays the same N hands: the same player cards and the same dealer cards (each hand is
one ``env.reset(seed=...)`` from ``--seed``). The house way is always included as the reference
for paired differences.

Examples:
    python scripts/evaluate.py --model runs/<run>/model.zip --model random --hands 5000
    python scripts/evaluate.py --model house-way --model mc-best --env splitpoker/PaiGowPokerSetting-v0 --json
    python scripts/evaluate.py --model runs/<run>/model.zip --model table --regret --regret-hands 300
    python scripts/evaluate.py --model runs/<run>/model.zip --plot eval.png

--out and --plot must name files in existing, writable folders (checked before any work); the
JSON is written atomically and is strict (undefined values are null). Ctrl-C exits 130 with no
result (the policies are compared on the same hands, so a partial run has no paired answer).
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

import gymnasium as gym

import splitpoker.envs as envs  # noqa: F401  (registers the ids)
from splitpoker.agents.evaluation.evaluate import (
    bar_plot,
    format_regret_table,
    format_table,
    hand_seeds,
    regret_summary,
    run_policy,
    summarize,
)
from splitpoker.agents.policies.baselines import BASELINES, SB3Policy, make_baseline
from splitpoker.agents.training.models import check_model_fits, load_model
from splitpoker.scripts.support import cli

MAX_HANDS = 1_000_000


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", default=[], metavar="PATH|CARD.yaml|random|house-way|mc-best|optimal|table",
                   help="a policy to evaluate (repeatable): a saved model .zip, a strategy card file (.yaml, "
                        "configs/strategies/) or a baseline name "
                        "(optimal solves every hand exactly: ~0.1-0.2 s per hand; table: the strategy "
                        "table, agents/policies/strategy_table.py, built from the dealer table in seconds); "
                        "loading a model runs the code pickled in it: load only models you trust")
    p.add_argument("--env", help="environment id (default: the model's, else splitpoker/AsiaPokerSetting-v0)")
    p.add_argument("--env-kwargs", default="{}", type=cli.json_object("config overrides"), help="JSON of environment config overrides (default: the model's)")
    p.add_argument("--hands", type=cli.count(1, MAX_HANDS, "time and memory: every policy plays every hand, "
                                             "one Python step at a time (~10,000 hands/s at best)"),
                   default=2000, help=f"number of hands (default 2000; at most {MAX_HANDS:,})")
    p.add_argument("--seed", type=cli.seed, default=0, help="seed of the hand sample, 0..2**63-1 (default 0)")
    p.add_argument("--mc-samples", type=cli.count(1, 1_000_000, "time: mc-best runs them for all settings of "
                                                  "every hand"),
                   default=300, help="dealer hands per decision for mc-best (default 300; at most 1,000,000)")
    p.add_argument("--regret", action="store_true",
                   help="also report each policy's exact regret vs optimal play (exact solver; builds the dealer "
                        "table on first use, ~1 min; ~0.2 s per hand)")
    p.add_argument("--regret-hands", type=cli.count(1, MAX_HANDS, "time: ~0.2 s of exact solving per hand"),
                   default=1000,
                   help="hands (the first of the sample) for --regret (default 1000)")
    p.add_argument("--solved", metavar="DIR",
                   help="with --regret (and the optimal baseline): look hands up in this solved store "
                        "(scripts/solve_all.py --out DIR) before solving them; a store for other rules is refused")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", help="write a bar chart with 95%% error bars to this PNG")
    p.add_argument("--out", help="also write the JSON result to this file")
    return p.parse_args(argv)


def build(args):
    models = args.model or ["random", "house-way"]
    loaded, configs = [], []
    from splitpoker.agents.evaluation.card_file import is_card_file, load_card

    cards = {m: load_card(m) for m in models if m not in BASELINES and is_card_file(m)}  # refused before any work
    for m in models:
        if m in BASELINES or m in cards:
            continue
        if not Path(m).is_file():
            raise ValueError(f"--model {m}: no such file, expected a saved model .zip or one of {sorted(BASELINES)}")
        try:
            model, cfg = load_model(m)
        except Exception as e:  # noqa: BLE001 - any unloadable file is a user error here
            raise ValueError(f"--model {m}: cannot load it as a saved model ({type(e).__name__}: {e})") from None
        loaded.append((m, model))
        configs.append((m, cfg))
    env_id, env_kwargs = cli.env_of_models(configs, args.env, args.env_kwargs)
    first = next(iter(cards.values()), None)
    if env_id is None and first is not None:  # a card's game (and style) are the defaults
        from splitpoker.envs.registration import setting_env_id

        env_id = setting_env_id(first.game)
        if first.style and "house_way" not in env_kwargs:
            env_kwargs = {**env_kwargs, "house_way": first.style}
    env_id = env_id or "splitpoker/AsiaPokerSetting-v0"
    if env_id not in envs.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}: expected one of {list(envs.ENV_IDS)}")
    env_kwargs["dealer_samples"] = 1  # evaluate in the real game: one dealer hand per hand
    env = gym.make(env_id, **env_kwargs)
    for path, model in loaded:
        try:
            check_model_fits(model, env, env_id)
        except ValueError as e:
            raise ValueError(f"--model {path}: {e}") from None
    policies = {}
    names = list(dict.fromkeys(models + ["house-way"]))
    n_paths = sum(m not in BASELINES and m not in cards for m in names)
    for m in names:
        if m in cards:
            from splitpoker.agents.evaluation.card_policy import CardPolicy

            policies[cards[m].name] = CardPolicy.from_env(env, card=cards[m])
        elif m in BASELINES:
            kw = {"samples": args.mc_samples, "seed": args.seed} if m == "mc-best" else ({"seed": args.seed} if m == "random" else {})
            policies[m] = make_baseline(m, env, **kw)
        else:
            model = dict(loaded)[m]
            label = "learned" if n_paths == 1 else (Path(m).parent.name or m)
            policies[label] = SB3Policy.from_env(env, model=model, name=label)
    return env_id, env_kwargs, env, policies


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "no result written")


def run(args) -> int:
    try:
        if args.out:
            cli.check_output("--out", args.out, (".json",))
        if args.plot:
            cli.check_output("--plot", args.plot, (".png",))
            if args.regret:
                cli.check_output("--plot", Path(args.plot).with_name(Path(args.plot).stem + "_regret.png"))
        env_id, env_kwargs, env, policies = build(args)
        store = None
        if args.solved:
            from splitpoker.agents.exact.solved_store import SolvedStore

            if not args.regret and "optimal" not in policies:
                raise ValueError(f"--solved {args.solved}: only used with --regret or --model optimal")
            store = SolvedStore(args.solved, next(iter(policies.values())).game)
            if "optimal" in policies:
                policies["optimal"].attach_store(store)
    except (ValueError, TypeError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    seeds = hand_seeds(args.seed, args.hands)
    records, timing = {}, {}
    for name, pol in policies.items():
        t0 = time.perf_counter()
        with tqdm(total=args.hands, desc=name, unit="hand", disable=None, file=sys.stderr, leave=False) as bar:
            records[name] = run_policy(env, pol, seeds, progress=bar.update)
        timing[name] = time.perf_counter() - t0
    summary = summarize(records)
    result = {"env": env_id, "env_kwargs": env_kwargs, "hands": args.hands, "seed": args.seed,
              "unit_chips": env.unwrapped.config.unit, "policies": summary, "seconds": timing}
    if args.regret:
        from splitpoker.agents.exact.solved_store import StoreSolver
        from splitpoker.envs.solver.exact import ExactSolver

        first = next(iter(policies.values()))
        solver = ExactSolver(first.game, log=lambda m: print(m, file=sys.stderr)) if store is None else StoreSolver(store)
        n = min(args.regret_hands, args.hands)
        with tqdm(total=n, desc="exact regret", unit="hand", disable=None, file=sys.stderr, leave=False) as bar:
            result["regret"] = regret_summary(records, solver, n, progress=bar.update)
        if store is not None:
            result["regret_solved_store"] = {"dir": args.solved, "hits": solver.hits, "solved": solver.misses}
    if args.plot:
        bar_plot(summary, args.plot, f"{env_id}: {args.hands} hands, seed {args.seed}")
        result["plot"] = args.plot
        if args.regret:
            rplot = str(Path(args.plot).with_name(Path(args.plot).stem + "_regret.png"))
            bar_plot(result["regret"], rplot, f"{env_id}: exact regret, {result['regret']['optimal']['hands']} hands",
                     key="mean_regret", ci_key="regret_ci95", ylabel="exact regret per hand (units wagered)")
            result["regret_plot"] = rplot
    if args.out:
        cli.write_json(args.out, result)
    if args.json:
        print(cli.dumps(result))
    else:
        print(f"{env_id}  ({args.hands} hands, seed {args.seed}, same cards for every policy)")
        print(format_table(summary, unit=f"table minimums (${env.unwrapped.config.unit:g})"))
        if args.regret:
            print()
            print(f"exact regret against optimal play ({result['regret']['optimal']['hands']} hands):")
            print(format_regret_table(result["regret"]))
        if args.plot:
            print(f"plot: {args.plot}" + (f", {result['regret_plot']}" if args.regret else ""))
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
