"""Result files: strict JSON (``NaN`` and infinities as ``null``, numpy values as plain Python) and
atomic writes (a temporary file in the same folder, then a rename: a reader or a crash sees the old
file or the new one, never half of one). The scripts' ``--out`` / ``--json`` go through here
(``splitpoker.scripts.support.cli`` re-exports these), and so do the library's own manifests.
An output that cannot be written (a reader gone, a full disk) ends a script through
:func:`output_failed`."""

from __future__ import annotations

import errno
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def jsonable(obj: Any) -> Any:
    """``obj`` with NaN/inf floats as ``None`` and numpy scalars/arrays as plain Python values."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "tolist"):  # numpy scalar or array
        return jsonable(obj.tolist())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    return str(obj)


def dumps(obj: Any) -> str:
    """Strict JSON text (never ``NaN``: undefined values are ``null``)."""
    return json.dumps(jsonable(obj), indent=1, allow_nan=False)


def file_mode() -> int:
    """The mode a plain ``open(path, "w")`` gives a new file here (0o666 less the umask, read from
    /proc without changing it where it can be): an atomic write's temporary file is made 0o600 by
    ``mkstemp``, and an output must not end up more private than the files written beside it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc (macOS): read it by setting it, and put it back at once
    os.umask(mask)
    return 0o666 & ~mask


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename: a
    reader (or a crash) sees the old file or the new one, never half of one. The file gets the
    mode a plain write would give it (:func:`file_mode`)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Strict JSON written atomically."""
    write_text_atomic(path, dumps(obj) + "\n")


#: the exit code of a program whose reader went away (``| head -1``): a shell's 128 + SIGPIPE
BROKEN_PIPE_EXIT = 141


def output_failed(e: OSError) -> int:
    """A program's output that could not be written, as its exit: the reader of stdout went away
    (``BrokenPipeError``, ``| head -1``): no message, exit :data:`BROKEN_PIPE_EXIT`; the disk is
    full (``ENOSPC``, ``> /dev/full``): one line naming it, exit 2. Either way stdout is pointed at
    the null device so that the interpreter's last flush does not fail again. Any other
    ``OSError`` propagates."""
    if not isinstance(e, BrokenPipeError) and e.errno != errno.ENOSPC:
        raise e
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # pragma: no cover - no stdout file descriptor
        pass
    if isinstance(e, BrokenPipeError):
        return BROKEN_PIPE_EXIT
    print(f"error: cannot write {e.filename or 'the output'}: {e.strerror or e} (ENOSPC): free some space or "
          f"write elsewhere", file=sys.stderr, flush=True)
    return 2
