"""scripts/solve_sample.py on tiny budgets, and its library (splitpoker.envs.solver.sample, splitpoker.agents.exact.sample_file).

No 617 MB dealer table is needed: ``--max-pool-card 20`` makes the script build a small in-memory
table (cards < 20, 77,520 hands) and draw the dealer's hands from the unseen cards below 20 only.
Most tests call ``main(argv)`` in-process (fast); two go through a subprocess (the real CLI).
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from splitpoker.envs.rules.cards import hand_array
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import random_hands
from splitpoker.envs.solver import sample

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "solve_sample.py"
K = ["--max-pool-card", "20"]

_spec = importlib.util.spec_from_file_location("solve_sample", SCRIPT)
solve_sample = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(solve_sample)


def run_main(*args):
    try:
        return solve_sample.main([*map(str, args)])
    except SystemExit as e:  # argparse refusals (bad numbers) exit 2 before main's body
        return e.code


def read(path: Path):
    t = pcsv.read_csv(path) if path.suffix == ".csv" else pq.read_table(path)
    return t.to_pylist()


def check_rows(rows, game: Game, seed: int, n: int):
    hands = np.empty((n, 7), dtype=np.int64)
    random_hands(seed, n, hands)
    assert [r["index"] for r in rows] == list(range(n))
    for r in rows:
        assert (r["game"], r["style"], r["seed"], r["max_pool_card"]) == (game.game, game.style.value, seed, 20)
        hand = hand_array(r["cards"])
        assert hand.tolist() == hands[r["index"]].tolist()
        assert r["house_way_setting"] == game.house_way(hand).setting
        assert r["house_way_rule"] == game.house_way(hand).rule
        assert r["regret"] >= 0 and r["optimal_ev"] >= r["house_way_ev"]
        assert r["regret"] == pytest.approx(r["optimal_ev"] - r["house_way_ev"], abs=1e-12)
        assert r["house_way_optimal"] == (r["regret"] == 0) and r["n_optimal"] >= 1
        if r["house_way_optimal"]:
            assert r["optimal_setting"] == r["house_way_setting"]  # ties go to the house way
        n_low = int((hand < 20).sum())
        assert r["n_dealer_hands"] == math.comb(20 - n_low, 7)
        for who in ("house_way", "optimal"):
            assert r[f"{who}_wins"] + r[f"{who}_pushes"] + r[f"{who}_losses"] == r["n_dealer_hands"]
            assert sorted(" ".join(r[f"{who}_{s}"] for s in game.slots).split()) == sorted(r["cards"].split())
        if game.game == "asia":
            assert r["house_way_pushes"] == 0 and r["house_way_ev"] == pytest.approx(
                (r["house_way_wins"] - r["house_way_losses"]) / r["n_dealer_hands"])


@pytest.mark.parametrize("game,style,ext", [("asia", "asia-borgata", "csv"), ("paigow", "paigow-igw", "parquet")])
def test_writes_one_row_per_hand(tmp_path, capsys, game, style, ext):
    out = tmp_path / f"s.{ext}"
    assert run_main("--game", game, "--style", style, "--hands", 6, "--seed", 3, "--out", out, *K, "--json") == 0
    rep = json.loads(capsys.readouterr().out)
    rows = read(out)
    check_rows(rows, Game(game, style), 3, 6)
    assert rep["hands"] == 6 and rep["max_pool_card"] == 20
    assert rep["mean_gain"] == pytest.approx(np.mean([r["regret"] for r in rows]))
    assert rep["mean_optimal_ev"] - rep["mean_house_way_ev"] == pytest.approx(rep["mean_gain"])
    assert rep["house_way_optimal_fraction"] == pytest.approx(np.mean([r["house_way_optimal"] for r in rows]))
    lo, hi = rep["gain_ci95"]  # normal 95% interval over the 6 hands' regrets
    gains = np.array([r["regret"] for r in rows])
    assert (lo + hi) / 2 == pytest.approx(gains.mean())
    assert hi - lo == pytest.approx(2 * 1.959963984540054 * gains.std(ddof=1) / math.sqrt(6))
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temp file left behind


def test_resume_appends_and_keeps_existing_rows(tmp_path, capsys):
    csv, parquet = tmp_path / "r.csv", tmp_path / "r.parquet"
    for out in (csv, parquet):
        assert run_main("--game", "asia", "--hands", 4, "--seed", 5, "--out", out, *K) == 0
    first = read(csv)
    assert len(first) == 4
    for out in (csv, parquet):
        assert run_main("--game", "asia", "--hands", 6, "--seed", 5, "--out", out, *K, "--checkpoint", 1) == 0
    rows = read(csv)
    check_rows(rows, Game("asia"), 5, 6)
    assert rows[:4] == first
    assert read(parquet) == rows  # both formats hold the same values
    # nothing left to do: the file is not rewritten; a smaller --hands summarizes a prefix
    before = csv.stat().st_mtime_ns
    capsys.readouterr()
    assert run_main("--game", "asia", "--hands", 3, "--seed", 5, "--out", csv, *K, "--json") == 0
    assert json.loads(capsys.readouterr().out)["hands"] == 3
    assert csv.stat().st_mtime_ns == before and len(read(csv)) == 6


@pytest.mark.parametrize("change,fragment", [
    (["--style", "asia-borgata"], "style=['asia-000']"),
    (["--seed", "8"], "seed=[7]"),
    (["--max-pool-card", "21"], "max_pool_card=[20]"),
])
def test_resume_refuses_another_run(tmp_path, capsys, change, fragment):
    out = tmp_path / "m.csv"
    base = {"--game": "asia", "--style": "asia-000", "--seed": "7", "--max-pool-card": "20"}
    assert run_main(*sum(base.items(), ()), "--hands", 2, "--out", out) == 0
    data = out.read_bytes()
    capsys.readouterr()
    args = dict(base, **dict(zip(change[::2], change[1::2], strict=True)))
    assert run_main(*sum(args.items(), ()), "--hands", 3, "--out", out) == 2
    err = capsys.readouterr().err
    assert fragment in err and str(out) in err
    assert out.read_bytes() == data


def test_resume_refuses_another_game(tmp_path, capsys):
    out = tmp_path / "g.parquet"
    assert run_main("--game", "asia", "--hands", 2, "--out", out, *K) == 0
    assert run_main("--game", "paigow", "--hands", 2, "--out", out, *K) == 2
    assert "columns" in capsys.readouterr().err  # Pai Gow has back/front columns, Asia high/medium/low


@pytest.mark.parametrize("args,fragment", [
    (["--out", "x.txt"], "unknown extension '.txt'"),
    (["--out", "x"], "unknown extension ''"),
    (["--hands", "0"], "argument --hands: 0: expected an integer 1..1,000,000"),
    (["--max-pool-card", "13"], "--max-pool-card: 13"),
    (["--max-pool-card", "54"], "--max-pool-card: 54"),
    (["--style", "paigow-igw"], "is for paigow, not asia"),
])
def test_bad_input_exit_2(tmp_path, capsys, args, fragment):
    opts = {"--game": "asia", "--hands": "2", "--out": str(tmp_path / "b.csv"), "--max-pool-card": "20"}
    opts.update(dict(zip(args[::2], args[1::2], strict=True)))
    assert run_main(*sum(opts.items(), ())) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists()


def test_unreadable_existing_file_exit_2(tmp_path, capsys):
    out = tmp_path / "junk.parquet"
    out.write_bytes(b"not a parquet file")
    assert run_main("--game", "asia", "--hands", 2, "--out", out, *K) == 2
    assert "cannot read" in capsys.readouterr().err and out.read_bytes() == b"not a parquet file"


def test_interrupt_saves_progress(tmp_path, monkeypatch):
    out = tmp_path / "i.csv"
    real, calls = sample.solve_hand, []

    def flaky(*a, **kw):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(sample, "solve_hand", flaky)
    assert run_main("--game", "asia", "--hands", 6, "--out", out, *K, "--checkpoint", 2) == 130
    assert [r["index"] for r in read(out)] == [0, 1, 2]
    monkeypatch.setattr(sample, "solve_hand", real)
    assert run_main("--game", "asia", "--hands", 6, "--out", out, *K) == 0
    check_rows(read(out), Game("asia"), 0, 6)


def test_cli_help_and_run(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                              timeout=600, cwd=ROOT)

    h = cli("--help")
    assert h.returncode == 0 and "usage" in h.stdout.lower() and "--max-pool-card" in h.stdout
    out = tmp_path / "c.parquet"
    r = cli("--game", "paigow", "--hands", 3, "--seed", 1, "--out", out, *K)
    assert r.returncode == 0, r.stderr
    assert "3 hands" in r.stdout and "mean gain" in r.stdout and "NOT the real game" in r.stdout
    bad = cli("--game", "paigow", "--hands", 3, "--out", tmp_path / "c.json", *K)
    assert bad.returncode == 2 and "c.json" in bad.stderr


def test_sample_hands_are_a_prefix_whatever_n():
    """Hand i of a sample does not depend on the sample size (a resumed run with a larger
    --hands meets the same first hands)."""
    big, small = sample.sample_hands(11, 40), sample.sample_hands(11, 7)
    assert np.array_equal(big[:7], small)
    assert all(len(set(h.tolist())) == 7 and h.min() >= 0 and h.max() <= 52 for h in big)
    assert not np.array_equal(sample.sample_hands(12, 7), small)


@pytest.mark.parametrize("k", [13, 54, 20.0, True, "20"])
def test_library_refuses_a_bad_pool_bound(k):
    with pytest.raises(ValueError, match=r"expected an integer 14\.\.52 .* or 53 \(the full game\)"):
        sample.check_max_pool_card(k)


def test_the_script_states_the_librarys_pool_bounds():
    """scripts/solve_sample.py restates MIN_POOL and FULL_POOL for its argument check (importing
    the solver would cost seconds before an argument error): they must agree."""
    from splitpoker.scripts import solve_sample

    assert (solve_sample.MIN_POOL, solve_sample.FULL_POOL) == (sample.MIN_POOL, sample.FULL_POOL)
    assert sample.check_max_pool_card(sample.FULL_POOL) == 53
    assert solve_sample.parse_args(["--game", "asia", "--hands", "1", "--out", "x.csv"]).max_pool_card is None


def test_columns_name_every_field_of_a_row():
    """The declared columns are exactly the keys of a solved row plus the run's identity."""
    game = Game("paigow")
    solver = sample.make_solver(game, 20)
    row = sample.solve_hand(game, solver, sample.sample_hands(0, 1)[0], 20)
    names = [n for n, _ in sample.columns(game)]
    assert sorted(names) == sorted([*row, "index", "game", "style", "seed", "max_pool_card"])
    assert names[-4:] == ["house_way_back", "house_way_front", "optimal_back", "optimal_front"]
