"""Where caches go: nothing written at import, never the source tree, results kept when saving fails.

The import checks run in a subprocess with a fresh ``SPLITPOKER_CACHE_DIR`` and compare snapshots
of the cache directory and of the source tree (``PYTHONDONTWRITEBYTECODE`` so Python's own
bytecode files do not count).
"""

import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from splitpoker.envs.rules import cache, numba_cache

ROOT = Path(__file__).resolve().parent.parent
# compiles one small cached kernel of the package (a second or two) and prints [0 2 3]
SMALL_KERNEL = ("import numpy as np\nfrom splitpoker.envs.rules.ranking.combinatorics import colex_unrank\n"
                "out = np.empty(3, np.int64)\ncolex_unrank(2, 3, out)\nprint(out)")


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


def source_snapshot() -> set[str]:
    return {s for d in ("envs", "agents", "scripts") for s in (f"{d}/{x}" for x in snapshot(ROOT / d))
            if "__pycache__" not in s or s.endswith((".nbi", ".nbc"))}


def run_python(code: str, cache_root: str, tmpdir: Path, timeout=300):
    env = dict(os.environ, SPLITPOKER_CACHE_DIR=cache_root, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmpdir),
               PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=timeout)


@pytest.mark.parametrize("module", ["splitpoker", "splitpoker.envs.rules", "splitpoker.envs.rules.cache"])
def test_import_writes_nothing(tmp_path, module):
    cdir, tdir = tmp_path / "fresh-cache", tmp_path / "tmp"
    tdir.mkdir()
    before = source_snapshot()
    out = run_python(f"import {module}, splitpoker.envs.rules as r; print(r.NUMBA_CACHE_DIR)", str(cdir), tdir)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(cdir / "numba" / numba_cache.source_digest(ROOT / "envs"))
    assert not cdir.exists(), snapshot(cdir)  # not even the directory
    assert snapshot(tdir) == set()
    assert source_snapshot() == before
    assert "Warning" not in out.stderr


def test_import_does_not_prune_old_numba_dirs(tmp_path):
    cdir = tmp_path / "c"
    olds = [cdir / "numba" / f"old{i}" for i in range(5)]
    for o in olds:
        o.mkdir(parents=True)
        (o / "k.nbi").write_text("x")
    before = snapshot(cdir)
    out = run_python("import splitpoker", str(cdir), tmp_path)
    assert out.returncode == 0, out.stderr
    assert snapshot(cdir) == before


def test_first_compiled_kernel_creates_the_dir_and_prunes_old_ones(tmp_path):
    """The first kernel saved makes the folder, marks it as ours and prunes our old folders (those
    with the marker) but the two most recently used; a folder without the marker is not ours: left."""
    cdir = tmp_path / "c"
    for i in range(5):
        (cdir / "numba" / f"old{i}").mkdir(parents=True)
        numba_cache.mark_numba_dir(cdir / "numba" / f"old{i}")
        os.utime(cdir / "numba" / f"old{i}", (1000 + i, 1000 + i))
    (cdir / "numba" / "unmarked").mkdir()
    os.utime(cdir / "numba" / "unmarked", (999, 999))
    before = source_snapshot()
    code = SMALL_KERNEL
    out = run_python(code, str(cdir), tmp_path)
    assert out.returncode == 0, out.stderr
    current = cdir / "numba" / numba_cache.source_digest(ROOT / "envs")
    assert out.stdout.strip() == "[0 2 3]"
    assert any(p.suffix == ".nbi" and "combinatorics" in p.name for p in current.rglob("*"))
    assert numba_cache.numba_dir_problem(current) is None  # marked as ours
    assert json.loads((current / numba_cache.MARKER).read_text()) == {
        "writer": "splitpoker", "what": "numba compiled kernels", "sources": current.name}
    # the current directory and the two most recently used others stay
    assert sorted(p.name for p in (cdir / "numba").iterdir()) == sorted(["old3", "old4", "unmarked", current.name])
    assert source_snapshot() == before


@pytest.mark.parametrize("bad", ["file", pytest.param("under-file", marks=pytest.mark.slow)])
def test_unusable_cache_path_falls_back_to_temp_never_the_source_tree(tmp_path, bad):
    f = tmp_path / "a-file"
    f.write_text("not a directory")
    root = f if bad == "file" else f / "sub"
    tdir = tmp_path / "tmp"
    tdir.mkdir()
    before = source_snapshot()
    code = SMALL_KERNEL + "\nimport splitpoker.envs.rules as r\nprint(r.NUMBA_CACHE_DIR)"
    out = run_python(code, str(root), tdir)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "[0 2 3]"
    assert f"{f} exists and is not a directory" in out.stderr and str(root / "numba") in out.stderr
    assert "SPLITPOKER_CACHE_DIR" in out.stderr
    fallback = Path(out.stdout.splitlines()[-1])
    assert fallback.is_relative_to(tdir) and any(p.suffix == ".nbc" for p in fallback.rglob("*"))
    assert source_snapshot() == before
    assert f.read_text() == "not a directory"


@pytest.mark.slow
def test_no_usable_directory_disables_disk_caching(tmp_path, monkeypatch):
    f = tmp_path / "f"
    f.write_text("x")
    assert numba_cache.directory_problem(f / "a" / "b") == f"{f} exists and is not a directory"
    assert numba_cache.directory_problem(tmp_path / "new" / "dir") is None
    code = ("import warnings, splitpoker.envs.rules.numba_cache as nc\n"
            "from pathlib import Path\n"
            f"nc.fallback_root = lambda: Path({str(f / 'tmp')!r})\n"
            f"d = nc.configure(Path({str(f)!r}), Path('envs').resolve())\n"
            "from numba import njit\n"
            "@njit(cache=True)\n"
            "def g(x):\n"
            "    return x + 1\n"
            "print(d, g(41))")
    out = run_python(code + "\n" + SMALL_KERNEL, str(f), tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["None", "42"] and "[0 2 3]" in out.stdout
    assert not list(f.parent.rglob("*.nbi"))
    assert "not cached on disk in this process" in out.stderr


def test_cache_dir_is_not_created_until_saved(tmp_path, monkeypatch):
    d = tmp_path / "lazy" / "deeper"
    monkeypatch.setenv(cache.ENV_VAR, str(d))
    assert cache.cache_dir() == d and not d.exists()
    with pytest.raises(cache.CacheError, match="missing"):
        cache.load("t", {"v": 1})
    assert cache.prune("t", lambda k: False) == [] and not d.exists()
    cache.save("t", {"v": 1}, np.arange(3))
    assert d.is_dir()


@pytest.mark.parametrize("bad", ["file", "under-file"])
def test_failed_save_keeps_the_result_with_a_warning(tmp_path, monkeypatch, bad):
    f = tmp_path / "cachefile"
    f.write_text("x")
    root = f if bad == "file" else f / "sub"
    monkeypatch.setenv(cache.ENV_VAR, str(root))
    calls = []

    def build():
        calls.append(1)
        return np.arange(7, dtype=np.int32)

    with pytest.warns(UserWarning, match=r"could not save t to the cache .*cannot create the cache directory") as rec:
        arr = cache.load_or_build("t", {"v": 1}, build, mmap=True)
    msg = str(rec[0].message)
    assert str(root) in msg and "writable directory" in msg and "this run only" in msg
    assert arr.tolist() == list(range(7)) and calls == [1]
    assert f.read_text() == "x"


def test_failed_save_in_readonly_dir_keeps_result(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))

    def refuse(*a, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    with pytest.warns(UserWarning, match=f"cannot write in the cache directory {tmp_path}"):
        arr = cache.load_or_build("t", {"v": 2}, lambda: np.ones(3))
    assert arr.tolist() == [1, 1, 1] and list(tmp_path.iterdir()) == []


def test_bonus_histogram_kept_when_cache_unwritable(tmp_path, monkeypatch):
    """The 35-second bonus enumeration is not lost to an unwritable cache (small stand-in build)."""
    from splitpoker.envs.rules.bonus import features as bonus

    f = tmp_path / "f"
    f.write_text("x")
    monkeypatch.setenv(cache.ENV_VAR, str(f))
    fake = np.zeros(10, dtype=np.int64)
    fake[3] = 154_143_080
    monkeypatch.setattr(bonus, "feature_histogram", lambda progress=None: fake)
    with pytest.warns(UserWarning, match="could not save bonus-features"):
        hist = bonus.cached_feature_histogram()
    assert hist.sum() == 154_143_080


def test_stale_entries_pruned_only_after_the_new_one_is_saved(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    cache.save("dealer-x", {"rules_source": "old"}, np.zeros(2))
    keep = lambda k: k.get("rules_source") == "new"  # noqa: E731

    def failing_build():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.load_or_build("dealer-x", {"rules_source": "new"}, failing_build, prune_prefix="dealer-", keep=keep)
    assert len(cache.entries()) == 1  # an interrupted build deletes nothing
    cache.load_or_build("dealer-x", {"rules_source": "new"}, lambda: np.ones(2), prune_prefix="dealer-", keep=keep)
    assert [e["key"] for e in cache.entries()] == [{"rules_source": "new"}]


def _cache_script():
    spec = importlib.util.spec_from_file_location("cache_script", ROOT / "scripts" / "cache.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cache_script_list_prune_clear(tmp_path, monkeypatch, capsys):
    import io

    from splitpoker.envs.rules import NUMBA_CACHE_DIR, RULES_SOURCE_DIGEST

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    script = _cache_script()
    cache.save("dealer-a", {"what": "dealer table", "rules_source": "0ld"}, np.zeros(2))
    cache.save("dealer-b", {"what": "dealer table", "rules_source": RULES_SOURCE_DIGEST}, np.ones(2))
    buf = io.BytesIO()
    np.save(buf, np.arange(100))
    (tmp_path / ".dealer-c-0123456789abcdef.x1y2.npy.tmp").write_bytes(buf.getvalue()[:200])  # a save() killed midway
    (tmp_path / "notes.txt").write_text("mine")
    for i in range(4):
        (tmp_path / "numba" / f"n{i}").mkdir(parents=True)
        numba_cache.mark_numba_dir(tmp_path / "numba" / f"n{i}")
        os.utime(tmp_path / "numba" / f"n{i}", (1000 + i, 1000 + i))
    (tmp_path / "numba" / "someone-else").mkdir()
    assert script.main(["--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert {e["name"].split("-")[1]: e["stale"] for e in rep["entries"]} == {"a": True, "b": False}
    assert rep["numba_cache_dir"] == NUMBA_CACHE_DIR and len(rep["numba"]) == 4
    assert {Path(x["path"]).name: x["why"] for x in rep["left"]} == {
        "notes.txt": "not ours", "someone-else": f"not ours (no splitpoker marker {numba_cache.MARKER})"}
    assert script.main(["--prune", "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)["removed"]
    stale = Path(rep["entries"][0]["path"])
    assert sorted(Path(r).name for r in removed) == sorted([".dealer-c-0123456789abcdef.x1y2.npy.tmp", "n0", "n1",
                                                            stale.name, stale.with_suffix(".json").name])
    assert [e["key"]["rules_source"] for e in cache.entries()] == [RULES_SOURCE_DIGEST]
    assert script.main(["--clear"]) == 0
    out = capsys.readouterr().out
    assert "removed 4 item(s)" in out  # dealer-b's two files and the numba folders n2, n3
    assert f"not ours (no splitpoker marker {numba_cache.MARKER}), left: {tmp_path / 'numba' / 'someone-else'}" in out
    assert f"not ours, left: {tmp_path / 'notes.txt'}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "numba"]  # other files left alone
    assert [p.name for p in (tmp_path / "numba").iterdir()] == ["someone-else"]


def test_cache_script_refuses_a_file(tmp_path, monkeypatch, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    monkeypatch.setenv(cache.ENV_VAR, str(f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _cache_script().main(["--prune"]) == 2
    assert f"cache path {f} is not a directory" in capsys.readouterr().err and f.read_text() == "x"


_FALLBACK = ("import stat, sys, warnings, splitpoker.envs.rules.numba_cache as nc\n"
             "from pathlib import Path\n"
             "nc.fallback_root = lambda: Path(sys.argv[1])\n"
             "d = nc.configure(Path(sys.argv[2]), Path('envs').resolve())\n"
             "root = Path(sys.argv[1])\n"
             "print(d, oct(stat.S_IMODE(root.lstat().st_mode)) if root.exists() else '-')\n")


@pytest.mark.parametrize("planted, used, mode, fragment", [
    ("missing", True, "0o700", None),  # made private
    ("ours-0755", True, "0o700", None),  # ours and nobody else could write it: tightened
    ("world-writable", False, "0o777", "writable by other users (mode 0o777)"),
    ("another-owner", False, "0o700", "owned by uid 54321, not this user"),
    ("symlink", False, None, "is a symbolic link"),
])
def test_the_temp_fallback_of_the_numba_cache_is_private(tmp_path, planted, used, mode, fragment):
    """The fallback ``<tmp>/splitpoker-<uid>`` is a predictable name in a world-writable folder,
    and numba unpickles the index files it finds there: it is used only as a directory of this
    user's that no one else can write (made 0700 when missing); anything else disables the
    disk cache with a warning naming why."""
    f = tmp_path / "a-file"
    f.write_text("x")  # the configured root is unusable: the fallback is consulted
    root = tmp_path / "splitpoker-uid"
    if planted == "ours-0755":
        root.mkdir(mode=0o755)
        root.chmod(0o755)
    elif planted == "world-writable":
        root.mkdir()
        root.chmod(0o777)
    elif planted == "another-owner":
        if os.getuid() != 0:
            pytest.skip("needs root to give the folder another owner")
        root.mkdir(mode=0o700)
        os.chown(root, 54321, 54321)
    elif planted == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        root.symlink_to(tmp_path / "elsewhere")
    out = subprocess.run([sys.executable, "-c", _FALLBACK, str(root), str(f)], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert out.returncode == 0, out.stderr
    chosen, got_mode = out.stdout.split()
    if used:
        assert chosen == str(root / "numba" / numba_cache.source_digest(ROOT / "envs"))
    else:
        assert chosen == "None" and fragment in out.stderr and "not cached on disk" in out.stderr, out.stderr
    if mode is not None:
        assert got_mode == mode


def test_the_rules_digest_follows_the_rules_not_the_storage_code(tmp_path):
    """``RULES_SOURCE_DIGEST`` (part of every computed table's key) changes with a house way's
    code, not with a docstring, nor with the cache's own code."""
    import shutil

    from splitpoker.envs.rules import RULES_SOURCE_DIGEST
    from splitpoker.envs.rules.source_digest import rules_digest

    copy = tmp_path / "rules"
    shutil.copytree(ROOT / "envs" / "rules", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert rules_digest(copy) == RULES_SOURCE_DIGEST
    cache_py = copy / "cache.py"
    cache_py.write_text(cache_py.read_text() + "\n\ndef _unused():\n    return 42\n")  # storage code
    assert rules_digest(copy) == RULES_SOURCE_DIGEST
    igw = copy / "house_ways" / "paigow_igw.py"
    text = igw.read_text()
    igw.write_text(text.replace('"""', '"""A changed docstring. ', 1))
    assert rules_digest(copy) == RULES_SOURCE_DIGEST
    igw.write_text(text + "\n\nEXTRA_RULE = 1\n")  # a change to what the house way's module does
    assert rules_digest(copy) != RULES_SOURCE_DIGEST
