#!/usr/bin/env python
"""Exact solve of a seeded sample of hands: how much the house way gives up against optimal play.

Hand i is row i of envs.rules.house_way_batch.random_hands(seed, N) (counter-based: the same
hands whatever N). Each hand is solved exactly against all C(46, 7) dealer hands
(envs.solver.exact.ExactSolver, cached 617 MB dealer table; about a minute to build per style the
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
    from agents.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import os
from pathlib import Path

import numpy as np

from agents import cli
from agents.evaluation import mean_ci
from envs.rules.game import Game
from envs.rules.house_way import STYLES

MAX_HANDS = 1_000_000
FULL = 53  # max_pool_card of a run against the full 46-card dealer pool
META = ("game", "style", "seed", "max_pool_card")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=["asia", "paigow"], help="the game")
    p.add_argument("--style", choices=STYLES, help="house-way style (default: asia-000 / paigow-igw)")
    p.add_argument("--hands", type=cli.count(1, MAX_HANDS, "time: ~0.2-0.4 s of exact solving per hand, so "
                                             "10^6 hands take days; the rows are held in memory"),
                   required=True, help=f"sample size N: hands 0..N-1 of the seeded deal (at most {MAX_HANDS:,})")
    p.add_argument("--out", required=True, help="output FILE, .parquet or .csv (resumed if it exists)")
    p.add_argument("--seed", type=cli.seed, default=0, help="seed of the deal, 0..2**63-1 (default 0)")
    p.add_argument("--checkpoint", type=cli.count(1, MAX_HANDS, "at most the sample size"), default=50,
                   help="rewrite FILE every this many hands (default 50)")
    p.add_argument("--max-pool-card", type=int, metavar="K",
                   help="tests/quick looks: dealer hands only from unseen cards < K, small in-memory table")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return p.parse_args(argv)


def schema(game: Game):
    import pyarrow as pa

    i64, f64, s = pa.int64(), pa.float64(), pa.string()
    cols = [("game", s), ("style", s), ("seed", i64), ("max_pool_card", i64), ("index", i64), ("cards", s),
            ("n_dealer_hands", i64), ("house_way_setting", i64), ("house_way_rule", s), ("house_way_ev", f64),
            ("house_way_wins", i64), ("house_way_pushes", i64), ("house_way_losses", i64),
            ("optimal_setting", i64), ("optimal_ev", f64), ("optimal_wins", i64), ("optimal_pushes", i64),
            ("optimal_losses", i64), ("regret", f64), ("n_optimal", i64), ("house_way_optimal", pa.bool_())]
    cols += [(f"{who}_{slot}", s) for who in ("house_way", "optimal") for slot in game.slots]
    return pa.schema(cols)


def read_table(path: Path, sch):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    try:
        if path.suffix == ".csv":
            t = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=sch))
        else:
            t = pq.read_table(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is a user error here
        raise ValueError(f"--out {path}: cannot read the existing file to resume ({e})") from e
    if t.schema.names != sch.names:
        raise ValueError(f"--out {path}: existing file has columns {t.schema.names}, not those of this "
                         f"game's solve_sample output; choose another --out")
    return t.cast(sch)


def write_atomic(table, path: Path) -> None:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            (pcsv.write_csv if path.suffix == ".csv" else pq.write_table)(table.sort_by("index"), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def make_solver(game: Game, k: int):
    from tqdm import tqdm

    from envs.solver.dealer_table import build_dealer_table
    from envs.solver.exact import ExactSolver
    from envs.rules.combinatorics import BINOM

    with tqdm(total=int(BINOM[k, 7]), unit="hand", unit_scale=True, desc="dealer table", disable=None,
              file=sys.stderr, leave=False) as bar:
        if k < FULL:
            return ExactSolver(game, table=build_dealer_table(game, universe=k, progress=bar.update))
        return ExactSolver(game, log=lambda m: print(m, file=sys.stderr), progress=bar.update)


def solve_row(game: Game, solver, meta: dict, i: int, cards: np.ndarray, k: int) -> dict:
    from envs.rules.cards import format_cards

    pool = None if k == FULL else np.setdiff1d(np.arange(k), cards)
    res = solver.solve(cards, pool=pool)
    hw = game.house_way(cards)
    h, opt = hw.setting, res.best(prefer=hw.setting)
    row = dict(meta, index=i, cards=format_cards(res.cards), n_dealer_hands=res.n_dealer_hands,
               house_way_setting=h, house_way_rule=hw.rule, optimal_setting=opt,
               regret=float(res.ev_fraction(opt) - res.ev_fraction(h)), n_optimal=len(res.optimal_settings()),
               house_way_optimal=bool(h in res.optimal_settings()))
    for who, s in (("house_way", h), ("optimal", opt)):
        row[f"{who}_ev"] = float(res.ev_fraction(s))  # correctly rounded, so optimal_ev >= house_way_ev
        for what in ("wins", "pushes", "losses"):
            row[f"{who}_{what}"] = int(getattr(res, what)[s])
        for slot, hand in game.describe(res.cards, s).hands().items():
            row[f"{who}_{slot}"] = format_cards(hand)
    return row


def mean_interval(x: np.ndarray) -> tuple[float, list | None]:
    """Mean and its 95% confidence interval ``[lo, hi]`` (:func:`agents.evaluation.mean_ci`);
    ``None`` for fewer than two values."""
    m, half = mean_ci(x)
    return m, None if x.size < 2 else [m - half, m + half]


def summarize(table, meta: dict, n: int, out: Path) -> dict:
    t = table.filter(table.column("index").to_numpy() < n)
    hw, opt, gain = (t.column(c).to_numpy().astype(float) for c in ("house_way_ev", "optimal_ev", "regret"))
    rep = dict(meta, out=str(out), hands=t.num_rows)
    rep["mean_house_way_ev"], rep["house_way_ev_ci95"] = mean_interval(hw)
    rep["mean_optimal_ev"], rep["optimal_ev_ci95"] = mean_interval(opt)
    rep["mean_gain"], rep["gain_ci95"] = mean_interval(gain)
    rep["max_gain"] = float(gain.max())
    rep["house_way_optimal_fraction"] = float(t.column("house_way_optimal").to_numpy(zero_copy_only=False).mean())
    rep["ties_fraction"] = float((t.column("n_optimal").to_numpy() > 1).mean())
    return rep


def print_human(rep: dict) -> None:
    def ci(c, unit="%"):
        return "n/a" if c is None else f"{100 * c[0]:+.3f}{unit} .. {100 * c[1]:+.3f}{unit}"

    pool = "" if rep["max_pool_card"] == FULL else f", dealer pool cards < {rep['max_pool_card']} (NOT the real game)"
    print(f"{rep['game']} / {rep['style']}: {rep['hands']:,} hands, seed {rep['seed']}{pool} -> {rep['out']}")
    print(f"mean house-way EV {100 * rep['mean_house_way_ev']:+.3f}% (95% CI {ci(rep['house_way_ev_ci95'])})")
    print(f"mean optimal EV   {100 * rep['mean_optimal_ev']:+.3f}% (95% CI {ci(rep['optimal_ev_ci95'])})")
    print(f"mean gain of optimal play {100 * rep['mean_gain']:.3f} pp (95% CI {ci(rep['gain_ci95'], ' pp')}); "
          f"max {100 * rep['max_gain']:.2f} pp")
    print(f"house way optimal on {100 * rep['house_way_optimal_fraction']:.1f}% of hands "
          f"(ties for optimal on {100 * rep['ties_fraction']:.1f}%)")


def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_interruptible(run, args, f"{args.out} holds the hands saved before (rerun the same command to resume)")


def run(args) -> int:
    out = Path(args.out)
    try:
        game = Game(args.game, args.style)
        if out.suffix not in (".parquet", ".csv"):
            raise ValueError(f"--out {args.out}: unknown extension {out.suffix!r}, expected .parquet or .csv")
        cli.check_output("--out", out)
        k = FULL if args.max_pool_card is None else args.max_pool_card
        if not 14 <= k <= FULL:
            raise ValueError(f"--max-pool-card {k}: expected 14..52 (the dealer needs 7 unseen cards below K)")
        meta = {"game": game.game, "style": game.style.value, "seed": args.seed, "max_pool_card": k}
        sch = schema(game)
        import pyarrow as pa

        table = sch.empty_table()
        if out.exists():
            table = read_table(out, sch)
            for key in META:
                found = set(table.column(key).to_pylist())
                if found and found != {meta[key]}:
                    raise ValueError(f"--out {out}: existing file was made with {key}={sorted(found)}, not "
                                     f"{meta[key]!r}; use another --out or the same {key}")
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from envs.rules.house_way_batch import random_hands

    hands = np.empty((args.hands, 7), dtype=np.int64)
    random_hands(args.seed, args.hands, hands)
    done = set(table.column("index").to_pylist())
    todo = [i for i in range(args.hands) if i not in done]
    rows: list[dict] = []

    def save():
        nonlocal table, rows
        if rows:
            table = pa.concat_tables([table, pa.Table.from_pylist(rows, schema=sch)])
            rows = []
            write_atomic(table, out)

    if todo:
        solver = make_solver(game, k)
        try:
            for i in tqdm(todo, unit="hand", desc=game.style.value, disable=None, file=sys.stderr, leave=False):
                rows.append(solve_row(game, solver, meta, i, hands[i], k))
                if len(rows) >= args.checkpoint:
                    save()
        except BaseException as e:  # Ctrl-C (or an error it caused inside numba)
            if not cli.is_interrupt(e):
                raise
            save()
            print(f"interrupted: {out} holds {table.num_rows} hands; rerun the same command to resume",
                  file=sys.stderr)
            return 130
        save()
    rep = summarize(table, meta, args.hands, out)
    if args.json:
        print(cli.dumps(rep))
    else:
        print_human(rep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
