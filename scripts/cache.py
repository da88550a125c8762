#!/usr/bin/env python
"""List, prune or clear splitpoker's cache directory.

The cache (``$SPLITPOKER_CACHE_DIR``, else ``$XDG_CACHE_HOME/splitpoker``, else
``~/.cache/splitpoker``; a folder someone else could write is refused, with a warning, for the
private ``<temp dir>/splitpoker-<uid>``) holds the exact solver's dealer tables (617 MB each), the
bonus histogram and numba's compiled kernels. Nothing is ever written into the source tree, and
importing the package neither creates nor deletes anything there: stale entries are pruned
when their replacement is written, or by this script.

Only what splitpoker wrote is deleted, told by content: an entry by its metadata, a numba folder
by its marker file, a lock file by its first line (one a running build holds is left). Symbolic
links are not followed. Everything else is left, and listed as left with the reason.

Examples:
    python scripts/cache.py                 # list entries (stale ones marked), numba caches, what is not ours
    python scripts/cache.py --prune         # entries of older rules sources, leftovers, old numba caches
    python scripts/cache.py --clear --json  # delete everything splitpoker cached
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse  # noqa: E402

from splitpoker.envs.rules import cache, cache_contents, numba_cache  # noqa: E402
from splitpoker.scripts.support.cli import (  # noqa: E402
    dumps,
    handle_interrupts,
    interrupted,
    leaves_process_as_found,
)


@leaves_process_as_found
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--list", action="store_true", help="list the entries, numba caches and what in the folder is not ours (the default)")
    g.add_argument("--prune", action="store_true",
                   help="delete entries of older rules sources, leftover temporary files and old numba caches")
    g.add_argument("--clear", action="store_true", help="delete everything splitpoker cached (told by content; anything else is left)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    handle_interrupts()
    d = cache.cache_dir()
    if d.exists() and not d.is_dir():
        print(f"error: cache path {d} is not a directory: expected ${cache.ENV_VAR} to name a directory", file=sys.stderr)
        return 2
    try:
        if args.prune:
            rep = cache_contents.prune_stale(d)
        elif args.clear:
            rep = cache_contents.clear(d)
        else:
            rep = _listing(d)
    except cache.CacheError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted("the cache may be partly pruned; rerun to finish")
    if args.json:
        print(dumps(rep))
        return 0
    if "entries" in rep:
        print(f"cache directory {rep['directory']} (rules source {rep['rules_source']})")
        for e in rep["entries"]:
            what = (e["key"] or {}).get("what", "?") if isinstance(e["key"], dict) else "?"
            print(f"  {e['bytes'] / 1e6:10.1f} MB  {e['name']}  {what}{'  (stale)' if e['stale'] else ''}")
        for n in rep["numba"]:
            print(f"  {n['bytes'] / 1e6:10.1f} MB  {n['path']}  numba kernels{'  (current)' if n['current'] else ''}")
        if not rep["entries"] and not rep["numba"]:
            print("  (empty)")
    else:
        print(f"{'pruned' if args.prune else 'cleared'} {rep['directory']}: removed {len(rep['removed'])} item(s)")
        for r in rep["removed"]:
            print(f"  {r}")
    for x in rep["left"]:
        print(f"  {x['why']}, left: {x['path']}")
    return 0


def _listing(d):
    """The ``--list`` report: our entries (stale or not), our numba folders, and what is left."""
    from splitpoker.envs.rules import NUMBA_CACHE_DIR, RULES_SOURCE_DIGEST

    numba_root = d / "numba"
    ours = [n for n in (sorted(numba_root.iterdir()) if numba_root.is_dir() and not numba_root.is_symlink() else [])
            if numba_cache.numba_dir_problem(n) is None]
    return {"directory": str(d), "rules_source": RULES_SOURCE_DIGEST, "numba_cache_dir": NUMBA_CACHE_DIR,
            "entries": [dict(e, stale=e["key"].get("rules_source", RULES_SOURCE_DIGEST) != RULES_SOURCE_DIGEST)
                        for e in cache.entries(d)],
            "numba": [{"path": str(n), "bytes": cache_contents.folder_bytes(n), "current": str(n) == NUMBA_CACHE_DIR}
                      for n in ours],
            "left": cache_contents.survey(d)}


if __name__ == "__main__":
    from splitpoker.scripts.support.cli import finished

    sys.exit(finished(main()))
