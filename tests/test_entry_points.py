"""Console commands: every script is declared as ``splitpoker-<name>`` in pyproject.toml, the
packaging backend turns the declarations into the entry points pip installs, and each command
starts its script's ``main`` (``--help`` exits 0 with the script's usage).

The shared venv has the project installed from another checkout, so nothing is reinstalled here:
the metadata comes from setuptools' own ``prepare_metadata_for_build_wheel`` on a copy of this
checkout's sources, and the commands run through ``importlib.metadata.EntryPoint.load()`` (what
the wrapper in ``bin/`` does) and, once, through the exact wrapper text pip writes.
"""

import configparser
import importlib.metadata
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
try:
    from splitpoker.scripts import entry_points
except ImportError:  # a venv installed before scripts/ became a package: the checkout's own
    sys.path.insert(0, str(ROOT))
    from splitpoker.scripts import entry_points
SCRIPT_FILES = sorted(p.stem for p in (ROOT / "scripts").glob("*.py") if p.stem not in ("__init__", "entry_points"))


@pytest.fixture(scope="module")
def built_entry_points(tmp_path_factory) -> dict[str, str]:
    """``[console_scripts]`` of the wheel metadata setuptools builds from this checkout."""
    tmp = tmp_path_factory.mktemp("meta")
    src = tmp / "src"
    src.mkdir()
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    for pkg in ("splitpoker", "envs", "agents", "scripts"):
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp / "meta").mkdir()
    code = ("import sys; from setuptools import build_meta as b; "
            "print(b.prepare_metadata_for_build_wheel(sys.argv[1]))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp / "meta")], cwd=src, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    info = tmp / "meta" / out.stdout.strip().splitlines()[-1]
    parser = configparser.ConfigParser()
    parser.optionxform = str  # keep the names' case
    parser.read(info / "entry_points.txt")
    top_level = (tmp / "meta" / "splitpoker.egg-info" / "top_level.txt")
    packages = set(top_level.read_text().split()) if top_level.exists() else None
    return {"console_scripts": dict(parser["console_scripts"]), "packages": packages}


def test_every_script_is_declared_once():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert sorted(entry_points.SCRIPTS) == SCRIPT_FILES
    assert declared == {entry_points.command(s): f"splitpoker.scripts.entry_points:{s}" for s in SCRIPT_FILES}
    assert entry_points.command("solve_sample") == "splitpoker-solve-sample"


def test_the_built_metadata_installs_the_commands_and_one_top_level_package(built_entry_points):
    """The wheel installs the commands and a single import name, ``splitpoker``: no top-level
    ``envs``, ``agents`` or ``scripts`` that a user's folders could shadow or another wheel's
    ``scripts`` could collide with."""
    assert built_entry_points["console_scripts"] == {
        entry_points.command(s): f"splitpoker.scripts.entry_points:{s}" for s in SCRIPT_FILES}
    if built_entry_points["packages"] is not None:
        assert built_entry_points["packages"] == {"splitpoker"}


@pytest.fixture
def keep_sigint():
    """The commands install the scripts' Ctrl-C guard: give the test runner its handler back."""
    from splitpoker.scripts.support import cli

    old = {s: signal.getsignal(s) for s in cli.INTERRUPT_SIGNALS}
    state = dict(cli._finished)
    yield
    for s, handler in old.items():
        signal.signal(s, handler)
    cli._finished.update(state)


@pytest.mark.parametrize("script", SCRIPT_FILES)
def test_each_command_runs_its_scripts_main(script, monkeypatch, capsys, keep_sigint):
    ep = importlib.metadata.EntryPoint(entry_points.command(script), f"splitpoker.scripts.entry_points:{script}",
                                       "console_scripts")
    monkeypatch.setattr(sys, "argv", [ep.name, "--help"])
    with pytest.raises(SystemExit) as e:
        ep.load()()
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {ep.name} ")  # argparse names the command as typed
    assert sys.modules[f"splitpoker.scripts.{script}"].__doc__.strip().splitlines()[0] in out


def test_unknown_names_are_refused():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        entry_points.nope  # noqa: B018
    with pytest.raises(ValueError, match="unknown script 'nope': expected one of analyze, "):
        entry_points.launch("nope")


def test_the_wrapper_pip_writes_runs_a_command(tmp_path):
    """pip's console-script wrapper, verbatim (pip/_vendor/distlib/scripts.py), run as a program
    with the project on the path: exit code and usage of ``splitpoker-simulate --help``."""
    wrapper = tmp_path / "splitpoker-simulate"
    wrapper.write_text(
        f"#!{sys.executable}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
        "from splitpoker.scripts.entry_points import simulate\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(simulate())\n")
    out = subprocess.run([sys.executable, str(wrapper), "--help"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: splitpoker-simulate ") and "--rounds" in out.stdout


def test_every_subpackage_is_listed_in_pyproject():
    """``pyproject.toml`` maps the source folders onto ``splitpoker.*`` and lists every package
    (setuptools cannot discover packages under a mapped prefix): a new subpackage left out of the
    list would be missing from an installed wheel."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"splitpoker"}
    for top in ("envs", "agents", "scripts"):
        for init in (ROOT / top).rglob("__init__.py"):
            found.add("splitpoker." + ".".join(init.parent.relative_to(ROOT).parts))
    assert listed == found
