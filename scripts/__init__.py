"""The command-line programs of splitpoker, one job each.

Each ``scripts/<name>.py`` parses its arguments, calls the library (``envs``, ``agents``) and
prints; its ``main(argv=None) -> int`` returns the exit code. Run one as a file
(``python scripts/simulate.py --help``) or, once the project is installed (``pip install -e .``),
as the console command ``splitpoker-<name>`` (underscores become dashes: ``splitpoker-solve-sample``),
declared in ``pyproject.toml`` and launched by :mod:`scripts.entry_points`.
"""
