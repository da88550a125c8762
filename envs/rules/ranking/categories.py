"""Names for hand categories (never magic integers).

``HandCategory`` labels every hand the engine ranks. Its numeric values are *labels*, not the
ranking: a hand's strength is its dense rank from :mod:`splitpoker.envs.rules.ranking.rank_tables`, because rules
options can reorder categories (Asia Poker flush vs straight). The default orders are:

* Asia Poker four-card high hand, best first: FOUR_OF_A_KIND, STRAIGHT_FLUSH, FLUSH, STRAIGHT,
  THREE_OF_A_KIND, TWO_PAIR, PAIR, HIGH_CARD (a royal flush is just the top straight flush and is
  labelled STRAIGHT_FLUSH).
* Pai Gow Poker five-card back hand, best first: FIVE_ACES, ROYAL_FLUSH, STRAIGHT_FLUSH,
  FOUR_OF_A_KIND, FULL_HOUSE, FLUSH, STRAIGHT, THREE_OF_A_KIND, TWO_PAIR, PAIR, HIGH_CARD.
* Two-card hands (Asia medium, Pai Gow front): PAIR above HIGH_CARD. One-card: HIGH_CARD.
"""

from enum import IntEnum


class HandCategory(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_ACES = 10

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").title().replace("Of A", "of a")
