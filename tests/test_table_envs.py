"""Table environments: PettingZoo asia_table_v0 / paigow_table_v0 (api, parallel api and seed tests
for both games and every seat count), invalid-action semantics, the single-agent Gymnasium
variant with both env checkers and a MaskablePPO smoke run, and PettingZoo staying optional."""

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids)

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from splitpoker.envs.table import asia_table_v0, paigow_table_v0  # noqa: E402

MODULES = {"asia": asia_table_v0, "paigow": paigow_table_v0}


@pytest.mark.parametrize("game", list(MODULES))
@pytest.mark.parametrize("num_seats", [1, 2, 3, 4, 5, 6])
def test_pettingzoo_api_parallel_and_seed_tests(game, num_seats):
    mod = MODULES[game]
    api_test(mod.env(num_seats=num_seats), num_cycles=4)
    parallel_api_test(mod.parallel_env(num_seats=num_seats), num_cycles=4)
    seed_test(lambda: mod.env(num_seats=num_seats), num_cycles=4)
    parallel_seed_test(lambda: mod.parallel_env(num_seats=num_seats), num_cycles=4)


def test_house_way_and_empty_seats_and_rewards():
    env = paigow_table_v0.parallel_env(seats=["player", "empty", "house_way", "player"], house_way_bet=(10, 5))
    assert env.possible_agents == ["seat_1", "seat_4"]
    obs, infos = env.reset(seed=4)
    assert obs["seat_1"]["observation"].shape == (210,) and obs["seat_1"]["observation"][202] == pytest.approx(2 / 5)
    assert obs["seat_4"]["observation"][204 + 3] == 1.0
    n_fortune = 4
    bet = 0 * n_fortune + 1  # $5 wager, $5 Fortune: takes Envy
    obs, rew, term, trunc, infos = env.step({"seat_1": bet, "seat_4": 0})
    assert rew == {"seat_1": 0.0, "seat_4": 0.0} and not any(term.values())
    assert obs["seat_1"]["observation"][203] == 1.0 and obs["seat_4"]["observation"][203] == 0.0
    hw = {a: 28 + infos[a]["house_way_setting"] for a in env.agents}
    obs, rew, term, trunc, infos = env.step(hw)
    assert all(term.values()) and env.agents == []
    table = env.seats.table.result
    assert set(table.seats) == {1, 3, 4}  # the house-way seat bet its house_way_bet
    assert table.seats[3].main_wager == 10 and table.seats[3].bonus_wager == 5 and table.seats[3].envy
    for a, s in (("seat_1", 1), ("seat_4", 4)):
        assert rew[a] == pytest.approx(table.seats[s].net / 5.0)
        assert infos[a]["envy_chips"] == table.seats[s].envy_chips


def test_wrong_phase_action_penalises_only_that_agent():
    env = paigow_table_v0.parallel_env(num_seats=3)
    env.reset(seed=1)
    n_bet = 28
    obs, rew, term, trunc, infos = env.step({"seat_1": n_bet + 3, "seat_2": 0, "seat_3": 0})  # a setting while betting
    assert rew["seat_1"] == -1.0 and not any(term.values())  # every agent stays until the round ends
    assert infos["seat_1"]["invalid_action"] == n_bet + 3 and "bet phase" in infos["seat_1"]["reason"]
    assert env.agents == ["seat_1", "seat_2", "seat_3"] and obs["seat_1"]["action_mask"].all()
    obs, rew, term, trunc, infos = env.step({"seat_1": 0, "seat_2": 5, "seat_3": n_bet})  # ignored, a bet, a setting
    # seat 2 forfeits its $5 wager (1 unit) and the penalty (1 unit)
    assert rew["seat_1"] == 0.0 and rew["seat_2"] == -2.0 and "bets are over" in infos["seat_2"]["reason"]
    assert all(term.values()) and env.agents == []
    assert 1 not in env.seats.table.result.seats and 2 not in env.seats.table.result.seats


def test_masked_fouled_setting_is_played_and_loses():
    env = paigow_table_v0.parallel_env(num_seats=1)
    for seed in range(50):
        obs, infos = env.reset(seed=seed)
        obs, *_ = env.step({"seat_1": 0})
        mask = obs["seat_1"]["action_mask"]
        fouled = [a for a in range(28, 49) if not mask[a]]
        if fouled:
            break
    obs, rew, term, trunc, infos = env.step({"seat_1": fouled[0]})
    assert infos["seat_1"]["fouled"] and infos["seat_1"]["main"] == -5.0 and rew["seat_1"] == -1.0


def test_raise_mode_and_actions_for_agents_not_to_act_leave_the_env_unchanged():
    env = asia_table_v0.parallel_env(num_seats=2, invalid_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action 60 for seat 1 is illegal in phase BET"):
        env.step({"seat_1": 60, "seat_2": 0})
    with pytest.raises(ValueError, match=r"unknown agent\(s\) \['seat_5'\]"):
        env.step({"seat_1": 0, "seat_2": 0, "seat_5": 0})
    with pytest.raises(ValueError, match=r"no action for seat\(s\) \[2\]"):
        env.step({"seat_1": 0})
    with pytest.raises(ValueError, match="out of range"):
        env.step({"seat_1": 0, "seat_2": 10_000})
    assert env.agents == ["seat_1", "seat_2"] and env.seats.table.bets == {}
    env.step({"seat_1": 0, "seat_2": 0})  # still steps normally
    p = paigow_table_v0.parallel_env(num_seats=2)
    p.reset(seed=0)
    p.step({"seat_1": 28, "seat_2": 0})  # seat 1 penalised out of the money, still an agent
    with pytest.raises(ValueError, match="out of range"):
        p.step({"seat_1": 10_000, "seat_2": 28})  # its later actions are ignored, but still checked
    _, _, term, _, _ = p.step({"seat_1": 28, "seat_2": 28})
    assert all(term.values())
    with pytest.raises(ValueError, match=r"agent\(s\) \['seat_1'\] that are not to act"):
        p.step({"seat_1": 28})
    with pytest.raises(ValueError, match=r"num_seats=4 \+ house_way_seats=3 = 7 seats"):
        paigow_table_v0.parallel_env(num_seats=4, house_way_seats=3)
    with pytest.raises(ValueError, match="Asia Poker has no Envy"):
        asia_table_v0.parallel_env(envy=True)


TABLE_IDS = ["splitpoker/AsiaTable-v0", "splitpoker/PaiGowTable-v0"]


@pytest.mark.parametrize("env_id", TABLE_IDS)
def test_single_agent_env_checkers_and_determinism(env_id):
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    gym_check_env(gym.make(env_id).unwrapped)
    sb3_check_env(gym.make(env_id, other_policy="random", other_seats=2).unwrapped)
    runs = []
    for _ in range(2):
        env = gym.make(env_id, seat=3, other_seats=4)
        rng = np.random.default_rng(0)
        out = []
        for ep in range(10):
            obs, info = env.reset(seed=ep)
            while True:
                obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
                if term:
                    break
            out.append((obs.tobytes(), r, info["cards"], info["dealer_cards"]))
        runs.append(out)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("env_id", ["splitpoker/AsiaTable-v0", "splitpoker/PaiGowTable-v0"])
def test_penalised_actions_keep_the_observation_in_its_space(env_id):
    """Random actions from the whole action space (what the env checkers send): a setting in the
    bet phase ends the learner's round before any card is dealt when no other player seat is in
    play; its last observation must show no cards (it once read the undealt hand's -1 entries as
    cards: 1.75 at index 52)."""
    env = gym.make(env_id, other_seats=2).unwrapped
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    penalised_before_deal = 0
    for _ in range(300):
        obs, _, term, _, info = env.step(int(rng.integers(env.action_space.n)))
        assert env.observation_space.contains(obs), (obs.min(), obs.max(), np.flatnonzero(obs > 1)[:5])
        if term:
            if "invalid_action" in info and "bet phase" in info["reason"]:
                penalised_before_deal += 1
                assert not obs[:53].any()  # no cards shown
            obs, info = env.reset()
    assert penalised_before_deal > 10


def test_single_agent_envy_from_house_way_seats_and_callable_policy():
    seen = []

    def policy(obs, mask):
        seen.append(obs.shape)
        return int(np.flatnonzero(mask)[0])

    env = gym.make("splitpoker/PaiGowTable-v0", seat=2, other_seats=5, other_policy=policy)
    total_envy = 0.0
    for ep in range(300):
        obs, info = env.reset(seed=ep)
        obs, r, term, trunc, info = env.step(1)  # $5 + $5 Fortune: Envy
        obs, r, term, trunc, info = env.step(28 + info["house_way_setting"])
        assert term and r == pytest.approx(info["net"] / 5.0)
        total_envy += info["envy_chips"]
    assert seen and seen[0] == (210,)
    assert total_envy > 0  # five other hands a round: some pay Envy in 300 rounds


def test_maskable_ppo_trains_on_the_table_env():
    from sb3_contrib import MaskablePPO

    env = gym.make("splitpoker/PaiGowTable-v0", other_seats=3)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, gamma=1.0, seed=0)
    model.learn(256)
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
    assert info["action_mask"][int(action)]


def test_envs_import_without_pettingzoo():
    script = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] == 'pettingzoo':
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import gymnasium as gym, splitpoker
env = gym.make('splitpoker/PaiGowTable-v0')
env.reset(seed=0)
assert 'pettingzoo' not in sys.modules
try:
    import splitpoker.envs.table.paigow_table_v0
except ImportError:
    print('ok')
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_options_observe_settings_house_way_action_and_unmasked_fouls():
    env = paigow_table_v0.parallel_env(num_seats=2, observe_settings=True, allow_house_way_action=True, mask_fouls=False)
    parallel_api_test(env, num_cycles=4)
    obs, infos = env.reset(seed=2)
    assert obs["seat_1"]["observation"].shape == (210 + 21 * 2,)
    obs, *_ = env.step({"seat_1": 0, "seat_2": 0})
    assert obs["seat_1"]["action_mask"][28:].all()  # every setting and the house-way action
    assert obs["seat_1"]["observation"][210:].any()
    obs, rew, term, trunc, infos = env.step({"seat_1": 49, "seat_2": 28})
    assert infos["seat_1"]["house_way_action"] and infos["seat_1"]["setting"] == infos["seat_1"]["house_way_setting"]
    asia = asia_table_v0.parallel_env(num_seats=1, observe_settings=True)
    assert asia.observation_space("seat_1")["observation"].shape == (210 + 105 * 3,)


def test_training_config_accepts_the_table_ids():
    from splitpoker.agents.training.run import TrainConfig, make_vec_env

    cfg = TrainConfig(env_id="splitpoker/PaiGowTable-v0", env_kwargs={"other_seats": 2}, n_envs=2, total_timesteps=1000)
    venv = make_vec_env(cfg)
    assert venv.observation_space.shape == (210,)
    venv.close()
    with pytest.raises(ValueError, match="unknown env id 'splitpoker/Nope-v0'"):
        TrainConfig(env_id="splitpoker/Nope-v0")


def test_readme_table_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "usage.md").read_text()
    code = re.search(r"```python\n(from splitpoker.envs.table import.*?)```", text, re.S).group(1)
    scope = {}
    exec(compile(code, "docs/usage.md", "exec"), scope)
    assert all(scope["terms"].values()) and set(scope["rewards"]) == {"seat_1", "seat_2", "seat_3"}


@pytest.mark.parametrize("env_id", TABLE_IDS)
def test_table_make_vec_env_and_rgb_array(env_id):
    """SB3's first line, ``make_vec_env(id, n_envs=2)``, asks for ``render_mode="rgb_array"``; the
    settled frame shows the learner's setting and the dealer's (face-up ivory card pixels)."""
    from stable_baselines3.common.env_util import make_vec_env

    from splitpoker.envs.render import CARD_FACE

    venv = make_vec_env(env_id, n_envs=2, env_kwargs={"other_seats": 2})
    venv.reset()
    for _ in range(4):
        venv.step(np.array([venv.action_space.sample() for _ in range(2)]))
    venv.close()
    env = gym.make(env_id, render_mode="rgb_array", other_seats=2)
    obs, info = env.reset(seed=5)
    bet_frame = env.render()
    obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    _, _, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    frame = env.render()
    assert term and frame.shape == bet_frame.shape == (450, 800, 3) and frame.dtype == np.uint8
    ivory = np.array([int(CARD_FACE[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)
    face_up = lambda img: int(np.all(img == ivory, axis=-1).sum())  # noqa: E731
    assert face_up(bet_frame) == 0 < face_up(frame)  # cards face down while betting, 21 faces once settled
