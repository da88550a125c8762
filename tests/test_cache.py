"""Cache: atomic entries, verified checksums, stale/corrupt entries rebuilt loudly."""

import json

import numpy as np
import pytest

from splitpoker.envs.rules import cache, cache_contents


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


def _damage(data, meta, how):
    """Damage an entry as a crash, a full disk or a bad copy would; returns the file to blame."""
    if how == "truncated-npy":
        data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
        return data
    if how == "empty-npy":
        data.write_bytes(b"")
        return data
    if how == "truncated-json":
        meta.write_text(meta.read_text()[:40])
        return meta
    if how == "both-truncated":
        data.write_bytes(data.read_bytes()[:100])
        meta.write_text(meta.read_text()[:10])
        return meta
    if how == "json-not-utf8":
        meta.write_bytes(b"\xff\xfe{" + meta.read_bytes()[1:])
        return meta
    if how == "json-a-list":
        meta.write_text("[1, 2]")
        return meta
    if how == "json-without-fields":
        meta.write_text(json.dumps({"format": 1}))
        return meta
    raise AssertionError(how)


DAMAGES = ["truncated-npy", "empty-npy", "truncated-json", "both-truncated", "json-not-utf8", "json-a-list",
           "json-without-fields"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_entry_names_its_file_and_what_to_do(cdir, how):
    """load() raises a CacheError naming the damaged file and saying to delete the entry's two
    files (or let a build replace them), never another exception."""
    want = np.arange(1000, dtype=np.int64)
    cache.save("t", {"v": 1}, want)
    data, meta = cache.entry_paths("t", {"v": 1})
    blame = _damage(data, meta, how)
    for mmap in (False, True):
        with pytest.raises(cache.CacheError) as e:
            cache.load("t", {"v": 1}, mmap=mmap)
        msg = str(e.value)
        assert str(blame) in msg and f"delete {data} and {meta}" in msg, msg


@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.parametrize("mmap", [False, True])
def test_a_damaged_entry_is_rebuilt_with_a_warning_naming_it(cdir, how, mmap):
    want = np.arange(1000, dtype=np.int64)
    cache.save("t", {"v": 1}, want)
    data, meta = cache.entry_paths("t", {"v": 1})
    blame = _damage(data, meta, how)
    with pytest.warns(UserWarning, match="rebuilding") as rec:
        arr = cache.load_or_build("t", {"v": 1}, lambda: want.copy(), mmap=mmap)
    assert str(blame) in str(rec[0].message)
    assert np.array_equal(arr, want) and np.array_equal(cache.load("t", {"v": 1}), want)


def test_mmap_load(cdir):
    arr = cache.load_or_build("t", {"v": 3}, lambda: np.arange(5, dtype=np.uint8), mmap=True)
    assert isinstance(arr, np.memmap) and arr.tolist() == [0, 1, 2, 3, 4]


def test_prune_removes_only_stale(cdir):
    cache.save("dealer-x", {"rules_source": "old"}, np.zeros(2))
    cache.save("dealer-x", {"rules_source": "new"}, np.ones(2))
    # metadata that cannot be read says nothing about who wrote the pair: left (a build replaces it)
    (cdir / "dealer-y-0123456789abcdef.json").write_text("{")
    np.save(cdir / "dealer-y-0123456789abcdef.npy", np.zeros(2))
    (cdir / "dealer-z-broken.json").write_text("{")  # not a name save() writes: not ours, kept
    removed = cache.prune("dealer-", lambda k: k.get("rules_source") == "new")
    assert removed == [cache.entry_paths("dealer-x", {"rules_source": "old"})[0]]
    assert np.array_equal(cache.load("dealer-x", {"rules_source": "new"}), np.ones(2))
    assert sorted(p.name for p in cdir.glob("dealer-[yz]*")) == [
        "dealer-y-0123456789abcdef.json", "dealer-y-0123456789abcdef.npy", "dealer-z-broken.json"]
    assert (cdir / "dealer-z-broken.json").read_text() == "{"


def test_our_metadata_names_splitpoker_and_its_format(cdir):
    """What lets --clear and --prune tell our entries from anything else in the folder."""
    cache.save("t", {"v": 1}, np.arange(3))
    meta = json.loads(cache.entry_paths("t", {"v": 1})[1].read_text())
    assert meta["writer"] == "splitpoker" and meta["format"] == cache.FORMAT_VERSION == 1
    assert sorted(meta) == ["dtype", "format", "key", "sha256", "shape", "writer"]


def test_entries_written_before_the_writer_field_are_still_ours(cdir):
    """An entry saved by an earlier version (format 1, no ``writer``) is recognised by its exact
    fields and by its name's digest being its key's: listed, pruned, loaded."""
    data = cache.save("dealer-x", {"rules_source": "old"}, np.arange(3))
    meta_path = data.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    del meta["writer"]
    meta_path.write_text(json.dumps(meta, indent=1))
    assert cache.load("dealer-x", {"rules_source": "old"}).tolist() == [0, 1, 2]
    assert [e["key"] for e in cache.entries()] == [{"rules_source": "old"}]
    assert cache.prune("dealer-", lambda k: False) == [data] and list(cdir.iterdir()) == []


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
    import io

    ours = cache.save("dealer-x", {"rules_source": "old"}, np.arange(3), directory=cdir)
    buf = io.BytesIO()
    np.save(buf, np.arange(1000))
    leftover = cdir / f".{ours.stem}.abc123.npy.tmp"  # a writer killed mid-save: half an .npy
    leftover.write_bytes(buf.getvalue()[:500])
    foreign = _foreign_files(cdir)
    (cdir / f".{ours.stem}.def456.npy.tmp").write_text("not an npy")  # named like ours, is not
    foreign[f".{ours.stem}.def456.npy.tmp"] = "not an npy"
    removed = getattr(cache_contents, how)(cdir)["removed"]
    assert sorted(removed) == sorted(map(str, [ours, ours.with_suffix(".json"), leftover]))
    assert {p.name: p.read_text() for p in cdir.iterdir()} == foreign


def _build_once_all_wait(directory: str, marker: str, waiting, started) -> None:
    """A child process: load or build entry ``t``. Whichever child builds it holds the build until
    the two others have said they wait for its lock (no sleep: the order is forced by semaphores)."""
    import os

    os.environ[cache.ENV_VAR] = directory

    def build():
        with open(marker, "a") as f:
            f.write(f"{os.getpid()}\n")
        for _ in range(2):  # the two other processes are waiting for this build
            assert waiting.acquire(timeout=120), "the other processes never waited for the lock"
        return np.arange(5, dtype=np.int64)

    def log(msg):
        if "another process is building it" in msg:
            waiting.release()

    started.release()
    arr = cache.load_or_build("t", {"v": 9}, build, log=log)
    assert arr.tolist() == [0, 1, 2, 3, 4]


def test_processes_needing_a_missing_entry_at_once_build_it_once(cdir, tmp_path_factory):
    """Three processes start together on a missing entry: one builds under the entry's lock, the
    two others wait (the build lasts until both say so) and load what it saved; no lock file is
    left behind."""
    import multiprocessing as mp

    marker = tmp_path_factory.mktemp("m") / "builds.txt"
    ctx = mp.get_context("fork")
    waiting, started = ctx.Semaphore(0), ctx.Semaphore(0)
    procs = [ctx.Process(target=_build_once_all_wait, args=(str(cdir), str(marker), waiting, started))
             for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert len(marker.read_text().split()) == 1  # built once
    assert sorted(p.name for p in cdir.iterdir()) == sorted(p.name for p in cache.entry_paths("t", {"v": 9}, cdir))


def _hold_the_build(directory: str, marker: str, building, release) -> None:
    """A child process building entry ``t`` (under its lock) until ``release`` is set."""
    import os

    os.environ[cache.ENV_VAR] = directory

    def build():
        with open(marker, "a") as f:
            f.write(f"holder {os.getpid()}\n")
        building.set()
        assert release.wait(120)
        return np.arange(4, dtype=np.int64)

    cache.load_or_build("t", {"v": 11}, build)


def _build_after_waiting(directory: str, marker: str, waiting) -> None:
    import os

    os.environ[cache.ENV_VAR] = directory

    def build():
        with open(marker, "a") as f:
            f.write(f"second {os.getpid()}\n")
        return np.arange(4, dtype=np.int64)

    def log(msg):
        if "another process is building it" in msg:
            waiting.set()

    assert cache.load_or_build("t", {"v": 11}, build, log=log).tolist() == [0, 1, 2, 3]


def test_an_interrupted_waiter_leaves_the_lock_of_the_build_it_waited_for(cdir, tmp_path_factory):
    """Only the holder removes the lock file: a waiter stopped by Ctrl-C leaves it, so the next
    process still waits for the running build instead of starting a second one."""
    import multiprocessing as mp

    marker = tmp_path_factory.mktemp("m") / "builds.txt"
    ctx = mp.get_context("fork")
    building, release, waiting = ctx.Event(), ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_the_build, args=(str(cdir), str(marker), building, release))
    holder.start()
    second = None
    try:
        assert building.wait(120), "the holder never started its build"
        data_path, _ = cache.entry_paths("t", {"v": 11}, cdir)
        lock = cdir / "locks" / f"{data_path.stem}.lock"
        inode = lock.stat().st_ino

        def ctrl_c_while_waiting(msg):
            if "another process is building it" in msg:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            cache.load_or_build("t", {"v": 11}, lambda: np.zeros(4), log=ctrl_c_while_waiting)
        assert lock.stat().st_ino == inode  # still the holder's lock file
        second = ctx.Process(target=_build_after_waiting, args=(str(cdir), str(marker), waiting))
        second.start()
        while not waiting.is_set() and second.is_alive():
            waiting.wait(0.05)
        assert waiting.is_set(), "the next process did not wait for the running build"
    finally:
        release.set()
        holder.join(120)
        if second is not None:
            second.join(120)
    assert holder.exitcode == 0 and second.exitcode == 0
    assert marker.read_text().split()[0::2] == ["holder"]  # built once, by the holder
    assert cache.load("t", {"v": 11}, cdir).tolist() == [0, 1, 2, 3]
    assert not (cdir / "locks").exists()


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
    """The wait for another process's build ends on Ctrl-C (a KeyboardInterrupt, nothing saved).
    The Ctrl-C is sent once the wait has begun (the wait's log line says so), not after a delay."""
    import fcntl
    import os
    import signal
    import threading

    found = signal.getsignal(signal.SIGINT)
    assert found is signal.default_int_handler, (
        f"SIGINT's handler is {found!r}, not Python's default (signal.default_int_handler): this test needs "
        f"a Ctrl-C to raise KeyboardInterrupt; an earlier test or a plugin changed it")
    data_path, _ = cache.entry_paths("t", {"v": 10}, cdir)
    lock = cdir / "locks" / f"{data_path.stem}.lock"
    lock.parent.mkdir()
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # "another process" is building it
    waiting, cancelled, seen = threading.Event(), threading.Event(), []

    def log(msg):
        if "another process is building it" in msg:
            waiting.set()

    def sender():
        seen.append(waiting.wait(120))
        if not cancelled.is_set():
            send()

    t = threading.Thread(target=sender)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cache.load_or_build("t", {"v": 10}, lambda: np.zeros(2), log=log)
    finally:
        if not waiting.is_set():  # failed before the wait: send nothing
            cancelled.set()
            waiting.set()
        t.join()
        os.close(fd)
    assert seen == [True], "the wait never said it was waiting"
    assert not data_path.exists()
