"""The third red-team pass's low items: a subnormal reward_unit, the README on a finished env's
step, an interrupt after the benchmark's runs, output that cannot be written (| head, a full
disk), a CUDA device on a machine without one, a damaged model.zip on resume."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import splitpoker  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
ASIA = "splitpoker/AsiaPokerSetting-v0"


# --- reward_unit -------------------------------------------------------------------------------


@pytest.mark.parametrize("unit", [1e-320, 5e-324, 1e-7])
def test_a_tiny_reward_unit_is_refused(unit):
    """``reward_unit=1e-320`` (subnormal) gave rewards of -inf."""
    from splitpoker.envs.config import AsiaPokerConfig

    with pytest.raises(ValueError, match=rf"reward_unit={unit!r}: expected at least 1e-06 chips"):
        AsiaPokerConfig(reward_unit=unit)
    with pytest.raises(ValueError, match="reward_unit"):
        gym.make(ASIA, reward_unit=unit)


def test_the_smallest_reward_unit_gives_finite_rewards():
    env = gym.make("splitpoker/AsiaPoker-v0", reward_unit=1e-6)
    obs, info = env.reset(seed=0)
    n_bet = env.unwrapped.n_bet_actions
    _, r1, *_ = env.step(n_bet - 1)  # the largest bet
    _, r2, *_ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert math.isfinite(r1) and math.isfinite(r2)


# --- the README on a finished env --------------------------------------------------------------


def test_the_readme_says_what_a_step_after_the_end_does():
    """It said a finished env accepts and ignores any action; a step raises ValueError."""
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "accepted and ignored" not in text
    assert "all True once an episode is over, though a step then raises `ValueError` saying to call `reset()`" in text
    env = gym.make(ASIA).unwrapped
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.action_masks().all()
    with pytest.raises(ValueError, match=r"the episode is over, call reset\(\)"):
        env.step(0)


# --- benchmark_rl: an interrupt after the runs --------------------------------------------------


def test_an_interrupt_while_the_report_is_written_says_the_runs_are_kept(tmp_path, monkeypatch, capsys):
    """After 12 finished runs an interrupt while writing the report printed "interrupted: nothing
    was started"."""
    from splitpoker.agents.benchmark import harness, report
    from splitpoker.scripts import benchmark_rl

    def stopped(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(harness, "run_grid", lambda *a, **k: {"runs_done": 12, "runs_total": 12, "failed": []})
    monkeypatch.setattr(report, "write_report", stopped)
    out = tmp_path / "o"
    code = benchmark_rl.main(["--config", str(ROOT / "configs" / "benchmark" / "smoke.yaml"), "--out", str(out),
                              "--no-ray"])
    err = capsys.readouterr().err
    assert code == 130, err
    assert "nothing was started" not in err
    assert f"interrupted while writing the report: 12/12 runs are finished and stored in {out / 'runs'}" in err
    assert err.rstrip().endswith("--report-only"), err


# --- output that cannot be written --------------------------------------------------------------


def _run_with_stdout(stdout) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "bonus_table.py"), "--list"], cwd=ROOT,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)


def test_a_reader_that_went_away_ends_the_program_quietly():
    """``| head -1``: a BrokenPipeError traceback. The pipe's reader is closed before the program
    writes, so its first line fails (no race with head)."""
    read, write = os.pipe()
    os.close(read)
    try:
        p = _run_with_stdout(write)
    finally:
        os.close(write)
    assert p.returncode == 141, p.stderr
    assert p.stderr == ""


def test_a_full_disk_exits_2_naming_it():
    """``> /dev/full``: an OSError traceback (exit 1). One line and exit 2."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        p = _run_with_stdout(full)
    assert p.returncode == 2, p.stderr
    assert p.stderr == ("error: cannot write the output: No space left on device (ENOSPC): free some space or write "
                        "elsewhere\n")


def test_output_failed_lets_other_errors_through():
    from splitpoker.scripts.support.cli import output_failed

    with pytest.raises(PermissionError):
        output_failed(PermissionError(13, "Permission denied", "x"))


# --- a CUDA device on a machine without one -------------------------------------------------------


def test_a_cuda_device_torch_cannot_use_is_refused(tmp_path, monkeypatch, capsys):
    """``device: cuda`` on a CPU-only machine trained on the CPU without a word."""
    import torch

    from splitpoker.agents.training.resources import check_device
    from splitpoker.scripts import train

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"device='cuda': torch sees 0 CUDA device\(s\) on this machine "
                                         r"\(torch.cuda.is_available\(\) is false\): use device: cpu"):
        check_device("cuda")
    check_device("cpu")
    check_device("auto")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    check_device("cuda:1")
    with pytest.raises(ValueError, match=r"device='cuda:2': torch sees 2 CUDA device\(s\)"):
        check_device("cuda:2")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"env": {"id": ASIA}, "algo": "maskable_ppo", "device": "cuda",
                                    "policy_kwargs": {"net_arch": [8]}, "algo_kwargs": {"n_steps": 8, "batch_size": 8},
                                    "n_envs": 1, "vec_env": "dummy", "total_timesteps": 16,
                                    "log_dir": str(tmp_path / "runs")}))
    code = train.main(["--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "device='cuda': torch sees 0 CUDA device(s)" in err, err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


# --- a damaged model.zip on resume ---------------------------------------------------------------


def test_a_damaged_model_zip_on_resume_exits_2_and_is_left_alone(tmp_path, capsys):
    """A truncated model.zip was skipped with a warning and overwritten; docs/cli.md promises exit
    2 naming the file, the file left as it was."""
    from splitpoker.scripts import train

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"env": {"id": ASIA}, "algo": "maskable_ppo", "policy_kwargs": {"net_arch": [8]},
                                    "algo_kwargs": {"n_steps": 16, "batch_size": 16}, "n_envs": 1, "vec_env": "dummy",
                                    "total_timesteps": 16, "log_dir": str(tmp_path / "runs"), "run_name": "r"}))
    assert train.main(["--config", str(path), "--no-progress"]) == 0
    run = tmp_path / "runs" / "r"
    model = run / "model.zip"
    model.write_bytes(model.read_bytes()[: model.stat().st_size // 2])  # truncated
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    capsys.readouterr()
    code = train.main(["--resume", str(run), "--total-timesteps", "32", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{model} is not a readable stable-baselines3 model (truncated or damaged" in err, err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
