"""Canonical hand classes: counts (Burnside), weights, both directions of the index, and hands of a
class solving to the same exact EVs (setting matched card for card) for every style."""

import math

import numpy as np
import pytest

from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver import classes as hc
from splitpoker.envs.solver.dealer_table import build_dealer_table
from splitpoker.envs.solver.exact import ExactSolver

K = 28  # dealer pool for the EV checks: cards 0..27 (ranks 2..8, all four suits: closed under relabelling)
PERMS = hc.suit_permutations()


def test_burnside_counts_match_the_pinned_constants():
    # independent of the index: mean number of hands fixed by the 24 suit permutations
    b = hc.burnside_count(7)
    assert b["no_joker"] == hc.N_CLASSES_NO_JOKER == 6_009_159  # the published 7-of-52 count
    assert b["joker"] == hc.N_CLASSES_JOKER == 962_988  # = the 6-of-52 count
    assert hc.burnside_count(6)["no_joker"] == 962_988
    assert hc.burnside_count(5)["no_joker"] == 134_459  # the published 5-card count
    assert hc.N_CLASSES == 6_972_147


@pytest.fixture(scope="module")
def reps():
    return hc.class_index()


def test_index_counts_and_weights(reps):
    assert reps.shape == (hc.N_CLASSES,) and (np.diff(reps.astype(np.int64)) > 0).all()
    assert int((reps < math.comb(52, 7)).sum()) == hc.N_CLASSES_NO_JOKER
    w = hc.class_weights(reps=reps)
    assert int(w.sum()) == math.comb(53, 7) == 154_143_080
    assert w.min() == 4 and w.max() == 24  # three equal masks at most: 24 / 3!
    # seven of one suit: masks (x, 0, 0, 0) -> 4 hands; two pairs of equal masks -> 24 / (2! 2!) = 6
    assert hc.class_weights(hc.classify(parse_cards("2s 3s 4s 5s 6s 7s 9s")), reps)[0] == 4
    assert hc.class_weights(hc.classify(parse_cards("2s 2h 2d 2c 3s 3h JK")), reps)[0] == 6


def test_every_suit_relabelling_gives_the_same_class_and_weight_is_the_orbit(reps):
    rng = np.random.default_rng(3)
    for _ in range(300):
        h = np.sort(rng.choice(53, 7, replace=False))
        images = {tuple(hc.permute_suits(h, p)) for p in PERMS}
        cls = hc.classify(np.array(sorted(images)), reps)
        assert (cls == cls[0]).all()
        assert hc.hand_weights(h)[0] == len(images)
        canon = hc.class_hands(cls[:1], reps)[0]
        assert tuple(canon) in images  # the representative is a relabelling of the hand
        assert hc.classify(canon, reps)[0] == cls[0]


def test_index_round_trip_and_distinct_classes(reps):
    rng = np.random.default_rng(4)
    idx = np.concatenate([[0, hc.N_CLASSES_NO_JOKER - 1, hc.N_CLASSES_NO_JOKER, hc.N_CLASSES - 1],
                          rng.integers(0, hc.N_CLASSES, 500)])
    hands = hc.class_hands(idx, reps)
    assert np.array_equal(hc.classify(hands, reps), idx)
    assert ((hands == hc.JOKER).any(axis=1) == (idx >= hc.N_CLASSES_NO_JOKER)).all()


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="card 60 out of range"):
        hc.classify([0, 1, 2, 3, 4, 5, 60])
    with pytest.raises(ValueError, match="same card twice"):
        hc.classify([0, 0, 2, 3, 4, 5, 6])
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        hc.classify([0, 1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="class 6972147 out of range"):
        hc.class_hands([hc.N_CLASSES])
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        hc.setting_map("poker", [0, 1, 2, 3, 4, 5, 6])


def test_setting_map_moves_the_same_cards(reps):
    g = Game("asia")
    rng = np.random.default_rng(5)
    for _ in range(20):
        h = np.sort(rng.choice(53, 7, replace=False))
        canon = hc.class_hands(hc.classify(h, reps), reps)[0]
        m = hc.setting_map("asia", h)
        assert sorted(m.tolist()) == list(range(105))
        perm = _relabelling(h, canon)
        for s in (0, 17, 104):
            mine = g.describe(h, s).hands()
            theirs = g.describe(canon, int(m[s])).hands()
            for slot in g.slots:
                assert sorted(hc.permute_suits(np.asarray(mine[slot]), perm).tolist()) == sorted(np.asarray(theirs[slot]).tolist())


def _relabelling(h, canon):
    for p in PERMS:
        if np.array_equal(hc.permute_suits(h, p), canon):
            return p
    raise AssertionError("no relabelling")


@pytest.fixture(scope="module", params=[("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")])
def small(request):
    game = Game(*request.param)
    return game, ExactSolver(game, table=build_dealer_table(game, universe=K))


def test_hands_of_a_class_have_the_same_exact_evs(small, reps):
    """Dealer hands from the cards < 28 the player does not hold (a pool closed under suit
    relabelling): every setting's exact counts of a hand equal those of the matching setting of its
    canonical hand, and the house way's EV is the same (its setting index may differ: it breaks
    ties between equal-rank cards by position)."""
    game, solver = small
    rng = np.random.default_rng(6)
    deck = np.append(np.arange(K), 52)
    for _ in range(8):
        h = np.sort(rng.choice(deck, 7, replace=False))
        canon = hc.class_hands(hc.classify(h, reps), reps)[0]
        a = solver.solve(h, pool=np.setdiff1d(np.arange(K), h))
        b = solver.solve(canon, pool=np.setdiff1d(np.arange(K), canon))
        m = hc.setting_map(game.game, h)
        assert np.array_equal(a.wins, b.wins[m]) and np.array_equal(a.pushes, b.pushes[m])
        assert np.array_equal(a.fouled, b.fouled[m])
        assert a.ev[game.house_way(h).setting] == b.ev[game.house_way(canon).setting]
        assert a.ev.max() == b.ev.max()


# the real dealer pool for one house way per game: the class map is the game's (the house way only
# fills the dealer table), every style is checked on the small pool above, and asia-borgata's 617 MB
# table, needed by no other test, would cost two CPU-minutes of a clean run
@pytest.mark.slow
@pytest.mark.parametrize("game_style", [("asia", "asia-000"), ("paigow", "paigow-igw")])
def test_full_pool_class_equivalence(game_style, reps, exact_solver):
    game = Game(*game_style)
    solver = exact_solver(*game_style)
    for cards in ("Ah Kh Qh Jh 9s 9c JK", "2c 3c 4d 5d 6h 7h 8s"):
        h = np.sort(parse_cards(cards))
        canon = hc.class_hands(hc.classify(h, reps), reps)[0]
        a, b = solver.solve(h), solver.solve(canon)
        m = hc.setting_map(game.game, h)
        assert np.array_equal(a.wins, b.wins[m]) and np.array_equal(a.losses, b.losses[m])
