"""The first lines a user of each outside RL library writes, as tests (docs/clients.md).

Gymnasium (``gym.make`` with the ``splitpoker:`` prefix and nothing imported, ``make_vec``, its
env checker), Stable-Baselines3 (``make_vec_env`` + ``PPO``), sb3-contrib (``MaskablePPO`` on an
id string), PettingZoo (``api_test``, ``parallel_api_test``, the AEC action-masking loop of its
tutorials, ``pettingzoo.make``), SuperSuit (``pettingzoo_env_to_vec_env_v1`` +
``concat_vec_envs_v1`` under SB3's ``PPO``) and RLlib (PPO with RLlib's action-masking RLModule,
single env and multi-agent table). CleanRL, Tianshou and TorchRL are documented examples run by
hand (docs/clients.md), not tests: they are scripts, or not part of the training extra.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids)

SETTING_ID = "splitpoker/AsiaPokerSetting-v0"
PAIGOW_SETTING_ID = "splitpoker/PaiGowPokerSetting-v0"


def _legal(mask) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask))


# --- Gymnasium --------------------------------------------------------------------------------


def test_gym_make_with_the_module_prefix_in_a_fresh_interpreter_beside_a_users_envs_folder(tmp_path):
    """CleanRL, Tianshou and TorchRL call ``gym.make(id)`` with nothing imported: the
    ``splitpoker:`` prefix imports the package, and a user's own ``envs/`` and ``agents/`` folders
    in the working directory do not shadow it."""
    for folder in ("envs", "agents", "scripts"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
    script = """
import json, gymnasium as gym, numpy as np
env = gym.make("splitpoker:splitpoker/AsiaPokerSetting-v0")
obs, info = env.reset(seed=0)
masks = env.get_wrapper_attr("action_masks")()
obs2, reward, terminated, truncated, info2 = env.step(int(np.flatnonzero(masks)[0]))
print(json.dumps({"shape": list(obs.shape), "in_space": bool(env.observation_space.contains(obs)),
                  "n_legal": int(masks.sum()), "same_mask": bool((masks == info["action_mask"]).all()),
                  "terminated": bool(terminated), "end_mask_all": bool(np.all(info2["action_mask"]))}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=900)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    space = gym.make(SETTING_ID).observation_space
    assert got["shape"] == list(space.shape)
    assert got["in_space"] and got["same_mask"]
    assert got["n_legal"] >= 1
    # a setting env's episode is one step; the terminal mask marks every action (never all False)
    assert got["terminated"] and got["end_mask_all"]


def test_gymnasium_env_checker_and_make_vec_both_modes():
    """``make_vec`` with the module prefix, native batched (``vector_entry_point``) and ``sync``."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(PAIGOW_SETTING_ID)
    check_env(env.unwrapped, skip_render_check=True)
    n = env.action_space.n
    for mode in ("vector_entry_point", "sync"):
        vec = gym.make_vec("splitpoker:" + PAIGOW_SETTING_ID, num_envs=3, vectorization_mode=mode)
        obs, infos = vec.reset(seed=5)
        assert obs.shape == (3, *env.observation_space.shape), mode
        masks = np.asarray(infos["action_mask"], dtype=bool)
        assert masks.shape == (3, n) and masks.any(axis=1).all(), mode
        actions = np.array([_legal(m)[0] for m in masks])
        _, rewards, terminated, truncated, infos = vec.step(actions)
        assert terminated.all() and not truncated.any(), mode
        assert rewards.shape == (3,) and np.isfinite(rewards).all(), mode
        # after the terminal step the mask marks every action (next-step autoreset's dummy step is safe)
        assert np.asarray(infos["action_mask"], dtype=bool).all(), mode
        vec.close()


def test_mask_in_observation_wrapper():
    from splitpoker.envs.wrappers import MaskInObservation

    env = MaskInObservation(gym.make(SETTING_ID))
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert obs["action_mask"].dtype == np.float32
    np.testing.assert_array_equal(obs["action_mask"], np.asarray(info["action_mask"], dtype=np.float32))
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
    with pytest.raises(ValueError, match="mask_dtype='float64'"):
        MaskInObservation(gym.make(SETTING_ID), mask_dtype="float64")
    with pytest.raises(ValueError, match="observation_key='action_mask'"):
        MaskInObservation(gym.make(SETTING_ID), observation_key="action_mask")


# --- Stable-Baselines3 and sb3-contrib ---------------------------------------------------------


def test_sb3_make_vec_env_and_ppo_on_an_id_string():
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    check_env(gym.make(SETTING_ID).unwrapped)
    vec = make_vec_env(SETTING_ID, n_envs=2, seed=0)
    model = PPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu").learn(64)
    assert model.num_timesteps == 64


def test_sb3_contrib_maskable_ppo_on_an_id_string_only_picks_legal_actions():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    model = MaskablePPO("MlpPolicy", SETTING_ID, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    assert model.num_timesteps == 64
    env = model.get_env()
    obs = env.reset()
    for _ in range(20):
        masks = get_action_masks(env)
        assert masks.shape == (1, env.action_space.n) and masks.any()
        action, _ = model.predict(obs, action_masks=masks)
        assert masks[0, int(action[0])], "MaskablePPO picked a masked action"
        obs, _, _, infos = env.step(action)
        assert infos[0]["invalid_action"] < 0  # no penalised action


# --- PettingZoo ------------------------------------------------------------------------------


def test_pettingzoo_api_tests_and_registry():
    import pettingzoo
    from pettingzoo.test import api_test, parallel_api_test

    from splitpoker.envs.table import asia_table_v0, paigow_table_v0

    api_test(paigow_table_v0.env(num_seats=2), num_cycles=6)
    parallel_api_test(asia_table_v0.parallel_env(num_seats=2), num_cycles=6)
    env = pettingzoo.make("parallel", "splitpoker/paigow_table_v0", num_seats=3)
    assert env.possible_agents == ["seat_1", "seat_2", "seat_3"]
    aec = pettingzoo.make("aec", "splitpoker/asia_table-v0", num_seats=2)
    assert aec.possible_agents == ["seat_1", "seat_2"]


def test_pettingzoo_aec_action_masking_loop():
    """The loop of PettingZoo's AEC tutorials (``action_space(agent).sample(mask)``, ``None`` once
    an agent is done), over several rounds: no action is ever penalised."""
    from splitpoker.envs.table import paigow_table_v0

    env = paigow_table_v0.env(num_seats=3)
    rounds = 0
    for seed in range(4):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
                assert info["invalid_action"] < 0, info
            else:
                mask = observation["action_mask"]
                assert mask.dtype == np.int8 and mask.any()
                action = env.action_space(agent).sample(mask)
                assert mask[action]
            env.step(action)
        rounds += 1
    env.close()
    assert rounds == 4


# --- SuperSuit + SB3 ---------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["flat", "dict"])
def test_supersuit_vector_stacking_with_sb3_ppo(form):
    """PettingZoo's SB3 vector tutorial's lines on a table: every seat is a slot of the vector env
    (3 seats x 2 copies = 6), the seats of a table end their round together, PPO trains. ``flat``
    is the observation Box alone (``MlpPolicy``), ``dict`` the table's own Dict
    (``MultiInputPolicy``). SuperSuit's vector env has no ``seed()``, so PPO gets no ``seed=``."""
    import supersuit as ss
    from stable_baselines3 import PPO

    from splitpoker.envs.table import paigow_table_v0
    from splitpoker.envs.table_wrappers import TableObservation

    env = paigow_table_v0.parallel_env(num_seats=3)
    if form == "flat":
        env = TableObservation(env, form="flat")
    vec = ss.pettingzoo_env_to_vec_env_v1(env)
    vec = ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="stable_baselines3")
    assert vec.num_envs == 6
    vec.reset()
    n = vec.action_space.n
    for _step in range(2):  # bet step, then set step: every seat's round ends on the second
        _, rewards, dones, infos = vec.step(np.zeros(vec.num_envs, dtype=np.int64))
        assert len(infos) == 6 and all(info["action_mask"].shape == (n,) for info in infos)
    assert dones.all()
    model = PPO("MlpPolicy" if form == "flat" else "MultiInputPolicy", vec, n_steps=16, batch_size=48, n_epochs=1,
                device="cpu").learn(96)
    assert model.num_timesteps == 96
    vec.close()


def test_table_observation_rejects_bad_input():
    from splitpoker.envs.table import paigow_table_v0
    from splitpoker.envs.table_wrappers import TableObservation

    with pytest.raises(ValueError, match="form='box'"):
        TableObservation(paigow_table_v0.parallel_env(num_seats=2), form="box")
    with pytest.raises(TypeError, match="expected a PettingZoo ParallelEnv"):
        TableObservation(paigow_table_v0.env(num_seats=2))


# --- RLlib -------------------------------------------------------------------------------------


def test_rllib_envs_carry_the_mask_in_the_observation():
    pytest.importorskip("ray.rllib")
    from splitpoker.envs.rllib import MaskedEnv, PaiGowTableMultiAgentEnv

    env = MaskedEnv({"id": "splitpoker:" + SETTING_ID})
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], np.asarray(info["action_mask"], dtype=np.float32))
    with pytest.raises(ValueError, match="'splitpoker/Nope-v0'"):
        MaskedEnv({"id": "splitpoker/Nope-v0"})
    table = PaiGowTableMultiAgentEnv({"num_seats": 2})
    obs, infos = table.reset(seed=1)
    assert sorted(obs) == ["seat_1", "seat_2"]
    for agent, o in obs.items():
        assert table.get_observation_space(agent).contains(o)
        assert o["action_mask"].dtype == np.float32 and o["action_mask"].any()


@pytest.mark.slow
@pytest.mark.parametrize("env_id,kwargs", [(SETTING_ID, {}), ("splitpoker/paigow_table_v0", {"num_seats": 2})])
def test_rllib_ppo_with_masks_trains_and_obeys_the_masks(tmp_path, env_id, kwargs):
    """Two PPO iterations with RLlib's action-masking RLModule (scripts/rllib_ppo.py's code path),
    local Ray; the greedy policy never plays a masked action; the single env's run resumes."""
    pytest.importorskip("ray.rllib")
    from splitpoker.agents.training.rllib_ppo import PPORun, train

    run = PPORun(env=env_id, env_kwargs=kwargs, iterations=2, batch_size=64, minibatch_size=32, epochs=1)
    summary = train(run, tmp_path, num_cpus=1, eval_episodes=10, log=lambda m: None)
    assert [row["iteration"] for row in summary["iterations"]] == [1, 2]
    assert summary["iterations"][-1]["env_steps_sampled_lifetime"] >= 2 * 64
    assert summary["evaluation"]["policy"]["penalised"] == 0
    assert summary["multi_agent"] == (env_id != SETTING_ID)
    if env_id == SETTING_ID:  # the run folder resumes (once: a Ray start costs tens of seconds)
        resumed = train(dataclasses.replace(run, iterations=3), tmp_path, num_cpus=1, eval_episodes=0,
                        log=lambda m: None)
        assert [row["iteration"] for row in resumed["iterations"]] == [1, 2, 3]


@pytest.mark.parametrize("argv,message", [
    (["--env", "splitpoker/Nope-v0"], "env 'splitpoker/Nope-v0': expected a splitpoker Gymnasium id"),
    (["--batch-size", "64", "--minibatch-size", "128"], "--minibatch-size 128: expected at most --batch-size (64)"),
    (["--env", "splitpoker/paigow_table_v0", "--env-kwargs", '{"num_seats": 9}'], "num_seats"),
    (["--address", "nohost"], "'nohost': expected auto, HOST:PORT or ray://HOST:PORT"),
    (["--gamma", "1.5"], "1.5: expected a number 0..1"),
])
def test_rllib_ppo_script_refuses_bad_arguments_before_any_work(argv, message, capsys, tmp_path):
    pytest.importorskip("ray.rllib")
    from splitpoker.scripts import rllib_ppo

    try:
        code = rllib_ppo.main([*argv, "--run-dir", str(tmp_path / "run")])
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run" / "progress.json").exists()
