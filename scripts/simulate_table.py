#!/usr/bin/env python
"""Table rounds in bulk: every seat plays the house way; exact Envy and Fortune figures checked by
simulation.

Deals N table rounds (the dealer and --seats seats, seven hands from one 53-card deck in seed
004's order; a counter-based generator seeded by --seed, so results do not depend on threads) in
a numba batch loop. Every seat bets one unit on the main bet and on the bonus (Pai Gow: Fortune)
and, at Pai Gow, takes the Envy bonus. Reports, with 95% confidence intervals:

* the main bet's result per unit (house way vs house way);
* the bonus result per unit, next to its exact value over all 154,143,080 seven-card hands;
* the Envy amount per seat per other seat, next to its exact value (the Envy table's expected
  amount for one hand);
* a $W Fortune wager plus its Envy with the other seats: exact W x Fortune return + others x Envy
  per other seat, for 0..5 other seats, and simulated for --seats - 1 others.

Card removal: every seat's seven cards are uniformly distributed over the C(53, 7) hands whatever
the other seats hold, so by linearity of expectation the exact means need no card-removal term;
the other hands' dependence changes only the variance (and the EV conditional on one's own cards).

The first run enumerates the seven-card hands once (~35 s, cached). Output: a table, and JSON
with --json / --out FILE (strict JSON, written atomically; the folder must exist, checked before
any work). Ctrl-C (or SIGTERM) stops after the current chunk of 500,000 rounds, reports the rounds
dealt so far marked "interrupted", and exits 130 (143); before the first chunk, nothing is reported.

Examples:
    python scripts/simulate_table.py --game paigow --seats 6 --rounds 10000000 --out table.json
    python scripts/simulate_table.py --game asia --seats 3 --rounds 1000000 --json
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

from splitpoker.scripts.support import cli

MAX_SEATS = 6  # a 53-card deck deals the dealer and 6 seats
MAX_ROUNDS = 10**12


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--game", default="paigow", choices=["asia", "paigow"], help="the game (default paigow)")
    p.add_argument("--style", default=None, help="house-way style (default asia-000 / paigow-igw)")
    p.add_argument("--seats", type=cli.count(1, MAX_SEATS, "a 53-card deck deals the dealer and 6 seats"), default=6,
                   help="taken seats 1..6 (default 6: five others per seat)")
    p.add_argument("--rounds", type=cli.count(1, MAX_ROUNDS, "a bound against typos: days of dealing"),
                   default=10_000_000, help=f"table rounds to deal, 1..{MAX_ROUNDS:,} (default 10,000,000)")
    cli.add_seed(p, "the deal")
    p.add_argument("--rules", default="{}", help="JSON of rules options (e.g. '{\"commission\": 0}')")
    p.add_argument("--fortune-wager", type=cli.positive_float(1e9, "chips"), default=5.0,
                   help="Fortune wager for the combined EV (default $5, the Envy minimum)")
    p.add_argument("--envy-unit", type=cli.positive_float(1e9, "chips"), default=1.0,
                   help="chips per Envy unit (default $1)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--out", help="also write the JSON to this .json file (its folder must exist)")
    return p.parse_args(argv)


def exact_figures(rules, fortune_wager: float) -> dict:
    """Exact bonus return and Envy amount per other seat from the exhaustive seven-card counts."""
    from splitpoker.envs.rules.bonus.features import cached_feature_histogram, paytable_report

    hist = cached_feature_histogram()
    out = {"bonus_paytable": rules.bonus_paytable.name if rules.bonus_paytable else None}
    if rules.bonus_paytable is not None:
        out["bonus_return_per_unit"] = paytable_report(rules.bonus_paytable, hist)["expected_return"]
    if rules.envy_paytable is not None:
        e = paytable_report(rules.envy_paytable, hist)["expected_envy_units_per_other_seat"]
        out["envy_paytable"] = rules.envy_paytable.name
        out["envy_units_per_other_seat"] = e
        out["fortune_with_envy_chips_by_other_seats"] = {
            n: fortune_wager * out["bonus_return_per_unit"] + n * e * rules.envy_unit for n in range(6)}
        out["fortune_with_envy_per_chip_wagered_by_other_seats"] = {
            n: v / fortune_wager for n, v in out["fortune_with_envy_chips_by_other_seats"].items()}
    return out


def within(stat: dict, value: float) -> bool:
    lo, hi = stat["ci95"]
    return bool(lo <= value <= hi)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "nothing to report")


def run(args) -> int:
    try:
        from splitpoker.envs.rules.games.spec import rules_from_json
        from splitpoker.envs.rules.table.table import TableRules

        rules = TableRules(game=args.game, house_way=args.style, rules=rules_from_json(args.game, args.rules),
                           envy_unit=args.envy_unit)
        if rules.has_envy and args.fortune_wager < rules.envy_min_fortune:
            raise ValueError(f"--fortune-wager {args.fortune_wager:g}: Envy needs ${rules.envy_min_fortune:g} or more")
        if args.out:
            cli.check_output("--out", args.out, (".json",))
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from splitpoker.envs.rules.table.batch import simulate_table

    try:
        exact = exact_figures(rules, args.fortune_wager)
    except KeyboardInterrupt:
        return cli.interrupted("while counting the seven-card hands; nothing to report (rerun to resume: "
                               "the count is cached only when complete)")
    with tqdm(total=args.rounds, unit="round", unit_scale=True, desc=f"{args.game} table", disable=None,
              file=sys.stderr, leave=False) as bar:
        try:
            sim = simulate_table(rules, args.seats, args.rounds, args.seed, progress=bar.update,
                                 fortune_wager=args.fortune_wager)
        except KeyboardInterrupt:
            return cli.interrupted("before the first chunk finished; nothing to report")
    st = sim["stats"]
    checks = {"bonus_within_ci": within(st["bonus_per_unit"], exact["bonus_return_per_unit"])}
    if rules.envy_paytable is not None and args.seats > 1:
        checks["envy_within_ci"] = within(st["envy_units_per_other_seat"], exact["envy_units_per_other_seat"])
        checks["fortune_with_envy_within_ci"] = within(
            st["fortune_with_envy_chips"], exact["fortune_with_envy_chips_by_other_seats"][args.seats - 1])
    rep = {"exact": exact, "simulation": sim, "checks": checks}
    if args.out:
        cli.write_json(args.out, rep)
    if args.json:
        print(cli.dumps(rep))
    else:
        def fmt(s):
            return f"{s['mean']:+.6f} (95% CI {s['ci95'][0]:+.6f} .. {s['ci95'][1]:+.6f})"

        print(f"{args.game} table, {args.seats} seats, house way {rules.house_way}: {sim['rounds']:,} rounds, "
              f"seed {sim['seed']}, {sim['seconds']:.1f} s ({sim['rounds_per_second']:,.0f} rounds/s)"
              + (" [interrupted]" if sim["interrupted"] else ""))
        print(f"main bet per unit        {fmt(st['main_per_unit'])}")
        print(f"bonus per unit           {fmt(st['bonus_per_unit'])}   exact {exact['bonus_return_per_unit']:+.6f}")
        if rules.envy_paytable is not None:
            print(f"Envy per other seat      {fmt(st['envy_units_per_other_seat'])}   exact {exact['envy_units_per_other_seat']:+.6f} units")
            print(f"${args.fortune_wager:g} Fortune + Envy, {args.seats - 1} others: {fmt(st['fortune_with_envy_chips'])}   "
                  f"exact {exact['fortune_with_envy_chips_by_other_seats'][args.seats - 1]:+.6f} chips")
            print(f"exact ${args.fortune_wager:g} Fortune + Envy by other seats: " + ", ".join(
                f"{n}: {v:+.4f}" for n, v in exact["fortune_with_envy_chips_by_other_seats"].items()))
            print("Envy hands (seat hands paying each line): " + ", ".join(f"{k} {v:,}" for k, v in sim["envy_line_hands"].items()))
        print("checks: " + ", ".join(f"{k} {v}" for k, v in checks.items()))
    if sim["interrupted"]:  # the rounds of the finished chunks were reported, marked interrupted
        return cli.interrupted(f"{sim['rounds']:,} of {args.rounds:,} rounds reported")
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
