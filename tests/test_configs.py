"""Every YAML in configs/ loads into its dataclass and reaches the env it builds; the README
example runs and its step returns a result of the game."""

import re
from pathlib import Path

import pytest
import yaml

from splitpoker.agents.training.run import TrainConfig
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
from splitpoker.envs.rules.bonus.paytables import PayTable

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_experiment_configs_load(path):
    """Every shipped experiment config validates in full (its env.kwargs against the env's own
    config class and constructor) and builds its environment."""
    import gymnasium as gym

    cfg = TrainConfig.from_yaml(path)
    env = gym.make(cfg.env_id, **cfg.resolved_env_kwargs)
    try:
        assert env.spec.id == cfg.env_id
        u = env.unwrapped
        built = u.config.to_dict()
        if cfg.env_id.endswith("Session-v0"):  # a session's keywords are its own arguments, the table its config
            built = {"bankroll": u.start_bankroll, "target": u.target, "max_hands": u.max_hands,
                     "setting": u.setting, "reward": u.reward_mode, "invalid_action": u.invalid_action,
                     "table": built}
        for key, value in cfg.env_kwargs.items():  # every YAML keyword reached the env's config
            if isinstance(value, dict):
                assert {k: built[key][k] for k in value} == value, key
            else:
                assert built[key] == value, key
        assert env.action_space.n == len(env.unwrapped.action_masks())
    finally:
        env.close()


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "rules").glob("*.yaml")), ids=lambda p: p.name)
def test_rules_configs_load(path):
    cls = PaiGowPokerConfig if "paigow" in path.name else AsiaPokerConfig
    cfg = cls.from_yaml(path)
    assert cls.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "paytables").glob("*.yaml")), ids=lambda p: p.name)
def test_paytable_configs_load(path):
    table = PayTable.from_dict(yaml.safe_load(path.read_text()))
    assert table.lines and table.kind in ("odds", "envy")


def test_readme_python_example_runs():
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(import gymnasium.*?)```", text, re.S).group(1)
    code = code.replace("learn(8_192, progress_bar=True)", "learn(256)")
    ns = {}
    from splitpoker.agents.process_state import preserved

    with preserved():  # the example is a user's session: it sets torch to one thread
        exec(compile(code, "README.md", "exec"), ns)
    env, action, info, reward = ns["env"], int(ns["action"]), ns["info"], ns["reward"]
    assert env.spec.id == "splitpoker/AsiaPokerSetting-v0" and ns["terminated"] and not ns["truncated"]
    assert env.action_space.contains(action) and info["setting"] is not None and len(info["cards"].split()) == 7
    # the mean main result over 16 dealer hands, each +1 or -1 (Asia Poker never pushes)
    assert -1 <= reward <= 1 and float(reward * 16) % 2 == 0
