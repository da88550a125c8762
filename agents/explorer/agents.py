"""Trained agents in the explorer: saved models (``--model PATH``, only from the command line,
never from a request) asked what they would play on a typed hand.

A model sees the observation its training env gives for a hand; :func:`setting_observation` asks
that env for it, dealt the typed seven cards (``reset(options={"cards": ...})``), and
``tests/test_explorer_api.py`` checks it equals ``env.reset(seed)``'s observation on dealt hands.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np


def setting_observation(env, cards) -> tuple[np.ndarray, np.ndarray]:
    """``(observation, action mask)`` that the setting env ``env`` gives when dealt ``cards``: its
    own reset with the cards given (``reset(options={"cards": ...})``)."""
    u = env.unwrapped
    if u.betting:
        raise ValueError(f"{env.spec.id if env.spec else type(u).__name__} has a bet phase: expected a setting env")
    obs, info = env.reset(seed=0, options={"cards": np.asarray(cards, dtype=np.int64)})
    return obs, np.asarray(info["action_mask"], dtype=bool)


class Agent:
    """One loaded model and the env it was trained in."""

    def __init__(self, path: str):
        from splitpoker.agents.exact.eval_set import make_eval_env
        from splitpoker.agents.policies.baselines import SB3Policy
        from splitpoker.agents.training.models import check_model_fits, load_model
        model, cfg = load_model(path)
        env_id, env_kwargs = (cfg.env_id, dict(cfg.resolved_env_kwargs)) if cfg is not None else (None, {})
        if env_id is None or "Setting" not in env_id:
            raise ValueError(f"--model {path}: trained on {env_id or 'an unknown env (no config.yaml beside it)'}: "
                             f"expected a model of a setting env (splitpoker/AsiaPokerSetting-v0, "
                             f"splitpoker/PaiGowPokerSetting-v0)")
        self.env = make_eval_env(env_id, env_kwargs)
        check_model_fits(model, self.env, env_id)
        self.policy = SB3Policy.from_env(self.env, model=model, name=Path(path).parent.name or Path(path).stem)
        self.path, self.env_id = str(path), env_id
        self.game = self.env.unwrapped.game

    def setting(self, cards: np.ndarray) -> int:
        from splitpoker.agents.evaluation.play import action_settings

        obs, mask = setting_observation(self.env, cards)
        action = self.policy.act(obs, mask)
        hw = self.game.house_way(cards).setting
        return int(action_settings(self.env, np.array([action]), np.array([hw]))[0])


class Agents:
    """The loaded agents; :meth:`choices` asks those of a hand's game."""

    def __init__(self, agents: list[Agent]):
        self.agents = agents

    def choices(self, game, cards: np.ndarray) -> list[dict]:
        out = []
        for a in self.agents:
            if a.game.game != game.game:
                continue
            s = a.setting(cards)
            out.append({"name": a.policy.name, "model": a.path, "trained_against": a.game.style.value,
                        "setting": s, "valid": s >= 0})
        return out


def load_agents(paths, log: Callable[[str], None] = print) -> Agents:
    """Load every ``--model``; ``ValueError`` naming the one that cannot be used."""
    agents = []
    for p in paths:
        try:
            agents.append(Agent(p))
        except (OSError, ValueError) as e:
            raise ValueError(f"--model {p}: {e}") from None
        log(f"agent {agents[-1].policy.name}: {agents[-1].env_id} against {agents[-1].game.style.value} ({p})")
    return Agents(agents)
