"""Gymnasium environments: checkers, determinism, masks and phase errors, reward accounting."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import splitpoker.envs as envs
from splitpoker.envs.asia_poker import AsiaPokerEnv, AsiaPokerSettingEnv
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
from splitpoker.envs.pai_gow_poker import PaiGowPokerEnv, PaiGowPokerSettingEnv
from splitpoker.envs.rules.bonus.features import bonus_features
from splitpoker.envs.rules.bonus.paytables import FORTUNE, SEED_000
from splitpoker.envs.rules.games.asia import AsiaPoker
from splitpoker.envs.rules.games.paigow import PaiGowPoker
from splitpoker.envs.rules.house_ways.registry import house_way_setting
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.rules.play.observation import OBS_SIZE, cards_from_observation

ALL_IDS = list(envs.ENV_IDS)


def random_legal(info, rng):
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def play(env, seed, policy):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        obs, r, term, trunc, info = env.step(policy(obs, info))
        total += r
        steps += 1
        if term or trunc:
            return obs, total, info, steps


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_checkers(env_id):
    # the checkers sample unmasked actions: every action steps under the DEFAULT arguments
    gym_check_env(gym.make(env_id).unwrapped)
    sb3_check_env(gym.make(env_id).unwrapped)
    gym_check_env(gym.make(env_id, mask_fouls=False, allow_house_way_action=True).unwrapped)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_determinism(env_id):
    runs = []
    for _ in range(2):
        env = gym.make(env_id)
        rng = np.random.default_rng(3)
        out = []
        for ep in range(20):
            obs, total, info, steps = play(env, 100 + ep, lambda o, i: random_legal(i, rng))
            out.append((obs.tobytes(), total, info["cards"], info["dealer_cards"], info["setting"], steps))
        runs.append(out)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_random_rollouts_respect_masks(env_id):
    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    fouls = 0
    for ep in range(2500):
        obs, info = env.reset(seed=ep)
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        while True:
            assert np.array_equal(info["action_mask"], env.unwrapped.action_masks())
            obs, r, term, trunc, info = env.step(random_legal(info, rng))
            assert env.observation_space.contains(obs)
            if term:
                fouls += info["fouled"]
                break
    assert fouls == 0  # masked fouls can never be chosen


def test_phase_and_mask_errors():
    env = AsiaPokerEnv(invalid_action="raise")
    obs, info = env.reset(seed=1)
    assert info["phase"] == "bet" and obs[:53].sum() == 0 and obs[197] == 1
    with pytest.raises(ValueError, match=r"action 60 is illegal in phase BET: the bet phase takes actions 0\.\.47"):
        env.step(60)
    with pytest.raises(ValueError, match="action 999 out of range"):
        env.step(999)
    with pytest.raises(ValueError, match="not an integer"):
        env.step(1.5)
    env.step(0)
    assert env.phase.name == "SET"
    with pytest.raises(ValueError, match="action 3 is illegal in phase SET: bets are over"):
        env.step(3)
    fouled = int(np.flatnonzero(env.fouled)[0])
    with pytest.raises(ValueError, match=f"action {48 + fouled} is illegal in phase SET: setting {fouled} is fouled"):
        env.step(48 + fouled)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(legal)
    with pytest.raises(ValueError, match="phase DONE: the episode is over, call reset"):
        env.step(legal)


def test_penalize_mode():
    env = AsiaPokerEnv(invalid_action="penalize", invalid_action_penalty=2.0)
    env.reset(seed=1)
    _, r, term, _, info = env.step(60)  # a setting in the bet phase
    assert term and r == -2.0 and info["invalid_action"] == 60 and "the bet phase takes actions 0..47" in info["reason"]


def test_unmasked_fouls_lose():
    env = AsiaPokerSettingEnv(mask_fouls=False)
    env.reset(seed=1)
    assert env.action_masks().all()
    fouled = int(np.flatnonzero(env.fouled)[0])
    _, r, term, _, info = env.step(fouled)
    assert term and info["fouled"] and r == -1.0 and info["main_result"] == -1.0


@pytest.mark.parametrize("cls", [AsiaPokerSettingEnv, PaiGowPokerSettingEnv])
def test_house_way_action(cls):
    env = cls(allow_house_way_action=True)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        assert info["action_mask"][-1]
        _, _, _, _, info = env.step(env.action_space.n - 1)
        assert info["setting"] == info["house_way_setting"] and info["agrees_with_house_way"] and info["house_way_action"]


def _independent_asia_net(info, env, ante, bonus):
    g = AsiaPoker(env.config.rules)
    dealer = g.hand(info["dealer_cards"])
    ds = house_way_setting(env.config.house_way, g, dealer).setting
    main, won, fouled = g.settle(env.player, info["setting"], dealer, ds)
    bonus_chips = SEED_000.settle(bonus_features(env.player), bonus)[0] if bonus else 0.0
    return ante * main + bonus_chips, won, ds


def test_asia_reward_accounting_with_bets():
    env = AsiaPokerEnv()
    rng = np.random.default_rng(5)
    n_bonus = len(env.config.bonus_levels)
    for seed in range(300):
        _, info = env.reset(seed=seed)
        bet = int(rng.integers(env.n_bet_actions))
        ante, bonus = env.config.ante_levels[bet // n_bonus], env.config.bonus_levels[bet % n_bonus]
        obs, r0, term, _, info = env.step(bet)
        assert r0 == 0.0 and not term
        assert obs[200] == pytest.approx(ante / 1000) and obs[201] == pytest.approx(bonus / 100)
        assert cards_from_observation(obs).tolist() == env.player.tolist()
        _, r, term, _, info = env.step(random_legal(info, rng))
        net, won, ds = _independent_asia_net(info, env, ante, bonus)
        assert term and r == pytest.approx(net / 5.0)
        assert info["net_chips"] == pytest.approx(net) and info["hands_won"] == won and info["dealer_setting"] == ds


def test_paigow_reward_accounting_and_commission():
    for commission in (0.05, 0.0):
        env = PaiGowPokerEnv(rules=PaiGowRules(commission=commission))
        g = PaiGowPoker(env.config.rules)
        rng = np.random.default_rng(6)
        n_f = len(env.config.fortune_levels)
        seen_win = False
        for seed in range(300):
            _, info = env.reset(seed=seed)
            bet = int(rng.integers(env.n_bet_actions))
            wager, fortune = env.config.wager_levels[bet // n_f], env.config.fortune_levels[bet % n_f]
            _, _, _, _, info = env.step(bet)
            _, r, _, _, info = env.step(random_legal(info, rng))
            dealer = g.hand(info["dealer_cards"])
            ds = house_way_setting(env.config.house_way, g, dealer).setting
            main, won, _ = g.settle(env.player, info["setting"], dealer, ds)
            fchips = FORTUNE.settle(bonus_features(env.player), fortune)[0] if fortune else 0.0
            assert r == pytest.approx((wager * main + fchips) / 5.0)
            if won == 2:
                seen_win = True
                assert info["main_chips"] == pytest.approx(wager * (1 - commission))
        assert seen_win


def test_dealer_samples_first_dealer_shared_and_mean():
    one = AsiaPokerSettingEnv(dealer_samples=1)
    many = AsiaPokerSettingEnv(dealer_samples=8)
    g = AsiaPoker()
    for seed in range(30):
        _, i1 = one.reset(seed=seed)
        _, i8 = many.reset(seed=seed)
        assert i1["cards"] == i8["cards"]
        s = int(np.flatnonzero(i1["action_mask"])[0])
        _, r1, _, _, i1 = one.step(s)
        _, r8, _, _, i8 = many.step(s)
        assert i1["dealer_cards"] == i8["dealer_cards"]  # dealer 0 is the same hand
        results = []
        for d in many.dealers:
            ds = house_way_setting("asia-000", g, d).setting
            results.append(g.settle(many.player, s, d, ds)[0])
        assert r8 == pytest.approx(np.mean(results))


def test_dealer_samples_same_expectation():
    means = {}
    for k in (1, 8):
        env = AsiaPokerSettingEnv(dealer_samples=k, allow_house_way_action=True)
        rewards = [play(env, 10_000 + s, lambda o, i: env.action_space.n - 1)[1] for s in range(3000)]
        means[k] = (np.mean(rewards), np.std(rewards) / np.sqrt(len(rewards)))
    (m1, s1), (m8, s8) = means[1], means[8]
    assert s8 < s1  # variance reduction
    assert abs(m1 - m8) < 4 * np.hypot(s1, s8)


def test_render_modes(capsys):
    env = gym.make("splitpoker/AsiaPokerSetting-v0", render_mode="ansi")
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    text = env.render()
    assert "your cards:" in text and "dealer:" in text and any(s in text for s in "♠♥♦♣")
    env = gym.make("splitpoker/PaiGowPoker-v0", render_mode="human")
    env.reset(seed=2)
    assert "choose a bet" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode='rgb'"):
        AsiaPokerEnv(render_mode="rgb")


def test_make_vec_and_masks():
    vec = gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=3, vectorization_mode="sync")
    obs, info = vec.reset(seed=0)
    assert obs.shape == (3, OBS_SIZE) and info["action_mask"].shape == (3, 105)
    rng = np.random.default_rng(0)
    for _ in range(10):
        # an empty mask marks a finished episode: gymnasium's next-step autoreset ignores the action
        acts = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]])
        obs, r, term, trunc, info = vec.step(acts)
        assert r.shape == (3,)
    vec.close()


def test_config_validation_and_yaml(tmp_path):
    with pytest.raises(ValueError, match="ante_levels level 2000 is off the table limits"):
        AsiaPokerConfig(ante_levels=(5, 2000))
    with pytest.raises(ValueError, match="bonus_levels level 7 is not a multiple of the \\$5 chip"):
        AsiaPokerConfig(bonus_levels=(0, 7))
    with pytest.raises(ValueError, match="house-way style 'paigow-igw' is for paigow"):
        AsiaPokerConfig(house_way="paigow-igw")
    with pytest.raises(ValueError, match="dealer_samples=0"):
        AsiaPokerConfig(dealer_samples=0)
    with pytest.raises(TypeError, match=r"AsiaPokerEnv.__init__\(\) got an unexpected keyword argument 'colour': expected"):
        AsiaPokerEnv(colour="red")
    with pytest.raises(ValueError, match="fortune_paytable 'seed-000' is a asia/odds table"):
        PaiGowPokerConfig(fortune_paytable="seed-000")
    p = tmp_path / "t.yaml"
    p.write_text("env:\n  house_way: asia-borgata\n  rules: {ace_low_straight: second_highest}\n  ante_levels: [5, 25]\n")
    cfg = AsiaPokerConfig.from_yaml(p)
    assert cfg.house_way == "asia-borgata" and cfg.rules.wheel_high and cfg.ante_levels == (5.0, 25.0)
    assert AsiaPokerConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize("cls,size,env_id", [(AsiaPokerSettingEnv, 517, "splitpoker/AsiaPokerSetting-v0"),
                                             (PaiGowPokerEnv, 244, "splitpoker/PaiGowPoker-v0")])
def test_observe_settings_variant(cls, size, env_id):
    env = cls(observe_settings=True)
    obs, info = env.reset(seed=4)
    assert obs.shape == (size,) and env.observation_space.contains(obs)
    if env.betting:
        assert not obs[OBS_SIZE:].any()  # nothing dealt to show yet
        obs, *_ = env.step(0)
    width = env.ranks_width
    vals = obs[OBS_SIZE:].reshape(env.n_settings, width)
    assert np.allclose(vals[:, 1], env.ranks[:, 1] / 90)
    assert np.allclose(vals[:, 0], env.ranks[:, 0] / (env.game.table.n_classes - 1))
    gym_check_env(gym.make(env_id, observe_settings=True).unwrapped)


def _same_info(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a)


@pytest.mark.parametrize("env_id,kwargs", [
    ("splitpoker/AsiaPokerSetting-v0", {"dealer_samples": 3, "observe_settings": True, "setting_features": True}),
    ("splitpoker/PaiGowPokerSetting-v0", {"house_way": "paigow-foxwoods"}),
    ("splitpoker/PaiGowPoker-v0", {}),
])
def test_reset_with_the_cards_a_seed_deals_is_that_seeds_reset(env_id, kwargs):
    """``reset(options={"cards": c})`` deals the player ``c`` and the dealer hands the round's seed
    deals from the other 46 cards: given the cards seed ``s`` deals, it is ``reset(seed=s)`` (obs,
    info, every dealer hand), and the next episode is the same too (np_random advanced alike)."""
    env = gym.make(env_id, **kwargs)
    for seed in range(8):
        want_obs, want_info = env.reset(seed=seed)
        cards, dealers = env.unwrapped.player.copy(), env.unwrapped.dealers.copy()
        next_obs, _ = env.reset()
        got_obs, got_info = env.reset(seed=seed, options={"cards": cards[::-1].tolist()})
        np.testing.assert_array_equal(got_obs, want_obs)
        assert _same_info(got_info, want_info)
        np.testing.assert_array_equal(env.unwrapped.dealers, dealers)
        np.testing.assert_array_equal(env.reset()[0], next_obs)


def test_reset_with_cards_deals_them_and_dealers_from_the_rest():
    env = gym.make("splitpoker/AsiaPokerSetting-v0", dealer_samples=4)
    _, info = env.reset(seed=3, options={"cards": "As Kd 7h 7c 4s 3d 2c"})
    u = env.unwrapped
    assert info["cards"] == "2c 3d 4s 7h 7c Kd As"
    for hand in u.dealers:
        assert len(set(hand.tolist())) == 7 and not set(hand.tolist()) & set(u.player.tolist())
    assert info["house_way_setting"] == house_way_setting("asia-000", AsiaPoker(), u.player).setting
    for options, match in (({"cards": "As As 7h 7c 4s 3d 2c"}, "duplicate card 'As'"),
                           ({"cards": "As Kd 7h 7c 4s 3d"}, "expected 7 cards, got 6"),
                           ({"cards": "As Kd 7h 7c 4s 3d Zz"}, "bad card 'Zz'"),
                           ({"card": "As"}, r"reset options \['card'\] are not supported"),
                           ("As Kd", "expected a dict")):
        with pytest.raises(ValueError, match=match):
            env.reset(seed=1, options=options)
