"""Asia Poker: the 105 settings of seven cards, their ranks, the foul rule and settlement.

A *setting* splits a seven-card hand into a four-card high hand, a two-card medium hand and a
one-card low hand (seed 000: "use seven cards to create three poker hands, a 4-card hand, a 2-card
hand, and a 1-card hand"). Settings are indexed 0..104 over the hand's cards **sorted ascending by
card integer** (positions 0..6)::

    setting = low_position * 15 + pair_index

where ``pair_index`` 0..14 enumerates the medium hand's two positions among the six remaining
positions in lexicographic order ((0,1), (0,2), ..., (4,5) of the remaining list); the high hand is
the other four positions, ascending. ``HIGH_POS``, ``MEDIUM_POS`` and ``LOW_POS`` hold the table.

Hand values (higher is better; equal is a copy):

* high: dense rank from the four-card table (:func:`splitpoker.envs.rules.ranking.rank_tables.asia_high_table`);
* medium: :func:`splitpoker.envs.rules.ranking.hand_eval.two_card_value` 0..90 (pair 78+r, else by high then low
  card; the joker is an ace; no two-card straights or flushes);
* low: :func:`splitpoker.envs.rules.ranking.hand_eval.one_card_value` 0..12 (the joker is an ace).

Foul rule (seed 001, 3.2: "The high hand shall rank at least as high as the medium hand, and the
medium hand shall rank at least as high as the low hand. A hand set in the wrong order is fouled,
and a fouled hand loses."). Hands of different sizes compare *category first, then ranks over the
smaller hand's cards*: the high hand is projected onto the two-card scale (two pair or better: above
every two-card hand; one pair: the two-card pair of that rank; high card: its two top cards) and
the medium hand onto the one-card scale (a pair: above every card; else its top card). A setting is
fouled iff ``proj(high) < medium`` or ``proj(medium) < low``; equality is allowed ("at least as
high").

Settlement (seeds 000/001): each hand against the dealer's hand of the same size; the player wins a
comparison only if strictly higher ("In cases where a Player hand ties a Dealer hand, the Dealer
hand wins"). Two or three wins: the ante wins even money; otherwise it loses. A fouled player
setting loses. No push, no commission.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import SevenCardGame, format_cards, parse_cards
from splitpoker.envs.rules.options import AsiaRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import colex4
from splitpoker.envs.rules.ranking.hand_eval import (
    one_card_value,
    project_two_to_one,
    two_card_value,
)
from splitpoker.envs.rules.ranking.rank_tables import HandTable, asia_high_table

N_ASIA_SETTINGS = 105


def _settings_table():
    high, med, low = [], [], []
    for lo in range(7):
        rest = [p for p in range(7) if p != lo]
        for i, j in combinations(range(6), 2):
            m = (rest[i], rest[j])
            h = [p for p in rest if p not in m]
            low.append(lo)
            med.append(m)
            high.append(h)
    return (np.array(high, dtype=np.int64), np.array(med, dtype=np.int64), np.array(low, dtype=np.int64))


HIGH_POS, MEDIUM_POS, LOW_POS = _settings_table()
for _a in (HIGH_POS, MEDIUM_POS, LOW_POS):
    _a.setflags(write=False)

# Two-card value -> one-card projection (pair: 13, above every card; else the top rank).
TWO_TO_ONE = np.array([project_two_to_one(v) for v in range(91)], dtype=np.int64)
TWO_TO_ONE.setflags(write=False)


@njit(cache=True, inline="always")
def asia_setting_ranks(hand, s, high_rank):
    """(high, medium, low) values of setting ``s`` of the sorted 7-card ``hand``."""
    h = HIGH_POS[s]
    m = MEDIUM_POS[s]
    hr = np.int64(high_rank[colex4(hand[h[0]], hand[h[1]], hand[h[2]], hand[h[3]])])
    mr = two_card_value(hand[m[0]], hand[m[1]])
    lr = one_card_value(hand[LOW_POS[s]])
    return hr, mr, lr


@njit(cache=True, inline="always")
def asia_is_fouled(hr, mr, lr, high_to_two):
    """True iff the high hand ranks below the medium hand or the medium below the low hand."""
    return high_to_two[hr] < mr or TWO_TO_ONE[mr] < lr


@njit(cache=True, inline="always")
def asia_hands_won(ph, pm, pl, dh, dm, dl):
    """Number of the player's hands strictly higher than the dealer's (copies go to the dealer)."""
    return (ph > dh) + (pm > dm) + (pl > dl)


@njit(cache=True, inline="always")
def asia_main_result(won):
    """Ante result per unit: +1 with two or three hands won, else -1."""
    return 1.0 if won >= 2 else -1.0


@njit(cache=True)
def asia_all_setting_ranks(hand, high_rank, high_to_two, out_ranks, out_fouled):
    """Fill ``out_ranks[105, 3]`` and ``out_fouled[105]`` for the sorted 7-card ``hand``."""
    for s in range(N_ASIA_SETTINGS):
        hr, mr, lr = asia_setting_ranks(hand, s, high_rank)
        out_ranks[s, 0] = hr
        out_ranks[s, 1] = mr
        out_ranks[s, 2] = lr
        out_fouled[s] = asia_is_fouled(hr, mr, lr, high_to_two)


# The round kernels' fast path: a setting is one of the C(7, 4) = 35 four-card high hands with one
# of the 3 ways to split the other three cards, so the 105 settings share 35 high-hand lookups, 21
# two-card values and 7 one-card values instead of 105 of each. Positions 0..6 of the sorted hand:
#   FOUR_SUBSETS[k]      the k-th 4-subset of positions in lexicographic order (k = 0..34)
#   PAIRS[k]             the k-th 2-subset (k = 0..20)
#   HIGH_OF_SETTING[s]   k such that FOUR_SUBSETS[k] == HIGH_POS[s]
#   MEDIUM_OF_SETTING[s] k such that PAIRS[k] == MEDIUM_POS[s]
FOUR_SUBSETS = np.array(list(combinations(range(7), 4)), dtype=np.int64)
PAIRS = np.array(list(combinations(range(7), 2)), dtype=np.int64)
_FOUR_INDEX = {tuple(c): k for k, c in enumerate(FOUR_SUBSETS.tolist())}
_PAIR_INDEX = {tuple(c): k for k, c in enumerate(PAIRS.tolist())}
HIGH_OF_SETTING = np.array([_FOUR_INDEX[tuple(HIGH_POS[s])] for s in range(N_ASIA_SETTINGS)], dtype=np.int64)
MEDIUM_OF_SETTING = np.array([_PAIR_INDEX[tuple(MEDIUM_POS[s])] for s in range(N_ASIA_SETTINGS)], dtype=np.int64)
for _a in (FOUR_SUBSETS, PAIRS, HIGH_OF_SETTING, MEDIUM_OF_SETTING):
    _a.setflags(write=False)


@njit(cache=True)
def asia_setting_values(hand, high_rank, high_to_two, scratch, with_ranks, out_ranks, out_fouled):
    """:func:`asia_all_setting_ranks` from 35 + 21 + 7 lookups (:data:`HIGH_OF_SETTING`,
    :data:`MEDIUM_OF_SETTING`), working in rows 6 and 7 of the round kernels' ``scratch`` block
    (:mod:`splitpoker.envs.rules.play.rounds`); ``out_ranks`` is written only ``with_ranks``,
    ``out_fouled`` always."""
    high = scratch[6]  # high-hand value of each 4-subset
    med = scratch[7]  # two-card value of each pair, then (at 21..) its one-card projection
    for k in range(35):
        p = FOUR_SUBSETS[k]
        hr = np.int64(high_rank[colex4(hand[p[0]], hand[p[1]], hand[p[2]], hand[p[3]])])
        high[k] = hr
    for k in range(21):
        p = PAIRS[k]
        mr = two_card_value(hand[p[0]], hand[p[1]])
        med[k] = mr
        med[21 + k] = TWO_TO_ONE[mr]
    for s in range(N_ASIA_SETTINGS):
        hr = high[HIGH_OF_SETTING[s]]
        m = MEDIUM_OF_SETTING[s]
        mr = med[m]
        lr = one_card_value(hand[LOW_POS[s]])
        out_fouled[s] = high_to_two[hr] < mr or med[21 + m] < lr
        if with_ranks:
            out_ranks[s, 0] = hr
            out_ranks[s, 1] = mr
            out_ranks[s, 2] = lr


@dataclass(frozen=True)
class AsiaSetting:
    """A setting of seven cards, for display and the Python API."""

    index: int
    high: tuple[int, ...]
    medium: tuple[int, ...]
    low: tuple[int, ...]
    ranks: tuple[int, int, int]
    high_category: HandCategory
    medium_category: HandCategory
    fouled: bool

    def hands(self) -> dict[str, list[int]]:
        return {"high": list(self.high), "medium": list(self.medium), "low": list(self.low)}

    def __str__(self) -> str:
        foul = "  FOULED" if self.fouled else ""
        return (f"high [{format_cards(self.high)}]  medium [{format_cards(self.medium)}]  "
                f"low [{format_cards(self.low)}]{foul}")


class AsiaPoker(SevenCardGame):
    """Python API to the Asia Poker rules under one set of :class:`AsiaRules`.

    Validates at the boundary (card text or integers, exactly seven distinct cards, setting index
    0..104) and calls the numba kernels. Example::

        game = AsiaPoker()
        hand = game.hand("Qh Th 8h 3h Kd 5d Tc")
        s = game.setting_index(hand, high="Qh Th 8h 3h", medium="Kd 5d", low="Tc")
        game.describe(hand, s)          # AsiaSetting(...)
    """

    game = "asia"
    n_settings = N_ASIA_SETTINGS

    def __init__(self, rules: AsiaRules | None = None):
        self.rules = rules or AsiaRules()
        self.table: HandTable = asia_high_table(self.rules)
        self.high_rank = self.table.rank
        self.high_to_two = self.table.class_to_two.astype(np.int64)
        #: the table settings are valued with (four-card high hands) and its two-card projection
        self.rank_table, self.to_two = self.high_rank, self.high_to_two

    # -- queries ------------------------------------------------------------------------------
    def ranks(self, cards, s: int) -> tuple[int, int, int]:
        hand = self.hand(cards)
        hr, mr, lr = asia_setting_ranks(hand, self._check_setting(s), self.high_rank)
        return int(hr), int(mr), int(lr)

    def is_fouled(self, cards, s: int) -> bool:
        hr, mr, lr = self.ranks(cards, s)
        return bool(asia_is_fouled(hr, mr, lr, self.high_to_two))

    def all_settings(self, cards) -> tuple[np.ndarray, np.ndarray]:
        """``ranks[105, 3]`` (high, medium, low values) and ``fouled[105]`` for a hand."""
        hand = self.hand(cards)
        ranks = np.empty((N_ASIA_SETTINGS, 3), dtype=np.int64)
        fouled = np.empty(N_ASIA_SETTINGS, dtype=np.bool_)
        asia_all_setting_ranks(hand, self.high_rank, self.high_to_two, ranks, fouled)
        return ranks, fouled

    def setting_index(self, cards, high, medium, low) -> int:
        """Index of the setting that puts the given cards in each hand (validated)."""
        hand = self.hand(cards)
        parts = {name: parse_cards(x, n=n) for name, x, n in (("high", high, 4), ("medium", medium, 2), ("low", low, 1))}
        chosen = parts["high"] + parts["medium"] + parts["low"]
        if sorted(chosen) != hand.tolist():
            raise ValueError(
                f"setting high [{format_cards(parts['high'])}] medium [{format_cards(parts['medium'])}] "
                f"low [{format_cards(parts['low'])}] does not use exactly the hand's cards {format_cards(hand)}"
            )
        pos = {int(c): i for i, c in enumerate(hand)}
        lo = pos[parts["low"][0]]
        med = sorted(pos[c] for c in parts["medium"])
        for s in range(lo * 15, lo * 15 + 15):
            if MEDIUM_POS[s, 0] == med[0] and MEDIUM_POS[s, 1] == med[1]:
                return s
        raise AssertionError("unreachable: settings table covers every split")

    def describe(self, cards, s: int) -> AsiaSetting:
        hand = self.hand(cards)
        s = self._check_setting(s)
        hr, mr, lr = asia_setting_ranks(hand, s, self.high_rank)
        high = tuple(sorted((int(hand[p]) for p in HIGH_POS[s]), reverse=True))
        medium = tuple(sorted((int(hand[p]) for p in MEDIUM_POS[s]), reverse=True))
        return AsiaSetting(
            index=s,
            high=high,
            medium=medium,
            low=(int(hand[LOW_POS[s]]),),
            ranks=(int(hr), int(mr), int(lr)),
            high_category=HandCategory(int(self.table.class_category[hr])),
            medium_category=HandCategory.PAIR if mr >= 78 else HandCategory.HIGH_CARD,
            fouled=bool(asia_is_fouled(hr, mr, lr, self.high_to_two)),
        )

    def settle(self, player_cards, player_setting: int, dealer_cards, dealer_setting: int) -> tuple[float, int, bool]:
        """Ante result per unit (+1/-1), hands won by the player, and whether the player fouled.

        Player and dealer must hold 14 distinct cards. The dealer's setting is not checked for a
        foul here (the house way never fouls; its own tests prove it)."""
        p = self.hand(player_cards)
        d = self.hand(dealer_cards)
        common = set(p.tolist()) & set(d.tolist())
        if common:
            raise ValueError(f"player and dealer share card(s) {format_cards(sorted(common))}")
        ph, pm, pl = asia_setting_ranks(p, self._check_setting(player_setting), self.high_rank)
        dh, dm, dl = asia_setting_ranks(d, self._check_setting(dealer_setting), self.high_rank)
        won = int(asia_hands_won(ph, pm, pl, dh, dm, dl))
        if asia_is_fouled(ph, pm, pl, self.high_to_two):
            return -1.0, won, True
        return float(asia_main_result(won)), won, False
