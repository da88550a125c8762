"""Exact solver: the exact expected value of every setting of a hand against the house-way dealer.

Rules-level computation, like :mod:`splitpoker.envs.rules`, and like it free of gymnasium and torch:

- :mod:`splitpoker.envs.solver.dealer_table` — the dealer's house-way outcome class for each of the
  C(53, 7) = 154,143,080 dealer hands, built once per (game, style, rules) and cached;
- :mod:`splitpoker.envs.solver.exact` — :class:`ExactSolver`, which values all settings of one hand against
  every dealer hand from the cards the player does not hold (docs/exact_solver.md);
- :mod:`splitpoker.envs.solver.sample` — one exact-solve row per hand of a seeded sample (house way against
  the optimum: ``scripts/solve_sample.py``);
- :mod:`splitpoker.envs.solver.hand_analysis` — every setting of one hand ranked by EV, Monte Carlo or
  exact (``scripts/analyze.py``);
- :mod:`splitpoker.scripts.support.speed_exact` — the solver's timing against the naive method
  (``scripts/benchmark.py --only exact``).
"""

from splitpoker.envs.solver.exact import ExactResult, ExactSolver, solve_naive

__all__ = ["ExactResult", "ExactSolver", "solve_naive"]
