"""Every YAML in configs/ loads into its dataclass; the README example runs."""

import re
from pathlib import Path

import pytest
import yaml

from agents.training import TrainConfig
from envs.config import AsiaPokerConfig, PaiGowPokerConfig
from envs.rules.paytables import PayTable

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_experiment_configs_load(path):
    """Every shipped experiment config validates in full (its env.kwargs against the env's own
    config class and constructor) and builds its environment."""
    import gymnasium as gym

    cfg = TrainConfig.from_yaml(path)
    gym.make(cfg.env_id, **cfg.resolved_env_kwargs).close()


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
    code = code.replace("learn(50_000)", "learn(256)")
    exec(compile(code, "README.md", "exec"), {})
