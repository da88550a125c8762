#!/usr/bin/env python
"""House way against house way: the player sets every hand by the dealer's own rules.

Deals N rounds (player 7 cards, dealer 7 cards from the same 53-card deck; a counter-based
generator seeded by --seed, so results do not depend on the number of threads) in a numba batch
loop and reports the win / push / loss rates, the player's edge per unit wagered, each with a 95%
confidence interval, and rounds per second.

Examples:
    python scripts/simulate.py --game paigow --style paigow-igw --rounds 10000000
    python scripts/simulate.py --game asia --style asia-borgata --rounds 10000000 --json

Ctrl-C stops within a second (exit 130, no result: the rounds are dealt in chunks of 100,000).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()


from splitpoker.scripts.support import cli

MAX_ROUNDS = 10_000_000_000
CHUNK = 100_000  # rounds per numba call: Ctrl-C is seen between chunks


def parse_args(argv=None):
    p = cli.parser(__doc__)
    cli.add_game(p)
    p.add_argument("--rounds", type=cli.count(1, MAX_ROUNDS, "time: about 1-3 million rounds/s on two cores, so "
                                              "10^10 rounds take hours; the edge's CI is then ~0.002%%"),
                   default=1_000_000, help=f"rounds to deal (default 1,000,000; at most {MAX_ROUNDS:,})")
    cli.add_seed(p, "the deal")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p.parse_args(argv)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    return cli.run_interruptible(run, parse_args(argv), "no result")


def run(args) -> int:
    try:
        game = cli.game_from_args(args)
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.envs.rules.house_ways.check import simulate

    with tqdm(total=args.rounds, unit="round", unit_scale=True, desc=game.style.value, disable=None,
              file=sys.stderr, leave=False) as bar:
        rep = simulate(game, args.rounds, args.seed, progress=bar.update, chunk=CHUNK)
    if args.json:
        print(cli.dumps(rep))
    else:
        lo, hi = rep["player_edge_ci95"]
        print(f"{rep['game']} / {rep['style']} ({rep['rules_options']}): {rep['rounds']:,} rounds, seed {rep['seed']}")
        ci = {k: "{:.3f}..{:.3f}".format(*(100 * x for x in rep[f"{k}_rate_ci95"])) for k in ("win", "push", "loss")}
        print(f"player wins {100 * rep['win_rate']:.3f}% ({ci['win']})  pushes {100 * rep['push_rate']:.3f}% "
              f"({ci['push']})  loses {100 * rep['loss_rate']:.3f}% ({ci['loss']}) (95% CIs)")
        print(f"player edge {100 * rep['player_edge']:+.3f}% per unit (95% CI {100 * lo:+.3f}% .. {100 * hi:+.3f}%); "
              f"house edge {100 * rep['house_edge']:.3f}%")
        print(f"{rep['rounds_per_second']:,.0f} rounds/s ({rep['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
