#!/usr/bin/env python
"""Exact solve of a seeded sample of hands: how much the house way gives up against optimal play.

Hand i is row i of splitpoker.envs.rules.house_ways.batch.random_hands(seed, N) (counter-based: the same
hands whatever N). Each hand is solved exactly against all C(46, 7) dealer hands
(splitpoker.envs.solver.exact.ExactSolver, cached 617 MB dealer table; about a minute to build per style the
first time, then ~0.2-0.4 s per hand) and written as ONE ROW PER HAND to FILE (.parquet or
.csv): the cards, the house-way setting/rule/EV/exact win-push-loss counts, the optimal setting
(ties: the house way if it is optimal, else the lowest index) with its EV and counts, the
regret (optimal EV - house-way EV, exact and >= 0), the number of optimal settings and both
settings' hands as text. The columns game, style, seed and max_pool_card identify the run.

Resume: if FILE exists it must come from the same game/style/seed/--max-pool-card (else exit
2); hands already in it are skipped and the rest appended. FILE is rewritten atomically (temp
file + rename) every --checkpoint hands and on Ctrl-C, so an interrupted run loses little and
never leaves a corrupt file. The summary covers hands 0..N-1: mean house-way EV, mean optimal
EV, mean gain (optimal - house way) with a 95% CI over hands, and the fraction of hands where
the house way is optimal.

--max-pool-card K (tests / quick looks; 14 <= K <= 52): the dealer's hands are drawn only from
the unseen cards below K (card = rank*4 + suit, joker 52), using a small dealer table built in
memory (no cache). The player's hands are the same as in a full run; the EVs are NOT those of
the real game.

Examples:
    python scripts/solve_sample.py --game paigow --style paigow-igw --hands 1000 --seed 1 --out /tmp/solve.parquet
    python scripts/solve_sample.py --game asia --style asia-borgata --hands 200 --out sample.csv --json

The folder of FILE must exist and be writable (checked before any work). Ctrl-C (at any point,
including while the dealer table is built) exits 130 after saving the hands solved so far: at
most the hand being solved is lost.
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()


from splitpoker.envs.rules.cards import DECK_SIZE, N_STANDARD
from splitpoker.envs.rules.game import Game
from splitpoker.scripts.support import cli

MAX_HANDS = 1_000_000
# the --max-pool-card bounds: envs/solver/sample.py's MIN_POOL and FULL_POOL (that module loads the
# solver, seconds, so the bounds are restated for the argument check; tests/test_solve_sample.py pins them)
MIN_POOL = 14
FULL_POOL = DECK_SIZE


def parse_args(argv=None):
    p = cli.parser(__doc__)
    cli.add_game(p, rules=False)
    p.add_argument("--hands", type=cli.count(1, MAX_HANDS, "time: ~0.2-0.4 s of exact solving per hand, so "
                                             "10^6 hands take days; the rows are held in memory"),
                   required=True, help=f"sample size N: hands 0..N-1 of the seeded deal (at most {MAX_HANDS:,})")
    p.add_argument("--out", required=True, help="output FILE, .parquet or .csv (resumed if it exists)")
    cli.add_seed(p, "the deal")
    p.add_argument("--checkpoint", type=cli.count(1, MAX_HANDS, "at most the sample size"), default=50,
                   help="rewrite FILE every this many hands (default 50)")
    p.add_argument("--max-pool-card", metavar="K",
                   type=cli.count(MIN_POOL, N_STANDARD, "the dealer needs 7 unseen cards below K; "
                                  "leave the flag out for the real game"),
                   help=f"tests/quick looks ({MIN_POOL} <= K <= {N_STANDARD}): dealer hands only from unseen "
                        f"cards < K, small in-memory table (default: the real game)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return p.parse_args(argv)


def print_human(rep: dict) -> None:
    def ci(c, unit="%"):
        return "n/a" if c is None else f"{100 * c[0]:+.3f}{unit} .. {100 * c[1]:+.3f}{unit}"

    pool = "" if rep["max_pool_card"] == FULL_POOL else f", dealer pool cards < {rep['max_pool_card']} (NOT the real game)"
    print(f"{rep['game']} / {rep['style']}: {rep['hands']:,} hands, seed {rep['seed']}{pool} -> {rep['out']}")
    print(f"mean house-way EV {100 * rep['mean_house_way_ev']:+.3f}% (95% CI {ci(rep['house_way_ev_ci95'])})")
    print(f"mean optimal EV   {100 * rep['mean_optimal_ev']:+.3f}% (95% CI {ci(rep['optimal_ev_ci95'])})")
    print(f"mean gain of optimal play {100 * rep['mean_gain']:.3f} pp (95% CI {ci(rep['gain_ci95'], ' pp')}); "
          f"max {100 * rep['max_gain']:.2f} pp")
    print(f"house way optimal on {100 * rep['house_way_optimal_fraction']:.1f}% of hands "
          f"(ties for optimal on {100 * rep['ties_fraction']:.1f}%)")


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, f"{args.out} holds the hands saved before (rerun the same command to resume)")


def run(args) -> int:
    from splitpoker.agents.exact.sample_file import SampleFile, solve_into, summarize

    try:
        game = Game(args.game, args.style)
        cli.check_output("--out", args.out)
        k = FULL_POOL if args.max_pool_card is None else args.max_pool_card
        store = SampleFile(args.out, game, args.seed, k)
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.envs.solver.sample import dealer_hands

    def progress(todo):  # called once the dealer table is ready
        bar.close()
        return tqdm(todo, unit="hand", desc=game.style.value, disable=None, file=sys.stderr, leave=False)

    with tqdm(total=dealer_hands(k), unit="hand", unit_scale=True, desc="dealer table", disable=None,
              file=sys.stderr, leave=False) as bar:
        try:
            solve_into(store, args.hands, args.checkpoint, progress=progress, solver_progress=bar.update,
                       log=lambda m: print(m, file=sys.stderr))
        except BaseException as e:  # Ctrl-C (or an error it caused inside numba): the hands are saved
            if not cli.is_interrupt(e):
                raise
            print(f"interrupted: {args.out} holds {store.n_rows} hands; rerun the same command to resume",
                  file=sys.stderr)
            return cli.interrupt_exit_code()
    rep = summarize(store, args.hands)
    if args.json:
        print(cli.dumps(rep))
    else:
        print_human(rep)
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
