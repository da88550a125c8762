"""splitpoker rules core: cards, ranking, settings, fouls, settlement, bonus pay tables, house ways.

Imports only the standard library, numpy and numba (a test checks it).

Numba's on-disk cache does not notice when a function *called by* a cached function changes (a
house-way rule edited, say), and would then run stale machine code. So before any kernel is
decorated, the cache directory is set to ``<cache root>/numba/<hash of the sources the kernels
reach>`` (:mod:`splitpoker.envs.rules.source_digest`): any change to those starts a fresh cache. The cache root is ``$SPLITPOKER_CACHE_DIR`` or
``~/.cache/splitpoker`` (see :mod:`splitpoker.envs.rules.cache`); if it is unusable, a temporary directory
(with a warning), never the source tree (:mod:`splitpoker.envs.rules.numba_cache`).

Importing writes and deletes nothing on disk: directories are made, and old caches pruned, when
something is first saved.
"""

from pathlib import Path as _Path

from splitpoker.envs.rules import source_digest as _source_digest


def __getattr__(name: str):
    """``RULES_SOURCE_DIGEST``, computed on first use (:mod:`splitpoker.envs.rules.source_digest`)."""
    if name == "RULES_SOURCE_DIGEST":
        here = _Path(__file__).resolve().parent
        value = _source_digest.rules_digest(here)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``RULES_SOURCE_DIGEST``: hash of what the rules core's code does (docstrings, comments and
#: formatting excluded): part of the cache key of anything computed from the rules (dealer
#: tables, bonus histograms, evaluation sets), so a changed rule or house way never reuses a stale
#: table and a docstring edit never rebuilds one; nor does an edit to the storage code
#: (:data:`splitpoker.envs.rules.source_digest.STORAGE_MODULES`). Computed on first use (about 0.2 s).


def _configure_numba_cache():
    """Point numba's on-disk cache at ``<cache root>/numba/<digest>`` (see
    :mod:`splitpoker.envs.rules.numba_cache`): before any kernel is decorated, writing nothing."""
    from splitpoker.envs.rules import cache as _cache
    from splitpoker.envs.rules import numba_cache as _numba_cache

    directory = _numba_cache.configure(_cache.cache_dir(), _Path(__file__).resolve().parent.parent)  # envs/
    return None if directory is None else str(directory)


#: The numba cache directory in use (``None``: on-disk caching of kernels disabled, see the warning).
NUMBA_CACHE_DIR = _configure_numba_cache()
