"""``Round``: one round of a :class:`~splitpoker.envs.rules.games.game.Game` from the deal to the full settlement.

A round deals the player's seven cards and ``n_dealers`` dealer hands (each seven of the 46 cards
the player does not hold; ``n_dealers > 1`` is the environments' ``dealer_samples`` variance
reduction, 1 is the real game), values the player's settings, and settles a chosen setting: the
main wager against every dealer hand set by the house way, and the bonus on the player's seven
cards. The arrays are filled in place by the numba kernels of :mod:`splitpoker.envs.rules.play.rounds`, so an
environment can show them without copying::

    rnd = Game("paigow").round()
    house = rnd.deal(seed=7)                      # the house-way setting of the player's cards
    out = rnd.settle(house, main_wager=5.0, bonus_wager=0.0)
    out["net_chips"], out["dealer_cards"]

``settle`` returns the outcome as plain data (the environments' ``info`` entries):

==========================  ===========================================================
key                          meaning
==========================  ===========================================================
``setting``, ``fouled``      the setting played and whether it fouls (a foul loses)
``hands_won``                hands won against the first dealer hand
``main_result``              mean main result per unit wagered over the dealer hands
``main_chips``               ``main_wager * main_result``
``bonus_chips``              the bonus (odds x wager capped, or ``-wager``; 0 without one)
``bonus_line``               key of the paying bonus line, or None
``net_chips``                ``main_chips + bonus_chips``
``dealer_cards``             the first dealer hand as text
``dealer_setting``           the first dealer hand's house-way setting
``agrees_with_house_way``    the setting is the house way's for the player's cards
``main_wager``, ``bonus_wager``  the wagers settled
==========================  ===========================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from splitpoker.envs.rules.bonus.features import features_sorted
from splitpoker.envs.rules.cards import format_cards

if TYPE_CHECKING:
    from splitpoker.envs.rules.games.game import Game


class Round:
    """The state of one round of ``game`` against ``n_dealers`` dealer hands.

    Attributes (filled by :meth:`deal`): ``player`` (``int64[7]`` sorted), ``dealers``
    (``int64[n_dealers, 7]``, each sorted), ``ranks`` (``int64[n_settings, n_slots]``, the hand
    values of every setting), ``fouled`` (``bool[n_settings]``), ``house_way_setting`` (of the
    player's cards, -1 before the first deal).
    """

    def __init__(self, game: Game, n_dealers: int = 1):
        if isinstance(n_dealers, bool) or not isinstance(n_dealers, (int, np.integer)) or n_dealers < 1:
            raise ValueError(f"n_dealers={n_dealers!r}: expected a positive integer (1 is the real game)")
        self.game = game
        self.n_dealers = int(n_dealers)
        self.player = np.zeros(7, dtype=np.int64)
        self.dealers = np.zeros((self.n_dealers, 7), dtype=np.int64)
        self.ranks = np.zeros((game.n_settings, len(game.slots)), dtype=np.int64)
        self.fouled = np.zeros(game.n_settings, dtype=np.bool_)
        self.dealer_settings = np.zeros(self.n_dealers, dtype=np.int64)
        self.dealer_won = np.zeros(self.n_dealers, dtype=np.int64)
        self.house_way_setting = -1

    def deal(self, seed: int) -> int:
        """Deal round ``seed`` (one counter-based stream per round) and value the player's
        settings; returns the house-way setting of the player's cards."""
        self.house_way_setting = self.game.start_round(seed, self.player, self.dealers, self.ranks, self.fouled)
        return self.house_way_setting

    def settle(self, setting: int, main_wager: float, bonus_wager: float = 0.0) -> dict[str, Any]:
        """The full payoff of playing ``setting`` with these wagers (table in the module docstring)."""
        if not 0 <= setting < self.game.n_settings:
            raise ValueError(f"setting {setting!r}: expected 0..{self.game.n_settings - 1}")
        fouled = bool(self.fouled[setting])
        mean = self.game.main_result(self.ranks[setting], fouled, self.dealers, self.dealer_settings, self.dealer_won)
        main_chips = main_wager * mean
        bonus_chips, line = 0.0, None
        if bonus_wager > 0:
            table = self.game.bonus_paytable
            if table is None:
                raise ValueError(f"bonus_wager={bonus_wager!r} on a game without a bonus pay table: expected 0")
            bonus_chips, line = table.settle(features_sorted(self.player, self.game.bonus_categories), bonus_wager)
        return {
            "setting": int(setting), "fouled": fouled, "hands_won": int(self.dealer_won[0]),
            "main_result": float(mean), "main_chips": float(main_chips), "bonus_chips": float(bonus_chips),
            "bonus_line": None if line is None else line.key, "net_chips": float(main_chips + bonus_chips),
            "dealer_cards": format_cards(self.dealers[0]), "dealer_setting": int(self.dealer_settings[0]),
            "agrees_with_house_way": int(setting) == self.house_way_setting,
            "main_wager": main_wager, "bonus_wager": bonus_wager,
        }
