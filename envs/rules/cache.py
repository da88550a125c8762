"""On-disk cache for big tables: user cache directory, atomic writes, verified checksums.

Location: ``$SPLITPOKER_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/splitpoker``, else
``~/.cache/splitpoker``; never the repository. Each entry is a pair of files::

    <name>.npy    the array (numpy format, loadable with mmap)
    <name>.json   {"format": FORMAT_VERSION, "key": {...}, "sha256": ..., "shape": ..., "dtype": ...}

Writes go to temporary files in the same directory and are renamed into place (atomic on POSIX),
so a crash never leaves a half-written entry under the final name. On load the metadata must
match the requested key and format and the data's SHA-256 must match: a corrupt or stale entry is
reported with a warning naming the file and the reason, and rebuilt — never silently used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 1
ENV_VAR = "SPLITPOKER_CACHE_DIR"


class CacheError(ValueError):
    """A cache entry that cannot be used: names the file and what is wrong."""


def cache_dir() -> Path:
    if os.environ.get(ENV_VAR):
        d = Path(os.environ[ENV_VAR]).expanduser()
    elif os.environ.get("XDG_CACHE_HOME"):
        d = Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "splitpoker"
    else:
        d = Path.home() / ".cache" / "splitpoker"
    d.mkdir(parents=True, exist_ok=True)
    return d


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
    data_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=data_path.parent, prefix=f".{data_path.stem}.", suffix=".npy.tmp")
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
    digest = file_sha256(data_path)
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
                  log: Callable[[str], None] | None = None) -> np.ndarray:
    """Return the cached array for ``key``, building (and caching) it when missing or unusable.

    A stale or corrupt entry triggers a ``warnings.warn`` naming the file and the reason, then a
    rebuild; a missing one is built quietly (``log`` is told either way)."""
    say = log or (lambda msg: None)
    if use_cache:
        try:
            arr = load(name, key, directory, mmap=mmap)
            say(f"loaded {name} from cache ({entry_paths(name, key, directory)[0]})")
            return arr
        except CacheError as e:
            if "is missing" in str(e):
                say(f"{name}: no cache entry yet, building")
            else:
                warnings.warn(f"{e}; rebuilding", stacklevel=2)
                say(f"{e}; rebuilding")
    arr = build()
    if use_cache:
        path = save(name, key, arr, directory)
        say(f"cached {name} at {path}")
        if mmap:
            return load(name, key, directory, mmap=True)
    return arr


def prune(prefix: str, keep: Callable[[dict[str, Any]], bool], directory: Path | None = None,
          log: Callable[[str], None] | None = None) -> list[Path]:
    """Delete the entries named ``prefix*`` whose key ``keep`` rejects (e.g. tables built from
    older rules sources, which would never be loaded again). Unreadable metadata counts as stale.
    Returns the data paths removed."""
    d = directory or cache_dir()
    removed = []
    for meta_path in d.glob(f"{prefix}*.json"):
        try:
            key = json.loads(meta_path.read_text()).get("key", {})
            stale = not keep(key)
        except (OSError, json.JSONDecodeError, AttributeError):
            stale = True
        if stale:
            data_path = meta_path.with_suffix(".npy")
            for p in (data_path, meta_path):
                try:
                    p.unlink()
                except FileNotFoundError:
                    pass
            removed.append(data_path)
            if log is not None:
                log(f"removed stale cache entry {data_path}")
    return removed
