#!/usr/bin/env python
"""Prove a house way never fouls: run it on every one of the 154,143,080 seven-card hands.

For each hand the house-way setting is checked to be a legal setting index and not fouled under
the rules options; the report gives the number of hands each rule of the style handled, fouls per
rule and errors (both must be 0). Numba, parallel over all cores, progress bar.

Examples:
    python scripts/check_house_way.py --style asia-000
    python scripts/check_house_way.py --style paigow-igw --json
    python scripts/check_house_way.py --style asia-borgata --rules '{"ace_low_straight": "second_highest"}'

Exit codes: 0 no foul and no error, 1 a foul or an error was found, 2 bad arguments, 130 Ctrl-C
/ 143 SIGTERM (seen within a second: the hands are checked in 500 batches; no partial proof is reported).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse

from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import rules_from_json
from splitpoker.envs.rules.house_ways.check import TOTAL_HANDS, exhaustive_check
from splitpoker.envs.rules.house_ways.registry import STYLES, HouseWayStyle
from splitpoker.scripts.support import cli


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--style", required=True, choices=STYLES, help="house-way style to check")
    p.add_argument("--rules", default="{}", help="JSON of ranking options (AsiaRules / PaiGowRules fields)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--max-tasks", type=cli.count(1, 10**9, "a slice for smoke tests"), help=argparse.SUPPRESS)  # smoke tests: a slice of the hands
    return p.parse_args(argv)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "the check did not finish (no result)")


def run(args) -> int:
    style = HouseWayStyle.parse(args.style)
    try:
        rules = rules_from_json(style.game, args.rules)
    except (ValueError, TypeError) as e:
        print(f"error: --rules: {e}", file=sys.stderr)
        return 2
    game = Game(style.game, style.value, rules)
    from tqdm import tqdm

    total = TOTAL_HANDS if args.max_tasks is None else None
    with tqdm(total=total, unit="hand", unit_scale=True, desc=style.value, disable=None, file=sys.stderr, leave=False) as bar:
        rep = exhaustive_check(game, progress=bar.update, max_tasks=args.max_tasks, n_batches=500)
    if args.json:
        print(cli.dumps(rep))
    else:
        print(f"house way {rep['style']} ({rep['game']}, {rep['rules_options']})")
        print(f"{'rule':<60} {'hands':>13} {'fouls':>7}")
        for name, r in rep["rules"].items():
            print(f"{name[:60]:<60} {r['hands']:>13,} {r['fouls']:>7,}")
        print(f"{'total':<60} {rep['hands']:>13,} {rep['fouls']:>7,}")
        print(f"errors: {rep['errors']}  fouls: {rep['fouls']}  "
              f"({rep['seconds']:.1f} s, {rep['hands_per_second']:,.0f} hands/s)")
    ok = rep["fouls"] == 0 and rep["errors"] == 0 and (not rep["exhaustive"] or rep["hands"] == TOTAL_HANDS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
