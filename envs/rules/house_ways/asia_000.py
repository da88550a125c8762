"""Asia Poker house way of seed 000 ("asia-000"): the casino app's "Playing the House Way".

Source: ``000_3abc1b10fd0dcd46.txt``, section "Playing the House Way" ("Most of following
guidelines were taken from WizardOfOdds.com"). Every place where the seed is ambiguous,
incomplete or would foul is a numbered decision ``D1``..``D20`` in ``docs/house_ways.md (asia-000)``;
the comments below cite them.

Input: a hand as the sorted ``int64[7]`` every kernel takes (card = rank*4+suit, joker 52 last)::

    position   0    1    2    3    4    5    6
    card      5d   7s   7h   9c   Jd   Ks   JK      (ascending card integers)
    rank       3    5    5    7    9   11   12      (the joker counts as an ace, D1)

Output: an Asia setting index 0..104 (:mod:`splitpoker.envs.rules.games.asia`) and a *rule id* naming the rule
or branch that set the hand (:data:`ASIA_000_RULES`; ``FALLBACK`` = no rule applied / the rule
fouled, which the exhaustive check shows never happens over all C(53, 7) hands).

How a rule is applied. Cards are grouped by rank (the joker is an ace, D1), groups ordered by
size then rank; the group pattern names the hand (no pair, one pair, ..., five aces). Hands with
no group larger than a pair first try the straights/flushes rule (D12). A rule names ranks for
the Low and Medium hands; of equal-rank cards the lowest card integers go to the lowest hand and
the rest stay higher, so the joker always stays in the highest hand its rank reaches, and a
High-hand card is then exchanged for an equal-rank one if its suit completes a flush (D2). Where
the seed leaves cards unplaced, the free cards *maximize the Low and Medium hands* (D3): the
Medium hand's top card (a pair above all), then the Low card, then the whole Medium hand, then
the High hand, then the lowest setting index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.rules.games.asia import (
    TWO_TO_ONE,
    AsiaPoker,
    AsiaSetting,
    asia_is_fouled,
    asia_setting_ranks,
)
from splitpoker.envs.rules.house_ways.common import (
    ACE,
    FOUR_OF_SEVEN,
    JACK,
    KING,
    QUEEN,
    SCRATCH_SIZE,
    SIX,
    TEN,
    asia_best_unfouled,
    asia_index,
    best_suits_asia_000,
    group_hand,
    may_make_straight_or_flush,
    n_high,
    setting_positions,
)
from splitpoker.envs.rules.house_ways.rule_ids import rule_ids
from splitpoker.envs.rules.house_ways.straights import is_straight_or_flush
from splitpoker.envs.rules.ranking.combinatorics import colex4
from splitpoker.envs.rules.ranking.hand_eval import one_card_value, two_card_value

ASIA_000_RULE_TABLE = (  # (enum name, human name); the position is the rule id
    ("NO_PAIR", "no pair"),
    ("ONE_PAIR_SPLIT", "one pair: High pair split between Medium and High"),
    ("ONE_PAIR_IN_HIGH", "one pair: pair in High"),
    ("TWO_PAIRS", "two pairs: split between High and Medium"),
    ("TWO_PAIRS_ACES_KINGS", "two pairs: A/K exception (A/K pair split Medium/Low)"),
    ("THREE_PAIRS_ACES_KINGS", "three pairs: A/K pair and Low/Medium singleton"),
    ("THREE_PAIRS_LOW_SINGLETON", "three pairs: Low/Medium singleton (lowest pair Medium, D8)"),
    ("THREE_PAIRS_HIGH_SINGLETON", "three pairs: High singleton in Low"),
    ("TRIPS_2_TO_10", "three of a kind: 2s-10s"),
    ("TRIPS_JACKS_NO_HIGH", "three of a kind: Jacks, no High card"),
    ("TRIPS_JACKS_ONE_HIGH", "three of a kind: Jacks, one High card"),
    ("TRIPS_JACKS_TWO_HIGH", "three of a kind: Jacks, two High cards (as 2s-10s)"),
    ("TRIPS_JACKS_THREE_HIGH", "three of a kind: Jacks, three High cards (as 2s-10s, D10)"),
    ("TRIPS_Q_TO_A_ONE_OR_TWO_HIGH", "three of a kind: Qs-As, one or two High cards"),
    ("TRIPS_Q_TO_A_NO_HIGH", "three of a kind: Qs-As, no High card (pair in High, D10)"),
    ("TRIPS_Q_TO_A_THREE_HIGH", "three of a kind: Qs-As, three High cards (as 2s-10s, D10)"),
    ("TRIPS_TWICE", "three of a kind twice"),
    ("TRIPS_TWO_PAIRS_NO_HIGH_PAIR", "three of a kind & two pairs: no High pair"),
    ("TRIPS_TWO_PAIRS_HIGH_PAIR", "three of a kind & two pairs: High pair"),
    ("FULL_HOUSE_HIGH_PAIR", "full house: High pair"),
    ("FULL_HOUSE_HIGH_TRIPS", "full house: High trips"),
    ("FULL_HOUSE_HIGH_TRIPS_HIGHER_SINGLETON", "full house: High trips, higher singleton Low"),
    ("FULL_HOUSE_NEITHER_HIGH", "full house: neither High trips nor High pair"),
    ("STRAIGHT_FLUSH_PAIR_IN_MEDIUM", "straight/flush: pair in Medium"),
    ("STRAIGHT_FLUSH_HIGH_CARDS", "straight/flush: High cards in Medium and Low"),
    ("QUADS_LOW_WITH_ACE", "four of a kind: Low quads, two High cards incl. an Ace"),
    ("QUADS_ACES_KINGS_NO_HIGH", "four of a kind: Aces/Kings, no High singleton"),
    ("QUADS_SPLIT", "four of a kind: pair in Medium and High"),
    ("QUADS_PAIR_ACES_KINGS", "four of a kind & a pair: Aces/Kings"),
    ("QUADS_PAIR", "four of a kind & a pair"),
    ("QUADS_TRIPS_SPLIT", "four of a kind & three of a kind: Qs+ with Low/Medium trips"),
    ("QUADS_TRIPS", "four of a kind & three of a kind"),
    ("FIVE_ACES", "five aces"),
    ("FALLBACK", "fallback: best unfouled setting"),
)
Asia000Rule, ASIA_000_RULES = rule_ids("Asia000Rule", ASIA_000_RULE_TABLE, __name__)
N_ASIA_000_RULES = len(ASIA_000_RULES)


N_RULES = N_ASIA_000_RULES
R = Asia000Rule  # numba reads IntEnum members as integer constants


# ---------------------------------------------------------------------------------------------
# shared pieces


@njit(cache=True, inline="always")
def low_medium_key(hr, mr, lr):
    """D3 "maximizing the Low and Medium Hands": Medium top card (a pair above every card), then
    Low card, then the whole Medium hand, then the High hand; larger is better."""
    return ((TWO_TO_ONE[mr] * 13 + lr) * 91 + mr) * 4096 + hr


# ---------------------------------------------------------------------------------------------
# the rules, in the seed's order


@njit(cache=True)
def no_pair(gs):
    """"No Pair (High Card) Play the 3rd highest card in the Low Hand, the 2nd and 4th highest cards
    in the Medium Hand, and the rest in the High Hand.\""""
    return gs[2], gs[1], gs[3], R.NO_PAIR


@njit(cache=True)
def one_pair(hand, gr, gs, n, high_rank, high_to_two):
    """"One Pair With a High pair, and either no High singletons or one High singleton lower than
    the pair, split the pair between the Medium and High hands. Otherwise, play the Pair in the
    High Hand."

    Singletons (D4): in the split, the free cards maximize the Low and Medium hands without
    fouling (D3) -- the highest singleton goes Low and the High hand keeps a higher kicker than
    the Medium hand, unless its cards make a straight or flush; otherwise the No Pair pattern
    (1st and 3rd highest singletons Medium, 2nd Low)."""
    h = n_high(gr, 1, n)
    if gr[0] >= JACK and (h == 0 or (h == 1 and gr[1] < gr[0])):
        best, best_key = -1, -1
        for k_low in range(1, n):  # a lower Low card never beats a higher one (D3)
            for k_med in range(1, n):
                if k_med == k_low:
                    continue
                for pair_card in range(2):  # which pair card goes Medium (suits, joker: D2)
                    s = asia_index(gs[k_low], gs[0] + pair_card, gs[k_med])
                    hr, mr, lr = asia_setting_ranks(hand, s, high_rank)
                    if asia_is_fouled(hr, mr, lr, high_to_two):
                        continue
                    key = low_medium_key(hr, mr, lr)
                    if key > best_key or (key == best_key and s < best):
                        best, best_key = s, key
            if best >= 0:
                return setting_positions(best) + (R.ONE_PAIR_SPLIT,)
        return setting_positions(best) + (R.ONE_PAIR_SPLIT,)
    return gs[2], gs[1], gs[3], R.ONE_PAIR_IN_HIGH


@njit(cache=True)
def two_pairs(gr, gs, n):
    """"Two Pairs Split the Two Pairs between the High and Medium Hands. Exception: If you have a
    pair of Aces or Kings and no High singletons, then play the lower pair in the High hand and
    split the High pair between the Medium and Low hands."

    Split: higher pair High, lower pair Medium, highest singleton Low (D5). Exception: the highest
    singleton joins the A/K card in Medium (D5)."""
    if gr[0] >= KING and n_high(gr, 2, n) == 0:
        return gs[0], gs[0] + 1, gs[2], R.TWO_PAIRS_ACES_KINGS
    return gs[2], gs[1], gs[1] + 1, R.TWO_PAIRS


@njit(cache=True)
def three_pairs(gr, gs):
    """"Three Pairs If one of the pairs is Aces or Kings and the singleton is Low or Medium, then
    play a card from the High pair in the Low Hand, the other Ace or King and the singleton in the
    Medium Hand, and the other two pair in the High Hand.
    If the singleton is Low or Medium, then play a card from the highest pair in the Low Hand, the
    Medium pair in the Medium Hand, and rest in the High Hand.
    Otherwise (with no Ace/King pair and a High singleton), play the singleton in the Low Hand,
    the highest pair in the Medium Hand, and the other Two Pairs in the High Hand."

    "the High pair" is the highest pair (D7); "the Medium pair" is read as the lowest pair (D8:
    the middle pair always fouls); "Otherwise" covers every High singleton, A/K pair or not (D9)."""
    if gr[3] >= JACK:
        return gs[3], gs[0], gs[0] + 1, R.THREE_PAIRS_HIGH_SINGLETON
    if gr[0] >= KING:
        return gs[0], gs[0] + 1, gs[3], R.THREE_PAIRS_ACES_KINGS
    return gs[0], gs[2], gs[2] + 1, R.THREE_PAIRS_LOW_SINGLETON


@njit(cache=True)
def pair_in_high_maximized(gr, gs):
    """Three of a kind with a pair in High and the third card with the four singletons
    maximizing Low and Medium (D3): of those five (distinct ranks) the 1st and 3rd highest go
    Medium, the 2nd Low. The third card is the trips' lowest card integer (D2)."""
    above = 0  # singletons ranking above the trips
    for k in range(1, 5):
        if gr[k] > gr[0]:
            above += 1
    return merged_position(gs, above, 1), merged_position(gs, above, 0), merged_position(gs, above, 2)


@njit(cache=True, inline="always")
def merged_position(gs, above, i):
    """Position of the ``i``-th highest of the trips' third card (group 0) merged into the
    singletons (groups 1..4), ``above`` of which outrank the trips."""
    if i < above:
        return gs[1 + i]
    return gs[0] if i == above else gs[i]


@njit(cache=True)
def three_of_a_kind(gr, gs, n):
    """"Three of a Kind With three 2s - 10s
    Play the 2nd highest singleton in the Low Hand, the 1st and 3rd highest singletons in the
    Medium Hand, and the rest in the High Hand.With three Jacks & no High cards
    the highest singleton in the Low Hand, a Jack and the 2nd highest singleton in the Medium
    Hand, and the rest in the High Hand.With three Jacks & one High card
    Play a Jack in the Low Hand, the two highest singletons in the Medium Hand, and the rest in
    the High Hand.With three Jacks & two High cards
    Play the same way as three 2-10.With three Qs - As & one or two High cards
    Play a pair in the High Hand, otherwise maximizing the Low and Medium Hands."

    Not stated (D10): Jacks with three High cards play as 2s-10s; Qs-As with no High card play a
    pair in High like one or two; Qs-As with three High cards play as 2s-10s."""
    trips_way = (gs[2], gs[1], gs[3])
    h = n_high(gr, 1, n)
    if gr[0] <= TEN:
        return trips_way + (R.TRIPS_2_TO_10,)
    if gr[0] == JACK:
        if h == 0:
            return gs[1], gs[0], gs[2], R.TRIPS_JACKS_NO_HIGH
        if h == 1:
            return gs[0], gs[1], gs[2], R.TRIPS_JACKS_ONE_HIGH
        return trips_way + (R.TRIPS_JACKS_TWO_HIGH if h == 2 else R.TRIPS_JACKS_THREE_HIGH,)
    if h == 3:
        return trips_way + (R.TRIPS_Q_TO_A_THREE_HIGH,)
    if h == 0:
        return pair_in_high_maximized(gr, gs) + (R.TRIPS_Q_TO_A_NO_HIGH,)
    return pair_in_high_maximized(gr, gs) + (R.TRIPS_Q_TO_A_ONE_OR_TWO_HIGH,)


@njit(cache=True)
def three_of_a_kind_twice(gs):
    """"Three of a Kind Twice Split up the High Three of a Kind between the Low and Medium hands.
    Play the Low Three of a Kind in the High Hand." (a pair Medium, one card Low; D11)"""
    return gs[0], gs[0] + 1, gs[0] + 2, R.TRIPS_TWICE


@njit(cache=True)
def trips_and_two_pairs(gr, gs):
    """"Three of a Kind & Two Pairs With no High pairs, split the Three of a Kind between the Low
    and Medium hands, and play the Two Pairs in the High Hand. Otherwise, play a card from the High
    pair in the Low Hand, the Low pair in the Medium Hand, and the rest in the High Hand."

    "the High pair" / "the Low pair": the higher / lower of the two pairs (D11)."""
    if gr[1] < JACK:
        return gs[0], gs[0] + 1, gs[0] + 2, R.TRIPS_TWO_PAIRS_NO_HIGH_PAIR
    return gs[1], gs[2], gs[2] + 1, R.TRIPS_TWO_PAIRS_HIGH_PAIR


@njit(cache=True)
def full_house(gr, gs):
    """"Full House If the hand contains a High pair, split the pair between the Medium Hand and Low
    Hand and then play the trips in the High Hand.
    If the hand contains High trips, split the High trips between the High Hand and the Low Hand
    unless there is a singleton that is higher than both the Trips and Pair values that can be
    played in the Low Hand. In that case, play the high singleton in the Low Hand, the Pair in the
    Medium Hand, and the Trips in the High Hand.
    If the hand contains neither High trips nor a High Pair, play the trips in the High Hand and
    the pair in the Medium Hand."

    The sentences apply in order (D14); split High trips keep a pair High, the pair goes Medium
    (D14); free singletons maximize Low and Medium (D3)."""
    if gr[1] >= JACK:
        return gs[1], gs[1] + 1, gs[2], R.FULL_HOUSE_HIGH_PAIR
    if gr[0] >= JACK:
        if gr[2] > gr[0]:
            return gs[2], gs[1], gs[1] + 1, R.FULL_HOUSE_HIGH_TRIPS_HIGHER_SINGLETON
        return gs[0], gs[1], gs[1] + 1, R.FULL_HOUSE_HIGH_TRIPS
    return gs[2], gs[1], gs[1] + 1, R.FULL_HOUSE_NEITHER_HIGH


@njit(cache=True)
def straight_or_flush(hand, rk, high_rank):
    """"Straights, Flushes, Straight Flushes, & Royal Flushes Play a Straight or Flush in the High
    Hand if a pair can be played in the Medium Hand or if High Cards can be played in both the
    Medium and Low Hands. Otherwise, use the Two Pair, Three Pair, or No Pair rules."

    Scope: hands with no group larger than a pair (D12). Every four cards ranking as a straight,
    flush or straight flush are a candidate; the other three must hold a pair (Medium; the third
    card Low) or two High cards (1st and 3rd highest Medium, 2nd Low). Best candidate by D3
    (D13); "Otherwise" includes the One Pair rule.
    Returns ``(-1, -1)`` when no candidate qualifies ("Otherwise")."""
    if not may_make_straight_or_flush(hand, 4):
        return -1, -1, -1, -1
    best, best_key, best_rule = -1, -1, -1
    for row in range(35):
        a, b = hand[FOUR_OF_SEVEN[row, 0]], hand[FOUR_OF_SEVEN[row, 1]]
        c, d = hand[FOUR_OF_SEVEN[row, 2]], hand[FOUR_OF_SEVEN[row, 3]]
        if not is_straight_or_flush(a, b, c, d):
            continue
        # the other three positions, ascending (so ascending ranks)
        p, m, r = FOUR_OF_SEVEN[row, 4], FOUR_OF_SEVEN[row, 5], FOUR_OF_SEVEN[row, 6]
        if rk[p] == rk[m]:
            low, ma, mb = r, p, m
        elif rk[m] == rk[r]:
            low, ma, mb = p, m, r
        elif rk[m] >= JACK:
            low, ma, mb = m, r, p
        else:
            continue
        hr = np.int64(high_rank[colex4(a, b, c, d)])
        mr = two_card_value(hand[ma], hand[mb])
        key = low_medium_key(hr, mr, one_card_value(hand[low]))
        s = asia_index(low, ma, mb)
        if key > best_key or (key == best_key and s < best):
            best, best_key = s, key
            best_rule = R.STRAIGHT_FLUSH_PAIR_IN_MEDIUM if mr >= 78 else R.STRAIGHT_FLUSH_HIGH_CARDS
    return setting_positions(best) + (best_rule,)


@njit(cache=True)
def four_of_a_kind(gr, gs, n):
    """"Four of a Kind With a Low Four of a Kind, and two High cards including an Ace, play the Four
    of a Kind in the High Hand.
    With four Aces or Kings, and no High singletons, split the Four of a Kind into a pair in the
    High Hand and one card each in the Low and Medium Hands.
    Otherwise, split the Four of a Kind into a pair in the Medium and High Hands."

    "two High cards" = at least two (D15); free singletons maximize Low and Medium (D3)."""
    h = n_high(gr, 1, n)
    if gr[0] <= SIX and h >= 2 and gr[1] == ACE:
        return gs[2], gs[1], gs[3], R.QUADS_LOW_WITH_ACE
    if gr[0] >= KING and h == 0:
        return gs[0], gs[0] + 1, gs[1], R.QUADS_ACES_KINGS_NO_HIGH
    return gs[1], gs[0], gs[0] + 1, R.QUADS_SPLIT


@njit(cache=True)
def four_of_a_kind_and_pair(gr, gs):
    """"Four of a Kind & a Pair With four Aces or Kings, play three of them in the High Hand, and
    one in the Low Hand.
    Otherwise, play the pair in the Medium Hand, and the Four of a Kind in the High Hand."

    A/K: the pair goes Medium, the singleton High (D16)."""
    if gr[0] >= KING:
        return gs[0], gs[1], gs[1] + 1, R.QUADS_PAIR_ACES_KINGS
    return gs[2], gs[1], gs[1] + 1, R.QUADS_PAIR


@njit(cache=True)
def four_of_a_kind_and_trips(gr, gs):
    """"Four of a Kind & a Three of a Kind With four Queens or higher, and a Low or Medium Three of
    a Kind, play the Three of a Kind in the High Hand.
    Otherwise, play the Four of a Kind in the High Hand."

    Split quads: a pair Medium, one card Low, one with the trips High; otherwise the trips give a
    pair Medium and a card Low (D17)."""
    if gr[0] >= QUEEN and gr[1] <= TEN:
        return gs[0], gs[0] + 1, gs[0] + 2, R.QUADS_TRIPS_SPLIT
    return gs[1], gs[1] + 1, gs[1] + 2, R.QUADS_TRIPS


@njit(cache=True)
def five_aces(gs):
    """"Five Aces Play an Ace in the Low Hand, two Aces in the Medium Hand, and the rest in the High
    Hand." (with a pair, the rest is two pair; D18)"""
    return gs[0], gs[0] + 1, gs[0] + 2, R.FIVE_ACES


# ---------------------------------------------------------------------------------------------
# dispatch


@njit(cache=True)
def house_way_asia_000_core(hand, high_rank, high_to_two, rk, gr, gs, gc):
    """(setting, rule id) for a sorted 7-card hand, using caller-owned scratch arrays
    (``SCRATCH_SIZE`` int64 each). Every rule returns ``(low, medium_a, medium_b, rule)``:
    positions into the hand (low -1: none), the shape both Asia styles' rules share."""
    n = group_hand(hand, rk, gr, gs, gc)
    c0, c1, c2 = gc[0], gc[1], gc[2]
    lo, ma, mb, rule = -1, -1, -1, -1
    if c0 <= 2:
        lo, ma, mb, rule = straight_or_flush(hand, rk, high_rank)
        if lo < 0:
            if c0 == 1:
                lo, ma, mb, rule = no_pair(gs)
            elif c1 == 1:
                lo, ma, mb, rule = one_pair(hand, gr, gs, n, high_rank, high_to_two)
            elif c2 == 1:
                lo, ma, mb, rule = two_pairs(gr, gs, n)
            else:
                lo, ma, mb, rule = three_pairs(gr, gs)
    elif c0 == 3:
        if c1 == 3:
            lo, ma, mb, rule = three_of_a_kind_twice(gs)
        elif c1 == 1:
            lo, ma, mb, rule = three_of_a_kind(gr, gs, n)
        elif c2 == 2:
            lo, ma, mb, rule = trips_and_two_pairs(gr, gs)
        else:
            lo, ma, mb, rule = full_house(gr, gs)
    elif c0 == 4:
        if c1 == 3:
            lo, ma, mb, rule = four_of_a_kind_and_trips(gr, gs)
        elif c1 == 2:
            lo, ma, mb, rule = four_of_a_kind_and_pair(gr, gs)
        else:
            lo, ma, mb, rule = four_of_a_kind(gr, gs, n)
    else:
        lo, ma, mb, rule = five_aces(gs)
    s = asia_index(lo, ma, mb) if lo >= 0 else -1
    if s >= 0:
        s = best_suits_asia_000(hand, s, rk, high_rank)
    return checked(hand, s, rule, high_rank, high_to_two)


@njit(cache=True)
def checked(hand, s, rule, high_rank, high_to_two):
    """Return ``(s, rule)`` unless ``s`` is missing or fouled; then the best unfouled setting
    (:func:`asia_best_unfouled`, D19) with rule ``FALLBACK``."""
    if s >= 0:
        hr, mr, lr = asia_setting_ranks(hand, s, high_rank)
        if not asia_is_fouled(hr, mr, lr, high_to_two):
            return s, rule
    return asia_best_unfouled(hand, high_rank, high_to_two), R.FALLBACK


@njit(cache=True)
def house_way_asia_000_with_rule(hand, high_rank, high_to_two):
    """(setting index 0..104, rule id) of the seed-000 house way for a sorted int64[7] hand.

    ``high_rank`` = ``asia_high_table(rules).rank``; ``high_to_two`` =
    ``table.class_to_two.astype(np.int64)``. Rule names: ``ASIA_000_RULES[rule]``."""
    rk = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gr = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gs = np.empty(SCRATCH_SIZE, dtype=np.int64)
    gc = np.empty(SCRATCH_SIZE, dtype=np.int64)
    return house_way_asia_000_core(hand, high_rank, high_to_two, rk, gr, gs, gc)


@njit(cache=True)
def house_way_asia_000(hand, high_rank, high_to_two):
    """Setting index 0..104 of the seed-000 house way for a sorted int64[7] hand."""
    return house_way_asia_000_with_rule(hand, high_rank, high_to_two)[0]


def asia_000_setting(cards, game: AsiaPoker | None = None) -> tuple[AsiaSetting, str]:
    """The seed-000 house way of seven cards (text or integers, validated) as an
    :class:`~splitpoker.envs.rules.games.asia.AsiaSetting` and the name of the rule that set it."""
    game = game or AsiaPoker()
    hand = game.hand(cards)
    s, rule = house_way_asia_000_with_rule(hand, game.high_rank, game.high_to_two)
    return game.describe(hand, int(s)), ASIA_000_RULES[int(rule)]


__all__ = ["ASIA_000_RULES", "N_RULES", "Asia000Rule", "house_way_asia_000", "house_way_asia_000_with_rule",
           "asia_000_setting"]
