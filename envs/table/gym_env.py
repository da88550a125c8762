"""Single-agent table environments: ``splitpoker/PaiGowTable-v0`` and ``splitpoker/AsiaTable-v0``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from splitpoker.envs.actions import as_action
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
from splitpoker.envs.render import check_render_mode
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.seed_stream import ROUND_SEED_BOUND
from splitpoker.envs.rules.table.table import MAX_SEATS
from splitpoker.envs.table.seats import TableSeats

OTHER_POLICIES = ("house_way", "random")


class TableEnv(gym.Env):
    """One learner at a multi-seat table; the other seats play a given policy.

    ## Description
    The table of ``splitpoker.envs.table.paigow_table_v0`` / ``asia_table_v0`` (dealer plus up to six seats
    dealt from one 53-card deck in seed 004's order) seen from one seat: the learner sits at seat
    ``seat`` and ``other_seats`` more seats are taken (the lowest free seat numbers), playing
    ``other_policy``: ``"house_way"`` (default: they bet ``house_way_bet`` and set the house way),
    ``"random"`` (random legal bet and setting) or a callable ``policy(observation, action_mask) ->
    action`` given each other seat's own observation (this env's layout). Their hands remove cards
    from the deck and, at Pai Gow, pay the learner's Envy bonus (a Fortune wager of $5+ collects
    the Envy amount for every other seat's four of a kind or better); this is the env to learn
    Envy and card-removal effects against.

    ## Action Space
    ``Discrete(n_bet + n_settings [+ 1])`` as the one-seat ``PaiGowPoker-v0`` / ``AsiaPoker-v0``:
    bet levels, then settings, then optionally "play the house way". ``action_masks()`` (sb3-contrib
    protocol) and ``info["action_mask"]``.

    ## Observation Space
    ``Box(0, 1, (210,), float32)``: 0-201 as the one-seat envs (:mod:`splitpoker.envs.rules.play.observation`), 202 = other
    seats in play / 5, 203 = holds Envy, 204-209 = one-hot seat number (``splitpoker.envs.table.seats``);
    ``observe_settings=True`` appends the settings' values.

    ## Rewards
    The learner's net chips (main + bonus + Envy) / ``reward_unit`` at settlement; 0 for the bet.
    A wrong-phase action: ``-invalid_action_penalty`` in the bet phase; in the set phase every
    wager placed is forfeited, ``-(main + bonus) / reward_unit - invalid_action_penalty``, worse
    than any played hand (docs/rules.md, "Invalid actions").

    ## Episode End
    After the set step. Default ``invalid_action="penalize"``: every action steps; a fouled setting
    is played and loses; a wrong-phase action ends the episode (Rewards) with
    ``info["invalid_action"]``, ``info["reason"]``. ``"raise"``: a masked action raises
    ``ValueError`` naming the action and phase.

    ## Arguments
    ``gym.make("splitpoker/PaiGowTable-v0", seat=1, other_seats=5, other_policy="house_way",
    envy=True, envy_unit=1.0, house_way_bet=(5, 0), config=None, render_mode=None, info_text=True,
    **fields)``; every ``PaiGowPokerConfig`` / ``AsiaPokerConfig`` field is a keyword.
    ``info_text=False``: every ``info`` value a number (numpy arrays, 0-d for a number; the text
    keys as the codes of :mod:`splitpoker.envs.info`, the seat's ``kind`` as its ``SeatKind``),
    for tensor libraries (TorchRL's ``GymEnv`` + ``auto_register_info_dict``: docs/clients.md).

    ## Rendering
    ``render_mode="rgb_array"``: the learner's view as an ``(450, 800, 3)`` ``uint8`` picture (its
    cards, its setting and the dealer's once settled, its result with Envy); ``"ansi"``/``"human"``:
    the whole table as text.

    ## Version History
    * v0: initial release.
    * v0, revised in 0.2 (same id): ``info`` holds the same keys at every step, never ``None``
      (:data:`splitpoker.envs.info.TABLE_INFO`); the mask is all True once the seat's round is over.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}
    game = ""

    def __init__(self, seat: int = 1, other_seats: int = 5, other_policy: Any = "house_way", *,
                 envy: bool | None = None, envy_unit: float = 1.0, house_way_bet=None, config=None,
                 render_mode: str | None = None, info_text: bool = True, **overrides):
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if not is_integer(seat) or not 1 <= seat <= MAX_SEATS:
            raise ValueError(f"seat={seat!r}: expected 1..{MAX_SEATS}")
        if not is_integer(other_seats) or not 0 <= other_seats <= MAX_SEATS - 1:
            raise ValueError(f"other_seats={other_seats!r}: expected 0..{MAX_SEATS - 1} (a 53-card deck deals the dealer and 6 seats)")
        if not callable(other_policy) and other_policy not in OTHER_POLICIES:
            raise ValueError(f"other_policy={other_policy!r}: expected one of {OTHER_POLICIES} or a callable (obs, mask) -> action")
        self.other_policy = other_policy
        other_kind = "house_way" if other_policy == "house_way" else "player"
        layout = ["empty"] * MAX_SEATS
        layout[seat - 1] = "player"
        free = [s for s in range(1, MAX_SEATS + 1) if s != seat][: int(other_seats)]
        for s in free:
            layout[s - 1] = other_kind
        while layout and layout[-1] == "empty":
            layout.pop()
        envy = get_spec(self.game).has_envy if envy is None else envy
        self.seats = TableSeats(self.game, tuple(layout), envy=envy, envy_unit=envy_unit, house_way_bet=house_way_bet,
                                config=config, info_text=info_text, **overrides)
        self.config = self.seats.config
        self.seat = int(seat)
        self._others = [s for s in self.seats.player_seats if s != self.seat]
        self.action_space = spaces.Discrete(self.seats.n_actions)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.seats.obs_size,), dtype=np.float32)

    def action_masks(self) -> np.ndarray:
        return self.seats.mask(self.seat).astype(bool)

    def _info(self):
        info = self.seats.info(self.seat)
        info["action_mask"] = info["action_mask"].astype(bool)
        return info

    def _other_action(self, s: int) -> int:
        mask = self.seats.mask(s)
        if callable(self.other_policy):
            return as_action(self.other_policy(self.seats.observation(s), mask.astype(bool)), self.seats.n_actions,
                             f" (returned by other_policy for seat {s})")
        return int(self.np_random.choice(np.flatnonzero(mask)))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset options {sorted(options)} are not supported: expected None")
        self.seats.reset_round(int(self.np_random.integers(0, ROUND_SEED_BOUND)))
        if self.render_mode == "human":
            self.render()
        return self.seats.observation(self.seat), self._info()

    def step(self, action):
        if self.seats.phase == Phase.DONE or not self.seats.in_play(self.seat):
            raise ValueError(f"action {action!r} in phase DONE: the episode is over, call reset()")
        actions = {self.seat: action}
        for s in self._others:
            if self.seats.in_play(s):
                actions[s] = self._other_action(s)
        rewards = self.seats.apply(actions)
        reward = float(rewards.get(self.seat, 0.0))
        terminated = self.seat in rewards or self.seats.phase == Phase.DONE
        if self.render_mode == "human":
            self.render()
        return self.seats.observation(self.seat), reward, terminated, False, self._info()

    def render(self):
        if self.render_mode == "rgb_array":
            from splitpoker.envs.render import draw_table

            return draw_table(self._table_view())
        return self.seats.render_text(self.render_mode)

    def _table_view(self):
        """The learner's view for ``rgb_array`` (:class:`splitpoker.envs.render.TableView`): its cards, its
        setting and the dealer's once settled, its result and the other seats' Envy."""
        from splitpoker.envs.render import TableView
        from splitpoker.envs.rules.game import slot_cards

        t = self.seats.table
        bet = t.bets.get(self.seat)
        wager = "" if not bet else (f"wager ${bet[0]:g}" + (f"  bonus ${bet[1]:g}" if bet[1] else "") + ("  + Envy" if bet[2] else ""))
        view = TableView(title=f"{type(self).__name__.removesuffix('Env')} seat {self.seat}   phase: {t.phase.name.lower()}",
                         wager=wager)
        if t.phase == Phase.BET:
            view.result = [f"choose a bet; {len(self._others)} other seat(s) at the table"]
            return view
        view.cards = [int(c) for c in t.hands[self.seat]]
        result = t.result.seats.get(self.seat) if t.result is not None else None
        if result is None:
            view.result = [f"set the cards: {int(self.action_masks().sum())} legal actions"]
            return view
        view.rows.append(("you set", slot_cards(self.game, t.hands[self.seat], result.setting), "FOULED" if result.fouled else ""))
        view.rows.append(("dealer", slot_cards(self.game, t.hands[0], t.result.dealer_setting), ""))
        view.result = [f"{'FOULED' if result.fouled else f'won {result.hands_won} hands'}   net {result.net:+g} chips",
                       f"main {result.main:+g}, bonus {result.bonus:+g}" + (f" ({result.bonus_line})" if result.bonus_line else "")
                       + (f", Envy {result.envy_chips:+g} from {result.envy_hands} hand(s)" if result.envy else "")]
        view.result_colour = "#b9f6ca" if result.net > 0 else ("#ff8a80" if result.net < 0 else "white")
        return view

class PaiGowTableEnv(TableEnv):
    __doc__ = TableEnv.__doc__
    game = "paigow"
    config_cls = PaiGowPokerConfig


class AsiaTableEnv(TableEnv):
    __doc__ = TableEnv.__doc__
    game = "asia"
    config_cls = AsiaPokerConfig
