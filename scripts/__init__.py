"""The command-line programs of splitpoker, one job each.

Each ``scripts/<name>.py`` parses its arguments, calls the library (``envs``, ``agents``) and
prints; its ``main(argv=None) -> int`` returns the exit code. Run one as a file
(``python scripts/simulate.py --help``) or, once the project is installed (``pip install -e .``),
as the console command ``splitpoker-<name>`` (underscores become dashes: ``splitpoker-solve-sample``),
declared in ``pyproject.toml`` and launched by :mod:`splitpoker.scripts.entry_points`.
"""

if __name__ != "splitpoker.scripts":  # the source folder imported under its old top-level name
    raise ImportError(f"this folder is the package splitpoker.scripts, imported here as {__name__!r}: write "
                      f"`import splitpoker.scripts` (`scripts` was replaced by `splitpoker.scripts` in 0.2, docs/migration.md)")
