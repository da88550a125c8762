"""Bankroll-session DP: closed forms (gambler's ruin, bold play in red-and-black), a brute-force
expectimax on a toy game with pushes and a bonus, the bankroll grid, bold/flat rules, errors."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from splitpoker.agents.sessions import dp as sd
from splitpoker.agents.sessions.round_distribution import RoundDistribution


def toy(p_win, p_push=0.0, win=1.0, bonus_odds=(), bonus_prob=None, cap=None):
    """A round distribution: main win/push/loss; optional bonus columns (independent of main)."""
    main = np.array([p_win, p_push, 1.0 - p_win - p_push])
    cols = np.array([1.0]) if bonus_prob is None else np.asarray(bonus_prob)
    return RoundDistribution("toy", "toy", "house-way", (win, 0.0, -1.0), tuple(bonus_odds), cap,
                             main[:, None] * cols[None, :], (0.0, 0.0, 0.0))


def ruin_formula(p, i, n):
    """Gambler's ruin with unit bets: P(reach n from i) = (1 - r^i) / (1 - r^n), r = q/p."""
    r = (1 - p) / p
    return (1 - r ** i) / (1 - r ** n)


@pytest.mark.parametrize("p", [0.45, 0.55])
def test_flat_betting_is_gamblers_ruin(p):
    table = sd.BetTable.from_levels([1, 2, 5], [0])
    for bankroll, target in ((3, 10), (7, 12), (1, 4)):
        got, _, _ = sd.policy_success(toy(p), table, bankroll, target, lambda b: sd.flat_action(table))
        assert got == pytest.approx(ruin_formula(p, bankroll, target), abs=1e-12)


def test_subfair_optimum_is_bold_play():
    # red-and-black with integer stakes (Dubins-Savage): bold play is optimal when p < 1/2
    p = 0.4
    table = sd.BetTable.from_levels(range(1, 11), [0])
    for bankroll, target in ((3, 10), (5, 16), (7, 20)):
        dist = toy(p)
        sol = sd.solve(dist, table, bankroll, target)
        bold, _, _ = sd.policy_success(dist, table, bankroll, target, lambda b: sd.bold_action(table, dist, b, target))
        flat, _, _ = sd.policy_success(dist, table, bankroll, target, lambda b: sd.flat_action(table))
        assert sol.success(bankroll) == pytest.approx(bold, abs=1e-12)
        assert bold > flat
    # worked example: 1 -> 2 -> 4 doubling from 1 to target 4 needs two wins: p^2; from 2: p; from 3:
    # bet 1 (win -> 4; lose -> 2): p + q p
    sol = sd.solve(toy(p), sd.BetTable.from_levels([1, 2, 3], [0]), 1, 4)
    assert sol.values[1:4] == pytest.approx([p * p, p, p + (1 - p) * p], abs=1e-12)


def test_superfair_optimum_is_timid():
    # a positive edge: the minimum bet every hand is optimal (and bold play is worse)
    p = 0.55
    table = sd.BetTable.from_levels([1, 2, 4, 8], [0])
    dist = toy(p)
    sol = sd.solve(dist, table, 6, 16)
    assert sol.success(6) == pytest.approx(ruin_formula(p, 6, 16), abs=1e-12)
    assert all(r["main"] == 1 for r in sol.bet_rows())
    bold, _, _ = sd.policy_success(dist, table, 6, 16, lambda b: sd.bold_action(table, dist, b, 16))
    assert bold < sol.success(6)


def expectimax(dist, table, b, target, hands, min_bet):
    """Brute force over every bet sequence of ``hands`` hands, exact rationals."""
    if b >= target:
        return Fraction(1)
    if b < min_bet or hands == 0:
        return Fraction(0)
    best = Fraction(0)
    probs = [[Fraction(x).limit_denominator(10**6) for x in row] for row in dist.prob]
    for m, k in table.bets:
        if m + k > b:
            continue
        amounts = sd.outcome_amounts(dist, m, k)
        v = sum(probs[i][j] * expectimax(dist, table, b + Fraction(amounts[i, j]).limit_denominator(100), target,
                                          hands - 1, min_bet)
                for i, j in itertools.product(range(3), range(amounts.shape[1])) if probs[i][j] > 0)
        best = max(best, v)
    return best


def test_hand_limit_matches_brute_force_with_push_commission_and_bonus():
    # Pai Gow-like: win pays 0.95, pushes, a bonus that pays 4:1 (capped at 10 chips) on 20% of hands
    dist = toy(0.29, 0.41, win=0.95, bonus_odds=(4.0,), bonus_prob=[0.8, 0.2], cap=10.0)
    table = sd.BetTable.from_levels([1, 2, 4], [0, 1, 3])
    for bankroll, target, hands in ((4, 8, 3), (2, 6, 3), (5, 7, 2)):
        sol = sd.solve(dist, table, bankroll, target, hands=hands)
        ref = float(expectimax(dist, table, Fraction(bankroll), target, hands, 1))
        assert sol.success(bankroll) == pytest.approx(ref, abs=1e-9)
    assert sol.model.grid == 0.05


def test_no_limit_is_the_limit_of_long_horizons():
    dist = toy(0.29, 0.41, win=0.95, bonus_odds=(4.0,), bonus_prob=[0.8, 0.2], cap=10.0)
    table = sd.BetTable.from_levels([1, 2, 4], [0, 1, 3])
    inf = sd.solve(dist, table, 4, 9)
    long = sd.solve(dist, table, 4, 9, hands=3000)
    assert inf.success(4) == pytest.approx(long.success(4), abs=1e-9)
    assert inf.success(4) >= sd.solve(dist, table, 4, 9, hands=5).success(4)


def test_grid_of_default_tables():
    from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig

    asia = toy(0.47, 0.0, bonus_odds=(5000, 800, 200, 50, 40, 25, 5, 4, 3, 2, 10), bonus_prob=[0.5] + [0.5 / 11] * 11,
               cap=50_000.0)
    assert sd.grid_size(asia, sd.BetTable.from_config(AsiaPokerConfig()), 100, 200) == 5
    paigow = toy(0.29, 0.41, win=0.95, bonus_odds=(2500, 1000, 750, 250, 125, 50, 25, 5, 4, 3, 2),
                 bonus_prob=[0.5] + [0.5 / 11] * 11)
    assert sd.grid_size(paigow, sd.BetTable.from_config(PaiGowPokerConfig()), 100, 200) == Fraction(1, 4)


def test_bold_and_flat_rules():
    table = sd.BetTable.from_levels([5, 10, 25, 50], [0, 5])
    dist = toy(0.45, win=0.95)
    assert table.bets[sd.flat_action(table)] == (5.0, 0.0)
    assert table.bets[sd.bold_action(table, dist, 30, 50)] == (25.0, 0.0)  # needs 20: a win of 25 pays 23.75
    assert table.bets[sd.bold_action(table, dist, 40, 50)] == (25.0, 0.0)  # needs 10: 10 pays only 9.5
    assert table.bets[sd.bold_action(table, dist, 12, 100)] == (10.0, 0.0)  # all it can: largest covered level


@pytest.mark.parametrize("bankroll,target,match", [
    (0, 100, "bankroll=0"), (-5, 100, "bankroll=-5"), (100, 0, "target=0"), (100, 100, "target=100"),
    (100, 50, "target=50"), (3, 100, "below the smallest bet"), (float("nan"), 100, "bankroll=nan")])
def test_bad_sessions(bankroll, target, match):
    with pytest.raises(ValueError, match=match):
        sd.solve(toy(0.45), sd.BetTable.from_levels([5, 10], [0]), bankroll, target)


def test_bad_hands_and_too_many_states():
    table = sd.BetTable.from_levels([1], [0])
    with pytest.raises(ValueError, match="hands=0"):
        sd.solve(toy(0.45), table, 5, 10, hands=0)
    with pytest.raises(ValueError, match="states"):
        sd.solve(toy(0.45), table, 5, 10 * sd.MAX_STATES)


def test_optimal_distribution_is_house_way_plus_paired_gain():
    from splitpoker.agents.sessions.round_distribution import optimal_distribution
    from splitpoker.envs.rules.game import Game

    game = Game("paigow")
    hw = RoundDistribution("paigow", "paigow-igw", "house-way", (0.95, 0.0, -1.0), (4.0,), None,
                           np.array([[0.20, 0.08], [0.38, 0.04], [0.29, 0.01]]), (0.001, 0.001, 0.001))
    n = 1000
    sample = {"game": ["paigow"] * 2, "style": ["paigow-igw"] * 2, "seed": [1, 1], "max_pool_card": [53, 53],
              "n_dealer_hands": [n, n], "house_way_wins": [300, 200], "house_way_pushes": [400, 400],
              "house_way_losses": [300, 400], "optimal_wins": [310, 210], "optimal_pushes": [400, 400],
              "optimal_losses": [290, 390]}
    d = optimal_distribution(game, None, sample, hw)
    assert d.main == pytest.approx(hw.main + [0.01, 0.0, -0.01], abs=1e-12)  # both hands gain 1 point
    assert d.prob.sum() == pytest.approx(1.0) and d.setter == "optimal"
    assert d.prob.sum(axis=0) == pytest.approx(hw.prob.sum(axis=0), abs=0.02)  # the bonus marginal barely moves
    assert d.main_ci95[0] == pytest.approx(0.001, abs=1e-12)  # identical gains: only the simulation's error left
    with pytest.raises(ValueError, match="asia-000"):
        optimal_distribution(Game("asia"), None, sample, hw)


def test_the_simulation_in_chunks_counts_what_one_call_counts():
    """The round-joint simulation runs in chunks (so Ctrl-C is seen within seconds); the deal is
    counter-based, so the chunks add up to the counts of one call over all the rounds."""
    import numba

    from splitpoker.agents.sessions.round_distribution import simulate_joint
    from splitpoker.envs.rules.bonus.features import N_FEATURE_CODES
    from splitpoker.envs.rules.game import Game

    game = Game("paigow", "paigow-igw")
    loc = game.bonus_paytable.line_of_code.astype(np.int64)
    cols = int(loc.max()) + 2
    shape = (numba.config.NUMBA_NUM_THREADS, 3, cols)
    one, chunked = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    simulate_joint(game.style_id, 11, 0, 3000, game.rank_table, game.to_two, game.bonus_categories, loc, one)
    for start, n in ((0, 1000), (1000, 1500), (2500, 500)):
        simulate_joint(game.style_id, 11, start, n, game.rank_table, game.to_two, game.bonus_categories, loc, chunked)
    assert one.sum() == 3000 and np.array_equal(one.sum(axis=0), chunked.sum(axis=0))
    other = np.zeros(shape, np.int64)  # and the rounds do differ: another range counts otherwise
    simulate_joint(game.style_id, 11, 3000, 3000, game.rank_table, game.to_two, game.bonus_categories, loc, other)
    assert not np.array_equal(one.sum(axis=0), other.sum(axis=0))
    assert loc.shape == (N_FEATURE_CODES,)
