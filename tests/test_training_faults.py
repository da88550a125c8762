"""Fault injection: ``scripts/train.py`` is interrupted by SIGINT/SIGTERM at random (seeded)
moments, resumed with the command it prints, and checked: every interrupt leaves a loadable model,
saved step counts never go backwards, no more than the promised granularity is lost (the
unfinished rollout: ``n_steps * n_envs`` for PPO, one vector step of ``n_envs`` for DQN), the final
model reaches the target, a finished run is not rewritten, TensorBoard continues in one folder,
and DQN's replay buffer survives (its size is the step count).

Each case runs a few thousand steps of a tiny network; the processes take most of the time.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from splitpoker.agents.training.models import load_model
from splitpoker.agents.training.state import (
    SignalStop,
    replay_buffer_path,
    saved_states,
    saved_steps,
)

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "scripts" / "train.py"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _write_config(tmp_path: Path, algo: str, algo_kwargs: dict, total: int, vec_env: str = "dummy",
                  env_id: str = "splitpoker/AsiaPokerSetting-v0") -> Path:
    cfg = {"env": {"id": env_id}, "algo": algo, "algo_kwargs": algo_kwargs, "policy_kwargs": {"net_arch": [16]},
           "n_envs": 2, "vec_env": vec_env, "total_timesteps": total, "seed": 0, "checkpoint_freq": 1000,
           "log_dir": str(tmp_path / "runs")}
    path = tmp_path / f"{algo}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _events(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "tb_1").glob("events.out.tfevents.*")) if (run_dir / "tb_1").is_dir() else []


def _run_session(cmd: list[str], run_dir: Path, delay: float | None, signum: int, group: bool):
    """Start ``cmd``; ``delay`` s after its training started (a new TensorBoard event file
    appeared), send ``signum`` (to the whole process group when ``group``, as a terminal's Ctrl-C
    does). Returns (exit code, stderr, stdout)."""
    before = len(_events(run_dir))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    if delay is not None:
        deadline = time.monotonic() + 240
        while len(_events(run_dir)) <= before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(delay)
        if proc.poll() is None:
            if group:
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, err, out


def _digest(run_dir: Path) -> dict[str, str]:
    return {str(p.relative_to(run_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(run_dir.rglob("*")) if p.is_file()}


def _interrupt_and_resume(tmp_path, algo, algo_kwargs, total, lost_bound, *, vec_env="dummy", group=False,
                          signals=(signal.SIGINT, signal.SIGTERM), seed=8, max_interrupts=3, check_finished=True):
    """Interrupt a run up to ``max_interrupts`` times, resuming each time with the printed command;
    returns (run_dir, interrupts survived, max steps lost, resumes). An interrupt before a new run's
    first save removes the run's folder: the same command starts it again, and it is no resume."""
    rng = np.random.default_rng(seed)
    config = _write_config(tmp_path, algo, algo_kwargs, total, vec_env)
    run_dir = tmp_path / "runs" / "faults"
    cmd = [sys.executable, str(TRAIN), "--config", str(config), "--run-name", "faults", "--no-progress"]
    interrupts, max_lost, newest, sessions, resumes = 0, 0, 0, 0, 0
    while True:
        sessions += 1
        assert sessions <= max_interrupts + 2, "training did not finish"
        signum = signals[interrupts % len(signals)]
        delay = float(rng.uniform(0.3, 1.5)) if interrupts < max_interrupts else None
        rc, err, out = _run_session(cmd, run_dir, delay, signum, group)
        if rc == 0:
            break
        if rc == -signum and (run_dir / "model.zip").exists() and saved_steps(run_dir / "model.zip") >= total:
            break  # the signal landed in the last instants of a session that had finished and saved
        # an interrupt: the documented exit code, the saved state, the exact resume command
        assert rc == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum], err
        m = re.search(r"interrupted by (SIGINT|SIGTERM) at ([\d,]+) steps(?: \(([\d,]+) steps of the unfinished "
                      r"rollout not kept\))?: (saved (\S+)|nothing new to save)", err)
        assert m, err
        steps, lost = int(m.group(2).replace(",", "")), int((m.group(3) or "0").replace(",", ""))
        assert steps >= newest, f"saved steps went backwards: {steps} < {newest}"
        assert lost <= lost_bound, f"lost {lost} steps, more than {lost_bound}"
        if m.group(5):
            path = Path(m.group(5))
            model, _ = load_model(path)  # a whole, loadable model with the reported step count
            assert model.num_timesteps == saved_steps(path) == steps
            if algo == "dqn":  # the replay buffer saved beside it holds exactly these steps
                import pickle

                with open(replay_buffer_path(path), "rb") as f:
                    assert pickle.load(f).size() * 2 == steps
        states = saved_states(run_dir)
        if states:
            assert states[-1].steps == max(steps, newest)
            newest = states[-1].steps
        else:  # interrupted before its first rollout ended: nothing to save, nothing lost
            assert steps == newest == 0 and m.group(4) == "nothing new to save", err
        interrupts, max_lost = interrupts + 1, max(max_lost, lost)
        resume = re.search(r"resume with: (.+)", err)
        if resume is None:  # a new run stopped before its first save: its folder goes, the same command again
            assert "rerun the same command" in err and not run_dir.exists(), err
            sessions -= 1  # its event file went with the folder
            continue
        resumes += 1
        cmd = shlex.split(resume.group(1))
        assert cmd[0] == "python" and "--resume" in cmd
        cmd = [sys.executable, *cmd[1:], "--no-progress"]
    final = saved_steps(run_dir / "model.zip")
    assert total <= final >= newest
    # one TensorBoard folder, one event file per session that reached training
    assert [p.name for p in run_dir.glob("tb_*")] == ["tb_1"]
    assert len(_events(run_dir)) == sessions
    if not check_finished:
        return run_dir, interrupts, max_lost, resumes
    # a finished run is not rewritten: resuming it with its own or a smaller total writes nothing
    before = _digest(run_dir)
    resume = [sys.executable, str(TRAIN), "--resume", str(run_dir), "--no-progress"]
    for extra in ([], ["--total-timesteps", str(total // 2)]):
        rc, err, out = _run_session([*resume, *extra], run_dir, None, signal.SIGINT, False)
        assert rc == 0 and "nothing to do" in out, err
    assert _digest(run_dir) == before
    return run_dir, interrupts, max_lost, resumes


@pytest.mark.slow
def test_maskable_ppo_survives_sigint_and_sigterm(tmp_path):
    n_steps, n_envs = 64, 2
    run_dir, interrupts, lost, resumes = _interrupt_and_resume(
        tmp_path, "maskable_ppo", {"n_steps": n_steps, "batch_size": 64, "n_epochs": 1}, total=12000,
        lost_bound=n_steps * n_envs)
    print(f"maskable_ppo: {interrupts} interrupts survived, at most {lost} steps lost")
    assert interrupts >= 2
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert config["seed"] == 0 and "stable-baselines3" in config["versions"]
    assert len(config["resumed"]) == resumes


@pytest.mark.slow
def test_dqn_subproc_survives_ctrl_c_to_the_process_group(tmp_path):
    """A terminal's Ctrl-C reaches the SubprocVecEnv workers too: they ignore it, the parent saves
    the model and the replay buffer, and the buffer is restored on resume."""
    run_dir, interrupts, lost, _ = _interrupt_and_resume(
        tmp_path, "dqn", {"learning_starts": 100, "buffer_size": 2000, "train_freq": 4, "batch_size": 32},
        total=1500, lost_bound=2, vec_env="subproc", group=True, signals=(signal.SIGINT,), max_interrupts=2,
        check_finished=False)  # checked in the PPO case
    print(f"dqn/subproc: {interrupts} interrupts survived, at most {lost} steps lost")
    assert interrupts >= 1
    import pickle

    with open(run_dir / "replay_buffer.pkl", "rb") as f:  # every step of every session is in the buffer
        assert pickle.load(f).size() * 2 == saved_steps(run_dir / "model.zip")


def test_signal_stop_first_signal_asks_second_aborts():
    previous = signal.getsignal(signal.SIGINT)
    messages = []
    with pytest.raises(KeyboardInterrupt, match="second SIGTERM"):
        with SignalStop(log=messages.append) as stop:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
            assert stop.signum == signal.SIGINT and "SIGINT received" in messages[0]
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
    assert signal.getsignal(signal.SIGINT) is previous  # handlers restored


def test_a_run_trained_by_another_process_is_refused(tmp_path, capsys):
    """Two ``train.py --resume R`` at once would both train from the same checkpoint, overwrite
    each other's saves and share one TensorBoard folder: while a session holds the run (here: the
    test process holds its lock, as a running session does), another is refused before it builds
    or writes anything, and resumes normally once the run is free."""
    import fcntl
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_script_lock", TRAIN)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    config = _write_config(tmp_path, "maskable_ppo", {"n_steps": 32, "batch_size": 32, "n_epochs": 1}, 64)
    assert script.main(["--config", str(config), "--run-name", "busy", "--no-progress"]) == 0
    run_dir = tmp_path / "runs" / "busy"
    before = _digest(run_dir)
    fd = os.open(run_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running session holds
        capsys.readouterr()
        rc = script.main(["--resume", str(run_dir), "--total-timesteps", "128", "--no-progress"])
        err = capsys.readouterr().err
        assert rc == 2, err
        assert f"{run_dir} is being trained by another process" in err, err
        assert _digest(run_dir) == before  # nothing written: no config entry, checkpoint or event file
    finally:
        os.close(fd)
    assert script.main(["--resume", str(run_dir), "--total-timesteps", "128", "--no-progress"]) == 0
    assert saved_steps(run_dir / "model.zip") >= 128
