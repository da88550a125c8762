#!/usr/bin/env python
"""Where a policy's EV goes: exact regret by hand category and by house-way rule, agreement with
the house way and with optimal play, and the costliest hands (docs/strategy_insight.md).

The policy (a saved model .zip, a baseline name or a strategy card file: a .yaml card of
configs/strategies/ or a fitted card's .json, whose game and style are the defaults) plays N seeded hands of a setting environment
(hand i is env.reset(seed=...) of the sample --seed, the hands scripts/evaluate.py plays); every
setting of every hand is valued by the labeller:

  exact       the exact solver, through the evaluation-set cache (agents/exact/eval_set.py):
              ~0.1-0.3 s a hand the first time, then read from the cache; --solved DIR looks
              hands up in solved stores (scripts/solve_all.py) first
  table       the strategy table (agents/policies/strategy_table.py): no card removal, so not
              exact (its measured error: docs/strategy_insight.md); no solving at all

Writes, into --out DIR (an existing folder, or a new one in an existing folder):
  report.json   hands, mean_regret, categories, rules, joker (each a partition of the hands:
                {name|rule, hands, share, mean_regret, regret_share, optimal_rate,
                house_way_agreement, house_way_mean_regret, ...}), worst ({cards, chosen,
                optimal, regret, ...}, by regret)
  report.md     the tables, the plots and the costliest hands
  categories.png, rules.png   mean regret per group, policy beside house way (symlog axis)

Examples:
    python scripts/report.py --policy runs/<run>/model.zip --hands 1000 --out runs/report
    python scripts/report.py --policy house-way --env splitpoker/PaiGowPokerSetting-v0 --hands 3000 --seed 2 --out r
    python scripts/report.py --policy table --labels exact --env splitpoker/AsiaPokerSetting-v0 --out r --json

Refused before any work (exit 2): an unknown policy name, a file that is not a saved model, a model
trained on another environment or game, an --out that cannot be written. Ctrl-C exits 130 and
writes no report; the exact labels solved so far stay cached, a stopped labelling's too (a rerun solves
only the rest).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import time
from pathlib import Path

from splitpoker.scripts.support import cli

MAX_HANDS = 100_000
DEFAULT_ENV = "splitpoker/AsiaPokerSetting-v0"


def parse_args(argv=None):
    from splitpoker.agents.policies.baselines import BASELINES

    p = cli.parser(__doc__)
    p.add_argument("--policy", required=True, metavar="PATH|CARD.yaml|" + "|".join(BASELINES),
                   help="the policy: a saved model .zip (scripts/train.py), a strategy card file (.yaml, "
                        "configs/strategies/) or a baseline name; loading a model runs the code pickled in it: "
                        "load only models you trust (a card file runs no code)")
    p.add_argument("--env", help=f"environment id (default: the model's, else {DEFAULT_ENV})")
    p.add_argument("--env-kwargs", default={}, type=cli.json_object("environment config overrides"),
                   help="JSON of environment config overrides, e.g. '{\"house_way\": \"asia-borgata\"}' "
                        "(default: the model's)")
    p.add_argument("--hands", type=cli.count(2, MAX_HANDS, "time: exact labels cost ~0.1-0.3 s a hand the first "
                                             "time; an interval needs two hands"),
                   default=1000, help=f"hands in the sample (default 1000; 2..{MAX_HANDS:,})")
    cli.add_seed(p, "the hand sample")
    p.add_argument("--labels", choices=("exact", "table"), default="exact",
                   help="what values every setting: exact (the solver, cached) or table (the strategy "
                        "table: approximate, no solving) (default exact)")
    p.add_argument("--solved", action="append", default=[], metavar="DIR",
                   help="with --labels exact: a solved store (scripts/solve_all.py) to look hands up in "
                        "before solving them (repeatable; the first made for these rules is used)")
    p.add_argument("--max-pool-card", type=cli.count(14, 52, "the dealer needs 7 unseen cards below K"),
                   help="tests and quick looks: value settings against dealer hands of the cards below K only "
                        "(a small table built in memory; NOT the real game's EVs)")
    p.add_argument("--worst", type=cli.count(0, 1000, "the report lists them all"), default=20,
                   help="costliest hands to list (default 20)")
    p.add_argument("--mc-samples", type=cli.count(1, 1_000_000, "time: mc-best runs them for every setting"),
                   default=300, help="dealer hands per decision for the mc-best baseline (default 300)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for report.json, report.md and the plots")
    p.add_argument("--json", action="store_true", help="print report.json instead of the summary")
    return p.parse_args(argv)


def load_policy_source(name: str):
    """``(model or None, its TrainConfig or None)`` for a baseline name or a saved-model path."""
    from splitpoker.agents.evaluation.card_file import is_card_file, load_card
    from splitpoker.agents.policies.baselines import BASELINES

    if name in BASELINES:
        return None, None
    if is_card_file(name):
        return load_card(name), None
    if not Path(name).is_file():
        raise ValueError(f"--policy {name}: no such file and no such baseline: expected a saved model .zip "
                         f"or one of {sorted(BASELINES)}")
    from splitpoker.agents.training.models import load_model

    try:
        return load_model(name)
    except Exception as e:  # noqa: BLE001 - any unloadable file is a user error here
        raise ValueError(f"--policy {name}: cannot load it as a saved model ({type(e).__name__}: {e})") from None


def check_model_fits(name: str, model, env) -> None:
    """A model whose observation or action space is not ``env``'s was made for another game or env."""
    obs, act = model.observation_space, model.action_space
    if getattr(obs, "shape", None) != env.observation_space.shape or getattr(act, "n", None) != env.action_space.n:
        raise ValueError(f"--policy {name}: the model expects observations {getattr(obs, 'shape', obs)} and "
                         f"{getattr(act, 'n', act)} actions, {env.spec.id} has {env.observation_space.shape} and "
                         f"{env.action_space.n}: a model of another game or environment")


def prepare(args):
    """Every check before the work: the output folder, the policy, the environment, the stores."""
    from splitpoker.agents.evaluation.card_file import WrittenCard
    from splitpoker.agents.exact.eval_set import game_of_env, make_eval_env
    from splitpoker.agents.policies.baselines import SB3Policy, make_baseline
    from splitpoker.envs.registration import SETTING_ENV_OF_GAME, setting_env_id

    cli.check_output_dir("--out", args.out)
    model, cfg = load_policy_source(args.policy)
    card = model if isinstance(model, WrittenCard) else None
    if card is not None:
        model = None
    env_id, env_kwargs = cli.env_of_models([(args.policy, cfg)] if model is not None else [], args.env,
                                           args.env_kwargs)
    if card is not None:  # the card's game and style are the defaults
        env_id = env_id or setting_env_id(card.game)
        if card.style and "house_way" not in env_kwargs:
            env_kwargs = {**env_kwargs, "house_way": card.style}
    env_id = env_id or DEFAULT_ENV
    if env_id not in SETTING_ENV_OF_GAME.values():
        raise ValueError(f"--env {env_id}: expected a setting environment, one of {list(SETTING_ENV_OF_GAME.values())}")
    if args.solved and (args.labels != "exact" or args.max_pool_card):
        raise ValueError("--solved: only with --labels exact against the full dealer pool")
    if args.solved:
        from splitpoker.agents.exact.solved_store import read_manifest

        for d in args.solved:
            read_manifest(Path(d))
    env = make_eval_env(env_id, env_kwargs)
    game = game_of_env(env)
    if model is not None:
        check_model_fits(args.policy, model, env)
        policy = SB3Policy.from_env(env, model=model, name=Path(args.policy).parent.name or Path(args.policy).stem)
    elif card is not None:
        from splitpoker.agents.evaluation.card_policy import CardPolicy

        policy = CardPolicy.from_env(env, card=card)
    else:
        kw = {"samples": args.mc_samples, "seed": args.seed} if args.policy == "mc-best" else (
            {"seed": args.seed} if args.policy == "random" else {})
        policy = make_baseline(args.policy, env, **kw)
    return env_id, env_kwargs, env, game, policy


def run(args) -> int:
    from splitpoker.agents.exact.solved_store import StoreError

    t0 = time.perf_counter()
    try:
        env_id, env_kwargs, env, game, policy = prepare(args)
    except (ValueError, TypeError, StoreError, cli.CliError) as e:  # a bad card file is a ValueError too
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.agents.evaluation.labels import FULL_POOL, load_labels
    from splitpoker.agents.evaluation.play import play_settings
    from splitpoker.agents.evaluation.report import build_report, plot_breakdown, report_markdown

    seconds = {"checks": time.perf_counter() - t0}
    t = time.perf_counter()
    labeller = "small-pool" if args.max_pool_card else args.labels
    with tqdm(total=args.hands, desc=f"labels ({labeller})", unit="hand", disable=None, file=sys.stderr,
              leave=False) as bar:
        labels = load_labels(labeller, env_id, env_kwargs, args.hands, args.seed, solved=tuple(args.solved),
                             max_pool_card=args.max_pool_card or FULL_POOL, progress=bar.update,
                             log=lambda m: print(m, file=sys.stderr))
    seconds["labels"] = time.perf_counter() - t
    t = time.perf_counter()
    with tqdm(total=args.hands, desc=policy.name, unit="hand", disable=None, file=sys.stderr, leave=False) as bar:
        played, cards = play_settings(env, policy, list(labels.seeds), progress=bar.update)
    env.close()
    if (cards != labels.cards).any():
        raise RuntimeError("the policy was dealt other cards than the labels: the sample is not paired")
    seconds["play"] = time.perf_counter() - t
    t = time.perf_counter()
    report = build_report(game, labels, played, policy=args.policy, worst=args.worst)
    report["env_kwargs"] = env_kwargs
    if hasattr(policy, "card"):  # a card: also the cost of each of its own rules
        from splitpoker.agents.evaluation.card_score import score_card

        report["card_rules"] = score_card(policy.card, game, labels)["rules"]
    out = cli.make_output_dir(args.out)
    plots = {"categories": "categories.png", "rules": "rules.png"}
    title = f"{Path(report['policy']).name} on {env_id} ({game.style.value}), {labels.hands:,} hands"
    plot_breakdown(report["categories"], "name", out / plots["categories"], f"regret by hand category\n{title}")
    plot_breakdown(report["rules"], "rule", out / plots["rules"], f"regret by house-way rule\n{title}")
    seconds["report"] = time.perf_counter() - t
    seconds["total"] = time.perf_counter() - t0
    report["seconds"] = seconds
    cli.write_text_atomic(out / "report.md", report_markdown(report, plots))
    cli.write_json(out / "report.json", report)
    if args.json:
        print(cli.dumps(report))
    else:
        print(f"{report['policy']} on {env_id} (dealer {game.style.value}), {labels.hands:,} hands, seed {args.seed}, "
              f"{labeller} labels")
        print(f"  mean regret {report['mean_regret']:.5f} ± {report['regret_ci95']:.5f}   house way "
              f"{report['house_way_mean_regret']:.5f} ± {report['house_way_regret_ci95']:.5f}   optimal on "
              f"{100 * report['optimal_rate']:.1f}%   = house way on {100 * report['house_way_agreement']:.1f}%")
        for e in sorted(report["categories"], key=lambda e: -(e["regret_share"] or 0))[:5]:
            print(f"  {e['name']:<32} {e['hands']:>6,} hands  regret {e['mean_regret']:.5f}  "
                  f"{100 * (e['regret_share'] or 0):5.1f}% of the total")
        print(f"  wrote {out / 'report.json'}, {out / 'report.md'} ({seconds['total']:.1f} s)")
    return 0


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "no report written; the exact labels solved so far are cached: "
                                             "rerun the same command to go on")


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
