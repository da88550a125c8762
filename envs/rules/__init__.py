"""splitpoker rules core: cards, ranking, settings, fouls, settlement, bonus pay tables, house ways.

Imports only the standard library, numpy and numba (a test checks it).

Numba's on-disk cache does not notice when a function *called by* a cached function changes (a
house-way rule edited, say), and would then run stale machine code. So before any kernel is
decorated, the cache directory is set to ``<cache root>/numba/<hash of the package sources>``:
any change to the sources starts a fresh cache. The cache root is ``$SPLITPOKER_CACHE_DIR`` or
``~/.cache/splitpoker`` (see :mod:`envs.rules.cache`).
"""

import hashlib as _hashlib
import os as _os
from pathlib import Path as _Path


def _digest(paths, root) -> str:
    digest = _hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


#: Hash of the rules core's sources: part of the cache key of anything computed from the rules
#: (dealer tables), so a changed rule or house way never reuses a stale table.
RULES_SOURCE_DIGEST = _digest(_Path(__file__).resolve().parent.glob("*.py"), _Path(__file__).resolve().parent)


def _prune_numba_dirs(current: _Path, keep: int = 3) -> None:
    """Keep the current and the most recently used other numba cache directories (other checkouts
    or versions may still use them); delete older ones."""
    import shutil

    others = [p for p in current.parent.glob("*") if p.is_dir() and p != current] if current.parent.exists() else []
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[keep - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def _configure_numba_cache() -> str:
    from . import cache as _cache

    package = _Path(__file__).resolve().parent.parent  # envs/
    directory = _cache.cache_dir() / "numba" / _digest(package.rglob("*.py"), package)
    _prune_numba_dirs(directory)
    _os.environ["NUMBA_CACHE_DIR"] = str(directory)
    import numba

    numba.config.CACHE_DIR = str(directory)
    return str(directory)


NUMBA_CACHE_DIR = _configure_numba_cache()
