"""Every code block a reader would copy from README.md and docs/**/*.md runs as written, and every
repository path those pages name exists.

Which blocks run, by the fence's language:

- ``python``: the block, saved as a file, runs in a fresh interpreter (the checkout's ``.venv``
  python) with a scratch copy of the checkout as working directory. The module docstrings'
  examples of ``DOCSTRING_FILES`` (the literal blocks after a line ending in ``::``) run the same
  way, with the id ``<file>:<line>``.
- ``bash``, ``sh``, ``shell``: the block runs in ``bash -e`` (the first failing command fails it)
  in a scratch copy of the checkout, ``.venv/bin`` first on ``PATH`` (so ``python`` is the
  venv's). ``console``: the same, over its ``$ `` lines only.
- ``yaml``: parsed with ``yaml.safe_load``, not run.
- ``text``, no language, anything else: not run (layouts, output samples, formulas). A command
  in such a block, or in an indented (unfenced) block, fails ``test_commands_are_fenced``: a
  command a reader copies goes in a ``bash`` block, so that it is run here.

The scratch copy holds ``docs/`` and ``configs/`` as copies and the code folders as links, so a
command that writes ``docs/results/results_asia.json`` or ``runs/...`` writes into the copy, never into
the checkout. A block that runs out of its ``TIMEOUT`` has every Python process's stack printed
(``PYTHONFAULTHANDLER``, then SIGABRT to its process group) before it is killed. Two blocks with
the same commands (a result page repeating a guide's) run once.

Markers: an HTML comment on the line right above the opening fence (several comments on
consecutive lines, or several directives in one comment separated by ``;``, so no ``;`` inside
one), invisible when the page is rendered::

    <!-- docs-test: replace --total-timesteps 2000000 -> --total-timesteps 256 -->
    <!-- docs-test: slow; replace --hands 10000 -> --hands 20 -->

- ``replace OLD -> NEW``: run with every ``OLD`` replaced by ``NEW``: a smaller budget, hand count
  or sample for training, solving and benchmarks (or their ``--check``), a model of an earlier
  block. ``OLD`` must occur in the block, so a marker cannot go stale silently.
- ``slow``: the block's test is marked ``@pytest.mark.slow`` (CI runs it; ``-m "not slow"`` not).
- ``args A B ...``: a python block is a script, run with these command-line arguments.
- ``needs MODULE[,MODULE]``: skipped, naming what is missing, where one of these is not installed
  (an optional extra such as ``torchrl``; ``make install`` installs them all).
- ``drop TEXT (REASON)``: a shell block runs without its commands that contain ``TEXT``
  (continuation lines included): a command with no size to make small (an exhaustive pass).
- ``skip REASON``: not run at all; the reason is required and shown by pytest. Rare: ``make``
  (it runs this suite), another test module, files from outside the repository.

Paths (``test_named_paths_exist``): every token in backticks or in a code block that starts with
a folder of the checkout (``envs/``, ``agents/``, ``scripts/``, ``docs/``, ``configs/``,
``tests/``, ``splitpoker/``) and names a file (a known extension) or a folder (a trailing ``/``),
and every markdown link to a local file, must exist; ``file::name`` must name something in that
file, ``module.Name`` a module file, and a dotted ``splitpoker.a.b.Name`` in backticks a module of
the checkout and a name in it (read from the source, nothing imported). Placeholders (``<run>``,
``...``, ``{env}``) are not checked; globs (``configs/rules/*.yaml``) must match something.
``<!-- docs-test: old-paths -->`` right above a table says its first column lists former paths:
those must NOT exist (the other columns are checked as usual).
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
DOC_FILES = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md"))]
#: modules whose docstring examples (``::`` literal blocks) are run as python blocks
DOCSTRING_FILES = ["envs/rllib.py"]
TIMEOUT = 600  # seconds per block
RUN_LANGS = {"python", "py"}
SHELL_LANGS = {"bash", "sh", "shell", "console"}
#: folders of the checkout a path in the docs can start with
TOP_FOLDERS = ("envs/", "agents/", "scripts/", "docs/", "configs/", "tests/", "splitpoker/")
#: endings that make a token a file name (``splitpoker/AsiaPoker-v0`` is an id, not a path)
FILE_EXTENSIONS = ("py", "md", "yaml", "yml", "json", "png", "parquet", "toml", "txt", "csv", "npy", "zip", "jsonl")
#: what the scratch copy copies (written to by commands); everything else at the top is linked
COPIED = ("docs", "configs")
NOT_LINKED = {"runs"}  # and every dot-folder but .venv
MARKER = re.compile(r"^\s*<!--\s*docs-test:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


@dataclass(frozen=True)
class Block:
    file: str
    line: int  # 1-based line of the opening fence (of the ``::`` line for a docstring example)
    lang: str
    code: str
    directives: tuple[tuple[str, str], ...] = ()

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"

    def directive(self, name: str) -> list[str]:
        return [value for key, value in self.directives if key == name]


def parse_directives(text: str, where: str) -> list[tuple[str, str]]:
    """``text`` of one ``docs-test:`` comment as ``(name, value)`` pairs; a bad one raises."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, _, value = part.partition(" ")
        value = value.strip()
        if name == "skip:":  # "skip: reason" reads naturally too
            name = "skip"
        if name not in {"skip", "replace", "drop", "args", "needs", "slow", "old-paths"}:
            raise ValueError(f"{where}: unknown docs-test directive {name!r} in {text.strip()!r}; expected "
                             "skip REASON, replace OLD -> NEW, drop TEXT (REASON), args A B, needs MODULE, slow "
                             "or old-paths")
        if name == "needs" and not re.fullmatch(r"[\w.]+(,[\w.]+)*", value):
            raise ValueError(f"{where}: needs {value!r}: expected 'needs MODULE[,MODULE]'")
        if name == "skip" and not value:
            raise ValueError(f"{where}: 'skip' needs a reason (docs-test: skip REASON)")
        if name == "replace" and " -> " not in value:
            raise ValueError(f"{where}: replace {value!r}: expected 'replace OLD -> NEW'")
        if name == "drop" and not re.fullmatch(r".+\s\(.+\)", value):
            raise ValueError(f"{where}: drop {value!r}: expected 'drop TEXT (REASON)'")
        out.append((name, value))
    return out


def markers_above(lines: list[str], index: int, where: str) -> list[tuple[str, str]]:
    """The directives of the ``docs-test`` comments on the lines right above ``lines[index]``."""
    found: list[tuple[str, str]] = []
    i = index - 1
    while i >= 0 and (m := MARKER.match(lines[i])):
        found[:0] = parse_directives(m.group(1), where)
        i -= 1
    return found


def markdown_blocks(rel: str) -> list[Block]:
    lines = (REPO / rel).read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        if j == len(lines):
            raise ValueError(f"{rel}:{i + 1}: code block never closed")
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines[i + 1:j])
        blocks.append(Block(rel, i + 1, lang.lower(), code + "\n", tuple(markers_above(lines, i, f"{rel}:{i + 1}"))))
        i = j + 1
    return blocks


def docstring_blocks(rel: str) -> list[Block]:
    """The literal blocks (``::`` then an indented block) of ``rel``'s module docstring."""
    source = (REPO / rel).read_text(encoding="utf-8")
    doc_node = ast.parse(source).body[0]
    assert isinstance(doc_node, ast.Expr) and isinstance(doc_node.value, ast.Constant), f"{rel} has no module docstring"
    lines = doc_node.value.value.split("\n")
    first = doc_node.lineno  # the docstring's first line in the file
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].rstrip().endswith("::"):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        k = j
        while k < len(lines) and (not lines[k].strip() or lines[k].startswith((" ", "\t"))):
            k += 1
        code = textwrap.dedent("\n".join(lines[j:k])).strip("\n")
        if code:
            blocks.append(Block(rel, first + i, "python", code + "\n"))
        i = k
    return blocks


def all_blocks() -> list[Block]:
    blocks = [b for rel in DOC_FILES for b in markdown_blocks(rel)]
    return blocks + [b for rel in DOCSTRING_FILES for b in docstring_blocks(rel)]


BLOCKS = all_blocks()
RUNNABLE = [b for b in BLOCKS if b.lang in RUN_LANGS | SHELL_LANGS]
YAML_BLOCKS = [b for b in BLOCKS if b.lang in {"yaml", "yml"}]


def prepared(block: Block) -> str:
    """The code the test runs: ``replace`` and ``drop`` applied, ``console`` prompts removed."""
    code = block.code
    for value in block.directive("replace"):
        old, new = value.split(" -> ", 1)
        if old not in code:
            raise AssertionError(f"{block.id}: 'replace {value}': {old!r} is not in the block (a stale marker?)")
        code = code.replace(old, new)
    if block.lang == "console":
        code = "\n".join(line[2:] for line in code.split("\n") if line.startswith("$ ")) + "\n"
    for value in block.directive("drop"):
        text = re.fullmatch(r"(.+)\s\(.+\)", value).group(1)
        commands, current = [], []
        for line in code.split("\n"):
            current.append(line)
            if not line.endswith("\\"):
                commands.append(current)
                current = []
        kept = [c for c in commands if not any(text in line for line in c)]
        if len(kept) == len(commands):
            raise AssertionError(f"{block.id}: 'drop {value}': no command contains {text!r} (a stale marker?)")
        code = "\n".join(line for c in kept for line in c)
    return code


def scratch_checkout(root: Path) -> Path:
    """A working directory that looks like the checkout: ``COPIED`` folders copied, the rest linked."""
    work = root / "checkout"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name in NOT_LINKED or entry.name.startswith("."):
            continue
        if entry.name in COPIED:
            shutil.copytree(entry, work / entry.name, symlinks=True)
        else:
            (work / entry.name).symlink_to(entry)
    (work / ".venv").symlink_to(REPO / ".venv")
    return work


def run(argv: list[str], cwd: Path, timeout: int, block: Block) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONFAULTHANDLER"] = "1"  # a stack of every Python process on SIGABRT (the timeout below)
    env["MPLBACKEND"] = "Agg"
    env.pop("PYTEST_CURRENT_TEST", None)
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGABRT)  # the group this test started: its stacks to stderr
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        pytest.fail(f"{block.id} ran out of its {timeout} s\n"
                    f"--- stdout (end) ---\n{out[-4000:]}\n--- stderr with the stacks (end) ---\n{err[-12000:]}",
                    pytrace=False)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def block_param(block: Block):
    marks = []
    if block.directive("slow"):
        marks.append(pytest.mark.slow)
    if block.directive("skip"):
        marks.append(pytest.mark.skip(reason=f"docs-test: skip {block.directive('skip')[0]}"))
    missing = [m for v in block.directive("needs") for m in v.split(",") if importlib.util.find_spec(m) is None]
    if missing:
        marks.append(pytest.mark.skip(reason=f"docs-test: needs {','.join(missing)}, not installed (pyproject.toml's extras)"))
    else:
        try:
            key = (block.lang, prepared(block), tuple(block.directive("args")))
        except AssertionError:  # a stale marker: the test itself reports it
            key = (block.id,)
        if key in FIRST_OF:
            marks.append(pytest.mark.skip(reason=f"docs-test: the same commands as {FIRST_OF[key]}, run there"))
        FIRST_OF.setdefault(key, block.id)
    marks.append(pytest.mark.timeout(TIMEOUT + 120))  # pytest-timeout stays above the block's own limit
    return pytest.param(block, id=block.id, marks=marks)


FIRST_OF: dict[tuple, str] = {}  # a block's code -> the first block with that code (run once)


@pytest.mark.parametrize("block", [block_param(b) for b in RUNNABLE])
def test_block_runs(block: Block, tmp_path: Path):
    work = scratch_checkout(tmp_path)
    code = prepared(block)
    if block.lang in RUN_LANGS:
        script = tmp_path / "block.py"
        script.write_text(code, encoding="utf-8")
        argv = [PYTHON, str(script), *shlex.split(" ".join(block.directive("args")))]
    else:
        script = tmp_path / "block.sh"
        script.write_text("set -e -o pipefail\n" + code, encoding="utf-8")
        argv = ["bash", str(script)]
    result = run(argv, work, TIMEOUT, block)
    assert result.returncode == 0, (
        f"{block.id} exited {result.returncode}\n--- ran ---\n{code}\n--- stdout (end) ---\n{result.stdout[-4000:]}\n"
        f"--- stderr (end) ---\n{result.stderr[-8000:]}")


@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in YAML_BLOCKS])
def test_yaml_block_parses(block: Block):
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(block.code) is not None, f"{block.id}: an empty YAML block"


#: how a line a reader would paste into a shell starts
COMMAND = re.compile(r"^\s*(\$ |python3? |nice |make |pip |\.venv/|/usr/bin/time |bash |splitpoker-[a-z-]+ )")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")


def unfenced_commands(rel: str) -> list[tuple[int, str]]:
    """``(line, text)`` of the commands of ``rel`` that no test would run: in a fence with no
    language, or in an indented code block (four spaces after a blank line, not a list's)."""
    lines = (REPO / rel).read_text(encoding="utf-8").split("\n")
    out, fence, lang, indented = [], None, "", False
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence, lang, indented = m.group(2), m.group(3).lower(), False
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            elif not lang and COMMAND.match(line):
                out.append((n, line.strip()))
            continue
        if line.startswith(("    ", "\t")) and line.strip():
            if not indented and n >= 2 and not lines[n - 2].strip():
                previous = next((p for p in reversed(lines[:n - 2]) if p.strip()), "")
                indented = not (previous.startswith((" ", "\t")) or LIST_ITEM.match(previous))
            if indented and COMMAND.match(line):
                out.append((n, line.strip()))
        elif line.strip():
            indented = False
    return out


def test_commands_are_fenced():
    """A command a reader would copy is in a ``bash`` block (and so run by ``test_block_runs``),
    not in a fence without a language or an indented block, which nothing runs."""
    problems = [f"{rel}:{n}: {text[:90]}" for rel in DOC_FILES for n, text in unfenced_commands(rel)]
    assert not problems, ("commands outside a ```bash block (fence them as ```bash, with a docs-test "
                          "marker if they are long, or as ```text if they are output):\n" + "\n".join(problems))


# ---------------------------------------------------------------- paths

PATH_TOKEN = re.compile(r"[A-Za-z0-9_./*<>{}…:-]+")


def path_candidates(text: str) -> list[str]:
    """Tokens of ``text`` that start with a folder of the checkout."""
    out = []
    for tok in PATH_TOKEN.findall(text):
        tok = tok.rstrip(".,:;")
        if tok.startswith(TOP_FOLDERS):
            out.append(tok)
    return out


def path_problem(tok: str) -> str | None:
    """Why ``tok`` (a token starting with a checkout folder) is not a path that exists, or ``None``."""
    if any(c in tok for c in "<>{}…") or "..." in tok:
        return None  # a placeholder
    if "*" in tok:
        return None if glob.glob(str(REPO / tok)) else "matches no file"
    name = None
    if "::" in tok:
        tok, _, name = tok.partition("::")
    last = tok.rsplit("/", 1)[-1]
    if tok.endswith("/"):
        return None if (REPO / tok).is_dir() else "no such folder"
    if "." not in last:
        return None  # an id (splitpoker/AsiaPoker-v0) or a bare word, not a file
    ext = last.rsplit(".", 1)[1]
    if ext not in FILE_EXTENSIONS:  # module.Name: the module's file
        module = tok.rsplit(".", 1)[0] + ".py"
        return None if (REPO / module).is_file() else f"no module file {module}"
    if not (REPO / tok).exists():
        return "no such file"
    if name and name.split("[")[0] not in (REPO / tok).read_text(encoding="utf-8"):
        return f"{name!r} is not in {tok}"
    return None


#: the import name's subpackages and their folders (pyproject.toml's package-dir)
PACKAGE_DIRS = {"envs": "envs", "agents": "agents", "scripts": "scripts"}
DOTTED = re.compile(r"\bsplitpoker(?:\.\w+)+")


def dotted_problem(name: str) -> str | None:
    """Why ``splitpoker.a.b.Name`` does not name a module of the checkout and a name in it, or
    ``None``; read from the source (nothing imported): the longest prefix that is a package or
    module, then each remaining part a word of that module's file."""
    parts = name.split(".")[1:]
    if parts and parts[0] in PACKAGE_DIRS:
        folder, parts = REPO / PACKAGE_DIRS[parts[0]], parts[1:]
        while parts and (folder / parts[0] / "__init__.py").is_file():
            folder, parts = folder / parts[0], parts[1:]
        if parts and (folder / f"{parts[0]}.py").is_file():
            module, parts = folder / f"{parts[0]}.py", parts[1:]
        else:
            module = folder / "__init__.py"
    else:
        module = REPO / "splitpoker" / "__init__.py"
    source = module.read_text(encoding="utf-8")
    for part in parts:
        if not re.search(rf"\b{re.escape(part)}\b", source):
            return f"no {part!r} in {module.relative_to(REPO)}"
    return None


def named_paths(rel: str) -> list[tuple[int, str, bool]]:
    """``(line, token, old)`` for every path ``rel`` names; ``old``: the first column of a table
    marked ``docs-test: old-paths``."""
    lines = (REPO / rel).read_text(encoding="utf-8").split("\n")
    out: list[tuple[int, str, bool]] = []
    in_block = False
    old_table = ""  # "armed" by the marker, "in" the table's rows, "" elsewhere
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            in_block = not in_block
            continue
        marker = MARKER.match(line)
        if marker and ("old-paths", "") in parse_directives(marker.group(1), f"{rel}:{n}"):
            old_table = "armed"
            continue
        if old_table == "armed":
            old_table = "in" if line.startswith("|") else ("armed" if not line.strip() else "")
        elif old_table == "in" and not line.startswith("|"):
            old_table = ""
        if in_block:
            out += [(n, tok, False) for tok in path_candidates(line)]
            continue
        if old_table == "in":
            cells = line.split("|")[1:-1]
            first, rest = (cells[0], "|".join(cells[1:])) if cells else ("", line)
            out += [(n, tok, True) for code in re.findall(r"`([^`]+)`", first) for tok in path_candidates(code)]
            line = rest
        out += [(n, tok, False) for code in re.findall(r"`([^`]+)`", line) for tok in path_candidates(code)]
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if target.startswith(("http://", "https://", "mailto:", "#")):
                continue
            local = os.path.normpath(os.path.join(os.path.dirname(rel), target.split("#")[0]))
            out.append((n, local + ("/" if target.endswith("/") else ""), False))
    return out


def test_named_paths_exist():
    problems = []
    for rel in DOC_FILES:
        for n, tok, old in named_paths(rel):
            if old:
                if (REPO / tok.split("::")[0]).exists():
                    problems.append(f"{rel}:{n}: {tok}: listed as a former path but it exists")
                continue
            if tok.startswith(TOP_FOLDERS) or "/" not in tok:
                why = path_problem(tok)
            else:  # a link's target outside the top folders
                why = None if (REPO / tok).exists() else "no such file"
            if why:
                problems.append(f"{rel}:{n}: {tok}: {why}")
        for n, line in enumerate((REPO / rel).read_text(encoding="utf-8").split("\n"), 1):
            for code in re.findall(r"`([^`]+)`", line):
                for name in DOTTED.findall(code):
                    if why := dotted_problem(name):
                        problems.append(f"{rel}:{n}: {name}: {why}")
    assert not problems, "paths named in the docs that do not exist:\n" + "\n".join(problems)


# ---------------------------------------------------------------- the harness itself

def test_markers_are_parsed_and_checked():
    assert parse_directives(" slow; replace a b -> c; args x 1 ", "x") == [
        ("slow", ""), ("replace", "a b -> c"), ("args", "x 1")]
    for bad in ("skip", "replace a b", "frobnicate", "drop ray", "needs torch rl"):
        with pytest.raises(ValueError, match="x:"):
            parse_directives(bad, "x")
    block = Block("f.md", 3, "bash", "python a.py --n 100\npython b.py \\\n  --address ray://h\n",
                  (("replace", "--n 100 -> --n 2"), ("drop", "ray:// (needs a cluster)")))
    assert prepared(block) == "python a.py --n 2\n"
    with pytest.raises(AssertionError, match="stale"):
        prepared(Block("f.md", 3, "bash", "python a.py\n", (("replace", "--n 100 -> --n 2"),)))


def test_the_collection_finds_the_blocks():
    """The parser sees every fenced block of the pages (a count from a plain scan of the fences),
    and the README's Python block among the runnable ones."""
    fences = sum(1 for rel in DOC_FILES for line in (REPO / rel).read_text(encoding="utf-8").split("\n")
                 if FENCE.match(line))
    assert fences == 2 * sum(1 for b in BLOCKS if b.file in DOC_FILES)
    assert any(b.file == "README.md" and b.lang == "python" for b in RUNNABLE)
    assert any(b.file == "envs/rllib.py" for b in RUNNABLE)


def test_unfenced_commands_are_found(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("text\n\n    python scripts/x.py --n 1\n\n- item\n\n    python in a list item\n\n"
                    "```\nnice -n 10 python y.py\n```\n\n```text\npython z.py\n```\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert unfenced_commands("page.md") == [(3, "python scripts/x.py --n 1"), (10, "nice -n 10 python y.py")]


def test_path_check_catches_a_missing_path():
    assert path_problem("splitpoker/envs/rules/play/observation.py") == "no such file"
    assert path_problem("envs/rules/play/observation.py") is None
    assert path_problem("splitpoker/AsiaPoker-v0") is None
    assert path_problem("envs/vector_threads.BlockPool") == "no module file envs/vector_threads.py"
    assert path_problem("tests/test_vector.py::no_such_test_anywhere") is not None
    assert dotted_problem("splitpoker.envs.rules.play.kernel.advance_range") is None
    assert dotted_problem("splitpoker.envs.vector.kernels.advance_range") == "no 'kernels' in envs/vector/__init__.py"
    assert dotted_problem("splitpoker.Game") == "no 'Game' in splitpoker/__init__.py"
