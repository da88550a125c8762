"""The SB3 VecEnv adapter of the native vector envs (agents/training/sb3_vec.py): the same steps as SB3's
DummyVecEnv of single envs, every algorithm trains on it, ``vec_env: native`` in training."""

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv

import splitpoker.envs as envs
from splitpoker.agents.training.run import EnvFactory, TrainConfig, make_vec_env, train
from splitpoker.agents.training.sb3_vec import NativeVecEnv, make_native_vec_env
from splitpoker.envs.info import ROUND_INFO

#: every key of a finished round's info (cards as text included), which must equal the single env's
OUTCOME_KEYS = tuple(ROUND_INFO)


@pytest.mark.parametrize("features", [False, True], ids=["values", "setting-features"])
@pytest.mark.parametrize("env_id", list(envs.ENV_IDS))
def test_same_steps_as_dummy_vec_env(env_id, features):
    kwargs = {"invalid_action": "raise", "dealer_samples": 2, "observe_settings": True, "setting_features": features}
    native = NativeVecEnv(env_id, 3, kwargs)
    dummy = sb3_make_vec_env(EnvFactory(env_id, kwargs), n_envs=3, seed=9, vec_env_cls=DummyVecEnv)
    native.seed(9)
    np.testing.assert_array_equal(native.reset(), dummy.reset())
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(10):
        masks = get_action_masks(native)
        np.testing.assert_array_equal(masks, get_action_masks(dummy))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        o1, r1, d1, i1 = native.step(actions)
        o2, r2, d2, i2 = dummy.step(actions)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        assert r1.dtype == r2.dtype == np.float32
        np.testing.assert_array_equal(d1, d2)
        for a, b, done in zip(i1, i2, d1, strict=True):
            if done:
                finished += 1
                np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["TimeLimit.truncated"] is False
                for k in OUTCOME_KEYS:
                    assert (k in a) == (k in b) and a.get(k) == b.get(k), k
    assert finished >= 3
    native.close()
    dummy.close()


def test_masks_and_attributes():
    vec = NativeVecEnv("splitpoker/PaiGowPoker-v0", 4, {"invalid_action": "raise"})
    vec.reset()
    assert is_masking_supported(vec)
    masks = get_action_masks(vec)
    assert masks.shape == (4, 49) and masks[:, :28].all() and not masks[:, 28:].any()  # bet phase
    assert vec.get_attr("bet_table")[0] == vec.venv.bet_table
    with pytest.raises(AttributeError, match="supports env_method\\('action_masks'\\) only, got 'render'"):
        vec.env_method("render")
    with pytest.raises(AttributeError, match="no per-environment attribute 'nope'"):
        vec.get_attr("nope")
    with pytest.raises(ValueError, match="unknown env id"):
        NativeVecEnv("splitpoker/Nope-v0", 2)


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo", "a2c", "dqn"])
def test_every_algorithm_trains_on_native(algo):
    import stable_baselines3 as sb3
    from sb3_contrib import MaskablePPO

    cls = {"maskable_ppo": MaskablePPO, "ppo": sb3.PPO, "a2c": sb3.A2C, "dqn": sb3.DQN}[algo]
    kw = {"maskable_ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1}, "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
          "a2c": {"n_steps": 4}, "dqn": {"learning_starts": 20, "buffer_size": 500, "train_freq": 4}}[algo]
    invalid = "raise" if algo == "maskable_ppo" else "penalize"
    env = make_native_vec_env("splitpoker/PaiGowPoker-v0", 4, {"invalid_action": invalid}, seed=0)
    model = cls("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, seed=0, device="cpu", **kw)
    model.learn(128)
    assert model.num_timesteps >= 128
    env.close()


def test_training_config_native(tmp_path):
    cfg = TrainConfig(env_id="splitpoker/AsiaPokerSetting-v0", algo="maskable_ppo", vec_env="native", n_envs=4,
                      algo_kwargs={"n_steps": 32, "batch_size": 64, "n_epochs": 1}, policy_kwargs={"net_arch": [16]},
                      total_timesteps=256, checkpoint_freq=128, log_dir=str(tmp_path))
    vec = make_vec_env(cfg)
    assert isinstance(vec.venv, NativeVecEnv) and vec.num_envs == 4
    vec.close()
    run_dir = train(cfg, progress_bar=False, log=lambda m: None)
    assert (run_dir / "model.zip").exists()
    with pytest.raises(ValueError, match="vec_env='threads': expected one of"):
        TrainConfig(vec_env="threads")


def test_vector_benchmark_tiny(monkeypatch):
    from types import SimpleNamespace

    import splitpoker.scripts.support.speed_vector as vb
    from splitpoker.scripts.support.speed_vector import (
        parse_sizes,
        run_vector_benchmark,
        training_rates,
    )

    monkeypatch.setattr(vb, "SUBPROC_MAX_ENVS", 0)  # spawning SubprocVecEnv workers takes ~20 s here
    monkeypatch.setattr("splitpoker.envs.vector.env.usable_cpus", lambda: 2)  # the 2-thread contender exists on any machine
    monkeypatch.setattr("splitpoker.envs.vector.env.MIN_ENVS_PER_THREAD", 1)
    args = SimpleNamespace(vector_envs="1,2", seconds=0.02, repeats=1, train_steps=0)
    rep = run_vector_benchmark(args)
    med = rep["steps_per_second"]
    assert not any(name.startswith("sb3_subproc") for name in med) and "up to 0 envs" in rep["subproc_note"]
    assert rep["native_default_threads"] == {"1": 1, "2": 2}
    assert "native[AsiaPokerSetting-v0, 1 thread]" in med and set(med["native[AsiaPokerSetting-v0, 1 thread]"]) == {"2"}
    for name in ("native[AsiaPokerSetting-v0, default threads]", "gym_sync[PaiGowPokerSetting-v0]",
                 "sb3_dummy[AsiaPokerSetting-v0]"):
        assert med[name]["1"] > 0 and med[name]["2"] > 0, name
    r = rep["ratios"]["AsiaPokerSetting-v0@2"]
    assert r["native_default_threads"] == 2 and r["default_over_1_thread"] > 0
    assert r["over_gym_sync"] == pytest.approx(med["native[AsiaPokerSetting-v0, default threads]"]["2"]
                                               / med["gym_sync[AsiaPokerSetting-v0]"]["2"])
    train = training_rates(64, n_envs_list=(2,), rollout=32, batch_size=32)
    row = train["n_envs=2"]
    assert 0 < row["native"]["env_share"] < 1 and 0 < row["dummy"]["env_share"] < 1
    with pytest.raises(ValueError, match="'0,3': expected comma-separated integers 1..65,536"):
        parse_sizes("0,3")
    with pytest.raises(ValueError, match="'a': expected"):
        parse_sizes("a")


def test_a_step_finishing_rounds_of_different_kinds_gives_each_its_own_info():
    """One step ends a played round (env 0) and a penalised one (env 1: a bet action in the set
    phase), so the finished rows carry different keys; each info still equals the single env's."""
    env_id, kwargs = "splitpoker/PaiGowPoker-v0", {"dealer_samples": 2}
    native = NativeVecEnv(env_id, 2, kwargs)
    dummy = sb3_make_vec_env(EnvFactory(env_id, kwargs), n_envs=2, seed=4, vec_env_cls=DummyVecEnv)
    native.seed(4)
    native.reset()
    dummy.reset()
    bets = np.array([0, 0])  # both bet the first wager
    assert not native.step(bets)[2].any() and not dummy.step(bets)[2].any()
    masks = get_action_masks(native)
    offset = native.get_attr("setting_offset")[0]  # the first setting action
    played = int(np.flatnonzero(masks[0][offset:])[0]) + offset  # a legal setting for env 0
    actions = np.array([played, 0])  # env 1: a bet action while setting (penalised, ends the round)
    o1, r1, d1, i1 = native.step(actions)
    o2, r2, d2, i2 = dummy.step(actions)
    assert d1.tolist() == d2.tolist() == [True, True]
    assert i1[0]["invalid_action"] == -1 and i1[1]["invalid_action"] == 0 and i1[1]["reason"]
    assert i1[0]["setting"] >= 0 and i1[1]["setting"] == -1
    for a, b in zip(i1, i2, strict=True):
        for k in OUTCOME_KEYS:
            assert a[k] == b[k], k
        np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
    native.close()
    dummy.close()
