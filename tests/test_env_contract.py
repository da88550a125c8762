"""What outside RL libraries rely on, over every registered id: masks never all False, ``info``
with the same keys at every step and no ``None`` anywhere, Python's own wording for an unknown
keyword, and ``rgb_array`` rendering.

Each rollout takes uniformly random actions over the *whole* action space (illegal ones too, so
penalised ends and played fouls occur), as an unmasked learner would.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import splitpoker
from splitpoker.envs.info import ROUND_INFO, SESSION_INFO, TABLE_INFO

IDS = list(splitpoker.ALL_ENV_IDS)
SCHEMA = {**{i: ROUND_INFO for i in splitpoker.ENV_IDS}, "splitpoker/AsiaTable-v0": TABLE_INFO,
          "splitpoker/PaiGowTable-v0": TABLE_INFO, "splitpoker/AsiaPokerSession-v0": SESSION_INFO,
          "splitpoker/PaiGowPokerSession-v0": SESSION_INFO}
KWARGS = {"splitpoker/AsiaPokerSession-v0": {"setting": "agent", "max_hands": 20},
          "splitpoker/PaiGowPokerSession-v0": {"setting": "agent", "max_hands": 20}}


def _nones(value, path="info"):
    """Paths of every ``None`` inside ``value`` (dicts and lists walked)."""
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _nones(v, f"{path}[{k!r}]")]
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.dtype == object):
        return [p for i, v in enumerate(value) for p in _nones(v, f"{path}[{i}]")]
    return []


def _masked_sample(mask: np.ndarray, rng: np.random.Generator) -> int:
    """What a masked sampler does: softmax over the legal logits (-inf elsewhere); an all-False
    mask would give NaN probabilities."""
    logits = np.where(mask, rng.normal(size=mask.size), -np.inf)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    assert np.isfinite(p).all()
    return int(rng.choice(mask.size, p=p))


@pytest.mark.parametrize("env_id", IDS)
def test_masks_never_empty_and_info_keys_fixed(env_id):
    env = gym.make(env_id, **KWARGS.get(env_id, {}))
    rng = np.random.default_rng(0)
    schema = SCHEMA[env_id]
    keys = types = None
    ends = 0
    obs, info = env.reset(seed=3)
    for _ in range(300):
        mask = np.asarray(info["action_mask"], dtype=bool)
        assert mask.shape == (env.action_space.n,) and mask.any(), info["phase"]
        _masked_sample(mask, rng)
        assert not _nones(info), _nones(info)
        assert set(schema) <= set(info), sorted(set(schema) - set(info))
        keys = keys or set(info)
        assert set(info) == keys, sorted(set(info) ^ keys)
        types = types or {k: type(info[k]) for k in schema}
        assert {k: type(info[k]) for k in schema} == types  # one type per key at every step
        obs, _, terminated, truncated, info = env.step(int(env.action_space.sample()))
        if terminated or truncated:
            ends += 1
            assert np.asarray(info["action_mask"], dtype=bool).all()  # terminal: every action marked
            assert set(info) == keys and not _nones(info)
            obs, info = env.reset()
    assert ends >= 5
    env.close()


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("env_id", list(splitpoker.ENV_IDS))
def test_vector_masks_never_empty(env_id, mode):
    vec = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point", autoreset_mode=mode)
    rng = np.random.default_rng(1)
    obs, info = vec.reset(seed=0)
    dummy_rows = 0
    for _ in range(40):
        masks = vec.action_masks()
        assert masks.any(axis=1).all()
        assert np.array_equal(masks, info["action_mask"])
        actions = np.array([_masked_sample(m, rng) for m in masks])
        obs, _, terminated, _, info = vec.step(actions)
        dummy_rows += int(np.count_nonzero(info["phase"] == "done"))
        assert not _nones({k: v for k, v in info.items() if k not in ("final_obs", "final_info")})
        if "final_info" in info:
            assert info["final_info"]["action_mask"][info["_final_info"]].all()
            assert not _nones({k: v for k, v in info["final_info"].items()})
    if mode == "NextStep":
        assert dummy_rows > 0  # autoreset steps were met, and their masks were not empty
    vec.close()


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_keyword_in_pythons_words(env_id):
    """TorchRL's ``GymEnv(id)`` passes ``frameskip`` and retries without it when the error says
    ``got an unexpected keyword argument 'frameskip'``."""
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'frameskip'"):
        gym.make(env_id, frameskip=4)


@pytest.mark.parametrize("env_id", ["splitpoker/AsiaPokerSession-v0", "splitpoker/PaiGowPokerSession-v0"])
def test_session_envs_render_rgb_array(env_id):
    env = gym.make(env_id, render_mode="rgb_array", setting="agent", max_hands=3)
    env.reset(seed=0)
    frames = [env.render()]
    for _ in range(4):
        mask = env.unwrapped.action_masks()
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(mask)[0]))
        frames.append(env.render())
        if terminated:
            break
    assert all(f.shape == (450, 800, 3) and f.dtype == np.uint8 for f in frames)
    assert not np.array_equal(frames[0], frames[-1])  # the picture follows the session
    env.close()
