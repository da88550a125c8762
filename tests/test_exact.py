"""Exact solver: equal to brute force (house way per dealer hand), table caching, agents, scripts."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules
from splitpoker.envs.solver.dealer_table import build_dealer_table, dealer_table, table_key
from splitpoker.envs.solver.exact import ExactSolver, solve_naive

ROOT = Path(__file__).resolve().parent.parent
K = 27  # small universe: cards 0..26 (2s to 8s) for the dealer, the player holds higher cards


@pytest.fixture(scope="module", params=[("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")])
def small(request):
    game = Game(*request.param)
    return game, ExactSolver(game, table=build_dealer_table(game, universe=K))


@pytest.mark.parametrize("cards", ["As Kd Qh Jc Ts JK 9h", "9s 9h 9d Kc Ks Ah Jd", "Td Jd Qd Kd Ad 9c 9d"])
def test_table_method_equals_brute_force_on_a_small_pool(small, cards):
    game, solver = small
    pool = np.arange(K)
    fast = solver.solve(cards, pool=pool)
    slow = solve_naive(game, cards, pool=pool)
    assert fast.n_dealer_hands == slow.n_dealer_hands == 888_030
    for field in ("wins", "pushes", "losses", "fouled"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field
    assert np.allclose(fast.ev, slow.ev)
    serial = solver.solve(cards, pool=pool, parallel=False)
    assert np.array_equal(serial.wins, fast.wins)


def test_fouled_settings_lose_everything(small):
    game, solver = small
    r = solver.solve("As Kd Qh Jc Ts JK 9h", pool=np.arange(K))
    assert r.fouled.any()
    assert np.all(r.ev[r.fouled] == -1.0) and np.all(r.losses[r.fouled] == r.n_dealer_hands)
    assert np.all(r.wins + r.pushes + r.losses == r.n_dealer_hands)
    s = int(np.flatnonzero(~r.fouled)[0])
    assert float(r.ev_fraction(s)) == pytest.approx(r.ev[s], abs=1e-15)
    assert r.best() in r.optimal_settings()


def test_commission_enters_the_ev():
    results = {}
    for c in (0.05, 0.0):
        g = Game("paigow", "paigow-igw", PaiGowRules(commission=c))
        results[c] = ExactSolver(g, table=build_dealer_table(g, universe=K)).solve("As Kd Qh Jc Ts JK 9h", pool=np.arange(K))
    a, b = results[0.05], results[0.0]
    assert np.array_equal(a.wins, b.wins)
    ok = ~a.fouled
    assert np.allclose(b.ev[ok] - a.ev[ok], 0.05 * a.wins[ok] / a.n_dealer_hands)
    assert a.ev_fraction(20) == Fraction(95, 100) * int(a.wins[20]) / a.n_dealer_hands - Fraction(int(a.losses[20]), a.n_dealer_hands)


def test_table_is_deterministic_and_keyed():
    g = Game("asia", "asia-000")
    assert np.array_equal(build_dealer_table(g, universe=16), build_dealer_table(g, universe=16))
    base = table_key(g)
    assert table_key(Game("asia", "asia-borgata")) != base
    assert table_key(Game("asia", "asia-000", AsiaRules(ace_low_straight="second_highest"))) != base
    assert table_key(g, universe=20) != base
    # commission does not change how hands rank: same table
    assert table_key(Game("paigow", rules=PaiGowRules(commission=0))) == table_key(Game("paigow"))


def test_corrupt_cached_table_is_rebuilt(tmp_path, monkeypatch):
    from splitpoker.envs.rules import cache

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    g = Game("paigow", "paigow-igw")
    first = np.array(dealer_table(g, universe=16))
    path, _ = cache.entry_paths(f"dealer-{g.game}-{g.style.value}", table_key(g, 16))
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0x55
    path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="corrupt"):
        again = dealer_table(g, universe=16)
    assert np.array_equal(first, again)


def test_pool_errors(small):
    game, solver = small
    with pytest.raises(ValueError, match="overlaps"):
        solver.solve("As Kd Qh Jc Ts JK 2h", pool=np.arange(K))
    with pytest.raises(ValueError, match="outside this dealer table"):
        solver.solve("As Kd Qh Jc Ts JK 9c", pool=np.arange(30))


# ---- the full tables (built once per CI run and cached; ~1 min each) -------------------------

@pytest.fixture(scope="module")
def asia_full():
    g = Game("asia", "asia-000")
    return g, ExactSolver(g)


@pytest.mark.slow
def test_full_pool_equals_brute_force(asia_full):
    game, solver = asia_full
    cards = "Ah Kd 9s 9c 6h 4d 2c"
    fast = solver.solve(cards)
    assert fast.n_dealer_hands == 53_524_680
    slow = solve_naive(game, cards)
    assert np.array_equal(fast.wins, slow.wins) and np.array_equal(fast.losses, slow.losses)


@pytest.mark.slow
def test_exact_agrees_with_monte_carlo(asia_full):
    game, solver = asia_full
    rng = np.random.default_rng(11)
    for _ in range(4):
        hand = np.sort(rng.choice(53, 7, replace=False))
        exact = solver.solve(hand)
        mean, se = game.monte_carlo(hand, 20_000, seed=5)
        ok = ~exact.fouled
        z = np.abs(exact.ev[ok] - mean[ok]) / np.maximum(se[ok], 1e-9)
        assert z.max() < 5.0


@pytest.mark.slow
def test_optimal_agent_matches_analyze_exact(asia_full):
    import gymnasium as gym

    import splitpoker  # noqa: F401
    from splitpoker.agents.policies.baselines import OptimalPolicy

    game, solver = asia_full
    env = gym.make("splitpoker/AsiaPokerSetting-v0")
    pol = OptimalPolicy.from_env(env, solver=solver)
    obs, info = env.reset(seed=7)
    action = pol.act(obs, info["action_mask"])
    cards = " ".join(info["cards"].split())
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "analyze.py"), "--game", "asia", "--exact", cards, "--json"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert action - env.unwrapped.setting_offset == rep["optimal_setting"]
    assert rep["settings"][0]["method"] == "exact" and rep["settings"][0]["optimal"]
    assert rep["house_way_gives_up"] >= 0


@pytest.mark.slow
def test_evaluate_regret_tiny(asia_full, tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "evaluate.py"), "--model", "random", "--model", "house-way",
                          "--hands", "12", "--regret", "--json", "--plot", str(tmp_path / "e.png")],
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)["regret"]
    assert rep["optimal"]["mean_regret"] == 0.0
    assert rep["house-way"]["mean_regret"] >= 0 and rep["random"]["mean_regret"] > rep["house-way"]["mean_regret"]
    assert (tmp_path / "e_regret.png").exists()
