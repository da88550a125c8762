"""Strategy table: equal to brute force on a small card universe (dealer hands that may share the
player's cards: no card removal), cached and rebuilt when corrupt, the ``table`` policy, and its
exact regret against the house way's on a fixed sample (slow: full tables)."""

import math

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401
from splitpoker.agents.policies.baselines import BASELINES, StrategyTablePolicy, make_baseline
from splitpoker.agents.policies.strategy_table import (
    StrategyTable,
    best_setting,
    build_histogram,
    strategy_key,
)
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.solver.dealer_table import build_dealer_table
from splitpoker.envs.solver.exact import ExactSolver, solve_naive

K = 16  # cards 0..15 (2s to 5s): C(16, 7) = 11,440 dealer hands
GAMES = [("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")]


@pytest.fixture(scope="module", params=GAMES)
def small(request):
    game = Game(*request.param)
    dealer = build_dealer_table(game, universe=K)
    return game, dealer, StrategyTable(game, universe=K, dealer=dealer, use_cache=False)


# the first two hands hold cards of the universe: the table ignores that (no card removal)
@pytest.mark.parametrize("cards", ["2s 2h 3d 4c Ks JK 9h", "As Kd Qh Jc Ts JK 9h", "9s 9h 9d Kc Ks 5h 5s"])
def test_table_equals_brute_force_without_card_removal(small, cards):
    game, _, table = small
    # brute force: the house way for every 7-card dealer hand of the universe, overlapping or not
    slow = solve_naive(game, cards, pool=np.arange(K))
    fast = table.evaluate(cards)
    assert fast.n_dealer_hands == slow.n_dealer_hands == math.comb(K, 7) == 11_440
    for field in ("wins", "pushes", "losses", "fouled"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field
    assert np.allclose(fast.ev, slow.ev, rtol=0, atol=1e-15)


def test_grid_and_counts_agree(small):
    game, _, table = small
    grid = table.ev_grid()
    ranks, fouled = game.settings(game.hand("As Kd Qh Jc Ts JK 9h"))
    r = table.counts(ranks, fouled)
    assert np.allclose(grid[tuple(ranks[~fouled].T)], r.ev[~fouled], rtol=0, atol=1e-15)
    assert np.all(r.ev[fouled] == -1.0)
    # a stronger high (back) hand never lowers the table EV, other values fixed
    assert np.all(np.diff(grid, axis=0) >= -1e-15)


def test_histogram_is_deterministic(small):
    game, dealer, table = small
    serial = ExactSolver(game, table=dealer).histogram(np.arange(K), parallel=False)
    assert np.array_equal(serial, table.histogram)
    assert np.array_equal(build_histogram(game, K, dealer=dealer), table.histogram)


def test_best_setting_is_the_exact_argmax_and_prefers_the_house_way(small):
    game, _, table = small
    cards = "As Kd Qh Jc Ts JK 9h"
    r = table.evaluate(cards)
    house = game.house_way(r.cards).setting
    s = table.best(cards)
    assert not r.fouled[s] and r.ev[s] == r.ev[~r.fouled].max()
    # ties: the house way wins when it is among the best, else the lowest index
    assert best_setting(r, s) == s
    legal = ~r.fouled
    legal[s] = False
    s2 = best_setting(r, house, legal)
    assert s2 != s and r.ev[s2] == r.ev[legal].max()


def test_cache_key_and_corrupt_entry_is_rebuilt(tmp_path, monkeypatch):
    from splitpoker.envs.rules import cache

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    g = Game("paigow", "paigow-igw")
    dealer = build_dealer_table(g, universe=K)
    first = np.array(StrategyTable(g, universe=K, dealer=dealer).histogram)
    path, _ = cache.entry_paths(f"strategy-{g.game}-{g.style.value}", strategy_key(g, K))
    assert path.exists()
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0x55
    path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="corrupt"):
        again = StrategyTable(g, universe=K, dealer=dealer)
    assert np.array_equal(first, again.histogram)
    # commission changes the EV, not the counts: same key
    assert strategy_key(Game("paigow", rules=PaiGowRules(commission=0))) == strategy_key(g)
    assert strategy_key(Game("asia", "asia-borgata")) != strategy_key(Game("asia", "asia-000"))


def test_bad_inputs(small):
    game, dealer, table = small
    with pytest.raises(ValueError, match="universe=6"):
        build_histogram(game, 6, dealer=dealer)
    with pytest.raises(ValueError, match="expected \\(n_settings"):
        table.counts(np.zeros((3, 5), dtype=np.int64))
    with pytest.raises(ValueError, match="outside"):
        table.counts(np.full((1, len(game.slots)), 10_000))
    with pytest.raises(TypeError, match="Game"):
        StrategyTable("asia")


def test_table_policy_plays_the_table_argmax(small):
    game, _, table = small
    env_id = "splitpoker/AsiaPokerSetting-v0" if game.game == "asia" else "splitpoker/PaiGowPokerSetting-v0"
    env = gym.make(env_id, house_way=game.style.value)
    assert "table" in BASELINES
    policy = make_baseline("table", env, table=table)
    assert policy.name == "table"
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        a = policy.act(obs, info["action_mask"])
        assert a - env.unwrapped.setting_offset == table.best(env.unwrapped.player)
        assert info["action_mask"][a]
    with pytest.raises(ValueError, match="exact_margin=-1"):
        StrategyTablePolicy.from_env(env, exact_margin=-1)


# ---- full tables: C(53, 7) dealer hands, against the exact solver ----------------------------

@pytest.mark.slow
def test_table_regret_beats_the_house_way_on_a_fixed_sample():
    """Asia, asia-000: on 40 seeded hands the table policy's mean exact regret is far below the
    house way's (measured on 300 hands: 0.0004 vs 0.059; here a margin of 0.01 must hold)."""
    game = Game("asia", "asia-000")
    solver = ExactSolver(game)
    table = StrategyTable(game)
    assert int(table.histogram.sum()) == math.comb(53, 7) == 154_143_080
    rng = np.random.default_rng(2026)
    reg_table, reg_house = [], []
    for _ in range(40):
        cards = np.sort(rng.choice(53, 7, replace=False))
        r = solver.solve(cards)
        best = r.ev.max()
        reg_table.append(best - r.ev[table.best(cards)])
        reg_house.append(best - r.ev[game.house_way(cards).setting])
    assert min(reg_table) >= 0 and min(reg_house) >= 0
    assert np.mean(reg_table) + 0.01 < np.mean(reg_house)
    assert np.mean(reg_table) < 0.005
