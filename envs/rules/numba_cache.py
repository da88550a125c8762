"""Where numba keeps compiled kernels: never the source tree, and nothing written at import.

Numba's on-disk cache does not notice when a function *called by* a cached function changes (a
house-way rule edited, say), and would then run stale machine code. So the kernels are cached in
``<cache root>/numba/<hash of the sources the kernels reach>``: any change to those starts a
fresh cache (an edit to a module no kernel imports, such as an environment's Python wrapper,
does not) (:func:`configure`, called by ``splitpoker.envs.rules`` before any kernel is defined).

Numba's own fallback, when that directory is unusable, is the ``__pycache__`` folder next to the
sources (12 MB written into a checkout). This module puts its own locator,
:class:`SplitpokerCacheLocator`, first in numba's list: it answers for every kernel of this
package, so their cache goes only where :func:`configure` decided (kernels of other code keep
numba's usual rules):

1. the cache root's ``numba/<digest>`` when it is usable (checked without writing anything:
   the path or its nearest existing parent must be a writable directory);
2. else ``<temp dir>/splitpoker-<uid>/numba/<digest>``, with a warning naming the unusable path;
3. else nowhere: on-disk caching of compiled kernels is disabled for the process (a warning says
   so; kernels are compiled again in every process).

Importing creates nothing: the directory is made when the first compiled kernel is saved, and
that is also when old digest directories are pruned (:func:`prune_numba_dirs`: the current one
and the two most recently used others stay, as other checkouts or versions may still use them).
``python -m splitpoker.envs.rules.cache --prune`` does the same on demand.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from pathlib import Path

#: The directory chosen by :func:`configure` (``None``: on-disk caching disabled).
_chosen: dict[str, Path | str | None] = {"dir": None, "package": None}
KEEP_OTHERS = 2  # numba directories of other source versions kept when pruning


def source_digest(package: Path) -> str:
    """Hash of the sources numba's kernels under ``package`` can reach: the modules that use
    numba and every module of the package they import (:func:`~splitpoker.envs.rules.source_digest.kernel_sources`)."""
    from splitpoker.envs.rules.source_digest import bytes_digest, kernel_sources

    package = Path(package)
    return bytes_digest(kernel_sources(package), package)


def directory_problem(path: Path) -> str | None:
    """Why ``path`` cannot hold a cache (``None`` if it can), found without writing anything: the
    path, or else its nearest existing parent, must be a directory this process may write."""
    p = Path(path)
    while True:
        try:
            is_dir = p.is_dir()
            exists = is_dir or p.exists()
        except OSError as e:  # e.g. permission denied on a parent
            return f"{p} cannot be inspected ({e.strerror or e})"
        if exists:
            if not is_dir:
                return f"{p} exists and is not a directory"
            if not os.access(p, os.W_OK | os.X_OK):
                return f"{p} is not writable"
            return None
        if p.parent == p:
            return f"no parent of {path} exists"
        p = p.parent


def fallback_root() -> Path:
    """The per-user temporary cache root used when the configured one is unusable."""
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"splitpoker-{uid}"


def prune_numba_dirs(current: Path, keep_others: int = KEEP_OTHERS) -> list[Path]:
    """Delete the numba directories next to ``current`` except ``current`` and the
    ``keep_others`` most recently used others; returns the deleted paths."""
    current = Path(current)
    try:
        others = [p for p in current.parent.iterdir() if p.is_dir() and p != current]
    except OSError:
        return []
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    removed = []
    for old in others[keep_others:]:
        shutil.rmtree(old, ignore_errors=True)
        removed.append(old)
    return removed


def _base_locator():
    from numba.core import caching

    return getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator


def _make_locator():
    base = _base_locator()

    class SplitpokerCacheLocator(base):
        """numba's user-directory locator, aimed at the directory :func:`configure` chose, that
        creates the directory only when a compiled kernel is first saved (not at import)."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(str(_chosen["dir"]), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if _chosen["package"] is None or not os.path.realpath(py_file).startswith(_chosen["package"]):
                return None  # not this package's kernel: numba's usual locators decide
            if _chosen["dir"] is None:  # cannot happen (caching is then disabled) but never __pycache__
                raise RuntimeError(f"numba cache for {py_file} requested with on-disk caching disabled")
            return cls(py_func, py_file)

        def ensure_cache_path(self):
            root = Path(str(_chosen["dir"]))
            new = not root.is_dir()
            os.makedirs(self._cache_path, exist_ok=True)
            if new:  # first kernel saved for these sources: drop caches of old source versions
                prune_numba_dirs(root)

    SplitpokerCacheLocator.__module__ = __name__
    return SplitpokerCacheLocator


SplitpokerCacheLocator = None  # set by configure() (numba is imported lazily)


def _install_locator(locator) -> None:
    """Put ``locator`` first in numba's list: it answers for this package's files (the others,
    e.g. a user's own kernels or notebooks, go on to numba's usual locators)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    rest = [c for c in impl._locator_classes if getattr(c, "__name__", "") != "SplitpokerCacheLocator"]
    impl._locator_classes = [locator, *rest]


def _disable_disk_cache() -> None:
    from numba.core import dispatcher

    dispatcher.Dispatcher.enable_caching = lambda self: None  # kernels keep numba's NullCache


def configure(root: Path, package: Path) -> Path | None:
    """Choose the numba cache directory for the sources under ``package`` (see the module
    docstring), point numba at it and return it (``None``: disk caching disabled). Writes nothing."""
    global SplitpokerCacheLocator
    digest = source_digest(package)
    wanted = Path(root) / "numba" / digest
    problem = directory_problem(wanted)
    chosen: Path | None = wanted
    if problem is not None:
        chosen = fallback_root() / "numba" / digest
        problem2 = directory_problem(chosen)
        if problem2 is None:
            warnings.warn(f"numba cache directory {wanted} is unusable ({problem}); compiled kernels are cached "
                          f"in {chosen} instead. Set SPLITPOKER_CACHE_DIR to a writable directory.", stacklevel=3)
        else:
            warnings.warn(f"numba cache directory {wanted} is unusable ({problem}) and so is the fallback {chosen} "
                          f"({problem2}); compiled kernels are not cached on disk in this process (each run "
                          f"compiles again). Set SPLITPOKER_CACHE_DIR to a writable directory.", stacklevel=3)
            chosen = None
    _chosen["dir"] = chosen
    _chosen["package"] = os.path.join(os.path.realpath(package), "")
    if SplitpokerCacheLocator is None:
        SplitpokerCacheLocator = _make_locator()
    _install_locator(SplitpokerCacheLocator)
    import numba

    if chosen is None:
        _disable_disk_cache()
        os.environ.pop("NUMBA_CACHE_DIR", None)
        numba.config.CACHE_DIR = ""
    else:
        os.environ["NUMBA_CACHE_DIR"] = str(chosen)
        numba.config.CACHE_DIR = str(chosen)
    return chosen
