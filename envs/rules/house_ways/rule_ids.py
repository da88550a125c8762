"""Rule ids of the three house-way styles, one idiom for all: a table of ``(NAME, text)`` pairs
per style (the position is the rule id, the last rule is ``FALLBACK``), from which
:func:`rule_ids` derives an ``IntEnum`` that numba reads as integer constants (the kernels write
``R.TWO_PAIRS``) and the tuple of texts that :class:`~splitpoker.envs.rules.house_ways.registry.HouseWayResult` and
``scripts/check_house_way.py`` report. The ids are published (per-rule counts in the tests and
docs/house_ways.md): append, never renumber.
"""

from __future__ import annotations

from enum import IntEnum


def rule_ids(class_name: str, table, module: str) -> tuple[type[IntEnum], tuple[str, ...]]:
    """``(IntEnum, texts)`` from a rule table of ``(NAME, text)`` pairs (the position is the id)."""
    names = [name for name, _ in table]
    if len(set(names)) != len(names) or names[-1] != "FALLBACK":
        raise ValueError(f"rule table of {class_name}: expected unique names ending in FALLBACK, got {names}")
    enum = IntEnum(class_name, [(name, i) for i, name in enumerate(names)], module=module)
    enum.__doc__ = f"Rule ids of the house way, one per rule and branch of its seed ({len(names)} ids)."
    return enum, tuple(text for _, text in table)


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

BORGATA_RULE_TABLE = (  # (enum name, human name); the position is the rule id
    ("NO_PAIR", "NO PAIR"),
    ("ONE_PAIR", "ONE PAIR: pair high, 1st+3rd medium, 2nd low"),
    ("ONE_PAIR_SPLIT_HIGH_PAIR", "ONE PAIR: high pair with 0-1 high card, split high/medium"),
    ("ONE_PAIR_HIGH_PAIR_KEPT", "ONE PAIR: high pair with 2+ high cards, pair high"),
    ("TWO_PAIRS", "TWO PAIRS: split, higher pair high, lower pair medium"),
    ("TWO_PAIRS_SPLIT_ACES_KINGS", "TWO PAIRS: aces/kings split medium/low"),
    ("TWO_PAIRS_ACES_KINGS_HIGH_CARD", "TWO PAIRS: aces/kings + another high card, don't split"),
    ("THREE_PAIRS", "THREE PAIRS: highest pair medium, two pairs high"),
    ("THREE_PAIRS_SPLIT_ACES_KINGS", "THREE PAIRS: aces/kings split medium/low"),
    ("THREE_PAIRS_ACES_KINGS_HIGH_CARD", "THREE PAIRS: aces/kings + high card, pair medium"),
    ("THREE_PAIRS_HIGH_PAIRS", "THREE PAIRS: three high pairs, split highest (one low)"),
    ("THREE_PAIRS_HIGH_PAIRS_HIGH_CARD", "THREE PAIRS: three high pairs + high card in low"),
    ("TRIPS", "THREE OF A KIND: trips high"),
    ("TRIPS_AKQ_SPLIT", "THREE OF A KIND: A/K/Q trips, one in each hand"),
    ("TRIPS_AKQ_HIGH_CARDS", "THREE OF A KIND: A/K/Q trips + 1-2 high cards, pair high"),
    ("TRIPS_JACKS_ONE_HIGH", "THREE OF A KIND: jacks + one high card, jack low"),
    ("TRIPS_JACKS_NO_HIGH", "THREE OF A KIND: jacks, no high card, pair high, jack medium"),
    ("TRIPS_TWICE", "THREE OF A KIND TWICE"),
    ("SF_NO_PAIR", "STRAIGHT/FLUSH: no pair, play it high"),
    ("SF_NO_PAIR_TOO_HIGH", "STRAIGHT/FLUSH: no pair, 3-4 high cards -> NO PAIR"),
    ("SF_PAIR_INSIDE", "STRAIGHT/FLUSH: pair inside, K/A or 2 high outside, play it high"),
    ("SF_PAIR_INSIDE_PAIR_HIGH", "STRAIGHT/FLUSH: pair inside, otherwise pair high"),
    ("SF_IN_ADDITION", "STRAIGHT/FLUSH: pair/trips in addition, pair medium"),
    ("SF_ACES_IN_ADDITION", "STRAIGHT/FLUSH: aces in addition, split aces"),
    ("SF_BOTH", "STRAIGHT/FLUSH: both a straight and a flush, best medium/low"),
    ("FULL_HOUSE", "FULL HOUSE: trips high, pair medium"),
    ("FULL_HOUSE_AKQ_TRIPS", "FULL HOUSE: A/K/Q trips, pair of them high, one low"),
    ("FULL_HOUSE_ACES_KINGS_PAIR", "FULL HOUSE: pair of aces/kings split medium/low"),
    ("FULL_HOUSE_PAIR", "FULL HOUSE WITH A PAIR: trips high, low pair medium"),
    ("FULL_HOUSE_PAIR_HIGH_TRIPS", "FULL HOUSE WITH A PAIR: high trips, two pairs high"),
    ("QUADS", "FOUR OF A KIND: split, pair high, pair medium"),
    ("QUADS_LOW_WITH_ACE", "FOUR OF A KIND: low quads + 2 high cards incl. ace, quads high"),
    ("QUADS_ACES_KINGS", "FOUR OF A KIND: aces/kings, pair high, one medium, one low"),
    ("QUADS_ACES_KINGS_HIGH_CARD", "FOUR OF A KIND: aces/kings + high card, pair high+medium"),
    ("QUADS_PAIR", "FOUR OF A KIND WITH A PAIR: quads high, pair medium"),
    ("QUADS_PAIR_ACES_KINGS", "FOUR OF A KIND WITH A PAIR: aces/kings, three high, one low"),
    ("QUADS_TRIPS", "FOUR OF A KIND WITH THREE OF A KIND: quads high, pair medium"),
    ("QUADS_TRIPS_AKQ", "FOUR OF A KIND WITH THREE OF A KIND: A/K/Q quads split"),
    ("FIVE_ACES", "FIVE ACES"),
    ("FALLBACK", "fallback"),
)
BorgataRule, BORGATA_RULES = rule_ids("BorgataRule", BORGATA_RULE_TABLE, __name__)

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
