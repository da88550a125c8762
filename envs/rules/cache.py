"""On-disk cache for big tables: user cache directory, atomic writes, verified checksums.

Location: ``$SPLITPOKER_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/splitpoker``, else
``~/.cache/splitpoker``; never the repository. Each entry is a pair of files::

    <name>.npy    the array (numpy format, loadable with mmap)
    <name>.json   {"format": FORMAT_VERSION, "key": {...}, "sha256": ..., "shape": ..., "dtype": ...}

Writes go to temporary files in the same directory and are renamed into place (atomic on POSIX),
so a crash never leaves a half-written entry under the final name. On load the metadata must
match the requested key and format and the data's SHA-256 must match: a corrupt or stale entry is
reported with a warning naming the file and the reason, and rebuilt — never silently used.

Nothing is created or deleted until something is built: the directory is made by the first
build (its lock) or :func:`save`, and entries an update made useless (tables of older rules sources) are pruned just
after their replacement is written. If saving fails (a read-only disk, a cache path that is a
file), :func:`load_or_build` warns, naming the path and what is expected, and returns the result
it computed: work is never lost to the cache.

One build at a time: when an entry is missing, :func:`load_or_build` builds it under an exclusive
lock (``locks/<name>-<key digest>.lock``, POSIX ``flock``), so processes that need the same table
at once (pytest-xdist workers, Ray workers, two scripts) build it once: the others wait, then load
what the first saved. The lock file is removed after the build. Where no lock can be taken (no
``fcntl``, a read-only directory) each process builds as before; atomic saves keep every entry
whole either way.

Command line (list, prune or clear the cache): ``scripts/cache.py --list / --prune / --clear``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 1
ENV_VAR = "SPLITPOKER_CACHE_DIR"
#: how often a process waiting for another's build tries the lock again
_LOCK_POLL_SECONDS = 0.1


class CacheError(ValueError):
    """A cache entry that cannot be used: names the file and what is wrong."""


class CacheWriteError(OSError):
    """Saving to the cache failed: names the path and what is expected."""


def cache_dir() -> Path:
    """The cache root (not created here: :func:`save` makes it when it first writes)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "splitpoker"
    return Path.home() / ".cache" / "splitpoker"


def _ensure_dir(d: Path) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CacheWriteError(f"cannot create the cache directory {d} ({e.strerror or e}): expected ${ENV_VAR} "
                              f"(default ~/.cache/splitpoker) to name a writable directory") from e


def key_digest(key: dict[str, Any]) -> str:
    """Short stable hash of a cache key (part of the file name)."""
    blob = json.dumps(key, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def file_sha256(path: Path, chunk: int = 1 << 24) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def entry_paths(name: str, key: dict[str, Any], directory: Path | None = None) -> tuple[Path, Path]:
    d = directory or cache_dir()
    stem = f"{name}-{key_digest(key)}"
    return d / f"{stem}.npy", d / f"{stem}.json"


def save(name: str, key: dict[str, Any], array: np.ndarray, directory: Path | None = None) -> Path:
    """Write ``array`` atomically with its metadata; returns the data path."""
    data_path, meta_path = entry_paths(name, key, directory)
    _ensure_dir(data_path.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=data_path.parent, prefix=f".{data_path.stem}.", suffix=".npy.tmp")
    except OSError as e:
        raise CacheWriteError(f"cannot write in the cache directory {data_path.parent} ({e.strerror or e}): "
                              f"expected a writable directory (set ${ENV_VAR})") from e
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, np.ascontiguousarray(array), allow_pickle=False)
        digest = file_sha256(Path(tmp))
        meta = {"format": FORMAT_VERSION, "key": key, "sha256": digest,
                "shape": list(array.shape), "dtype": str(array.dtype)}
        fd2, tmp_meta = tempfile.mkstemp(dir=data_path.parent, prefix=f".{data_path.stem}.", suffix=".json.tmp")
        with os.fdopen(fd2, "w") as f:
            json.dump(meta, f, indent=1, default=str)
        os.replace(tmp, data_path)
        os.replace(tmp_meta, meta_path)
    except BaseException:
        for p in (tmp, locals().get("tmp_meta")):
            if p and os.path.exists(p):
                os.unlink(p)
        raise
    return data_path


def load(name: str, key: dict[str, Any], directory: Path | None = None, mmap: bool = False) -> np.ndarray:
    """Load a verified entry; raises :class:`CacheError` (missing, stale or corrupt)."""
    data_path, meta_path = entry_paths(name, key, directory)
    if not data_path.exists() or not meta_path.exists():
        raise CacheError(f"cache entry {data_path} is missing")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CacheError(f"cache metadata {meta_path} is unreadable ({e})") from e
    if meta.get("format") != FORMAT_VERSION:
        raise CacheError(f"cache entry {data_path} has format {meta.get('format')!r}, expected {FORMAT_VERSION}")
    if json.loads(json.dumps(meta.get("key"), default=str)) != json.loads(json.dumps(key, default=str)):
        raise CacheError(f"cache entry {data_path} was built for another configuration")
    try:
        digest = file_sha256(data_path)
    except OSError as e:
        raise CacheError(f"cache entry {data_path} is unreadable ({e})") from e
    if digest != meta.get("sha256"):
        raise CacheError(f"cache entry {data_path} is corrupt: checksum {digest[:12]}… != recorded {str(meta.get('sha256'))[:12]}…")
    try:
        arr = np.load(data_path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise CacheError(f"cache entry {data_path} is unreadable ({e})") from e
    if list(arr.shape) != meta.get("shape") or str(arr.dtype) != meta.get("dtype"):
        raise CacheError(f"cache entry {data_path} has shape {arr.shape}/{arr.dtype}, metadata says {meta.get('shape')}/{meta.get('dtype')}")
    return arr


def load_or_build(name: str, key: dict[str, Any], build: Callable[[], np.ndarray], *,
                  directory: Path | None = None, mmap: bool = False, use_cache: bool = True,
                  log: Callable[[str], None] | None = None, prune_prefix: str | None = None,
                  keep: Callable[[dict[str, Any]], bool] | None = None) -> np.ndarray:
    """Return the cached array for ``key``, building (and caching) it when missing or unusable.

    A stale or corrupt entry triggers a ``warnings.warn`` naming the file and the reason, then a
    rebuild; a missing one is built quietly (``log`` is told either way). When the new entry is
    saved, the entries named ``prune_prefix*`` that ``keep`` rejects are deleted (see
    :func:`prune`). If saving fails (``OSError``: read-only or full disk, a cache path that is a
    file) a warning names the path and the built array is returned anyway."""
    say = log or (lambda msg: None)
    if not use_cache:
        return build()
    try:
        arr = load(name, key, directory, mmap=mmap)
        say(f"loaded {name} from cache ({entry_paths(name, key, directory)[0]})")
        return arr
    except CacheError as e:
        first_error = e
    with build_lock(name, key, directory, say):
        if "is missing" in str(first_error):
            try:  # another process may have built it while this one waited for the lock
                arr = load(name, key, directory, mmap=mmap)
                say(f"loaded {name} from cache, built by another process ({entry_paths(name, key, directory)[0]})")
                return arr
            except CacheError as e:
                first_error = e
        if "is missing" in str(first_error):
            say(f"{name}: no cache entry yet, building")
        else:
            warnings.warn(f"{first_error}; rebuilding", stacklevel=2)
            say(f"{first_error}; rebuilding")
        return _build_and_save(name, key, build, directory, mmap, say, log, prune_prefix, keep)


def _try_lock(fcntl, fd: int) -> bool:
    """Take the exclusive ``flock`` on ``fd`` if it is free; False if another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextmanager
def build_lock(name: str, key: dict[str, Any], directory: Path | None = None,
               say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the exclusive build lock of an entry (see the module docstring); waits while another
    process holds it (Ctrl-C interrupts the wait). Without ``fcntl`` or a writable directory: no
    lock."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    data_path, _ = entry_paths(name, key, directory)
    lock_path = data_path.parent / "locks" / f"{data_path.stem}.lock"
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # read-only or unusable directory: build unlocked (saving will warn)
        yield
        return
    try:
        if not _try_lock(fcntl, fd):
            if say is not None:
                say(f"{name}: another process is building it, waiting for {lock_path}")
            # poll rather than block: a blocking flock is cut short by SIGINT only when the signal
            # lands on the main thread, and in a process with other threads (Ray, torch) it may
            # not, so a Ctrl-C would never end the wait (seen: a test hung here for hours)
            while not _try_lock(fcntl, fd):
                time.sleep(_LOCK_POLL_SECONDS)
        yield
    finally:
        # the lock file goes with the build (a process still waiting on it then finds the entry
        # saved; if the save failed, two processes may build at once: wasted work, never a torn
        # entry, since saves are atomic)
        for remove in (lock_path.unlink, lock_path.parent.rmdir):
            try:
                remove()
            except OSError:
                pass
        os.close(fd)  # releases the lock


def _build_and_save(name, key, build, directory, mmap, say, log, prune_prefix, keep) -> np.ndarray:
    """:func:`load_or_build`'s build and save (under the build lock)."""
    arr = build()
    try:
        path = save(name, key, arr, directory)
    except OSError as e:
        msg = (f"could not save {name} to the cache ({e}); the result is used for this run only and will be "
               f"computed again next time")
        warnings.warn(msg, stacklevel=3)
        say(msg)
        return arr
    say(f"cached {name} at {path}")
    if prune_prefix is not None and keep is not None:
        prune(prune_prefix, keep, directory, log=log)
    if mmap:
        return load(name, key, directory, mmap=True)
    return arr


# the files splitpoker writes into the cache folder (anything else there is not ours and is never deleted)
_ENTRY_META = re.compile(r"^.+-[0-9a-f]{16}\.json$")  # <name>-<key digest>.json (entry_paths)
_ENTRY_TEMP = re.compile(r"^\..+-[0-9a-f]{16}\.[^.]+\.(npy|json)\.tmp$")  # save()'s mkstemp names


def _our_metadata(meta_path: Path) -> tuple[bool, Any]:
    """Whether ``meta_path`` is the metadata of one of our entries, and its key (``None`` if it
    cannot be read): our file name, and our fields (``key``, ``sha256``) or, for a damaged one,
    our data file beside it."""
    if not _ENTRY_META.match(meta_path.name):
        return False, None
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict) and "key" in meta and "sha256" in meta:
        return True, meta["key"]
    return meta_path.with_suffix(".npy").is_file(), None


def _remove_entry(meta_path: Path) -> list[str]:
    """Delete an entry's files; the paths actually deleted."""
    removed = []
    for p in (meta_path.with_suffix(".npy"), meta_path):
        try:
            p.unlink()
        except FileNotFoundError:
            continue
        removed.append(str(p))
    return removed


def _prune(prefix: str, keep: Callable[[dict[str, Any]], bool], d: Path) -> list[tuple[Path, list[str]]]:
    """Delete our stale entries named ``prefix*``: ``(data path, files deleted)`` per entry."""
    out = []
    if not d.is_dir():
        return out
    for meta_path in sorted(d.glob(f"{prefix}*.json")):
        ours, key = _our_metadata(meta_path)
        if not ours:
            continue
        try:
            stale = not isinstance(key, dict) or not keep(key)
        except (AttributeError, TypeError):
            stale = True
        if stale:
            out.append((meta_path.with_suffix(".npy"), _remove_entry(meta_path)))
    return out


def prune(prefix: str, keep: Callable[[dict[str, Any]], bool], directory: Path | None = None,
          log: Callable[[str], None] | None = None) -> list[Path]:
    """Delete our entries named ``prefix*`` whose key ``keep`` rejects (e.g. tables built from
    older rules sources, which would never be loaded again). Damaged metadata of an entry counts as
    stale; files that are not our entries are left alone. Returns the data paths removed."""
    removed = _prune(prefix, keep, directory or cache_dir())
    if log is not None:
        for data_path, _ in removed:
            log(f"removed stale cache entry {data_path}")
    return [data_path for data_path, _ in removed]


def entries(directory: Path | None = None) -> list[dict[str, Any]]:
    """Every entry of ours in the cache directory: name, data path, bytes, key (``None`` if
    unreadable). Other files in the folder are not entries."""
    d = directory or cache_dir()
    out = []
    if not d.is_dir():
        return out
    for meta_path in sorted(d.glob("*.json")):
        ours, key = _our_metadata(meta_path)
        if not ours:
            continue
        data_path = meta_path.with_suffix(".npy")
        size = data_path.stat().st_size if data_path.exists() else 0
        out.append({"name": meta_path.stem, "path": str(data_path), "bytes": size + meta_path.stat().st_size,
                    "key": key})
    return out


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _leftover_temp_files(d: Path) -> list[Path]:
    """Temporary files of a :func:`save` that was killed (named by its ``mkstemp``)."""
    return sorted(p for p in d.glob(".*.tmp") if _ENTRY_TEMP.match(p.name) and p.is_file()) if d.is_dir() else []


def prune_stale(directory: Path | None = None, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """What ``--prune`` does: delete entries built from other rules sources (or with unreadable
    metadata), temporary files left by a killed writer, and numba caches of other source versions
    except the two most recently used. Returns what was removed."""
    from splitpoker.envs.rules import NUMBA_CACHE_DIR, RULES_SOURCE_DIGEST
    from splitpoker.envs.rules.numba_cache import prune_numba_dirs

    d = directory or cache_dir()
    removed = []
    for data_path, files in _prune("", lambda k: k.get("rules_source", RULES_SOURCE_DIGEST) == RULES_SOURCE_DIGEST, d):
        removed += files
        if log is not None:
            log(f"removed stale cache entry {data_path}")
    for p in _leftover_temp_files(d):
        p.unlink(missing_ok=True)
        removed.append(str(p))
    numba_root = d / "numba"
    current = Path(NUMBA_CACHE_DIR) if NUMBA_CACHE_DIR else numba_root / "(none)"
    if numba_root.is_dir():
        if current.parent != numba_root:  # this process caches elsewhere (fallback): keep the newest
            current = numba_root / "(none)"
        removed += [str(p) for p in prune_numba_dirs(current)]
    return {"directory": str(d), "removed": removed}


def clear(directory: Path | None = None) -> dict[str, Any]:
    """What ``--clear`` does: delete every entry, temporary file and numba cache splitpoker put in
    the cache directory (other files there are left alone)."""
    import shutil

    d = directory or cache_dir()
    removed = []
    for e in entries(d):
        removed += _remove_entry(Path(e["path"]).with_suffix(".json"))
    for p in _leftover_temp_files(d):
        p.unlink(missing_ok=True)
        removed.append(str(p))
    for sub in ("numba", "locks"):
        if (d / sub).is_dir():
            shutil.rmtree(d / sub)
            removed.append(str(d / sub))
    return {"directory": str(d), "removed": removed}

