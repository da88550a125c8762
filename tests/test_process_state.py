"""A script's ``main()`` or ``train()`` called in-process leaves the process as it found it
(:mod:`splitpoker.agents.process_state`), and the suite's guard against tests that do not.

The case that hung the suite: ``scripts/train.py``'s ``main`` set SIGINT to ignored after its final
save and never put it back, so a later test in the same worker waited for a Ctrl-C that never came.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import yaml

from splitpoker.agents import process_state
from splitpoker.agents.process_state import (
    differences,
    leaves_process_as_found,
    preserved,
    snapshot,
)

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_script_for_state", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _handler_of_sigint_named() -> str:
    return process_state._describe(signal.getsignal(signal.SIGINT))


def test_preserved_puts_back_every_kind_of_state(tmp_path, monkeypatch):
    monkeypatch.setenv("SPLITPOKER_STATE_CHANGED", "before")
    monkeypatch.setenv("SPLITPOKER_STATE_REMOVED", "here")
    monkeypatch.delenv("SPLITPOKER_STATE_ADDED", raising=False)
    import torch

    threads = torch.get_num_threads()
    start = snapshot()
    cwd = os.getcwd()
    filters = list(warnings.filters)
    with preserved():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGUSR1, lambda *a: None)
        os.environ["SPLITPOKER_STATE_CHANGED"] = "after"
        os.environ["SPLITPOKER_STATE_ADDED"] = "new"
        del os.environ["SPLITPOKER_STATE_REMOVED"]
        os.chdir(tmp_path)
        warnings.simplefilter("ignore")
        torch.set_num_threads(threads + 1)
        changed = differences(start, snapshot())
    # each change is named, with its old and new value
    text = "\n".join(changed)
    for fragment in ("handler of SIGINT", "SIG_IGN (ignored)", "handler of SIGUSR1",
                     "SPLITPOKER_STATE_CHANGED: 'before' -> 'after'", "SPLITPOKER_STATE_ADDED: None -> 'new'",
                     "SPLITPOKER_STATE_REMOVED: 'here' -> None", f"working directory: {cwd} -> {tmp_path}",
                     "warnings filters: 1 added", f"torch threads: {threads} -> {threads + 1}"):
        assert fragment in text, (fragment, changed)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL
    assert os.environ["SPLITPOKER_STATE_CHANGED"] == "before"
    assert os.environ["SPLITPOKER_STATE_REMOVED"] == "here"
    assert "SPLITPOKER_STATE_ADDED" not in os.environ
    assert os.getcwd() == cwd
    assert warnings.filters == filters
    assert torch.get_num_threads() == threads
    assert differences(start, snapshot()) == []


def test_preserved_restores_after_an_exception_and_a_ctrl_c():
    for exc in (ValueError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)), preserved():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            raise exc
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, _handler_of_sigint_named()


def test_the_package_cache_variable_is_kept(monkeypatch):
    """numba re-reads NUMBA_CACHE_DIR at every compile: the value the package set when imported
    stays, even if it was set inside the block (the first import of the rules core)."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    with preserved():
        os.environ["NUMBA_CACHE_DIR"] = "/somewhere/numba"
    assert os.environ["NUMBA_CACHE_DIR"] == "/somewhere/numba"


def test_the_decorator_restores_in_process_but_not_in_a_program():
    @leaves_process_as_found
    def main():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        return 7

    assert main() == 7
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    # scripts' own decorator: as a program (the startup guard in place) the process ends after main
    # and cli.finished owns the handlers, so nothing is put back
    code = ("import signal, sys\n"
            "from splitpoker.scripts.support import cli\n"
            "cli.install_startup_interrupt()\n"
            "@cli.leaves_process_as_found\n"
            "def main():\n"
            "    signal.signal(signal.SIGUSR1, signal.SIG_IGN)\n"
            "main()\n"
            "print(signal.getsignal(signal.SIGUSR1) is signal.SIG_IGN)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_every_script_main_is_decorated():
    """Every script's ``main`` undoes its changes when called in-process."""
    missing = []
    for path in sorted((ROOT / "scripts").glob("*.py")):
        text = path.read_text()
        if "\ndef main(" in text and "leaves_process_as_found\ndef main(" not in text:
            missing.append(path.name)
    assert missing == [], f"scripts whose main() is not wrapped in cli.leaves_process_as_found: {missing}"


def test_a_finished_training_run_leaves_ctrl_c_working(tmp_path):
    """The hang's cause: train.py's main set SIGINT and SIGTERM to ignored after its final save
    (so that a Ctrl-C while it prints the paths cannot kill a finished run) and left them so; a
    notebook, or the next test in the worker, then lost Ctrl-C. Torch's thread count (train() sets
    one thread) comes back too."""
    import torch

    train = _script("train")
    cfg = {"env": {"id": "splitpoker/PaiGowPokerSetting-v0", "kwargs": {"house_way": "paigow-igw"}},
           "algo": "maskable_ppo", "policy": "MlpPolicy", "algo_kwargs": {"n_steps": 32, "batch_size": 32},
           "policy_kwargs": {"net_arch": [8]}, "n_envs": 1, "total_timesteps": 32, "seed": 0,
           "checkpoint_freq": 32, "log_dir": str(tmp_path / "runs"), "run_name": "tiny"}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    original = torch.get_num_threads()
    torch.set_num_threads(2 if original != 2 else 3)  # not 1: train() sets 1
    threads = torch.get_num_threads()
    try:
        before = snapshot()
        assert train.main(["--config", str(path), "--no-progress"]) == 0
        assert (tmp_path / "runs" / "tiny" / "model.zip").is_file()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, _handler_of_sigint_named()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert torch.get_num_threads() == threads
        assert differences(before, snapshot(), ignore_environ=("PYTEST_CURRENT_TEST",)) == []
    finally:
        torch.set_num_threads(original)


def test_what_an_import_adds_is_the_imports_own(monkeypatch):
    """A variable or warnings filter *added* while modules were imported is not reported (torch's
    TORCHINDUCTOR_CACHE_DIR on its first import); a change of an existing one always is."""
    import dataclasses

    monkeypatch.setenv("SPLITPOKER_STATE_OLD", "a")
    before = snapshot()
    grown = dataclasses.replace(before, modules=before.modules + 1,
                                environ=tuple(sorted({**dict(before.environ), "SPLITPOKER_STATE_NEW": "x",
                                                      "SPLITPOKER_STATE_OLD": "b"}.items())),
                                warnings_filters=(("ignore", None, Warning, None, 0), *before.warnings_filters))
    assert differences(before, grown) == ["environment variable SPLITPOKER_STATE_OLD: 'a' -> 'b'"]
    same_modules = dataclasses.replace(grown, modules=before.modules)
    text = "\n".join(differences(before, same_modules))
    assert "SPLITPOKER_STATE_NEW: None -> 'x'" in text and "warnings filters: 1 added" in text
