"""``Round``: one round of a :class:`~splitpoker.envs.rules.game.Game` from the deal to the full settlement.

A round deals the player's seven cards and ``n_dealers`` dealer hands (each seven of the 46 cards
the player does not hold; ``n_dealers > 1`` is the environments' ``dealer_samples`` variance
reduction, 1 is the real game), values the player's settings, and settles a chosen setting: the
main wager against every dealer hand set by the house way, and the bonus on the player's seven
cards. It is one row of the round kernel every environment runs
(:class:`~splitpoker.envs.rules.play.round_rows.RoundRows`, :mod:`splitpoker.envs.rules.play.kernel`), with
the wagers given instead of a bet phase; its arrays are the row's, filled in place::

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

from typing import Any

import numpy as np

from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.round_rows import RoundOptions, RoundRows


class Round:
    """The state of one round of ``game`` (a :class:`~splitpoker.envs.rules.game.Game`)
    against ``n_dealers`` dealer hands.

    Attributes (filled by :meth:`deal`): ``player`` (``int64[7]`` sorted), ``dealers``
    (``int64[n_dealers, 7]``, each sorted), ``ranks`` (``int64[n_settings, n_slots]``, the hand
    values of every setting), ``fouled`` (``bool[n_settings]``), ``house_way_setting`` (of the
    player's cards, -1 before the first deal).
    """

    def __init__(self, game, n_dealers: int = 1):
        if not is_integer(n_dealers) or n_dealers < 1:
            raise ValueError(f"n_dealers={n_dealers!r}: expected a positive integer (1 is the real game)")
        self.game = game
        self.n_dealers = int(n_dealers)
        self.rows = RoundRows(game, 1, RoundOptions(keep_ranks=True, seed_from_streams=False, mode=K.DISABLED,
                                                    n_dealers=self.n_dealers))
        r = self.rows
        self.player, self.dealers, self.ranks, self.fouled = r.player[0], r.dealers[0], r.ranks[0], r.fouled[0]
        self.dealer_settings, self.dealer_won = r.dealer_settings[0], r.dealer_won[0]
        self._dealt = False

    @property
    def house_way_setting(self) -> int:
        return int(self.rows.house_way[0]) if self._dealt else -1

    def deal(self, seed: int) -> int:
        """Deal round ``seed`` (one counter-based stream per round) and value the player's
        settings; returns the house-way setting of the player's cards."""
        self.rows.round_seeds[0] = int(seed)
        self.rows.reset()
        self._dealt = True
        return self.house_way_setting

    def settle(self, setting: int, main_wager: float, bonus_wager: float = 0.0) -> dict[str, Any]:
        """The full payoff of playing ``setting`` with these wagers (table in the module docstring);
        any number of settings may be settled on one deal."""
        if not 0 <= setting < self.game.n_settings:
            raise ValueError(f"setting {setting!r}: expected 0..{self.game.n_settings - 1}")
        if bonus_wager > 0 and self.game.bonus_paytable is None:
            raise ValueError(f"bonus_wager={bonus_wager!r} on a game without a bonus pay table: expected 0")
        if not self._dealt:
            raise ValueError("settle() before deal(): deal a round first")
        r = self.rows
        r.phase[0] = K.SET  # the set phase of this deal, with the wagers given
        r.main_wager[0], r.bonus_wager[0] = main_wager, bonus_wager
        out = r.step(np.array([r.offset + int(setting)], dtype=np.int64))
        outcome = r.outcome(out, 0)
        return {**outcome, "bonus_line": outcome["bonus_line"] or None}
