"""Pai Gow Poker settings, foul rule and settlement (commission, pushes, copies)."""

from itertools import combinations

import pytest

from splitpoker.envs.rules.games.paigow import BACK_POS, FRONT_POS, N_PAIGOW_SETTINGS, PaiGowPoker
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.rules.ranking.categories import HandCategory

GAME = PaiGowPoker()


def test_settings_table_is_every_front_pair_once():
    assert [tuple(f) for f in FRONT_POS] == list(combinations(range(7), 2))
    for s in range(N_PAIGOW_SETTINGS):
        assert sorted(BACK_POS[s].tolist() + FRONT_POS[s].tolist()) == list(range(7))


def setting(cards, back, front, game=GAME):
    h = game.hand(cards)
    return h, game.setting_index(h, back, front)


@pytest.mark.parametrize("cards,back,front,fouled", [
    ("Kh 9s 5d 3c 2d Kd 9c", "Kh 9s 5d 3c 2d", "Kd 9c", False),   # equal top two: allowed
    ("Kh 9s 5d 3c 2d Kd Tc", "Kh 9s 5d 3c 2d", "Kd Tc", True),
    ("4h 4s Kd 3c 2d 5d 5c", "4h 4s Kd 3c 2d", "5d 5c", True),     # seed 004's example
    ("5h 5s Kd 3c 2d 4d 4c", "5h 5s Kd 3c 2d", "4d 4c", False),
    ("5h 5s Kd 3c 2d 5d 5c", "5h 5s Kd 3c 2d", "5d 5c", False),    # same pair rank: allowed
    ("5h 5s 4d 4c 2d Ad Ac", "5h 5s 4d 4c 2d", "Ad Ac", False),    # two pair beats any pair
    ("Ah Ks Qd 3c 2d JK 7c", "Ah Ks Qd 3c 2d", "JK 7c", False),    # JK-7 is A-7, below A-K
    ("Ah Ks Qd 3c 2d JK Ac", "Ah Ks Qd 3c 2d", "JK Ac", True),     # JK-A is a pair of aces
])
def test_foul_rule(cards, back, front, fouled):
    h, s = setting(cards, back, front)
    assert GAME.is_fouled(h, s) is fouled


def test_five_aces_and_wheel_rank():
    h, s = setting("As Ah Ad Ac JK 2c 3d", "As Ah Ad Ac JK", "2c 3d")
    assert GAME.describe(h, s).back_category == HandCategory.FIVE_ACES
    for rules, wheel_second in ((PaiGowRules(), True), (PaiGowRules(ace_low_straight="lowest"), False)):
        g = PaiGowPoker(rules)
        hw, sw = setting("Ah 2s 3d 4c 5c 9d 8s", "Ah 2s 3d 4c 5c", "9d 8s", g)
        hk, sk = setting("Kh Qs Jd Tc 9c 3d 2s", "Kh Qs Jd Tc 9c", "3d 2s", g)
        assert (g.ranks(hw, sw)[0] > g.ranks(hk, sk)[0]) is wheel_second
        hb, sb = setting("Ah Ks Qd Jc Tc 3d 2s", "Ah Ks Qd Jc Tc", "3d 2s", g)
        assert g.ranks(hb, sb)[0] > g.ranks(hw, sw)[0]


PLAYER = ("As Ah Kd Qc 9h 9s 2c", "As Ah Kd Qc 2c", "9h 9s")


@pytest.mark.parametrize("dealer,d_back,d_front,commission,result,won", [
    ("Ks Kh 7d 5c 3h 8h 8s", "Ks Kh 7d 5c 3h", "8h 8s", 0.05, 0.95, 2),   # both won: 5% commission
    ("Ks Kh 7d 5c 3h 8h 8s", "Ks Kh 7d 5c 3h", "8h 8s", 0.0, 1.0, 2),     # commission-free option
    ("Ks Kh Kc 5c 3h 8h 8d", "Ks Kh Kc 5c 3h", "8h 8d", 0.05, 0.0, 1),    # one each: push
    ("Ks Kh Kc 5c 3h 9d 9c", "Ks Kh Kc 5c 3h", "9d 9c", 0.05, -1.0, 0),   # front copy goes to the dealer
    ("Ad Ac Kh Qs 2d 9d 9c", "Ad Ac Kh Qs 2d", "9d 9c", 0.05, -1.0, 0),   # full copy loses
])
def test_settlement(dealer, d_back, d_front, commission, result, won):
    g = PaiGowPoker(PaiGowRules(commission=commission))
    p, ps = setting(PLAYER[0], PLAYER[1], PLAYER[2], g)
    d, ds = setting(dealer, d_back, d_front, g)
    assert g.settle(p, ps, d, ds) == (pytest.approx(result), won, False)


def test_fouled_player_loses():
    p, ps = setting("4h 4s Kd 3c 2d 5d 5c", "4h 4s Kd 3c 2d", "5d 5c")
    d, ds = setting("7s 6h Jd 9c 8h Ts Qc", "7s 6h Jd 9c 8h", "Ts Qc")
    assert GAME.settle(p, ps, d, ds) == (-1.0, 2, True)  # wins both hands, still loses


@pytest.mark.parametrize("bad", [-0.01, 1.0, "5%", True])
def test_bad_commission(bad):
    with pytest.raises(ValueError, match="commission"):
        PaiGowRules(commission=bad)


def test_unknown_option_named():
    with pytest.raises(ValueError, match=r"unknown PaiGowRules option\(s\) \['vig'\]"):
        PaiGowRules.from_dict({"vig": 0.05})
    with pytest.raises(ValueError, match="ace_low_straight='middle'"):
        PaiGowRules.from_dict({"ace_low_straight": "middle"})
