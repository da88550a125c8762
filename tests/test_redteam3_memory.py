"""Sizes bounded by memory (envs/rules/checks.check_fits_in_memory, the one check): a vector env's
num_envs x dealer_samples, a network's layers, DQN's replay buffer, the bet table, a Parquet
dataset's episodes. Each is refused before anything is allocated, with the estimate and the
memory available. The tests set the memory available (deterministic on any machine) and never
allocate what they refuse."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import gymnasium as gym
import pytest
import yaml

import splitpoker  # noqa: F401
from splitpoker.envs.rules import checks

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30


@pytest.fixture
def memory(monkeypatch):
    """Set the memory the checks see as available (bytes)."""
    def set_to(nbytes):
        monkeypatch.setattr(checks, "available_memory", lambda: nbytes)

    return set_to


def test_the_check_names_both_figures_and_what_to_do(memory):
    memory(4 * GIB)
    checks.check_fits_in_memory("x", 4 * GIB)  # exactly fits
    with pytest.raises(ValueError, match=r"^x needs about 54\.7 GiB of memory, more than the 4\.0 GiB this machine "
                                         r"has available: lower it$"):
        checks.check_fits_in_memory("x", 54.7 * GIB, "lower it")
    memory(None)  # the system does not tell: nothing refused
    checks.check_fits_in_memory("x", 1e18)
    assert checks.gib(812 * 2**20) == "812 MiB"


def test_available_memory_is_what_the_system_reports():
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        pytest.skip("no /proc/meminfo")
    kb = next(int(line.split()[1]) for line in meminfo.read_text().splitlines() if line.startswith("MemAvailable:"))
    assert abs(checks.available_memory() - kb * 1024) < 512 * 2**20  # the same figure, give or take a moment's use


def test_the_row_estimate_is_what_the_rows_allocate():
    """RoundRows.row_nbytes against the arrays it then makes (an independent sum of their nbytes)."""
    from splitpoker.envs.base import env_layout, round_options
    from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
    from splitpoker.envs.rules.play.round_rows import RoundRows

    for cfg, betting in [(AsiaPokerConfig(dealer_samples=7), True), (PaiGowPokerConfig(dealer_samples=3), False)]:
        lay = env_layout(cfg, betting)
        options = round_options(cfg, lay, mode=0, seed_from_streams=True, keep_ranks=False)
        rows = RoundRows(cfg.make_game(), 5, options, n_actions=lay.n_actions)
        allocated = sum(a.nbytes for a in rows._state) + rows._no_actions.nbytes + rows._no_which.nbytes
        assert allocated == 5 * (RoundRows.row_nbytes(cfg.make_game(), options, lay.n_actions))


def test_a_vector_env_too_big_for_memory_is_refused_before_it_allocates(memory):
    """num_envs=2**20 with dealer_samples=1000 asked for ~55-80 GiB and was allocated (MemoryError
    or the OOM killer); refused now naming both sizes, before its threads start."""
    memory(8 * GIB)
    for kw, fragment in [({"dealer_samples": 1000}, "dealer_samples=1,000 needs about 8"),
                         ({"setting_features": True, "dealer_samples": 1}, "dealer_samples=1 with setting_features needs")]:
        with pytest.raises(ValueError, match=rf"num_envs=1,048,576 x {fragment}.* more than the 8\.0 GiB this machine "
                                             r"has available: lower num_envs or dealer_samples"):
            gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=2**20, vectorization_mode="vector_entry_point", **kw)
    memory(64 * 2**20)  # 64 MiB: 1,024 environments of 16 dealer hands (~5 MiB) fit
    env = gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=1024, vectorization_mode="vector_entry_point")
    env.close()


def test_net_arch_layers_are_bounded():
    from splitpoker.agents.training.config import TrainConfig

    base = {"env": {"id": "splitpoker/AsiaPokerSetting-v0"}, "algo": "maskable_ppo"}
    with pytest.raises(ValueError, match=r"net_arch=\[100000, 100000\]: layer size 100,000 is above 65,536"):
        TrainConfig.from_dict({**base, "policy_kwargs": {"net_arch": [100000, 100000]}})
    with pytest.raises(ValueError, match=r"layer size 70,000 is above 65,536"):
        TrainConfig.from_dict({**base, "policy_kwargs": {"net_arch": {"pi": [64], "vf": [70000]}}})
    TrainConfig.from_dict({**base, "policy_kwargs": {"net_arch": [65536]}})


def test_a_model_too_big_for_memory_is_refused_with_the_figure(memory):
    from splitpoker.agents.training.resources import check_model_memory

    env = gym.make("splitpoker/AsiaPokerSetting-v0")
    obs, act = env.observation_space, env.action_space
    memory(16 * GIB)
    # two 60,000 layers: (202*60000 + 60000 + 60000*60000 + 60000 + 60000*105 + 105) weights per net, 2 nets
    weights = 2 * (202 * 60000 + 60000 + 60000 * 60000 + 60000 + 60000 * 105 + 105)
    with pytest.raises(ValueError, match=re.escape(f"({weights:,} weights) needs about {16 * weights / GIB:,.1f} GiB")):
        check_model_memory("maskable_ppo", {}, {"net_arch": [60000, 60000]}, obs, act)
    check_model_memory("maskable_ppo", {}, {"net_arch": [256, 256]}, obs, act)
    # DQN: 10**9 transitions of two 202-value float32 observations, an action, a reward, two flags
    per = 2 * 4 * 202 + 8 + 12
    with pytest.raises(ValueError, match=re.escape(f"algo_kwargs.buffer_size=1,000,000,000 (replay transitions of "
                                                   f"{per:,} bytes) needs about {per * 1e9 / GIB:,.1f} GiB")):
        check_model_memory("dqn", {"buffer_size": 10**9}, {}, obs, act)
    check_model_memory("dqn", {"buffer_size": 10**6}, {}, obs, act)  # 1.5 GiB: fits
    check_model_memory("dqn", {}, {}, obs, act)  # SB3's default 1,000,000


def test_train_py_refuses_a_replay_buffer_that_cannot_fit_before_writing_anything(tmp_path, memory, capsys):
    from splitpoker.scripts import train

    memory(GIB)
    path = tmp_path / "dqn.yaml"
    path.write_text(yaml.safe_dump({"env": {"id": "splitpoker/AsiaPokerSetting-v0"}, "algo": "dqn",
                                    "algo_kwargs": {"buffer_size": 10**9}, "policy_kwargs": {"net_arch": [16]},
                                    "n_envs": 1, "vec_env": "dummy", "total_timesteps": 100,
                                    "log_dir": str(tmp_path / "runs")}))
    code = train.main(["--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "algo_kwargs.buffer_size=1,000,000,000" in err and "this machine has available" in err, err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_bet_levels_making_a_huge_action_space_are_refused():
    """An explicit list of 66,000 ante levels gave Discrete(66,000) bet actions (40,020,105 in the
    report's case: 4.3 GB for one env); refused with the count and the memory it would take."""
    from splitpoker.envs.config import AsiaPokerConfig

    kw = {"ante_min": 1, "ante_max": 100_000, "chip": 1, "setting_ante": 1, "bonus_levels": [0, 1, 2]}
    with pytest.raises(ValueError, match=r"ante_levels \(22,000 levels\) x bonus_levels \(3\) = 66,000 bet actions: "
                                         r"expected at most 65,536 \(memory: about 7 MiB"):
        AsiaPokerConfig(ante_levels=list(range(1, 22_001)), **kw)
    assert len(AsiaPokerConfig(ante_levels=list(range(1, 21_001)), **kw).bet_levels[0]) == 21_000


def test_dataset_episodes_that_cannot_be_held_in_memory_are_refused_first(tmp_path, memory, capsys, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    import dataset

    monkeypatch.setattr(dataset, "reference_scores", lambda *a, **k: pytest.fail("solved before the refusal"))
    memory(8 * GIB)
    code = dataset.main(["--env", "splitpoker/AsiaPokerSetting-v0", "--policy", "house-way", "--episodes", "10000000",
                         "--out", str(tmp_path / "d.parquet")])
    err = capsys.readouterr().err
    per = dataset.BYTES_PER_OBS_VALUE * 202 + dataset.BYTES_PER_ACTION * 105
    assert code == 2, err
    assert (f"--episodes 10,000,000 (10,000,000 steps of about {per:,} bytes, held until the file is written) needs "
            f"about {per * 1e7 / GIB:,.1f} GiB of memory, more than the 8.0 GiB") in err, err
    assert list(tmp_path.iterdir()) == []
