"""Outputs pinned before the restructuring into subpackages and the one round kernel.

Recorded with the code as it stood before (commit 6f06f42): house way against house way over
300,000 rounds of seed 11 for every style (exact rates: the deal is a counter-based stream, so they
do not depend on threads or batching), and the exact solve of three fixed hands per style (a digest
of every setting's win and loss counts over all dealer hands, the best setting and its EV). Any
change to dealing, ranking, a house way or settlement changes them.

asia-borgata's solves are pinned on the small dealer pool (the unseen cards < 28, recorded with the
same commit 6f06f42): its full dealer table (617 MB, two CPU-minutes to build) is needed by no other
test, and the dealer table is built by the same code for every style (asia-000 and paigow-igw keep
their full-pool pins).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.check import simulate

SIMULATE = {
    "asia-000": (0.47257666666666664, 0.0, 0.5274233333333334, -0.05484666666666667),
    "asia-borgata": (0.47547333333333336, 0.0, 0.5245266666666667, -0.04905333333333333),
    "paigow-igw": (0.28326, 0.41786666666666666, 0.2988733333333333, -0.029776333333353232),
}
EXACT = {  # (style, cards): (digest of wins and losses, best setting, its EV, dealer hands)
    ("asia-000", "Qh Th 8h 3h Kd 5d Tc"): ("c1aab3939ef6e3d6", 86, -0.16381426287835818, 53524680),
    ("asia-000", "As Ad Kc Kd 7h 7s Jk"): ("d76426e3be9c85ca", 74, 0.9812168517401693, 53524680),
    ("asia-000", "2c 3d 4h 5s 9c Td Qh"): ("3a2ceef225db5ee1", 89, -0.526755732122079, 53524680),
    ("paigow-igw", "Ah Kh Qh Jh Th 2c 2d"): ("aec2f48cbe898932", 0, 0.7487760879654022, 53524680),
    ("paigow-igw", "Jk As Kd Kc 9h 9s 3d"): ("ea27b0ddb07e6e68", 20, 0.7982212261708056, 53524680),
    ("paigow-igw", "7c 7d 4h 4s 2c 9d Qh"): ("682e5a54e3bbe8a0", 6, 0.11201020912222175, 53524680),
}
GAME_OF = {"asia-000": "asia", "asia-borgata": "asia", "paigow-igw": "paigow"}
SMALL_POOL = 28  # dealer hands from the unseen cards < 28
EXACT_SMALL_POOL = {  # as EXACT, over the small pool's dealer hands
    ("asia-borgata", "Qh Th 8h 3h Kd 5d Tc"): ("6d14ff418976c713", 68, 0.9854836696484294, 480700),
    ("asia-borgata", "As Ad Kc Kd 7h 7s Jk"): ("d40f7a2e14daa969", 69, 1.0, 657800),
    ("asia-borgata", "2c 3d 4h 5s 9c Td Qh"): ("5439cef345c2fd33", 74, 0.5674132630654369, 346104),
}


@pytest.mark.parametrize("style", sorted(SIMULATE))
def test_house_way_simulation_is_pinned(style):
    r = simulate(Game(GAME_OF[style], style), 300_000, seed=11)
    assert (r["win_rate"], r["push_rate"], r["loss_rate"]) == SIMULATE[style][:3]
    assert r["player_edge"] == pytest.approx(SIMULATE[style][3], abs=1e-12)


@pytest.mark.slow  # the dealer table of each style (617 MB, built once and cached)
@pytest.mark.parametrize("style,cards", sorted(EXACT))
def test_exact_solve_is_pinned(style, cards, exact_solver):
    res = exact_solver(GAME_OF[style], style).solve(cards)
    digest = hashlib.sha256(res.wins.astype(np.int64).tobytes() + res.losses.astype(np.int64).tobytes()).hexdigest()[:16]
    want_digest, best, ev, n = EXACT[(style, cards)]
    assert (digest, int(res.best()), int(res.n_dealer_hands)) == (want_digest, best, n)
    assert float(res.ev[res.best()]) == pytest.approx(ev, abs=1e-12)


@pytest.fixture(scope="module")
def small_pool_solvers():
    from splitpoker.envs.solver.dealer_table import build_dealer_table
    from splitpoker.envs.solver.exact import ExactSolver

    solvers = {}

    def get(style):
        if style not in solvers:
            game = Game(GAME_OF[style], style)
            solvers[style] = ExactSolver(game, table=build_dealer_table(game, universe=SMALL_POOL))
        return solvers[style]

    return get


@pytest.mark.parametrize("style,cards", sorted(EXACT_SMALL_POOL))
def test_exact_solve_on_the_small_pool_is_pinned(style, cards, small_pool_solvers):
    hand = np.sort(parse_cards(cards))
    res = small_pool_solvers(style).solve(hand, pool=np.setdiff1d(np.arange(SMALL_POOL), hand))
    digest = hashlib.sha256(res.wins.astype(np.int64).tobytes() + res.losses.astype(np.int64).tobytes()).hexdigest()[:16]
    want_digest, best, ev, n = EXACT_SMALL_POOL[(style, cards)]
    assert (digest, int(res.best()), int(res.n_dealer_hands)) == (want_digest, best, n)
    assert float(res.ev[res.best()]) == pytest.approx(ev, abs=1e-12)
