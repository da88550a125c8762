"""Foxwoods Pai Gow Poker house way (``paigow-foxwoods``, docs/references/paigow_foxwoods_house_way.md).

Every hand below was worked by hand from the reference's rule list and the decisions of
docs/house_ways.md (paigow-foxwoods), not taken from the code's output: each case gives the
cards, the back and front the rule puts down, and the rule's name (``FOXWOODS_RULES``). Then the
alternative readings (``Reading``) and the registered option, a pure-Python re-implementation of
the decisions checked against the kernel on many hands, no fouls on random hands, and (slow) the
exhaustive proof over all 154,143,080 hands with the per-rule counts.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import numba
import numpy as np
import pytest

from splitpoker.envs.rules.cards import JOKER, parse_cards
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.paigow import FRONT_POS, PaiGowPoker
from splitpoker.envs.rules.house_ways import paigow_foxwoods as fx
from splitpoker.envs.rules.house_ways.batch import (
    house_way_batch,
    house_way_batch_with_rule,
    random_hands,
)
from splitpoker.envs.rules.house_ways.check import TOTAL_HANDS, exhaustive_check
from splitpoker.envs.rules.house_ways.paigow_foxwoods import (
    FOXWOODS_RULE_TABLE,
    FOXWOODS_RULES,
    N_FOXWOODS_RULES,
    FoxwoodsRule,
    Reading,
    house_way_foxwoods,
    house_way_foxwoods_with_rule,
)
from splitpoker.envs.rules.house_ways.registry import STYLES, HouseWayStyle, styles_of
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.hand_eval import two_card_value

GAME = PaiGowPoker()
STYLE = "paigow-foxwoods"
OPTION = "paigow-foxwoods-split-quads"
N = {name: text for name, text in FOXWOODS_RULE_TABLE}  # rule texts by enum name


def play(cards, readings=0, game=GAME):
    h = game.hand(cards)
    s, r = house_way_foxwoods_with_rule(h, game.back_rank, game.back_to_two, readings)
    return game.describe(h, int(s)), FOXWOODS_RULES[r]


def check(cards, back, front, rule, readings=0, game=GAME):
    d, name = play(cards, readings, game)
    assert (set(d.back), set(d.front)) == (set(parse_cards(back)), set(parse_cards(front))), (
        f"{cards}: got {d}, expected back [{back}] front [{front}]"
    )
    assert name == N[rule], f"{cards}: rule {name!r}, expected {N[rule]!r}"
    assert not d.fouled


def case(cards, back, front, rule, id):
    return pytest.param(cards, back, front, rule, id=id)


# ----------------------------------------------------------------------------------------------
# the rules, two or more hand-worked hands each, the joker wherever it can matter


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Kd 9h 7c 5s 3d 2h", "As 7c 5s 3d 2h", "Kd 9h", "NO_PAIR", "rule1"),
    case("Ks Jd 9h 7c 4s 3d 2h", "Ks 7c 4s 3d 2h", "Jd 9h", "NO_PAIR", "rule1-king-high"),
    # the joker is the highest card (an ace) and stays in back (D4)
    case("JK Qd 9h 7c 5s 3d 2h", "JK 7c 5s 3d 2h", "Qd 9h", "NO_PAIR", "rule1-joker"),
])
def test_rule_1_no_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Kd 9h 9c 5s 3d 2h", "9h 9c 5s 3d 2h", "As Kd", "ONE_PAIR", "rule2"),
    case("Qs Qd 8h 6c 5s 3d 2h", "Qs Qd 5s 3d 2h", "8h 6c", "ONE_PAIR", "rule2-high-pair"),
    # the joker pairs the ace (D1)
    case("JK As 9h 7c 5s 3d Kh", "JK As 7c 5s 3d", "Kh 9h", "ONE_PAIR", "rule2-joker-pairs-an-ace"),
])
def test_rule_2_one_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    # aces, kings, queens or jacks: split, the lower pair in front
    case("Js Jd 4h 4c As 8d 2h", "Js Jd As 8d 2h", "4h 4c", "TWO_PAIR_HIGH", "JJ-44-split-even-with-an-ace"),
    case("As Ad 7h 7c Ks 3d 2h", "As Ad Ks 3d 2h", "7h 7c", "TWO_PAIR_HIGH", "AA-77"),
    case("JK Ad 7h 7c Ks 3d 2h", "JK Ad Ks 3d 2h", "7h 7c", "TWO_PAIR_HIGH", "AA-made-with-the-joker"),
    # tens down to sevens: both pairs in back if an ace can go in front (with the next singleton)
    case("Ts Td 5h 5c As 3d 2h", "Ts Td 5h 5c 2h", "As 3d", "TWO_PAIR_MID_KEEP", "TT-55-ace"),
    case("7s 7d 3h 3c JK 9d 2h", "7s 7d 3h 3c 2h", "JK 9d", "TWO_PAIR_MID_KEEP", "77-33-the-joker-is-the-ace"),
    case("9s 9d 4h 4c Ks 8d 2h", "9s 9d Ks 8d 2h", "4h 4c", "TWO_PAIR_MID_SPLIT", "99-44-king-is-not-enough"),
    case("Ts Td 7h 7c Ks Qd 2h", "Ts Td Ks Qd 2h", "7h 7c", "TWO_PAIR_MID_SPLIT", "TT-77-no-ace"),
    # sixes down to threes: both in back if a king or an ace can go in front
    case("6s 6d 3h 3c Ks 9d 2h", "6s 6d 3h 3c 2h", "Ks 9d", "TWO_PAIR_LOW_KEEP", "66-33-king"),
    case("5s 5d 4h 4c As Jd 8h", "5s 5d 4h 4c 8h", "As Jd", "TWO_PAIR_LOW_KEEP", "55-44-ace"),
    case("6s 6d 3h 3c Qs 9d 2h", "6s 6d Qs 9d 2h", "3h 3c", "TWO_PAIR_LOW_SPLIT", "66-33-queen"),
    case("4s 4d 3h 3c Qs Td 8h", "4s 4d Qs Td 8h", "3h 3c", "TWO_PAIR_LOW_SPLIT", "44-33-queen"),
])
def test_rule_3_two_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("Ks Kd 5h 5c 9s 9d 2h", "9s 9d 5h 5c 2h", "Ks Kd", "THREE_PAIRS", "rule4"),
    case("JK Ad 7h 7c 3s 3d Qh", "7h 7c 3s 3d Qh", "JK Ad", "THREE_PAIRS", "rule4-aces-with-the-joker"),
    # three pairs holding a straight (the joker is the 5 of A-2-3-4-5): still rule 4 (D2)
    case("JK As 2d 2h 3c 3s 4d", "2d 2h 3c 3s 4d", "JK As", "THREE_PAIRS", "rule4-not-the-straight"),
])
def test_rule_4_three_pairs(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Ad Ah 5c 8s 3d Kh", "Ad Ah 8s 5c 3d", "As Kh", "TRIP_ACES", "rule5-aces"),
    # two aces and the joker are three aces; a real ace goes in front (D3, D6)
    case("As Ad JK 5c 8s 3d Kh", "Ad JK 8s 5c 3d", "As Kh", "TRIP_ACES", "rule5-aces-with-the-joker"),
    case("9s 9d 9h 5c As 3d Kh", "9s 9d 9h 5c 3d", "As Kh", "TRIPS", "rule5-nines"),
    case("Ks Kd Kh 5c 8s 3d 2h", "Ks Kd Kh 3d 2h", "8s 5c", "TRIPS", "rule5-kings-stay-together"),
])
def test_rule_5_three_of_a_kind(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("9s 9d 9h 5c 5s 5d Kh", "9d 5c 5s 5d Kh", "9s 9h", "TWO_TRIPS", "rule6"),
    case("As Ad JK 4c 4s 4d 7h", "JK 4c 4s 4d 7h", "As Ad", "TWO_TRIPS", "rule6-aces-with-the-joker"),
])
def test_rule_6_two_sets_of_trips(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("5s 6d 7h 8c 9s Kd 2h", "5s 6d 7h 8c 9s", "Kd 2h", "STR_NO_PAIR", "straight"),
    # six-card straight: 2-6 in back leaves K-7, 3-7 leaves K-2
    case("3s 4d 5h 6c 7s Kd 2h", "2h 3s 4d 5h 6c", "Kd 7s", "STR_NO_PAIR", "six-card-straight"),
    case("2h 5h 7h 9h Jh 3d 4s", "2h 5h 7h 9h Jh", "3d 4s", "STR_NO_PAIR", "flush"),
    case("2h 5h 7h 9h Jh Kh Ah", "2h 5h 7h 9h Jh", "Kh Ah", "STR_NO_PAIR", "seven-card-flush"),
    # the joker: K-Q-J-T-9 in back leaves it in front as an ace (A-2 beats K-2 and 9-2)
    case("JK Ks Qd Jh Tc 9s 2d", "Ks Qd Jh Tc 9s", "JK 2d", "STR_NO_PAIR", "joker-front-as-ace"),
    # straight (front K-9) or flush (front 6-5): the highest front decides
    case("2h 3h 4h 9h Kh 5s 6c", "2h 3h 4h 5s 6c", "Kh 9h", "STR_NO_PAIR", "straight-over-flush"),
    # a straight flush gives way to a flush for a higher front (D8: "straight, flush or SF"):
    # K-Q in front, five of the six hearts in back, instead of K-2 behind the 8-Q straight flush
    case("8h 9h Th Jh Qh 2h Kc", "8h 9h Th Jh 2h", "Qh Kc", "STR_NO_PAIR", "flush-over-straight-flush"),
])
def test_rule_7_no_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    # a pair in front beats any other front (D8): 4-4 over 9-4
    case("5s 6d 7h 8c 9s 4d 4h", "5s 6d 7h 8c 9s", "4d 4h", "STR_ONE_PAIR", "pair-in-front"),
    # 9-9 cannot go in front with a straight behind it
    case("5s 6d 7h 8c 9s 9d Kh", "5s 6d 7h 8c 9d", "9s Kh", "STR_ONE_PAIR", "pair-broken"),
    case("2h 5h 7h 9h Jh Js 4s", "2h 5h 7h 9h Jh", "Js 4s", "STR_ONE_PAIR", "flush-and-jacks"),
    # the joker pairs the ace and is the 5 of the wheel
    case("As JK 2d 3c 4h 9s Kd", "As JK 2d 3c 4h", "9s Kd", "STR_ONE_PAIR", "joker-wheel"),
    # fives are not 10s-Ks: no exception even though A-K would beat K-5
    case("As 2d 3h 4c 5s 5d Kh", "As 2d 3h 4c 5d", "5s Kh", "STR_ONE_PAIR", "no-exception-for-fives"),
    # the exception does not improve on K-K in front
    case("Ah 9h 6h 4h 2h Kd Ks", "Ah 9h 6h 4h 2h", "Kd Ks", "STR_ONE_PAIR", "exception-does-not-improve"),
])
def test_rule_7_one_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front", [
    # A-K-Q-J-T in back leaves K-3; the ace and the queen in front, K-K in back improves it
    ("Ah Kd Ks Qc Jh Th 3c", "Kd Ks Jh Th 3c", "Ah Qc"),
    # the joker is the ace: K-Q-J-JK-9 in back leaves K-3; JK-Q (= A-Q) in front
    ("JK Kd Ks Qc Jh 9h 3c", "Kd Ks Jh 9h 3c", "JK Qc"),
    # flush A-K-9-6-2 leaves K-3 in front; A-9 in front with K-K in back is higher
    ("Ah Kh 9h 6h 2h Kd 3c", "Kh Kd 6h 2h 3c", "Ah 9h"),
])
def test_rule_7_one_pair_ace_exception(cards, back, front):
    check(cards, back, front, "STR_ONE_PAIR_ACE")


@pytest.mark.parametrize("cards,back,front,rule", [
    # "with two pair: play the two-pair rule", whatever straight or flush the hand holds
    case("As Ad 2h 3c 4d 5s 5h", "As Ad 2h 3c 4d", "5s 5h", "STR_TWO_PAIR_HIGH", "AA-55-wheel"),
    case("Ts Td Js Jd Qh Kc Ah", "Js Jd Qh Kc Ah", "Ts Td", "STR_TWO_PAIR_HIGH", "JJ-TT-broadway"),
    case("7s 7d 8h 8c 9s Td Jh", "8h 8c 9s Td Jh", "7s 7d", "STR_TWO_PAIR_MID_SPLIT", "88-77-straight"),
    case("As 2d 2h 3c 3s 4d 5h", "2d 2h 3c 3s 4d", "As 5h", "STR_TWO_PAIR_LOW_KEEP", "33-22-ace-wheel"),
    # the joker is the ace that goes in front
    case("JK 5s 5d 4h 4c 3s 2h", "5s 5d 4h 4c 2h", "JK 3s", "STR_TWO_PAIR_LOW_KEEP", "55-44-joker"),
    # split, and the joker stays in back as the 5 of A-2-3-4-5 (D3, D11)
    case("As JK 5d 5h 2c 3s 4d", "As JK 2c 3s 4d", "5d 5h", "STR_TWO_PAIR_HIGH", "joker-completes-the-back"),
])
def test_rule_7_two_pair(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("5s 5d 5h 6c 7s 8d 9h", "5d 6c 7s 8d 9h", "5s 5h", "STR_TRIPS", "trips-straight"),
    case("Kh Ks Kd 2h 5h 8h Jh", "Kh 2h 5h 8h Jh", "Ks Kd", "STR_TRIPS", "trips-flush"),
    # three aces (A-A-JK) whose flush needs the ace of spades and the joker: no pair can go in
    # front, the flush stays in back (D10)
    case("2c 4s Ts Ks As Ah JK", "As JK Ks Ts 4s", "Ah 2c", "STR_TRIPS_NO_PAIR", "aces-flush-needs-ace-and-joker"),
    case("2c 3d 4h Qs As Ah JK", "Ah JK 2c 3d 4h", "As Qs", "STR_TRIPS_NO_PAIR", "aces-wheel-needs-ace-and-joker"),
])
def test_rule_7_three_of_a_kind(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("2s 2d Kh Kc Ks As 3c", "Kh Kc Ks As 3c", "2s 2d", "FULL_HOUSE", "rule8"),
    # no exception: deuces go in front even with an ace and a king
    case("2s 2d 7h 7c 7s As Kc", "7h 7c 7s As Kc", "2s 2d", "FULL_HOUSE", "rule8-deuces-with-ace-king"),
    case("9s 9d 9h JK As 4c 2d", "9s 9d 9h 4c 2d", "JK As", "FULL_HOUSE", "rule8-aces-with-the-joker"),
    case("2s 2d Kh Kc Ks Ah Ac", "Kh Kc Ks 2s 2d", "Ah Ac", "FULL_HOUSE_TWO_PAIRS", "rule8-two-pairs"),
    # a full house that also makes a straight (A-K-Q-JK-T) is played as a full house (D2)
    case("As Ah JK Kd Ks Qc Tc", "As Ah JK Qc Tc", "Kd Ks", "FULL_HOUSE", "rule8-before-the-straight"),
])
def test_rule_8_full_house(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("Ks Kd Kh Kc 9h 8s 2c", "Kd Kc 9h 8s 2c", "Ks Kh", "QUADS_HIGH_SPLIT", "kings-split"),
    case("Js Jd Jh Jc As Kd 2c", "Jd Jc As Kd 2c", "Js Jh", "QUADS_HIGH_SPLIT", "jacks-split-even-with-A-K"),
    # three aces and the joker are four aces; split, the joker stays in back as the ten of A-K-Q-J-T
    case("As Ad Ah JK Kc Qd Jh", "Ad JK Kc Qd Jh", "As Ah", "QUADS_HIGH_SPLIT", "four-aces-with-the-joker"),
    case("8s 8d 8h 8c Kh 9s 2c", "8s 8d 8h 8c 2c", "Kh 9s", "QUADS_MID_KEEP", "eights-with-a-king"),
    case("Ts Td Th Tc JK 5s 2c", "Ts Td Th Tc 2c", "JK 5s", "QUADS_MID_KEEP", "tens-the-joker-is-an-ace"),
    case("8s 8d 8h 8c Qh 9s 2c", "8d 8c Qh 9s 2c", "8s 8h", "QUADS_MID_SPLIT", "eights-queen-high"),
    case("7s 7d 7h 7c Jh 9s 2c", "7d 7c Jh 9s 2c", "7s 7h", "QUADS_MID_SPLIT", "sevens-jack-high"),
    case("5s 5d 5h 5c As Kd 2h", "5s 5d 5h 5c 2h", "As Kd", "QUADS_LOW", "fives"),
    case("3s 3d 3h 3c 4h 6s 9c", "3s 3d 3h 3c 4h", "6s 9c", "QUADS_LOW", "threes"),
    case("Qs Qd Qh Qc 5h 5s 2c", "Qs Qd Qh Qc 2c", "5h 5s", "QUADS_PAIR", "queens-and-a-pair"),
    case("As Ad Ah Ac Kh Ks Kd", "As Ad Ah Ac Kd", "Kh Ks", "QUADS_PAIR", "aces-and-trips"),
    case("4s 4d 4h 4c 9h 9s Ac", "4s 4d 4h 4c Ac", "9h 9s", "QUADS_PAIR", "fours-and-a-pair"),
    # four aces (with the joker) and a royal flush (with the joker): rule 9, and the split keeps
    # the royal in back (D2, D3)
    case("Ah Kh Qh Jh JK As Ad", "Ah Kh Qh Jh JK", "As Ad", "QUADS_HIGH_SPLIT", "four-aces-and-a-royal"),
])
def test_rule_9_four_of_a_kind(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("cards,back,front,rule", [
    case("As Ad Ah Ac JK Qh Qs", "Ad Ac JK Qh Qs", "As Ah", "FIVE_ACES_SPLIT", "five-aces-queens"),
    case("As Ad Ah Ac JK 9h 2s", "Ad Ac JK 9h 2s", "As Ah", "FIVE_ACES_SPLIT", "five-aces"),
    case("As Ad Ah Ac JK Kh Ks", "As Ad Ah Ac JK", "Kh Ks", "FIVE_ACES_KEEP", "five-aces-kings"),
])
def test_rule_10_five_aces(cards, back, front, rule):
    check(cards, back, front, rule)


@pytest.mark.parametrize("ace_low", ["second_highest", "lowest"])
def test_the_wheel_option_moves_no_rule(ace_low):
    game = PaiGowPoker(PaiGowRules(ace_low_straight=ace_low))
    check("As JK 5d 5h 2c 3s 4d", "As JK 2c 3s 4d", "5d 5h", "STR_TWO_PAIR_HIGH", game=game)
    check("As JK 2d 3c 4h 9s Kd", "As JK 2d 3c 4h", "9s Kd", "STR_ONE_PAIR", game=game)
    check("3s 4d 5h 6c 7s Kd 2h", "2h 3s 4d 5h 6c", "Kd 7s", "STR_NO_PAIR", game=game)


def test_fallback_when_the_rule_would_foul():
    # a doctored foul table (every front above 3-2 fouls) forces the fallback: the unfouled
    # setting with the highest front, 3-2
    h = GAME.hand("As Kd 9h 7c 5s 3d 2h")
    s, r = house_way_foxwoods_with_rule(h, GAME.back_rank, np.zeros_like(GAME.back_to_two))
    assert FOXWOODS_RULES[r] == "fallback" and r == FoxwoodsRule.FALLBACK
    assert set(GAME.describe(h, int(s)).front) == set(parse_cards("3d 2h"))


# ----------------------------------------------------------------------------------------------
# the alternative readings: each changes the hand its decision is about, worked by hand


@pytest.mark.parametrize("reading,cards,back,front,rule", [
    # D2 by category: three pairs + a straight play the straight (3-2 is what is left in front)
    (Reading.CATEGORY_PRECEDENCE, "JK As 2d 2h 3c 3s 4d", "2d 3c 4d As JK", "2h 3s", "STR_OTHER"),
    # D8 card by card: 9-4 outranks 4-4
    (Reading.CARD_BY_CARD_FRONT, "5s 6d 7h 8c 9s 4d 4h", "4d 5s 6d 7h 8c", "4h 9s", "STR_ONE_PAIR"),
    # D8 the straight flush stays: K-2 in front instead of K-8
    (Reading.STRAIGHT_FLUSH_STAYS, "8h 9h Th Jh Qh 2h Kc", "8h 9h Th Jh Qh", "2h Kc", "STR_NO_PAIR"),
    # D9 against the best non-pair front: no non-pair front leaves the flush, so A-9 "improves"
    (Reading.EXCEPTION_VS_NON_PAIR_FRONT, "Ah 9h 6h 4h 2h Kd Ks", "Kd Ks 6h 4h 2h", "Ah 9h", "STR_ONE_PAIR_ACE"),
    # D10 by rule 5: an ace and the king in front, a pair of aces in back
    (Reading.TRIP_ACES_WITHOUT_PAIR_BY_RULE_5, "2c 4s Ts Ks As Ah JK", "Ah JK Ts 4s 2c", "As Ks", "TRIP_ACES"),
    # D13 "always split"
    (Reading.SPLIT_HIGH_QUADS_WITH_PAIR, "Qs Qd Qh Qc 5h 5s 2c", "Qd Qc 5h 5s 2c", "Qs Qh", "QUADS_PAIR_SPLIT"),
    (Reading.SPLIT_HIGH_QUADS_WITH_PAIR, "As Ad Ah Ac Kh Ks Kd", "Ad Ac Kh Ks Kd", "As Ah", "QUADS_PAIR_SPLIT"),
])
def test_alternative_readings(reading, cards, back, front, rule):
    check(cards, back, front, rule, readings=int(reading))


@pytest.mark.parametrize("reading", list(Reading))
def test_an_alternative_leaves_the_other_rules_alone(reading):
    # hands no decision is about play the same under every reading
    for cards in ("As Kd 9h 7c 5s 3d 2h", "Ts Td 5h 5c As 3d 2h", "Ks Kd Kh 5c 8s 3d 2h", "2s 2d 7h 7c 7s As Kc"):
        assert play(cards, int(reading)) == play(cards)


def test_the_option_is_registered_and_differs_only_where_D13_speaks():
    base, option = Game("paigow", STYLE), Game("paigow", OPTION)
    assert option.style.rule_names == base.style.rule_names == FOXWOODS_RULES
    split = option.house_way("Qs Qd Qh Qc 5h 5s 2c")
    assert split.rule == N["QUADS_PAIR_SPLIT"]
    assert set(option.describe("Qs Qd Qh Qc 5h 5s 2c", split.setting).front) == set(parse_cards("Qs Qh"))
    assert base.house_way("Qs Qd Qh Qc 5h 5s 2c").rule == N["QUADS_PAIR"]
    # low four of a kind with a pair: both read "the pair in front"
    assert base.house_way("4s 4d 4h 4c 9h 9s Ac") == option.house_way("4s 4d 4h 4c 9h 9s Ac")
    hands = np.empty((50_000, 7), dtype=np.int64)
    random_hands(11, len(hands), hands)
    a, b = (np.empty(len(hands), dtype=np.int64) for _ in range(2))
    house_way_batch(base.style_id, hands, base.rank_table, base.to_two, a)
    house_way_batch(option.style_id, hands, option.rank_table, option.to_two, b)
    for k in np.flatnonzero(a != b):  # only four jacks or better with a pair or trips
        counts = Counter(12 if c == JOKER else c >> 2 for c in hands[k])
        top, n = counts.most_common(1)[0]
        assert n == 4 and top >= 9 and sorted(counts.values())[-2] >= 2


def test_changed_hands_counts_what_a_reading_moves():
    from splitpoker.envs.rules.enumeration import hands_per_row, thread_bins, top_two_tasks
    from splitpoker.envs.rules.house_ways.paigow_foxwoods_readings import changed_hands_tasks

    tasks = top_two_tasks(53)
    tasks = tasks[(tasks[:, 1] == JOKER) & (tasks[:, 0] <= 20)]  # the joker and six cards of 2s-7s
    readings = np.array([int(r) for r in Reading], dtype=np.int64)
    counts = np.zeros((numba.config.NUMBA_NUM_THREADS, len(readings)), dtype=np.int64)
    order, starts = thread_bins(hands_per_row(tasks))
    changed_hands_tasks(tasks[order], starts, GAME.back_rank, GAME.back_to_two, readings, counts)
    expected = np.zeros(len(readings), dtype=np.int64)
    for c5, c6 in tasks:  # brute force over the same hands
        for rest in combinations(range(c5), 5):
            h = np.array([*rest, c5, c6], dtype=np.int64)
            s0 = house_way_foxwoods(h, GAME.back_rank, GAME.back_to_two)
            expected += [house_way_foxwoods(h, GAME.back_rank, GAME.back_to_two, r) != s0 for r in readings]
    assert counts.sum(axis=0).tolist() == expected.tolist()
    assert expected.sum() > 0


# ----------------------------------------------------------------------------------------------
# registration: accepted where a style is named


def test_registered_for_paigow_only():
    assert STYLE in STYLES and OPTION in STYLES
    assert STYLE in styles_of("paigow") and STYLE not in styles_of("asia")
    assert HouseWayStyle(STYLE).game == "paigow"
    with pytest.raises(ValueError, match="'paigow-foxwoods' is for paigow, not asia"):
        Game("asia", STYLE)


def test_rule_ids_one_idiom():
    assert [m.name for m in FoxwoodsRule] == [name for name, _ in FOXWOODS_RULE_TABLE]
    assert [int(m) for m in FoxwoodsRule] == list(range(N_FOXWOODS_RULES))
    assert FoxwoodsRule(N_FOXWOODS_RULES - 1).name == "FALLBACK"
    assert HouseWayStyle(STYLE).rule_names == FOXWOODS_RULES and len(set(FOXWOODS_RULES)) == N_FOXWOODS_RULES


# ----------------------------------------------------------------------------------------------
# an independent re-implementation of the decisions (lists and Counter, no bit masks, no
# pre-check, every setting valued by the engine), against the kernel


STRAIGHT, SF = int(HandCategory.STRAIGHT), int(HandCategory.STRAIGHT_FLUSH)
TEN, JACK, KING, ACE = 8, 9, 11, 12


def reference_setting(hand, game=GAME) -> int:
    """The Foxwoods setting of a sorted hand, by the rule list and decisions D1-D16, slowly."""
    rk = [ACE if c == JOKER else c >> 2 for c in hand]
    values, _ = game.all_settings(hand)
    back = [int(v) for v in values[:, 0]]
    front = [int(v) for v in values[:, 1]]
    cat = [int(game.table.class_category[b]) for b in back]
    front_ranks = [tuple(sorted((rk[i], rk[j]))) for i, j in FRONT_POS]
    cnt = Counter(rk)
    by_size = {n: sorted((r for r, m in cnt.items() if m == n), reverse=True) for n in range(1, 6)}
    singles, pairs, trips = by_size[1], by_size[2], by_size[3]
    big = by_size[4] + by_size[5]

    def with_front(a, b):  # D3: the best back among the settings with those front ranks, then the lowest index
        ok = [s for s in range(21) if front_ranks[s] == tuple(sorted((a, b)))]
        return max(ok, key=lambda s: (back[s], -s))

    def highest_front(pair_front=False):  # D8: straight or better in back; highest front, best back, lowest index
        ok = [s for s in range(21) if cat[s] >= STRAIGHT and (not pair_front or front_ranks[s][0] == front_ranks[s][1])]
        return max(ok, key=lambda s: (front[s], back[s], -s)) if ok else None

    def two_pair():  # rule 3
        hi, lo = pairs
        if hi >= JACK or (hi >= 5 and singles[0] != ACE) or (hi < 5 and singles[0] < KING):
            return with_front(lo, lo)
        return with_front(singles[0], singles[1])

    if by_size[5]:  # rule 10
        return with_front(KING, KING) if KING in pairs else with_front(ACE, ACE)
    if big:  # rule 9
        q = big[0]
        if trips or pairs:
            return with_front((trips + pairs)[0], (trips + pairs)[0])
        if q >= JACK or (q >= 5 and singles[0] < KING):
            return with_front(q, q)
        return with_front(singles[0], singles[1])
    if len(trips) == 2:  # rule 6
        return with_front(trips[0], trips[0])
    if trips and pairs:  # rule 8
        return with_front(pairs[0], pairs[0])
    if len(pairs) == 3:  # rule 4
        return with_front(pairs[0], pairs[0])
    if max(cat) >= STRAIGHT:  # rule 7
        if trips:
            s = highest_front(pair_front=True)
            return highest_front() if s is None else s
        if len(pairs) == 2:
            return two_pair()
        s = highest_front()
        if pairs and TEN <= pairs[0] <= KING and ACE in singles:
            other = max(r for r in singles if r != ACE)
            if two_card_value(4 * ACE, 4 * other) > front[s]:
                return with_front(ACE, other)
        return s
    if trips:  # rule 5
        return with_front(ACE, singles[0]) if trips[0] == ACE else with_front(singles[0], singles[1])
    if len(pairs) == 2:
        return two_pair()
    if pairs:  # rule 2
        return with_front(singles[0], singles[1])
    return with_front(singles[1], singles[2])  # rule 1


def _sample_hands():
    """Random hands, hands with the joker, and suited / connected hands (straights, flushes)."""
    rng = np.random.default_rng(2)
    out = np.empty((6_000, 7), dtype=np.int64)
    random_hands(7, 2_000, out[:2_000])
    for k in range(2_000, 4_000):  # the joker and six others
        out[k] = np.sort(np.append(rng.choice(52, 6, replace=False), JOKER))
    for k in range(4_000, 6_000):  # seven of a 20-card corner (8-A, three suits) and the joker
        pool = [r * 4 + u for r in range(6, 13) for u in range(3)] + [JOKER]
        out[k] = np.sort(rng.choice(pool, 7, replace=False))
    return out


def test_kernel_agrees_with_the_reference_implementation():
    hands = _sample_hands()
    out = np.empty(len(hands), dtype=np.int64)
    rules = np.empty(len(hands), dtype=np.int64)
    g = Game("paigow", STYLE)
    house_way_batch_with_rule(g.style_id, hands, g.rank_table, g.to_two, out, rules)
    seen = set(rules.tolist())
    assert len(seen) >= 25  # the sample reaches most rules
    bad = [(h.tolist(), int(s)) for h, s in zip(hands, out, strict=True) if reference_setting(h) != s]
    assert not bad, f"{len(bad)} hands differ, e.g. {bad[:3]}"


# ----------------------------------------------------------------------------------------------
# no fouls


def test_random_hands_no_fouls():
    hands = np.empty((300_000, 7), dtype=np.int64)
    random_hands(3, len(hands), hands)
    g = Game("paigow", STYLE)
    out = np.empty(len(hands), dtype=np.int64)
    rules = np.empty(len(hands), dtype=np.int64)
    house_way_batch_with_rule(g.style_id, hands, g.rank_table, g.to_two, out, rules)
    assert not np.any(rules == FoxwoodsRule.FALLBACK)
    for k in range(0, len(hands), 9973):  # the batch == the single-hand kernel
        assert house_way_foxwoods(hands[k], GAME.back_rank, GAME.back_to_two) == out[k]
    for k in range(0, len(hands), 101):
        _, fouled = GAME.all_settings(hands[k])
        assert not fouled[out[k]]


# Hands per rule over all C(53, 7) hands (default rules), from the exhaustive run
# (``python scripts/check_house_way.py --style paigow-foxwoods``), in rule-id order. Independent
# checks in the test: three pairs, full houses, four of a kind, two sets of trips, five aces.
ALL_HAND_COUNTS = {
    "NO_PAIR": 24_780_420, "ONE_PAIR": 64_221_960,
    "TWO_PAIR_HIGH": 18_573_624, "TWO_PAIR_MID_KEEP": 3_233_520, "TWO_PAIR_MID_SPLIT": 6_985_440,
    "TWO_PAIR_LOW_KEEP": 2_039_472, "TWO_PAIR_LOW_SPLIT": 1_859_760,
    "THREE_PAIRS": 2_898_720, "TRIP_ACES": 1_057_060, "TRIPS": 6_413_616, "TWO_TRIPS": 68_640,
    "STR_NO_PAIR": 7_119_228, "STR_ONE_PAIR": 7_514_088, "STR_ONE_PAIR_ACE": 849_168,
    "STR_TWO_PAIR_HIGH": 1_211_976, "STR_TWO_PAIR_MID_KEEP": 136_080, "STR_TWO_PAIR_MID_SPLIT": 203_040,
    "STR_TWO_PAIR_LOW_KEEP": 85_968, "STR_TWO_PAIR_LOW_SPLIT": 75_600,
    "STR_TRIPS": 245_564, "STR_TRIPS_NO_PAIR": 140_400,
    "FULL_HOUSE": 3_970_560, "FULL_HOUSE_TWO_PAIRS": 150_480,
    "QUADS_HIGH_SPLIT": 115_280, "QUADS_MID_KEEP": 29_120, "QUADS_MID_SPLIT": 30_720, "QUADS_LOW": 74_800,
    "QUADS_PAIR": 57_648, "QUADS_PAIR_SPLIT": 0,
    "FIVE_ACES_SPLIT": 1_122, "FIVE_ACES_KEEP": 6, "STR_OTHER": 0, "FALLBACK": 0,
}


@pytest.mark.slow
def test_every_hand_never_fouls():
    rep = exhaustive_check(Game("paigow", STYLE))
    assert rep["exhaustive"] and rep["hands"] == TOTAL_HANDS == 154_143_080
    assert rep["fouls"] == 0 and rep["errors"] == 0
    counts = {m.name: rep["rules"][FOXWOODS_RULES[m]]["hands"] for m in FoxwoodsRule}
    # independent counts (the joker an ace): three pairs 286*216*40 + 4*66*36*40 + 220*216;
    # trips + pair + two singles 52*72*55*16 + 6*72*880 + 4*48*880 + 48*66*40, + two pairs 150,480;
    # four of a kind 13*C(48,3) + 4*C(48,3) + 12*C(48,2); two sets of trips 68,640; five aces
    # C(48,2), C(4,2) of them with K-K
    assert counts["THREE_PAIRS"] == 2_471_040 + 380_160 + 47_520
    assert counts["FULL_HOUSE"] == 3_294_720 + 380_160 + 168_960 + 126_720
    assert sum(v for k, v in counts.items() if k.startswith("QUADS")) == 13 * 17_296 + 4 * 17_296 + 12 * 1_128
    assert counts["TWO_TRIPS"] == 68_640
    assert (counts["FIVE_ACES_SPLIT"] + counts["FIVE_ACES_KEEP"], counts["FIVE_ACES_KEEP"]) == (1_128, 6)
    assert counts == ALL_HAND_COUNTS


@pytest.mark.slow
def test_the_option_never_fouls_on_any_hand():
    rep = exhaustive_check(Game("paigow", OPTION))
    assert rep["hands"] == TOTAL_HANDS and rep["fouls"] == 0 and rep["errors"] == 0
    counts = {m.name: rep["rules"][FOXWOODS_RULES[m]]["hands"] for m in FoxwoodsRule}
    moved = counts["QUADS_PAIR_SPLIT"]
    assert moved > 0 and counts["QUADS_PAIR"] == ALL_HAND_COUNTS["QUADS_PAIR"] - moved
    assert {k: v for k, v in counts.items() if not k.startswith("QUADS_PAIR")} == {
        k: v for k, v in ALL_HAND_COUNTS.items() if not k.startswith("QUADS_PAIR")}


# ----------------------------------------------------------------------------------------------
# the docstrings quote the reference


REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "references" / "paigow_foxwoods_house_way.md"


@pytest.mark.parametrize("fn", [
    fx.rule_no_pair, fx.rule_one_pair, fx.rule_two_pair, fx.rule_three_pairs, fx.rule_three_of_a_kind,
    fx.rule_two_trips, fx.rule_straight_no_pair, fx.rule_straight_one_pair, fx.rule_straight_trips,
    fx.rule_full_house, fx.rule_four_of_a_kind, fx.rule_five_aces,
], ids=lambda f: f.__name__)
def test_docstrings_quote_the_reference_verbatim(fn):
    """Each rule's docstring opens with its line of the reference, word for word (markdown bold
    and line breaks aside)."""
    text = " ".join(REFERENCE.read_text().replace("**", "").split())
    quote = " ".join(fn.__doc__.split("\n\n")[0].split())
    assert len(quote) > 30 and quote in text, f"{fn.__name__}: {quote!r} is not in the reference"
