"""Session environments: both checkers, bad input at gym.make, masks, invalid-action semantics,
bankroll accounting against the rounds' chips, common random numbers, episode ends, rewards."""

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import splitpoker  # noqa: F401
from splitpoker.envs.session import N_SESSION_FEATURES

IDS = ["splitpoker/AsiaPokerSession-v0", "splitpoker/PaiGowPokerSession-v0"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kwargs", [{}, {"setting": "agent"}, {"max_hands": 5, "target": None, "reward": "log"}])
def test_checkers_default_kwargs(env_id, kwargs):
    gym_check_env(gym.make(env_id, **kwargs).unwrapped)
    sb3_check_env(gym.make(env_id, **kwargs).unwrapped)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kwargs,match", [
    ({"bankroll": 0}, "bankroll=0"), ({"bankroll": -10}, "bankroll=-10"), ({"target": 0}, "target=0"),
    ({"bankroll": 100, "target": 100}, "target=100"), ({"bankroll": 100, "target": 60}, "target=60"),
    ({"bankroll": 3, "target": 60}, "bankroll=3 is below the smallest bet"),
    ({"target": None}, "target=None and max_hands=None"), ({"max_hands": 0}, "max_hands=0"),
    ({"reward": "money"}, "reward='money'"), ({"setting": "dealer"}, "setting='dealer'"),
    ({"target": None, "max_hands": 3}, "reward='target' needs a target"),
    ({"bankroll": float("inf")}, "bankroll=inf"), ({"invalid_action": "ignore"}, "invalid_action='ignore'")])
def test_bad_input_at_make(env_id, kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("value,match", [
    (float("nan"), "invalid_action_penalty=nan: expected a finite number >= 0"),
    (float("inf"), "invalid_action_penalty=inf: expected a finite number >= 0"),
    (-5, "invalid_action_penalty=-5: expected a finite number >= 0"),  # was a reward of +5 for an invalid action
    (True, r"invalid_action_penalty=True \(bool\): expected a finite number >= 0"),
    ("abc", r"invalid_action_penalty='abc' \(str\): expected a finite number >= 0")])
def test_the_invalid_action_penalty_is_checked_as_the_single_envs_check_it(env_id, value, match):
    """NaN, -5, inf and True were accepted, "abc" failed without naming the field; the single
    envs' config refuses each with the same message."""
    from splitpoker.envs.config import AsiaPokerConfig

    with pytest.raises(ValueError, match=match):
        AsiaPokerConfig(invalid_action_penalty=value)
    with pytest.raises(ValueError, match=match):
        gym.make(env_id, invalid_action_penalty=value)
    for ok in (0, 2.5, np.float32(1.5)):
        assert gym.make(env_id, invalid_action_penalty=ok).unwrapped.invalid_action_penalty == float(ok)


def test_table_limits_that_make_no_bet_possible():
    with pytest.raises(ValueError, match="below the smallest bet"):
        gym.make(IDS[0], bankroll=20, target=100, table={"ante_levels": [25, 50], "ante_min": 25, "setting_ante": 25})
    with pytest.raises(ValueError, match="ante_levels level 2000"):
        gym.make(IDS[0], table={"ante_levels": [2000]})


def test_masks_follow_the_bankroll_and_bets_above_it_are_penalized():
    env = gym.make(IDS[0], bankroll=30, target=100).unwrapped
    obs, info = env.reset(seed=0)
    bets = env.bet_table
    assert np.array_equal(info["action_mask"], [m + b <= 30 for m, b in bets])
    assert obs.shape == (N_SESSION_FEATURES,) and obs[0] == pytest.approx(0.3) and obs[1] == pytest.approx(5 / 30)
    big = next(a for a, (m, b) in enumerate(bets) if m + b > 30)
    obs, r, term, trunc, info = env.step(big)
    assert term and r == -1.0 and info["invalid_action"] == big and "more than the bankroll $30" in info["reason"]
    with pytest.raises(ValueError, match="after the session ended"):
        env.step(0)
    raising = gym.make(IDS[0], bankroll=30, target=100, invalid_action="raise").unwrapped
    raising.reset(seed=0)
    with pytest.raises(ValueError, match=f"action {big} is illegal in the bet phase"):
        raising.step(big)


def test_agent_setting_phases_and_fouls_played():
    env = gym.make(IDS[0], bankroll=50, target=100, setting="agent").unwrapped
    obs, info = env.reset(seed=1)
    assert info["phase"] == "bet" and obs[5] == 0
    obs, r, term, _, info = env.step(0)  # $5 ante, no bonus
    assert info["phase"] == "set" and r == 0.0 and not term and obs[5] == 1 and obs[N_SESSION_FEATURES:].sum() > 0
    assert np.array_equal(info["action_mask"][env.setting_offset:], ~env.round.fouled)
    fouled = np.flatnonzero(env.round.fouled)
    assert fouled.size  # seed 1's hand has a fouled setting
    obs, r, term, _, info = env.step(env.setting_offset + int(fouled[0]))
    assert info["round"]["fouled"] and info["round"]["main_chips"] == -5.0 and info["bankroll"] == 45.0
    env.reset(seed=1)
    env.step(0)
    obs, r, term, _, info = env.step(1)  # a bet in the set phase: wrong phase, penalised end
    assert term and r == -1.0 and "bets are over" in info["reason"]


@pytest.mark.parametrize("env_id", IDS)
def test_the_set_phase_shows_the_rounds_mask_so_mask_fouls_off_marks_every_setting(env_id):
    # the set phase's mask is the round's: with the table's mask_fouls=False a fouled setting is a
    # legal action (it is played and loses the main wager), as in the single-round env
    for seed in range(20):  # a hand with a fouled setting
        env = gym.make(env_id, bankroll=50, target=100, setting="agent", table={"mask_fouls": False}).unwrapped
        env.reset(seed=seed)
        _, _, _, _, info = env.step(0)  # the smallest main wager, no bonus
        if env.round.fouled.any():
            break
    assert env.round.fouled.any()
    assert info["action_mask"][env.setting_offset:].all() and not info["action_mask"][:env.setting_offset].any()
    foul = int(np.flatnonzero(env.round.fouled)[0])
    _, r, term, _, info = env.step(env.setting_offset + foul)
    main = env.bet_table[0][0]
    assert info["round"]["fouled"] and info["round"]["main_chips"] == -main and info["bankroll"] == 50 - main
    assert not term and info["phase"] == "bet" and info.get("invalid_action", -1) == -1
    masked = gym.make(env_id, bankroll=50, target=100, setting="agent").unwrapped
    masked.reset(seed=seed)
    _, _, _, _, info = masked.step(0)
    assert np.array_equal(info["action_mask"][masked.setting_offset:], ~masked.round.fouled)


@pytest.mark.parametrize("env_id", IDS)
def test_the_hands_phase_is_the_rounds_and_a_reset_mid_hand_abandons_it(env_id):
    env = gym.make(env_id, bankroll=50, target=100, setting="agent").unwrapped
    env.reset(seed=3)
    _, _, _, _, info = env.step(2)  # a bet: the round's kernel is in its set phase
    assert env.round.phase.name == "SET" and info["phase"] == "set" and env.in_set_phase
    main, bonus = env.bet_table[2]
    obs, info = env.reset(seed=4)  # mid-hand: the hand is abandoned, nothing settles
    assert info["phase"] == "bet" and obs[5] == 0 and info["bankroll"] == 50 and info["hands_played"] == 0
    assert env.round.phase.name != "SET" and not info["action_mask"][env.setting_offset:].any()
    # a bet sent in the set phase: the round's kernel forfeits the hand's wagers (the round's own
    # penalty is 0), the session's reward takes the penalty
    env.step(2)
    _, r, term, _, info = env.step(0)
    assert term and info["end"] == "invalid action" and info["bankroll"] == 50 - main - bonus
    assert info["round"]["net_chips"] == -(main + bonus) and env.round.phase.name == "DONE"
    assert r == pytest.approx(0.0 - 1.0)  # reward 'target': 0 for a session that missed it, less the penalty


def test_bankroll_accounting_and_episode_ends():
    for env_id in IDS:
        env = gym.make(env_id, bankroll=100, target=150, reward="bankroll").unwrapped
        rng = np.random.default_rng(0)
        ends = set()
        for ep in range(60):
            obs, info = env.reset(seed=ep)
            total, chips = 0.0, 0.0
            while True:
                a = int(rng.choice(np.flatnonzero(info["action_mask"])))
                obs, r, term, trunc, info = env.step(a)
                assert env.observation_space.contains(obs) and not trunc
                total += r
                chips += info["round"]["net_chips"]
                if term:
                    break
            assert info["bankroll"] == pytest.approx(100 + chips)
            assert total == pytest.approx(chips / env.unit)
            ends.add(info["end"])
            assert (info["end"] == "target") == (info["bankroll"] >= 150) == info["reached_target"]
            if info["end"] == "ruin":
                assert info["bankroll"] < env.min_bet
        assert ends == {"target", "ruin"}


def test_rewards_target_log_and_hand_limit():
    env = gym.make(IDS[1], bankroll=100, target=1000, max_hands=3, reward="log").unwrapped
    obs, info = env.reset(seed=4)
    assert obs[2] == 1.0 and obs[3] == 1.0
    total = 0.0
    for k in range(3):
        obs, r, term, _, info = env.step(0)
        total += r
        assert obs[2] == pytest.approx((3 - k - 1) / 3) and info["hands_left"] == 2 - k
    assert term and info["end"] == "hand limit"
    assert total == pytest.approx(math.log1p(info["bankroll"] / 5) - math.log1p(100 / 5))
    env = gym.make(IDS[0], bankroll=5, target=10).unwrapped  # one $5 hand: target or ruin
    rewards = []
    for seed in range(20):
        env.reset(seed=seed)
        _, r, term, _, info = env.step(0)
        assert term and r == float(info["end"] == "target")
        rewards.append(r)
    assert 0 < sum(rewards) < 20


def test_common_random_numbers_and_determinism():
    # hand k of a session seeded s has the same cards whatever was bet before
    cards = []
    for action in (0, 6):  # $5 vs $10 ante
        env = gym.make(IDS[0], bankroll=500, target=1000, max_hands=5).unwrapped
        obs, info = env.reset(seed=11)
        seen = []
        while True:
            obs, r, term, _, info = env.step(action)
            seen.append((info["round"]["cards"], info["round"]["dealer_cards"]))
            if term:
                break
        cards.append(seen)
    n = min(len(cards[0]), len(cards[1]))
    assert n >= 3 and cards[0][:n] == cards[1][:n]


def test_callable_setter_is_used():
    from splitpoker.envs.rules.game import Game

    game, calls = Game("asia"), []

    def first_legal(cards):
        calls.append(cards)
        return int(np.flatnonzero(~game.settings(cards)[1])[0])

    env = gym.make(IDS[0], bankroll=50, target=100, setting=first_legal).unwrapped
    env.reset(seed=0)
    _, _, _, _, info = env.step(0)
    assert len(calls) == 1 and calls[0].shape == (7,) and not info["round"]["fouled"]
    assert info["round"]["setting"] == first_legal(calls[0])


def test_exact_success_of_a_policy_read_off_the_env():
    from test_session_dp import toy

    from splitpoker.agents.sessions import dp as sd
    from splitpoker.agents.sessions.evaluation import RulePolicy, dp_baselines, exact_policy_success

    env = gym.make(IDS[1], bankroll=40, target=80)  # Pai Gow: 0.95 wins, pushes
    dist = toy(0.29, 0.41, win=0.95, bonus_odds=(2500, 1000, 750, 250, 125, 50, 25, 5, 4, 3, 2),
               bonus_prob=[0.8] + [0.2 / 11] * 11)
    policies, exact, sol = dp_baselines(env, dist)
    for name in ("bold", "flat", "optimal (DP)"):
        got, rows = exact_policy_success(env, policies[name], dist)
        assert got == pytest.approx(exact[name], abs=1e-12) and rows[0]["bankroll"] == 5.0
    assert exact["optimal (DP)"] >= exact["bold"] > exact["flat"]
    greedy = RulePolicy(lambda b: len(env.unwrapped.bet_table) - 1, "all in")  # masked at small bankrolls
    assert exact_policy_success(env, greedy, dist)[0] == 0.0
    assert sd.grid_size(dist, sd.BetTable(tuple(env.unwrapped.bet_table)), 40, 80) == 0.25
