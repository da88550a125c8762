"""Cache: atomic entries, verified checksums, stale/corrupt entries rebuilt loudly."""

import json

import numpy as np
import pytest

from splitpoker.envs.rules import cache


@pytest.fixture
def cdir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    return tmp_path


def test_env_var_controls_location(cdir):
    assert cache.cache_dir() == cdir


def test_round_trip_and_reuse(cdir):
    calls = []

    def build():
        calls.append(1)
        return np.arange(10, dtype=np.uint16)

    a = cache.load_or_build("t", {"v": 1}, build)
    b = cache.load_or_build("t", {"v": 1}, build)
    assert calls == [1] and np.array_equal(a, b) and b.dtype == np.uint16
    assert not list(cdir.glob(".*tmp"))  # no temporary files left behind


def test_different_key_different_entry(cdir):
    p1 = cache.entry_paths("t", {"v": 1})[0]
    p2 = cache.entry_paths("t", {"v": 2})[0]
    assert p1 != p2


def test_corrupt_entry_is_rebuilt_with_warning(cdir):
    cache.load_or_build("t", {"v": 1}, lambda: np.arange(1000, dtype=np.int64))
    data, _ = cache.entry_paths("t", {"v": 1})
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0xFF
    data.write_bytes(bytes(raw))
    with pytest.raises(cache.CacheError, match="corrupt: checksum"):
        cache.load("t", {"v": 1})
    with pytest.warns(UserWarning, match="corrupt"):
        arr = cache.load_or_build("t", {"v": 1}, lambda: np.arange(1000, dtype=np.int64))
    assert arr[-1] == 999
    assert np.array_equal(cache.load("t", {"v": 1}), np.arange(1000))


def test_stale_format_is_rebuilt(cdir):
    cache.save("t", {"v": 1}, np.zeros(3))
    _, meta = cache.entry_paths("t", {"v": 1})
    m = json.loads(meta.read_text())
    m["format"] = 0
    meta.write_text(json.dumps(m))
    with pytest.raises(cache.CacheError, match="format 0"):
        cache.load("t", {"v": 1})
    with pytest.warns(UserWarning, match="format"):
        cache.load_or_build("t", {"v": 1}, lambda: np.ones(3))


def test_truncated_metadata(cdir):
    cache.save("t", {"v": 1}, np.zeros(3))
    _, meta = cache.entry_paths("t", {"v": 1})
    meta.write_text("{")
    with pytest.raises(cache.CacheError, match="unreadable"):
        cache.load("t", {"v": 1})


def test_mmap_load(cdir):
    arr = cache.load_or_build("t", {"v": 3}, lambda: np.arange(5, dtype=np.uint8), mmap=True)
    assert isinstance(arr, np.memmap) and arr.tolist() == [0, 1, 2, 3, 4]


def test_prune_removes_only_stale(cdir):
    cache.save("dealer-x", {"rules_source": "old"}, np.zeros(2))
    cache.save("dealer-x", {"rules_source": "new"}, np.ones(2))
    (cdir / "dealer-y-0123456789abcdef.json").write_text("{")  # an entry of ours whose metadata is damaged
    np.save(cdir / "dealer-y-0123456789abcdef.npy", np.zeros(2))
    (cdir / "dealer-z-broken.json").write_text("{")  # not a name save() writes: not ours, kept
    removed = cache.prune("dealer-", lambda k: k.get("rules_source") == "new")
    assert len(removed) == 2
    assert np.array_equal(cache.load("dealer-x", {"rules_source": "new"}), np.ones(2))
    assert not list(cdir.glob("dealer-y*"))
    assert (cdir / "dealer-z-broken.json").read_text() == "{"


def _foreign_files(d):
    """Files a user or another program put in the cache folder: none of them is ours."""
    files = {"experiment_config.json": '{"lr": 0.1}', "package.json": '{"name": "x"}', "notes.txt": "keep",
             "results-0123456789abcdef.json": '{"score": 1}',  # our naming pattern, not our metadata
             ".vimswap.tmp": "editor"}
    for name, text in files.items():
        (d / name).write_text(text)
    return files


@pytest.mark.parametrize("how", ["clear", "prune_stale"])
def test_clear_and_prune_touch_only_our_files_and_name_them(cdir, how):
    """--clear / --prune delete splitpoker's entries (both files), its leftover temporary files and
    its numba caches, and report exactly the files deleted; whatever else sits in the folder stays."""
    ours = cache.save("dealer-x", {"rules_source": "old"}, np.arange(3), directory=cdir)
    leftover = cdir / f".{ours.stem}.abc123.npy.tmp"  # a writer killed mid-save
    leftover.write_bytes(b"half")
    foreign = _foreign_files(cdir)
    removed = getattr(cache, how)(cdir)["removed"]
    assert sorted(removed) == sorted(map(str, [ours, ours.with_suffix(".json"), leftover]))
    assert {p.name: p.read_text() for p in cdir.iterdir()} == foreign


def _build_slowly(directory: str, marker: str) -> None:
    """A child process: load or build entry ``t`` (a build takes 1.5 s and leaves a mark)."""
    import os
    import time

    os.environ[cache.ENV_VAR] = directory

    def build():
        with open(marker, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(1.5)
        return np.arange(5, dtype=np.int64)

    arr = cache.load_or_build("t", {"v": 9}, build)
    assert arr.tolist() == [0, 1, 2, 3, 4]


def test_processes_needing_a_missing_entry_at_once_build_it_once(cdir, tmp_path_factory):
    """Three processes start together on a missing entry: one builds under the entry's lock, the
    two others wait and load what it saved; no lock file is left behind."""
    import multiprocessing as mp

    marker = tmp_path_factory.mktemp("m") / "builds.txt"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_build_slowly, args=(str(cdir), str(marker))) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert len(marker.read_text().split()) == 1  # built once
    assert sorted(p.name for p in cdir.iterdir()) == sorted(p.name for p in cache.entry_paths("t", {"v": 9}, cdir))


def _ctrl_c_to_the_process():
    import os
    import signal
    os.kill(os.getpid(), signal.SIGINT)


def _ctrl_c_to_this_thread():
    import signal
    import threading
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)


# a Ctrl-C the kernel hands to a thread other than the main one (Ray and torch start many) must end
# the wait too: a blocking flock would stay blocked (a suite once hung here)
@pytest.mark.parametrize("send", [_ctrl_c_to_the_process, _ctrl_c_to_this_thread], ids=["process", "other-thread"])
def test_a_build_waiting_for_the_lock_is_interruptible(cdir, send):
    """The wait for another process's build ends on Ctrl-C (a KeyboardInterrupt, nothing saved)."""
    import fcntl
    import os
    import threading

    data_path, _ = cache.entry_paths("t", {"v": 10}, cdir)
    lock = cdir / "locks" / f"{data_path.stem}.lock"
    lock.parent.mkdir()
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # "another process" is building it
    threading.Timer(0.5, send).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cache.load_or_build("t", {"v": 10}, lambda: np.zeros(2))
    finally:
        os.close(fd)
    assert not data_path.exists()
