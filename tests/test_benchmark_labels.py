"""Names in a benchmark grid (the grid's name, each environment's label, each algorithm's name)
name files and folders of the output (``<out>/references/<label>.json``,
``<out>/runs/<label>__<algo>__<seed>/``, ``runs/benchmark/<name>``): one rule refuses a name that
would leave the output folder (a path, ``..``), naming the value, the config file and what is
allowed, in ``BenchmarkConfig`` and in ``scripts/benchmark_rl.py --check``."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "benchmark" / "smoke.yaml"
BAD_NAMES = ["/abs/path", "../../x", "..", ".", "a\\b", "", "tab\there", 5]


def _smoke() -> dict:
    return yaml.safe_load(SMOKE.read_text())


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("label", BAD_NAMES)
def test_an_env_label_that_is_not_a_name_is_refused_naming_it_and_the_file(tmp_path, label):
    data = _smoke()
    data["envs"][1]["label"] = label
    path = _write(tmp_path, data)
    with pytest.raises(ConfigError) as e:
        BenchmarkConfig.from_yaml(path)
    message = str(e.value)
    assert f"envs[1].label={label!r}" in message, message
    assert str(path) in message, message
    assert "expected a name" in message and "'/'" in message, message


@pytest.mark.parametrize("field,value", [("name", ".."), ("name", "/tmp/grid"), ("algorithm", ".."),
                                         ("algorithm", "a/b")])
def test_grid_and_algorithm_names_follow_the_same_rule(tmp_path, field, value):
    data = _smoke()
    if field == "name":
        data["name"] = value
        where = f"name={value!r}"
    else:
        data["algorithms"][1]["name"] = value
        where = f"algorithms[1].name={value!r}"
    path = _write(tmp_path, data)
    with pytest.raises(ConfigError) as e:
        BenchmarkConfig.from_yaml(path)
    assert where in str(e.value) and str(path) in str(e.value), str(e.value)


def test_names_of_the_shipped_grids_are_accepted():
    """The rule lets through what the shipped grids use: '+' and '-' in algorithm names, the
    default label (the id without its prefix, 'AsiaPokerSetting-v0')."""
    data = _smoke()
    data["algorithms"][0]["name"] = "MaskablePPO+SettingScorer+distill+lr2e-5"
    del data["envs"][0]["label"]
    cfg = BenchmarkConfig.from_dict(copy.deepcopy(data))
    assert cfg.envs[0].label == "AsiaPokerSetting-v0"
    assert cfg.algorithms[0].name == "MaskablePPO+SettingScorer+distill+lr2e-5"


@pytest.mark.parametrize("label", ["/abs/path", "../../x"])
def test_check_refuses_a_label_that_leaves_out(tmp_path, capsys, label):
    """``--check`` used to say ``ok`` for such a grid (and a run wrote x.json, x_card_removal.json and
    x__DQN__0/ outside --out); it exits 2, before building any model, and nothing is written."""
    from splitpoker.scripts import benchmark_rl

    data = _smoke()
    data["envs"][0]["label"] = label
    path = _write(tmp_path, data)
    before = sorted(p.name for p in tmp_path.iterdir())
    code = benchmark_rl.main(["--config", str(path), "--check", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"envs[0].label={label!r}" in err and str(path) in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
