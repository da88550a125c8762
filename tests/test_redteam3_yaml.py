"""YAML configs without anchors or aliases (envs/config_file.py), and error messages that show at
most ~200 characters of a bad value (envs/rules/checks.short_repr): a 1 KB alias bomb as
``house_way`` ran 185 s into MemoryError while an error message formatted the value's repr."""

import time

import pytest

from splitpoker.envs.rules.checks import REPR_LIMIT, short_repr

BOMB = "".join(f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefg", "bcdefgh", strict=True))
BOMB = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + BOMB


def _bomb(path, body):
    path.write_text(BOMB + body)
    assert len(path.read_bytes()) < 1024  # a 1 KB file
    return path


def _loaders(tmp_path):
    from splitpoker.agents.benchmark.config import BenchmarkConfig
    from splitpoker.agents.training.config import TrainConfig
    from splitpoker.envs.config import AsiaPokerConfig

    env = "env:\n  id: splitpoker/AsiaPokerSetting-v0\n  kwargs:\n    house_way: *h\n"
    return [
        (AsiaPokerConfig.from_yaml, _bomb(tmp_path / "env.yaml", "env:\n  house_way: *h\n")),
        (TrainConfig.from_yaml, _bomb(tmp_path / "train.yaml", env + "algo: maskable_ppo\n")),
        (BenchmarkConfig.from_yaml, _bomb(tmp_path / "grid.yaml", "name: g\nenvs:\n  - id: x\n    kwargs: {house_way: *h}\n")),
    ]


def test_an_alias_bomb_in_a_config_is_refused_at_its_first_anchor_naming_the_file(tmp_path):
    for load, path in _loaders(tmp_path):
        start = time.perf_counter()
        with pytest.raises(ValueError, match=rf'anchor &a: YAML anchors and aliases are not accepted in a config.*\n.*'
                                             rf'in "{path}", line 1, column 4') as e:
            load(path)
        assert time.perf_counter() - start < 2, load
        assert str(path) in str(e.value)


def test_an_alias_alone_is_refused_too_and_plain_configs_still_load(tmp_path):
    from splitpoker.envs.config_file import AliasRefused, load_yaml

    path = tmp_path / "m.yaml"
    path.write_text("base: {house_way: asia-000}\nenv: {<<: *base}\n")  # a merge key's alias
    with pytest.raises(AliasRefused, match=r"found the alias \*base: YAML anchors and aliases are not accepted"):
        load_yaml(path)
    path.write_text("house_way: asia-000\nlevels: [25, 50]\n")
    assert load_yaml(path) == {"house_way": "asia-000", "levels": [25, 50]}
    path.write_text("x: &k 1\n")
    with pytest.raises(AliasRefused, match=r"anchor &k"):
        load_yaml(path)
    (tmp_path / "empty.yaml").write_text("")
    assert load_yaml(tmp_path / "empty.yaml") is None


def test_a_pay_table_file_with_anchors_exits_2_naming_it(tmp_path, capsys):
    from splitpoker.scripts import bonus_table

    path = tmp_path / "t.yaml"
    path.write_text("name: t\ngame: paigow\nkind: odds\nline: &l {key: a, odds: 5, predicate: four_of_a_kind}\n"
                    "lines: [*l]\n")
    assert bonus_table.main(["--game", "paigow", "--paytable-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--paytable-file {path}: not valid YAML" in err and "anchor &l" in err, err


def _shared(depth: int):
    x = ["lol"] * 9
    for _ in range(depth):
        x = [x] * 9  # 9**(depth + 1) items, one list object per level
    return x


def test_short_repr_shows_at_most_the_limit_and_never_builds_the_whole_repr():
    assert short_repr("asia-000") == "'asia-000'"
    assert short_repr([1, 2, 3]) == "[1, 2, 3]"
    assert short_repr(list(range(20))) == "[0, 1, 2, 3, 4, 5, 6, 7, ...]"
    assert len(short_repr("q" * 10_000)) == REPR_LIMIT and "q...q" in short_repr("q" * 10_000)
    start = time.perf_counter()
    text = short_repr(_shared(30))  # 9**31 items
    assert len(text) <= REPR_LIMIT and text.startswith("[[[[...], [...]")
    assert time.perf_counter() - start < 0.5

    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert short_repr(Broken()).startswith("<Broken ")  # the error being reported is not hidden


@pytest.mark.parametrize("field", ["house_way", "dealer_samples", "mask_fouls", "invalid_action_penalty", "rules",
                                   "fortune_paytable"])
def test_an_env_config_error_shows_a_short_value(field):
    """A value of 4.8 million shared items (a ~33 MB repr) is shown in at most ~200 characters."""
    from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig

    cls = PaiGowPokerConfig if field == "fortune_paytable" else AsiaPokerConfig
    start = time.perf_counter()
    with pytest.raises(ValueError) as e:
        cls(**{field: _shared(6)})
    assert len(str(e.value)) < REPR_LIMIT + 200, str(e.value)[:400]
    assert field in str(e.value)
    assert time.perf_counter() - start < 1
    with pytest.raises(ValueError) as e:
        AsiaPokerConfig(house_way="x" * 1_000_000)
    assert len(str(e.value)) < REPR_LIMIT + 300
