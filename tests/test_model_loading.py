"""Loading a saved model runs the code pickled in it (SB3's ``model.zip``, DQN's
``replay_buffer.pkl``, RLlib's checkpoint): every script that loads one says so in its ``--help``,
and models are loaded only from paths the user names (docs/usage.md, "Loading models runs code")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHRASE = "load only models you trust"

#: every place in the package that loads a model or a pickled training state, and where its path
#: comes from; a new one (say, a model path read from a config or a run folder) fails
#: test_models_are_loaded_only_from_paths_the_user_names until it is reviewed and listed here
LOADERS = {
    "agents/training/models.py": "load_model(path): the path its caller passes",
    "agents/training/run.py": "train(resume=RUN_DIR): the newest state inside the run folder the user resumes",
    "agents/training/rllib_ppo.py": "train(): the checkpoint inside the run folder (--run-dir or the default)",
    "scripts/evaluate.py": "--model PATH",
    "scripts/evaluate_sessions.py": "--model PATH",
    "scripts/report.py": "--policy PATH",
    "scripts/dataset.py": "--policy PATH",
    "scripts/bench_card_removal.py": "--policy PATH",
    "agents/explorer/agents.py": "Agent(path): each serve.py --model PATH, passed on by load_agents",
}
_LOAD_CALL = re.compile(r"\b(?:load_model|restore_from_path|load_replay_buffer|from_checkpoint|torch\.load|joblib\.load|"
                        r"(?:cloud)?pickle\.loads?|cls\.load)\(|\)\.load\(")
#: scripts whose model loading happens in the library (the resumed run folder's checkpoint)
LOADS_THROUGH_THE_LIBRARY = ("rllib_ppo",)


def _source_files() -> list[Path]:
    return [p for d in ("agents", "envs", "scripts") for p in sorted((ROOT / d).rglob("*.py"))]


def _loading_scripts() -> list[str]:
    """The scripts that take a model path: a ``--model`` flag or a call of ``load_model``."""
    found = []
    for path in sorted((ROOT / "scripts").glob("*.py")):
        text = path.read_text()
        if re.search(r'add_argument\(\s*"--model"', text) or re.search(r"\bload_model\(", text):
            found.append(path.stem)
    return found


def test_the_scan_finds_the_scripts_that_load_models():
    assert {"evaluate", "evaluate_sessions", "report", "dataset", "bench_card_removal"} <= set(_loading_scripts())


def test_every_script_that_loads_a_model_says_it_runs_code_in_its_help():
    scripts = sorted(set(_loading_scripts()) | set(LOADS_THROUGH_THE_LIBRARY))
    procs = {name: subprocess.Popen([sys.executable, str(ROOT / "scripts" / f"{name}.py"), "--help"], cwd=ROOT,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in scripts}
    missing = []
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{name} --help: {err[-2000:]}"
        if PHRASE not in " ".join(out.split()):
            missing.append(name)
    assert not missing, f"--help of {missing} does not say {PHRASE!r}"


def test_models_are_loaded_only_from_paths_the_user_names():
    found = {}
    for path in _source_files():
        calls = [m.group(0) for line in path.read_text().splitlines()
                 if not line.lstrip().startswith(("def ", "#", "from ", "import "))
                 for m in _LOAD_CALL.finditer(line)]
        if calls:
            found[path.relative_to(ROOT).as_posix()] = calls
    assert sorted(found) == sorted(LOADERS), {k: v for k, v in found.items() if k not in LOADERS}


def test_docs_usage_md_has_the_note():
    text = " ".join((ROOT / "docs" / "usage.md").read_text().split())
    assert "**Loading models runs code.**" in text and "Load only models you trust" in text
