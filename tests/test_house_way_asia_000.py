"""The seed-000 Asia Poker house way (``envs/rules/house_ways/asia_000.py``).

* One test per rule and per exception/branch: a concrete hand, the exact three hands, the rule id.
* Decision tests (docs/house_ways.md (asia-000), D1..D20) where a reading changes the setting.
* An independent brute-force reference for the rules whose free cards follow D3 ("maximizing the
  Low and Medium Hands"): every setting that obeys the seed's placement, best by D3.
* Properties: hypothesis (any 7 of the 53 cards -> a legal, unfouled setting of those cards), a
  fast seeded random sample with zero fouls, and (``slow``) every hand holding the joker.
  The one-off exhaustive check over all C(53, 7) hands is reported in the decisions doc.
"""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit, prange

from splitpoker.envs.rules.cards import JOKER, format_cards, parse_cards
from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    AsiaPoker,
    asia_is_fouled,
    asia_setting_ranks,
)
from splitpoker.envs.rules.house_ways.asia_000 import (
    ASIA_000_RULES,
    N_RULES,
    Asia000Rule,
    asia_000_setting,
    checked,
    house_way_asia_000,
    house_way_asia_000_with_rule,
)
from splitpoker.envs.rules.house_ways.batch import house_way_batch, house_way_batch_with_rule
from splitpoker.envs.rules.house_ways.registry import ASIA_000_ID
from splitpoker.envs.rules.house_ways.straights import is_straight_or_flush
from splitpoker.envs.rules.options import AsiaRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import colex_unrank
from splitpoker.envs.rules.ranking.rank_tables import asia_high_table

R = Asia000Rule
GAME = AsiaPoker()


def house_way(text: str):
    hand = GAME.hand(text)
    s, rule = house_way_asia_000_with_rule(hand, GAME.high_rank, GAME.high_to_two)
    return GAME.describe(hand, int(s)), Asia000Rule(int(rule))


def expect(text: str, high: str, medium: str, low: str, rule: Asia000Rule):
    got, got_rule = house_way(text)
    want = (set(parse_cards(high)), set(parse_cards(medium)), set(parse_cards(low)))
    assert (set(got.high), set(got.medium), set(got.low)) == want, (
        f"{text}: got {got}, expected high [{high}] medium [{medium}] low [{low}]")
    assert got_rule == rule, f"{text}: rule {got_rule.name}, expected {rule.name}"
    assert not got.fouled


# ----------------------------------------------------------------------------------------------
# one test per rule / branch, in the seed's order


def test_no_pair():
    expect("As Kd 9c 7h 5d 3s 2c", "As 5d 3s 2c", "Kd 7h", "9c", R.NO_PAIR)


def test_no_pair_joker_is_the_highest_card_and_stays_high():  # D1, D2
    # 2-3-5 + joker is a straight, but the other three (K 9 7) hold one High card: no pair rule.
    expect("JK Kd 9c 7h 5d 3s 2c", "JK 5d 3s 2c", "Kd 7h", "9c", R.NO_PAIR)


def test_one_pair_high_pair_split():
    # Kings, no High singleton: Low gets the top singleton, High keeps a higher kicker (D4).
    expect("Kh Kd 9c 7h 5d 3s 2c", "Kd 7h 3s 2c", "Kh 5d", "9c", R.ONE_PAIR_SPLIT)


def test_one_pair_split_with_one_lower_high_singleton():
    expect("Ah Ad Kc 8h 5d 3s 2c", "Ad 8h 3s 2c", "Ah 5d", "Kc", R.ONE_PAIR_SPLIT)


def test_one_pair_split_high_straight_lets_medium_take_the_second_singleton():  # D4, D1
    # As+JK pair; High JK 5 4 2 is a straight (joker as 3), so Medium may hold A-8.
    expect("As JK 9c 8d 5h 4d 2s", "JK 5h 4d 2s", "As 8d", "9c", R.ONE_PAIR_SPLIT)


def test_one_pair_in_high_low_pair():
    expect("7h 7d Kc 9h 5d 3s 2c", "7h 7d 3s 2c", "Kc 5d", "9h", R.ONE_PAIR_IN_HIGH)


def test_one_pair_in_high_with_higher_high_singleton():
    expect("Qh Qd Kc 9h 5d 3s 2c", "Qh Qd 3s 2c", "Kc 5d", "9h", R.ONE_PAIR_IN_HIGH)


def test_one_pair_in_high_with_two_high_singletons():
    expect("Jh Jd Qc Kh 5d 3s 2c", "Jh Jd 3s 2c", "Kh 5d", "Qc", R.ONE_PAIR_IN_HIGH)


def test_two_pairs_split():
    expect("Qh Qd 8c 8h Ks 5d 2c", "Qh Qd 5d 2c", "8c 8h", "Ks", R.TWO_PAIRS)


def test_two_pairs_aces_kings_no_high_singleton():
    expect("Kh Kd 9c 9h 4d 3s 2c", "9c 9h 3s 2c", "Kd 4d", "Kh", R.TWO_PAIRS_ACES_KINGS)


def test_two_pairs_aces_kings_with_a_high_singleton_is_split():  # D6
    expect("Ah Ad 9c 9h Jd 3s 2c", "Ah Ad 3s 2c", "9c 9h", "Jd", R.TWO_PAIRS)


def test_two_pairs_aces_and_kings_splits_the_aces():  # D6
    expect("Ah Ad Kc Kh 8d 4s 2c", "Kc Kh 4s 2c", "Ad 8d", "Ah", R.TWO_PAIRS_ACES_KINGS)


def test_three_pairs_aces_kings_low_singleton():
    expect("Ah Ad 9c 9h 5d 5s 2c", "9c 9h 5d 5s", "Ad 2c", "Ah", R.THREE_PAIRS_ACES_KINGS)


def test_three_pairs_aces_and_kings_splits_the_aces():  # D7
    expect("Ah Ad Kc Kh 5d 5s 2c", "Kc Kh 5d 5s", "Ad 2c", "Ah", R.THREE_PAIRS_ACES_KINGS)


def test_three_pairs_low_singleton_lowest_pair_in_medium():  # D8
    expect("Qh Qd 9c 9h 5d 5s 2c", "Qd 9c 9h 2c", "5d 5s", "Qh", R.THREE_PAIRS_LOW_SINGLETON)


def test_three_pairs_literal_medium_pair_would_foul():  # D8
    hand = "Qh Qd 9c 9h 5d 5s 2c"
    literal = GAME.setting_index(hand, high="Qd 5d 5s 2c", medium="9c 9h", low="Qh")
    assert GAME.is_fouled(hand, literal)


def test_three_pairs_high_singleton():
    expect("Qh Qd 9c 9h 5d 5s Kc", "9c 9h 5d 5s", "Qh Qd", "Kc", R.THREE_PAIRS_HIGH_SINGLETON)


def test_three_pairs_aces_with_high_singleton_is_otherwise():  # D9
    expect("Ah Ad 9c 9h 5d 5s Kc", "9c 9h 5d 5s", "Ah Ad", "Kc", R.THREE_PAIRS_HIGH_SINGLETON)


def test_trips_2_to_10():
    expect("8h 8d 8c Kh 9d 5s 2c", "8h 8d 8c 2c", "Kh 5s", "9d", R.TRIPS_2_TO_10)


def test_trips_jacks_no_high():
    expect("Jh Jd Jc 9h 7d 5s 2c", "Jd Jc 5s 2c", "Jh 7d", "9h", R.TRIPS_JACKS_NO_HIGH)


def test_trips_jacks_one_high():
    expect("Jh Jd Jc Kh 7d 5s 2c", "Jd Jc 5s 2c", "Kh 7d", "Jh", R.TRIPS_JACKS_ONE_HIGH)


def test_trips_jacks_two_high():
    expect("Jh Jd Jc Kh Qd 5s 2c", "Jh Jd Jc 2c", "Kh 5s", "Qd", R.TRIPS_JACKS_TWO_HIGH)


def test_trips_jacks_three_high():  # D10
    expect("Jh Jd Jc Kh Qd As 2c", "Jh Jd Jc 2c", "As Qd", "Kh", R.TRIPS_JACKS_THREE_HIGH)


def test_trips_queens_to_aces_one_or_two_high():
    expect("Kh Kd Kc Ah 9d 5s 2c", "Kd Kc 5s 2c", "Ah 9d", "Kh", R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH)


def test_trips_queens_to_aces_two_high_lower_than_trips():
    expect("Ah Ad Ac Kh Qd 5s 2c", "Ad Ac 5s 2c", "Ah Qd", "Kh", R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH)


def test_trips_queens_to_aces_no_high():  # D10
    expect("Kh Kd Kc 9h 7d 5s 2c", "Kd Kc 5s 2c", "Kh 7d", "9h", R.TRIPS_Q_TO_A_NO_HIGH)


def test_trips_queens_to_aces_three_high():  # D10
    expect("Qh Qd Qc Ah Kd Js 2c", "Qh Qd Qc 2c", "Ah Js", "Kd", R.TRIPS_Q_TO_A_THREE_HIGH)


def test_trips_with_joker_keeps_joker_in_high_and_its_flush():  # D1, D2
    # Aces As Ah JK, pair in High with the two lowest singletons 6s 2s: the ace kept with the
    # joker is the spade (a flush), not the lowest-integer rule's heart.
    expect("JK As Ah Kd 9c 6s 2s", "JK As 6s 2s", "Ah 9c", "Kd", R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH)


def test_trips_with_straight_uses_trips_rule():  # D12
    expect("7h 7d 7c 8h 9d Ts 2c", "7h 7d 7c 2c", "Ts 8h", "9d", R.TRIPS_2_TO_10)


def test_three_of_a_kind_twice():
    expect("Kh Kd Kc 9h 9d 9s 2c", "9h 9d 9s 2c", "Kd Kc", "Kh", R.TRIPS_TWICE)


def test_trips_and_two_pairs_no_high_pair():
    expect("Kh Kd Kc 9h 9d 5s 5c", "9h 9d 5s 5c", "Kd Kc", "Kh", R.TRIPS_TWO_PAIRS_NO_HIGH_PAIR)


def test_trips_and_two_pairs_high_pair():
    expect("9h 9d 9c Kh Kd 5s 5c", "9h 9d 9c Kd", "5s 5c", "Kh", R.TRIPS_TWO_PAIRS_HIGH_PAIR)


def test_trips_and_two_high_pairs_splits_the_higher():  # D11
    expect("9h 9d 9c Ah Ad Qs Qc", "9h 9d 9c Ad", "Qs Qc", "Ah", R.TRIPS_TWO_PAIRS_HIGH_PAIR)


def test_full_house_high_pair():
    expect("9h 9d 9c Kh Kd 5s 2c", "9h 9d 9c 2c", "Kd 5s", "Kh", R.FULL_HOUSE_HIGH_PAIR)


def test_full_house_high_pair_and_high_trips_first_sentence_wins():  # D14
    expect("Kh Kd Kc Qh Qd 7s 2c", "Kh Kd Kc 2c", "Qd 7s", "Qh", R.FULL_HOUSE_HIGH_PAIR)


def test_full_house_high_trips():
    expect("Kh Kd Kc 9h 9d 5s 2c", "Kd Kc 5s 2c", "9h 9d", "Kh", R.FULL_HOUSE_HIGH_TRIPS)


def test_full_house_high_trips_higher_singleton():
    expect("Jh Jd Jc 9h 9d As 2c", "Jh Jd Jc 2c", "9h 9d", "As",
           R.FULL_HOUSE_HIGH_TRIPS_HIGHER_SINGLETON)


def test_full_house_neither_high():
    expect("9h 9d 9c 5h 5d Ks 2c", "9h 9d 9c 2c", "5h 5d", "Ks", R.FULL_HOUSE_NEITHER_HIGH)


def test_straight_pair_in_medium():
    expect("Ah Ad 7c 5h 4d 3s 2c", "5h 4d 3s 2c", "Ah Ad", "7c", R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM)


def test_straight_chosen_to_leave_the_pair():  # D13
    # 8-7-6-5 would leave 9 5 K (no pair, one High card); 9-8-7-6 leaves the fives.
    expect("9h 8d 7c 6s 5h 5d Kc", "9h 8d 7c 6s", "5h 5d", "Kc", R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM)


def test_flush_pair_in_medium():
    expect("Kh 9h 6h 3h 8c 8d 2s", "Kh 9h 6h 3h", "8c 8d", "2s", R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM)


def test_straight_high_cards_in_medium_and_low():
    expect("Kh Qd 9c 8h 7d 6s 2c", "9c 8h 7d 6s", "Kh 2c", "Qd", R.STRAIGHT_FLUSH_HIGH_CARDS)


def test_straight_with_one_high_card_left_uses_no_pair_rule():
    expect("Kh 7d 9c 8h 6d 3s 2c", "Kh 6d 3s 2c", "9c 7d", "8h", R.NO_PAIR)


def test_straight_pair_inside_falls_back_to_one_pair():  # D13
    # 5-6-7-8 uses one eight; the rest (8 K 2) has no pair and one High card: one pair rule.
    expect("5h 6d 7c 8h 8d Ks 2c", "8h 8d 5h 2c", "Ks 6d", "7c", R.ONE_PAIR_IN_HIGH)


def test_quads_low_with_ace():
    expect("5h 5d 5c 5s Ah Kd 2c", "5h 5d 5c 5s", "Ah 2c", "Kd", R.QUADS_LOW_WITH_ACE)


def test_quads_aces_kings_no_high():
    expect("Kh Kd Kc Ks 9h 5d 2c", "Kd Kc 5d 2c", "Kh 9h", "Ks", R.QUADS_ACES_KINGS_NO_HIGH)


def test_quads_split():
    expect("9h 9d 9c 9s Ah 5d 2c", "9d 9c 5d 2c", "9s 9h", "Ah", R.QUADS_SPLIT)


def test_quads_low_with_two_high_but_no_ace_is_split():
    expect("5h 5d 5c 5s Kh Qd 2c", "5d 5c Qd 2c", "5s 5h", "Kh", R.QUADS_SPLIT)


def test_quads_and_pair_aces_kings():
    expect("Kh Kd Kc Ks 9h 9d 2c", "Kh Kd Kc 2c", "9h 9d", "Ks", R.QUADS_PAIR_ACES_KINGS)


def test_quads_and_pair():
    expect("9h 9d 9c 9s Kh Kd 2c", "9h 9d 9c 9s", "Kh Kd", "2c", R.QUADS_PAIR)


def test_quads_and_trips_queens_plus_split():
    expect("Qh Qd Qc Qs 9h 9d 9c", "Qc 9h 9d 9c", "Qh Qd", "Qs", R.QUADS_TRIPS_SPLIT)


def test_quads_and_trips():
    expect("9h 9d 9c 9s Kh Kd Kc", "9h 9d 9c 9s", "Kd Kc", "Kh", R.QUADS_TRIPS)


def test_five_aces():
    expect("JK As Ad Ah Ac 7d 2s", "Ac JK 7d 2s", "Ah Ad", "As", R.FIVE_ACES)


def test_five_aces_with_pair():  # D18
    expect("JK As Ad Ah Ac 7d 7s", "Ac JK 7d 7s", "Ah Ad", "As", R.FIVE_ACES)


def test_fallback_replaces_a_fouled_setting():  # D19
    hand = GAME.hand("As Kd 9c 7h 5d 3s 2c")
    fouled = GAME.setting_index(hand, high="Kd 9c 7h 5d", medium="3s 2c", low="As")
    assert GAME.is_fouled(hand, fouled)
    s, rule = checked(hand, fouled, int(R.NO_PAIR), GAME.high_rank, GAME.high_to_two)
    assert rule == R.FALLBACK and not GAME.is_fouled(hand, int(s))
    s, rule = checked(hand, -1, int(R.NO_PAIR), GAME.high_rank, GAME.high_to_two)
    assert rule == R.FALLBACK and not GAME.is_fouled(hand, int(s))


# ----------------------------------------------------------------------------------------------
# API


def test_rule_names_cover_every_id():
    assert len(ASIA_000_RULES) == N_RULES == len(Asia000Rule)
    assert len(set(ASIA_000_RULES)) == N_RULES


def test_python_wrapper_validates_and_names_the_rule():
    setting, name = asia_000_setting("Ah Ad 7c 5h 4d 3s 2c")
    assert name == ASIA_000_RULES[R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM]
    assert format_cards(setting.medium) == "Ad Ah"
    with pytest.raises(ValueError, match="expected 7 cards"):
        asia_000_setting("Ah Ad 7c")
    with pytest.raises(ValueError, match="duplicate card"):
        asia_000_setting("Ah Ah 7c 5h 4d 3s 2c")


def test_is_straight_or_flush_matches_the_rank_table_on_all_four_card_hands():
    other = AsiaRules(flush_beats_straight=False, ace_low_straight="second_highest")
    for rules in (AsiaRules(), other):
        table = asia_high_table(rules)
        want = np.isin(table.category, [HandCategory.STRAIGHT, HandCategory.FLUSH,
                                        HandCategory.STRAIGHT_FLUSH])
        assert np.array_equal(_all_four_card_straight_or_flush(comb(53, 4)), want)


@njit(cache=True)
def _all_four_card_straight_or_flush(n):
    out = np.empty(n, dtype=np.bool_)
    cards = np.empty(4, dtype=np.int64)
    for idx in range(out.shape[0]):
        colex_unrank(idx, 4, cards)
        out[idx] = is_straight_or_flush(cards[0], cards[1], cards[2], cards[3])
    return out


# ----------------------------------------------------------------------------------------------
# independent reference for the D3 rules: brute force over the 105 settings


def _rank(card: int) -> int:
    return 12 if card == JOKER else card >> 2


def _groups(cards):
    counts = Counter(_rank(c) for c in cards)
    return sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)


def _count(hand_cards, rank):
    return sum(1 for c in hand_cards if _rank(c) == rank)


def _constraint(rule, cards, high, medium, low, category):
    """The seed's placement for ``rule`` (plus the D-decisions that fix cards), as a predicate."""
    g = _groups(cards)
    r0, r1 = g[0][0], g[1][0]
    if rule == R.ONE_PAIR_SPLIT:
        return _count(high, r0) == 1 and _count(medium, r0) == 1
    if rule == R.ONE_PAIR_IN_HIGH:
        return _count(high, r0) == 2
    if rule == R.TWO_PAIRS:
        return _count(high, r0) == 2 and _count(medium, r1) == 2
    if rule == R.TWO_PAIRS_ACES_KINGS:
        return _count(high, r1) == 2 and _count(medium, r0) == 1 and _count(low, r0) == 1
    if rule in (R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH, R.TRIPS_Q_TO_A_NO_HIGH):
        return _count(high, r0) == 2
    if rule == R.FULL_HOUSE_HIGH_PAIR:
        return _count(high, r0) == 3 and _count(medium, r1) == 1 and _count(low, r1) == 1
    if rule == R.FULL_HOUSE_NEITHER_HIGH:
        return _count(high, r0) == 3 and _count(medium, r1) == 2
    if rule == R.QUADS_LOW_WITH_ACE:
        return _count(high, r0) == 4
    if rule == R.QUADS_ACES_KINGS_NO_HIGH:
        return _count(high, r0) == 2 and _count(medium, r0) == 1 and _count(low, r0) == 1
    if rule == R.QUADS_SPLIT:
        return _count(high, r0) == 2 and _count(medium, r0) == 2
    if rule in (R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM, R.STRAIGHT_FLUSH_HIGH_CARDS):
        if category not in (HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH):
            return False
        m = [_rank(c) for c in medium]
        return m[0] == m[1] or (_rank(low[0]) >= 9 and max(m) >= 9)
    raise AssertionError(rule)


D3_RULES = [R.ONE_PAIR_SPLIT, R.ONE_PAIR_IN_HIGH, R.TWO_PAIRS, R.TWO_PAIRS_ACES_KINGS,
            R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH, R.TRIPS_Q_TO_A_NO_HIGH, R.FULL_HOUSE_HIGH_PAIR,
            R.FULL_HOUSE_NEITHER_HIGH, R.QUADS_LOW_WITH_ACE, R.QUADS_ACES_KINGS_NO_HIGH,
            R.QUADS_SPLIT, R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM, R.STRAIGHT_FLUSH_HIGH_CARDS]


def reference_d3(hand: np.ndarray, rule: Asia000Rule) -> int:
    """Best setting by D3 among the unfouled ones obeying ``rule``'s placement: Medium top card
    (pair above all), Low card, Medium hand, High hand, then the lowest index."""
    ranks, fouled = GAME.all_settings(hand)
    cards = hand.tolist()
    best, best_key = -1, None
    for s in range(105):
        if fouled[s]:
            continue
        high = [cards[p] for p in HIGH_POS[s]]
        medium = [cards[p] for p in MEDIUM_POS[s]]
        low = [cards[LOW_POS[s]]]
        category = HandCategory(int(GAME.table.class_category[ranks[s, 0]]))
        if not _constraint(rule, cards, high, medium, low, category):
            continue
        m = sorted(_rank(c) for c in medium)
        top = 13 if m[0] == m[1] else m[1]
        key = (top, ranks[s, 2], ranks[s, 1], ranks[s, 0], -s)
        if best_key is None or key > best_key:
            best, best_key = s, key
    return best


def _random_hands(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(np.argpartition(rng.random((n, 53)), 7, axis=1)[:, :7], axis=1).astype(np.int64)


@pytest.fixture(scope="module")
def sample():
    hands = _random_hands(300_000, seed=2024)
    out = np.empty(len(hands), dtype=np.int64)
    rules = np.empty(len(hands), dtype=np.int64)
    house_way_batch_with_rule(ASIA_000_ID, hands, GAME.high_rank, GAME.high_to_two, out, rules)
    return hands, out, rules


@pytest.mark.parametrize("rule", D3_RULES, ids=lambda r: r.name)
def test_free_cards_follow_d3_against_brute_force(sample, rule):
    hands, out, rules = sample
    idx = np.nonzero(rules == rule)[0][:60]
    assert len(idx) >= 5, f"too few sample hands for {rule.name}"
    for i in idx:
        want = reference_d3(hands[i], rule)
        assert out[i] == want, (
            f"{format_cards(hands[i])}: got {GAME.describe(hands[i], int(out[i]))}, "
            f"reference {GAME.describe(hands[i], want)}")


PAIR_LEVEL_RULES = [R.NO_PAIR, R.ONE_PAIR_SPLIT, R.ONE_PAIR_IN_HIGH, R.TWO_PAIRS,
                    R.TWO_PAIRS_ACES_KINGS, R.THREE_PAIRS_ACES_KINGS, R.THREE_PAIRS_LOW_SINGLETON,
                    R.THREE_PAIRS_HIGH_SINGLETON]


@pytest.mark.parametrize("rule", PAIR_LEVEL_RULES, ids=lambda r: r.name)
def test_pair_level_rules_apply_only_when_no_straight_or_flush_qualifies(sample, rule):  # D12
    hands, _, rules = sample
    for i in np.nonzero(rules == rule)[0][:80]:
        assert reference_d3(hands[i], R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM) == -1, format_cards(hands[i])


# ----------------------------------------------------------------------------------------------
# properties and no-foul checks


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 52), min_size=7, max_size=7, unique=True))
def test_any_hand_gets_an_unfouled_setting_of_its_own_cards(cards):
    hand = np.array(sorted(cards), dtype=np.int64)
    s, rule = house_way_asia_000_with_rule(hand, GAME.high_rank, GAME.high_to_two)
    assert 0 <= s < 105 and 0 <= rule < N_RULES
    assert s == house_way_asia_000(hand, GAME.high_rank, GAME.high_to_two)
    d = GAME.describe(hand, int(s))
    assert not d.fouled
    assert sorted(d.high + d.medium + d.low) == sorted(cards)


@njit(cache=True, parallel=True)
def _count_fouls(hands, out, high_rank, high_to_two):
    fouls = 0
    for i in prange(hands.shape[0]):
        s = out[i]
        if s < 0 or s > 104:
            fouls += 1
            continue
        hr, mr, lr = asia_setting_ranks(hands[i], s, high_rank)
        if asia_is_fouled(hr, mr, lr, high_to_two):
            fouls += 1
    return fouls


@pytest.mark.parametrize("rules", [AsiaRules(), AsiaRules(flush_beats_straight=False)],
                         ids=["flush>straight", "straight>flush"])
def test_random_sample_never_fouls(sample, rules):
    hands, out, rule_ids = sample
    game = GAME if rules == AsiaRules() else AsiaPoker(rules)
    if game is not GAME:
        out = np.empty(len(hands), dtype=np.int64)
        rule_ids = np.empty(len(hands), dtype=np.int64)
        house_way_batch_with_rule(ASIA_000_ID, hands, game.high_rank, game.high_to_two, out, rule_ids)
    assert _count_fouls(hands, out, game.high_rank, game.high_to_two) == 0
    assert not np.any(rule_ids == R.FALLBACK)


def test_batch_matches_single_hand_calls(sample):
    hands, out, rules = sample
    for i in range(0, len(hands), 3000):
        s, rule = house_way_asia_000_with_rule(hands[i], GAME.high_rank, GAME.high_to_two)
        assert (s, rule) == (out[i], rules[i])
    plain = np.empty_like(out)
    house_way_batch(ASIA_000_ID, hands, GAME.high_rank, GAME.high_to_two, plain)
    assert np.array_equal(plain, out)


@njit(cache=True)
def _joker_hands(first, out):
    """Hands {first..} x the joker: the 6 real cards are the colex rank ``first + row``."""
    real = np.empty(6, dtype=np.int64)
    for row in range(out.shape[0]):
        colex_unrank(first + row, 6, real)
        out[row, :6] = real
        out[row, 6] = 52


@pytest.mark.slow
def test_every_joker_hand_never_fouls():
    total = comb(52, 6)  # 20,358,520
    chunk = 2_000_000
    counts = np.zeros(N_RULES, dtype=np.int64)
    for first in range(0, total, chunk):
        hands = np.empty((min(chunk, total - first), 7), dtype=np.int64)
        _joker_hands(first, hands)
        out = np.empty(len(hands), dtype=np.int64)
        rules = np.empty(len(hands), dtype=np.int64)
        house_way_batch_with_rule(ASIA_000_ID, hands, GAME.high_rank, GAME.high_to_two, out, rules)
        assert _count_fouls(hands, out, GAME.high_rank, GAME.high_to_two) == 0
        counts += np.bincount(rules, minlength=N_RULES)
    assert counts.sum() == total
    assert counts[R.FALLBACK] == 0
    assert counts[R.FIVE_ACES] == comb(48, 2)  # the joker, four aces and any two others
