"""The setting a policy chooses on each hand of a sample, without playing the rounds out.

A report needs only the setting each policy picks (the labels hold every setting's EV), so the
hands are dealt (``env.reset(seed=...)``, the same cards :func:`splitpoker.agents.evaluation.evaluate.run_policy`
plays) and the policy asked once per hand; the dealer's cards are never settled. A trained model
is asked for all hands in one batched ``predict`` call (with the action masks for a maskable
model). Only one-step setting environments (no bet phase) are accepted.

The action becomes a setting as the environment reads it: ``setting_offset + s`` is setting
``s``, the optional house-way action is the house way's setting, anything else is an invalid
action (``-1``, which the labels count as EV -1, what a foul loses).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def action_settings(env, actions: np.ndarray, house_way: np.ndarray) -> np.ndarray:
    """The setting each action plays in ``env`` (``-1``: not a setting)."""
    u = env.unwrapped
    a = np.asarray(actions, dtype=np.int64)
    s = np.where((a >= u.setting_offset) & (a < u.setting_offset + u.n_settings), a - u.setting_offset, -1)
    if u.house_way_action is not None:
        s = np.where(a == u.house_way_action, house_way, s)
    return s


def play_settings(env, policy, seeds, progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(settings int64[n], cards int64[n, 7])``: the policy's setting and the sorted cards of
    each hand ``env.reset(seed=seeds[i])``."""
    u = env.unwrapped
    if getattr(u, "betting", False):
        raise ValueError(f"{env.spec.id if env.spec else type(u).__name__} has a bet phase: expected a setting env")
    n = len(seeds)
    obs, masks = [], np.zeros((n, int(u.action_space.n)), dtype=bool)
    cards = np.zeros((n, 7), dtype=np.int64)
    house = np.zeros(n, dtype=np.int64)
    for i, s in enumerate(seeds):
        o, info = env.reset(seed=s)
        obs.append(o)
        masks[i] = info["action_mask"]
        cards[i] = np.sort(np.asarray(u.player, dtype=np.int64))
        house[i] = u.house_way_setting
    model = getattr(policy, "model", None)
    if model is not None:  # a trained model: one batched call
        batch = np.stack(obs)
        kw = {"action_masks": masks} if getattr(policy, "uses_masks", False) else {}
        actions, _ = model.predict(batch, deterministic=getattr(policy, "deterministic", True), **kw)
        if progress is not None:
            progress(n)
    else:
        actions = np.zeros(n, dtype=np.int64)
        for i in range(n):
            actions[i] = policy.act(obs[i], masks[i])
            if progress is not None:
                progress(1)
    return action_settings(env, np.asarray(actions).reshape(n), house), cards
