"""The per-setting feature block and the setting-scoring policy: layout pinned on hand-worked
settings, equivariance to the order of settings, MaskablePPO / PPO training, save and load in a
fresh process, config errors."""

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch as th

import splitpoker  # noqa: F401
from splitpoker.agents.policies.setting_scorer import SettingScorerNet, layout_kwargs
from splitpoker.agents.training.run import TrainConfig, load_model, train
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.setting_features import FEATURES

ROOT = Path(__file__).resolve().parent.parent


def rows_of(env, obs):
    u = env.unwrapped
    return obs[u.setting_features_start:].reshape(u.n_settings, u.setting_features_width)


def test_asia_feature_rows_match_hand_worked_settings():
    env = gym.make("splitpoker/AsiaPokerSetting-v0", setting_features=True)
    obs, _ = env.reset(seed=3)
    u = env.unwrapped
    assert obs.shape == (202 + 105 * 19,) == env.observation_space.shape
    assert FEATURES["asia"] == 19
    game = Game("asia")
    hand = "Qh Th 8h 3h Kd 5d Tc"  # the Game docstring's example
    u.player[:] = game.hand(hand)
    u.ranks[:], u.fouled[:] = game.settings(u.player)
    rows = rows_of(env, u._observation())
    s = game.engine.setting_index(hand, high="Qh Th 8h 3h", medium="Kd 5d", low="Tc")
    row = rows[s]
    # high: a four-card flush; medium K-5 unpaired; low ten; not fouled
    assert row[HandCategory.FLUSH] == 1 and row[:11].sum() == 1
    assert row[13] == pytest.approx((11 * 10 // 2 + 3) / 90)  # two_card_value(K, 5) = hi*(hi-1)/2 + lo
    assert row[14] == 0 and row[15] == pytest.approx(11 / 12) and row[16] == pytest.approx(3 / 12)
    assert row[17] == pytest.approx(8 / 12) and row[18] == 0
    # the table's strongest flush class is position 1 of its category; ranks are [0, 1]
    assert 0 <= row[11] <= 1 and 0 <= row[12] <= 1
    # a pair in the medium hand: T-T, and a fouled setting (medium pair above a high-card high hand)
    s_pair = game.engine.setting_index(hand, high="Qh 8h 3h Kd", medium="Th Tc", low="5d")
    assert rows[s_pair][14] == 1 and rows[s_pair][15] == rows[s_pair][16] == pytest.approx(8 / 12)
    assert rows[s_pair][18] == float(u.fouled[s_pair]) == 1.0
    assert np.array_equal(rows[:, 18] == 1, u.fouled)


def test_paigow_rows_and_bet_phase_zeros():
    env = gym.make("splitpoker/PaiGowPoker-v0", setting_features=True, observe_settings=True)
    obs, _ = env.reset(seed=1)
    u = env.unwrapped
    assert FEATURES["paigow"] == 18
    assert obs.shape == (202 + 21 * 2 + 21 * 18,)
    assert not obs[202:].any()  # bet phase: nothing dealt yet
    obs, *_ = env.step(0)
    rows = rows_of(env, obs)
    assert np.all(rows[:, :11].sum(axis=1) == 1)  # one back category each
    assert np.array_equal(rows[:, 17] == 1, u.fouled)
    # the observe_settings block is still where it was
    assert np.allclose(obs[202:244].reshape(21, 2)[:, 0], u.ranks[:, 0] / (u.game.table.n_classes - 1))
    with pytest.raises(ValueError, match="setting_features"):
        gym.make("splitpoker/PaiGowPoker-v0", setting_features="yes")


def test_scorer_is_equivariant_to_the_order_of_settings():
    env = gym.make("splitpoker/AsiaPoker-v0", setting_features=True, allow_house_way_action=True)
    lay = layout_kwargs(env)
    n_actions = int(env.action_space.n)
    th.manual_seed(0)
    net = SettingScorerNet(env.observation_space.shape[0], n_actions, **lay, hidden=32, context=8)
    obs, _ = env.reset(seed=5)
    obs, *_ = env.step(0)
    x = th.as_tensor(obs[None])
    perm = np.random.default_rng(0).permutation(lay["n_settings"])
    rows = x[:, lay["features_start"]:].reshape(1, lay["n_settings"], lay["n_features"])
    xp = x.clone()
    xp[:, lay["features_start"]:] = rows[:, perm].reshape(1, -1)
    with th.no_grad():
        logits, value = net(x)
        logits_p, value_p = net(xp)
    off, n = lay["setting_offset"], lay["n_settings"]
    assert logits.shape == (1, n_actions)
    assert th.allclose(logits_p[0, off:off + n], logits[0, off:off + n][perm], atol=1e-6)
    assert th.allclose(logits_p[0, :off], logits[0, :off], atol=1e-6)  # bets and house-way action unchanged
    assert th.allclose(logits_p[0, -1], logits[0, -1], atol=1e-6)
    assert th.allclose(value_p, value, atol=1e-6)
    # and the scores do depend on the rows (not a constant)
    assert logits[0, off:off + n].std() > 0


def test_layout_errors():
    env = gym.make("splitpoker/AsiaPokerSetting-v0")
    with pytest.raises(ValueError, match="setting_features=True"):
        layout_kwargs(env)
    with pytest.raises(ValueError, match="cannot hold 105 setting rows"):
        SettingScorerNet(300, 105, n_settings=105, setting_offset=0, features_start=202, n_features=19)
    with pytest.raises(ValueError, match="does not match"):
        SettingScorerNet(202 + 105 * 19, 110, n_settings=105, setting_offset=0, features_start=202, n_features=19)
    with pytest.raises(ValueError, match="activation='gelu'"):
        SettingScorerNet(202 + 105 * 19, 105, n_settings=105, setting_offset=0, features_start=202, n_features=19,
                         activation="gelu")


def test_config_errors_name_the_problem():
    with pytest.raises(ValueError, match="setting_features: true"):
        TrainConfig(policy="SettingScorerPolicy")
    from gymnasium import spaces

    from splitpoker.agents.policies.setting_scorer import SettingScorerPolicy

    with pytest.raises(ValueError, match="takes no net_arch"):
        SettingScorerPolicy(spaces.Box(0, 1, (202 + 21 * 18,)), spaces.Discrete(21), lambda _: 1e-3, n_settings=21,
                            setting_offset=0, features_start=202, n_features=18, net_arch=[64])
    with pytest.raises(ValueError, match="works with maskable_ppo, ppo and a2c, not 'dqn'"):
        TrainConfig(policy="SettingScorerPolicy", algo="dqn", env_kwargs={"setting_features": True})
    for name in ("asia_setting_scorer.yaml", "paigow_setting_scorer.yaml"):
        cfg = TrainConfig.from_yaml(ROOT / "configs" / name)
        assert cfg.policy == "SettingScorerPolicy" and cfg.env_kwargs["setting_features"] is True


def tiny(tmp_path, algo, env_id):
    return TrainConfig(env_id=env_id, algo=algo, policy="SettingScorerPolicy", env_kwargs={"setting_features": True},
                       algo_kwargs={"n_steps": 32, "batch_size": 32, "n_epochs": 1}, policy_kwargs={"hidden": 16, "context": 4},
                       n_envs=2, total_timesteps=64, checkpoint_freq=1000, log_dir=str(tmp_path), run_name=algo)


@pytest.mark.parametrize("algo,env_id", [("maskable_ppo", "splitpoker/AsiaPoker-v0"), ("ppo", "splitpoker/PaiGowPokerSetting-v0")])
def test_train_save_and_load_in_a_fresh_process(tmp_path, algo, env_id):
    run_dir = train(tiny(tmp_path, algo, env_id), progress_bar=False, log=lambda m: None)
    model, cfg = load_model(run_dir / "model.zip")
    assert type(model.policy).__name__ == ("SettingScorerPolicy" if algo == "maskable_ppo" else "SettingScorerActorCriticPolicy")
    env = gym.make(cfg.env_id, **cfg.resolved_env_kwargs)
    obs, info = env.reset(seed=11)
    if env.unwrapped.n_bet_actions:
        obs, _, _, _, info = env.step(0)
    kw = {"action_masks": info["action_mask"]} if algo == "maskable_ppo" else {}
    action = int(model.predict(obs, deterministic=True, **kw)[0])
    with th.no_grad():
        probs = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0]).distribution.probs.numpy()[0]
    np.save(tmp_path / "obs.npy", obs)
    np.save(tmp_path / "mask.npy", info["action_mask"])
    code = (
        "import json, sys, numpy as np, torch as th\n"
        "from splitpoker.agents.training.run import load_model\n"
        f"model, cfg = load_model({str(run_dir / 'model.zip')!r})\n"
        f"obs = np.load({str(tmp_path / 'obs.npy')!r}); mask = np.load({str(tmp_path / 'mask.npy')!r})\n"
        f"kw = {{'action_masks': mask}} if {algo == 'maskable_ppo'} else {{}}\n"
        "a = int(model.predict(obs, deterministic=True, **kw)[0])\n"
        "with th.no_grad():\n"
        "    p = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0]).distribution.probs.numpy()[0]\n"
        "print(json.dumps({'action': a, 'probs': p.tolist(), 'policy': type(model.policy).__name__}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["action"] == action and got["policy"] == type(model.policy).__name__
    assert np.allclose(got["probs"], probs, atol=1e-6)
    assert info["action_mask"][action] or algo == "ppo"


def test_warm_start_clones_the_teacher_then_trains(tmp_path):
    """Behaviour cloning from the house way (a cheap teacher) on a Parquet dataset lifts the
    agreement with the teacher far above an untrained policy's, then PPO fine-tunes."""
    import pyarrow.parquet as pq

    from splitpoker.agents.training.warm_start import read_teacher_dataset

    cfg = tiny(tmp_path, "maskable_ppo", "splitpoker/PaiGowPokerSetting-v0")
    cfg.warm_start = {"teacher": "house-way", "hands": 600, "epochs": 8, "batch_size": 64}
    run_dir = train(cfg, progress_bar=False, log=lambda m: None)
    stats = json.loads((run_dir / "warm_start.json").read_text())
    table = pq.read_table(run_dir / "warm_start.parquet")
    assert table.num_rows == 600 and set(table.column_names) == {"obs", "action_mask", "action", "action_values", "seed"}
    obs, masks, actions, values = read_teacher_dataset(run_dir / "warm_start.parquet", values=True)
    assert masks[np.arange(600), actions].all()
    assert np.isnan(values).all()  # the house way names its setting, it does not value the others
    # 21 settings: cloning must agree with the teacher far above chance
    assert stats["accuracy"] > 0.6
    assert (run_dir / "model.zip").exists()


def test_warm_start_config_errors():
    for bad, match in (({"teacher": "random"}, "teacher 'random'"), ({"hands": 0}, "hands=0"),
                       ({"teachr": "table"}, "teachr"), ("table", "expected a mapping")):
        with pytest.raises((ValueError, TypeError), match=match):
            TrainConfig(warm_start=bad)
