"""Pai Gow Poker house way of IGW online-casino software (seed 003, style ``paigow-igw``).

Source: ``003_d88cd9e8f268a7c8.txt`` (Finnish) and its English rendering
``003_d88cd9e8f268a7c8.en.md``; every rule function below quotes the English sentence it
implements. Decisions where the seed is ambiguous: ``docs/house_ways.md (paigow-igw)``.

How a hand is read (all numba, one pass):

1. Groups of equal rank (:func:`~splitpoker.envs.rules.house_ways.common.group_hand`) are counted with the
   joker as an ace (seed 004: "The Joker can only be used as an Ace or to complete a straight, a
   flush or a straight flush").
2. The hand's best five-card category picks the rule, best first: five aces (13), royal flush
   (12), straight flush (11), four of a kind (10), full house (6, 8, 9), flush / straight (7),
   three of a kind (5), three pairs (4), two pair (3), one pair (2), no pair (1). If a cheap
   pre-check (:func:`~splitpoker.envs.rules.house_ways.common.may_make_straight_or_flush`) finds that five
   of the cards could make a straight or flush, all 21 settings are evaluated once (back dense rank ``br[s]``, front value ``fr[s]``)
   and the category is the best of the 21 backs, so straights and flushes the joker completes come
   from the five-card table; otherwise the groups alone give it (about 85% of hands).
3. A pair-type rule names the *ranks* of the two front cards; :func:`setting_for_front_ranks`
   turns them into the setting with the best back among the cards of those ranks (so the joker and
   suits go where they make a straight or flush), ties to the lowest setting index.
4. A straight / flush rule picks, among the settings whose back is in the named categories, the
   highest front, then the best back, then the lowest index (:func:`best_front_in`).
5. A result that would foul (none does: the exhaustive check over all C(53, 7) hands finds none)
   or a hand no rule covers falls back to :func:`paigow_best_unfouled` with rule ``"fallback"``.

Rule ids: :class:`IgwRule` (texts ``IGW_RULES``), below; batch work:
:mod:`splitpoker.envs.rules.house_ways.batch` with ``PAIGOW_IGW_ID``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.enumeration import popcount
from splitpoker.envs.rules.games.paigow import (
    N_PAIGOW_SETTINGS,
    paigow_is_fouled,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.house_ways.common import (
    ACE,
    FIVE,
    JACK,
    KING,
    SCRATCH_SIZE,
    SEVEN,
    SIX,
    TEN,
    TWO,
    may_make_straight_or_flush,
    paigow_best_unfouled,
)
from splitpoker.envs.rules.house_ways.paigow_common import (
    CLASS_CATEGORY,
    best_front_in,
    drop_rank,
    rank_masks,
    setting_for_front_ranks,
    top_rank,
)
from splitpoker.envs.rules.house_ways.rule_ids import rule_ids
from splitpoker.envs.rules.ranking.categories import HandCategory as C
from splitpoker.envs.rules.ranking.hand_eval import two_rank_value

# --------------------------------------------------------------------------------------------
# rule ids (IGW_RULES[id] names them)

IGW_RULE_TABLE = (  # (enum name, human name); the position is the rule id
    ("NO_PAIR", "no pair: second and third highest in front"),
    ("ONE_PAIR", "one pair: pair in back, two highest singletons in front"),
    ("TWO_PAIR_SPLIT", "two pair: split"),
    ("TWO_PAIR_LOW", "two pair: both 6s or lower"),
    ("TWO_PAIR_TENS_ACE", "two pair: 10s or lower + ace"),
    ("TWO_PAIR_FACE_FIVES_ACE", "two pair: face + 5s or lower + ace"),
    ("THREE_PAIRS", "three pairs: highest pair in front"),
    ("TRIPS", "three of a kind: trips in back"),
    ("TRIP_ACES", "three of a kind: split three aces"),
    ("TWO_TRIPS", "two sets of trips: pair of the higher in front"),
    ("STRAIGHT", "straight: in back, highest possible front"),
    ("FLUSH", "flush: in back, highest possible front"),
    ("BOTH_STRAIGHT", "straight and flush: straight in back (higher front, king-high or better)"),
    ("BOTH_FLUSH", "straight and flush: flush in back"),
    ("STR_2P_ACES", "straight/flush: play as two pair (aces and any other pair)"),
    ("STR_2P_HIGH", "straight/flush: play as two pair (both pairs 10s or higher)"),
    ("STR_2P_ACE", "straight/flush: play as two pair (both pairs 10s or lower + ace)"),
    ("FULL_HOUSE_SPLIT", "full house: split"),
    ("FULL_HOUSE_DEUCES_AK", "full house: pair of 2s with ace and king, keep"),
    ("FULL_HOUSE_TWO_PAIRS", "full house with trips and two pairs: highest pair in front"),
    ("QUADS_LOW", "four of a kind 2-6: keep together"),
    ("QUADS_MID_SPLIT", "four of a kind 7-10: split"),
    ("QUADS_MID_KEEP", "four of a kind 7-10: keep, ace+face or better in front"),
    ("QUADS_HIGH_SPLIT", "four of a kind J-K: split"),
    ("QUADS_HIGH_KEEP", "four of a kind J-K: keep, pair of 10s or better in front"),
    ("QUADS_ACES_SPLIT", "four aces: split"),
    ("QUADS_ACES_KEEP", "four aces: keep, pair of 7s or better in front"),
    ("SF_KEEP", "straight flush: in back"),
    ("SF_2P_ACES", "straight flush: play as two pair (aces and any other pair)"),
    ("SF_2P_HIGH", "straight flush: play as two pair (both pairs 10s or higher)"),
    ("SF_2P_ACE", "straight flush: play as two pair (both pairs 10s or lower + ace)"),
    ("SF_BREAK", "straight flush: straight or flush instead, ace+face or pair in front"),
    ("ROYAL_KEEP", "royal flush: in back"),
    ("ROYAL_2P_ACES", "royal flush: play as two pair (aces and any other pair)"),
    ("ROYAL_2P_HIGH", "royal flush: play as two pair (both pairs 10s or higher)"),
    ("ROYAL_BREAK", "royal flush: break up, straight or straight flush with king or better in front"),
    ("FIVE_ACES_SPLIT", "five aces: split"),
    ("FIVE_ACES_KEEP", "five aces: keep, pair of kings in front"),
    ("FALLBACK", "fallback"),
)
IgwRule, IGW_RULES = rule_ids("IgwRule", IGW_RULE_TABLE, __name__)
N_IGW_RULES = len(IGW_RULES)


R = IgwRule  # numba reads IntEnum members as integer constants

_HIGH_CARD = np.int64(C.HIGH_CARD)
_STRAIGHT = np.int64(C.STRAIGHT)
_FLUSH = np.int64(C.FLUSH)
_FULL_HOUSE = np.int64(C.FULL_HOUSE)
_QUADS = np.int64(C.FOUR_OF_A_KIND)
_SF = np.int64(C.STRAIGHT_FLUSH)
_ROYAL = np.int64(C.ROYAL_FLUSH)
_FIVE_ACES = np.int64(C.FIVE_ACES)


KING_HIGH = two_rank_value.py_func(KING, TWO)  # K-2, the lowest king-high front
ACE_FACE = two_rank_value.py_func(ACE, JACK)  # A-J, the lowest "ace and a face card"


# --------------------------------------------------------------------------------------------
# the rules. Pair-type rules return the ranks of the two front cards and a rule id.
# Rank masks: m1 singletons, m2 pairs, m3 trips (joker counted as an ace).


@njit(cache=True)
def rule_no_pair(m1):
    """1. No pair: put the second and third highest cards in front."""
    a = top_rank(m1)
    b = top_rank(drop_rank(m1, a))
    c = top_rank(drop_rank(drop_rank(m1, a), b))
    return b, c, R.NO_PAIR


@njit(cache=True)
def rule_one_pair(m1):
    """2. One pair: put the pair in back and the two highest singletons in front."""
    a = top_rank(m1)
    b = top_rank(drop_rank(m1, a))
    return a, b, R.ONE_PAIR


@njit(cache=True)
def rule_two_pair(m2, m1):
    """3. Two pair: split the two pairs [higher pair in back, lower pair in front], except in
    these three situations, where both pairs are played in back [and the best remaining
    singletons in front]:
       - both pairs are 6s or lower;
       - both pairs are 10s or lower and there is also an ace [the ace goes in front];
       - one pair of face cards, one pair of 5s or lower, and an ace [the ace goes in front].
    """
    hi = top_rank(m2)
    lo = top_rank(drop_rank(m2, hi))
    s1 = top_rank(m1)
    s2 = top_rank(drop_rank(m1, s1))
    ace = s1 == ACE
    if hi <= SIX:
        return s1, s2, R.TWO_PAIR_LOW
    if hi <= TEN and ace:
        return s1, s2, R.TWO_PAIR_TENS_ACE
    if JACK <= hi <= KING and lo <= FIVE and ace:
        return s1, s2, R.TWO_PAIR_FACE_FIVES_ACE
    return lo, lo, R.TWO_PAIR_SPLIT


@njit(cache=True)
def rule_three_pairs(m2):
    """4. Three pairs: play the highest pair in front."""
    p = top_rank(m2)
    return p, p, R.THREE_PAIRS


@njit(cache=True)
def rule_three_of_a_kind(m3, m1):
    """5. Three of a kind: play the trips in back, but split three aces [pair of aces in back,
    one ace in front]."""
    t = top_rank(m3)
    s1 = top_rank(m1)
    if t == ACE:
        return ACE, s1, R.TRIP_ACES
    return s1, top_rank(drop_rank(m1, s1)), R.TRIPS


@njit(cache=True)
def rule_two_trips(m3):
    """6. Two sets of three of a kind: play the higher [pair] in front [a pair from the higher
    trips in front, the lower trips in back]."""
    t = top_rank(m3)
    return t, t, R.TWO_TRIPS


@njit(cache=True)
def rule_full_house(m2, m1):
    """8. Full house: split [trips in back, pair in front], except when the pair is 2s and an ace
    and a king can be played in front [then keep the full house in back]."""
    p = top_rank(m2)
    if p == TWO and (m1 >> ACE) & 1 and (m1 >> KING) & 1:
        return ACE, KING, R.FULL_HOUSE_DEUCES_AK
    return p, p, R.FULL_HOUSE_SPLIT


@njit(cache=True)
def rule_full_house_two_pairs(m2):
    """9. Full house with trips and two pairs: play the highest pair in front."""
    p = top_rank(m2)
    return p, p, R.FULL_HOUSE_TWO_PAIRS


@njit(cache=True)
def _best_two_of(m3, m2, m1):
    """Ranks of the best two-card front from the cards outside a four of a kind."""
    if m3:
        t = top_rank(m3)
        return t, t
    if m2:
        p = top_rank(m2)
        return p, p
    a = top_rank(m1)
    return a, top_rank(drop_rank(m1, a))


@njit(cache=True)
def rule_four_of_a_kind(q, m3, m2, m1):
    """10. Four of a kind: play according to the rank of the four of a kind:
        - 2 through 6: always keep together.
        - 7 through 10: split [a pair in front, a pair in back] unless an ace and a face card or
          better can be played in front.
        - Jacks through kings (the Finnish says "from giant to king", a mistranslation of Jack):
          split unless a pair of 10s or better can also be played [in front].
        - Aces: split unless a pair of 7s or better can also be played [in front].

    ``q`` is the rank of the four of a kind; ``m3, m2, m1`` describe the other three cards.
    Kept together, the best two of the other three go in front."""
    a, b = _best_two_of(m3, m2, m1)
    v = two_rank_value(a, b)
    if q <= SIX:
        return a, b, R.QUADS_LOW
    if q <= TEN:
        if v >= ACE_FACE:
            return a, b, R.QUADS_MID_KEEP
        return q, q, R.QUADS_MID_SPLIT
    if q <= KING:
        if a == b and a >= TEN:
            return a, b, R.QUADS_HIGH_KEEP
        return q, q, R.QUADS_HIGH_SPLIT
    if a == b and a >= SEVEN:
        return a, b, R.QUADS_ACES_KEEP
    return q, q, R.QUADS_ACES_SPLIT


@njit(cache=True)
def rule_five_aces(m2):
    """13. Five aces: split [three aces in back, a pair of aces in front] unless a pair of kings
    can be played in front."""
    if (m2 >> KING) & 1:
        return KING, KING, R.FIVE_ACES_KEEP
    return ACE, ACE, R.FIVE_ACES_SPLIT


@njit(cache=True)
def _play_as_two_pair_reason(m2, m1, with_tens_ace):
    """7. [...] except play it as two pair [i.e. use the two-pair rule] if any of the following
    holds: aces and any other pair; both pairs are 10s or higher; both pairs are 10s or lower and
    there is an ace [singleton].
    11. [...] except play it as two pair when: aces and any other pair; both pairs are 10s or
    higher; both pairs are 10s or lower and there is an ace.
    12. [...] except play it as two pair when: aces and any other pair; both pairs are 10s or
    higher.

    For a hand that is exactly two pair: 0 aces and any other pair, 1 both pairs 10s or higher,
    2 both pairs 10s or lower and an ace (only if ``with_tens_ace``; rule 12 omits it); -1 none.
    The caller then applies :func:`rule_two_pair`."""
    hi = top_rank(m2)
    lo = top_rank(drop_rank(m2, hi))
    if hi == ACE:
        return 0
    if lo >= TEN:
        return 1
    if with_tens_ace and hi <= TEN and (m1 >> ACE) & 1:
        return 2
    return -1


@njit(cache=True)
def rule_straight_or_flush(br, fr):
    """7. Straights and flushes: always play the straight or flush in back, except play it as two
    pair [i.e. use the two-pair rule] if any of the following holds: aces and any other pair; both
    pairs are 10s or higher; both pairs are 10s or lower and there is an ace [singleton].
    With a six- or seven-card straight or flush, put the highest possible hand in front and keep the
    straight or flush in back. If the hand holds both a straight and a flush, put in back the one
    that leaves the highest possible front hand, as long as that front hand is king-high or better;
    otherwise play the flush in back.

    (The "play it as two pair" exception is :func:`_play_as_two_pair_reason`.) Every straight or
    flush in back takes the highest front it allows; with both, the straight only if its front is
    higher than the flush's and king-high or better."""
    sf = best_front_in(br, fr, _FLUSH, _FLUSH)
    st = best_front_in(br, fr, _STRAIGHT, _STRAIGHT)
    if sf >= 0 and st >= 0:
        if fr[st] > fr[sf] and fr[st] >= KING_HIGH:
            return st, R.BOTH_STRAIGHT
        return sf, R.BOTH_FLUSH
    if sf >= 0:
        return sf, R.FLUSH
    return st, R.STRAIGHT


@njit(cache=True)
def _keep_or_break(br, fr, cat, alt_a, alt_b, least_front, keep, brk):
    """The best-front setting with a ``cat`` back (rule ``keep``), unless its front is below
    ``least_front`` and a back of category ``alt_a``/``alt_b`` allows a front of at least that
    (rule ``brk``)."""
    s = best_front_in(br, fr, cat, cat)
    if fr[s] >= least_front:
        return s, keep
    alt = best_front_in(br, fr, alt_a, alt_b)
    if alt >= 0 and fr[alt] >= least_front:
        return alt, brk
    return s, keep


@njit(cache=True)
def rule_straight_flush(br, fr):
    """11. Straight flush: play the straight flush in back, except play it as two pair when: aces
    and any other pair; both pairs are 10s or higher; both pairs are 10s or lower and there is an
    ace. Play a [plain] straight or flush [in back] instead if that lets an ace and a face card, or
    a pair, be played in front.

    (The two-pair exception is handled by the caller.) The straight flush in back takes the
    highest front it allows; it is broken only if that front is below ace-face."""
    return _keep_or_break(br, fr, _SF, _STRAIGHT, _FLUSH, ACE_FACE, R.SF_KEEP, R.SF_BREAK)


@njit(cache=True)
def rule_royal_flush(br, fr):
    """12. Royal flush: play the royal flush in back, except play it as two pair when: aces and
    any other pair; both pairs are 10s or higher. Break up the royal flush if a straight or a
    straight flush can be played in back with a king or better in front.

    (The two-pair exception is handled by the caller.) The royal flush in back takes the highest
    front it allows; it is broken only if that front is below king-high."""
    return _keep_or_break(br, fr, _ROYAL, _STRAIGHT, _SF, KING_HIGH, R.ROYAL_KEEP, R.ROYAL_BREAK)


# --------------------------------------------------------------------------------------------
# the house way


@njit(cache=True)
def house_way_igw_core(hand, back_rank, back_to_two, br, fr, rk, gr, gs, gc):
    # rank masks by multiplicity (the joker is an ace)
    m1, m2, m3, q, five = rank_masks(hand, rk, gr, gs, gc)
    n2 = popcount(m2)
    n3 = popcount(m3)
    two_pair = n2 == 2 and n3 == 0 and q < 0

    # the hand's best five-card category: from the 21 backs if a straight or flush may exist,
    # else from the groups alone
    have_br = may_make_straight_or_flush(hand, 5)
    if have_br:
        best_cat = _HIGH_CARD
        for s in range(N_PAIGOW_SETTINGS):
            b, f = paigow_setting_ranks(hand, s, back_rank)
            br[s] = b
            fr[s] = f
            c = CLASS_CATEGORY[b]
            if c > best_cat:
                best_cat = c
    elif five:
        best_cat = _FIVE_ACES
    elif q >= 0:
        best_cat = _QUADS
    elif n3 == 2 or (n3 == 1 and n2 >= 1):
        best_cat = _FULL_HOUSE
    else:
        best_cat = _HIGH_CARD  # below a straight: the groups decide

    s = -1
    rule = R.FALLBACK
    ra = -1
    rb = -1
    if best_cat == _FIVE_ACES:
        ra, rb, rule = rule_five_aces(m2)
    elif best_cat == _ROYAL or best_cat == _SF:
        reason = _play_as_two_pair_reason(m2, m1, best_cat == _SF) if two_pair else -1
        if reason >= 0:
            ra, rb, _ = rule_two_pair(m2, m1)
            rule = (R.SF_2P_ACES if best_cat == _SF else R.ROYAL_2P_ACES) + reason
        elif best_cat == _SF:
            s, rule = rule_straight_flush(br, fr)
        else:
            s, rule = rule_royal_flush(br, fr)
    elif best_cat == _QUADS:
        ra, rb, rule = rule_four_of_a_kind(q, m3, m2, m1)
    elif best_cat == _FULL_HOUSE:
        if n3 == 2:
            ra, rb, rule = rule_two_trips(m3)
        elif n2 == 2:
            ra, rb, rule = rule_full_house_two_pairs(m2)
        else:
            ra, rb, rule = rule_full_house(m2, m1)
    elif best_cat == _FLUSH or best_cat == _STRAIGHT:
        reason = _play_as_two_pair_reason(m2, m1, True) if two_pair else -1
        if reason >= 0:
            ra, rb, _ = rule_two_pair(m2, m1)
            rule = R.STR_2P_ACES + reason
        else:
            s, rule = rule_straight_or_flush(br, fr)
    elif n3 == 1:
        ra, rb, rule = rule_three_of_a_kind(m3, m1)
    elif n2 == 3:
        ra, rb, rule = rule_three_pairs(m2)
    elif n2 == 2:
        ra, rb, rule = rule_two_pair(m2, m1)
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
def house_way_igw_with_rule(hand, back_rank, back_to_two):
    """(setting index 0..20, rule id into :data:`IGW_RULES`) of the sorted ``int64[7]`` hand
    (joker 52 last) under the IGW house way. ``back_rank`` = ``paigow_back_table(rules).rank``,
    ``back_to_two`` = ``table.class_to_two.astype(np.int64)``."""
    w = np.empty(2 * N_PAIGOW_SETTINGS + 4 * SCRATCH_SIZE, dtype=np.int64)  # one allocation, six work arrays
    g = 2 * N_PAIGOW_SETTINGS
    return house_way_igw_core(hand, back_rank, back_to_two, w[:N_PAIGOW_SETTINGS], w[N_PAIGOW_SETTINGS:g],
                      w[g:g + SCRATCH_SIZE], w[g + SCRATCH_SIZE:g + 2 * SCRATCH_SIZE],
                      w[g + 2 * SCRATCH_SIZE:g + 3 * SCRATCH_SIZE], w[g + 3 * SCRATCH_SIZE:])


@njit(cache=True)
def house_way_igw(hand, back_rank, back_to_two):
    """Setting index 0..20 of the sorted ``int64[7]`` hand under the IGW house way."""
    return house_way_igw_with_rule(hand, back_rank, back_to_two)[0]


__all__ = [
    "IGW_RULES", "N_IGW_RULES", "CLASS_CATEGORY", "KING_HIGH", "ACE_FACE", "house_way_igw", "house_way_igw_with_rule",
    "IgwRule", "top_rank", "drop_rank", "setting_for_front_ranks", "best_front_in",
]
