#!/usr/bin/env python
"""Exact optimal betting for a bankroll session: the probability of reaching --target from
--bankroll (chips) with the table's bet levels, for the optimal policy (dynamic programming,
agents/sessions/dp.py), bold play and flat minimum betting, and each one's bet per bankroll.

The round's outcome distribution (agents/sessions/round_distribution.py): house way vs house way from a
cached simulation of --rounds deals (main | bonus line) times the exact bonus-line marginal; with
--setter optimal, the exact-optimal setter's win/push/loss from a scripts/solve_sample.py output
(--sample). The success probabilities' "range" repeats the solve with P(win) moved to both ends
of its 95% CI (sampling error of the simulation or of the solved sample).

Examples:
    python scripts/session_dp.py --game asia --bankroll 50 --target 100
    python scripts/session_dp.py --game paigow --bankroll 100 --target 200 --hands 50 --json
    python scripts/session_dp.py --game asia --bankroll 100 --target 200 --table '{"bonus_levels": [0]}'
    python scripts/session_dp.py --game asia --bankroll 100 --target 200 --setter optimal --sample asia-000.parquet
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse

from splitpoker.scripts.support import cli

MAX_HANDS = 10_000  # the hand-limited solve keeps a policy of hands x states (6,000) entries: 480 MB
MAX_ROUNDS = 10_000_000_000  # the simulation behind the round distribution plays every round
MAX_CHIPS = 1e9


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=["asia", "paigow"], help="the game")
    chips = cli.positive_float(MAX_CHIPS, "chips; the bankroll grid bounds the states anyway")
    p.add_argument("--bankroll", type=chips, required=True, help="starting bankroll in chips ($)")
    p.add_argument("--target", type=chips, required=True, help="target bankroll in chips ($), above --bankroll")
    p.add_argument("--hands", type=cli.count(1, MAX_HANDS, "memory and time: the solve keeps a policy of hands x "
                                              "states entries, up to 6,000 states"),
                   help=f"hand limit, 1..{MAX_HANDS:,} (default: none, play until target or ruin)")
    p.add_argument("--setter", choices=["house-way", "optimal"], default="house-way",
                   help="who sets the player's hands (default house-way)")
    p.add_argument("--sample", help="scripts/solve_sample.py output (.parquet/.csv) for --setter optimal")
    p.add_argument("--table", default="{}", type=cli.json_object("table fields"),
                   help="JSON of table overrides (AsiaPokerConfig / PaiGowPokerConfig fields: house_way, bet "
                        "levels, pay table, ...), e.g. '{\"bonus_levels\": [0]}'")
    p.add_argument("--rounds", type=cli.count(1000, MAX_ROUNDS, "time: every round is simulated; the default "
                                              "20,000,000 take minutes"),
                   default=20_000_000, help="deals of the house-way simulation (cached; default 20,000,000)")
    cli.add_seed(p, "the simulation")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p.parse_args(argv)


def bet_ranges(rows: list[dict]) -> list[tuple[float, float, float, float]]:
    """Consecutive bankrolls with the same bet merged: (from, to, main, bonus)."""
    out = []
    for r in rows:
        if out and out[-1][2] == r["main"] and out[-1][3] == r["bonus"]:
            out[-1] = (out[-1][0], r["bankroll"], r["main"], r["bonus"])
        else:
            out.append((r["bankroll"], r["bankroll"], r["main"], r["bonus"]))
    return out


def run(args) -> dict:
    from splitpoker.agents.sessions import dp as sd
    from splitpoker.agents.sessions.round_distribution import (
        house_way_distribution,
        optimal_distribution,
        outcome_shape,
        read_optimal_sample,
    )
    from splitpoker.envs.config import config_class
    from splitpoker.envs.rules.game import Game

    cfg = config_class(args.game).from_dict(args.table)
    table = sd.BetTable.from_config(cfg)
    if args.setter == "optimal" and not args.sample:
        raise ValueError("--setter optimal needs --sample FILE from scripts/solve_sample.py")
    if args.setter != "optimal" and args.sample:
        raise ValueError(f"--sample {args.sample}: only used with --setter optimal")
    game = Game(args.game, cfg.house_way, cfg.rules)
    paytable = cfg.paytable
    sd.state_count(outcome_shape(game, paytable), table, args.bankroll, args.target)  # before the simulation
    sample = read_optimal_sample(game, args.sample) if args.sample else None  # so is the sample
    from tqdm import tqdm

    with tqdm(total=args.rounds, unit="round", unit_scale=True, desc="simulating", disable=None, file=sys.stderr,
              leave=False) as bar:  # only when the simulation is not cached
        dist = house_way_distribution(game, paytable, args.rounds, args.seed, log=lambda m: print(m, file=sys.stderr),
                                      progress=bar.update)
    if args.setter == "optimal":
        dist = optimal_distribution(game, paytable, sample, dist)
    out = sd.compare(dist, table, args.bankroll, args.target, args.hands)
    out.update(game=args.game, setter=args.setter, table=cfg.to_dict())
    w = dist.main_ci95[0]
    for sign, key in ((-1, 0), (1, 1)):
        shifted = sd.compare(dist.shifted(sign * w), table, args.bankroll, args.target, args.hands)
        for name in ("optimal", "bold", "flat"):
            out[name].setdefault("success_range_ci95", [None, None])[key] = shifted[name]["success"]
    for name in ("optimal", "bold", "flat"):
        out[name]["bet_ranges"] = [{"from": a, "to": b, "main": m, "bonus": k} for a, b, m, k in bet_ranges(out[name]["bets"])]
    return out


def print_human(out: dict) -> None:
    d = out["distribution"]
    hands = "no hand limit" if out["hands"] is None else f"at most {out['hands']} hands"
    print(f"{out['game']} / {d['style']}, hands set by {out['setter']}: ${out['bankroll']:g} -> ${out['target']:g}, "
          f"{hands}")
    print(f"round: win {d['p_win']:.5f}  push {d['p_push']:.5f}  loss {d['p_loss']:.5f} (main edge "
          f"{100 * d['main_edge']:+.3f}% ± {100 * d['main_edge_ci95']:.3f}); bonus return {100 * d['bonus_return']:+.2f}%")
    print(f"bankroll grid ${out['grid']:g}, {out['states']} states")
    print(f"{'policy':<8} {'P(reach target)':>16} {'range (95% CI of P(win))':>28}")
    for name in ("optimal", "bold", "flat"):
        lo, hi = sorted(out[name]["success_range_ci95"])
        print(f"{name:<8} {out[name]['success']:>16.6f} {f'{lo:.6f} .. {hi:.6f}':>28}")
    for name in ("optimal", "bold", "flat"):
        print(f"\n{name} bet per bankroll:")
        for r in out[name]["bet_ranges"]:
            span = f"${r['from']:g}" if r["from"] == r["to"] else f"${r['from']:g} .. ${r['to']:g}"
            print(f"  {span:<22} main ${r['main']:g}" + (f" + bonus ${r['bonus']:g}" if r["bonus"] else ""))


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(_main, args, "nothing written (the simulation cache is only saved when complete)")


def _main(args) -> int:
    try:
        out = run(args)
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(cli.dumps(out))
    else:
        print_human(out)
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
