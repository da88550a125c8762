"""Smoke tests of every script on tiny budgets (CleanRL style): exit codes, outputs, bad input."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from splitpoker.envs.rules.house_ways.registry import STYLES

ROOT = Path(__file__).resolve().parent.parent


def run(script, *args, timeout=900):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize("script", ["analyze.py", "bonus_table.py", "check_house_way.py", "simulate.py", "train.py",
                                    "evaluate.py", "benchmark.py", "demo.py", "solve_sample.py", "cache.py"])
def test_help(script):
    out = run(script, "--help")
    assert out.returncode == 0 and "usage" in out.stdout.lower()


def test_analyze_json_and_borgata_example():
    out = run("analyze.py", "--game", "asia", "--style", "asia-borgata", "Qh Th 8h 3h Kd 5d Tc", "--samples", "3000", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["house_way"] == {"high": ["Qh", "Th", "8h", "3h"], "medium": ["Kd", "5d"], "low": ["Tc"]}
    assert rep["cards"] == ["3h", "5d", "8h", "Th", "Tc", "Qh", "Kd"]
    evs = [s["ev"] for s in rep["settings"]]
    assert evs == sorted(evs, reverse=True) and all(s["method"] == "monte-carlo" for s in rep["settings"])
    assert not any(s["fouled"] for s in rep["settings"]) and {"hands", "categories", "stderr"} <= set(rep["settings"][0])


def test_analyze_human_paigow():
    out = run("analyze.py", "--game", "paigow", "As Ah Kd Kc 9s 5h JK", "--samples", "2000", "--top", "3")
    assert out.returncode == 0 and "house way" in out.stdout and "◀ house way" in out.stdout


@pytest.mark.parametrize("args,fragment", [
    (["--game", "asia", "Qh Th 8h 3h Kd 5d Tx"], "unknown suit 'x'"),
    (["--game", "asia", "Qh Th 8h 3h Kd 5d Qh"], "duplicate card"),
    (["--game", "asia", "Qh Th 8h 3h Kd 5d"], "expected 7 cards, got 6"),
    (["--game", "paigow", "--style", "asia-000", "Qh Th 8h 3h Kd 5d Tc"], "is for asia, not paigow"),
])
def test_analyze_bad_input_exit_2(args, fragment):
    out = run("analyze.py", *args)
    assert out.returncode == 2 and fragment in out.stderr


def test_simulate_small():
    out = run("simulate.py", "--game", "paigow", "--rounds", "20000", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    n, w, p, lo_rate = 20_000, rep["win_rate"], rep["push_rate"], rep["loss_rate"]
    # the published rates of the IGW house way against itself (docs/house_ways.md, 10^9 rounds):
    # win 28.393%, push 41.940%, loss 29.667%; 20,000 rounds land within 4 standard errors
    for rate, published in ((w, 0.28393), (p, 0.41940), (lo_rate, 0.29667)):
        assert abs(rate - published) < 4 * math.sqrt(published * (1 - published) / n)
    assert rep["player_edge"] == pytest.approx(0.95 * w - lo_rate)  # a win pays 1 less the 5% commission
    sd = math.sqrt(0.95**2 * w + lo_rate - rep["player_edge"] ** 2)  # of one round's result
    lo, hi = rep["player_edge_ci95"]
    assert hi - lo == pytest.approx(2 * 1.959963984540054 * sd / math.sqrt(n), rel=2e-3)
    again = json.loads(run("simulate.py", "--game", "paigow", "--rounds", "20000", "--seed", "3", "--json").stdout)
    assert again["player_edge"] == rep["player_edge"]  # deterministic in the seed
    assert run("simulate.py", "--game", "asia", "--rounds", "0").returncode == 2


@pytest.mark.parametrize("style", STYLES)  # every registered style
def test_check_house_way_slice(style):
    out = run("check_house_way.py", "--style", style, "--json", "--max-tasks", "60")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["fouls"] == 0 and rep["errors"] == 0 and rep["hands"] > 0
    assert sum(r["hands"] for r in rep["rules"].values()) == rep["hands"]


def test_bonus_table_list_and_errors():
    out = run("bonus_table.py", "--list")
    assert out.returncode == 0 and all(n in out.stdout for n in ("seed-000", "fortune", "envy"))
    assert run("bonus_table.py", "--game", "asia", "--paytable", "nope").returncode == 2
    bad = run("bonus_table.py", "--game", "asia", "--paytable", "fortune")
    assert bad.returncode == 2 and "is for game 'paigow'" in bad.stderr


@pytest.mark.slow
def test_bonus_table_json():
    out = run("bonus_table.py", "--game", "asia", "--paytable", "seed-000", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["total"] == 154_143_080
    assert rep["lines"]["five_aces"]["combinations"] == 1128
    assert rep["lines"]["quad_eights_and_trips"]["combinations"] == 54


@pytest.mark.parametrize("rules,fragment", [("[1]", "must be a JSON object"), ("{bad", "is not a JSON object"),
                                            ('{"vig": 1}', "unknown PaiGowRules option(s) ['vig']")])
def test_bad_rules_option_exit_2(rules, fragment):
    out = run("simulate.py", "--game", "paigow", "--rounds", "10", "--rules", rules)
    assert out.returncode == 2 and fragment in out.stderr
