"""The hand calculator (splitpoker.envs.solver.hand_analysis, behind scripts/analyze.py), pinned to the two
worked examples of the Borgata house way in seed 002."""

import numpy as np
import pytest

from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver.hand_analysis import analyze_hand


@pytest.mark.parametrize("cards,house_way", [
    # seed 002, example 1: "Q, 10, 8, 3 hearts, K, 5 diamonds, 10 Clubs - play Q, 1O, 8, 3 hearts in
    # high hand, the K, 5 in the medium hand, the 10 Clubs in low hand."
    ("Qh Th 8h 3h Kd 5d Tc", {"high": ["Qh", "Th", "8h", "3h"], "medium": ["Kd", "5d"], "low": ["Tc"]}),
    # seed 002, example 2: "5, 6, 7, Joker, 2, 6, J .- play the pair of 6's in the high hand, Joker, 7
    # in medium hand and J in low hand."
    ("5s 6h 7d JK 2c 6c Js", {"high": ["5s", "6h", "2c", "6c"], "medium": ["7d", "JK"], "low": ["Js"]}),
])
def test_borgata_worked_examples(cards, house_way):
    game = Game("asia", "asia-borgata")
    seen = []
    rep = analyze_hand(game, cards, samples=3000, seed=1, chunk=1000, progress=seen.append)
    assert {k: sorted(v) for k, v in rep["house_way"].items()} == {k: sorted(v) for k, v in house_way.items()}
    assert sum(seen) == 3000 and rep["samples"] == 3000 and rep["method"] == "monte-carlo"
    evs = [e["ev"] for e in rep["settings"]]
    assert evs == sorted(evs, reverse=True) and not any(e["fouled"] for e in rep["settings"])
    legal = int((~game.settings(game.hand(cards))[1]).sum())
    assert len(rep["settings"]) == legal < 105
    every = analyze_hand(game, cards, samples=3000, seed=1, include_fouled=True)
    assert len(every["settings"]) == 105
    assert all(e["ev"] == -1.0 for e in every["settings"] if e["fouled"])
    hw = next(e for e in rep["settings"] if e["setting"] == rep["house_way_setting"])
    assert hw["ev"] == rep["house_way_ev"] and np.isfinite(hw["stderr"]) and hw["stderr"] > 0


def test_same_seed_same_estimates_other_seed_other():
    game = Game("paigow")
    a = analyze_hand(game, "As Ah Kd Kc 9s 5h JK", samples=2000, seed=4)
    b = analyze_hand(game, "As Ah Kd Kc 9s 5h JK", samples=2000, seed=4)
    c = analyze_hand(game, "As Ah Kd Kc 9s 5h JK", samples=2000, seed=5)
    assert a == b and a["settings"] != c["settings"]
