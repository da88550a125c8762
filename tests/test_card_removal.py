"""The strategy table with card removal (agents/policies/card_removal.py): the per-card arrays equal
a brute force on a small card universe, the values are the table plus the exact effects of
removal of the hand's cards, the ``table-eor`` policy plays their argmax, the arrays are cached;
and (slow, full tables) it plays almost every seeded Pai Gow hand exactly optimally."""

import math

import gymnasium as gym
import numba
import numpy as np
import pytest

import splitpoker  # noqa: F401
from splitpoker.agents.policies.baselines import BASELINES, RemovalTablePolicy, make_baseline
from splitpoker.agents.policies.card_removal import (
    N_CARDS,
    RemovalTable,
    best_value,
    build_without,
    removal_key,
)
from splitpoker.agents.policies.strategy_table import StrategyTable
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver.dealer_table import build_dealer_table, n_classes
from splitpoker.envs.solver.exact import ExactSolver, prefix_counts, solve_naive

K = 16  # cards 0..15 (2s to 5s): C(15, 7) = 6,435 dealer hands without one of them
GAMES = [("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")]
HANDS = ["2s 2h 3d 4c Ks JK 9h", "2s 3s 4s 5s 5h 5d 9c", "As Kd Qh Jc Ts JK 9h"]


_DEALERS = {}


def rt_dealer(game):
    """The dealer table of the small universe (one per game and style)."""
    key = (game.game, game.style.value)
    if key not in _DEALERS:
        _DEALERS[key] = build_dealer_table(game, universe=K)
    return _DEALERS[key]


@pytest.fixture(scope="module", params=GAMES)
def small(request):
    game = Game(*request.param)
    dealer = rt_dealer(game)
    table = StrategyTable(game, universe=K, dealer=dealer, use_cache=False)
    return game, RemovalTable(game, universe=K, dealer=dealer, table=table, use_cache=False)


@pytest.mark.parametrize("cards", HANDS)
def test_removing_a_card_equals_brute_force(small, cards):
    game, rt = small
    hand = game.hand(cards)
    ranks, fouled = game.settings(hand)
    for c in [0, 5, 11, 15, 16, 52]:
        got = rt.removed(c, np.asarray(ranks, np.int64), fouled, hand)
        # brute force: the house way on every dealer hand of the universe without card c
        pool = np.array([x for x in range(K) if x != c])
        slow = solve_naive(game, cards, pool=pool)
        assert got.n_dealer_hands == slow.n_dealer_hands == math.comb(pool.size, 7)
        for field in ("wins", "pushes", "losses"):
            assert np.array_equal(getattr(got, field), getattr(slow, field)), (c, field)


def test_arrays_equal_one_histogram_per_card_without_it(small):
    """The one-pass count by card equals the direct way: one histogram of the universe without c
    per card (the exact solver's own kernel), on 2 block sizes (one block, and blocks of 3 cards)."""
    game, rt = small
    solver = ExactSolver(game, table=rt_dealer(game))
    cards = np.arange(K)
    direct = np.stack([prefix_counts(game, solver.histogram(cards[cards != c]))
                       for c in range(N_CARDS)])
    assert np.array_equal(rt.without, direct)
    import splitpoker.envs.solver.exact as exact

    small_blocks = 3 * 4 * n_classes(game) * numba.config.NUMBA_NUM_THREADS
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact, "BY_CARD_BYTES", small_blocks)
        assert np.array_equal(build_without(game, K, dealer=rt_dealer(game)), direct)


@pytest.mark.parametrize("cards", HANDS)
def test_values_are_the_table_plus_the_effects_of_removal(small, cards):
    game, rt = small
    hand = game.hand(cards)
    table = rt.table.evaluate(cards)
    expected = table.ev.copy()
    for c in hand.tolist():
        pool = np.array([x for x in range(K) if x != c])
        expected += solve_naive(game, cards, pool=pool).ev - table.ev
    expected[table.fouled] = -1.0
    assert np.allclose(rt.values(cards), expected, rtol=0, atol=1e-12)
    if not (hand < K).any():  # no card of the universe held: nothing is removed
        assert np.array_equal(rt.values(cards)[~table.fouled], table.ev[~table.fouled])


def test_best_value_ties_and_masks():
    v = np.array([0.1, 0.3, 0.3, 0.5, -1.0])
    fouled = np.array([False, False, False, True, True])
    assert best_value(v, fouled, house=2) == 2  # the house way among the best
    assert best_value(v, fouled, house=0) == 1  # else the lowest index
    assert best_value(v, fouled, house=0, legal=np.array([True, False, False, True, True])) == 0
    # every legal setting fouls: the best legal one anyway
    assert best_value(v, fouled, house=0, legal=np.array([False, False, False, True, True])) == 3


def test_policy_plays_the_argmax_and_respects_masks(small):
    game, rt = small
    env = gym.make("splitpoker/AsiaPokerSetting-v0" if game.game == "asia" else "splitpoker/PaiGowPokerSetting-v0",
                   house_way=game.style.value)
    assert BASELINES["table-eor"] is RemovalTablePolicy
    policy = make_baseline("table-eor", env, table=rt)
    obs, info = env.reset(seed=0)
    hand = env.unwrapped.player
    mask = np.asarray(info["action_mask"], dtype=bool)
    off, n = env.unwrapped.setting_offset, env.unwrapped.n_settings
    a = policy.act(obs, mask)
    assert a - off == rt.best(hand, mask[off:off + n])
    v = rt.values(hand)
    assert v[a - off] == v[mask[off:off + n] & ~np.asarray(game.settings(game.hand(hand))[1])].max()
    legal = mask.copy()
    legal[a] = False
    assert policy.act(obs, legal) != a


def test_cached_arrays_load_again(tmp_path, monkeypatch):
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path))
    game = Game("paigow", "paigow-igw")
    dealer = build_dealer_table(game, universe=K)
    table = StrategyTable(game, universe=K, dealer=dealer, use_cache=False)
    first = RemovalTable(game, universe=K, dealer=dealer, table=table)
    assert first.without.shape == (N_CARDS, *table.prefix.shape)
    assert len(list(tmp_path.glob("removal-paigow-paigow-igw-*.npy"))) == 1
    again = RemovalTable(game, universe=K, dealer=np.zeros(1, np.int32), table=table)  # a broken dealer: not used
    assert np.array_equal(np.asarray(again.without), np.asarray(first.without))
    assert removal_key(game, K) != removal_key(Game("paigow", "paigow-igw"), 53)
    with pytest.raises(ValueError, match="another game or universe"):
        RemovalTable(game, universe=K + 1, dealer=dealer, table=table, use_cache=False)


@pytest.mark.slow
def test_full_table_plays_pai_gow_optimally():
    from splitpoker.agents.evaluation.evaluate import hand_seeds
    from splitpoker.envs.solver.exact import ExactSolver

    env = gym.make("splitpoker/PaiGowPokerSetting-v0", house_way="paigow-igw")
    game = env.unwrapped.game
    rt = RemovalTable(game)
    solver = ExactSolver(game)
    optimal = 0
    for s in hand_seeds(7, 30):
        env.reset(seed=s)
        hand = env.unwrapped.player
        ev = solver.solve(hand).ev
        optimal += ev[rt.best(hand)] == ev.max()
    # measured: 99.8% of 500 held-out hands (docs/training.md, "Card removal")
    assert optimal >= 28
