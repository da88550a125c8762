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
numba's usual rules).

Numba unpickles the index files it finds in its cache, so a folder someone else can write is a
way to run their code in this process: every folder of the cache is checked before it is used
(:func:`root_problem` for the cache root and the folders above it, :func:`folder_problem` for
``numba/`` and ``numba/<digest>``), without writing anything. The cache root must be this user's
and writable by no one else (a sticky folder of ours, like ``/tmp`` is root's, is accepted: others
cannot remove or rename what is ours in it); each folder above it must be this user's or root's
and, unless sticky, writable by no one else (or the root could be swapped); ``numba/`` and
``numba/<digest>`` must be real folders (not symbolic links) of this user's that no one else can
write. So:

1. the cache root's ``numba/<digest>`` when it is usable (the path or its nearest existing parent
   a writable directory) and safe (as above);
2. else ``<temp dir>/splitpoker-<uid>/numba/<digest>``, with a warning naming the folder and why.
   That name is predictable in a world-writable folder, so it is used only if it is this user's
   own and no one else can write it (:func:`private_root`: made with mode 0700 when missing, an
   existing one of ours tightened to 0700; a symbolic link, another owner or a folder others can
   write is refused);
3. else nowhere: on-disk caching of compiled kernels is disabled for the process (a warning says
   so; kernels are compiled again in every process).

Folders are made (mode 0755 at most, whatever the umask) when the first compiled kernel is saved,
and each ``numba/<digest>`` folder then gets a marker file (:data:`MARKER`): what ``--prune`` and
``--clear`` delete is recognised by it, never by its name. That first save is also when old
digest folders are pruned (:func:`prune_numba_dirs`: the current one and the two most recently
used others stay, as other checkouts or versions may still use them; only marked real folders
are candidates, and a symbolic link is never followed). ``python scripts/cache.py --prune`` does
the same on demand. (One exception to "nothing written at import": when the temporary fallback
is chosen, its private root is made at import, so that no one else can make it first.)
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import warnings
from pathlib import Path

#: The directory chosen by :func:`configure` (``None``: on-disk caching disabled).
_chosen: dict[str, Path | str | None] = {"dir": None, "package": None}
KEEP_OTHERS = 2  # numba directories of other source versions kept when pruning
#: the file :func:`mark_numba_dir` writes into each ``numba/<digest>`` folder it makes or uses
MARKER = "splitpoker-numba-cache.json"
_MARKER_FIELDS = {"writer": "splitpoker", "what": "numba compiled kernels"}


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


def private_root(path: Path) -> str | None:
    """Make ``path`` a folder only this user can use, or say why it cannot be (``None``: it is
    one now). Missing: created with mode 0700 (atomically: ``mkdir`` fails if someone else made it
    first, and then it is checked). Existing: it must be a real directory (not a symbolic link)
    owned by this user that neither group nor others can write (else what is inside may have
    been planted); its group and other bits are then cleared. Where there are no user ids
    (Windows, whose temp folder is per user) nothing is checked."""
    p = Path(path)
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows
        return None
    try:
        os.mkdir(p, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        return f"{p} cannot be created ({e.strerror or e})"
    try:
        st = os.lstat(p)
    except OSError as e:
        return f"{p} cannot be inspected ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return f"{p} is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return f"{p} exists and is not a directory"
    if st.st_uid != os.getuid():
        return f"{p} is owned by uid {st.st_uid}, not this user ({os.getuid()})"
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022:
        return f"{p} is writable by other users (mode {oct(mode)}): what is inside may not be ours; remove it"
    if mode & 0o077:
        try:
            os.chmod(p, mode & 0o700)
        except OSError as e:
            return f"{p} cannot be made private ({e.strerror or e})"
    return None


def _writers(mode: int) -> str | None:
    """Who besides the owner may write a folder of this mode (``None``: no one)."""
    if not mode & 0o022:
        return None
    return "group and others" if mode & 0o022 == 0o022 else "group" if mode & 0o020 else "others"


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def folder_problem(path: Path) -> str | None:
    """Why the cache's own subfolder ``path`` (``numba/``, ``numba/<digest>``, ``locks/``) may hold
    what someone else put there (``None``: missing, or a folder only this user can write). Not
    followed if it is a symbolic link."""
    uid = _uid()
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # missing (making it will say if it cannot be)
        return None
    except OSError as e:
        return f"{path} cannot be inspected ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link (not followed)"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} exists and is not a directory"
    if uid is None:  # pragma: no cover - Windows
        return None
    if st.st_uid != uid:
        return f"{path} is owned by uid {st.st_uid}, not this user ({uid})"
    who = _writers(stat.S_IMODE(st.st_mode))
    if who:
        return f"{path} is writable by {who} (mode {oct(stat.S_IMODE(st.st_mode))})"
    return None


def root_problem(root: Path) -> str | None:
    """Why someone else could put files into the cache root ``root`` or swap it for their own
    (``None``: no one can), checked without writing anything (see the module docstring): the root,
    if it exists, is this user's and writable by no one else unless sticky; the folders above it
    (those of its real path, and any symbolic link on the way) are this user's or root's, and
    writable by no one else unless sticky. A root that is not a directory is left to the callers
    (it is unusable, not unsafe)."""
    uid = _uid()
    if uid is None:  # pragma: no cover - Windows: the cache is in the user's profile
        return None
    p = Path(os.path.abspath(root))
    try:
        st = os.stat(p)
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        mode = stat.S_IMODE(st.st_mode)
        if st.st_uid != uid:
            return f"{p} is owned by uid {st.st_uid}, not this user ({uid})"
        who = _writers(mode)
        if who and not st.st_mode & stat.S_ISVTX:
            return f"{p} is writable by {who} (mode {oct(mode)})"
    for q in p.parents:  # a symbolic link on the way: whoever owns it can point it elsewhere
        try:
            sq = os.lstat(q)
        except OSError:
            continue
        if stat.S_ISLNK(sq.st_mode) and sq.st_uid not in (uid, 0):
            return f"{q} (a symbolic link above the cache folder) is owned by uid {sq.st_uid}, not this user nor root"
    for q in Path(os.path.realpath(p)).parents:  # the folders it is really in (the root itself: above)
        try:
            sq = os.stat(q)
        except OSError:
            continue  # not made yet
        mode = stat.S_IMODE(sq.st_mode)
        if sq.st_uid not in (uid, 0):
            return (f"{q} is owned by uid {sq.st_uid}, not this user ({uid}) nor root: the cache folder in it "
                    f"could be replaced")
        who = _writers(mode)
        if who and not sq.st_mode & stat.S_ISVTX:
            return f"{q} is writable by {who} (mode {oct(mode)}): the cache folder in it could be replaced"
    return None


def tree_problem(root: Path, *parts: str) -> str | None:
    """:func:`root_problem` of ``root``, then :func:`folder_problem` of ``root / parts[0]``,
    ``root / parts[0] / parts[1]``, ... (missing levels pass)."""
    problem = root_problem(root)
    level = Path(root)
    for part in parts:
        if problem is not None:
            break
        level = level / part
        problem = folder_problem(level)
    return problem


def make_dirs(path: Path) -> None:
    """``os.makedirs`` whose every new folder has mode 0755 at most, whatever the umask (a
    group-writable folder would be refused by the next run's checks)."""
    p = Path(path)
    missing = []
    while not p.is_dir():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for q in reversed(missing):
        try:
            os.mkdir(q, 0o755)
        except FileExistsError:
            if not q.is_dir():
                raise


def mark_numba_dir(path: Path) -> None:
    """Write :data:`MARKER` into the numba folder ``path`` (it must exist) unless it is there
    (written atomically: a temporary file renamed into place)."""
    p = Path(path)
    st = os.lstat(p)
    if numba_dir_problem(p) is None or not stat.S_ISDIR(st.st_mode) or (_uid() is not None and st.st_uid != _uid()):
        return  # marked already, or not a real folder of ours: never marked
    body = json.dumps({**_MARKER_FIELDS, "sources": p.name}, indent=1)
    fd, tmp = tempfile.mkstemp(dir=p, prefix=f".{MARKER}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(body)
        os.replace(tmp, p / MARKER)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def numba_dir_problem(path: Path) -> str | None:
    """Why ``path`` is not one of our numba folders (``None``: it is): a real folder of this user's
    holding our :data:`MARKER` (a regular file of this user's with our fields)."""
    uid = _uid()
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot be inspected ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link, not followed"
    if not stat.S_ISDIR(st.st_mode):
        return "not ours (not a folder)"
    if uid is not None and st.st_uid != uid:
        return f"not ours (owned by uid {st.st_uid})"
    marker = Path(path) / MARKER
    try:
        mst = os.lstat(marker)
        fields = json.loads(marker.read_text()) if stat.S_ISREG(mst.st_mode) else None
    except (OSError, ValueError):
        fields = None
    if not isinstance(fields, dict) or any(fields.get(k) != v for k, v in _MARKER_FIELDS.items()) or (
            uid is not None and mst.st_uid != uid):
        return f"not ours (no splitpoker marker {MARKER})"
    return None


def prune_numba_dirs(current: Path, keep_others: int = KEEP_OTHERS) -> list[Path]:
    """Delete our numba folders next to ``current`` (:func:`numba_dir_problem`: real folders with
    our marker) except ``current`` and the ``keep_others`` most recently used others; returns the
    deleted paths. Nothing is deleted if the folder holding them is a symbolic link (or otherwise
    not a folder of ours only we can write): it is never followed."""
    current = Path(current)
    if folder_problem(current.parent) is not None or not current.parent.is_dir():
        return []
    try:
        others = [p for p in current.parent.iterdir() if p != current and numba_dir_problem(p) is None]
        others.sort(key=lambda p: p.lstat().st_mtime, reverse=True)
    except OSError:
        return []
    removed = []
    for old in others[keep_others:]:
        shutil.rmtree(old, ignore_errors=True)
        if not os.path.lexists(old):
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
            make_dirs(Path(self._cache_path))
            mark_numba_dir(root)
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
    unusable = directory_problem(wanted)
    unsafe = tree_problem(Path(root), "numba", digest) if unusable is None else None
    problem = unusable or unsafe
    chosen: Path | None = wanted
    if problem is not None:
        why = f"is unusable ({problem})" if unusable else f"is not safe to use ({problem})"
        chosen = fallback_root() / "numba" / digest
        problem2 = (private_root(fallback_root()) or directory_problem(chosen)
                    or tree_problem(fallback_root(), "numba", digest))
        if problem2 is None:
            warnings.warn(f"numba cache directory {wanted} {why}; compiled kernels are cached "
                          f"in {chosen} instead. Set SPLITPOKER_CACHE_DIR to a writable directory of yours that "
                          f"no one else can write.", stacklevel=3)
        else:
            warnings.warn(f"numba cache directory {wanted} {why} and so is the fallback {chosen} "
                          f"({problem2}); compiled kernels are not cached on disk in this process (each run "
                          f"compiles again). Set SPLITPOKER_CACHE_DIR to a writable directory of yours that no one "
                          f"else can write.", stacklevel=3)
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
