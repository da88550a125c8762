#!/usr/bin/env python
"""Distil a strategy card: at most --max-rules if-then rules a person can follow, fitted on exact
labels, scored by exact regret on held-out hands next to the house way's (docs/strategy_insight.md).

Each rule reads features a person sees (pairs and their ranks, high singletons, straights,
flushes, the joker, the hand's category) and names a setting recipe ("Keep every pair in back;
then the best front hand"). --learner tree (the default): the rules are the leaves of a
cost-sensitive tree whose cost is the exact regret of each recipe on each hand; --learner list:
exceptions of at most three conditions each, put on top of a default rule one at a time, each the
one that saves the most exact regret (agents/evaluation/strategy_card.py). The number of rules is
chosen on the last --validation share of the training hands; the held-out hands (--test-seed) are
only scored.

Labels: the exact solver through the evaluation-set cache (agents/exact/eval_set.py), the hands
of env.reset(seed=...) of each sample: ~0.1-0.3 s a hand the first time, then read from the cache.

Scoring a written card (--score CARD.yaml, a card file: configs/strategies/README.md has the schema):
no fitting; the card plays the --test-hands held-out hands of --test-seed against the --style dealer
(default: the card's style, else the game's first) and is scored exactly: its regret with a 95%
interval beside the house way's and the shipped fitted card's for that style
(configs/strategies/fitted/), its optimal rate, and the cost of each of its rules (which rules lose
EV, on which hands). A bad card is refused before any labelling (exit 2), naming the rule and the
problem.

Examples:
    python scripts/strategy_card.py --score configs/strategies/paigow_simple.yaml --style paigow-foxwoods
    python scripts/strategy_card.py --game paigow --train-hands 4000 --test-hands 3000 --max-rules 20
    python scripts/strategy_card.py --game asia --style asia-000 --train-hands 2000 --test-hands 2000 \\
        --curve 40 --plot card_asia.png --json --out card_asia.json

--out (JSON), --plot (PNG) and --card-out (YAML: the fitted card as a card file) must name files in
existing, writable folders (checked before any work). Refused before any work (exit 2): equal train
and test seeds, a bad size (fewer training hands than a fitting and a validation part need). Ctrl-C exits 130
and writes no card; the exact labels solved so far stay cached, a stopped labelling's too (a rerun
solves only the rest).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import time

from splitpoker.envs.registration import SETTING_ENV_OF_GAME
from splitpoker.scripts.support import cli

MAX_HANDS = 100_000
ENV_OF_GAME = SETTING_ENV_OF_GAME


def parse_args(argv=None):
    from splitpoker.envs.rules.house_ways.registry import STYLES

    p = cli.parser(__doc__)
    p.add_argument("--game", choices=["asia", "paigow"], help="the game (required unless --score names a card, "
                                                              "whose game it is)")
    p.add_argument("--style", choices=STYLES, help="the dealer's house-way style (default: asia-000 / paigow-igw; "
                                                   "with --score, the card's style if it names one)")
    p.add_argument("--rules", default="{}", help="JSON of rules options (e.g. '{\"commission\": 0}')")
    p.add_argument("--score", metavar="CARD.yaml", help="score this card file on the held-out hands instead of "
                                                        "fitting one (the training options are then unused)")
    hands = cli.count(2, MAX_HANDS, "time: exact labels cost ~0.1-0.3 s a hand the first time")
    p.add_argument("--train-hands", type=hands, default=4000, help="hands to fit on (default 4000)")
    p.add_argument("--train-seed", type=cli.seed, default=1, help="seed of the training sample (default 1)")
    p.add_argument("--test-hands", type=hands, default=3000, help="held-out hands to score on (default 3000)")
    p.add_argument("--test-seed", type=cli.seed, default=2, help="seed of the held-out sample (default 2)")
    p.add_argument("--max-rules", type=cli.count(1, 1000, "a card is read by a person"), default=20,
                   help="at most this many rules (default 20)")
    p.add_argument("--min-leaf", type=cli.count(1, 10_000, "a rule must cover that many training hands"),
                   action="append", help="training hands a rule covers at least; repeat to let the validation "
                                         "hands choose (default 3, 8 and 20)")
    p.add_argument("--learner", choices=["tree", "list"], default="tree",
                   help="tree: a cost-sensitive tree's leaves (default); list: exceptions prepended to a default "
                        "rule, at most three conditions each, reading two more features (what a straight or flush "
                        "leaves beside it)")
    p.add_argument("--grow", type=cli.count(1, 10_000, "the tree is pruned back from that many leaves"),
                   default=300, help="--learner tree: leaves of the grown tree before pruning (default 300)")
    p.add_argument("--validation", type=cli.positive_float(0.9, "the rest is fitted on"), default=0.25,
                   help="share of the training hands that chooses the number of rules (default 0.25)")
    p.add_argument("--curve", type=cli.count(1, 1000, "one tree grown to that size"), default=0,
                   help="also report held-out regret for 1..N rules (grown on all training hands)")
    p.add_argument("--plot", help="with --curve: write the curve to this PNG")
    p.add_argument("--solved", action="append", default=[], metavar="DIR",
                   help="a solved store (scripts/solve_all.py) to look hands up in before solving (repeatable)")
    p.add_argument("--max-pool-card", type=cli.count(14, 52, "the dealer needs 7 unseen cards below K"),
                   help="tests and quick looks: labels against dealer hands of the cards below K only (NOT the "
                        "real game)")
    p.add_argument("--house-way-recipe", action="store_true",
                   help="let a rule say 'set the hand as the house way does' (the card is then the house way "
                        "with named fixes; a reader must know the house way)")
    p.add_argument("--card-out", metavar="CARD.yaml", help="also write the fitted card as a card file (what "
                                                           "--score, report.py and evaluate.py read)")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of the card")
    p.add_argument("--out", help="also write the JSON result to this file")
    return p.parse_args(argv)


def prepare(args):
    """Every check before the work; returns the game, the env id and its keywords."""
    import json

    if args.score:
        return prepare_score(args)
    if args.game is None:
        raise cli.CliError("--game: required to fit a card (or --score CARD.yaml to score one)")
    n_fit = int(round(args.train_hands * (1 - args.validation)))
    if n_fit < 1 or n_fit >= args.train_hands:
        raise cli.CliError(f"--train-hands {args.train_hands}: cannot be split {1 - args.validation:.0%} to fit / "
                           f"{args.validation:.0%} to validate (--validation {args.validation}); each part needs a "
                           f"hand at least: use more hands")
    if args.train_seed == args.test_seed:
        raise cli.CliError(f"--test-seed {args.test_seed}: equals --train-seed; held-out hands must come from "
                           f"another seed")
    if args.out:
        cli.check_output("--out", args.out, (".json",))
    if args.card_out:
        cli.check_output("--card-out", args.card_out, (".yaml", ".yml"))
    if args.plot:
        if not args.curve:
            raise cli.CliError(f"--plot {args.plot}: draws the curve, so it needs --curve N")
        cli.check_output("--plot", args.plot, (".png",))
    if args.solved and args.max_pool_card:
        raise cli.CliError("--solved: only against the full dealer pool (no --max-pool-card)")
    game = cli.game_from_args(args)
    kwargs = {"house_way": game.style.value}
    rules = json.loads(args.rules)
    if rules:
        kwargs["rules"] = rules
    if args.solved:
        from pathlib import Path

        from splitpoker.agents.exact.solved_store import read_manifest

        for d in args.solved:
            read_manifest(Path(d))
    return game, ENV_OF_GAME[game.game], kwargs


def prepare_score(args):
    """The checks of --score: the card (refused before any labelling), the game and the dealer."""
    import json

    from splitpoker.agents.evaluation.card_file import load_card
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.rules.games.spec import rules_from_json

    card = load_card(args.score)
    if args.game is not None and args.game != card.game:
        raise cli.CliError(f"--game {args.game}: the card {args.score} is a {card.game} card")
    style = args.style or card.style
    from splitpoker.envs.rules.house_ways.registry import styles_of

    if style is not None and style not in styles_of(card.game):
        raise cli.CliError(f"--style {style}: a house way of another game than the card's ({card.game})")
    if args.out:
        cli.check_output("--out", args.out, (".json",))
    for flag in ("plot", "card_out"):
        if getattr(args, flag):
            raise cli.CliError(f"--{flag.replace('_', '-')}: for fitting a card, not with --score")
    if args.solved and args.max_pool_card:
        raise cli.CliError("--solved: only against the full dealer pool (no --max-pool-card)")
    game = Game(card.game, style, rules_from_json(card.game, args.rules))
    kwargs = {"house_way": game.style.value}
    rules = json.loads(args.rules)
    if rules:
        kwargs["rules"] = rules
    return game, ENV_OF_GAME[game.game], kwargs, card


def run_score(args, game, env_id, kwargs, card) -> int:
    from tqdm import tqdm

    from splitpoker.agents.evaluation.card_file import fitted_card, fitted_card_path
    from splitpoker.agents.evaluation.card_score import score_card, score_text
    from splitpoker.agents.evaluation.labels import FULL_POOL, load_labels

    t0 = time.perf_counter()
    labeller = "small-pool" if args.max_pool_card else "exact"
    with tqdm(total=args.test_hands, desc="test labels", unit="hand", disable=None, file=sys.stderr,
              leave=False) as bar:
        labels = load_labels(labeller, env_id, kwargs, args.test_hands, args.test_seed, solved=tuple(args.solved),
                             max_pool_card=args.max_pool_card or FULL_POOL, progress=bar.update,
                             log=lambda m: print(m, file=sys.stderr))
    t_labels = time.perf_counter() - t0
    fitted = fitted_card(game.style.value) if fitted_card_path(game.style.value).is_file() else None
    result = score_card(card, game, labels, fitted=fitted)
    result["env_kwargs"] = kwargs
    result["seconds"] = {"labels": t_labels, "scoring": time.perf_counter() - t0 - t_labels,
                         "total": time.perf_counter() - t0}
    result["text"] = score_text(result)
    if args.out:
        cli.write_json(args.out, result)
    print(cli.dumps(result) if args.json else result["text"], end="\n" if args.json else "")
    return 0


def run(args) -> int:
    from splitpoker.agents.evaluation.card_file import CardError
    from splitpoker.agents.exact.solved_store import StoreError

    try:
        prepared = prepare(args)
    except (ValueError, TypeError, StoreError, CardError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.score:
        return run_score(args, *prepared)
    game, env_id, kwargs = prepared
    from tqdm import tqdm

    from splitpoker.agents.evaluation.labels import FULL_POOL, load_labels
    from splitpoker.agents.evaluation.recipes import HouseWayRecipe, recipes
    from splitpoker.agents.evaluation.strategy_card import (
        card_data,
        evaluate_card,
        fit_card,
        plot_curve,
        regret_curve,
    )

    t0 = time.perf_counter()
    labeller = "small-pool" if args.max_pool_card else "exact"
    data = {}
    for part, hands, seed in (("train", args.train_hands, args.train_seed), ("test", args.test_hands, args.test_seed)):
        with tqdm(total=hands, desc=f"{part} labels", unit="hand", disable=None, file=sys.stderr, leave=False) as bar:
            labels = load_labels(labeller, env_id, kwargs, hands, seed, solved=tuple(args.solved),
                                 max_pool_card=args.max_pool_card or FULL_POOL, progress=bar.update,
                                 log=lambda m: print(m, file=sys.stderr))
        book = recipes(game.game) + ((HouseWayRecipe(game.game, game.style.value),) if args.house_way_recipe else ())
        data[part] = card_data(game, labels, book)
    t_labels = time.perf_counter() - t0
    card, selection = fit_card(game, game.style.value, data["train"], max_rules=args.max_rules,
                               min_leaf=tuple(args.min_leaf or (3, 8, 20)), grow_leaves=args.grow,
                               validation=args.validation, learner=args.learner)
    score = evaluate_card(card, data["test"])
    result = {"game": game.game, "style": game.style.value, "env": env_id, "env_kwargs": kwargs,
              "labeller": labeller, "train": {"hands": args.train_hands, "seed": args.train_seed},
              "max_rules": args.max_rules, "learner": args.learner, "selection": selection,
              "rules": card.rules, **{k: score[k] for k in score if k not in ("hands", "seed")},
              "test": {"hands": score["hands"], "seed": score["seed"]}, "text": card.text(score)}
    if args.curve:
        result["curve"] = regret_curve(data["train"], data["test"], max_rules=args.curve,
                                       min_leaf=selection["chosen_min_leaf"], grow_leaves=args.grow,
                                       learner=args.learner)
        if args.plot:
            plot_curve({game.style.value: {"curve": result["curve"], "house_way": score["house_way_exact_regret"]}},
                       args.plot)
            result["plot"] = args.plot
    result["seconds"] = {"labels_and_recipes": t_labels, "total": time.perf_counter() - t0}
    if args.card_out:
        from splitpoker.agents.evaluation.card_file import card_yaml, parse_card

        written = parse_card({"game": game.game, "style": game.style.value, "rules": card.rules}, where="fitted card")
        source = (f"fitted by scripts/strategy_card.py --learner {args.learner} on {args.train_hands:,} exactly "
                  f"solved hands (seed {args.train_seed}); held-out exact regret {score['exact_regret']:.5f} ± "
                  f"{score['exact_regret_ci95']:.5f} per hand on {score['hands']:,} hands (seed {score['seed']}), "
                  f"the house way's {score['house_way_exact_regret']:.5f}")
        written = type(written)(written.game, written.rules, f"fitted card {game.style.value}", game.style.value,
                                source, "", args.card_out)
        cli.write_text_atomic(args.card_out, card_yaml(written))
        result["card_out"] = args.card_out
    if args.out:
        cli.write_json(args.out, result)
    print(cli.dumps(result) if args.json else result["text"], end="\n" if args.json else "")
    return 0


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "no card written; the exact labels solved so far are cached: "
                                             "rerun the same command to go on")


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
