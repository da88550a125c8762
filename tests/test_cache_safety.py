"""Cache safety: only what splitpoker wrote is deleted, no folder another user could write is read,
no symbolic link is followed when pruning or clearing.

A numba folder "of ours" here is a real one, made by a first compile of one small kernel in a
private cache (the ``compiled`` fixture), so the tests see exactly what the writer leaves; a lock
"of ours" is one a real :func:`~splitpoker.envs.rules.cache.build_lock` left. Folders of another
owner are made with ``os.chown`` to uid 65534 (``nobody``): those tests run only as root.
"""

import json
import multiprocessing as mp
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from splitpoker.envs.rules import cache, cache_contents, numba_cache

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534
DIGEST = numba_cache.source_digest(ROOT / "envs")
# compiles one small cached kernel of the package (a second or two), prints [0 2 3] and the numba folder
SMALL_KERNEL = ("import numpy as np\nfrom splitpoker.envs.rules.ranking.combinatorics import colex_unrank\n"
                "import splitpoker.envs.rules as r\n"
                "out = np.empty(3, np.int64)\ncolex_unrank(2, 3, out)\nprint(out)\nprint(r.NUMBA_CACHE_DIR)")
as_root = pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                             reason="giving a folder another owner needs root")


def run_python(code: str, tmpdir: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter whose temp dir is ``tmpdir`` (so the fallback cache folder
    is made there), with ``env`` set (a value of ``""`` removes the variable)."""
    full = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmpdir), PYTHONPATH=str(ROOT))
    for k in ("NUMBA_CACHE_DIR", cache.ENV_VAR, "XDG_CACHE_HOME"):
        full.pop(k, None)
    full.update(env)
    for k in [k for k, v in full.items() if v == ""]:
        del full[k]
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=full, cwd=ROOT,
                          timeout=300)


def tree(d: Path) -> dict[str, bytes | str | None]:
    """Every path under ``d``: a file's bytes, a link's target, ``None`` for a folder."""
    out = {}
    for p in sorted(d.rglob("*")):
        key = p.relative_to(d).as_posix()
        out[key] = os.readlink(p) if p.is_symlink() else (p.read_bytes() if p.is_file() else None)
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """The numba folder (``numba/<digest>``) a first compile of one kernel leaves in a fresh cache."""
    root = tmp_path_factory.mktemp("compiled")
    tdir = tmp_path_factory.mktemp("compiled-tmp")
    out = run_python(SMALL_KERNEL, tdir, SPLITPOKER_CACHE_DIR=str(root))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == str(root / "numba" / DIGEST), out.stdout
    return root / "numba" / DIGEST


def copy_numba_dir(src: Path, dst: Path, mtime: float | None = None) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    if mtime is not None:
        os.utime(dst, (mtime, mtime))
    return dst


@pytest.fixture
def cdir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    d.mkdir()
    monkeypatch.setenv(cache.ENV_VAR, str(d))
    return d


# ---------------------------------------------------------------- --clear / --prune: only ours

def test_clear_leaves_what_is_not_ours(cdir):
    """Someone else's numba folder, pid file, a JSON/npy pair named like an entry and a plain file
    all stay, and the report says what was left and why."""
    (cdir / "numba" / "other").mkdir(parents=True)
    (cdir / "numba" / "other" / "f").write_text("someone's")
    (cdir / "locks").mkdir()
    (cdir / "locks" / "my.pid").write_text("4242\n")
    # our field names, but not written by us (the digest in the name is not its key's): not an entry
    (cdir / "r-0123456789abcdef.json").write_text(json.dumps(
        {"format": 1, "key": {"run": 3}, "sha256": "0" * 64, "shape": [2], "dtype": "float64"}))
    np.save(cdir / "r-0123456789abcdef.npy", np.zeros(2))
    (cdir / "myfile.txt").write_text("mine")
    before = tree(cdir)
    rep = cache_contents.clear(cdir)
    assert tree(cdir) == before
    assert rep["removed"] == []
    left = {Path(x["path"]).relative_to(cdir).as_posix(): x["why"] for x in rep["left"]}
    assert "no splitpoker marker" in left["numba/other"]
    assert "not a splitpoker build lock" in left["locks/my.pid"]
    assert "not splitpoker's metadata" in left["r-0123456789abcdef.json"]
    assert "not ours" in left["myfile.txt"]


def _die_holding_the_lock(directory: str) -> None:
    """A build killed while it held its lock (its lock file stays, held by no one)."""
    with cache.build_lock("dealer-y", {"v": 2}, Path(directory)):
        os._exit(0)


def _lock_of(name, key, d):
    return d / "locks" / f"{cache.entry_paths(name, key, d)[0].stem}.lock"


def test_clear_removes_our_entries_numba_folders_and_unheld_locks(cdir, compiled):
    data = cache.save("dealer-x", {"v": 1}, np.arange(3))
    ours = copy_numba_dir(compiled, cdir / "numba" / "0123456789abcdef")
    unmarked = cdir / "numba" / "fedcba9876543210"
    unmarked.mkdir()
    (unmarked / "k.nbi").write_bytes(b"x")
    p = mp.get_context("fork").Process(target=_die_holding_the_lock, args=(str(cdir),))
    p.start()
    p.join(60)
    dead = _lock_of("dealer-y", {"v": 2}, cdir)
    assert p.exitcode == 0 and dead.is_file()
    with cache.build_lock("dealer-z", {"v": 3}, cdir):  # a build running now
        held = _lock_of("dealer-z", {"v": 3}, cdir)
        rep = cache_contents.clear(cdir)
        assert held.is_file()
    assert sorted(rep["removed"]) == sorted(map(str, [data, data.with_suffix(".json"), ours, dead]))
    left = {Path(x["path"]).relative_to(cdir).as_posix(): x["why"] for x in rep["left"]}
    assert set(left) == {"numba/fedcba9876543210", f"locks/{held.name}"}
    assert "held by a running build" in left[f"locks/{held.name}"]
    assert sorted(p.relative_to(cdir).as_posix() for p in cdir.rglob("*")) == [
        "numba", "numba/fedcba9876543210", "numba/fedcba9876543210/k.nbi"]


# ---------------------------------------------------------------- symbolic links are not followed

@pytest.mark.parametrize("how", ["prune_stale", "clear"])
def test_a_symlinked_numba_folder_is_not_followed(cdir, compiled, how):
    """``numba/`` a link to another folder of numba caches (of ours, even): prune and clear leave
    the target whole and say why."""
    victim = cdir.parent / "victim"
    victim.mkdir()
    for i in range(5):
        copy_numba_dir(compiled, victim / f"{i:016x}", mtime=1000 + i)
    (cdir / "numba").symlink_to(victim)
    before = tree(victim)
    rep = getattr(cache_contents, how)(cdir)
    assert tree(victim) == before and (cdir / "numba").is_symlink()
    assert rep["removed"] == []
    assert any(x["path"] == str(cdir / "numba") and "symbolic link" in x["why"] for x in rep["left"]), rep


def test_pruning_numba_folders_never_follows_a_link(tmp_path, compiled):
    victim = tmp_path / "victim"
    victim.mkdir()
    for i in range(5):
        copy_numba_dir(compiled, victim / f"{i:016x}", mtime=1000 + i)
    (tmp_path / "numba").symlink_to(victim)
    before = tree(victim)
    assert numba_cache.prune_numba_dirs(tmp_path / "numba" / DIGEST) == []
    assert tree(victim) == before


def test_the_first_compile_does_not_prune_through_a_symlinked_numba_folder(tmp_path, compiled):
    """The automatic prune at a first compile: numba/ a link, the target's folders all stay (the
    link is refused with a warning, kernels go to the private fallback)."""
    root, tdir, victim = tmp_path / "c", tmp_path / "tmp", tmp_path / "victim"
    root.mkdir(), tdir.mkdir(), victim.mkdir()
    for i in range(5):
        copy_numba_dir(compiled, victim / f"{i:016x}", mtime=1000 + i)
    (root / "numba").symlink_to(victim)
    before = tree(victim)
    out = run_python(SMALL_KERNEL, tdir, SPLITPOKER_CACHE_DIR=str(root))
    assert out.returncode == 0, out.stderr
    assert tree(victim) == before
    assert f"{root / 'numba'} is a symbolic link" in out.stderr, out.stderr
    assert Path(out.stdout.split()[-1]).is_relative_to(tdir)


# ---------------------------------------------------------------- folders another user could write

class _Payload:
    """Pickled: writes a file when unpickled (what a planted numba index could do)."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return exec, (f"open({self.path!r}, 'w').write('ran')",)


def plant(numba_dir: Path, dst: Path, ran: Path) -> None:
    """A copy of a real numba folder whose index files start with a pickle that writes ``ran``."""
    copy_numba_dir(numba_dir, dst)
    for nbi in dst.rglob("*.nbi"):
        nbi.write_bytes(pickle.dumps(_Payload(str(ran))) + nbi.read_bytes())


def _give(path: Path, uid: int | None, mode: int) -> None:
    if uid is not None:
        os.chown(path, uid, uid)
    path.chmod(mode)


@pytest.mark.parametrize("how, why", [
    pytest.param("another-owner-0777", "owned by uid 65534, not this user", marks=as_root),
    pytest.param("another-owner-0755", "owned by uid 65534, not this user", marks=as_root),
    ("ours-0777", "writable by group and others (mode 0o777)"),
    ("ours-0770", "writable by group (mode 0o770)"),
    pytest.param("xdg-another-owner", "owned by uid 65534", marks=as_root),
    ("xdg-parent-0777", "writable by group and others (mode 0o777)"),
])
def test_a_cache_folder_others_can_write_is_not_read(tmp_path, compiled, how, why):
    """The cache folder (``SPLITPOKER_CACHE_DIR``, or ``$XDG_CACHE_HOME`` above it) is owned by
    another user or writable by others, and holds a numba index with a pickle planted in front:
    the kernel runs, the pickle does not, the warning names the folder and why, and the kernels go
    to the private fallback."""
    tdir, ran = tmp_path / "tmp", tmp_path / "payload-ran"
    tdir.mkdir()
    if how.startswith("xdg"):
        xdg = tmp_path / "xdg"
        shared = xdg / "splitpoker"
        plant(compiled, shared / "numba" / DIGEST, ran)
        env = {"XDG_CACHE_HOME": str(xdg)}
        named = xdg if how == "xdg-parent-0777" else shared
        _give(named, NOBODY if how == "xdg-another-owner" else None, 0o777)
    else:
        shared = named = tmp_path / "shared"
        plant(compiled, shared / "numba" / DIGEST, ran)
        env = {cache.ENV_VAR: str(shared)}
        _give(shared, NOBODY if how.startswith("another-owner") else None, int(how[-4:], 8))
    out = run_python(SMALL_KERNEL, tdir, **env)
    assert out.returncode == 0, out.stderr
    assert not ran.exists(), "the planted pickle ran"
    lines = out.stdout.split()
    assert lines[:3] == ["[0", "2", "3]"]
    assert Path(lines[-1]).is_relative_to(tdir), lines  # the private fallback
    assert f"cache folder {shared} is not safe to use" in out.stderr, out.stderr
    assert f"{named} is {why}" in out.stderr, out.stderr
    assert str(tdir) in out.stderr


# configure() alone (no compile): which numba folder it picks under a given cache root
_CONFIGURE = ("import sys, splitpoker.envs.rules.numba_cache as nc\n"
              "from pathlib import Path\n"
              "print(nc.configure(Path(sys.argv[1]), Path('envs').resolve()))\n")


@pytest.mark.parametrize("how, why", [
    ("numba-0777", "is writable by group and others (mode 0o777)"),
    pytest.param("numba-another-owner", "is owned by uid 65534, not this user", marks=as_root),
    ("digest-0775", "is writable by group (mode 0o775)"),
    pytest.param("digest-another-owner", "is owned by uid 65534, not this user", marks=as_root),
    ("numba-symlink", "is a symbolic link"),
])
def test_numba_folders_others_could_write_are_refused(tmp_path, how, why):
    """The cache root is fine but its ``numba/`` or ``numba/<digest>`` folder is not: the
    fallback is used, and the warning names the folder and why."""
    root, tdir = tmp_path / "c", tmp_path / "tmp"
    tdir.mkdir()
    (root / "numba" / DIGEST).mkdir(parents=True)
    target = root / "numba" if how.startswith("numba") else root / "numba" / DIGEST
    if how == "numba-symlink":
        (tmp_path / "mine").mkdir(mode=0o700)
        shutil.rmtree(target)
        target.symlink_to(tmp_path / "mine")
    elif how.endswith("another-owner"):
        _give(target, NOBODY, 0o755)
    else:
        _give(target, None, int(how[-4:], 8))
    out = run_python(_CONFIGURE, tdir, str(root))
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(tdir), out.stdout
    assert f"{target} {why}" in out.stderr, out.stderr


def test_a_sticky_cache_folder_of_ours_is_used(tmp_path):
    """Mode 1777 owned by this user (like /tmp): others cannot remove or rename what is ours, so it
    is used; its numba folder is made by us."""
    root, tdir = tmp_path / "c", tmp_path / "tmp"
    root.mkdir(), tdir.mkdir()
    root.chmod(0o1777)
    out = run_python(_CONFIGURE, tdir, str(root))
    assert out.returncode == 0 and "Warning" not in out.stderr, out.stderr
    assert out.stdout.strip() == str(root / "numba" / DIGEST)


@pytest.fixture
def fallback(tmp_path, monkeypatch):
    fb = tmp_path / "fallback"
    monkeypatch.setattr(numba_cache, "fallback_root", lambda: fb)
    return fb


@as_root
def test_cache_dir_falls_back_from_a_folder_of_another_owner(tmp_path, monkeypatch, fallback):
    shared = tmp_path / "shared"
    shared.mkdir()
    _give(shared, NOBODY, 0o777)
    monkeypatch.setenv(cache.ENV_VAR, str(shared))
    with pytest.warns(UserWarning, match="not safe to use") as rec:
        d = cache.cache_dir()
    msg = str(rec[0].message)
    assert d == fallback and f"{shared} is owned by uid {NOBODY}, not this user (0)" in msg and str(fallback) in msg
    assert fallback.is_dir() and (fallback.stat().st_mode & 0o777) == 0o700
    cache.save("t", {"v": 1}, np.arange(3), directory=d)
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize("uid", [pytest.param(NOBODY, marks=as_root), None])
def test_an_explicit_unsafe_directory_is_neither_read_nor_written(tmp_path, uid):
    """``directory=`` a folder another user could write: load refuses it, naming it and why;
    load_or_build computes the result for this run, with a warning, and writes nothing there."""
    shared = tmp_path / "shared"
    shared.mkdir()
    good = tmp_path / "good"
    cache.save("t", {"v": 1}, np.arange(3), directory=good)
    for p in good.iterdir():
        shutil.copy2(p, shared / p.name)
    _give(shared, uid, 0o777)
    with pytest.raises(cache.CacheError, match=f"cache folder {shared} is not safe to use"):
        cache.load("t", {"v": 1}, directory=shared)
    before = tree(shared)
    with pytest.warns(UserWarning, match=f"cache folder {shared} is not safe to use.*this run only"):
        arr = cache.load_or_build("t", {"v": 1}, lambda: np.arange(4), directory=shared)
    assert arr.tolist() == [0, 1, 2, 3] and tree(shared) == before
    with pytest.raises(cache.CacheWriteError, match="not safe to use"):
        cache.save("t", {"v": 2}, np.arange(3), directory=shared)


@as_root
def test_an_entry_of_another_owner_in_a_sticky_folder_is_not_loaded(tmp_path):
    """A sticky folder of ours lets others add files: an entry file they own is refused."""
    d = tmp_path / "sticky"
    cache.save("t", {"v": 1}, np.arange(3), directory=d)
    d.chmod(0o1777)
    data, meta = cache.entry_paths("t", {"v": 1}, d)
    os.chown(data, NOBODY, NOBODY)
    with pytest.raises(cache.CacheError, match=f"{data} is owned by uid {NOBODY}"):
        cache.load("t", {"v": 1}, directory=d)
