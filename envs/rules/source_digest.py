"""Digests of the sources that a cache's contents depend on, and only of those.

Two caches are keyed by the code that made them, so that a changed rule never reuses a stale
result, and an edit that cannot change a result (a docstring, a comment, an environment's Python
wrapper) does not throw away an expensive one:

* **computed tables** (dealer tables of 617 MB, bonus histograms, evaluation sets, ...):
  :func:`code_digest` of the rules core, from the compiled code of each module with docstrings
  and asserts stripped (``compile(..., optimize=2)``): comments, docstrings, blank lines and
  formatting do not count; any change to what the code does does;
* **numba's compiled kernels**: :func:`kernel_sources` are the modules that use numba and every
  module of the package they import, transitively; their bytes are hashed (numba re-checks each
  file's own functions, and the digest catches a changed callee or constant in another file). An
  edit to a module no kernel can reach (``envs/base.py``, the scripts) keeps the compiled code.
"""

from __future__ import annotations

import hashlib
import re
import types
from pathlib import Path

_USES_NUMBA = re.compile(rb"^\s*(?:from\s+numba\b|import\s+numba\b)", re.M)
_FROM = re.compile(rb"^\s*from\s+(splitpoker(?:\.\w+)+)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)
_IMPORT = re.compile(rb"^\s*import\s+(splitpoker(?:\.\w+)+)", re.M)


def _feed_code(h, co: types.CodeType) -> None:
    h.update(co.co_code)
    h.update(repr((co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars)).encode())
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            _feed_code(h, c)
        elif isinstance(c, frozenset):  # a set literal's order follows the hash seed: sort it
            h.update(repr(sorted(repr(x) for x in c)).encode())
        else:
            h.update(repr(c).encode())


def code_digest(paths, root: Path) -> str:
    """Hash of what the modules ``paths`` do: their names under ``root`` and their compiled code
    without docstrings and asserts (comments, docstrings and formatting do not change it)."""
    h = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        name = str(path.relative_to(root))
        h.update(name.encode())
        _feed_code(h, compile(path.read_bytes(), name, "exec", dont_inherit=True, optimize=2))
    return h.hexdigest()[:16]


#: modules of the rules core that store results and say nothing about them (the cache, its lock
#: and its contents, numba's cache folder, this digest): left out of :func:`rules_digest`, so an
#: edit to them keeps every computed table
STORAGE_MODULES = frozenset({"cache.py", "cache_contents.py", "cache_lock.py", "numba_cache.py", "source_digest.py"})


def rules_digest(root: Path) -> str:
    """``RULES_SOURCE_DIGEST``: :func:`code_digest` of the rules core under ``root`` (every module
    but :data:`STORAGE_MODULES`)."""
    root = Path(root)
    return code_digest([f for f in root.rglob("*.py") if f.relative_to(root).as_posix() not in STORAGE_MODULES], root)


def _module_files(package: Path, prefix: str, module: str) -> list[Path]:
    """The files of ``module`` (a dotted name under ``prefix``) within ``package``: the module
    itself and, for a package, its ``__init__.py``."""
    if module != prefix and not module.startswith(prefix + "."):
        return []
    parts = module[len(prefix):].strip(".").split(".") if module != prefix else []
    base = package.joinpath(*parts) if parts else package
    found = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
    return found


def kernel_sources(package: Path, prefix: str = "splitpoker.envs") -> list[Path]:
    """The ``*.py`` files under ``package`` (imported as ``prefix``) that use numba, and every
    file of the package they import, transitively (imports written ``from splitpoker... import``
    or ``import splitpoker...``, as the project writes them)."""
    package = Path(package)
    files = {p: p.read_bytes() for p in package.rglob("*.py")}
    todo = [p for p, src in files.items() if _USES_NUMBA.search(src)]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        src = files[path]
        targets: list[Path] = []
        for m in _FROM.finditer(src):
            module = m.group(1).decode()
            targets += _module_files(package, prefix, module)
            for name in re.findall(rb"\w+", m.group(2)):  # ``from package import submodule`` (aliases: no file)
                targets += _module_files(package, prefix, f"{module}.{name.decode()}")
        for m in _IMPORT.finditer(src):
            targets += _module_files(package, prefix, m.group(1).decode())
        todo += [t for t in targets if t in files and t not in seen]
    return sorted(seen)


def bytes_digest(paths, root: Path) -> str:
    """Hash of the names (under ``root``) and bytes of ``paths``."""
    h = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
