"""An invalid action is never a bargain, in every environment with bets.

The attack (issue "Nothing exploitable, third round", High 1): bet the maximum, look at the cards,
and on a hand that would lose send a wrong-phase action instead of a setting. Under the old rule
that ended the round at the invalid-action penalty (-1 unit) and the wager was never lost: an
oracle of the house way's results made Asia +50 units a hand.

The rule (docs/rules.md, "Invalid actions"): once a wager is placed, a wrong-phase or illegal
action forfeits every wager placed (main, bonus / Fortune; Envy is no wager of its own) and the
penalty comes on top; before any wager is placed it costs the penalty alone.

Every test is paired on the same seeds. Policy A bets the maximum and plays the house way.
Policy B bets the maximum and, on every hand the house way loses, sends an illegal action instead;
it is a cheating oracle: it knows the house way's exact result on that deal, read from the env's
own settlement of the same seed (policy A's run; the test checks both runs dealt the same cards).
B's total must not exceed A's, and on every dumped hand B's reward must be exactly the worst a
hand can do when played, -(all wagers) / unit, less the penalty.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids)
from splitpoker.envs.table import asia_table_v0, paigow_table_v0

SINGLE_IDS = ["splitpoker/AsiaPoker-v0", "splitpoker/PaiGowPoker-v0"]
TABLE_IDS = ["splitpoker/AsiaTable-v0", "splitpoker/PaiGowTable-v0"]
SESSION_IDS = ["splitpoker/AsiaPokerSession-v0", "splitpoker/PaiGowPokerSession-v0"]
N_HANDS = 120


def max_bet(bet_table) -> int:
    """The bet action with the largest total wager."""
    return int(np.argmax([m + b for m, b in bet_table]))


def illegal_set_actions(n_bet: int, k: int) -> int:
    """A wrong-phase action of the set phase (a bet action), varied from hand to hand."""
    return k % n_bet


def check_paired(a: list[float], b: list[float], dumped: list[bool], worst: list[float], penalty: float) -> None:
    """B never beats A, on the total and on every hand; a dumped hand costs exactly its worst
    played result less the penalty (which is at most A's result on that hand)."""
    a, b, worst = np.array(a), np.array(b), np.array(worst)
    dumped = np.array(dumped)
    assert dumped.sum() >= 10, "the oracle found too few losing hands for the test to mean anything"
    assert np.all(worst <= a + 1e-9)  # the worst played result is a floor of what playing gets
    np.testing.assert_allclose(b[dumped], worst[dumped] - penalty, rtol=0, atol=1e-9)
    assert np.all(b <= a + 1e-9)
    assert b.sum() < a.sum()  # B pays for every dump: strictly worse


# ---- the single betting envs ---------------------------------------------------------------------
@pytest.mark.parametrize("env_id", SINGLE_IDS)
@pytest.mark.parametrize("kwargs", [{}, {"invalid_action_penalty": 0.0}, {"dealer_samples": 3},
                                    {"allow_house_way_action": True, "invalid_action_penalty": 2.5}],
                         ids=["defaults", "no-penalty", "dealer-samples", "house-way-action"])
def test_single_env_dumping_losers_never_pays(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    u = env.unwrapped
    bet, unit, penalty = max_bet(u.bet_table), u.config.unit, u.config.invalid_action_penalty
    a_rewards, b_rewards, dumped, worst = [], [], [], []
    for k in range(N_HANDS):
        seed = 1000 + k
        env.reset(seed=seed)
        _, r0, _, _, info = env.step(bet)
        cards, hw = info["cards"], info["house_way_setting"]
        _, ra, term, _, info_a = env.step(u.setting_offset + hw)  # A: the house way
        assert term and r0 == 0.0
        wagers = info_a["main_wager"] + info_a["bonus_wager"]
        env.reset(seed=seed)  # B: the same deal
        _, _, _, _, info = env.step(bet)
        assert info["cards"] == cards
        if ra < 0:  # the oracle: the house way's own settlement of this deal loses
            _, rb, term, _, info_b = env.step(illegal_set_actions(u.n_bet_actions, k))
            assert term and info_b["invalid_action"] >= 0 and info_b["setting"] == -1
            assert rb == pytest.approx(-wagers / unit - penalty)
            assert info_b["net_chips"] == pytest.approx(-wagers - penalty * unit)
            assert "forfeit" in info_b["reason"]
            assert info_b["main_wager"] + info_b["bonus_wager"] == wagers
        else:
            _, rb, _, _, _ = env.step(u.setting_offset + hw)
            assert rb == ra
        a_rewards.append(ra)
        b_rewards.append(rb)
        dumped.append(ra < 0)
        worst.append(-wagers / unit)
    check_paired(a_rewards, b_rewards, dumped, worst, penalty)


@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_single_env_illegal_bet_costs_the_penalty_alone(env_id):
    """No wager is placed yet: a setting in the bet phase costs exactly the penalty."""
    env = gym.make(env_id, invalid_action_penalty=1.5)
    u = env.unwrapped
    env.reset(seed=3)
    _, r, term, _, info = env.step(u.setting_offset + 2)
    assert term and r == -1.5 and info["net_chips"] == -1.5 * u.config.unit
    assert info["main_wager"] == 0.0 and info["bonus_wager"] == 0.0 and "bet phase" in info["reason"]


# ---- the native vector envs ----------------------------------------------------------------------
def _vector_run(env_id: str, dump: np.ndarray | None, n_envs: int, rounds: int, penalty: float):
    env = gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point",
                       invalid_action_penalty=penalty)
    u = env.unwrapped
    bet = max_bet(u.bet_table)
    env.reset(seed=77)
    rewards = np.zeros((rounds, n_envs))
    cards = np.zeros((rounds, n_envs, 7), dtype=np.int64)
    wagers = np.zeros((rounds, n_envs))
    reasons = []
    for t in range(rounds):
        _, r0, term, _, info = env.step(np.full(n_envs, bet))
        assert not term.any() and not r0.any()
        cards[t] = info["cards"]
        actions = u.setting_offset + info["house_way_setting"]
        if dump is not None:
            actions = np.where(dump[t], (t + np.arange(n_envs)) % u.n_bet_actions, actions)
        _, r, term, _, info = env.step(actions)
        assert term.all()
        rewards[t] = r
        wagers[t] = info["main_wager"] + info["bonus_wager"]
        if dump is not None and dump[t].any():
            reasons += list(info["reason"][dump[t]])
        env.step(np.zeros(n_envs, dtype=np.int64))  # NEXT_STEP autoreset: the next round
    env.close()
    return rewards, cards, wagers, u.config.unit, reasons


@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_vector_env_dumping_losers_never_pays(env_id):
    n_envs, rounds, penalty = 16, 8, 1.0
    ra, cards_a, wagers, unit, _ = _vector_run(env_id, None, n_envs, rounds, penalty)
    dump = ra < 0
    rb, cards_b, wagers_b, _, reasons = _vector_run(env_id, dump, n_envs, rounds, penalty)
    np.testing.assert_array_equal(cards_a, cards_b)  # paired: the same deals
    np.testing.assert_array_equal(wagers, wagers_b)
    check_paired(ra.ravel().tolist(), rb.ravel().tolist(), dump.ravel().tolist(), (-wagers / unit).ravel().tolist(),
                 penalty)
    assert reasons and all("forfeit" in r for r in reasons)


# ---- the single-agent table envs -----------------------------------------------------------------
@pytest.mark.parametrize("env_id", TABLE_IDS)
@pytest.mark.parametrize("other_seats", [0, 5])
def test_table_env_dumping_losers_never_pays(env_id, other_seats):
    env = gym.make(env_id, other_seats=other_seats)
    u = env.unwrapped
    seats = u.seats
    bet, unit, penalty = max_bet(seats.bet_table), seats.unit, u.config.invalid_action_penalty
    a_rewards, b_rewards, dumped, worst = [], [], [], []
    for k in range(N_HANDS // 2):
        seed = 5000 + k
        env.reset(seed=seed)
        _, r0, term, _, info = env.step(bet)
        assert r0 == 0.0 and not term
        cards, hw = info["cards"], info["house_way_setting"]
        _, ra, term, _, info_a = env.step(seats.n_bet + hw)
        assert term
        wagers = info_a["main_wager"] + info_a["bonus_wager"]
        env.reset(seed=seed)
        _, _, _, _, info = env.step(bet)
        assert info["cards"] == cards
        if ra < 0:
            _, rb, term, _, info_b = env.step(illegal_set_actions(seats.n_bet, k))
            assert term and info_b["invalid_action"] >= 0
            assert rb == pytest.approx(-wagers / unit - penalty)
            assert info_b["net_chips"] == pytest.approx(-wagers - penalty * unit)
            assert "forfeit" in info_b["reason"]
        else:
            _, rb, _, _, _ = env.step(seats.n_bet + hw)
            assert rb == ra
        a_rewards.append(ra)
        b_rewards.append(rb)
        dumped.append(ra < 0)
        worst.append(-wagers / unit)  # Envy never loses: the worst a played seat can do
    check_paired(a_rewards, b_rewards, dumped, worst, penalty)


@pytest.mark.parametrize("env_id", TABLE_IDS)
def test_table_env_illegal_bet_costs_the_penalty_alone(env_id):
    env = gym.make(env_id, invalid_action_penalty=2.0)
    u = env.unwrapped
    env.reset(seed=4)
    _, r, term, _, info = env.step(u.seats.n_bet + 1)  # a setting in the bet phase
    assert term and r == -2.0 and info["net_chips"] == -2.0 * u.seats.unit and "bet phase" in info["reason"]


# ---- the PettingZoo tables -----------------------------------------------------------------------
def _pz_round(module, seed: int, dump: dict[str, bool] | None, **kwargs):
    p = module.parallel_env(**kwargs)
    seats = p.seats
    bet = max_bet(seats.bet_table)
    p.reset(seed=seed)
    _, r0, _, _, infos = p.step({a: bet for a in p.agents})
    assert not any(r0.values())
    cards = {a: infos[a]["cards"] for a in infos}
    actions = {}
    for i, a in enumerate(p.agents):
        hw = seats.n_bet + infos[a]["house_way_setting"]
        actions[a] = (seed + i) % seats.n_bet if dump is not None and dump[a] else hw
    _, rewards, term, _, infos = p.step(actions)
    assert all(term.values())
    return rewards, infos, cards, seats.unit, p.config.invalid_action_penalty


@pytest.mark.parametrize("module", [asia_table_v0, paigow_table_v0], ids=["asia", "paigow"])
def test_pettingzoo_table_dumping_losers_never_pays(module):
    kwargs = {"num_seats": 2, "house_way_seats": 2}
    a_rewards, b_rewards, dumped, worst = [], [], [], []
    for k in range(N_HANDS // 3):
        seed = 9000 + k
        ra, info_a, cards_a, unit, penalty = _pz_round(module, seed, None, **kwargs)
        dump = {a: ra[a] < 0 for a in ra}
        rb, info_b, cards_b, _, _ = _pz_round(module, seed, dump, **kwargs)
        assert cards_a == cards_b
        for a in ra:
            wagers = info_a[a]["main_wager"] + info_a[a]["bonus_wager"]
            if dump[a]:
                assert info_b[a]["invalid_action"] >= 0
                assert rb[a] == pytest.approx(-wagers / unit - penalty)
                assert info_b[a]["net_chips"] == pytest.approx(-wagers - penalty * unit)
                assert "forfeit" in info_b[a]["reason"]
            a_rewards.append(ra[a])
            b_rewards.append(rb[a])  # a seat that played may lose Envy from a dumped seat's dead hand
            dumped.append(dump[a])
            worst.append(-wagers / unit)
    check_paired(a_rewards, b_rewards, dumped, worst, penalty)


@pytest.mark.parametrize("module", [asia_table_v0, paigow_table_v0], ids=["asia", "paigow"])
def test_pettingzoo_table_illegal_bet_and_out_of_turn(module):
    """Before any wager: the penalty alone. A seat whose round is over acts out of turn: its
    action is ignored (reward 0); an action for an agent not at the table raises."""
    p = module.parallel_env(num_seats=2, invalid_action_penalty=1.0)
    seats = p.seats
    p.reset(seed=11)
    _, r, _, _, infos = p.step({"seat_1": seats.n_bet + 4, "seat_2": max_bet(seats.bet_table)})
    assert r["seat_1"] == -1.0 and infos["seat_1"]["net_chips"] == -1.0 * seats.unit
    assert "bet phase" in infos["seat_1"]["reason"]
    hw = seats.n_bet + infos["seat_2"]["house_way_setting"]
    _, r, term, _, _ = p.step({"seat_1": 0, "seat_2": hw})  # seat 1 is out of the round
    assert r["seat_1"] == 0.0 and all(term.values())
    p.reset(seed=12)
    with pytest.raises(ValueError, match="unknown agent"):
        p.step({"seat_1": 0, "seat_2": 0, "seat_3": 0})


# ---- the session envs, setting="agent" -----------------------------------------------------------
def _expected_dump_reward(mode: str, bankroll: float, wagers: float, unit: float, penalty: float) -> float:
    if mode == "bankroll":
        return -wagers / unit - penalty
    if mode == "log":
        return math.log1p((bankroll - wagers) / unit) - math.log1p(bankroll / unit) - penalty
    return -penalty  # "target": the target is not reached


@pytest.mark.parametrize("env_id", SESSION_IDS)
@pytest.mark.parametrize("reward", ["bankroll", "log", "target"])
def test_session_dumping_losers_never_pays(env_id, reward):
    bankroll = 3000.0
    kwargs = dict(bankroll=bankroll, target=bankroll + 1 if reward == "target" else None, max_hands=1,
                  setting="agent", reward=reward)
    env = gym.make(env_id, **kwargs)
    u = env.unwrapped
    bet, unit, penalty = max_bet(u.bet_table), u.unit, u.invalid_action_penalty
    a_rewards, b_rewards, dumped, worst = [], [], [], []
    for k in range(N_HANDS):
        seed = 300 + k
        env.reset(seed=seed)
        _, _, _, _, info = env.step(bet)
        cards, hw = info["cards"], info["house_way_setting"]
        _, ra, term, _, info_a = env.step(u.setting_offset + hw)
        assert term and info_a["hands_played"] == 1
        lost = info_a["bankroll"] < bankroll  # the oracle: the house way loses chips on this deal
        wagers = info_a["round"]["main_wager"] + info_a["round"]["bonus_wager"]
        env.reset(seed=seed)
        _, _, _, _, info = env.step(bet)
        assert info["cards"] == cards
        if lost:
            _, rb, term, _, info_b = env.step(illegal_set_actions(u.n_bet_actions, k))
            assert term and info_b["invalid_action"] >= 0
            assert rb == pytest.approx(_expected_dump_reward(reward, bankroll, wagers, unit, penalty))
            assert info_b["bankroll"] == pytest.approx(bankroll - wagers)  # the wagers are lost
            assert "forfeit" in info_b["reason"]
        else:
            _, rb, _, _, _ = env.step(u.setting_offset + hw)
            assert rb == ra
        a_rewards.append(ra)
        b_rewards.append(rb)
        dumped.append(lost)
        worst.append(_expected_dump_reward(reward, bankroll, wagers, unit, 0.0))
    check_paired(a_rewards, b_rewards, dumped, worst, penalty)


@pytest.mark.parametrize("env_id", SESSION_IDS)
def test_session_illegal_bet_costs_the_penalty_alone(env_id):
    """A bet above the bankroll or a setting in the bet phase: no wager placed, the bankroll is
    unchanged and the reward is the penalty."""
    for action_of in (lambda u: len(u.bet_table) - 1, lambda u: u.setting_offset + 1):
        env = gym.make(env_id, bankroll=30, target=100, setting="agent", reward="bankroll")
        u = env.unwrapped
        env.reset(seed=5)
        _, r, term, _, info = env.step(action_of(u))
        assert term and r == -1.0 and info["bankroll"] == 30 and info["invalid_action"] >= 0
