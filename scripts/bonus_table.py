#!/usr/bin/env python
"""Exhaustive bonus pay-table analysis over all C(53, 7) = 154,143,080 seven-card hands.

Classifies every hand (joker as in the main game; a hand is paid its best-paying line) and prints,
per line of the pay table: combinations, probability, pays, return contribution; then the total
return and house edge. The first run enumerates all hands (~35 s on two cores, progress bar) and
caches the result in the user cache directory (``$SPLITPOKER_CACHE_DIR`` or
``~/.cache/splitpoker``); later runs, for any pay table, take a second.

Examples:
    python scripts/bonus_table.py --list
    python scripts/bonus_table.py --game asia --paytable seed-000
    python scripts/bonus_table.py --game paigow --paytable fortune --json
    python scripts/bonus_table.py --game paigow --paytable-file configs/paytables/my_table.yaml

If the cache cannot be written (read-only disk, a cache path that is a file) the result is still
printed, with a warning. Ctrl-C stops within a second (exit 130); nothing half-written is cached.
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import time

from splitpoker.envs.rules.bonus.features import cached_feature_histogram, paytable_report
from splitpoker.envs.rules.bonus.paytables import BUILTIN_PAYTABLES, PayTable, get_paytable
from splitpoker.scripts.support import cli


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=["asia", "paigow"], help="game whose pay table to analyse")
    p.add_argument("--paytable", help="built-in pay table name (see --list)")
    p.add_argument("--paytable-file", help="a YAML pay table (name, game, kind, lines: key/label/odds/predicate)")
    p.add_argument("--list", action="store_true", help="print the available pay tables and exit")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--no-cache", action="store_true", help="re-enumerate instead of using the cached histogram")
    return p.parse_args(argv)


def load_table(args) -> PayTable:
    if args.paytable_file:
        import yaml

        from splitpoker.envs.config_file import load_yaml

        try:
            data = load_yaml(args.paytable_file)
        except OSError as e:
            raise ValueError(f"--paytable-file {args.paytable_file}: cannot read it ({e.strerror or e})") from None
        except yaml.YAMLError as e:
            raise ValueError(f"--paytable-file {args.paytable_file}: not valid YAML ({e})") from None
        if not isinstance(data, dict):
            raise ValueError(f"--paytable-file {args.paytable_file}: expected a mapping with name, game, kind "
                             f"and lines, got {type(data).__name__}")
        try:
            return PayTable.from_dict(data)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"--paytable-file {args.paytable_file}: {e}") from None
    return get_paytable(args.paytable)


def print_table(rep: dict, seconds: float) -> None:
    print(f"{rep['paytable']} ({rep['game']}, {rep['kind']}): {rep['source']}")
    print(f"{'line':<48} {'combinations':>14} {'probability':>12} {'pays':>7} {'return':>10}")
    for ln in rep["lines"].values():
        print(f"{ln['label'][:48]:<48} {ln['combinations']:>14,} {ln['probability']:>12.4e} "
              f"{ln['pays']:>7g} {ln['return']:>10.6f}")
    if rep["kind"] == "odds":
        print(f"{'(no qualifying hand: loses)':<48} {rep['losing_combinations']:>14,} "
              f"{rep['losing_probability']:>12.4e} {-1:>7} {-rep['losing_probability']:>10.6f}")
        print(f"{'total':<48} {rep['total']:>14,}")
        print(f"expected return {rep['expected_return']:+.6f} per unit wagered; house edge "
              f"{100 * rep['house_edge']:.4f}%")
    else:
        print(f"{'total':<48} {rep['total']:>14,}")
        print(f"expected Envy amount per other seat: {rep['expected_envy_units_per_other_seat']:.6f} units")
    print(f"({seconds:.1f} s)")


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, "nothing cached (rerun to start the enumeration again)")


def run(args) -> int:
    if args.list:
        for t in BUILTIN_PAYTABLES.values():
            print(f"{t.name:<10} game={t.game:<7} kind={t.kind:<5} lines={len(t.lines):<3} {t.source}")
        return 0
    if args.paytable and args.paytable_file:
        print("error: give --paytable or --paytable-file, not both", file=sys.stderr)
        return 2
    if not (args.paytable or args.paytable_file):
        print("error: give --paytable NAME (see --list) or --paytable-file FILE", file=sys.stderr)
        return 2
    try:
        table = load_table(args)
    except (ValueError, KeyError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.game and table.game != args.game:
        print(f"error: pay table {table.name!r} is for game {table.game!r}, not {args.game!r}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    from tqdm import tqdm

    with tqdm(total=154_143_080, unit="hand", unit_scale=True, desc="enumerating", disable=None,
              file=sys.stderr, leave=False) as bar:
        hist = cached_feature_histogram(progress=bar.update, use_cache=not args.no_cache,
                                        log=lambda m: print(m, file=sys.stderr))
    rep = paytable_report(table, hist)
    seconds = time.perf_counter() - t0
    rep["seconds"] = seconds
    if args.json:
        print(cli.dumps(rep))
    else:
        print_table(rep, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
