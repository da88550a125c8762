#!/usr/bin/env python
"""Evaluate betting policies on bankroll sessions against the exact DP optimum (common random
numbers): the DP's optimal policy, bold play, flat minimum betting and trained models all play
the same N sessions (session i = env.reset(seed=seed_i); hand k of a session deals the same cards
whatever was bet before). Reports each policy's success rate with its 95% CI, the exact DP
probability (optimal, bold, flat) and whether it lies inside the simulated CI, the share of the
DP optimum reached, and the paired difference to the DP policy.

The session env comes from the model's training config or from --env/--env-kwargs; its hands
must be set by a delegate (setting house-way, or optimal with --sample), since the DP bets only.
Flat betting plays long sessions (~100 hands each at a 2:1 target); leave it out with
--policies optimal,bold for large N (its exact probability is still reported).

--out and --plot must name files in existing, writable folders (checked before any work); the
JSON is written atomically and is strict. Ctrl-C exits 130 with nothing written.

Examples:
    python scripts/evaluate_sessions.py --env-kwargs '{"bankroll": 50, "target": 100}' --sessions 100000 --policies optimal
    python scripts/evaluate_sessions.py --model runs/asia_session/model.zip --sessions 20000 --plot sessions.png
    python scripts/evaluate_sessions.py --env splitpoker/PaiGowPokerSession-v0 --env-kwargs '{"bankroll": 100, "target": 200}' --json
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

from splitpoker.scripts.support import cli

POLICIES = ("optimal", "bold", "flat")
MAX_SESSIONS = 1_000_000  # every session is played hand by hand through the env, in Python
MAX_ROUNDS = 10_000_000_000  # the simulation behind the round distribution plays every round


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", default=[], metavar="PATH", help="a trained model .zip (repeatable); loading a model runs "
                                                                       "the code pickled in it: load only models you trust")
    p.add_argument("--env", help="session env id (default: the model's, else splitpoker/AsiaPokerSession-v0)")
    p.add_argument("--env-kwargs", default="{}", type=cli.json_object("env keywords"),
                   help="JSON of env keywords (default: the model's)")
    p.add_argument("--policies", default="optimal,bold,flat",
                   help="comma-separated DP baselines to simulate: optimal, bold, flat (default all three)")
    p.add_argument("--sessions", type=cli.count(1, MAX_SESSIONS, "time: every session is played hand by hand in "
                                                 "Python, by every policy"),
                   default=2000, help=f"number of sessions (default 2000, at most {MAX_SESSIONS:,})")
    cli.add_seed(p, "the session sample")
    p.add_argument("--rounds", type=cli.count(1000, MAX_ROUNDS, "time: every round is simulated; the default "
                                              "20,000,000 take minutes"),
                   default=20_000_000, help="deals of the house-way simulation behind the DP (default 20,000,000)")
    p.add_argument("--sample", help="scripts/solve_sample.py output for an env with setting='optimal'")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", help="write a bar chart of success rates (95%% CI) with the DP optimum to this PNG")
    p.add_argument("--out", help="also write the JSON result to this file")
    return p.parse_args(argv)


def build(args):
    import gymnasium as gym

    import splitpoker  # noqa: F401  (registers the ids)
    from splitpoker.agents.training.models import check_model_fits, load_model
    from splitpoker.envs.registration import SESSION_ENV_IDS

    models, configs = [], []
    for path in args.model:
        model, cfg = load_model(path)
        models.append((path, model))
        configs.append((path, cfg))
    env_id, kwargs = cli.env_of_models(configs, args.env, args.env_kwargs)
    env_id = env_id or "splitpoker/AsiaPokerSession-v0"
    if env_id not in SESSION_ENV_IDS:
        raise ValueError(f"--env {env_id!r}: expected a session env id "
                         f"({list(SESSION_ENV_IDS)})")
    env = gym.make(env_id, **kwargs)
    for path, model in models:
        try:
            check_model_fits(model, env, env_id)
        except ValueError as e:
            raise ValueError(f"--model {path}: {e}") from None
    u = env.unwrapped
    if args.sample and u.setting != "optimal":
        raise ValueError(f"--sample {args.sample}: only used with a session env whose hands are set optimally "
                         f"(setting='optimal'); this one sets them by {u.setting}")
    if u.target is not None and not u.agent_sets:  # the DP's size, before the simulation behind it
        from splitpoker.agents.sessions import dp as sd
        from splitpoker.agents.sessions.round_distribution import outcome_shape

        sd.state_count(outcome_shape(u.game, u.game.bonus_paytable), sd.BetTable(tuple(u.bet_table)),
                       u.start_bankroll, u.target)
    return env_id, kwargs, env, models


def distribution(env, args):
    from splitpoker.agents.sessions.round_distribution import (
        house_way_distribution,
        optimal_distribution,
    )

    u = env.unwrapped
    game = u.game
    paytable = game.bonus_paytable
    from tqdm import tqdm

    with tqdm(total=args.rounds, unit="round", unit_scale=True, desc="simulating", disable=None, file=sys.stderr,
              leave=False) as bar:  # only when the simulation is not cached
        dist = house_way_distribution(game, paytable, args.rounds, 0, log=lambda m: print(m, file=sys.stderr),
                                      progress=bar.update)
    if u.setting == "optimal":
        if not args.sample:
            raise ValueError("the env sets hands optimally: give --sample FILE from scripts/solve_sample.py")
        dist = optimal_distribution(game, paytable, args.sample, dist)
    elif u.setting != "house-way":
        raise ValueError(f"setting={u.setting!r}: the DP needs the round distribution of a delegated setter "
                         f"('house-way' or 'optimal')")
    return dist


def plot(summary: dict, exact_opt: float, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary)
    vals = [summary[n]["success"] for n in names]
    errs = [[v - summary[n]["success_ci95"][0] for n, v in zip(names, vals, strict=True)],
            [summary[n]["success_ci95"][1] - v for n, v in zip(names, vals, strict=True)]]
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * len(names)), 4))
    ax.bar(names, vals, yerr=errs, capsize=6, color=["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"][: len(names)])
    ax.axhline(exact_opt, color="black", ls="--", lw=1, label=f"DP optimum {exact_opt:.4f}")
    ax.axhline(0.95 * exact_opt, color="grey", ls=":", lw=1, label="95% of the optimum")
    for i, n in enumerate(names):
        if summary[n]["exact"] is not None:
            ax.plot([i - 0.35, i + 0.35], [summary[n]["exact"]] * 2, color="red", lw=2)
    ax.set_ylabel("P(reach target), simulated (bars) / exact (red)")
    ax.set_title(title.replace("$", r"\$"), fontsize=9)  # literal dollars, not mathtext
    ax.legend(loc="lower center", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "nothing written")


def run(args) -> int:
    try:
        chosen = [p.strip() for p in args.policies.split(",") if p.strip()]
        bad = [p for p in chosen if p not in POLICIES]
        if bad or not chosen:
            raise ValueError(f"--policies {args.policies!r}: expected a comma-separated subset of {POLICIES}")
        if args.out:
            cli.check_output("--out", args.out, (".json",))
        if args.plot:
            cli.check_output("--plot", args.plot, (".png",))
        env_id, kwargs, env, models = build(args)
        from splitpoker.agents.sessions.evaluation import (
            ModelPolicy,
            dp_baselines,
            exact_policy_success,
            format_sessions_table,
            run_sessions,
            session_seeds,
            summarize_sessions,
        )

        dist = distribution(env, args)
        baselines, exact, sol = dp_baselines(env, dist)
    except (ValueError, TypeError, FileNotFoundError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    keep = {"optimal": "optimal (DP)", "bold": "bold", "flat": "flat"}
    policies = {keep[p]: baselines[keep[p]] for p in POLICIES if p in chosen}
    learned_bets = {}
    for path, model in models:
        name = "learned" if len(models) == 1 else (Path(path).parent.name or path)
        policies[name] = ModelPolicy(model, name)
        p, rows = exact_policy_success(env, policies[name], dist)
        if p is not None:
            exact[name] = p
            learned_bets[name] = rows
    seeds = session_seeds(args.seed, args.sessions)
    records, timing = {}, {}
    try:
        for name, pol in policies.items():
            t0 = time.perf_counter()
            with tqdm(total=args.sessions, desc=name, unit="session", disable=None, file=sys.stderr, leave=False) as bar:
                records[name] = run_sessions(env, pol, seeds, progress=bar.update)
            timing[name] = time.perf_counter() - t0
    except BaseException as e:
        if not cli.is_interrupt(e):
            raise
        return cli.interrupted(f"after {len(records)} of {len(policies)} policies; nothing written")
    reference = "optimal (DP)" if "optimal (DP)" in records else next(iter(records))
    summary = summarize_sessions(records, {k: v for k, v in exact.items() if k in records}, reference)
    u = env.unwrapped
    result = {"env": env_id, "env_kwargs": kwargs, "sessions": args.sessions, "seed": args.seed,
              "exact": exact, "exact_of_optimum": {k: v / exact["optimal (DP)"] for k, v in exact.items()},
              "learned_bets": learned_bets, "distribution": dist.to_dict(), "policies": summary, "seconds": timing}
    if args.plot:
        plot(summary, exact["optimal (DP)"], args.plot,
             f"{env_id}: ${u.start_bankroll:g} -> ${u.target:g}, {args.sessions} sessions")
        result["plot"] = args.plot
    if args.out:
        cli.write_json(args.out, result)
    if args.json:
        print(cli.dumps(result))
    else:
        limit = f", at most {u.max_hands} hands" if u.max_hands else ""
        print(f"{env_id}: ${u.start_bankroll:g} -> ${u.target:g}{limit}, hands set by {u.setting}; "
              f"{args.sessions} sessions (seed {args.seed}), the same for every policy")
        print("exact P(reach target): " + ", ".join(
            f"{k} {v:.4f} ({100 * v / exact['optimal (DP)']:.1f}% of the optimum)" for k, v in exact.items()))
        print(format_sessions_table(summary))
        if args.plot:
            print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
