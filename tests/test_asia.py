"""Asia Poker settings, foul rule and settlement, pinned to hand-derived cases."""

from itertools import combinations

import numpy as np
import pytest

from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    N_ASIA_SETTINGS,
    AsiaPoker,
)
from splitpoker.envs.rules.options import AsiaRules
from splitpoker.envs.rules.ranking.categories import HandCategory

GAME = AsiaPoker()


def test_settings_table_is_every_split_once():
    seen = set()
    for s in range(N_ASIA_SETTINGS):
        parts = (frozenset(HIGH_POS[s]), frozenset(MEDIUM_POS[s]), LOW_POS[s])
        assert len(parts[0]) == 4 and len(parts[1]) == 2
        assert parts[0] | parts[1] | {parts[2]} == set(range(7))
        seen.add(parts)
    expected = {
        (frozenset(set(range(7)) - {lo} - set(m)), frozenset(m), lo)
        for lo in range(7) for m in combinations([p for p in range(7) if p != lo], 2)
    }
    assert seen == expected and len(seen) == 105


def test_settings_order_documented():
    # setting = low_position * 15 + pair_index over the remaining positions
    assert LOW_POS[0] == 0 and MEDIUM_POS[0].tolist() == [1, 2] and HIGH_POS[0].tolist() == [3, 4, 5, 6]
    assert LOW_POS[14] == 0 and MEDIUM_POS[14].tolist() == [5, 6]
    assert LOW_POS[15] == 1 and MEDIUM_POS[15].tolist() == [0, 2]
    assert LOW_POS[104] == 6 and MEDIUM_POS[104].tolist() == [4, 5] and HIGH_POS[104].tolist() == [0, 1, 2, 3]


def setting(cards, high, medium, low):
    h = GAME.hand(cards)
    return h, GAME.setting_index(h, high, medium, low)


@pytest.mark.parametrize("cards,high,medium,low,fouled", [
    # high card vs high card: compare the high hand's two top cards with the medium hand
    ("Kh 9s 5d 3c Kd 9c 2s", "Kh 9s 5d 3c", "Kd 9c", "2s", False),   # equal: not a foul
    ("Kh 9s 5d 3c Kd Tc 2s", "Kh 9s 5d 3c", "Kd Tc", "2s", True),    # K-T beats K-9
    ("Kh 9s 5d 3c Kd 8c 2s", "Kh 9s 5d 3c", "Kd 8c", "2s", False),
    # pair vs pair
    ("5h 5s Kd 3c 5d 5c 2s", "5h 5s Kd 3c", "5d 5c", "2s", False),   # same pair: equal
    ("5h 5s Kd 3c 6d 6c 2s", "5h 5s Kd 3c", "6d 6c", "2s", True),
    ("5h 5s Kd 3c Ad Kc 2s", "5h 5s Kd 3c", "Ad Kc", "2s", False),   # pair beats A-K
    ("Ah Ks Qd 3c 2d 2c 4s", "Ah Ks Qd 3c", "2d 2c", "4s", True),    # high card below any pair
    ("9h 9s 4d 4c Ad Ac 2s", "9h 9s 4d 4c", "Ad Ac", "2s", False),   # two pair beats any pair
    # medium vs low
    ("Ah As Qd 3c Kd 9c Ks", "Ah As Qd 3c", "Kd 9c", "Ks", False),   # K-9 vs K: equal top card
    ("Kh Ks Qd 3c Qh 9c As", "Kh Ks Qd 3c", "Qh 9c", "As", True),    # ace low above Q-9
    ("Ah As Qd 3c 2d 2c Ks", "Ah As Qd 3c", "2d 2c", "Ks", False),   # any pair beats any card
    # the joker is an ace in the medium and low hands
    ("Ah As Qd 3c JK 5c Ks", "Ah As Qd 3c", "JK 5c", "Ks", False),
    ("Ah As Qd 3c Kc Qc JK", "Ah As Qd 3c", "Kc Qc", "JK", True),
    ("Ah Ks Qd 3c Ad JK 2s", "Ah Ks Qd 3c", "Ad JK", "2s", True),     # JK+A is a pair of aces
    # the joker completes a four-card straight: above a medium pair of aces
    ("As 2d 3c JK Ad Ac 9s", "As 2d 3c JK", "Ad Ac", "9s", False),
])
def test_foul_rule(cards, high, medium, low, fouled):
    h, s = setting(cards, high, medium, low)
    assert GAME.is_fouled(h, s) is fouled
    assert GAME.describe(h, s).fouled is fouled


def test_joker_categories_in_high_hand():
    h, s = setting("As Ah Ad JK 2c 3d 4h", "As Ah Ad JK", "3d 4h", "2c")
    assert GAME.describe(h, s).high_category == HandCategory.FOUR_OF_A_KIND
    h, s = setting("Ah 2h 3h JK 9c 8d 7s", "Ah 2h 3h JK", "9c 8d", "7s")
    assert GAME.describe(h, s).high_category == HandCategory.STRAIGHT_FLUSH


def test_ace_low_straight_option():
    low_rules, high_rules = AsiaRules(), AsiaRules(ace_low_straight="second_highest")
    a234 = "Ah 2s 3d 4c 9c 8d 7s"
    kqjt = "Kh Qs Jd Tc 9c 8d 7s"
    for rules, a234_wins in ((low_rules, False), (high_rules, True)):
        g = AsiaPoker(rules)
        ha = g.hand(a234)
        hk = g.hand(kqjt)
        ra = g.ranks(ha, g.setting_index(ha, "Ah 2s 3d 4c", "9c 8d", "7s"))[0]
        rk = g.ranks(hk, g.setting_index(hk, "Kh Qs Jd Tc", "9c 8d", "7s"))[0]
        assert (ra > rk) is a234_wins


def test_flush_straight_option():
    for rules, flush_wins in ((AsiaRules(), True), (AsiaRules(flush_beats_straight=False), False)):
        g = AsiaPoker(rules)
        hf = g.hand("2h 5h 9h Jh Ac Kd 3s")
        hs = g.hand("9s Td Jc Qh Ac Kd 3s")
        rf = g.ranks(hf, g.setting_index(hf, "2h 5h 9h Jh", "Ac Kd", "3s"))[0]
        rs = g.ranks(hs, g.setting_index(hs, "9s Td Jc Qh", "Ac Kd", "3s"))[0]
        assert (rf > rs) is flush_wins


@pytest.mark.parametrize("player,p_set,dealer,d_set,result,won", [
    # wins all three
    ("As Ah Kd Qc 9h 9s Jc", ("As Ah Kd Qc", "9h 9s", "Jc"), "Ks Kh 7d 5c 8h 8s 3c", ("Ks Kh 7d 5c", "8h 8s", "3c"), 1.0, 3),
    # wins high and medium, loses low: 2 of 3 wins even money
    ("As Ah Kd Qc 9h 9s 2c", ("As Ah Kd Qc", "9h 9s", "2c"), "Ks Kh 7d 5c 8h 8s 4c", ("Ks Kh 7d 5c", "8h 8s", "4c"), 1.0, 2),
    # copies go to the dealer: identical medium (9-9 vs 9-9) and low (2 vs 2) lose
    ("As Ah Kd Qc 9h 9s 2c", ("As Ah Kd Qc", "9h 9s", "2c"), "Ks Kh 7d 5c 9d 9c 2d", ("Ks Kh 7d 5c", "9d 9c", "2d"), -1.0, 1),
    # a full copy on every hand loses
    ("As Ah Kd Qc 9h 9s 2c", ("As Ah Kd Qc", "9h 9s", "2c"), "Ad Ac Kh Qs 9d 9c 2d", ("Ad Ac Kh Qs", "9d 9c", "2d"), -1.0, 0),
])
def test_settlement(player, p_set, dealer, d_set, result, won):
    p = GAME.hand(player)
    d = GAME.hand(dealer)
    ps = GAME.setting_index(p, *p_set)
    ds = GAME.setting_index(d, *d_set)
    assert GAME.settle(p, ps, d, ds) == (result, won, False)


def test_fouled_player_loses_even_when_winning_every_hand():
    p = GAME.hand("As Ah Kd Qc Kh Ks 2c")
    ps = GAME.setting_index(p, "As Qc Kd 2c", "Kh Ks", "Ah")  # medium K-K above high A-K-Q-2 high card
    d = GAME.hand("7s 6h 5d 3c 4h 8s 9c")
    ds = GAME.setting_index(d, "9c 8s 6h 3c", "7s 5d", "4h")
    result, won, fouled = GAME.settle(p, ps, d, ds)
    assert fouled and result == -1.0 and won == 3


def test_bad_inputs():
    with pytest.raises(ValueError, match="expected 7 cards, got 6"):
        GAME.hand("As Ah Kd Qc Kh Ks")
    with pytest.raises(ValueError, match="setting 105 out of range"):
        GAME.describe(GAME.hand("As Ah Kd Qc Kh Ks 2c"), 105)
    with pytest.raises(ValueError, match="does not use exactly"):
        GAME.setting_index(GAME.hand("As Ah Kd Qc Kh Ks 2c"), "As Ah Kd Qc", "Kh Ks", "3c")
    with pytest.raises(ValueError, match="share card"):
        h = GAME.hand("As Ah Kd Qc Kh Ks 2c")
        GAME.settle(h, 0, GAME.hand("As 3h 4d 5c 6h 7s 8c"), 0)


def test_all_settings_matches_single_queries():
    rng = np.random.default_rng(0)
    for _ in range(20):
        h = np.sort(rng.choice(53, 7, replace=False))
        ranks, fouled = GAME.all_settings(h)
        for s in range(0, 105, 13):
            assert tuple(ranks[s]) == GAME.ranks(h, s)
            assert fouled[s] == GAME.is_fouled(h, s)
        assert (~fouled).any()
