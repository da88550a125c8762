#!/usr/bin/env python
"""The hand calculator: every setting of seven cards ranked by its EV against the house-way dealer.

Prints the house-way setting (and the rule that chose it), then every legal setting ranked by its
expected main-bet result per unit wagered, estimated by Monte Carlo over N dealer hands dealt from
the remaining 46 cards — the same dealer hands for every setting (common random numbers), so the
ranking is sharper than the standard errors suggest.

With ``--exact`` the EVs are exact instead: every one of the 53,524,680 dealer hands from the 46
unseen cards (exact solver, dealer table built and cached on first use, ~1 min; then ~0.2 s per
hand), with the win / push / loss probabilities and integer counts; the optimal setting is marked
and the EV the house way gives up on this hand is printed.

Examples:
    python scripts/analyze.py --game asia --style asia-borgata "Qh Th 8h 3h Kd 5d Tc"
    python scripts/analyze.py --game paigow "As Ah Kd Kc 9s 5h JK" --samples 50000 --json
    python scripts/analyze.py --game asia "Qh Th 8h 3h Kd 5d Tc" --exact

Ctrl-C stops within a second (exit 130; nothing is kept: a partial ranking would mislead).
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()


from splitpoker.scripts.support import cli


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("cards", help='seven cards, e.g. "Qh Th 8h 3h Kd 5d Tc" (joker: JK)')
    cli.add_game(p, "dealer's house way")
    p.add_argument("--samples", type=cli.count(1, MAX_SAMPLES, "time: about 250,000 dealer hands/s, so 10^8 take "
                                               "~7 minutes for a standard error of ~0.0001"),
                   default=20_000, help=f"dealer hands for the Monte Carlo (default 20,000; at most {MAX_SAMPLES:,})")
    cli.add_seed(p, "the dealer sample")
    p.add_argument("--exact", action="store_true", help="exact EVs over all dealer hands (exact solver)")
    p.add_argument("--include-fouled", action="store_true", help="also list fouled settings (EV -1)")
    p.add_argument("--top", type=cli.count(1, 105, "a hand has at most 105 settings"),
                   help="show only the best N settings in the table (1..105)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p.parse_args(argv)


MAX_SAMPLES = 100_000_000
CHUNK = 20_000  # dealer hands per numba call (~0.1 s): Ctrl-C is seen between chunks


def sym(cards: list[str]) -> str:
    table = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
    return " ".join(c if c == "JK" else c[0] + table[c[1]] for c in cards)


def print_human(rep: dict, top: int | None) -> None:
    exact = rep["method"] == "exact"
    how = f"exact over all {rep['dealer_hands']:,} dealer hands" if exact else f"{rep['samples']:,} dealer hands, seed {rep['seed']}"
    print(f"{rep['game']} / {rep['style']}: {sym(rep['cards'])}   ({how})")
    hw = "  ".join(f"{k} [{sym(v)}]" for k, v in rep["house_way"].items())
    print(f"house way ({rep['house_way_rule']}): {hw}   EV {rep['house_way_ev']:+.4f} ± {rep['house_way_stderr']:.4f}")
    print()
    slots = list(rep["house_way"])
    widths = {"high": 16, "medium": 9, "low": 5, "back": 20, "front": 9}
    stats = f"  {'EV':>8} {'win':>6} {'push':>6} {'loss':>6}" if exact else f"  {'EV':>8} {'±se':>7}"
    head = f"{'#':>3}  " + "  ".join(f"{s:<{widths[s]}}" for s in slots) + stats + "  categories"
    print(head)
    print("-" * len(head))
    best = rep["settings"][0]["ev"] if rep["settings"] else 0
    for i, e in enumerate(rep["settings"][: top or None], 1):
        mark = " ◀ optimal" if e.get("optimal") else ""
        mark += " ◀ house way" if e["setting"] == rep["house_way_setting"] else ""
        mark += "  FOULED" if e["fouled"] else ""
        cells = "  ".join(f"{sym(e['hands'][s]):<{widths[s]}}" for s in slots)
        cats = " / ".join(e["categories"][s] for s in slots if s != "low")
        nums = (f"  {e['ev']:>+8.4f} {e['p_win']:>6.3f} {e['p_push']:>6.3f} {e['p_loss']:>6.3f}" if exact
                else f"  {e['ev']:>+8.4f} {e['stderr']:>7.4f}")
        print(f"{i:>3}  {cells}{nums}  {cats}{mark}")
    if exact:
        print(f"\noptimal EV {rep['optimal_ev']:+.6f}; the house way gives up {rep['house_way_gives_up']:.6f} on this hand (exact)")
    else:
        print(f"\nbest EV {best:+.4f}; the house way gives up {best - rep['house_way_ev']:.4f} on this hand (Monte Carlo)")


@cli.leaves_process_as_found
def main(argv=None) -> int:
    return cli.run_interruptible(run, parse_args(argv), "no result")


def run(args) -> int:
    try:
        game = cli.game_from_args(args)
        game.hand(args.cards)  # bad cards refused before any work
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.envs.solver.hand_analysis import analyze_hand

    total = None if args.exact else args.samples
    with tqdm(total=total, unit="hand", unit_scale=True, desc="dealer hands", disable=None if total else True,
              file=sys.stderr, leave=False) as bar:
        rep = analyze_hand(game, args.cards, samples=args.samples, seed=args.seed, include_fouled=args.include_fouled,
                           exact=args.exact, chunk=CHUNK, progress=bar.update, log=lambda m: print(m, file=sys.stderr))
    if args.json:
        print(cli.dumps(rep))
    else:
        print_human(rep, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
