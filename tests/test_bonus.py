"""Bonus classification and pay tables: every line on a hand-picked hand, and the exhaustive
enumeration pinned to published and hand-derived counts."""

import re

import numpy as np
import pytest
import yaml

from splitpoker.envs.rules.bonus.features import (
    BonusFlag,
    best_category,
    bonus_features,
    cached_feature_histogram,
    feature_flags,
    paytable_report,
)
from splitpoker.envs.rules.bonus.paytables import ENVY, FORTUNE, SEED_000, PayTable, get_paytable
from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.ranking.categories import HandCategory as H


def line(table, cards):
    ln = table.line_for(bonus_features(parse_cards(cards, n=7)))
    return None if ln is None else ln.key


@pytest.mark.parametrize("cards,key", [
    ("8s 8h 8d 8c Ks Kh Kd", "quad_eights_and_trips"),
    ("8s 8h 8d 8c As Ah JK", "quad_eights_and_trips"),     # two aces + joker = three aces
    ("8s 8h 8d 8c Ks Kh 2d", "four_of_a_kind"),
    ("As Ah Ad Ac JK 2c 3d", "five_aces"),
    ("As Ks Qs Js Ts 2c 3d", "royal_flush"),
    ("As Ks Qs Js JK 2c 3d", "royal_flush"),               # joker royal pays the royal line
    ("9h 8h 7h 6h 5h 2c Kd", "straight_flush"),            # natural straight flush: 50
    ("9h 8h 7h 6h JK 2c Kd", "straight_flush_joker"),      # "Straight Flush*": only with the joker
    ("7s 7h 7d 7c Ks 2h 3d", "four_of_a_kind"),
    ("As Ah Ad JK Ks 2h 3d", "four_of_a_kind"),            # three aces + joker
    ("7s 7h 7d Kc Ks 2h 3d", "full_house"),
    ("2h 5h 9h Jh Kh 3c 4d", "flush"),
    ("2h 5h 9h Jh JK 3c 4d", "flush"),                     # joker completes the flush
    ("5s 6h 7d 8c 9s 9h 9d", "three_of_a_kind"),           # straight and trips: trips pay more
    ("5s 6h 7d 8c 9s Kh 2d", "straight"),
    ("Ah 2s 3d 4c JK Kh 9d", "straight"),                  # the joker as the five of a wheel
    ("9s 8h 7d 5c 4s 3h 2d", "nine_high_hand"),
    ("9s 8h 7d 6c 4s 3h 2d", "nine_high_hand"),
    ("Ts 8h 7d 5c 4s 3h 2d", None),                        # ten high pays nothing
    ("JK Qh 9d 7c 4s 3h 2d", None),                        # the joker is an ace: not nine high
    ("As Ah Kd Kc 9s 5h 2c", None),                        # two pair loses
])
def test_seed_000_lines(cards, key):
    assert line(SEED_000, cards) == key


@pytest.mark.parametrize("cards,key", [
    ("2h 3h 4h 5h 6h 7h 8h", "seven_card_straight_flush_no_joker"),
    ("Ah 2h 3h 4h 5h 6h 7h", "seven_card_straight_flush_no_joker"),   # ace low
    ("2h 3h 4h 5h 6h 7h JK", "seven_card_straight_flush_with_joker"),
    ("2h 3h 4h 6h 7h 8h JK", "seven_card_straight_flush_with_joker"),  # joker fills the 5
    ("As Ks Qs Js Ts Kh Qh", "royal_flush_no_joker_plus_royal_match"),
    ("As Ks Qs Js JK Kh Qh", "royal_flush"),                # royal with the joker: no royal match
    ("As Ks Qs Js Ts Kh Qd", "royal_flush"),                # K-Q not suited
    ("As Ah Ad Ac JK Kh Qd", "five_aces"),
    ("9h 8h 7h 6h JK 2c Kd", "straight_flush"),
    ("7s 7h 7d 7c Ks 2h 3d", "four_of_a_kind"),
    ("7s 7h 7d Kc Ks 2h 3d", "full_house"),
    ("2h 5h 9h Jh Kh 3c 4d", "flush"),
    ("5s 6h 7d 8c 9s 9h 9d", "three_of_a_kind"),
    ("5s 6h 7d 8c 9s Kh 2d", "straight"),
    ("As Ah Kd Kc 9s 5h 2c", None),
])
def test_fortune_lines(cards, key):
    assert line(FORTUNE, cards) == key


def test_envy_lines_stop_at_four_of_a_kind():
    assert line(ENVY, "7s 7h 7d 7c Ks 2h 3d") == "four_of_a_kind"
    assert ENVY.lines[-1].odds == 5
    assert line(ENVY, "7s 7h 7d Kc Ks 2h 3d") is None


def test_feature_code_details():
    code = bonus_features(parse_cards("As Ks Qs Js Ts Kh Qh"))
    assert best_category(code) == H.ROYAL_FLUSH
    assert {BonusFlag.NATURAL_SF, BonusFlag.ROYAL_MATCH} <= feature_flags(code)
    with pytest.raises(ValueError, match="exactly 7 cards"):
        bonus_features([1, 2, 3])


def test_paytable_data_validation():
    good = SEED_000.to_dict()
    assert PayTable.from_dict(good) == SEED_000
    bad = dict(good, lines=[dict(good["lines"][0], predicate="makes_magic")])
    with pytest.raises(ValueError, match="unknown predicate 'makes_magic'"):
        PayTable.from_dict(bad)
    with pytest.raises(ValueError, match="duplicate line key"):
        PayTable.from_dict(dict(good, lines=[good["lines"][0], good["lines"][0]]))
    with pytest.raises(ValueError, match="unknown pay table field"):
        PayTable.from_dict(dict(good, colour="red"))
    with pytest.raises(ValueError, match="odds=-1"):
        PayTable.from_dict(dict(good, lines=[dict(good["lines"][0], odds=-1)]))
    with pytest.raises(ValueError, match="unknown pay table 'nope'"):
        get_paytable("nope")


@pytest.mark.parametrize("odds,shown", [(float("nan"), "nan"), (float("inf"), "inf"), (-2.5, "-2.5"), (0, "0"),
                                        (True, "True"), ("40", "'40'")])
def test_pay_table_odds_that_are_not_a_finite_positive_number_are_refused_naming_the_line(odds, shown, tmp_path,
                                                                                          capsys):
    """``odds: .nan`` was accepted (``nan <= 0`` is false) and the line silently never paid; inf
    paid inf. Refused in the table's data, the env keyword and bonus_table.py --paytable-file,
    naming the line and its field."""
    from splitpoker.envs.config import PaiGowPokerConfig
    from splitpoker.scripts import bonus_table

    fortune = get_paytable("fortune").to_dict()
    lines = [dict(ln) for ln in fortune["lines"]]
    lines[2]["odds"] = odds
    key = lines[2]["key"]
    msg = f"pay table 'fortune' line 2: pay line {key!r}: odds={shown}: expected a finite number > 0"
    with pytest.raises(ValueError, match=re.escape(msg)):
        PayTable.from_dict(dict(fortune, lines=lines))
    with pytest.raises(ValueError, match=re.escape(f"fortune_paytable: {msg}")):
        PaiGowPokerConfig(fortune_paytable=dict(fortune, lines=lines))
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(dict(fortune, lines=lines)))  # odds: .nan, .inf, -2.5, 0, true, '40'
    assert bonus_table.main(["--game", "paigow", "--paytable-file", str(path)]) == 2
    assert msg in capsys.readouterr().err


def test_pay_table_caps_and_lines_of_the_wrong_shape_are_refused():
    fortune = get_paytable("fortune").to_dict()
    for cap in (float("nan"), float("inf"), -1, 0, "50000"):
        with pytest.raises(ValueError, match=re.escape(f"pay table 'fortune': max_payout={cap!r}: expected a finite")):
            PayTable.from_dict(dict(fortune, max_payout=cap))
    assert PayTable.from_dict(dict(fortune, max_payout=50_000)).max_payout == 50_000
    with pytest.raises(ValueError, match=r"line 1: missing field\(s\) \['odds'\]"):
        PayTable.from_dict(dict(fortune, lines=[fortune["lines"][0], {"key": "x", "predicate": "seven_card_straight_flush_joker"}]))
    with pytest.raises(ValueError, match="line 0: 'royal': expected a mapping"):
        PayTable.from_dict(dict(fortune, lines=["royal"]))


@pytest.fixture(scope="module")
def histogram():
    return cached_feature_histogram()


# Published (Wizard of Odds, "Pai Gow Mania" seven-card table, 53-card deck) and hand-derived counts.
WOO_BEST = {H.FIVE_ACES: 1_128, H.ROYAL_FLUSH: 26_132, H.STRAIGHT_FLUSH: 184_832, H.FOUR_OF_A_KIND: 307_472,
            H.FULL_HOUSE: 4_188_528, H.FLUSH: 6_172_088}
WOO_TRIPS_PAID = 7_672_500      # trips paid above straights
WOO_STRAIGHT_PAID = 11_034_204
WOO_NOTHING = 124_556_196


@pytest.mark.slow
def test_exhaustive_enumeration_matches_published_counts(histogram):
    assert int(histogram.sum()) == 154_143_080
    codes = np.nonzero(histogram)[0]
    best = {}
    for c in codes:
        b = best_category(int(c))
        best[b] = best.get(b, 0) + int(histogram[c])
    for cat, n in WOO_BEST.items():
        assert best[cat] == n, cat
    rep = paytable_report(FORTUNE, histogram)
    assert rep["lines"]["three_of_a_kind"]["combinations"] == WOO_TRIPS_PAID
    assert rep["lines"]["straight"]["combinations"] == WOO_STRAIGHT_PAID
    assert rep["losing_combinations"] == WOO_NOTHING


@pytest.mark.slow
def test_exhaustive_special_lines_match_hand_counts(histogram):
    flag_total = {f: int(histogram[(np.arange(histogram.size) >> int(f)) & 1 == 1].sum()) for f in BonusFlag}
    # 8 seven-card runs (A-7 .. 8-A) x 4 suits
    assert flag_total[BonusFlag.SEVEN_CARD_SF_NATURAL] == 32
    # 8 runs x 7 ways to leave one card out x 4 suits, minus the 7 x 4 six-card runs counted twice
    assert flag_total[BonusFlag.SEVEN_CARD_SF_JOKER] == 8 * 7 * 4 - 7 * 4 == 196
    # 4 royal suits x 3 suits for the K-Q
    assert flag_total[BonusFlag.ROYAL_MATCH] == 12
    # four 8s + trips of one of 12 ranks (4 ways each) or two of four aces + joker (6 ways)
    assert flag_total[BonusFlag.QUAD_EIGHTS_AND_TRIPS] == 12 * 4 + 6 == 54
    # rank sets {2,3,4,5,7,8,9} and {2,3,4,6,7,8,9}, suits without five of one suit
    no_flush = 4 ** 7 - 4 * (21 * 9 + 7 * 3 + 1)
    assert flag_total[BonusFlag.NINE_HIGH] == 2 * no_flush == 31_080


@pytest.mark.slow
def test_paytable_returns(histogram):
    asia = paytable_report(SEED_000, histogram)
    assert sum(ln["combinations"] for ln in asia["lines"].values()) + asia["losing_combinations"] == 154_143_080
    assert asia["house_edge"] == pytest.approx(0.0754663, abs=1e-6)
    fortune = paytable_report(FORTUNE, histogram)
    assert fortune["house_edge"] == pytest.approx(0.0852409, abs=1e-6)
