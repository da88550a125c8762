"""Rollouts pinned to digests recorded before the round moved into ``splitpoker.envs.rules.play.round``.

For each registered one-seat, table and session id (and a few non-default one-seat configs that
reach the other settlement paths: several dealer hands, observed settings, setting features, the
house-way action, a non-default commission and ranking option), 2,000 steps of uniformly random
*legal* actions from a fixed seed are hashed: every observation (bytes), reward (float64 bytes),
terminated/truncated flag and info (keys sorted, arrays as bytes, floats by ``repr``). The digests
below were made with the code as it was before the restructuring; any change in behaviour, in an
observation bit, a reward or an info entry changes them.
"""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest

import splitpoker  # noqa: F401  (registers the ids)

N_STEPS = 2_000

CASES = {
    "asia": ("splitpoker/AsiaPoker-v0", {}),
    "asia-setting": ("splitpoker/AsiaPokerSetting-v0", {}),
    "paigow": ("splitpoker/PaiGowPoker-v0", {}),
    "paigow-setting": ("splitpoker/PaiGowPokerSetting-v0", {}),
    "asia-table": ("splitpoker/AsiaTable-v0", {}),
    "paigow-table": ("splitpoker/PaiGowTable-v0", {}),
    "asia-session": ("splitpoker/AsiaPokerSession-v0", {}),
    "paigow-session": ("splitpoker/PaiGowPokerSession-v0", {}),
    "asia-variant": ("splitpoker/AsiaPoker-v0", dict(
        house_way="asia-borgata", dealer_samples=3, observe_settings=True, setting_features=True,
        allow_house_way_action=True, mask_fouls=False, rules={"ace_low_straight": "second_highest"})),
    "paigow-variant": ("splitpoker/PaiGowPoker-v0", dict(
        dealer_samples=2, observe_settings=True, setting_features=True, allow_house_way_action=True,
        rules={"commission": 0.0, "ace_low_straight": "lowest"})),
    "asia-session-agent": ("splitpoker/AsiaPokerSession-v0", dict(setting="agent", max_hands=50)),
    "paigow-session-agent": ("splitpoker/PaiGowPokerSession-v0", dict(setting="agent", max_hands=50)),
}


def _feed(h, value) -> None:
    if isinstance(value, dict):
        for k in sorted(value):
            h.update(repr(k).encode())
            _feed(h, value[k])
    elif isinstance(value, (list, tuple)):
        h.update(b"[")
        for v in value:
            _feed(h, v)
        h.update(b"]")
    elif isinstance(value, np.ndarray):
        h.update(str(value.dtype).encode() + repr(value.shape).encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (float, np.floating)):
        h.update(repr(float(value)).encode())
    elif isinstance(value, (bool, np.bool_)):
        h.update(b"T" if value else b"F")
    elif isinstance(value, (int, np.integer)):
        h.update(b"i" + str(int(value)).encode())
    else:
        h.update(repr(value).encode())


def rollout_digest(env_id: str, kwargs: dict, seed: int = 7, n_steps: int = N_STEPS) -> str:
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _feed(h, obs)
    _feed(h, info)
    for _ in range(n_steps):
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        obs, reward, terminated, truncated, info = env.step(action)
        _feed(h, (action, obs, np.float64(reward), bool(terminated), bool(truncated), info))
        if terminated or truncated:
            obs, info = env.reset()
            _feed(h, (obs, info))
    env.close()
    return h.hexdigest()


DIGESTS = {
    "asia": "0d27a02fb23227aacca7277309c9869929a50dd86ca43d39ea889b96a1ae6775",
    "asia-session": "023712e78430be419b821ffd3c83f296dbafa25fe60ae059e9a90556c1869e36",
    "asia-session-agent": "cb77ba51c9e73ecf1c7a5a628ad5a4dd812dda028f14578a0743d1b3ff6e3aef",
    "asia-setting": "7468e35c158055f38a26cd75e9bd9d2a580c9af0d3c0aad9635ee77da61e4e8b",
    "asia-table": "57e2fd21e1b053b616e40123d5e79c40dbad0072b661fb5c5e94365b0d7c683a",
    "asia-variant": "e3d54e7c4fa88fcc1e8e4f6eeea9aaf2482c380a256cb5189023217a1fb57fdb",
    "paigow": "7f81bcf73dfc22ca9f83d5369f74f8e21ed5950dd832130c8aeb4902a36158d3",
    "paigow-session": "74c560cd809ea697f7ccf7e130fd1c233d2ea5a0d48e793133f4f6a0edc441bf",
    "paigow-session-agent": "a3a169d4bc17b62a09fdfdbf55d81a13bb0e86e7fd579aa8735feeec46453843",
    "paigow-setting": "25a68a4c1412669349249cdff91877523acbd837e68987c6db7c07a41e2aa18e",
    "paigow-table": "4d6df17a654869d845c184c1b7ee9d41cfcb56bd4fee4ab0795416110caa569d",
    "paigow-variant": "5320aae4ca52206a4cdb8653cefc0337640bb8bc5368cba1d4bb146cb5cbdbf3",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rollout_matches_recorded_digest(case):
    env_id, kwargs = CASES[case]
    assert rollout_digest(env_id, kwargs) == DIGESTS[case], f"{case}: {env_id} {kwargs} behaves differently"


if __name__ == "__main__":  # prints the table above (run on the code whose behaviour is pinned)
    for name in sorted(CASES):
        print(f'    "{name}": "{rollout_digest(*CASES[name])}",', flush=True)
