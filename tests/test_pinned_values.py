"""Values worked out by hand (OpenSpiel pins Kuhn poker's value at -1/18): the exact solver on a
dealer pool of exactly seven cards, so the dealer has one hand and every setting's EV can be
counted on paper from the seed rules. Each docstring carries the derivation; the code is only
asked to agree with it.

Cards: ``rank * 4 + suit``, suits s h d c, so 2s = 0 ... 8d = 26; a dealer table over the 27
cards below 9s (888,030 hands) covers the dealer's pool.
"""

import functools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from splitpoker.envs.rules.cards import format_cards, hand_array
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver.dealer_table import build_dealer_table
from splitpoker.envs.solver.exact import ExactSolver

DEALER = "2s 3h 4d 6c 7s 8h 8d"  # one pair (eights); no straight of 4 or 5 cards, no flush
UNIVERSE = 27


@functools.cache
def table(game: str, style: str) -> np.ndarray:
    return build_dealer_table(Game(game, style), universe=UNIVERSE)


def solve(game: Game, player: str):
    solver = ExactSolver(game, table=table(game.game, game.style.value))
    pool = hand_array(DEALER)
    assert pool.max() < UNIVERSE
    return solver.solve(player, pool=pool)


def dealer_setting(game: Game) -> dict:
    cards = hand_array(DEALER)
    return {slot: sorted(format_cards(h).split()) for slot, h in
            game.describe(cards, game.house_way(cards).setting).hands().items()}


def test_paigow_igw_exact_ev_of_every_setting_against_one_dealer_hand():
    """Dealer 2s 3h 4d 6c 7s 8h 8d, IGW house way for one pair (seed 003: "put the pair in back
    and the two highest singletons in front"): back 8 8 4 3 2, front 7 6.

    Player As Ah Ks Qs Jh 9d 5c (one pair of aces, no straight, no flush); its 21 settings are
    the 21 pairs of front cards:

    * front A A (1): back K Q J 9 6 has no pair, below the front pair: fouled, -1;
    * front A K (2, one per ace): back A Q J 9 6 is below A K (Q < K): fouled, -1;
    * front A Q, A J, A 9, A 5 (2 x 4 = 8): legal; the front A-x beats 7 6 but the back A-high
      loses to the dealer's eights: one win, one loss, a push, 0;
    * front two of K Q J 9 5 (C(5, 2) = 10): back A A + three beats 8 8; the front's high card
      is at least 9 > 7: both hands win, +1 less the 5% commission = +0.95.

    So 10 settings at +0.95 (the optimum, tied 10 ways), 8 at 0 and 3 at -1."""
    game = Game("paigow", "paigow-igw")
    assert dealer_setting(game) == {"back": ["2s", "3h", "4d", "8d", "8h"], "front": ["6c", "7s"]}
    r = solve(game, "As Ah Ks Qs Jh 9d 5c")
    assert r.n_dealer_hands == 1
    evs = Counter(r.ev_fraction(s) for s in range(len(r.ev)))
    assert evs == {Fraction(95, 100): 10, Fraction(0): 8, Fraction(-1): 3}
    assert int(r.fouled.sum()) == 3 and len(r.optimal_settings()) == 10
    assert np.array_equal(r.pushes == 1, r.ev == 0.0)
    fronts = {tuple(sorted(format_cards(game.describe(r.cards, s).hands()["front"]).split())) for s in np.flatnonzero(r.fouled)}
    assert fronts == {("Ah", "As"), ("Ah", "Ks"), ("As", "Ks")}


def test_asia_borgata_exact_ev_of_every_setting_against_one_dealer_hand():
    """Dealer 2s 3h 4d 6c 7s 8h 8d, Borgata house way for one pair that is not a high pair, with
    no four-card straight or flush (seed 002: "Place the pair in the high hand, the highest and
    third highest cards in the medium hand and the second highest card in the low hand"): high
    8 8 3 2, medium 7 4, low 6.

    Player As Ah Ad Ac Ks Kh Qd. In any legal setting the low card (Q or better) beats the 6 and
    the medium hand (a pair, or K-high or better) beats 7 4: two hands of three won, +1. A
    setting is fouled (-1) when high >= medium >= low fails (seed 002: "The four-card hand must
    be equal or greater in poker ranking than the two-card hand and the two-card hand must be
    equal or greater than the one-card hand"). Counting the 7 x 15 = 105 settings by the low card:

    * low an ace (4 ways), medium from A A A K K Q (15 ways):
      medium A A (3): high A K K Q is a pair of kings, below the aces: fouled;
      medium K Q (2): K-high medium below the ace in low: fouled;
      the other 10 (K K; A K x 6; A Q x 3) are legal: 4 x 5 = 20 fouled, 40 legal;
    * low a king (2 ways), medium from A A A A K Q: every medium is a pair of aces or has a high
      card >= K, and the high hand (A A K Q or better) is at least the medium: 2 x 15 = 30 legal;
    * low the queen, medium from A A A A K K: all 15 legal.

    So 85 settings at +1 and 20 fouled at -1."""
    game = Game("asia", "asia-borgata")
    assert dealer_setting(game) == {"high": ["2s", "3h", "8d", "8h"], "medium": ["4d", "7s"], "low": ["6c"]}
    r = solve(game, "As Ah Ad Ac Ks Kh Qd")
    assert r.n_dealer_hands == 1
    assert Counter(r.ev.tolist()) == {1.0: 85, -1.0: 20}
    assert np.array_equal(r.fouled, r.ev == -1.0)
    assert int(r.wins.sum()) == 85 and int(r.pushes.sum()) == 0
    lows = Counter(format_cards(game.describe(r.cards, s).hands()["low"])[0] for s in np.flatnonzero(r.fouled))
    assert lows == {"A": 20}


@pytest.mark.parametrize("game,style", [("asia", "asia-000"), ("asia", "asia-borgata"), ("paigow", "paigow-igw")])
def test_copies_go_to_the_dealer(game, style):
    """Copies lose (seed 001: "Copies ... the dealer wins that comparison"; seed 004: "to lose,
    both of the Dealer's hands must be higher", with copies to the dealer as in docs/rules.md).
    Player 2h 3s 4c 6h 7h 8s 8c has the dealer's ranks (2s 3h 4d 6c 7s 8h 8d) and, like it, no
    straight or flush, so the same house way sets the same ranks in every hand: each comparison
    is a copy and the house-way setting loses the whole bet, -1."""
    g = Game(game, style)
    player = "2h 3s 4c 6h 7h 8s 8c"
    r = solve(g, player)
    h = g.house_way(hand_array(player)).setting
    assert r.n_dealer_hands == 1 and r.ev_fraction(h) == -1 and int(r.losses[h]) == 1
