"""Native vector environments (envs/vector/env.py): the same game as N single environments, seeding,
autoreset modes, masks, bad input, the PCG64 seed stream."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

import splitpoker.envs as envs
from splitpoker.envs.asia_poker import AsiaPokerSettingEnv
from splitpoker.envs.info import ROUND_INFO
from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.rules.play.seed_stream import (
    generator_from_state,
    round_seeds,
    states_from_generators,
)
from splitpoker.envs.vector.env import (
    AsiaPokerSettingVectorEnv,
    AsiaPokerVectorEnv,
    PaiGowPokerSettingVectorEnv,
    PaiGowPokerVectorEnv,
)

ALL_IDS = list(envs.ENV_IDS)
ASIA_IDS = [i for i in ALL_IDS if envs.GAME_OF_ENV[i] == "asia"]
PAIGOW_IDS = [i for i in ALL_IDS if envs.GAME_OF_ENV[i] == "paigow"]


# (ids, kwargs, illegal-action rate of the test policy); the illegal rate > 0 only under penalize
CASES = [
    pytest.param(ALL_IDS, {"invalid_action": "raise"}, 0.0, id="defaults-raise"),
    pytest.param(ASIA_IDS, {"house_way": "asia-borgata", "dealer_samples": 3, "observe_settings": True,
                            "invalid_action": "raise"}, 0.0, id="asia-borgata-samples-observe"),
    pytest.param(ASIA_IDS, {"rules": {"flush_beats_straight": True, "ace_low_straight": "lowest"},
                            "allow_house_way_action": True, "mask_fouls": False, "invalid_action": "raise",
                            "ante_levels": [5, 25], "bonus_levels": [0, 5, 100], "reward_unit": 25}, 0.0,
                 id="asia-rules-hwaction-nomask-levels"),
    pytest.param(PAIGOW_IDS, {"rules": {"commission": 0.0, "ace_low_straight": "lowest"}, "dealer_samples": 4,
                              "observe_settings": True, "allow_house_way_action": True, "invalid_action": "raise",
                              "wager_levels": [5, 100], "fortune_levels": [0, 25], "setting_wager": 100}, 0.0,
                 id="paigow-rules-samples-observe-levels"),
    pytest.param(ASIA_IDS, {"bonus_paytable": None, "bonus_levels": [0], "mask_fouls": False,
                            "invalid_action": "penalize", "invalid_action_penalty": 2.5}, 0.3,
                 id="asia-penalize-wrong-phase"),
    pytest.param(PAIGOW_IDS, {"fortune_paytable": None, "fortune_levels": [0], "mask_fouls": False,
                              "invalid_action": "penalize"}, 0.3, id="paigow-penalize-wrong-phase"),
    pytest.param(ALL_IDS, {"setting_features": True, "observe_settings": True, "mask_fouls": False,
                           "invalid_action": "penalize"}, 0.3, id="setting-features-penalize"),
    # the feature rows read every setting's values even when they are not observed themselves
    pytest.param(ASIA_IDS, {"setting_features": True, "observe_settings": False, "invalid_action": "raise"}, 0.0,
                 id="setting-features-unobserved-values"),
    pytest.param(ALL_IDS, {"invalid_action": "penalize"}, 0.3, id="penalize-masked-fouls-played"),
    pytest.param(ALL_IDS, {}, 0.3, id="default-kwargs-any-action"),
]


def _policy_action(rng, mask, n_actions, illegal_rate):
    if illegal_rate and rng.random() < illegal_rate:
        return int(rng.integers(n_actions))
    return int(rng.choice(np.flatnonzero(mask)))


SCALAR_KEYS = ("setting", "fouled", "hands_won", "main_result", "main_chips", "bonus_chips", "bonus_line",
               "net_chips", "dealer_setting", "agrees_with_house_way", "main_wager", "bonus_wager",
               "house_way_action", "house_way_setting", "invalid_action", "reason")


def _compare_info(vinfo, i, sinfo, where):
    """The vector row carries a key (Gymnasium's ``_key`` convention) where the single env's
    value is live; where it does not, the single env holds the key's default (ROUND_INFO). The
    single env also reports the wagers placed before settlement, which the vector env does not."""
    assert vinfo["phase"][i] == sinfo["phase"], where
    assert np.array_equal(vinfo["action_mask"][i], sinfo["action_mask"]), where
    if vinfo["_cards"][i]:
        assert format_cards(vinfo["cards"][i]) == sinfo["cards"], where
    else:
        assert sinfo["cards"] == "", where
    if vinfo.get("_dealer_cards", np.zeros(i + 1, bool))[i]:
        assert format_cards(vinfo["dealer_cards"][i]) == sinfo["dealer_cards"], where
    else:
        assert sinfo["dealer_cards"] == "", where
    for key in SCALAR_KEYS:
        if vinfo.get(f"_{key}", np.zeros(i + 1, bool))[i]:
            v = vinfo[key][i]
            assert (v.item() if hasattr(v, "item") else v) == sinfo[key], (where, key, v, sinfo[key])
        elif key not in ("main_wager", "bonus_wager"):
            assert sinfo[key] == ROUND_INFO[key], (where, key, sinfo[key])


def _run_side_by_side(env_id, kwargs, illegal_rate, n_envs=4, n_steps=40, seed=11):
    vec = gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **kwargs)
    singles = [gym.make(env_id, **kwargs).unwrapped for _ in range(n_envs)]
    vobs, vinfo = vec.reset(seed=seed)
    done = np.zeros(n_envs, dtype=bool)
    for i, env in enumerate(singles):
        obs, info = env.reset(seed=seed + i)
        assert np.array_equal(vobs[i], obs)
        _compare_info(vinfo, i, info, (env_id, "reset", i))
    rng = np.random.default_rng(seed)
    n_actions = singles[0].action_space.n
    settled = 0
    for t in range(n_steps):
        actions = np.array([_policy_action(rng, vinfo["action_mask"][i], n_actions, illegal_rate)
                            if not done[i] else 0 for i in range(n_envs)])
        vobs, vrew, vterm, vtrunc, vinfo = vec.step(actions)
        assert vobs.dtype == np.float32 and vrew.dtype == np.float64 and not vtrunc.any()
        for i, env in enumerate(singles):
            where = (env_id, t, i, int(actions[i]))
            if done[i]:
                obs, info = env.reset()
                rew, term = 0.0, False
            else:
                obs, rew, term, _, info = env.step(int(actions[i]))
                settled += term
            assert np.array_equal(vobs[i], obs), where
            assert vrew[i] == rew and vterm[i] == term, (where, vrew[i], rew)
            assert np.array_equal(vec.action_masks()[i], env.action_masks()), where
            np.testing.assert_array_equal(vec.unwrapped.player[i], env.player)
            np.testing.assert_array_equal(vec.unwrapped.dealers[i], env.dealers)
            _compare_info(vinfo, i, info, where)
        done = vterm.copy()
    assert settled >= n_envs  # the comparison covered finished rounds
    vec.close()


@pytest.mark.parametrize(("ids", "kwargs", "illegal_rate"), CASES)
def test_same_game_as_single_envs(ids, kwargs, illegal_rate):
    for env_id in ids:
        _run_side_by_side(env_id, kwargs, illegal_rate)


def test_seed_stream_matches_numpy():
    gens = [seeding.np_random(s)[0] for s in (0, 1, 7, 2**31, 2**62 + 5)]
    states = states_from_generators(gens)
    out = np.empty(len(gens), dtype=np.int64)
    for _ in range(200):
        round_seeds(states, out)
        assert out.tolist() == [int(g.integers(0, 2**63 - 1)) for g in gens]
    back = generator_from_state(states[2])
    assert back.integers(0, 2**63 - 1) == gens[2].integers(0, 2**63 - 1)


def test_seed_list_and_continuation():
    a = AsiaPokerSettingVectorEnv(3)
    b = AsiaPokerSettingVectorEnv(3)
    a.reset(seed=[5, 6, 7])
    b.reset(seed=5)
    np.testing.assert_array_equal(a.player, b.player)
    a.reset()  # continues each stream, as a single env's reset() does
    single = AsiaPokerSettingEnv()
    single.reset(seed=7)
    single.reset()
    np.testing.assert_array_equal(a.player[2], single.player)
    # a None entry draws fresh entropy for that env only
    a.reset(seed=[5, None, 7])
    b.reset(seed=5)
    np.testing.assert_array_equal(a.player[[0, 2]], b.player[[0, 2]])


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_same_step_autoreset(env_id):
    kw = {"invalid_action": "raise"}
    nxt = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", **kw)
    same = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point",
                        autoreset_mode=AutoresetMode.SAME_STEP, **kw)
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    o1, i1 = nxt.reset(seed=3)
    o2, i2 = same.reset(seed=3)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(12):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in i2["action_mask"]])
        o2, r2, t2, _, i2 = same.step(acts)
        o1, r1, t1, _, i1 = nxt.step(acts)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)
        if t1.any():
            finished += int(t1.sum())
            for i in np.flatnonzero(t1):
                np.testing.assert_array_equal(i2["final_obs"][i], o1[i])
                assert i2["final_info"]["net_chips"][i] == i1["net_chips"][i]
                assert i2["final_info"]["phase"][i] == "done"
            o1, r1, t1, _, i1 = nxt.step(np.zeros(3, dtype=np.int64))  # NEXT_STEP: the reset step
            assert not t1.any() and not r1.any()
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
    assert finished >= 3


def test_disabled_autoreset_and_reset_mask():
    env = AsiaPokerSettingVectorEnv(2, invalid_action="raise", autoreset_mode="Disabled")
    _, info = env.reset(seed=1)
    acts = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    last_obs, _, term, _, _ = env.step(acts)
    assert term.all()
    with pytest.raises(ValueError, match="action 0 of sub-environment 0 in phase DONE"):
        env.step(np.zeros(2, dtype=np.int64))
    before = env.player.copy()
    obs, info = env.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(env.player[0], before[0])
    np.testing.assert_array_equal(obs[0], last_obs[0])  # a row not reset keeps its last observation
    assert not np.array_equal(obs[1], last_obs[1])
    assert list(info["phase"]) == ["done", "set"]
    single = AsiaPokerSettingEnv()
    single.reset(seed=2)
    single.reset()
    np.testing.assert_array_equal(env.player[1], single.player)


def test_bad_input_names_env_and_action():
    with pytest.raises(ValueError, match="num_envs=0"):
        AsiaPokerVectorEnv(0)
    with pytest.raises(ValueError, match="num_envs=True"):
        AsiaPokerVectorEnv(True)
    with pytest.raises(ValueError, match="autoreset_mode='sometimes'"):
        AsiaPokerVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="dealer_samples=0"):
        AsiaPokerVectorEnv(2, dealer_samples=0)
    env = AsiaPokerVectorEnv(3, invalid_action="raise")
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(np.zeros(3, dtype=np.int64))
    env.reset(seed=0)
    state = (env.player.copy(), env.phase.copy(), env.action_masks())
    with pytest.raises(ValueError, match=r"shape \(2,\): expected \(3,\)"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="dtype float64: sub-environment 0's action is 1.5"):
        env.step(np.array([1.5, 0.0, 0.0]))
    with pytest.raises(TypeError, match="dtype bool"):
        env.step(np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="action 999 of sub-environment 1 out of range: expected 0..152"):
        env.step(np.array([0, 999, 0]))
    with pytest.raises(ValueError, match="action -1 of sub-environment 2 out of range"):
        env.step(np.array([0, 0, -1]))
    # a setting in the bet phase (raise mode): refused before any sub-environment moves
    with pytest.raises(ValueError, match="action 60 of sub-environment 2 is illegal in phase BET: the bet phase"):
        env.step(np.array([0, 1, 60]))
    np.testing.assert_array_equal(env.player, state[0])
    np.testing.assert_array_equal(env.phase, state[1])
    np.testing.assert_array_equal(env.action_masks(), state[2])
    env.step(np.array([0, 1, 2]))
    fouled = np.flatnonzero(env.fouled[1])
    assert fouled.size
    acts = np.array([48, 48 + int(fouled[0]), 48])
    acts[0] = 48 + int(np.flatnonzero(~env.fouled[0])[0])
    acts[2] = 48 + int(np.flatnonzero(~env.fouled[2])[0])
    with pytest.raises(ValueError, match=rf"action {acts[1]} of sub-environment 1 is illegal in phase SET: setting "
                                         rf"{fouled[0]} is fouled \(high \["):
        env.step(acts)
    with pytest.raises(ValueError, match="seed=-1"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="2 seeds for 3 sub-environments"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match=r"reset options \['bogus'\]"):
        env.reset(options={"bogus": 1})
    with pytest.raises(ValueError, match="render_mode='human'"):
        AsiaPokerVectorEnv(2, render_mode="human")


def test_penalize_semantics_of_the_vector_env():
    """Under ``invalid_action="penalize"`` a masked fouled setting is played (a foul loses the
    ante), a wrong-phase action ends the episode with ``-invalid_action_penalty``."""
    env = PaiGowPokerVectorEnv(2, invalid_action="penalize", invalid_action_penalty=3.0, fortune_levels=[0])
    env.reset(seed=4)
    obs, rew, term, _, info = env.step(np.array([0, 20]))  # env 1: a setting in the bet phase
    assert rew.tolist() == [0.0, -3.0] and term.tolist() == [False, True]
    # every row carries every key (Gymnasium's sync layout): -1 where no action was penalised
    assert info["_invalid_action"].all() and info["invalid_action"].tolist() == [-1, 20]
    assert info["reason"][1].startswith("the bet phase takes actions 0..6")
    assert info["net_chips"][1] == -15.0
    assert info["phase"].tolist() == ["set", "done"] and info["action_mask"][1].all()  # never an empty mask
    for seed in range(20):
        env.reset(seed=seed)
        env.step(np.array([6, 0]))  # $500 and $5 wagers
        if env.fouled[0].any():
            break
    s = int(np.flatnonzero(env.fouled[0])[0])
    _, rew, term, _, info = env.step(np.array([7 + s, 0]))  # env 1: a bet in the set phase
    assert term.all()
    assert info["fouled"][0] and info["main_result"][0] == -1.0 and rew[0] == -500.0 / 5.0
    assert info["_invalid_action"].all() and info["invalid_action"].tolist() == [-1, 0]
    assert info["reason"][1].startswith("bets are over; the set phase takes settings 7..27")


@pytest.mark.parametrize("legal", [[3, 50, 105], list(range(2, 104))])
def test_sample_legal_is_uniform_over_the_legal_actions(legal):
    """Rows with 3 legal actions of 106 (the counted fallback after the random tries) and with
    102 (a draw or two): every legal action comes up 1/L of the time within 5 standard deviations,
    never an illegal one; a row with nothing legal gives 0."""
    from splitpoker.envs.vector.sampling import sample_legal

    rows, width = 30_000, 106
    mask = np.zeros((rows, width), dtype=bool)
    mask[:, legal] = True
    mask[7] = False
    out = np.empty(rows, dtype=np.int64)
    sample_legal(mask, np.uint64(12345), out)
    assert out[7] == 0
    picked = np.delete(out, 7)
    assert np.isin(picked, legal).all()
    counts = np.bincount(picked, minlength=width)[legal]
    expected = picked.size / len(legal)
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected * (1 - 1 / len(legal))), counts


def test_step_outputs_are_in_the_kernel_order():
    """The named output rows are the rows of the blocks the kernel unpacks, in its order; the
    final observations (SAME_STEP) are the second half of the observation block."""
    from splitpoker.envs.rules.play import kernel as K
    from splitpoker.envs.rules.play.round_rows import Outputs

    out = Outputs(5, 202, True)
    rows, final_base, *blocks = out.fields
    assert len(out.fields) == len(K.OUT_FIELDS)
    for block, names in zip(blocks, (K.FLOAT_ROWS, K.INT_ROWS, K.CARD_ROWS, K.FLAG_ROWS), strict=True):
        assert len(block) == len(names)
        for j, name in enumerate(names):
            mine = getattr(out, name)
            assert np.shares_memory(mine, block[j]) and mine.shape == block[j].shape, name
            block[j].reshape(-1)[0] = 1
            assert mine.reshape(-1)[0] == 1, name
    assert rows.shape == (10, 202) and final_base == 5
    assert np.shares_memory(out.obs, rows) and out.final_obs.shape == (5, 202)
    assert out.terminated.dtype == np.bool_ and out.fouled.dtype == np.bool_ and out.cards.shape == (5, 7)
    assert Outputs(5, 202, False).fields[1] == -1


def test_sample_legal_actions_respects_masks():
    env = AsiaPokerVectorEnv(64, invalid_action="raise")
    env.reset(seed=0)
    seen = set()
    for _ in range(6):
        a = env.sample_legal_actions(np.random.default_rng(1))
        masks = env.action_masks()
        done = ~masks.any(axis=1)
        assert masks[np.arange(64)[~done], a[~done]].all()
        seen.update(a.tolist())
        env.step(a)
    assert len(seen) > 20


def test_spaces_and_registration():
    for env_id in ALL_IDS:
        vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", observe_settings=True)
        single = gym.make(env_id, observe_settings=True)
        assert vec.single_action_space == single.action_space
        assert vec.single_observation_space == single.observation_space
        assert vec.observation_space.shape == (2, single.observation_space.shape[0])
        obs, info = vec.reset(seed=0)
        assert vec.observation_space.contains(obs)
        assert info["action_mask"].shape == (2, single.action_space.n)
        assert "Episode End" in type(vec.unwrapped).__doc__


@pytest.mark.parametrize("env_cls", [AsiaPokerVectorEnv, PaiGowPokerSettingVectorEnv])
def test_threads_do_not_change_results(env_cls):
    """1, 2 and 3 threads (uneven blocks: 17 environments) step bit for bit alike, resets with a
    reset_mask included; each thread writes only its own block's rows."""
    runs = []
    for threads in (1, 2, 3):
        env = env_cls(17, num_threads=threads, invalid_action="raise")
        assert env.num_threads == threads
        _, info = env.reset(seed=8)
        rng = np.random.default_rng(2)
        trace = []
        for k in range(12):
            obs, rew, term, _, info = env.step(env.sample_legal_actions(rng))
            trace.append((obs.tobytes(), rew.tobytes(), term.tobytes(), info["action_mask"].tobytes(),
                          info["house_way_setting"].tobytes()))
            if k == 6:
                obs, info = env.reset(options={"reset_mask": np.arange(17) % 3 == 0})
                trace.append((obs.tobytes(), info["cards"].tobytes()))
        env.close()
        assert not env._pool.started
        runs.append(trace)
    assert runs[0] == runs[1] == runs[2]


def test_num_threads_default_and_bad_values():
    from splitpoker.envs.vector.env import MIN_ENVS_PER_THREAD, resolve_num_threads, usable_cpus

    assert AsiaPokerVectorEnv(4).num_threads == 1  # a few environments: the calling thread alone
    assert resolve_num_threads(None, MIN_ENVS_PER_THREAD - 1) == 1
    assert resolve_num_threads(None, 2 * MIN_ENVS_PER_THREAD) == min(2, usable_cpus())
    assert resolve_num_threads(None, 10**6) == usable_cpus()
    assert resolve_num_threads(8, 3) == 3  # never more threads than environments
    for bad in (0, -1, 65, 1.5, True, "2"):
        with pytest.raises(ValueError, match=f"num_threads={bad!r}: expected None"):
            AsiaPokerVectorEnv(2, num_threads=bad)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_threaded_env_steps_in_a_forked_child():
    """A process forked while the env's worker threads exist (multiprocessing's fork start
    method) gets none of them: the env starts its own instead of waiting on threads that are gone."""
    import os

    env = PaiGowPokerSettingVectorEnv(8, num_threads=2)
    env.reset(seed=3)
    env.step(env.sample_legal_actions(np.random.default_rng(0)))  # the pool exists now
    pid = os.fork()
    if pid == 0:  # the child: step, then report through the exit code
        code = 1
        try:
            env.step(env.sample_legal_actions(np.random.default_rng(1)))
            code = 0
        finally:
            os._exit(code)
    deadline = __import__("time").time() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if __import__("time").time() > deadline:
            os.kill(pid, 9)
            pytest.fail("the forked child hung stepping the threaded env")
        __import__("time").sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
    env.close()


def test_object_actions_and_steps_after_close_are_refused():
    env = AsiaPokerSettingVectorEnv(2)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="actions must be integers .* dtype object: sub-environment 0's action is 3"):
        env.step(np.array([3, 4], dtype=object))
    env.close()
    with pytest.raises(RuntimeError, match=r"step\(\) after close\(\)"):
        env.step(np.array([0, 0]))
    with pytest.raises(RuntimeError, match=r"reset\(\) after close\(\)"):
        env.reset(seed=0)


def test_num_envs_past_its_bound_is_refused():
    with pytest.raises(ValueError, match=r"num_envs=10000000: expected an integer 1..1,048,576"):
        gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=10**7, vectorization_mode="vector_entry_point")
