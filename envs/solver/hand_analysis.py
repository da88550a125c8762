"""The hand calculator behind ``scripts/analyze.py``: every setting of seven cards ranked by its
EV against the house-way dealer, by Monte Carlo (the same dealer hands for every setting) or
exactly (:class:`splitpoker.envs.solver.exact.ExactSolver`, every dealer hand of the 46 unseen cards).

Plain arguments, a JSON-ready dict out; numpy and numba only (no argument parsing, no progress
bar: ``progress`` and ``log`` callbacks instead).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from splitpoker.envs.rules.cards import format_card
from splitpoker.envs.rules.game import Game


def setting_entry(game: Game, hand, s, ev, se, method="monte-carlo") -> dict:
    """One setting of ``hand``: its hands as card names, their categories, fouled, EV, stderr."""
    d = game.describe(hand, s)
    hands = {k: [format_card(c) for c in v] for k, v in d.hands().items()}
    cats = {}
    for slot in game.slots:
        category = getattr(d, f"{slot}_category", None)  # a one-card hand has none: it is a high card
        cats[slot] = category.label if category is not None else "High Card"
    return {"setting": int(s), "hands": hands, "categories": cats, "fouled": bool(d.fouled),
            "ev": float(ev), "stderr": float(se), "method": method}


def analyze_hand(game: Game, cards, *, samples: int = 20_000, seed: int = 0, include_fouled: bool = False,
                 exact: bool = False, chunk: int | None = None, progress: Callable[[int], None] | None = None,
                 log: Callable[[str], None] | None = None, solver=None) -> dict:
    """Every setting of ``cards`` ranked by EV (best first, ties by setting index), with the
    house way's setting, rule and EV: Monte Carlo over ``samples`` dealer hands seeded ``seed``
    (``progress(n)`` after each ``chunk``), or with ``exact`` the exact solver over all dealer
    hands (``log`` receives the dealer table's cache messages; ``solver``: an
    :class:`~splitpoker.envs.solver.exact.ExactSolver` of the same game, style and rules to reuse, as
    the explorer's server does, instead of loading the dealer table again). Fouled settings are
    listed only with ``include_fouled``. Returns a JSON-ready dict (the ``--json`` output of
    ``scripts/analyze.py``)."""
    hand = game.hand(cards)
    hw = game.house_way(hand)
    _, fouled = game.settings(hand)
    if exact:
        from splitpoker.envs.solver.exact import ExactSolver

        if solver is None:
            solver = ExactSolver(game, log=log)
        elif (solver.game.game, solver.game.style, solver.game.rules) != (game.game, game.style, game.rules):
            raise ValueError(f"a solver of {solver.game.game} / {solver.game.style.value} / {solver.game.rules!r} "
                             f"given for {game.game} / {game.style.value} / {game.rules!r}: expected one of the same "
                             f"game, style and rules")
        res = solver.solve(hand)
        mean, stderr = res.ev, np.zeros(game.n_settings)
        optimal = set(res.optimal_settings().tolist())
    else:
        mean, stderr = game.monte_carlo(hand, samples, seed, chunk=chunk, progress=progress)
    order = sorted(range(game.n_settings), key=lambda s: (-mean[s], s))
    entries = []
    for s in order:
        if not include_fouled and fouled[s]:
            continue
        e = setting_entry(game, hand, s, mean[s], stderr[s], "exact" if exact else "monte-carlo")
        if exact:
            n = res.n_dealer_hands
            e["counts"] = {"wins": int(res.wins[s]), "pushes": int(res.pushes[s]), "losses": int(res.losses[s]),
                           "dealer_hands": n}
            e["p_win"], e["p_push"], e["p_loss"] = (int(res.wins[s]) / n, int(res.pushes[s]) / n, int(res.losses[s]) / n)
            e["ev_fraction"] = str(res.ev_fraction(s))
            e["optimal"] = s in optimal
        entries.append(e)
    hw_desc = game.describe(hand, hw.setting)
    out = {
        "game": game.game, "style": game.style.value, "rules": repr(game.rules),
        "cards": [format_card(c) for c in hand], "method": "exact" if exact else "monte-carlo",
        "house_way": {k: [format_card(c) for c in v] for k, v in hw_desc.hands().items()},
        "house_way_setting": hw.setting, "house_way_rule": hw.rule,
        "house_way_ev": float(mean[hw.setting]), "house_way_stderr": float(stderr[hw.setting]),
        "settings": entries,
    }
    if exact:
        best = res.best(prefer=hw.setting)
        out.update({"dealer_hands": res.n_dealer_hands, "optimal_setting": best, "optimal_ev": float(res.ev[best]),
                    "house_way_gives_up": float(res.ev[best] - res.ev[hw.setting])})
    else:
        out.update({"samples": samples, "seed": seed})
    return out
