"""On-disk cache for big tables: user cache directory, atomic writes, verified checksums.

Location: ``$SPLITPOKER_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/splitpoker``, else
``~/.cache/splitpoker``; never the repository. Each entry is a pair of files::

    <name>-<key digest>.npy    the array (numpy format, loadable with mmap)
    <name>-<key digest>.json   {"writer": "splitpoker", "format": FORMAT_VERSION, "key": {...},
                                "sha256": ..., "shape": ..., "dtype": ...}

Only a folder no one else can write is used (:func:`cache_dir`): one of another user's, or one
that group or others may write (unless it is sticky and ours), or one inside such a folder, is
refused with a warning naming it and why, and the private ``<temp dir>/splitpoker-<uid>`` is used
instead (:mod:`splitpoker.envs.rules.numba_cache` holds the checks: numba unpickles what it finds
in its cache, and a table someone else planted would give wrong results). Load, save and the
build lock check their folder again at use, and load refuses entry files of another owner.

Writes go to temporary files in the same directory and are renamed into place (atomic on POSIX),
so a crash never leaves a half-written entry under the final name. On load the metadata must
match the requested key and format and the data's SHA-256 must match: a corrupt or stale entry is
reported with a warning naming the file, the reason and what to do, and rebuilt — never silently
used, never a traceback.

Nothing is created or deleted until something is built: the directory is made by the first
build (its lock) or :func:`save`, and entries an update made useless (tables of older rules sources) are pruned just
after their replacement is written. If saving fails (a read-only disk, a cache path that is a
file), :func:`load_or_build` warns, naming the path and what is expected, and returns the result
it computed: work is never lost to the cache.

One build at a time: when an entry is missing, :func:`load_or_build` builds it under an exclusive
lock (:func:`build_lock`, :mod:`splitpoker.envs.rules.cache_lock`), so processes that need the
same table at once (pytest-xdist workers, Ray workers, two scripts) build it once: the others wait,
then load what the first saved. Only the holder removes the lock file; a waiter stopped by Ctrl-C
leaves it. Where no lock can be taken (no ``fcntl``, a read-only directory) each process builds as
before; atomic saves keep every entry whole either way.

What in the folder is ours (for :func:`prune`, ``--prune`` and ``--clear``) is told by content,
never by a name pattern alone: :mod:`splitpoker.envs.rules.cache_contents`.

Command line (list, prune or clear the cache): ``scripts/cache.py --list / --prune / --clear``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import stat
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from splitpoker.envs.rules import cache_lock as _lock
from splitpoker.envs.rules import numba_cache as _safety

FORMAT_VERSION = 1
ENV_VAR = "SPLITPOKER_CACHE_DIR"
#: the ``writer`` field of our metadata
WRITER = "splitpoker"
_warned: set[str] = set()  # the unsafe-folder warnings given (each once per process)


class CacheError(ValueError):
    """A cache entry that cannot be used: names the file and what is wrong."""


class CacheWriteError(OSError):
    """Saving to the cache failed: names the path and what is expected."""


def configured_cache_dir() -> Path:
    """The cache root the environment names (see the module docstring), safe or not."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "splitpoker"
    return Path.home() / ".cache" / "splitpoker"


def cache_dir() -> Path:
    """The cache root: :func:`configured_cache_dir` if no one else can write it or swap it
    (:func:`~splitpoker.envs.rules.numba_cache.root_problem`), else, with a warning naming it and
    why, the private ``<temp dir>/splitpoker-<uid>`` (made with mode 0700 if missing; if that is
    unusable too, the configured folder is returned, and refused at every use: nothing is cached).
    Not created here otherwise: :func:`save` makes it when it first writes."""
    d = configured_cache_dir()
    problem = _safety.root_problem(d)
    if problem is None:
        return d
    fallback = _safety.fallback_root()
    problem2 = _safety.private_root(fallback) or _safety.root_problem(fallback)
    tail = (f"caching in {fallback} instead" if problem2 is None else
            f"and neither is the fallback {fallback} ({problem2}): nothing is cached on disk")
    msg = (f"cache folder {d} is not safe to use ({problem}); {tail}. Set ${ENV_VAR} to a folder of yours "
           f"that no one else can write.")
    if msg not in _warned:  # once per process (every load and save asks for the folder)
        _warned.add(msg)
        warnings.warn(msg, stacklevel=2)
    return fallback if problem2 is None else d  # d: refused again at every use, so never read nor written


def unsafe_reason(d: Path) -> str | None:
    """Why the cache folder ``d`` must not be used (``None``: it may)."""
    problem = _safety.root_problem(d)
    return None if problem is None else f"cache folder {d} is not safe to use ({problem})"


def _ensure_dir(d: Path) -> None:
    problem = unsafe_reason(d)
    if problem is not None:
        raise CacheWriteError(f"{problem}: expected ${ENV_VAR} to name a folder of yours that no one else can write")
    try:
        _safety.make_dirs(d)
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
        meta = {"writer": WRITER, "format": FORMAT_VERSION, "key": key, "sha256": digest,
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


def entry_file_problem(path: Path) -> str | None:
    """Why an entry file is not to be read (``None``: a regular file of this user's)."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{path} is owned by uid {st.st_uid}, not this user ({os.getuid()})"
    return None


def metadata_problem(meta: Any) -> str | None:
    """What is wrong with the fields of an entry's metadata (``None``: they have our types)."""
    if not isinstance(meta, dict):
        return f"holds a {type(meta).__name__}, expected a JSON object"
    want = {"format": int, "key": dict, "sha256": str, "shape": list, "dtype": str}
    wrong = [k for k, t in want.items() if not isinstance(meta.get(k), t)]
    return f"lacks or has mistyped fields {', '.join(wrong)}" if wrong else None


def load(name: str, key: dict[str, Any], directory: Path | None = None, mmap: bool = False) -> np.ndarray:
    """Load a verified entry; raises :class:`CacheError` (missing, stale, corrupt or in an unsafe
    folder), whose message names the file and, for a damaged entry, says to delete its two files
    (or let a build replace them: :func:`load_or_build` does)."""
    data_path, meta_path = entry_paths(name, key, directory)
    problem = unsafe_reason(data_path.parent)
    if problem is not None:
        raise CacheError(problem)
    if not os.path.lexists(data_path) or not os.path.lexists(meta_path):
        raise CacheError(f"cache entry {data_path} is missing")
    todo = f"delete {data_path} and {meta_path}, or let a build replace them"
    try:
        problem = entry_file_problem(meta_path) or entry_file_problem(data_path)
    except OSError as e:
        raise CacheError(f"cache entry {data_path} cannot be inspected ({e}): {todo}") from e
    if problem is not None:
        raise CacheError(f"cache entry not used: {problem}; {todo}")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as e:  # ValueError: bad JSON or bytes that are not UTF-8
        raise CacheError(f"cache metadata {meta_path} is unreadable ({e}): {todo}") from e
    problem = metadata_problem(meta)
    if problem is not None:
        raise CacheError(f"cache metadata {meta_path} {problem}: {todo}")
    if meta["format"] != FORMAT_VERSION:
        raise CacheError(f"cache entry {data_path} has format {meta['format']!r}, expected {FORMAT_VERSION}: {todo}")
    if json.loads(json.dumps(meta["key"], default=str)) != json.loads(json.dumps(key, default=str)):
        raise CacheError(f"cache entry {data_path} was built for another configuration ({meta_path} says so): {todo}")
    try:
        digest = file_sha256(data_path)
    except OSError as e:
        raise CacheError(f"cache entry {data_path} is unreadable ({e}): {todo}") from e
    if digest != meta["sha256"]:
        raise CacheError(f"cache entry {data_path} is corrupt: checksum {digest[:12]}… != recorded "
                         f"{meta['sha256'][:12]}… (truncated or changed since it was written): {todo}")
    try:
        arr = np.load(data_path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise CacheError(f"cache entry {data_path} is unreadable ({e}): {todo}") from e
    if list(arr.shape) != meta["shape"] or str(arr.dtype) != meta["dtype"]:
        raise CacheError(f"cache entry {data_path} has shape {arr.shape}/{arr.dtype}, metadata says "
                         f"{meta['shape']}/{meta['dtype']}: {todo}")
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
    problem = unsafe_reason(directory or cache_dir())
    if problem is not None:  # neither read nor written: someone else could have put files there
        msg = f"{problem}: {name} is computed for this run only (set ${ENV_VAR} to a folder only you can write)"
        warnings.warn(msg, stacklevel=2)
        say(msg)
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
            warnings.warn(f"{first_error}; rebuilding it now", stacklevel=2)
            say(f"{first_error}; rebuilding it now")
        return _build_and_save(name, key, build, directory, mmap, say, log, prune_prefix, keep)


def lock_path(name: str, key: dict[str, Any], directory: Path | None = None) -> Path:
    """The lock file of an entry's build: ``locks/<name>-<key digest>.lock`` in the cache folder."""
    data_path, _ = entry_paths(name, key, directory)
    return data_path.parent / "locks" / f"{data_path.stem}.lock"


def build_lock(name: str, key: dict[str, Any], directory: Path | None = None,
               say: Callable[[str], None] | None = None):
    """Hold the exclusive build lock of an entry (:func:`splitpoker.envs.rules.cache_lock.held`):
    waits while another process holds it (Ctrl-C interrupts the wait, and leaves the holder's lock
    file alone). Without ``fcntl`` or a writable directory: no lock."""
    return _lock.held(lock_path(name, key, directory), name, say)


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


# what is ours is told by content (splitpoker.envs.rules.cache_contents); names only narrow the search
_ENTRY_META = re.compile(r"^.+-([0-9a-f]{16})\.json$")  # <name>-<key digest>.json (entry_paths)
_LEGACY_FIELDS = {"format", "key", "sha256", "shape", "dtype"}  # metadata saved before "writer" existed
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _our_metadata(meta_path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``(key, None)`` if ``meta_path`` is the metadata of one of our entries, else ``(None, why
    not)``: a regular file of this user's, with our fields and ``writer`` (or exactly the fields of
    format 1, written before ``writer`` existed), in a file whose name's digest is its key's."""
    m = _ENTRY_META.match(meta_path.name)
    if not m:
        return None, "not ours"
    try:
        problem = entry_file_problem(meta_path)
        meta = json.loads(meta_path.read_text()) if problem is None else None
    except (OSError, ValueError):
        return None, ("not ours (not splitpoker's metadata: unreadable; if it was an entry of ours, delete it and "
                      "its .npy, or let a build replace them)")
    if problem is not None:
        return None, f"not ours ({problem})"
    problem = metadata_problem(meta)
    if problem is None and meta.get("writer") != WRITER and not (set(meta) == _LEGACY_FIELDS and meta["format"] == 1):
        problem = f"has no writer field naming {WRITER}"
    if problem is None and not _SHA256.match(meta["sha256"]):
        problem = "has no SHA-256"
    if problem is None and key_digest(meta["key"]) != m.group(1):
        problem = "has a name whose digest is not its key's"
    if problem is not None:
        return None, f"not ours (not splitpoker's metadata: it {problem})"
    return meta["key"], None


def remove_entry(meta_path: Path) -> list[str]:
    """Delete an entry's files; the paths actually deleted."""
    removed = []
    for p in (meta_path.with_suffix(".npy"), meta_path):
        try:
            p.unlink()
        except FileNotFoundError:
            continue
        except IsADirectoryError:  # pragma: no cover - a folder named like our data file
            continue
        removed.append(str(p))
    return removed


def our_entries(d: Path, prefix: str = "") -> tuple[list[tuple[Path, dict[str, Any]]], list[dict[str, str]]]:
    """Our entries named ``prefix*`` in ``d`` as ``(metadata path, key)``, and the JSON files named
    like ours that are not (``{"path", "why"}``)."""
    ours, other = [], []
    if not d.is_dir():
        return ours, other
    for meta_path in sorted(d.glob(f"{glob.escape(prefix)}*.json")):
        key, why = _our_metadata(meta_path)
        if why is None:
            ours.append((meta_path, key))
        elif why != "not ours":
            other.append({"path": str(meta_path), "why": why})
    return ours, other


def prune_entries(prefix: str, keep: Callable[[dict[str, Any]], bool], d: Path) -> list[tuple[Path, list[str]]]:
    """Delete our stale entries named ``prefix*``: ``(data path, files deleted)`` per entry."""
    out = []
    for meta_path, key in our_entries(d, prefix)[0]:
        try:
            stale = not keep(key)
        except (AttributeError, TypeError, KeyError):
            stale = True
        if stale:
            out.append((meta_path.with_suffix(".npy"), remove_entry(meta_path)))
    return out


def prune(prefix: str, keep: Callable[[dict[str, Any]], bool], directory: Path | None = None,
          log: Callable[[str], None] | None = None) -> list[Path]:
    """Delete our entries named ``prefix*`` whose key ``keep`` rejects (e.g. tables built from
    older rules sources, which would never be loaded again). Files that are not our entries (by
    their metadata: see the module docstring), damaged ones included, are left alone (a build of
    that key replaces a damaged one). Returns the data paths removed."""
    removed = prune_entries(prefix, keep, directory or cache_dir())
    if log is not None:
        for data_path, _ in removed:
            log(f"removed stale cache entry {data_path}")
    return [data_path for data_path, _ in removed]


def entries(directory: Path | None = None) -> list[dict[str, Any]]:
    """Every entry of ours in the cache directory: name, data path, bytes, key. Other files in the
    folder are not entries."""
    out = []
    for meta_path, key in our_entries(directory or cache_dir())[0]:
        data_path = meta_path.with_suffix(".npy")
        size = data_path.stat().st_size if data_path.is_file() else 0
        out.append({"name": meta_path.stem, "path": str(data_path), "bytes": size + meta_path.stat().st_size,
                    "key": key})
    return out
