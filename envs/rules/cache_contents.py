"""What in the cache folder is splitpoker's, told by content, and deleting only that.

The cache folder (:func:`splitpoker.envs.rules.cache.cache_dir`) may hold other files: a user's,
another program's, or ones planted by someone who could write there. So nothing is deleted for
its name alone; each kind of file we write is recognised by what it holds:

=================  ==========================================================================
an entry           its ``.json`` metadata is a regular file of this user's with our fields and
                   ``"writer": "splitpoker"`` (or, for entries saved before that field existed,
                   exactly the format-1 fields), and the digest in its name is its key's
                   (``<name>-<key digest>.json``, :func:`~splitpoker.envs.rules.cache.key_digest`)
a numba folder     ``numba/<digest>`` is a real folder of this user's holding our marker file
                   (:data:`splitpoker.envs.rules.numba_cache.MARKER`, written at its first save)
a lock file        ``locks/*.lock`` is a regular file of this user's whose first line is
                   :data:`~splitpoker.envs.rules.cache_lock.LOCK_HEADER`; one a build holds now (its
                   ``flock`` cannot be taken) is left
a temporary file   a killed :func:`~splitpoker.envs.rules.cache.save`'s ``mkstemp`` name, a regular
                   file of this user's that starts as what save writes (an ``.npy`` header, our
                   metadata)
=================  ==========================================================================

Symbolic links are never followed: a ``numba/`` or ``locks/`` that is a link is left, and said so.
:func:`clear` and :func:`prune_stale` (``scripts/cache.py --clear / --prune``) return what they
removed and what they left, with why; :func:`survey` says what ``--clear`` would leave. Neither
runs in a folder someone else could write (a :class:`~splitpoker.envs.rules.cache.CacheError`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitpoker.envs.rules import numba_cache as _safety
from splitpoker.envs.rules.cache import (
    CacheError,
    cache_dir,
    entry_file_problem,
    our_entries,
    prune_entries,
    remove_entry,
    unsafe_reason,
)
from splitpoker.envs.rules.cache_lock import lock_file_problem

# save()'s mkstemp names, and how what it writes starts (an .npy header, our metadata)
_ENTRY_TEMP = re.compile(r"^\..+-[0-9a-f]{16}\.[^.]+\.(npy|json)\.tmp$")
_TEMP_STARTS = {"npy": (b"\x93NUMPY",), "json": (b'{\n "writer": "splitpoker"', b'{\n "format": ')}


def folder_bytes(path: Path) -> int:
    """The bytes of the regular files under ``path`` (links not followed)."""
    if Path(path).is_symlink():
        return 0
    return sum(p.lstat().st_size for p in Path(path).rglob("*") if p.is_file() and not p.is_symlink())


def _leftover_temp_files(d: Path) -> list[Path]:
    """Temporary files of a :func:`save` that was killed: its ``mkstemp`` name, a regular file of
    this user's, and the start of what it writes (an ``.npy`` header, our metadata)."""
    out = []
    for p in sorted(d.glob(".*.tmp")) if d.is_dir() else []:
        m = _ENTRY_TEMP.match(p.name)
        try:
            if not m or entry_file_problem(p) is not None:
                continue
            with open(p, "rb") as f:
                head = f.read(64)
        except OSError:
            continue
        if head.startswith(_TEMP_STARTS[m.group(1)]):
            out.append(p)
    return out


def _folder_why(p: Path) -> str | None:
    """Why the cache subfolder ``p`` is not entered (``None``: missing or ours to enter)."""
    if p.is_symlink():
        return "a symbolic link, not followed"
    return _safety.folder_problem(p)


def _sort_folder(root: Path, problem) -> tuple[list[Path], list[dict[str, str]]]:
    """The entries of folder ``root`` that are ours (``problem(entry)`` is None) and the rest, with
    why; the folder itself refused whole if it is not a real folder of ours."""
    why = _folder_why(root)
    if why is not None:
        return [], [{"path": str(root), "why": why}]
    if not root.is_dir():
        return [], []
    ours, left = [], []
    for p in sorted(root.iterdir()):
        why = problem(p)
        if why is None:
            ours.append(p)
        else:
            left.append({"path": str(p), "why": why})
    return ours, left


def _numba_dirs(d: Path) -> tuple[list[Path], list[dict[str, str]]]:
    """Our numba folders under ``d / "numba"`` (marked real folders) and the rest, with why."""
    return _sort_folder(d / "numba", _safety.numba_dir_problem)


def _locks(d: Path, remove: bool) -> tuple[list[Path], list[dict[str, str]]]:
    """Our lock files no build holds (deleted if ``remove``), and the other files of ``locks/``,
    with why (:func:`~splitpoker.envs.rules.cache_lock.lock_file_problem`)."""
    return _sort_folder(d / "locks", lambda p: lock_file_problem(p, remove))


def _rmdir_if_empty(p: Path, removed: list[str]) -> None:
    try:
        if not p.is_symlink() and p.is_dir() and not any(p.iterdir()):
            p.rmdir()
            removed.append(str(p))
    except OSError:
        pass


def _refuse_unsafe(d: Path) -> None:
    problem = unsafe_reason(d)
    if problem is not None:
        raise CacheError(f"{problem}: nothing is deleted in it")


def prune_stale(directory: Path | None = None, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """What ``--prune`` does: delete our entries built from other rules sources, temporary files
    left by a killed writer, and our numba folders of other source versions except the two most
    recently used. Returns what was removed and, with why, what was left that may look like ours
    (damaged metadata, numba folders without our marker, a symbolic link)."""
    from splitpoker.envs.rules import NUMBA_CACHE_DIR, RULES_SOURCE_DIGEST
    from splitpoker.envs.rules.numba_cache import prune_numba_dirs

    d = directory or cache_dir()
    _refuse_unsafe(d)
    removed = []
    for data_path, files in prune_entries("", lambda k: k.get("rules_source", RULES_SOURCE_DIGEST) == RULES_SOURCE_DIGEST, d):
        removed += files
        if log is not None:
            log(f"removed stale cache entry {data_path}")
    for p in _leftover_temp_files(d):
        p.unlink(missing_ok=True)
        removed.append(str(p))
    numba_root = d / "numba"
    current = Path(NUMBA_CACHE_DIR) if NUMBA_CACHE_DIR else numba_root / "(none)"
    if current.parent != numba_root:  # this process caches elsewhere (fallback): keep the newest
        current = numba_root / "(none)"
    _, left = _numba_dirs(d)
    if not left or left[0]["path"] != str(numba_root):
        removed += [str(p) for p in prune_numba_dirs(current)]
    return {"directory": str(d), "removed": removed, "left": our_entries(d)[1] + left}


def _top_left(d: Path) -> list[dict[str, str]]:
    """The files and folders directly in ``d`` that are not ours (``numba/`` and ``locks/`` aside),
    with why."""
    if not d.is_dir():
        return []
    entries_, named = our_entries(d)
    ours = {str(f) for m, _ in entries_ for f in (m, m.with_suffix(".npy"))} | set(map(str, _leftover_temp_files(d)))
    why = {e["path"]: e["why"] for e in named}
    return [{"path": str(p), "why": why.get(str(p), "not ours")} for p in sorted(d.iterdir())
            if str(p) not in ours and p.name not in ("numba", "locks")]


def survey(directory: Path | None = None) -> list[dict[str, str]]:
    """What :func:`clear` would leave in the cache folder (``--list`` shows it), with why (``{"path", "why"}``): files
    and folders that are not ours, numba folders without our marker, locks of running builds."""
    d = directory or cache_dir()
    return _top_left(d) + _numba_dirs(d)[1] + _locks(d, remove=False)[1]


def clear(directory: Path | None = None) -> dict[str, Any]:
    """What ``--clear`` does: delete every entry, temporary file, numba folder and lock file
    splitpoker put in the cache directory, told by content (see the module docstring); a lock a
    running build holds, and everything else, is left. Returns what was removed and what was left,
    with why."""
    d = directory or cache_dir()
    _refuse_unsafe(d)
    left = _top_left(d)
    removed = []
    for meta_path, _ in our_entries(d)[0]:
        removed += remove_entry(meta_path)
    for p in _leftover_temp_files(d):
        p.unlink(missing_ok=True)
        removed.append(str(p))
    numba_dirs, numba_left = _numba_dirs(d)
    for p in numba_dirs:
        failed = []
        shutil.rmtree(p, onerror=lambda f, path, exc: failed.append(f"{path}: {exc[1]}"))
        if failed:
            numba_left.append({"path": str(p), "why": f"could not be deleted fully ({failed[0]})"})
        else:
            removed.append(str(p))
    locks, locks_left = _locks(d, remove=True)
    removed += [str(p) for p in locks]
    for sub in ("numba", "locks"):
        _rmdir_if_empty(d / sub, removed)
    return {"directory": str(d), "removed": removed, "left": left + numba_left + locks_left}
