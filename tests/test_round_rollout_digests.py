"""Rollouts pinned to digests recorded before the round moved into ``splitpoker.envs.rules.play.round``.

For each registered one-seat, table and session id (and a few non-default one-seat configs that
reach the other settlement paths: several dealer hands, observed settings, setting features, the
house-way action, a non-default commission and ranking option), 2,000 steps of uniformly random
*legal* actions from a fixed seed are hashed: every observation (bytes), reward (float64 bytes),
terminated/truncated flag and info (keys sorted, arrays as bytes, floats by ``repr``). The digests
below were made with the code as it was before the restructuring; any change in behaviour, in an
observation bit, a reward or an info entry changes them.

Two tables. :data:`GAME_DIGESTS` hash the game alone (actions, observations, rewards,
terminated/truncated flags, no ``info``): recorded before the ``info`` keys were made the same at
every step and the terminal masks all True, and unchanged by that change. :data:`DIGESTS` hash
everything, ``info`` included: re-recorded after it (the game digests vouch that only ``info`` and
the terminal masks moved). A refactoring must leave both unchanged.
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


def rollout_digest(env_id: str, kwargs: dict, seed: int = 7, n_steps: int = N_STEPS, with_info: bool = True) -> str:
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _feed(h, obs)
    if with_info:
        _feed(h, info)
    for _ in range(n_steps):
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        obs, reward, terminated, truncated, info = env.step(action)
        _feed(h, (action, obs, np.float64(reward), bool(terminated), bool(truncated)) + ((info,) if with_info else ()))
        if terminated or truncated:
            obs, info = env.reset()
            _feed(h, (obs, info) if with_info else obs)
    env.close()
    return h.hexdigest()


GAME_DIGESTS = {
    "asia": "98563a875064f406089b8b27f90bde0b614fc789923ea074ccf0d2f26846d235",
    "asia-session": "f18b2bebd06317c9eb9b960f5305fa55e8e0d96e09a5e6ce6afc46ee066ce11d",
    "asia-session-agent": "7e933351de01046090b49df9586c2b0035fbebd5d862f3cfac1b6b94294c1706",
    "asia-setting": "59d9aba7293062b6a03d9fe682dad43256f947b7ba93b0ac0b4a8f799391d69d",
    "asia-table": "af1655663525d83e9d753edd756b359a777c727defff00b8097031b8ed28e803",
    "asia-variant": "a7cf681048229c4f2afada7b991f0cda18914f813f199d7faf3e70707228ec37",
    "paigow": "1b12fcdb5411c62150975b2d1abcee9f141a7b60f887d519143f97c55305ff0b",
    "paigow-session": "7c5b533c5d410d314a70422d3cab2aa0667b9ebca007528e36fe2a77ec689a4e",
    "paigow-session-agent": "9104f92779ea6f538c78bc19762386b311bbfc42759370032ada663b262d08a9",
    "paigow-setting": "59a596560d8a3870b94b892c46f7f2b1c5ffac04d7e4b2de7e3ed7d9c48269e6",
    "paigow-table": "b079a19bdb0ea6997f5af420ef87f435ccf580f4ce938f745c89438ca9f16d7a",
    "paigow-variant": "176c65ae5a26d8c954393ab7fb75963dcda9142cf7e45d0d8b7142d36b89f678",
}

DIGESTS = {
    "asia": "2e24096b38a2d92fb6e4cdb416b296b66f586abcdd146c5c858139f03855c6a1",
    "asia-session": "39d59d336461017386c5150016f7915182077ef4847bd82579689ce866bc97d0",
    "asia-session-agent": "aba58df7c182d2b2709874fd6b5e69a237095333a69dbdd02253fdc59d079e12",
    "asia-setting": "357f946fd4f10d164b3ea7d578ee8a21546a8c5d2de8bc48ab2eefadeba22ba3",
    "asia-table": "5ed9d0790314b63c56173f7cbeba32829a788d4705039e987b6f3e69ee876548",
    "asia-variant": "c9ab6e464a82308d6f1b9b1df93483ec80b9aaecdd3e96598ca312ea8acc0f35",
    "paigow": "774ff1d8918b7f3955b9cbc8825594dab48381b8efcffc62556972aafcfbd414",
    "paigow-session": "071bbe09e2b1492eee180a7554063ef5b64855b2756fae3b6a5bdc0d84a98637",
    "paigow-session-agent": "e2cb187f390572675aaec6516c4a512ed1e5678b491e72c4ac7892b8f33a4330",
    "paigow-setting": "dcbf5308575ed825645d5b170be1c4e1a9897b86199c42547787d4965f317e3d",
    "paigow-table": "47b7d378a6c5a2a1bea759815bbc95a31f5e8a3d7809c152173a1b57f625bf8a",
    "paigow-variant": "85c89c824985236b5baffe401a2cb8149624fe6ea14964c8ed3d6662693636a5",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_game_matches_recorded_digest(case):
    env_id, kwargs = CASES[case]
    assert rollout_digest(env_id, kwargs, with_info=False) == GAME_DIGESTS[case], f"{case}: the game changed"


@pytest.mark.parametrize("case", sorted(CASES))
def test_rollout_matches_recorded_digest(case):
    env_id, kwargs = CASES[case]
    assert rollout_digest(env_id, kwargs) == DIGESTS[case], f"{case}: {env_id} {kwargs} behaves differently"


if __name__ == "__main__":  # prints the tables above (run on the code whose behaviour is pinned)
    for with_info in (False, True):
        print("GAME_DIGESTS" if not with_info else "DIGESTS")
        for name in sorted(CASES):
            print(f'    "{name}": "{rollout_digest(*CASES[name], with_info=with_info)}",', flush=True)
