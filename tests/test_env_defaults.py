"""The default arguments serve every client of an unmasked algorithm (Gymnasium's contract: every
element of ``action_space`` can be stepped): SB3's ``make_vec_env`` without kwargs, plain PPO
(the RL Zoo code path), random rollouts over the whole space; fouls settle as in the game;
``invalid_action="raise"`` stays as the debugging option."""

import os
from itertools import combinations

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv

import splitpoker.envs as envs
from splitpoker.envs.asia_poker import AsiaPokerEnv, AsiaPokerSettingEnv
from splitpoker.envs.pai_gow_poker import PaiGowPokerEnv, PaiGowPokerSettingEnv
from splitpoker.envs.rules.bonus.features import bonus_features
from splitpoker.envs.rules.bonus.paytables import FORTUNE, SEED_000

ALL_IDS = list(envs.ENV_IDS)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_defaults_are_penalize(env_id):
    env = gym.make(env_id)
    assert env.unwrapped.config.invalid_action == "penalize"
    assert "rgb_array" in env.metadata["render_modes"]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_random_rollout_over_the_whole_action_space_never_raises(env_id):
    """Unmasked uniform actions, as PPO samples them at the start: every step succeeds; fouls
    lose the main wager exactly; wrong-phase actions end with every wager placed forfeited and
    the penalty on top (the penalty alone in the bet phase, where nothing is placed)."""
    env = gym.make(env_id)
    env.action_space.seed(0)
    base = env.unwrapped
    counts = {"fouled": 0, "penalised": 0, "played": 0}
    for ep in range(400):
        _, info = env.reset(seed=ep)
        while True:
            action = int(env.action_space.sample())
            legal = bool(info["action_mask"][action])
            wager, bonus = base.main_wager, base.bonus_wager
            obs, r, term, trunc, info = env.step(action)
            assert np.isfinite(r) and env.observation_space.contains(obs) and not trunc
            if info["invalid_action"] >= 0:
                assert not legal and info["invalid_action"] == action and term
                forfeit = (wager + bonus) / base.config.unit
                assert r == pytest.approx(-forfeit - base.config.invalid_action_penalty) and info["reason"]
                counts["penalised"] += 1
            elif term:
                counts["played"] += 1
                if info["fouled"]:
                    counts["fouled"] += 1
                    assert info["main_result"] == -1.0 and info["main_chips"] == -wager
            if term:
                break
    assert counts["fouled"] > 0 and counts["played"] > 0
    assert (counts["penalised"] > 0) == base.betting  # only the two-step envs have a wrong phase


def _asia_foul_seed(env):
    """A seed whose deal has no joker, a top card above the two lowest cards, and no pair among
    those two: then low = top card (position 6), medium = positions 0 and 1 is fouled (the
    medium hand's best card is below the low card; docs/rules.md: "Q-9 over A is fouled")."""
    for seed in range(1000):
        env.reset(seed=seed)
        p = env.player
        if p[6] != 52 and p[6] >> 2 > p[1] >> 2 and p[0] >> 2 != p[1] >> 2:
            return seed
    raise AssertionError("no such deal in 1000 seeds")


def test_asia_masked_foul_is_played_and_loses_the_whole_ante():
    # setting index of (low = position 6, medium = positions 0, 1): 15 * low + index of the pair
    # among the pairs of the other six positions, lexicographic (envs/rules/games/asia.py)
    setting = 15 * 6 + list(combinations(range(6), 2)).index((0, 1))
    env = AsiaPokerEnv()  # defaults: mask_fouls=True, invalid_action="penalize"
    seed = _asia_foul_seed(env)
    _, info = env.reset(seed=seed)
    n_bonus = len(env.config.bonus_levels)
    bet = (len(env.config.ante_levels) - 1) * n_bonus + (n_bonus - 1)  # $1000 ante, $100 bonus
    _, _, _, _, info = env.step(bet)
    action = env.setting_offset + setting
    assert not info["action_mask"][action]  # masked: maskable algorithms never choose it
    _, r, term, _, info = env.step(action)
    bonus = SEED_000.settle(bonus_features(env.player), 100.0)[0]  # paid on the seven cards regardless
    assert term and info["fouled"] and info["setting"] == setting and info["invalid_action"] == -1
    assert info["main_chips"] == -1000.0 and info["main_result"] == -1.0
    assert info["bonus_chips"] == bonus and r == pytest.approx((-1000.0 + bonus) / 5.0)


def test_asia_setting_env_foul_loses_one_ante_whatever_the_dealer():
    env = AsiaPokerSettingEnv(dealer_samples=8)
    for seed in range(40):
        env.reset(seed=seed)
        p = env.player
        if not (p[6] != 52 and p[6] >> 2 > p[1] >> 2 and p[0] >> 2 != p[1] >> 2):
            continue
        _, r, _, _, info = env.step(90)
        assert info["fouled"] and r == -1.0 and info["main_chips"] == -5.0  # every one of the 8 dealers wins


def test_paigow_masked_foul_is_played_and_loses_the_wager():
    """Seven distinct ranks, no joker, and the five lowest neither a straight nor a flush: the
    front holding the two top cards outranks a high-card back, a foul."""
    setting = list(combinations(range(7), 2)).index((5, 6))  # front = positions 5, 6 (lexicographic)
    env = PaiGowPokerEnv()
    for seed in range(2000):
        env.reset(seed=seed)
        p = env.player
        ranks = (p >> 2).tolist()
        low5 = ranks[:5]
        if 52 in p or len(set(ranks)) < 7 or len({c & 3 for c in p[:5].tolist()}) == 1:
            continue
        if low5 == list(range(low5[0], low5[0] + 5)) or low5 == [0, 1, 2, 3, 12]:
            continue
        break
    n_f = len(env.config.fortune_levels)
    env.step((len(env.config.wager_levels) - 1) * n_f + 1)  # $500 wager, $5 Fortune
    _, r, term, _, info = env.step(env.setting_offset + setting)
    fortune = FORTUNE.settle(bonus_features(env.player), 5.0)[0]
    assert term and info["fouled"] and info["main_chips"] == -500.0
    assert info["bonus_chips"] == fortune and r == pytest.approx((-500.0 + fortune) / 5.0)


@pytest.mark.parametrize("cls", [AsiaPokerEnv, PaiGowPokerEnv])
def test_raise_mode_names_action_and_phase(cls):
    env = cls(invalid_action="raise")
    env.reset(seed=1)
    with pytest.raises(ValueError, match=rf"action {env.n_bet_actions} is illegal in phase BET"):
        env.step(env.n_bet_actions)
    env.step(0)
    with pytest.raises(ValueError, match=r"action 0 is illegal in phase SET: bets are over"):
        env.step(0)
    fouled = int(np.flatnonzero(env.fouled)[0])
    action = env.setting_offset + fouled
    with pytest.raises(ValueError, match=rf"action {action} is illegal in phase SET: setting {fouled} is fouled"):
        env.step(action)


def test_wrong_phase_penalty_in_units_and_info():
    env = PaiGowPokerEnv(invalid_action_penalty=3)
    env.reset(seed=0)
    env.step(0)  # bet action 0: the $5 wager, no Fortune
    _, r, term, trunc, info = env.step(5)  # a bet action in the set phase: the $5 forfeited, 3 units on top
    assert (r, term, trunc) == (-1.0 - 3.0, True, False)
    assert info["invalid_action"] == 5 and "bets are over" in info["reason"] and "forfeited" in info["reason"]
    assert info["net_chips"] == -5.0 - 15.0 and info["main_wager"] == 5.0
    with pytest.raises(ValueError, match="phase DONE"):
        env.step(0)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_make_vec_env_dummy_without_kwargs(env_id):
    venv = make_vec_env(env_id, n_envs=4)  # SB3 asks for render_mode="rgb_array"
    assert isinstance(venv, DummyVecEnv)
    obs = venv.reset()
    assert obs.shape == (4,) + venv.observation_space.shape
    for _ in range(20):
        obs, r, done, infos = venv.step(np.array([venv.action_space.sample() for _ in range(4)]))
        assert np.isfinite(r).all()
    frame = venv.env_method("render", indices=0)[0]
    assert frame.shape == (450, 800, 3) and frame.dtype == np.uint8
    venv.close()


USER_SCRIPT = """
import numpy as np
import splitpoker  # registers the splitpoker/* ids (also in SB3's worker processes, which re-import __main__)
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

if __name__ == "__main__":
    for env_id in ("splitpoker/AsiaPokerSetting-v0", "splitpoker:splitpoker/PaiGowPoker-v0"):
        venv = make_vec_env(env_id, n_envs=4, vec_env_cls=SubprocVecEnv)
        venv.reset()
        for _ in range(10):
            _, r, _, _ = venv.step(np.array([venv.action_space.sample() for _ in range(4)]))
            assert np.isfinite(r).all()
        assert venv.get_attr("render_mode") == ["rgb_array"] * 4
        venv.close()
    print("ok")
"""


@pytest.mark.slow  # fresh worker processes each import torch, SB3 and the package
def test_make_vec_env_subproc(tmp_path):
    """A user's script: ``import splitpoker`` at the top, then ``make_vec_env(id, n_envs=4,
    vec_env_cls=SubprocVecEnv)`` with the plain id. SB3's forkserver/spawn workers re-import the
    script's ``__main__``, hence ``splitpoker``; the ``"splitpoker:<id>"`` form works anywhere."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")


def test_plain_ppo_on_make_vec_env():
    """The RL Zoo code path: ``make_vec_env`` without kwargs, then plain PPO sampling the whole
    unmasked space learns a few hundred steps without error."""
    venv = make_vec_env("splitpoker/AsiaPoker-v0", n_envs=4, seed=0)  # two steps: bet, then set
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    venv.close()


def test_setting_env_direct_construction_defaults():
    for cls in (AsiaPokerSettingEnv, PaiGowPokerSettingEnv):
        env = cls()
        env.reset(seed=0)
        fouled = int(np.flatnonzero(env.fouled)[0])
        _, r, term, _, info = env.step(fouled)
        assert term and info["fouled"] and r == -1.0
