"""Shared fixtures: the big tables are loaded once per test session.

``exact_solver(game, style)`` returns one :class:`~splitpoker.envs.solver.exact.ExactSolver` per
house way for the whole session (its 617 MB dealer table is built once into the user cache, then
loaded once here instead of once per test).
"""

from __future__ import annotations

import pytest


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
