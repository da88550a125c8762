"""Result files: strict JSON (``NaN`` and infinities as ``null``, numpy values as plain Python) and
atomic writes (a temporary file in the same folder, then a rename: a reader or a crash sees the old
file or the new one, never half of one). The scripts' ``--out`` / ``--json`` go through here
(``splitpoker.scripts.support.cli`` re-exports these), and so do the library's own manifests."""

from __future__ import annotations

import json
import math
import os
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


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename: a
    reader (or a crash) sees the old file or the new one, never half of one."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
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
