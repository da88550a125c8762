"""Bankroll-session environments: ``splitpoker/AsiaPokerSession-v0`` and
``splitpoker/PaiGowPokerSession-v0``.

A session is many rounds of the single-round game (:class:`splitpoker.envs.asia_poker.AsiaPokerEnv`,
:class:`splitpoker.envs.pai_gow_poker.PaiGowPokerEnv`, played inside) with one bankroll: betting becomes a
real decision once there is a goal. The exact optimum of the betting problem is
:mod:`splitpoker.agents.sessions.dp`; docs/sessions.md compares it with bold play, flat betting and learned
betting.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from splitpoker.envs.actions import as_action
from splitpoker.envs.asia_poker import AsiaPokerEnv
from splitpoker.envs.config import AsiaPokerConfig, PaiGowPokerConfig
from splitpoker.envs.info import ROUND_INFO, SESSION_INFO, SESSION_ROUND_KEYS, complete
from splitpoker.envs.pai_gow_poker import PaiGowPokerEnv
from splitpoker.envs.render import check_render_mode
from splitpoker.envs.rules.checks import check_real, is_integer
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.seed_stream import ROUND_SEED_BOUND

SETTERS = ("house-way", "optimal", "agent")
REWARDS = ("target", "bankroll", "log")
N_SESSION_FEATURES = 6
#: the largest bankroll or target, in chips: a float64 bankroll still changes by a cent at 10**12
MAX_CHIPS = 1e12


def _positive(name: str, value, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name}={value!r}: expected a positive number of chips" + (" or None" if allow_none else ""))
    return float(value)


class SplitHandSessionEnv(gym.Env):
    """Base class; see :class:`AsiaPokerSessionEnv` for the user manual."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    round_cls: type = None
    config_cls: type = None

    def __init__(self, bankroll: float = 100.0, target: float | None = 200.0, max_hands: int | None = None, *,
                 table: dict | Any = None, setting: str | Callable = "house-way", reward: str = "target",
                 invalid_action: str = "penalize", invalid_action_penalty: float = 1.0,
                 render_mode: str | None = None):
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if table is None:
            table = self.config_cls()
        elif isinstance(table, dict):
            table = self.config_cls.from_dict(table)
        elif not isinstance(table, self.config_cls):
            raise TypeError(f"table must be a {self.config_cls.__name__}, a dict of its fields or None, "
                            f"got {type(table).__name__}")
        self.start_bankroll = _positive("bankroll", bankroll)
        self.target = _positive("target", target, allow_none=True)
        for name, v in (("bankroll", self.start_bankroll), ("target", self.target)):
            if v is not None and v > MAX_CHIPS:
                raise ValueError(f"{name}={v:g}: expected at most {MAX_CHIPS:g} chips (beyond, a table's bets vanish in "
                                 f"floating-point rounding and the session never ends)")
        if max_hands is not None and (not is_integer(max_hands)
                                      or max_hands < 1):
            raise ValueError(f"max_hands={max_hands!r}: expected a positive integer or None (no hand limit)")
        self.max_hands = None if max_hands is None else int(max_hands)
        if self.target is None and self.max_hands is None:
            raise ValueError("target=None and max_hands=None: a session needs a target, a hand limit or both")
        if self.target is not None and self.target <= self.start_bankroll:
            raise ValueError(f"target={self.target:g} must be above the starting bankroll={self.start_bankroll:g}")
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r}: expected one of {REWARDS}")
        if reward == "target" and self.target is None:
            raise ValueError("reward='target' needs a target: give target=... or reward='bankroll' / 'log'")
        self.reward_mode = reward
        if invalid_action not in ("raise", "penalize"):
            raise ValueError(f"invalid_action={invalid_action!r}: expected 'raise' or 'penalize'")
        self.invalid_action = invalid_action
        self.invalid_action_penalty = check_real("invalid_action_penalty", invalid_action_penalty, minimum=0.0)
        if not (isinstance(setting, str) and setting in SETTERS) and not callable(setting):
            raise ValueError(f"setting={setting!r}: expected one of {SETTERS} or a callable cards -> setting index")
        self.setting = setting

        # the round is played by the single-round env: its phase is the session's hand phase, its
        # mask the set phase's; its kernel plays a masked foul (which loses) and forfeits the
        # wagers of a bet sent in the set phase (its penalty 0: the session's reward takes the
        # penalty, in the reward mode's units); a bet the bankroll does not cover never reaches it
        round_config = self.config_cls.from_dict({**table.to_dict(), "invalid_action": "penalize",
                                                  "invalid_action_penalty": 0.0, "dealer_samples": 1,
                                                  "allow_house_way_action": False})
        self.round = self.round_cls(round_config)
        self.game = self.round.game  # the Game the rounds are played and settled with
        self.config = table
        self.unit = float(table.unit)
        self.bet_table = list(self.round.bet_table)
        self.n_bet_actions = len(self.bet_table)
        self.min_bet = min(m + b for m, b in self.bet_table)
        if self.start_bankroll < self.min_bet:
            raise ValueError(f"bankroll={self.start_bankroll:g} is below the smallest bet the table takes "
                             f"(${self.min_bet:g}): no bet is possible; raise the bankroll or lower the levels")
        self.agent_sets = setting == "agent"
        self.n_settings = self.round.n_settings
        self.setting_offset = self.n_bet_actions
        self.house_way_action = (self.setting_offset + self.n_settings) if (
            self.agent_sets and table.allow_house_way_action) else None
        n_actions = self.n_bet_actions + ((self.n_settings + (self.house_way_action is not None)) if self.agent_sets else 0)
        self.action_space = spaces.Discrete(n_actions)
        self.obs_size = N_SESSION_FEATURES + (self.round.obs_size if self.agent_sets else 0)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.obs_size,), dtype=np.float32)
        self._setter = None
        if callable(setting):
            self._setter = setting
        elif setting == "optimal":
            self._setter = _optimal_setter(self.round)
        self._scale = self.target if self.target is not None else 2.0 * self.start_bankroll
        self.bankroll = self.start_bankroll
        self.hands_played = 0
        self.done = True
        self.last_round: dict[str, Any] | None = None
        self.last_outcome: dict[str, Any] | None = None

    # ---- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset options {sorted(options)} are not supported: expected None")
        self.bankroll = self.start_bankroll
        self.hands_played = 0
        if self.in_set_phase:  # a reset in the middle of a hand: the hand is abandoned (nothing settles)
            self.round.reset(seed=0)
        self.done = False
        self.last_round = None
        self.last_outcome = None
        self._round_obs = np.zeros(self.round.obs_size, dtype=np.float32)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        action = self._validate(action)
        if self.done:
            raise ValueError(f"action {action} after the session ended: call reset()")
        mask = self.action_masks()
        if not mask[action]:
            return self._invalid(action)
        if not self.in_set_phase:
            main, bonus = self.bet_table[action]
            # round deal: one 64-bit draw from the session's np_random per hand (common random numbers:
            # hand k of a session seeded s is the same cards whatever was bet before)
            self.round.reset(seed=int(self.np_random.integers(0, ROUND_SEED_BOUND)))
            obs, _, _, _, rinfo = self.round.step(action)
            if self.agent_sets:  # the round is in its set phase
                self._round_obs = obs
                return self._observation(), 0.0, False, False, self._info()
            setting = self.round.house_way_setting if self._setter is None else as_action(
                self._setter(self.round.player.copy()), self.n_settings, " (a setting returned by the setting callable)")
            return self._finish_round(self.round.setting_offset + setting)
        if action == self.house_way_action:
            round_action = self.round.setting_offset + self.round.house_way_setting
        else:
            round_action = self.round.setting_offset + (action - self.setting_offset)
        return self._finish_round(round_action)

    @property
    def in_set_phase(self) -> bool:
        """The hand is dealt and waits for the agent's setting: the round's own phase."""
        return self.round.phase == Phase.SET

    def action_masks(self) -> np.ndarray:
        """Bets the bankroll covers (bet phase; the round takes every bet of the table) or the
        round's own mask of its settings (set phase: the unfouled ones, every one with the table's
        ``mask_fouls=False``), and the house-way action when there is one."""
        if self.done:  # never all False: every action marked once the session is over (Pgx's convention)
            return np.ones(self.action_space.n, dtype=np.bool_)
        mask = np.zeros(self.action_space.n, dtype=np.bool_)
        if not self.in_set_phase:
            for a, (m, b) in enumerate(self.bet_table):
                mask[a] = m + b <= self.bankroll + 1e-9
        else:
            r0 = self.round.setting_offset
            mask[self.setting_offset: self.setting_offset + self.n_settings] = \
                self.round.action_masks()[r0: r0 + self.n_settings]
            if self.house_way_action is not None:
                mask[self.house_way_action] = True
        return mask

    def render(self):
        """``ansi``: the session line (bankroll, target, hands) and the last hand as text;
        ``human``: that text printed; ``rgb_array``: the last hand's picture (as the one-round
        envs draw it, :mod:`splitpoker.envs.render`) headed by the session line."""
        if self.render_mode is None:
            gym.logger.warn(f"render() called without a render_mode: pass render_mode= one of "
                            f"{self.metadata['render_modes']} to gym.make")
            return None
        limit = f", hand {self.hands_played}/{self.max_hands}" if self.max_hands else f", hand {self.hands_played}"
        head = (f"bankroll ${self.bankroll:g}" + (f" / target ${self.target:g}" if self.target else "") + limit
                + (f", session over: {self.last_outcome['end']}" if self.done and self.last_outcome else ""))
        if self.render_mode == "rgb_array":
            from splitpoker.envs.render import TableView, draw_table

            if self.last_round is None and not self.in_set_phase:
                view = TableView(title=f"{type(self).__name__.removesuffix('Env')}   {head}",
                                 result=[f"choose a bet: {int(self.action_masks().sum())} bets the bankroll covers"])
            else:
                view = self.round._table_view()
                view.title = f"{type(self).__name__.removesuffix('Env')}   {head}"
            return draw_table(view)
        lines = [f"[{type(self).__name__}] {head}"]
        if self.last_round is not None or self.in_set_phase:
            lines.append(self.round._render_text())
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- helpers --------------------------------------------------------------------------
    def _validate(self, action) -> int:
        return as_action(action, self.action_space.n)

    def _why(self, action: int) -> str:
        if not self.in_set_phase:
            if action >= self.n_bet_actions:
                return f"the bet phase takes bets 0..{self.n_bet_actions - 1}, not a setting"
            m, b = self.bet_table[action]
            return f"bet ${m:g} + bonus ${b:g} is more than the bankroll ${self.bankroll:g}"
        return f"bets are over; the set phase takes settings {self.setting_offset}.." \
               f"{self.setting_offset + self.n_settings - 1}"

    def _invalid(self, action: int):
        """A masked action: a fouled setting is played (and loses); anything else ends the session
        with the invalid-action rule of every env (:func:`~splitpoker.envs.rules.play.kernel.invalid_outcome`):
        a bet sent in the set phase is stepped by the round, whose kernel forfeits the hand's wagers
        from the bankroll, and the reward is the reward mode's value of that loss less
        ``invalid_action_penalty``; a bet the bankroll does not cover, or a setting in the bet
        phase, places nothing: the penalty alone."""
        if self.in_set_phase and self.setting_offset <= action < self.setting_offset + self.n_settings:
            return self._finish_round(self.round.setting_offset + (action - self.setting_offset))  # a foul, played
        why = self._why(action)
        if self.invalid_action == "raise":
            raise ValueError(f"action {action} is illegal in the {'set' if self.in_set_phase else 'bet'} phase: {why}")
        before = self.bankroll
        if self.in_set_phase:  # a bet in the set phase: the round's kernel forfeits the hand's wagers
            _, _, _, _, rinfo = self.round.step(action)  # (its penalty is 0: the reward takes the penalty)
            main, bonus, net = rinfo["main_wager"], rinfo["bonus_wager"], rinfo["net_chips"]
            self.bankroll = round(self.bankroll + net, 6)
            self.hands_played += 1
            self.last_round = complete({"main_wager": main, "bonus_wager": bonus, "main_chips": -main,
                                        "bonus_chips": -bonus, "net_chips": net, "cards": self.round._cards_text,
                                        "house_way_setting": self.round.house_way_setting},
                                       {k: ROUND_INFO[k] for k in SESSION_ROUND_KEYS})
            why += "; the hand's wagers are forfeited, and the penalty on top"
        else:
            why += "; no wager placed: the penalty alone"
        self.done = True
        self.last_outcome = {"invalid_action": action, "reason": why, "end": "invalid action",
                             "bankroll": self.bankroll, "hands_played": self.hands_played}
        reward = self._reward(before, "invalid action") - self.invalid_action_penalty
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), True, False, self._info()

    def _reward(self, before: float, end: str | None) -> float:
        """The reward mode's value of the bankroll going from ``before`` to ``self.bankroll`` on a
        hand that ended the session with ``end`` (or not, None)."""
        if self.reward_mode == "bankroll":
            return (self.bankroll - before) / self.unit
        if self.reward_mode == "log":
            return math.log1p(max(self.bankroll, 0.0) / self.unit) - math.log1p(max(before, 0.0) / self.unit)
        return float(end == "target")

    def _finish_round(self, round_action: int):
        obs, _, _, _, rinfo = self.round.step(round_action)
        before = self.bankroll
        self.bankroll = round(self.bankroll + rinfo["net_chips"], 6)
        self.hands_played += 1
        self.last_round = {k: rinfo[k] for k in SESSION_ROUND_KEYS}
        end = None
        if self.target is not None and self.bankroll >= self.target - 1e-9:
            end = "target"
        elif self.bankroll < self.min_bet - 1e-9:
            end = "ruin"
        elif self.max_hands is not None and self.hands_played >= self.max_hands:
            end = "hand limit"
        self.done = end is not None
        reward = self._reward(before, end)
        if self.done:
            self.last_outcome = {"end": end, "reached_target": end == "target", "bankroll": self.bankroll,
                                 "hands_played": self.hands_played}
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), self.done, False, self._info()

    def _observation(self) -> np.ndarray:
        obs = np.zeros(self.obs_size, dtype=np.float32)
        obs[0] = min(1.0, self.bankroll / self._scale)
        obs[1] = min(1.0, self.min_bet / self.bankroll) if self.bankroll > 0 else 1.0
        obs[2] = 1.0 if self.max_hands is None else (self.max_hands - self.hands_played) / self.max_hands
        obs[3] = float(self.max_hands is not None)
        obs[4] = min(1.0, self.min_bet / self._scale)
        obs[5] = float(self.in_set_phase)
        if self.agent_sets and self.in_set_phase:
            obs[N_SESSION_FEATURES:] = self._round_obs
        return obs

    def _info(self) -> dict[str, Any]:
        """Every key of :data:`splitpoker.envs.info.SESSION_INFO` at every step, and ``round``
        (the last hand's :data:`~splitpoker.envs.info.SESSION_ROUND_KEYS`; defaults before the
        first hand)."""
        info: dict[str, Any] = {"action_mask": self.action_masks(), "bankroll": self.bankroll,
                                "hands_played": self.hands_played,
                                "hands_left": -1 if self.max_hands is None else self.max_hands - self.hands_played,
                                "phase": "done" if self.done else ("set" if self.in_set_phase else "bet")}
        if self.in_set_phase:
            info["cards"] = self.round._cards_text
            info["house_way_setting"] = self.round.house_way_setting
        last = self.last_round if self.last_round is not None else {k: ROUND_INFO[k] for k in SESSION_ROUND_KEYS}
        info["round"] = complete(last, {k: ROUND_INFO[k] for k in SESSION_ROUND_KEYS})
        if self.done and self.last_outcome is not None:
            info.update(self.last_outcome)
        return complete(info, SESSION_INFO)


def _optimal_setter(round_env):
    """The exact-optimal setting of the player's cards (ties: the house way, else the lowest
    index), from the exact solver (:mod:`splitpoker.envs.solver`), imported lazily: it needs the 617 MB
    dealer table, built or loaded on first use."""
    from splitpoker.envs.solver.exact import ExactSolver

    solver = ExactSolver(round_env.game)

    def setter(cards: np.ndarray) -> int:
        return solver.solve(cards).best(prefer=round_env.house_way_setting)

    return setter


class AsiaPokerSessionEnv(SplitHandSessionEnv):
    """A bankroll session of Asia Poker against the house-way dealer.

    ## Description
    The player starts with ``bankroll`` chips and plays round after round of Asia Poker
    (:class:`splitpoker.envs.asia_poker.AsiaPokerEnv`: seven cards set into high, medium and low hands; two
    wins of three pay even money on the ante; copies go to the dealer, so the ante never pushes;
    the optional bonus pays on the seven cards alone). Each round the agent bets an ante level
    and a bonus level of the table (``table``: any :class:`splitpoker.envs.config.AsiaPokerConfig` field;
    seed 000: $5-$1,000 ante, bonus up to $100); the hand is then set by the dealer's house way
    (``setting="house-way"``, default), by the exact-optimal setter (``"optimal"``: one exact
    solve per hand, ~0.1-0.2 s, the 617 MB dealer table), by a callable ``cards -> setting``, or
    by the agent itself (``"agent"``: a second step per round). The session ends at the target,
    at ruin or at the hand limit. In a single round every wager has negative expectation with the
    house way; with a goal, betting matters: :mod:`splitpoker.agents.sessions.dp` gives the exact optimum.

    ## Action Space
    ``Discrete(n_bet)`` (``n_bet = n_ante * n_bonus``, 48 at seed 000's levels): action ``a``
    bets ``ante_levels[a // n_bonus]`` and ``bonus_levels[a % n_bonus]``. With
    ``setting="agent"``, ``Discrete(n_bet + 105 [+ 1])``: after the bet, action ``n_bet + s``
    sets the cards by setting ``s`` (as in ``AsiaPoker-v0``), and ``n_bet + 105`` plays the house
    way when ``table={"allow_house_way_action": True}``.

    ``action_masks()`` and ``info["action_mask"]``: bets whose total (ante + bonus) the bankroll
    covers; in the set phase the round's mask of its settings (the unfouled ones; every setting
    with ``table={"mask_fouls": False}``). Stepping a masked action (default
    ``invalid_action="penalize"``) ends the session with ``info["invalid_action"]``,
    ``info["reason"]`` (Rewards): a bet above the bankroll or a setting in the bet phase places
    nothing; a bet action in the set phase forfeits the hand's wagers (ante and bonus) from the
    bankroll. A masked (fouled) setting is played as in the real game and loses the ante.
    ``invalid_action="raise"`` raises ``ValueError`` naming the action and the phase.

    ## Observation Space
    ``Box(0, 1, (6,), float32)``; with ``setting="agent"`` the round's observation
    (``AsiaPoker-v0``'s 202 values, or 517 with ``observe_settings``) follows, zero in the bet
    phase.

    =====  ====================================================================
    index  meaning
    =====  ====================================================================
    0      bankroll / target (``2 * bankroll`` at the start if there is no target), capped at 1
    1      smallest bet / bankroll (capped at 1): the bankroll in table minimums, inverted
    2      hands left / ``max_hands`` (1 with no hand limit)
    3      1 if there is a hand limit
    4      smallest bet / target: the target in table minimums, inverted
    5      1 in the set phase (``setting="agent"``), else 0
    6-     (``setting="agent"``) the round observation, :mod:`splitpoker.envs.rules.play.observation`
    =====  ====================================================================

    ## Rewards
    ``reward="target"`` (default): 1 on the step that reaches the target, else 0 (the return is
    the success indicator, whose mean the DP maximises). ``"bankroll"``: each hand's net chips /
    the table minimum (the return is final minus starting bankroll). ``"log"``: each hand's change
    of ``ln(1 + bankroll / minimum)`` (the return is the log-utility of the final bankroll).

    A penalised invalid action: the mode's reward of the bankroll's change (0 in the bet phase, the
    forfeited wagers in the set phase; a session ended so never the target) less
    ``invalid_action_penalty``, so it is worse than any played hand (docs/rules.md, "Invalid
    actions"). The penalty is a reward only: the bankroll loses just the forfeited wagers.

    ## Episode End
    Terminates when the bankroll reaches ``target``, when it falls below the smallest bet the
    table takes (ruin), after ``max_hands`` hands (observed, so a termination, not a truncation),
    or on a penalised invalid action. ``info`` then holds ``end`` (``target``, ``ruin``, ``hand
    limit``, ``invalid action``), ``reached_target``, ``bankroll`` and ``hands_played``; every
    step's ``info`` carries ``bankroll``, ``hands_played``, ``hands_left``, ``phase``,
    ``action_mask`` and, after a hand, ``round`` (the hand's cards, setting, wagers and chips).

    ## Arguments
    ``gym.make("splitpoker/AsiaPokerSession-v0", bankroll=100, target=200, max_hands=None,
    table=None | dict | AsiaPokerConfig, setting="house-way" | "optimal" | "agent" | callable,
    reward="target" | "bankroll" | "log", invalid_action="penalize" | "raise",
    invalid_action_penalty=1.0, render_mode=None | "ansi" | "human" | "rgb_array")``. Bankroll and target are in
    chips. A bankroll or target that is not positive, a target not above the bankroll, a bankroll
    below the smallest bet, neither target nor hand limit, or an ``invalid_action_penalty`` that is
    not a finite number >= 0 (the single envs' check) raise ``ValueError`` naming the value.

    ## Version History
    * v0: initial release.
    * v0, revised in 0.2 (same id): ``info`` holds the same keys at every step, never ``None``
      (``hands_left`` is -1 with no hand limit; ``round`` holds defaults before the first hand);
      the mask is all True once the session is over; ``render_mode="rgb_array"``.
    * v0, revised (same id; legal play unchanged): with ``setting="agent"`` a bet action in the
      set phase forfeits the hand's wagers from the bankroll, the penalty on top (the bankroll
      was left unchanged).
    """

    round_cls = AsiaPokerEnv
    config_cls = AsiaPokerConfig


class PaiGowPokerSessionEnv(SplitHandSessionEnv):
    """A bankroll session of Pai Gow Poker against the IGW house way.

    ## Description
    As :class:`AsiaPokerSessionEnv`, with rounds of Pai Gow Poker
    (:class:`splitpoker.envs.pai_gow_poker.PaiGowPokerEnv`: a win pays even money less the 5% commission, so
    a $5 win adds $4.75; one hand each is a push; the optional Fortune bonus pays on the seven
    cards). ``table``: any :class:`splitpoker.envs.config.PaiGowPokerConfig` field (wager levels $5-$500,
    Fortune levels 0/$5/$10/$25 by default).

    ## Action Space
    ``Discrete(n_bet)`` (7 wager levels × 4 Fortune levels = 28), or ``Discrete(n_bet + 21 [+ 1])``
    with ``setting="agent"``; masks and invalid actions as in :class:`AsiaPokerSessionEnv`.

    ## Observation Space
    The 6 session values of :class:`AsiaPokerSessionEnv`, then with ``setting="agent"`` the
    round's 202 (244 with ``observe_settings``) values.

    ## Rewards
    As :class:`AsiaPokerSessionEnv`.

    ## Episode End
    As :class:`AsiaPokerSessionEnv`.

    ## Arguments
    ``gym.make("splitpoker/PaiGowPokerSession-v0", bankroll=100, target=200, max_hands=None,
    table=None | dict | PaiGowPokerConfig, setting=..., reward=..., invalid_action=...,
    invalid_action_penalty=1.0, render_mode=None)``.

    ## Version History
    * v0: initial release.
    * v0, revised in 0.2 (same id): ``info`` holds the same keys at every step, never ``None``
      (``hands_left`` is -1 with no hand limit; ``round`` holds defaults before the first hand);
      the mask is all True once the session is over; ``render_mode="rgb_array"``.
    * v0, revised (same id): as :class:`AsiaPokerSessionEnv`, a bet action in the set phase
      forfeits the hand's wagers.
    """

    round_cls = PaiGowPokerEnv
    config_cls = PaiGowPokerConfig
