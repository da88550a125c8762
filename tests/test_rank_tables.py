"""The production rank tables against the independent reference in ``tests/reference_eval.py``.

* Fast tests: hand-picked hands (joker completions, ace-low straights, options, labels, ties) and
  a seeded random sample compared hand-for-hand with the reference.
* Slow tests (marker ``slow``): every one of the C(53, 4) = 292,825 four-card hands under all four
  Asia option combinations and every one of the C(53, 5) = 2,869,685 five-card hands under both
  Pai Gow options must induce the same order, the same ties and the same categories as the
  reference, with category counts pinned to the digit.

The exhaustive tests evaluate the reference once per *hand class* (sorted ranks of the real
cards, whether all real cards share one suit, whether the joker is present) on a real hand of
that class. Under the specification a hand's value depends on nothing else: suits matter only
for flushes, which need every real card in one suit, and the joker's flush substitution picks an
absent card of that suit, i.e. any rank not held. Every hand is still compared individually
against the production table, and the random-sample test evaluates the reference directly on
each hand without any grouping.
"""

from __future__ import annotations

import random
from functools import cache
from math import comb

import numpy as np
import pytest
from reference_eval import ref_asia_key, ref_paigow_key

from splitpoker.envs.rules.cards import JOKER, format_cards, parse_cards
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.rank_tables import asia_high_table, paigow_back_table

# ----------------------------------------------------------------------------------------------
# option sets

ASIA_OPTIONS = [
    pytest.param(True, "lowest", id="flush>straight,wheel-lowest"),
    pytest.param(True, "second_highest", id="flush>straight,wheel-second"),
    pytest.param(False, "lowest", id="straight>flush,wheel-lowest"),
    pytest.param(False, "second_highest", id="straight>flush,wheel-second"),
]
PAIGOW_OPTIONS = [
    pytest.param("second_highest", id="wheel-second"),
    pytest.param("lowest", id="wheel-lowest"),
]


def asia_rules(flush_beats_straight: bool, ace_low: str) -> AsiaRules:
    return AsiaRules(flush_beats_straight=flush_beats_straight, ace_low_straight=ace_low)


def asia_ref(rules: AsiaRules):
    return lambda cards: ref_asia_key(cards, rules.flush_beats_straight, rules.wheel_high)


def paigow_ref(rules: PaiGowRules):
    return lambda cards: ref_paigow_key(cards, rules.wheel_high)


# ----------------------------------------------------------------------------------------------
# hand helpers


def colex_index(cards) -> int:
    """Colex index of a combination: sum_i C(c_i, i + 1) over the sorted cards."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cards)))


def lookup(table, text: str) -> tuple[int, HandCategory]:
    """(dense rank, category) of the hand ``text`` in ``table``."""
    cards = parse_cards(text, n=table.n_cards)
    idx = colex_index(cards)
    return int(table.rank[idx]), HandCategory(int(table.category[idx]))


def cat_of(table, text: str) -> HandCategory:
    return lookup(table, text)[1]


def asia(text: str, flush_beats_straight: bool = True, ace_low: str = "lowest") -> int:
    return lookup(asia_high_table(asia_rules(flush_beats_straight, ace_low)), text)[0]


def paigow(text: str, ace_low: str = "second_highest") -> int:
    return lookup(paigow_back_table(PaiGowRules(ace_low_straight=ace_low)), text)[0]


# ----------------------------------------------------------------------------------------------
# fast: the helpers and the table shapes


def test_colex_index_definition():
    assert colex_index([0, 1, 2, 3]) == 0
    assert colex_index([0, 1, 2, 4]) == 1
    assert colex_index([49, 50, 51, 52]) == comb(53, 4) - 1
    assert colex_index([48, 49, 50, 51, 52]) == comb(53, 5) - 1
    assert colex_index([3, 2, 1, 0]) == 0  # order-free


def test_table_shapes_and_dense_ranks():
    for table, n in ((asia_high_table(), 4), (paigow_back_table(), 5)):
        assert table.n_cards == n
        assert table.rank.shape == (comb(53, n),)
        assert table.category.shape == (comb(53, n),)
        # dense: every rank from 0 to the maximum is used
        assert np.array_equal(np.unique(table.rank), np.arange(int(table.rank.max()) + 1))


# ----------------------------------------------------------------------------------------------
# fast: hand-picked cases — Asia Poker four-card high hand


def test_asia_joker_completes_wheel():
    t = asia_high_table()
    assert cat_of(t, "As 2h 3d JK") is HandCategory.STRAIGHT
    assert asia("As 2h 3d JK") == asia("Ac 2s 3h 4d")
    # 2-3-4 + joker: 2-3-4-5 beats A-2-3-4 when the ace-low straight is the lowest ...
    assert asia("2s 3h 4d JK") == asia("2c 3s 4h 5d")
    # ... but A-2-3-4 is chosen when it is the second-highest straight
    sh = dict(ace_low="second_highest")
    assert asia("2s 3h 4d JK", **sh) == asia("Ac 2s 3h 4d", **sh)


def test_asia_wheel_ordering_both_options():
    # default: A-2-3-4 is the lowest straight, still above trips
    assert asia("Ac 2s 3h 4d") < asia("2c 3s 4h 5d") < asia("Tc Js Qh Kd") < asia("Jc Qs Kh Ad")
    assert asia("Ac 2s 3h 4d") > asia("As Ah Ad Kc")
    # second_highest: T-J-Q-K < A-2-3-4 < J-Q-K-A
    sh = dict(ace_low="second_highest")
    assert (
        asia("2c 3s 4h 5d", **sh)
        < asia("Tc Js Qh Kd", **sh)
        < asia("Ac 2s 3h 4d", **sh)
        < asia("Jc Qs Kh Ad", **sh)
    )
    # same for straight flushes
    assert asia("Ah 2h 3h 4h") < asia("2h 3h 4h 5h") < asia("Th Jh Qh Kh")
    assert asia("Th Jh Qh Kh", **sh) < asia("Ah 2h 3h 4h", **sh) < asia("Jh Qh Kh Ah", **sh)


def test_asia_joker_completes_flush_and_straight_flush():
    t = asia_high_table()
    # flush: the joker becomes the best absent heart (the queen here)
    assert cat_of(t, "Ah Kh 8h JK") is HandCategory.FLUSH
    assert asia("Ah Kh 8h JK") == asia("As Ks Qs 8s")
    assert asia("Ah Kh 8h JK") > asia("Ad Kd Jd 9d")
    # straight flush; the ace-high one is labelled STRAIGHT_FLUSH (no royal in Asia)
    assert cat_of(t, "Jh Qh Kh JK") is HandCategory.STRAIGHT_FLUSH
    assert asia("Jh Qh Kh JK") == asia("Js Qs Ks As")
    assert cat_of(t, "Js Qs Ks As") is HandCategory.STRAIGHT_FLUSH
    # gapped suited cards: 5-7-8 + joker (the 6 of hearts) is a straight flush
    assert asia("5h 7h 8h JK") == asia("5d 6d 7d 8d")
    # quads beat any straight flush
    assert asia("2s 2h 2d 2c") > asia("Js Qs Ks As")


def test_asia_joker_as_ace():
    t = asia_high_table()
    assert cat_of(t, "As Ah Ad JK") is HandCategory.FOUR_OF_A_KIND
    assert asia("As Ah Ad JK") == asia("As Ah Ad Ac")
    # K K Q + joker: the joker is an ace, not a king: pair of kings with A-Q kickers
    assert cat_of(t, "Kd Ks Qc JK") is HandCategory.PAIR
    assert asia("Kd Ks Qc JK") == asia("Kh Kc Qd As")
    assert asia("Kd Ks Qc JK") < asia("Kd Ks Kc 2h")
    assert asia("Kd Ks Qc JK") < asia("Kd Ks 2c 2h")
    # a lone joker with unsuited, unconnected cards is an ace high
    assert asia("9c 7d 4s JK") == asia("As 9c 7d 4s")
    # an ace + joker is a pair of aces
    assert asia("As 9c 4d JK") == asia("Ah Ad 9c 4s")


def test_asia_flush_vs_straight_option():
    flush, straight = "2h 5h 9h Jh", "9c Ts Jh Qd"
    assert asia(flush) > asia(straight)
    assert asia(flush, flush_beats_straight=False) < asia(straight, flush_beats_straight=False)
    # both still beat three of a kind and lose to a straight flush
    for fbs in (True, False):
        assert min(asia(flush, fbs), asia(straight, fbs)) > asia("As Ah Ad Kc", fbs)
        assert max(asia(flush, fbs), asia(straight, fbs)) < asia("2c 3c 4c 5c", fbs)
    # joker hands: suited cards the joker could make a straight with, it can also make a
    # straight flush with (it takes the missing card of that suit), so the option flips none
    for fbs in (True, False):
        t = asia_high_table(AsiaRules(flush_beats_straight=fbs))
        assert cat_of(t, "5h 6h 8h JK") is HandCategory.STRAIGHT_FLUSH
        assert cat_of(t, "5h 6d 8h JK") is HandCategory.STRAIGHT
        assert cat_of(t, "2h 6h 9h JK") is HandCategory.FLUSH
        assert asia("2h 6h 9h JK", fbs) == asia("Ac 9c 6c 2c", fbs)
    # under the swap a joker flush sits below every straight, a joker straight above flushes
    assert asia("2h 6h 9h JK", False) < asia("Ac 2s 3h 4d", False)
    assert asia("5h 6d 8h JK", False) > asia("Ac Kc Qc Tc", False)


def test_asia_ties_across_suits():
    assert asia("As Kh 7d 3c") == asia("Ad Kc 7s 3h")
    assert asia("2s 5s 9s Js") == asia("2d 5d 9d Jd")
    assert asia("Ts Jh Qd Kc") == asia("Tc Jd Qh Ks")
    assert asia("Ah Kh 8h JK") == asia("Ac Kc 8c JK")


# ----------------------------------------------------------------------------------------------
# fast: hand-picked cases — Pai Gow Poker five-card back hand


def test_paigow_joker_completes_wheel_and_straight():
    t = paigow_back_table()
    assert cat_of(t, "As 2h 3d 4c JK") is HandCategory.STRAIGHT
    assert paigow("As 2h 3d 4c JK") == paigow("Ad 2c 3s 4h 5d")
    # 2-3-4-5 + joker: A-2-3-4-5 (second highest) beats 2-3-4-5-6 by default ...
    assert paigow("2s 3h 4d 5c JK") == paigow("Ad 2c 3s 4h 5d")
    # ... and 2-3-4-5-6 is taken when the ace-low straight is the lowest
    lo = dict(ace_low="lowest")
    assert paigow("2s 3h 4d 5c JK", **lo) == paigow("2d 3c 4s 5h 6d", **lo)
    # an inside straight: 9-T-Q-K + joker (the jack)
    assert paigow("9s Th Qd Kc JK") == paigow("9d Tc Js Qh Kd")


def test_paigow_wheel_ordering_both_options():
    assert paigow("9c Ts Jh Qd Kd") < paigow("Ac 2s 3h 4d 5d") < paigow("Tc Js Qh Kd Ad")
    lo = dict(ace_low="lowest")
    assert (
        paigow("Ac 2s 3h 4d 5d", **lo)
        < paigow("2c 3s 4h 5d 6d", **lo)
        < paigow("9c Ts Jh Qd Kd", **lo)
    )
    assert paigow("Ac 2s 3h 4d 5d", **lo) > paigow("As Ah Ad Kc Qd", **lo)
    # straight flushes
    assert paigow("9h Th Jh Qh Kh") < paigow("Ah 2h 3h 4h 5h") < paigow("Th Jh Qh Kh Ah")
    assert paigow("Ah 2h 3h 4h 5h", **lo) < paigow("2h 3h 4h 5h 6h", **lo)


def test_paigow_joker_completes_flush_and_straight_flush():
    t = paigow_back_table()
    # Ah Kh 8h 5h + joker = A-K-Q-8-5 flush, which beats a natural A-K-J-9-5 flush
    assert cat_of(t, "Ah Kh 8h 5h JK") is HandCategory.FLUSH
    assert paigow("Ah Kh 8h 5h JK") == paigow("As Ks Qs 8s 5s")
    assert paigow("Ah Kh 8h 5h JK") > paigow("Ad Kd Jd 9d 5d")
    # no ace held: the joker is the ace of the suit
    assert paigow("Kh Qh 8h 5h JK") == paigow("Ad Kd Qd 8d 5d")
    # straight flush: 9-T-J-Q hearts + joker = K-high straight flush
    assert cat_of(t, "9h Th Jh Qh JK") is HandCategory.STRAIGHT_FLUSH
    assert paigow("9h Th Jh Qh JK") == paigow("9c Tc Jc Qc Kc")
    # royal flush through the joker, labelled ROYAL_FLUSH
    assert cat_of(t, "Th Jh Qh Kh JK") is HandCategory.ROYAL_FLUSH
    assert paigow("Th Jh Qh Kh JK") == paigow("Ts Js Qs Ks As")
    # suited ace-low straight through the joker
    assert paigow("Ah 2h 3h 4h JK") == paigow("Ad 2d 3d 4d 5d")


def test_paigow_joker_as_ace_and_five_aces():
    t = paigow_back_table()
    assert cat_of(t, "As Ah Ad Ac JK") is HandCategory.FIVE_ACES
    assert paigow("As Ah Ad Ac JK") == int(t.rank.max())
    assert paigow("As Ah Ad Ac JK") > paigow("Ts Js Qs Ks As")
    assert cat_of(t, "As Ah Ad Kc JK") is HandCategory.FOUR_OF_A_KIND
    assert paigow("As Ah Ad Kc JK") == paigow("As Ah Ad Ac Kc")
    # the joker is not a king: K K K Q + joker is trips with A-Q kickers
    assert cat_of(t, "Kd Ks Kh Qc JK") is HandCategory.THREE_OF_A_KIND
    assert paigow("Kd Ks Kh Qc JK") == paigow("Kd Ks Kh Qc As")
    assert paigow("Kd Ks Qc 7h JK") == paigow("Kh Kc Qd 7s As")
    # K K Q Q + joker: two pair with an ace kicker; A A K K + joker: aces full of kings
    assert cat_of(t, "Kd Ks Qc Qh JK") is HandCategory.TWO_PAIR
    assert paigow("Kd Ks Qc Qh JK") == paigow("Kh Kc Qd Qs As")
    assert cat_of(t, "Ad As Kc Kh JK") is HandCategory.FULL_HOUSE
    assert paigow("Ad As Kc Kh JK") == paigow("Ad As Ac Kc Kh")


def test_royal_label_only_in_paigow():
    for wheel in ("lowest", "second_highest"):
        t = paigow_back_table(PaiGowRules(ace_low_straight=wheel))
        assert cat_of(t, "Ts Js Qs Ks As") is HandCategory.ROYAL_FLUSH
        assert cat_of(t, "9s Ts Js Qs Ks") is HandCategory.STRAIGHT_FLUSH
    for fbs in (True, False):
        for wheel in ("lowest", "second_highest"):
            t = asia_high_table(asia_rules(fbs, wheel))
            assert not np.any(t.category == HandCategory.ROYAL_FLUSH)
            assert not np.any(t.category == HandCategory.FIVE_ACES)
            assert cat_of(t, "Js Qs Ks As") is HandCategory.STRAIGHT_FLUSH


def test_paigow_ties_across_suits():
    assert paigow("As Kh 7d 3c 2c") == paigow("Ad Kc 7s 3h 2d")
    assert paigow("Ts Js Qs Ks As") == paigow("Th Jh Qh Kh Ah")
    assert paigow("Ah Kh 8h 5h JK") == paigow("Ac Kc 8c 5c JK")


def test_reference_sanity():
    """A few direct checks of the reference itself (so a wrong reference can't pass quietly)."""
    assert ref_asia_key(parse_cards("As Ah Ad JK"))[0] == "FOUR_OF_A_KIND"
    assert ref_asia_key(parse_cards("Jh Qh Kh JK"))[0] == "STRAIGHT_FLUSH"
    assert (
        ref_asia_key(parse_cards("5h 6h 8h JK"), flush_beats_straight=False)[0] == "STRAIGHT_FLUSH"
    )
    assert ref_asia_key(parse_cards("5h 6d 8h JK"), flush_beats_straight=False)[0] == "STRAIGHT"
    assert ref_asia_key(parse_cards("Kd Ks Qc JK"))[0] == "PAIR"
    assert ref_paigow_key(parse_cards("As Ah Ad Ac JK"))[0] == "FIVE_ACES"
    assert ref_paigow_key(parse_cards("Th Jh Qh Kh JK"))[0] == "ROYAL_FLUSH"
    assert ref_paigow_key(parse_cards("Kd Ks Kh Qc JK"))[0] == "THREE_OF_A_KIND"
    a = ref_paigow_key(parse_cards("Ah Kh 8h 5h JK"))
    assert a == ref_paigow_key(parse_cards("As Ks Qs 8s 5s"))
    assert a > ref_paigow_key(parse_cards("Ad Kd Jd 9d 5d"))


# ----------------------------------------------------------------------------------------------
# order comparison shared by the sample and the exhaustive tests


def dense_positions(strengths: list) -> np.ndarray:
    """Dense rank of each strength tuple among the distinct tuples (0 = weakest)."""
    position = {s: i for i, s in enumerate(sorted(set(strengths)))}
    return np.array([position[s] for s in strengths], dtype=np.int64)


def assert_same_categories(hands: np.ndarray, got: np.ndarray, want: np.ndarray, what: str):
    bad = np.flatnonzero(got != want)
    if bad.size:
        examples = [
            f"{format_cards(hands[i])}: reference {HandCategory(int(want[i])).name}, "
            f"table {HandCategory(int(got[i])).name}"
            for i in bad[:10]
        ]
        pytest.fail(
            f"{what}: {bad.size} hands categorised differently, e.g.\n" + "\n".join(examples)
        )


def assert_same_order(hands: np.ndarray, got_rank: np.ndarray, want_dense: np.ndarray, what: str):
    """``got_rank`` must order ``hands`` exactly as ``want_dense`` does (same order, same ties)."""
    got_dense = np.unique(got_rank, return_inverse=True)[1].reshape(-1)
    if np.array_equal(got_dense, want_dense):
        return
    bad = np.flatnonzero(got_dense != want_dense)
    examples = [
        f"{format_cards(hands[i])}: reference dense {want_dense[i]}, table dense {got_dense[i]}"
        for i in bad[:10]
    ]
    pytest.fail(f"{what}: {bad.size} hands ordered differently, e.g.\n" + "\n".join(examples))


# ----------------------------------------------------------------------------------------------
# fast: random sample, reference evaluated directly on every hand (no grouping)


def _sample_hands(n_cards: int, count: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    hands = {tuple(sorted(rng.sample(range(53), n_cards))) for _ in range(count)}
    # plenty of joker hands and of one-suit hands (the interesting ones)
    hands |= {
        tuple(sorted([JOKER, *rng.sample(range(52), n_cards - 1)])) for _ in range(count // 4)
    }
    for _ in range(count // 8):
        suit, with_joker = rng.randrange(4), rng.random() < 0.5
        ranks = rng.sample(range(13), n_cards - with_joker)
        hands.add(tuple(sorted([r * 4 + suit for r in ranks] + [JOKER] * with_joker)))
    return np.array(sorted(hands), dtype=np.int64)


def _check_sample(table, ref, hands, what):
    keys = [ref(hand) for hand in hands.tolist()]
    idx = np.array([colex_index(hand) for hand in hands.tolist()])
    want_cat = np.array([HandCategory[name] for name, _ in keys], dtype=np.uint8)
    assert_same_categories(hands, table.category[idx], want_cat, what)
    assert_same_order(hands, table.rank[idx], dense_positions([s for _, s in keys]), what)


@pytest.mark.parametrize("fbs,wheel", ASIA_OPTIONS)
def test_asia_random_sample_matches_reference(fbs, wheel):
    rules = asia_rules(fbs, wheel)
    count = 20_000 if rules == AsiaRules() else 5_000
    hands = _sample_hands(4, count, seed=4_000 + 2 * fbs + rules.wheel_high)
    _check_sample(asia_high_table(rules), asia_ref(rules), hands, f"Asia sample {rules}")


@pytest.mark.parametrize("wheel", PAIGOW_OPTIONS)
def test_paigow_random_sample_matches_reference(wheel):
    rules = PaiGowRules(ace_low_straight=wheel)
    count = 20_000 if rules == PaiGowRules() else 5_000
    hands = _sample_hands(5, count, seed=5_000 + rules.wheel_high)
    _check_sample(paigow_back_table(rules), paigow_ref(rules), hands, f"Pai Gow sample {rules}")


# ----------------------------------------------------------------------------------------------
# pinned counts

# Published 52-card (no joker) counts.
NO_JOKER_4 = {
    "FOUR_OF_A_KIND": 13,
    "STRAIGHT_FLUSH": 44,
    "FLUSH": 2_816,
    "STRAIGHT": 2_772,
    "THREE_OF_A_KIND": 2_496,
    "TWO_PAIR": 2_808,
    "PAIR": 82_368,
    "HIGH_CARD": 177_408,
}
NO_JOKER_5 = {
    "ROYAL_FLUSH": 4,
    "STRAIGHT_FLUSH": 36,
    "FOUR_OF_A_KIND": 624,
    "FULL_HOUSE": 3_744,
    "FLUSH": 5_108,
    "STRAIGHT": 10_200,
    "THREE_OF_A_KIND": 54_912,
    "TWO_PAIR": 123_552,
    "PAIR": 1_098_240,
    "HIGH_CARD": 1_302_540,
}

# 53-card counts (with the joker), derived from the reference (printed once, then pinned here).
# No option changes a count: the ace-low straight option only moves one straight class, and
# flush_beats_straight=False moves no joker hand between FLUSH and STRAIGHT, because suited real
# cards that the joker can turn into a straight it can also turn into a straight flush.
ASIA_COUNTS = {
    "FOUR_OF_A_KIND": 17,
    "STRAIGHT_FLUSH": 180,
    "FLUSH": 3_824,
    "STRAIGHT": 4_812,
    "THREE_OF_A_KIND": 2_832,
    "TWO_PAIR": 3_096,
    "PAIR": 89_136,
    "HIGH_CARD": 188_928,
}
# distinct rank classes per category
ASIA_CLASS_COUNTS = {
    "FOUR_OF_A_KIND": 13,
    "STRAIGHT_FLUSH": 11,
    "FLUSH": 704,
    "STRAIGHT": 11,
    "THREE_OF_A_KIND": 156,
    "TWO_PAIR": 78,
    "PAIR": 858,
    "HIGH_CARD": 704,
}
ASIA_N_CLASSES = 2_535
PAIGOW_COUNTS = {
    "FIVE_ACES": 1,
    "ROYAL_FLUSH": 24,
    "STRAIGHT_FLUSH": 180,
    "FOUR_OF_A_KIND": 828,
    "FULL_HOUSE": 4_368,
    "FLUSH": 7_804,
    "STRAIGHT": 20_532,
    "THREE_OF_A_KIND": 63_360,
    "TWO_PAIR": 138_600,
    "PAIR": 1_215_024,
    "HIGH_CARD": 1_418_964,
}
PAIGOW_CLASS_COUNTS = {
    "FIVE_ACES": 1,
    "ROYAL_FLUSH": 1,
    "STRAIGHT_FLUSH": 9,
    "FOUR_OF_A_KIND": 156,
    "FULL_HOUSE": 156,
    "FLUSH": 1_277,
    "STRAIGHT": 10,
    "THREE_OF_A_KIND": 858,
    "TWO_PAIR": 858,
    "PAIR": 2_860,
    "HIGH_CARD": 1_277,
}
PAIGOW_N_CLASSES = 7_463


def test_pinned_counts_add_up():
    assert sum(NO_JOKER_4.values()) == comb(52, 4)
    assert sum(ASIA_COUNTS.values()) == comb(53, 4)
    assert sum(ASIA_CLASS_COUNTS.values()) == ASIA_N_CLASSES
    assert sum(NO_JOKER_5.values()) == comb(52, 5)
    assert sum(PAIGOW_COUNTS.values()) == comb(53, 5)
    assert sum(PAIGOW_CLASS_COUNTS.values()) == PAIGOW_N_CLASSES


def category_counts(categories: np.ndarray) -> dict[str, int]:
    counts = np.bincount(categories, minlength=len(HandCategory))
    return {HandCategory(c).name: int(counts[c]) for c in range(len(HandCategory)) if counts[c]}


# ----------------------------------------------------------------------------------------------
# slow: exhaustive


def colex_combinations(k: int, n: int = 53) -> np.ndarray:
    """All sorted k-subsets of range(n) as rows, row i being the combination of colex index i.

    Colex order lists first every combination whose largest card is k-1, then k, ...; those with
    largest card ``top`` are (the first C(top, k-1) rows of the (k-1)-combinations) + ``top``.
    """
    combos = np.arange(n, dtype=np.int64)[:, None]
    for j in range(2, k + 1):
        blocks = []
        for top in range(j - 1, n):
            prefix = combos[: comb(top, j - 1)]
            blocks.append(np.hstack([prefix, np.full((prefix.shape[0], 1), top, dtype=np.int64)]))
        combos = np.vstack(blocks)
    return combos


@cache
def hand_classes(k: int):
    """All k-card hands in colex order, grouped into classes of equal value under the spec.

    Returns ``(hands, representatives, inverse)``: ``hands[representatives[c]]`` is one hand of
    class ``c`` and ``inverse[i]`` is the class of hand ``i``.
    """
    hands = colex_combinations(k)
    assert hands.shape == (comb(53, k), k)
    assert np.all(np.diff(hands, axis=1) > 0)
    binom = np.array([[comb(c, i) for i in range(k + 1)] for c in range(53)], dtype=np.int64)
    index = sum(binom[hands[:, i], i + 1] for i in range(k))
    assert np.array_equal(index, np.arange(comb(53, k)))  # row i really has colex index i

    ranks = hands // 4  # the joker (52) becomes "rank" 13; sorted hands have it last
    suits = hands % 4
    has_joker = hands[:, -1] == JOKER
    suits[has_joker, -1] = suits[has_joker, 0]  # the joker doesn't spoil "all one suit"
    one_suit = np.all(suits == suits[:, :1], axis=1)
    code = one_suit.astype(np.int64)
    for i in range(k):
        code = code * 14 + ranks[:, i]
    _, representatives, inverse = np.unique(code, return_index=True, return_inverse=True)
    return hands, representatives, inverse.reshape(-1)


def reference_over_all_hands(k: int, ref):
    """(hands, dense reference rank, HandCategory, n_classes, category per class) for all hands."""
    hands, representatives, inverse = hand_classes(k)
    keys = [ref(hands[r].tolist()) for r in representatives]
    class_dense = dense_positions([s for _, s in keys])
    class_cat = np.array([HandCategory[name] for name, _ in keys], dtype=np.uint8)
    n_classes = int(class_dense.max()) + 1
    rank_class_cat = np.zeros(n_classes, dtype=np.uint8)
    rank_class_cat[class_dense] = class_cat
    return hands, class_dense[inverse], class_cat[inverse], n_classes, rank_class_cat


def _check_exhaustive(
    table, ref, k, counts, class_counts, n_classes_expected, no_joker_counts, what
):
    hands, want_dense, want_cat, n_classes, rank_class_cat = reference_over_all_hands(k, ref)

    # the reference against the published / pinned counts
    no_joker = hands[:, -1] != JOKER
    assert int(no_joker.sum()) == comb(52, k)
    assert category_counts(want_cat[no_joker]) == no_joker_counts
    assert category_counts(want_cat) == counts
    assert n_classes == n_classes_expected
    assert category_counts(rank_class_cat) == class_counts

    # the production table against the reference, hand by hand
    assert table.rank.shape == want_dense.shape
    assert_same_categories(hands, table.category, want_cat, what)
    assert_same_order(hands, table.rank, want_dense, what)
    assert table.n_classes == n_classes
    assert category_counts(table.class_category) == class_counts


@pytest.mark.slow
@pytest.mark.parametrize("fbs,wheel", ASIA_OPTIONS)
def test_asia_table_exhaustive(fbs, wheel):
    rules = asia_rules(fbs, wheel)
    _check_exhaustive(
        asia_high_table(rules), asia_ref(rules), 4,
        ASIA_COUNTS, ASIA_CLASS_COUNTS, ASIA_N_CLASSES, NO_JOKER_4, f"Asia {rules}",
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("wheel", PAIGOW_OPTIONS)
def test_paigow_table_exhaustive(wheel):
    rules = PaiGowRules(ace_low_straight=wheel)
    _check_exhaustive(
        paigow_back_table(rules), paigow_ref(rules), 5,
        PAIGOW_COUNTS, PAIGOW_CLASS_COUNTS, PAIGOW_N_CLASSES, NO_JOKER_5, f"Pai Gow {rules}",
    )  # fmt: skip
