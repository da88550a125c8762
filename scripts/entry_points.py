"""Console commands: ``splitpoker-<name>`` runs ``scripts/<name>.py``'s ``main()``.

``pyproject.toml`` declares one command per script (``[project.scripts]``), each pointing at
``splitpoker.scripts.entry_points:<name>``, which is ``launch(<name>)`` (module ``__getattr__``, so the list
of scripts is written once, in :data:`SCRIPTS`). A command behaves as ``python scripts/<name>.py``: the Ctrl-C
guard of :func:`splitpoker.scripts.support.cli.install_startup_interrupt` is in place before the script's slow
imports, then its ``main()`` reads ``sys.argv`` and its return value is the exit code.
"""

from __future__ import annotations

import functools
import importlib

SCRIPTS = ("analyze", "bench_card_removal", "bench_scorer_speed", "bench_warm_start", "benchmark", "benchmark_rl", "bonus_table",
           "cache", "check_house_way", "dataset", "demo", "evaluate", "evaluate_sessions", "report", "rllib_ppo", "serve", "session_dp",
           "simulate", "simulate_table", "solve_all", "solve_sample", "strategy_card", "train", "tune")


def command(script: str) -> str:
    """The console command of ``scripts/<script>.py``."""
    return "splitpoker-" + script.replace("_", "-")


def launch(script: str) -> int:
    """Run ``scripts/<script>.py`` as a program would: Ctrl-C guard, import, ``main()``."""
    if script not in SCRIPTS:
        raise ValueError(f"unknown script {script!r}: expected one of {', '.join(SCRIPTS)}")
    from splitpoker.scripts.support.cli import finished, install_startup_interrupt

    install_startup_interrupt()
    return finished(importlib.import_module(f"splitpoker.scripts.{script}").main())


def __getattr__(name: str):
    """``splitpoker.scripts.entry_points.<script>``: the command function of that script (what the console
    wrapper generated from ``[project.scripts]`` imports and calls)."""
    if name in SCRIPTS:
        return functools.partial(launch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
