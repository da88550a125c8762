"""Pai Gow Poker: the 21 settings of seven cards, their ranks, the foul rule and settlement.

A *setting* splits seven cards into a five-card back ("high") hand and a two-card front ("low")
hand. Settings are indexed 0..20 over the cards **sorted ascending by card integer** (positions
0..6): setting ``s`` puts positions ``FRONT_POS[s]`` in front, the pairs ``(i, j)``, ``i < j``, in
lexicographic order ((0,1), (0,2), ..., (5,6)); the back hand is the other five positions.

Hand values (higher is better; equal is a copy): back = dense rank from the five-card table
(:func:`splitpoker.envs.rules.ranking.rank_tables.paigow_back_table`), front =
:func:`splitpoker.envs.rules.ranking.hand_eval.two_card_value` (pair 78+r, else high card then low card; the joker
is an ace).

Foul rule (seed 004: "The “low hand” cannot be higher than the “high hand”"): fouled iff the back
hand projected onto the two-card scale (two pair or better above every front; one pair: the
two-card pair of that rank; high card: its two top cards) is below the front value. Equality is
allowed.

Settlement (seed 004: "To win, both of the Player’s hands must be higher than the Dealer’s two
hands. Likewise, to lose, both of the Dealer’s hands must be higher"; copies go to the dealer):
two wins pay ``1 - commission``; zero wins lose 1; one win pushes. A fouled player setting loses.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numba import njit

from splitpoker.envs.rules.cards import SevenCardGame, format_cards, parse_cards
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.rules.ranking.categories import HandCategory
from splitpoker.envs.rules.ranking.combinatorics import colex5
from splitpoker.envs.rules.ranking.hand_eval import two_card_value
from splitpoker.envs.rules.ranking.rank_tables import HandTable, paigow_back_table

N_PAIGOW_SETTINGS = 21


def _settings_table():
    front, back = [], []
    for i, j in combinations(range(7), 2):
        front.append((i, j))
        back.append([p for p in range(7) if p not in (i, j)])
    return np.array(back, dtype=np.int64), np.array(front, dtype=np.int64)


BACK_POS, FRONT_POS = _settings_table()
BACK_POS.setflags(write=False)
FRONT_POS.setflags(write=False)


@njit(cache=True, inline="always")
def paigow_setting_ranks(hand, s, back_rank):
    """(back, front) values of setting ``s`` of the sorted 7-card ``hand``."""
    b = BACK_POS[s]
    f = FRONT_POS[s]
    br = np.int64(back_rank[colex5(hand[b[0]], hand[b[1]], hand[b[2]], hand[b[3]], hand[b[4]])])
    fr = two_card_value(hand[f[0]], hand[f[1]])
    return br, fr


@njit(cache=True, inline="always")
def paigow_is_fouled(br, fr, back_to_two):
    return back_to_two[br] < fr


@njit(cache=True, inline="always")
def paigow_hands_won(pb, pf, db, df):
    return (pb > db) + (pf > df)


@njit(cache=True, inline="always")
def paigow_main_result(won, commission):
    """Wager result per unit: both hands won pays 1 - commission, one is a push, none loses."""
    if won == 2:
        return 1.0 - commission
    if won == 1:
        return 0.0
    return -1.0


@njit(cache=True)
def paigow_all_setting_ranks(hand, back_rank, back_to_two, out_ranks, out_fouled):
    for s in range(N_PAIGOW_SETTINGS):
        br, fr = paigow_setting_ranks(hand, s, back_rank)
        out_ranks[s, 0] = br
        out_ranks[s, 1] = fr
        out_fouled[s] = paigow_is_fouled(br, fr, back_to_two)


@dataclass(frozen=True)
class PaiGowSetting:
    index: int
    back: tuple[int, ...]
    front: tuple[int, ...]
    ranks: tuple[int, int]
    back_category: HandCategory
    front_category: HandCategory
    fouled: bool

    def hands(self) -> dict[str, list[int]]:
        return {"back": list(self.back), "front": list(self.front)}

    def __str__(self) -> str:
        foul = "  FOULED" if self.fouled else ""
        return f"back [{format_cards(self.back)}]  front [{format_cards(self.front)}]{foul}"


class PaiGowPoker(SevenCardGame):
    """Python API to the Pai Gow Poker rules under one set of :class:`PaiGowRules`."""

    game = "paigow"
    n_settings = N_PAIGOW_SETTINGS

    def __init__(self, rules: PaiGowRules | None = None):
        self.rules = rules or PaiGowRules()
        self.table: HandTable = paigow_back_table(self.rules)
        self.back_rank = self.table.rank
        self.back_to_two = self.table.class_to_two.astype(np.int64)
        #: the table settings are valued with (five-card back hands) and its two-card projection
        self.rank_table, self.to_two = self.back_rank, self.back_to_two

    def ranks(self, cards, s: int) -> tuple[int, int]:
        br, fr = paigow_setting_ranks(self.hand(cards), self._check_setting(s), self.back_rank)
        return int(br), int(fr)

    def is_fouled(self, cards, s: int) -> bool:
        br, fr = self.ranks(cards, s)
        return bool(paigow_is_fouled(br, fr, self.back_to_two))

    def all_settings(self, cards) -> tuple[np.ndarray, np.ndarray]:
        hand = self.hand(cards)
        ranks = np.empty((N_PAIGOW_SETTINGS, 2), dtype=np.int64)
        fouled = np.empty(N_PAIGOW_SETTINGS, dtype=np.bool_)
        paigow_all_setting_ranks(hand, self.back_rank, self.back_to_two, ranks, fouled)
        return ranks, fouled

    def setting_index(self, cards, back, front) -> int:
        hand = self.hand(cards)
        b = parse_cards(back, n=5)
        f = parse_cards(front, n=2)
        if sorted(b + f) != hand.tolist():
            raise ValueError(
                f"setting back [{format_cards(b)}] front [{format_cards(f)}] does not use exactly "
                f"the hand's cards {format_cards(hand)}"
            )
        pos = sorted(int(np.searchsorted(hand, c)) for c in f)
        for s in range(N_PAIGOW_SETTINGS):
            if FRONT_POS[s, 0] == pos[0] and FRONT_POS[s, 1] == pos[1]:
                return s
        raise AssertionError("unreachable")

    def describe(self, cards, s: int) -> PaiGowSetting:
        hand = self.hand(cards)
        s = self._check_setting(s)
        br, fr = paigow_setting_ranks(hand, s, self.back_rank)
        return PaiGowSetting(
            index=s,
            back=tuple(sorted((int(hand[p]) for p in BACK_POS[s]), reverse=True)),
            front=tuple(sorted((int(hand[p]) for p in FRONT_POS[s]), reverse=True)),
            ranks=(int(br), int(fr)),
            back_category=HandCategory(int(self.table.class_category[br])),
            front_category=HandCategory.PAIR if fr >= 78 else HandCategory.HIGH_CARD,
            fouled=bool(paigow_is_fouled(br, fr, self.back_to_two)),
        )

    def settle(self, player_cards, player_setting: int, dealer_cards, dealer_setting: int) -> tuple[float, int, bool]:
        """Wager result per unit (``1 - commission`` / 0 / -1), hands won, player fouled."""
        p = self.hand(player_cards)
        d = self.hand(dealer_cards)
        common = set(p.tolist()) & set(d.tolist())
        if common:
            raise ValueError(f"player and dealer share card(s) {format_cards(sorted(common))}")
        pb, pf = paigow_setting_ranks(p, self._check_setting(player_setting), self.back_rank)
        db, df = paigow_setting_ranks(d, self._check_setting(dealer_setting), self.back_rank)
        won = int(paigow_hands_won(pb, pf, db, df))
        if paigow_is_fouled(pb, pf, self.back_to_two):
            return -1.0, won, True
        return float(paigow_main_result(won, self.rules.commission)), won, False
