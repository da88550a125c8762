"""Smoke tests of scripts/session_dp.py and scripts/evaluate_sessions.py (tiny budgets), and the
slow check that the DP's probability lies inside the simulated confidence interval."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAST = ["--rounds", "200000"]  # a small cached simulation behind the round distribution


def run(script, *args, timeout=900):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize("script", ["session_dp.py", "evaluate_sessions.py"])
def test_help(script):
    out = run(script, "--help")
    assert out.returncode == 0 and "usage" in out.stdout.lower()


def test_session_dp_json_keys_and_ordering():
    out = run("session_dp.py", "--game", "asia", "--bankroll", "50", "--target", "100", "--json", *FAST)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)  # strict JSON: no NaN or Infinity
    p = {k: rep[k]["success"] for k in ("optimal", "bold", "flat")}
    assert 0 < p["flat"] < p["bold"] <= p["optimal"] + 1e-12 <= 1
    # from $50 to $100 with the house way (subfair): one $50 bet, success = P(win) of a round
    assert p["optimal"] == pytest.approx(rep["distribution"]["p_win"], abs=1e-12)
    assert rep["optimal"]["bets"][-1]["bankroll"] == 95 and rep["grid"] == 5
    lo, hi = rep["optimal"]["success_range_ci95"]
    assert lo < p["optimal"] < hi
    # and P(win) is the published asia-000 house-way-vs-house-way win rate, 47.230%
    # (docs/house_ways.md, 10^9 rounds), within 4 standard errors of the 200,000-round simulation
    assert abs(rep["distribution"]["p_win"] - 0.47230) < 4 * (0.4723 * 0.5277 / 200_000) ** 0.5


def test_session_dp_human_paigow_hand_limit():
    out = run("session_dp.py", "--game", "paigow", "--bankroll", "20", "--target", "40", "--hands", "10", *FAST)
    assert out.returncode == 0, out.stderr
    assert "P(reach target)" in out.stdout and "grid $0.25" in out.stdout and "optimal bet per bankroll" in out.stdout


@pytest.mark.parametrize("args,match", [
    (["--bankroll", "0", "--target", "10"], "bankroll=0"), (["--bankroll", "100", "--target", "100"], "target=100"),
    (["--bankroll", "50", "--target", "100", "--hands", "0"], "--hands 0"),
    (["--bankroll", "50", "--target", "100", "--table", "[1]"], "JSON object"),
    (["--bankroll", "50", "--target", "100", "--setter", "optimal"], "--sample")])
def test_session_dp_bad_input_exits_2(args, match, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("session_dp_script", ROOT / "scripts" / "session_dp.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    try:
        code = script.main(["--game", "asia", *args, *FAST])
    except SystemExit as e:  # argparse's own refusals (the --table JSON type) exit 2 before main's body
        code = e.code
    assert code == 2
    assert match in capsys.readouterr().err


def test_evaluate_sessions_tiny(tmp_path):
    png = tmp_path / "s.png"
    out = run("evaluate_sessions.py", "--env-kwargs", '{"bankroll": 20, "target": 40}', "--sessions", "40",
              "--policies", "optimal,bold", "--json", "--plot", str(png), *FAST)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert set(rep["policies"]) == {"optimal (DP)", "bold"} and png.stat().st_size > 0
    assert rep["policies"]["optimal (DP)"]["sessions"] == 40 and set(rep["exact"]) == {"optimal (DP)", "bold", "flat"}
    bad = run("evaluate_sessions.py", "--env", "splitpoker/AsiaPoker-v0", *FAST)
    assert bad.returncode == 2 and "session env" in bad.stderr
    bad = run("evaluate_sessions.py", "--policies", "optimal,timid", *FAST)
    assert bad.returncode == 2 and "timid" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("game,bankroll,target", [("AsiaPoker", 100, 300), ("PaiGowPoker", 100, 150)])
def test_dp_inside_simulated_ci(game, bankroll, target):
    """The DP's success probability (round distribution from a 20M-deal simulation) lies inside the
    99.9% Wilson interval of 20,000 sessions played in the env by the DP's own policy (real deals).
    The docs' figures use 100,000 sessions and 95% intervals (scripts/evaluate_sessions.py)."""
    import gymnasium as gym

    import splitpoker  # noqa: F401
    from splitpoker.agents.sessions.evaluation import (
        DPPolicy,
        dp_baselines,
        run_sessions,
        session_seeds,
    )
    from splitpoker.agents.sessions.round_distribution import house_way_distribution
    from splitpoker.envs.rules.game import Game

    env = gym.make(f"splitpoker/{game}Session-v0", bankroll=bankroll, target=target)
    cfg = env.unwrapped.config
    g = "asia" if game == "AsiaPoker" else "paigow"
    dist = house_way_distribution(Game(g), cfg.bonus_paytable if g == "asia" else cfg.fortune_paytable)
    policies, exact, sol = dp_baselines(env, dist)
    rec = run_sessions(env, DPPolicy(sol), session_seeds(7, 20_000))
    n, k = rec.reached.size, int(rec.reached.sum())
    p, z = k / n, 3.2905
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    assert centre - half <= exact["optimal (DP)"] <= centre + half
