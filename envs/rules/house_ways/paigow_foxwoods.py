"""Pai Gow Poker house way of Foxwoods (style ``paigow-foxwoods``).

Source: ``docs/references/paigow_foxwoods_house_way.md`` (the Foxwoods house way as the Wizard of
Odds lists it, restated as a rule list); every rule function below quotes the line it implements,
and every reading where the text is open is a numbered decision ``D1``..``D16`` in
``docs/house_ways.md (paigow-foxwoods)``.

Input: the sorted ``int64[7]`` hand every kernel takes (card = rank*4+suit, joker 52 last)::

    position   0    1    2    3    4    5    6
    card      4d   5s   6h   6c   Jd   Ad   JK      (ascending card integers)
    rank       2    3    4    4    9   12   12      (the joker counts as an ace, D1)

Output: a Pai Gow setting index 0..20 (:mod:`splitpoker.envs.rules.games.paigow`) and a rule id
(:data:`FOXWOODS_RULES`; the last, ``FALLBACK``, is never reached: the exhaustive check).

How a hand is read (all numba, one pass; the machinery is the IGW way's, imported from
:mod:`~splitpoker.envs.rules.house_ways.paigow_igw` and :mod:`~splitpoker.envs.rules.house_ways.common`):

1. Cards are grouped by rank with the joker as an ace (:func:`group_hand`, D1).
2. If five of the cards could make a straight or flush (:func:`may_make_straight_or_flush`), all
   21 settings are valued once (back dense rank ``br[s]``, front value ``fr[s]``) and the best
   back category tells whether the hand "can make" a straight, flush or straight flush.
3. The group pattern picks the rule (D2): five aces (10) > four of a kind (9) > two sets of trips
   (6) > full house (8) > three pairs (4) > straight/flush (7) for the four patterns rule 7 names
   (no pair, one pair, two pair, three of a kind) > three of a kind (5) > two pair (3) > one pair
   (2) > no pair (1).
4. A pair-type rule names the *ranks* of the two front cards; :func:`setting_for_front_ranks`
   turns them into the setting with the best back among those cards (so the joker and suits go
   where they make a straight or flush), ties to the lowest index (D3). A straight/flush rule
   picks among the settings with a straight-or-better back (:func:`best_front_at_least`).
5. A setting that would foul (none does) falls back to :func:`paigow_best_unfouled`.

The kernels take ``readings``, a bit set of the alternative readings of :class:`Reading` (0 = the
readings of docs/house_ways.md). The registry registers two of them: ``paigow-foxwoods`` (0) and
the option ``paigow-foxwoods-split-quads`` (:data:`Reading.SPLIT_HIGH_QUADS_WITH_PAIR`, D13); the
others exist to measure what each decision is worth
(:mod:`~splitpoker.envs.rules.house_ways.paigow_foxwoods_readings`).
"""

from __future__ import annotations

from enum import IntFlag

import numpy as np
from numba import njit

from splitpoker.envs.rules.enumeration import popcount
from splitpoker.envs.rules.games.paigow import (
    FRONT_POS,
    N_PAIGOW_SETTINGS,
    paigow_is_fouled,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.house_ways.common import (
    ACE,
    JACK,
    KING,
    SCRATCH_SIZE,
    SEVEN,
    TEN,
    may_make_straight_or_flush,
    paigow_best_unfouled,
    rank_of,
)
from splitpoker.envs.rules.house_ways.paigow_common import (
    CLASS_CATEGORY,
    drop_rank,
    rank_masks,
    setting_for_front_ranks,
    top_rank,
)
from splitpoker.envs.rules.house_ways.rule_ids import rule_ids
from splitpoker.envs.rules.ranking.categories import HandCategory as C
from splitpoker.envs.rules.ranking.hand_eval import two_rank_value

# --------------------------------------------------------------------------------------------
# rule ids (FOXWOODS_RULES[id] names them); published: append, never renumber

FOXWOODS_RULE_TABLE = (  # (enum name, human name); the position is the rule id
    ("NO_PAIR", "no pair: second and third highest in front"),
    ("ONE_PAIR", "one pair: pair in back, two highest others in front"),
    ("TWO_PAIR_HIGH", "two pair, jacks or better: split"),
    ("TWO_PAIR_MID_KEEP", "two pair, 7s-10s: both in back, ace in front"),
    ("TWO_PAIR_MID_SPLIT", "two pair, 7s-10s: split (no ace)"),
    ("TWO_PAIR_LOW_KEEP", "two pair, 3s-6s: both in back, king or ace in front"),
    ("TWO_PAIR_LOW_SPLIT", "two pair, 3s-6s: split (no king or ace)"),
    ("THREE_PAIRS", "three pairs: highest pair in front"),
    ("TRIP_ACES", "three aces: an ace and the next highest in front"),
    ("TRIPS", "three of a kind, kings or lower: trips in back"),
    ("TWO_TRIPS", "two sets of trips: a pair of the higher in front"),
    ("STR_NO_PAIR", "straight/flush, no pair: highest front that leaves it"),
    ("STR_ONE_PAIR", "straight/flush, one pair: highest front (pair or not) that leaves it"),
    ("STR_ONE_PAIR_ACE", "straight/flush, pair of 10s-Ks + ace: ace in front, pair in back"),
    ("STR_TWO_PAIR_HIGH", "straight/flush as two pair, jacks or better: split"),
    ("STR_TWO_PAIR_MID_KEEP", "straight/flush as two pair, 7s-10s: both in back, ace in front"),
    ("STR_TWO_PAIR_MID_SPLIT", "straight/flush as two pair, 7s-10s: split (no ace)"),
    ("STR_TWO_PAIR_LOW_KEEP", "straight/flush as two pair, 3s-6s: both in back, king or ace in front"),
    ("STR_TWO_PAIR_LOW_SPLIT", "straight/flush as two pair, 3s-6s: split (no king or ace)"),
    ("STR_TRIPS", "straight/flush, three of a kind: it in back, a pair in front"),
    ("STR_TRIPS_NO_PAIR", "straight/flush, three aces: it in back, no pair can go in front"),
    ("FULL_HOUSE", "full house: the pair in front"),
    ("FULL_HOUSE_TWO_PAIRS", "full house with two pairs: the higher pair in front"),
    ("QUADS_HIGH_SPLIT", "four of a kind, jacks or better: split"),
    ("QUADS_MID_KEEP", "four of a kind, 7s-10s: keep, king or better in front"),
    ("QUADS_MID_SPLIT", "four of a kind, 7s-10s: split"),
    ("QUADS_LOW", "four of a kind, 6s or lower: never split"),
    ("QUADS_PAIR", "four of a kind with a pair or trips: the pair in front"),
    ("QUADS_PAIR_SPLIT", "four of a kind, jacks or better, with a pair or trips: split (option)"),
    ("FIVE_ACES_SPLIT", "five aces: a pair of aces in front"),
    ("FIVE_ACES_KEEP", "five aces: a pair of kings in front"),
    ("STR_OTHER", "straight flush with four aces, a full house or three pairs: highest front (alternative)"),
    ("FALLBACK", "fallback"),
)
FoxwoodsRule, FOXWOODS_RULES = rule_ids("FoxwoodsRule", FOXWOODS_RULE_TABLE, __name__)
N_FOXWOODS_RULES = len(FOXWOODS_RULES)

R = FoxwoodsRule  # numba reads IntEnum members as integer constants


class Reading(IntFlag):
    """The alternative reading of a decision of docs/house_ways.md (paigow-foxwoods), one bit
    each; 0 is the way as decided. Only :attr:`SPLIT_HIGH_QUADS_WITH_PAIR` is a registered style
    (``paigow-foxwoods-split-quads``); the others are for measuring the decisions."""

    CATEGORY_PRECEDENCE = 1  # D2: the best five-card category picks the rule (SF over quads/full house; three pairs + straight -> rule 7)
    CARD_BY_CARD_FRONT = 2  # D8: rule 7's "highest two cards" compared card by card (a pair by its rank)
    STRAIGHT_FLUSH_STAYS = 4  # D8: a hand that makes a straight flush keeps one in back
    EXCEPTION_VS_NON_PAIR_FRONT = 8  # D9: the ace exception "improves" on the best non-pair front
    TRIP_ACES_WITHOUT_PAIR_BY_RULE_5 = 16  # D10: three aces whose straight/flush leaves no pair: rule 5
    SPLIT_HIGH_QUADS_WITH_PAIR = 32  # D13: four jacks-aces with a pair or trips: "always split"


ALL_READINGS = tuple(Reading)
#: the readings of the registered option ``paigow-foxwoods-split-quads`` (D13)
SPLIT_QUADS = np.int64(Reading.SPLIT_HIGH_QUADS_WITH_PAIR)

_STRAIGHT = np.int64(C.STRAIGHT)
_SF = np.int64(C.STRAIGHT_FLUSH)
_PAIR_FRONT = two_rank_value.py_func(0, 0)  # 2-2, the lowest pair: fronts >= this are pairs

_CATEGORY_PRECEDENCE = np.int64(Reading.CATEGORY_PRECEDENCE)
_CARD_BY_CARD_FRONT = np.int64(Reading.CARD_BY_CARD_FRONT)
_STRAIGHT_FLUSH_STAYS = np.int64(Reading.STRAIGHT_FLUSH_STAYS)
_EXCEPTION_VS_NON_PAIR_FRONT = np.int64(Reading.EXCEPTION_VS_NON_PAIR_FRONT)
_TRIP_ACES_WITHOUT_PAIR_BY_RULE_5 = np.int64(Reading.TRIP_ACES_WITHOUT_PAIR_BY_RULE_5)
_SPLIT_HIGH_QUADS_WITH_PAIR = np.int64(Reading.SPLIT_HIGH_QUADS_WITH_PAIR)


# --------------------------------------------------------------------------------------------
# rule 7's choice among settings


@njit(cache=True)
def best_front_at_least(hand, br, fr, cat_min, pairs_only):
    """Among settings whose back category is ``cat_min`` or better (and, with ``pairs_only``, whose
    front is a pair): the highest front ``fr``, then the best back, then the lowest index; -1 if
    none (D3, D8)."""
    best = -1
    bf = -1
    bb = -1
    for s in range(N_PAIGOW_SETTINGS):
        if CLASS_CATEGORY[br[s]] < cat_min:
            continue
        if pairs_only and rank_of(hand[FRONT_POS[s, 0]]) != rank_of(hand[FRONT_POS[s, 1]]):
            continue
        if fr[s] > bf or (fr[s] == bf and br[s] > bb):
            best = s
            bf = fr[s]
            bb = br[s]
    return best


@njit(cache=True)
def _card_by_card_fronts(hand, fr):
    """Alternative D8: ``fr[s]`` = the front's two ranks compared high card first, a pair as two
    cards of its rank (K-9 above 4-4, A-2 above K-K)."""
    for s in range(N_PAIGOW_SETTINGS):
        lo = rank_of(hand[FRONT_POS[s, 0]])
        hi = rank_of(hand[FRONT_POS[s, 1]])
        fr[s] = hi * 13 + lo


# --------------------------------------------------------------------------------------------
# the rules. Pair-type rules return the ranks of the two front cards and a rule id. Rank masks:
# m1 singletons, m2 pairs, m3 trips (the joker counted as an ace, D1). Each docstring's first
# paragraph is the reference's line, word for word (a test checks it).


@njit(cache=True)
def rule_no_pair(m1):
    """1. No pair: the second and third highest cards in front.

    With the joker (an ace, D1) it is the highest card and stays in back (D4)."""
    a = top_rank(m1)
    b = top_rank(drop_rank(m1, a))
    return b, top_rank(drop_rank(drop_rank(m1, a), b)), R.NO_PAIR


@njit(cache=True)
def rule_one_pair(m1):
    """2. One pair: the pair in back, the two highest other cards in front."""
    a = top_rank(m1)
    return a, top_rank(drop_rank(m1, a)), R.ONE_PAIR


@njit(cache=True)
def rule_two_pair(m2, m1):
    """3. Two pair, by the rank of the higher pair:
       - aces, kings, queens or jacks: split (the lower pair in front);
       - tens down to sevens: keep both pairs in back if an ace can go in front; otherwise split;
       - sixes down to threes: keep both pairs in back if a king or an ace can go in front;
         otherwise split.

    "An ace", "a king" are singletons, the joker an ace; kept, the front is that card and the
    next highest singleton; split, the lower pair in front (D5). Returns the front ranks and the
    branch 0..4 (the order of the ``TWO_PAIR_*`` ids)."""
    hi = top_rank(m2)
    lo = top_rank(drop_rank(m2, hi))
    s1 = top_rank(m1)
    s2 = top_rank(drop_rank(m1, s1))
    if hi >= JACK:
        return lo, lo, 0
    if hi >= SEVEN:
        if s1 == ACE:
            return s1, s2, 1
        return lo, lo, 2
    if s1 >= KING:
        return s1, s2, 3
    return lo, lo, 4


@njit(cache=True)
def rule_three_pairs(m2):
    """4. Three pair: the highest pair in front."""
    p = top_rank(m2)
    return p, p, R.THREE_PAIRS


@njit(cache=True)
def rule_three_of_a_kind(m3, m1):
    """5. Three of a kind:
       - aces: an ace and the next highest card in front (a pair of aces stays in back);
       - kings and lower: the trips in back, the two highest other cards in front.

    Three aces may be two aces and the joker; "the next highest card" is the highest singleton
    (D6)."""
    s1 = top_rank(m1)
    if top_rank(m3) == ACE:
        return ACE, s1, R.TRIP_ACES
    return s1, top_rank(drop_rank(m1, s1)), R.TRIPS


@njit(cache=True)
def rule_two_trips(m3):
    """6. Two sets of three of a kind: a pair from the higher set in front.

    The back: the lower set, the third card of the higher and the odd card (D7)."""
    t = top_rank(m3)
    return t, t, R.TWO_TRIPS


@njit(cache=True)
def rule_full_house(m2):
    """8. Full house: the highest pair that may go in front goes in front (the trips stay in
    back).

    Any pair outside the trips may (the trips in back beat it); with two pairs, the higher (D12)."""
    p = top_rank(m2)
    return p, p, R.FULL_HOUSE if popcount(m2) == 1 else R.FULL_HOUSE_TWO_PAIRS


@njit(cache=True)
def rule_four_of_a_kind(q, m3, m2, m1, readings):
    """9. Four of a kind:
       - aces, kings, queens or jacks: always split (two pairs);
       - tens down to sevens: keep the four in back if at least a king can go in front; otherwise
         split;
       - sixes and lower: never split;
       - four of a kind with a pair (or with three of a kind): the pair in front.

    ``q`` is the rank of the four, ``m3, m2, m1`` describe the other three cards. Split: a pair of
    the four in front. Kept: the two highest of the other three in front. "At least a king" = a
    king or an ace (the joker) among them. The pair bullet is read over "always split" (D13; the
    option reads "always split" first)."""
    if m3 or m2:
        if q >= JACK and readings & _SPLIT_HIGH_QUADS_WITH_PAIR:
            return q, q, R.QUADS_PAIR_SPLIT
        p = top_rank(m3) if m3 else top_rank(m2)
        return p, p, R.QUADS_PAIR
    a = top_rank(m1)
    b = top_rank(drop_rank(m1, a))
    if q >= JACK:
        return q, q, R.QUADS_HIGH_SPLIT
    if q >= SEVEN:
        if a >= KING:
            return a, b, R.QUADS_MID_KEEP
        return q, q, R.QUADS_MID_SPLIT
    return a, b, R.QUADS_LOW


@njit(cache=True)
def rule_five_aces(m2):
    """10. Five aces: a pair of aces in front, unless a pair of kings can go in front.

    No other pair keeps the five aces together (D14)."""
    if (m2 >> KING) & 1:
        return KING, KING, R.FIVE_ACES_KEEP
    return ACE, ACE, R.FIVE_ACES_SPLIT


@njit(cache=True)
def rule_straight_no_pair(hand, br, fr, cat_min):
    """7. Straight, flush, straight flush (the hand can make one):
       - with no pair: the two highest cards in front that still leave a straight, flush or
         straight flush in back;

    The highest front among the settings whose back is a straight or better (D8)."""
    return best_front_at_least(hand, br, fr, cat_min, False), R.STR_NO_PAIR


@njit(cache=True)
def rule_straight_one_pair(hand, back_rank, br, fr, cat_min, m2, m1, readings):
    """- with one pair: the highest two cards in front (a pair or not) that still leave a
    straight, flush or straight flush in back; exception: holding an ace and a pair of kings,
    queens, jacks or tens, play the ace in front and the pair in back if that improves the front
    hand;

    The highest front (a pair above any non-pair) with a straight-or-better back (D8). The
    exception's front is the ace (the joker) and the highest other singleton, the pair in back
    (rule 2); it is played if that front is strictly higher than the first part's (D9). Returns a
    setting (``ra = -1``) or front ranks."""
    s = best_front_at_least(hand, br, fr, cat_min, False)
    p = top_rank(m2)
    if TEN <= p <= KING and (m1 >> ACE) & 1:
        other = top_rank(drop_rank(m1, ACE))
        if readings & _EXCEPTION_VS_NON_PAIR_FRONT:
            base = best_front_at_least_non_pair(hand, back_rank, br, cat_min)
        else:
            base = paigow_setting_ranks(hand, s, back_rank)[1]
        if two_rank_value(ACE, other) > base:
            return -1, ACE, other, R.STR_ONE_PAIR_ACE
    return s, -1, -1, R.STR_ONE_PAIR


@njit(cache=True)
def best_front_at_least_non_pair(hand, back_rank, br, cat_min):
    """Alternative D9: the best non-pair front value with a ``cat_min``-or-better back (-1 if
    none)."""
    best = -1
    for s in range(N_PAIGOW_SETTINGS):
        if CLASS_CATEGORY[br[s]] >= cat_min:
            f = paigow_setting_ranks(hand, s, back_rank)[1]
            if best < f < _PAIR_FRONT:
                best = f
    return best


@njit(cache=True)
def rule_straight_trips(hand, br, fr, cat_min):
    """- with three of a kind: the straight or flush in back, a pair in front.

    Among straight-or-better backs with a pair in front, the highest pair, then the best back. If
    no pair can go in front (three aces of which the straight needs an ace and the joker), the
    highest front that leaves it (D10)."""
    s = best_front_at_least(hand, br, fr, cat_min, True)
    if s >= 0:
        return s, R.STR_TRIPS
    return best_front_at_least(hand, br, fr, cat_min, False), R.STR_TRIPS_NO_PAIR


# --------------------------------------------------------------------------------------------
# the house way


@njit(cache=True)
def house_way_foxwoods_core(hand, back_rank, back_to_two, readings, br, fr, rk, gr, gs, gc):
    """(setting, rule id) of the sorted hand under the Foxwoods way read with ``readings`` (0 =
    as decided); ``br``, ``fr`` (21 each) and ``rk, gr, gs, gc`` (:data:`SCRATCH_SIZE` each) are
    work arrays."""
    m1, m2, m3, q, five = rank_masks(hand, rk, gr, gs, gc)
    n2 = popcount(m2)
    n3 = popcount(m3)

    # can the hand make a straight, flush or straight flush? (the 21 backs, if it may)
    have_br = may_make_straight_or_flush(hand, 5)
    best_cat = np.int64(C.HIGH_CARD)
    if have_br:
        for s in range(N_PAIGOW_SETTINGS):
            b, f = paigow_setting_ranks(hand, s, back_rank)
            br[s] = b
            fr[s] = f
            if CLASS_CATEGORY[b] > best_cat:
                best_cat = CLASS_CATEGORY[b]
        if readings & _CARD_BY_CARD_FRONT:
            _card_by_card_fronts(hand, fr)
    straight = best_cat >= _STRAIGHT
    cat_min = _SF if readings & _STRAIGHT_FLUSH_STAYS and best_cat >= _SF else _STRAIGHT
    by_category = (readings & _CATEGORY_PRECEDENCE) != 0

    s = -1
    ra = -1
    rb = -1
    rule = R.FALLBACK
    if five:
        ra, rb, rule = rule_five_aces(m2)
    elif by_category and ((best_cat >= _SF and (q >= 0 or n3 >= 1 and n2 >= 1)) or (straight and n2 == 3)):
        s, rule = best_front_at_least(hand, br, fr, cat_min, False), R.STR_OTHER
    elif q >= 0:
        ra, rb, rule = rule_four_of_a_kind(q, m3, m2, m1, readings)
    elif n3 == 2:
        ra, rb, rule = rule_two_trips(m3)
    elif n3 == 1 and n2 >= 1:
        ra, rb, rule = rule_full_house(m2)
    elif n2 == 3:
        ra, rb, rule = rule_three_pairs(m2)
    elif straight:
        if n3 == 1:
            s, rule = rule_straight_trips(hand, br, fr, cat_min)
            if rule == R.STR_TRIPS_NO_PAIR and readings & _TRIP_ACES_WITHOUT_PAIR_BY_RULE_5:
                s = -1
                ra, rb, rule = rule_three_of_a_kind(m3, m1)
        elif n2 == 2:
            ra, rb, k = rule_two_pair(m2, m1)
            rule = R.STR_TWO_PAIR_HIGH + k
        elif n2 == 1:
            s, ra, rb, rule = rule_straight_one_pair(hand, back_rank, br, fr, cat_min, m2, m1, readings)
        else:
            s, rule = rule_straight_no_pair(hand, br, fr, cat_min)
    elif n3 == 1:
        ra, rb, rule = rule_three_of_a_kind(m3, m1)
    elif n2 == 2:
        ra, rb, k = rule_two_pair(m2, m1)
        rule = R.TWO_PAIR_HIGH + k
    elif n2 == 1:
        ra, rb, rule = rule_one_pair(m1)
    else:
        ra, rb, rule = rule_no_pair(m1)
    if s < 0 and ra >= 0:
        s = setting_for_front_ranks(hand, ra, rb, br, have_br)
    if s < 0:
        return paigow_best_unfouled(hand, back_rank, back_to_two), R.FALLBACK
    b, f = paigow_setting_ranks(hand, s, back_rank)
    if paigow_is_fouled(b, f, back_to_two):
        return paigow_best_unfouled(hand, back_rank, back_to_two), R.FALLBACK
    return s, rule


@njit(cache=True)
def house_way_foxwoods_with_rule(hand, back_rank, back_to_two, readings=0):
    """(setting index 0..20, rule id into :data:`FOXWOODS_RULES`) of the sorted ``int64[7]`` hand
    (joker 52 last) under the Foxwoods house way (``readings``: a :class:`Reading` bit set, 0 as
    decided). ``back_rank`` = ``paigow_back_table(rules).rank``, ``back_to_two`` =
    ``table.class_to_two.astype(np.int64)``."""
    w = np.empty(2 * N_PAIGOW_SETTINGS + 4 * SCRATCH_SIZE, dtype=np.int64)  # one allocation, six work arrays
    g = 2 * N_PAIGOW_SETTINGS
    return house_way_foxwoods_core(hand, back_rank, back_to_two, readings, w[:N_PAIGOW_SETTINGS],
                                   w[N_PAIGOW_SETTINGS:g], w[g:g + SCRATCH_SIZE],
                                   w[g + SCRATCH_SIZE:g + 2 * SCRATCH_SIZE],
                                   w[g + 2 * SCRATCH_SIZE:g + 3 * SCRATCH_SIZE], w[g + 3 * SCRATCH_SIZE:])


@njit(cache=True)
def house_way_foxwoods(hand, back_rank, back_to_two, readings=0):
    """Setting index 0..20 of the sorted ``int64[7]`` hand under the Foxwoods house way."""
    return house_way_foxwoods_with_rule(hand, back_rank, back_to_two, readings)[0]


__all__ = [
    "ALL_READINGS", "SPLIT_QUADS", "FOXWOODS_RULES", "FOXWOODS_RULE_TABLE", "N_FOXWOODS_RULES", "FoxwoodsRule", "Reading",
    "best_front_at_least", "house_way_foxwoods", "house_way_foxwoods_core", "house_way_foxwoods_with_rule",
]
