"""``Game``: one game (Asia Poker or Pai Gow Poker) with its rules options and the dealer's house
way — the validated Python facade the scripts, agents and solvers share.

Example::

    g = Game("asia", "asia-borgata")
    hand = g.hand("Qh Th 8h 3h Kd 5d Tc")
    g.house_way(hand)                       # HouseWayResult(setting=..., rule=...)
    mean, stderr = g.monte_carlo(hand, 20_000, seed=1)
"""

from __future__ import annotations

import numpy as np

from .asia import AsiaPoker
from .house_way import HouseWayResult, HouseWayStyle, house_way_setting
from .monte_carlo import asia_finish, asia_setting_sums, paigow_finish, paigow_setting_sums
from .options import AsiaRules, PaiGowRules
from .paigow import PaiGowPoker

GAMES = ("asia", "paigow")
DEFAULT_STYLE = {"asia": "asia-000", "paigow": "paigow-igw"}


class Game:
    def __init__(self, game: str, style: str | None = None, rules: AsiaRules | PaiGowRules | None = None):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}: expected one of {GAMES}")
        self.game = game
        self.style = HouseWayStyle.parse(style or DEFAULT_STYLE[game], game=game)
        if game == "asia":
            if rules is not None and not isinstance(rules, AsiaRules):
                raise ValueError(f"rules {rules!r} are not AsiaRules")
            self.engine = AsiaPoker(rules)
            self.rank_table = self.engine.high_rank
            self.to_two = self.engine.high_to_two
            self.slots = ("high", "medium", "low")
        else:
            if rules is not None and not isinstance(rules, PaiGowRules):
                raise ValueError(f"rules {rules!r} are not PaiGowRules")
            self.engine = PaiGowPoker(rules)
            self.rank_table = self.engine.back_rank
            self.to_two = self.engine.back_to_two
            self.slots = ("back", "front")
        self.rules = self.engine.rules
        self.n_settings = self.engine.n_settings
        self.style_id = self.style.style_id

    def __repr__(self) -> str:
        return f"Game({self.game!r}, {self.style.value!r}, {self.rules!r})"

    def hand(self, cards) -> np.ndarray:
        return self.engine.hand(cards)

    def house_way(self, cards) -> HouseWayResult:
        return house_way_setting(self.style, self.engine, cards)

    def settings(self, cards) -> tuple[np.ndarray, np.ndarray]:
        """Values ``ranks[n_settings, n_slots]`` and ``fouled[n_settings]``."""
        return self.engine.all_settings(cards)

    def describe(self, cards, s: int):
        return self.engine.describe(cards, s)

    def monte_carlo(self, cards, n_samples: int, seed: int = 0, *, chunk: int | None = None,
                    progress=None) -> tuple[np.ndarray, np.ndarray]:
        """Per-setting mean main result and standard error against ``n_samples`` dealer hands
        (the same hands for every setting). With ``chunk``, the dealer hands are dealt ``chunk`` at
        a time (``progress(n)`` after each), so a Ctrl-C is seen between chunks; the result is
        exactly the same."""
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(f"n_samples={n_samples!r}: expected a positive integer")
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1):
            raise ValueError(f"chunk={chunk!r}: expected a positive integer or None")
        hand = self.hand(cards)
        mean = np.empty(self.n_settings)
        stderr = np.empty(self.n_settings)
        seed = int(seed) & ((1 << 63) - 1)
        n = int(n_samples)
        step = n if chunk is None else int(chunk)
        s1, s2 = np.zeros(self.n_settings), np.zeros(self.n_settings)
        for start in range(0, n, step):
            stop = min(n, start + step)
            if self.game == "asia":
                fouled = asia_setting_sums(hand, start, stop, seed, self.style_id, self.rank_table, self.to_two, s1)
            else:
                fouled = paigow_setting_sums(hand, start, stop, seed, self.style_id, self.rank_table, self.to_two,
                                             self.rules.commission, s1, s2)
            if progress is not None:
                progress(stop - start)
        if self.game == "asia":
            asia_finish(fouled, s1, n, mean, stderr)
        else:
            paigow_finish(fouled, s1, s2, n, mean, stderr)
        return mean, stderr
