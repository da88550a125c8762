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
    (cdir / "dealer-y-broken.json").write_text("{")
    removed = cache.prune("dealer-", lambda k: k.get("rules_source") == "new")
    assert len(removed) == 2
    assert np.array_equal(cache.load("dealer-x", {"rules_source": "new"}), np.ones(2))
    assert not list(cdir.glob("dealer-y*"))
