"""scripts/rllib_ppo.py's refusals and its run folder: more env runners than Ray has CPUs (it used
to wait forever), two runs on one ``--run-dir`` (they overwrote each other), an ``id`` in
``--env-kwargs`` (it trained on that id while the summary named ``--env``), and ``--out`` in a run
folder the script makes (it was refused on a fresh machine).

Ray itself is replaced by stand-ins here (``ray.init`` and friends patched; any real start fails the
test), so these tests take seconds; the real runs are tests/test_clients.py's slow RLlib tests and
the one slow test at the end, docs/clients.md's command in a fresh folder.
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETTING = "splitpoker/PaiGowPokerSetting-v0"
TINY = ["--env", SETTING, "--iterations", "1", "--batch-size", "64", "--minibatch-size", "32", "--epochs", "1",
        "--eval-episodes", "0", "--no-progress"]


@pytest.fixture
def rllib_ppo(monkeypatch):
    """The script's module, with Ray's start replaced by a failure (a test that reaches it shows
    that the refusal came too late) and the heap freeze of ``main`` undone afterwards."""
    pytest.importorskip("ray.rllib")
    import ray

    from splitpoker.scripts import rllib_ppo

    def no_ray(*args, **kwargs):
        raise AssertionError(f"Ray was started: ray.init({args}, {kwargs})")

    monkeypatch.setattr(ray, "init", no_ray)
    frozen = gc.get_freeze_count()
    yield rllib_ppo
    if frozen == 0:  # main() freezes the heap for a quick exit: in a test process, put it back
        gc.unfreeze()


def _main(module, argv) -> int:
    try:
        return module.main(argv)
    except SystemExit as e:  # argparse's own refusals
        return e.code


# --- env runners and CPUs ----------------------------------------------------------------------


def test_more_env_runners_than_local_cpus_is_refused_before_ray_starts(rllib_ppo, tmp_path, capsys):
    code = _main(rllib_ppo, [*TINY, "--num-env-runners", "3", "--num-cpus", "2", "--run-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "3 env runner(s)" in err and "Ray has 2 CPU(s)" in err, err
    assert not (tmp_path / "r").exists()


def test_the_default_local_ray_counts_every_core(rllib_ppo, tmp_path, capsys):
    cores = os.cpu_count()
    code = _main(rllib_ppo, [*TINY, "--num-env-runners", str(cores + 1), "--run-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and f"Ray has {cores} CPU(s)" in err, err


def test_a_cluster_with_too_few_cpus_is_refused_right_after_connecting(rllib_ppo, tmp_path, capsys, monkeypatch):
    """With --address the CPUs are the cluster's: refused once connected (Ray's own count), before
    the algorithm is built; Ray is shut down again and nothing is trained."""
    import ray

    from splitpoker.agents.training import rllib_ppo as lib

    calls = []
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(("init", kw)))
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"CPU": 2.0})
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append(("shutdown", {})))

    def no_build(run):
        raise AssertionError("the algorithm was built")

    monkeypatch.setattr(lib, "build_config", no_build)
    code = _main(rllib_ppo, [*TINY, "--address", "head:6379", "--num-env-runners", "3", "--run-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "3 env runner(s)" in err and "Ray has 2 CPU(s) at head:6379" in err, err
    assert [c[0] for c in calls] == ["init", "shutdown"] and calls[0][1]["address"] == "head:6379"
    assert not (tmp_path / "r" / "progress.json").exists()


def test_as_many_env_runners_as_cpus_passes_the_check():
    from splitpoker.agents.training.rllib_ppo import check_env_runners

    check_env_runners(2, 2, "local")  # measured: 2 runners on 2 CPUs train (3 wait forever)
    check_env_runners(0, 1, "local")  # 0: sampling in this process
    with pytest.raises(ValueError, match=r"3 env runner\(s\) need 3 CPUs, but Ray has 2 CPU\(s\)"):
        check_env_runners(3, 2.5, "local")


# --- one run at a time per run folder ----------------------------------------------------------


def test_a_second_run_on_a_busy_run_dir_exits_2_naming_it_and_the_holder(rllib_ppo, tmp_path, capsys):
    """The lock is train.py's (agents/training/state.run_lock: a flock on the folder); here a
    child process holds it as a running rllib_ppo.py would, and the second run stops before Ray."""
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from splitpoker.agents.training.state import run_lock
            with run_lock(Path({str(run_dir)!r})):
                print("held", flush=True)
                time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        code = _main(rllib_ppo, [*TINY, "--run-dir", str(run_dir)])
        err = capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    assert code == 2, err
    assert f"{run_dir} is being trained by another process (pid {holder.pid})" in err, err
    assert list(run_dir.iterdir()) == []


# --- env keywords ------------------------------------------------------------------------------


def test_an_id_in_env_kwargs_is_refused(rllib_ppo, tmp_path, capsys):
    """``--env A --env-kwargs '{"id": "B"}'`` trained on B with a summary saying A."""
    from splitpoker.agents.training.rllib_ppo import PPORun, env_class_and_config

    with pytest.raises(ValueError, match=r"env_kwargs .*'id'.*--env"):
        PPORun(env=SETTING, env_kwargs={"id": "splitpoker/AsiaPokerSetting-v0"})
    assert env_class_and_config(PPORun(env=SETTING))[1]["id"] == SETTING
    code = _main(rllib_ppo, [*TINY, "--env-kwargs", '{"id": "splitpoker/AsiaPokerSetting-v0"}',
                             "--run-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "'id'" in err, err
    assert not (tmp_path / "r").exists()


# --- --out in the run folder -------------------------------------------------------------------


@pytest.fixture
def fake_training(monkeypatch):
    """The library's ``train`` replaced by one that records its run folder and returns a summary."""
    from splitpoker.agents.training import rllib_ppo as lib

    seen = {}

    def train(run, run_dir, **kwargs):
        seen["run_dir"] = run_dir
        assert run_dir.is_dir()
        return {"env": run.env, "iterations": [], "run_dir": str(run_dir)}

    monkeypatch.setattr(lib, "train", train)
    return seen


def test_out_inside_a_new_run_dir_is_written(rllib_ppo, fake_training, tmp_path, capsys):
    out = tmp_path / "r" / "summary.json"
    code = _main(rllib_ppo, [*TINY, "--run-dir", str(tmp_path / "r"), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["run_dir"] == str(tmp_path / "r")


def test_out_beside_the_default_run_dir_on_a_fresh_machine(rllib_ppo, fake_training, tmp_path, capsys, monkeypatch):
    """docs/clients.md's commands: no runs/ folder yet; the default run folder is made with its
    parents, and --out beside it (runs/rllib/x.json) with it."""
    monkeypatch.chdir(tmp_path)
    code = _main(rllib_ppo, [*TINY, "--out", "runs/rllib/asia.json"])
    assert code == 0, capsys.readouterr().err
    assert fake_training["run_dir"] == Path("runs/rllib/PaiGowPokerSetting-v0__ppo__0")
    assert json.loads((tmp_path / "runs" / "rllib" / "asia.json").read_text())["env"] == SETTING


@pytest.mark.parametrize("out", ["nope/x.json", "runs/x.json", "runs/rllib/PaiGowPokerSetting-v0__ppo__0/sub/x.json"])
def test_out_in_any_other_missing_folder_is_still_refused(rllib_ppo, fake_training, tmp_path, capsys, monkeypatch, out):
    """A typo in a folder name is refused, not made (docs/cli.md): only the run folder and the folder
    it is made in are made for --out; and nothing is made before the refusal."""
    monkeypatch.chdir(tmp_path)
    code = _main(rllib_ppo, [*TINY, "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and f"--out {out}: the folder" in err and "does not exist" in err, err
    assert list(tmp_path.iterdir()) == [] and "run_dir" not in fake_training


# --- docs/clients.md, for real -----------------------------------------------------------------


def _doc_commands() -> list[list[str]]:
    text = (ROOT / "docs" / "clients.md").read_text()
    joined = text.replace("\\\n", " ")
    return [shlex.split(line) for line in joined.splitlines() if line.startswith("python scripts/rllib_ppo.py ")]


def test_docs_clients_md_has_the_rllib_commands():
    commands = _doc_commands()
    assert len(commands) == 2 and all("--out" in c for c in commands)


@pytest.mark.slow
def test_the_first_docs_command_runs_as_written_in_a_fresh_folder(tmp_path):
    """docs/clients.md's first rllib_ppo.py command, unchanged but for the interpreter and the
    script's absolute path, in an empty folder (a fresh machine: no runs/): exit 0, the summary
    written where the command says, no penalised action by the trained policy."""
    pytest.importorskip("ray.rllib")
    command = _doc_commands()[0]
    assert command[:2] == ["python", "scripts/rllib_ppo.py"]
    argv = [sys.executable, str(ROOT / "scripts" / "rllib_ppo.py"), *command[2:]]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path / command[command.index("--out") + 1]
    summary = json.loads(out.read_text())
    assert [row["iteration"] for row in summary["iterations"]] == [1, 2]
    assert summary["evaluation"]["policy"]["penalised"] == 0
