"""Shared fixtures: the big tables are loaded once per test session.

``exact_solver(game, style)`` returns one :class:`~splitpoker.envs.solver.exact.ExactSolver` per
house way for the whole session (its 617 MB dealer table is built once into the user cache, then
loaded once here instead of once per test).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _sb3_folders_in_the_test_temp_dir(tmp_path_factory):
    """A model a test makes with no logger of its own gets SB3's default one, which makes an empty
    ``SB3-<date>`` folder in the temp directory at every ``learn()``: with ``SB3_LOGDIR`` they all
    go to one folder of this session's temp dir (cleaned up by pytest) instead of piling up in /tmp."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))


@pytest.fixture(autouse=True)
def _leaves_the_process_as_it_found_it(request):
    """Every test leaves the process as it found it: signal handlers, environment variables, the
    working directory, warnings filters, torch's and numba's thread counts
    (:mod:`splitpoker.agents.process_state`). A test that changes one fails, naming what it changed,
    and the state is put back so the tests after it run as they would alone: a SIGINT left ignored
    by an in-process training run once hung this suite in a later test that relied on Ctrl-C."""
    from splitpoker.agents import process_state

    before = process_state.snapshot()
    yield
    changed = process_state.differences(before, process_state.snapshot(), ignore_environ=("PYTEST_CURRENT_TEST",))
    if changed:
        process_state.restore(before)
        pytest.fail(f"{request.node.nodeid} left the process changed: " + "; ".join(changed), pytrace=False)


@pytest.fixture(scope="session")
def exact_solver():
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.solver.exact import ExactSolver

    solvers = {}

    def get(game: str, style: str | None = None) -> ExactSolver:
        key = (game, style)
        if key not in solvers:
            solvers[key] = ExactSolver(Game(game, style))
        return solvers[key]

    return get


def pytest_collection_modifyitems(config, items):
    """The slow tests first, then the rest: pytest-xdist hands tests to its workers in this order,
    so the long ones start early and the short ones fill the workers at the end (longest-first
    scheduling), instead of one long test running alone on the last core.

    The slow tests are dealt one module at a time, round robin (the first slow test of each
    module, then the second of each, ...): the slow tests of one module often need the same big
    table (a dealer table, the bonus enumeration), which the first builds under the cache's build
    lock while a second, handed to the other worker at once, would only wait for it (seen on a
    clean clone: the bonus module's two exhaustive tests each took 50 s, one of them waiting)."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    fast = [item for item in items if item.get_closest_marker("slow") is None]
    by_module: dict[str, list] = {}
    for item in slow:
        by_module.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    dealt = [group[i] for i in range(max(map(len, by_module.values()), default=0))
             for group in by_module.values() if i < len(group)]
    items[:] = dealt + fast


def pytest_configure(config):
    """Hand tests to the xdist workers one at a time. By default xdist's ``load`` scheduler sends
    each worker a contiguous quarter of the suite at once; with the slow tests first, one worker
    then holds nearly all of them while the other finishes the fast ones and waits (measured on a
    clean clone: one of two workers idle for 570 of 1,123 s). With at most one test queued per
    worker, the order above is longest-first scheduling. ``--maxschedchunk N`` overrides it."""
    if config.pluginmanager.hasplugin("xdist") and config.getoption("maxschedchunk", None) is None:
        config.option.maxschedchunk = 1
