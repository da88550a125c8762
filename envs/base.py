"""Shared machinery of the splitpoker environments: phases, the action layout, masks, penalties,
observation, rendering. The env holds one :class:`~splitpoker.envs.rules.games.game.Game` (``env.game``: tables,
house way, rules options, bonus pay table; built from the config) and one
:class:`~splitpoker.envs.rules.play.round.Round` of it, which deals and settles the whole payoff; ``step()`` only
routes. ``asia_poker.py`` and ``pai_gow_poker.py`` add the user manuals and the layout constants.
"""

from __future__ import annotations

import dataclasses
from enum import IntEnum
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from splitpoker.envs.actions import as_action
from splitpoker.envs.info import ROUND_INFO, complete, unexpected_keywords
from splitpoker.envs.observation import OBS_SIZE, fill_observation
from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.setting_features import FEATURES, SettingFeatures


class Phase(IntEnum):
    BET = 0
    SET = 1
    DONE = 2


def _config(cls, config, overrides, owner: str = ""):
    if config is None:
        config = cls()
    elif isinstance(config, dict):
        config = cls.from_dict(config)
    elif not isinstance(config, cls):
        raise TypeError(f"config must be a {cls.__name__}, a dict or None, got {type(config).__name__}")
    if overrides:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise unexpected_keywords(owner or f"{cls.__name__}()", unknown, names)
        config = cls.from_dict({**{f.name: getattr(config, f.name) for f in dataclasses.fields(cls)}, **overrides})
    return config


class SplitHandEnv(gym.Env):
    """Base class; see :class:`splitpoker.envs.asia_poker.AsiaPokerEnv` for the user manual."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    config_cls: type = None  # set by subclasses
    n_settings: int = 0
    slot_names: tuple[str, ...] = ()
    ranks_width = 0  # hands per setting
    _wager_name, _bonus_name = "wager", "bonus"

    def __init__(self, config=None, *, betting: bool = True, render_mode: str | None = None, **overrides):
        self.config = _config(self.config_cls, config, overrides, f"{type(self).__name__}.__init__()")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: expected one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.betting = bool(betting)
        self.game = self.config.make_game()
        main_levels, bonus_levels = self.config.bet_levels
        self.bet_table = [(float(a), float(b)) for a in main_levels for b in bonus_levels] if self.betting else []
        self.n_bet_actions = len(self.bet_table)
        self.setting_offset = self.n_bet_actions
        self.house_way_action = (self.setting_offset + self.n_settings) if self.config.allow_house_way_action else None
        n_actions = self.setting_offset + self.n_settings + (1 if self.config.allow_house_way_action else 0)
        self.action_space = spaces.Discrete(n_actions)
        self.obs_size = OBS_SIZE + (self.n_settings * self.ranks_width if self.config.observe_settings else 0)
        self.setting_features_start = self.obs_size
        self.setting_features_width = FEATURES[self.game.game]
        if self.config.setting_features:
            self.obs_size += self.n_settings * self.setting_features_width
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.obs_size,), dtype=np.float32)
        self._main_max, self._bonus_max = self.config.limits
        self._n_dealers = self.config.dealer_samples
        self.round = self.game.round(self._n_dealers)
        # the round's arrays, filled in place at every reset
        self.player, self.dealers = self.round.player, self.round.dealers
        self.ranks, self.fouled = self.round.ranks, self.round.fouled
        self._obs = np.zeros(self.obs_size, dtype=np.float32)
        self._mask_bet = np.zeros(n_actions, dtype=np.bool_)
        self._mask_bet[: self.n_bet_actions] = True
        self.phase = Phase.DONE
        self.main_wager = 0.0
        self.bonus_wager = 0.0
        self.house_way_setting = -1
        self.last_outcome: dict[str, Any] | None = None

        table = self._table = self.game.table  # the hand-rank table settings are valued with
        # observe_settings: each setting's hand values scaled to [0, 1] (rank classes, two-card 0..90, one-card 0..12)
        self._value_scale = 1.0 / np.array([table.n_classes - 1, 90, 12][: self.ranks_width], dtype=np.float32)
        self._setting_features = SettingFeatures(self.game.game, table.class_category) \
            if self.config.setting_features else None

    def _slots(self, cards, setting: int) -> list[tuple[str, list[int]]]:
        return self.game.slot_cards(cards, setting)

    def _describe(self, cards, setting: int) -> str:
        return "  ".join(f"{name} [{format_cards(hand, symbols=True)}]" for name, hand in self._slots(cards, setting))

    # ---- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset options {sorted(options)} are not supported: expected None")
        round_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.house_way_setting = self.round.deal(round_seed)
        self._cards_text = format_cards(self.player)
        self.last_outcome = None
        if self.betting:
            self.phase = Phase.BET
            self.main_wager = 0.0
            self.bonus_wager = 0.0
        else:
            self.phase = Phase.SET
            self.main_wager = self.config.fixed_wager
            self.bonus_wager = 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        action = self._validate_action(action)
        if action is None:  # penalised invalid action
            return self._observation(), -float(self.config.invalid_action_penalty), True, False, self._info()
        if self.phase == Phase.BET:
            self.main_wager, self.bonus_wager = self.bet_table[action]
            self.phase = Phase.SET
            if self.render_mode == "human":
                self.render()
            return self._observation(), 0.0, False, False, self._info()
        setting = self.house_way_setting if action == self.house_way_action else action - self.setting_offset
        outcome = self.round.settle(setting, self.main_wager, self.bonus_wager)
        outcome["house_way_action"] = action == self.house_way_action
        self.last_outcome = outcome
        self.phase = Phase.DONE
        reward = outcome["net_chips"] / self.config.unit
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), True, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the current phase (sb3-contrib's MaskablePPO protocol). Never all
        False: once the episode is done every action is marked (Pgx's convention; no action is
        taken from a terminal state, and a masked sampler needs one legal action)."""
        if self.phase == Phase.BET:
            return self._mask_bet.copy()
        if self.phase == Phase.DONE:
            return np.ones(self.action_space.n, dtype=np.bool_)
        mask = np.zeros(self.action_space.n, dtype=np.bool_)
        if self.phase == Phase.SET:
            legal = ~self.fouled if self.config.mask_fouls else np.ones(self.n_settings, dtype=np.bool_)
            mask[self.setting_offset : self.setting_offset + self.n_settings] = legal
            if self.house_way_action is not None:
                mask[self.house_way_action] = True
        return mask

    def render(self):
        """``ansi``: the table as text; ``human``: that text printed; ``rgb_array``: a picture of
        the table, an ``(450, 800, 3)`` ``uint8`` array (see :mod:`splitpoker.envs.render`); ``None``: warns
        and returns None."""
        if self.render_mode is None:
            gym.logger.warn(f"render() called without a render_mode: pass render_mode= one of "
                            f"{self.metadata['render_modes']} to gym.make (e.g. gym.make(id, render_mode='rgb_array'))")
            return None
        if self.render_mode == "rgb_array":
            from splitpoker.envs.render import draw_table

            return draw_table(self._table_view())
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- helpers --------------------------------------------------------------------------
    def _validate_action(self, action):
        action = as_action(action, self.action_space.n, check_range=False)
        if self.phase == Phase.DONE:
            raise ValueError(f"action {action} in phase DONE: the episode is over, call reset()")
        if not 0 <= action < self.action_space.n:
            raise ValueError(f"action {action} out of range: expected 0..{self.action_space.n - 1}")
        mask = self.action_masks()
        if mask[action]:
            return action
        penalize = self.config.invalid_action == "penalize"
        if penalize and self.phase == Phase.SET and action >= self.setting_offset:
            return action  # a masked fouled setting: played as in the game, where it loses the main wager
        why = self._why_illegal(action)
        if penalize:
            self.phase = Phase.DONE
            self.last_outcome = {"invalid_action": action, "reason": why, "net_chips": -self.config.invalid_action_penalty * self.config.unit}
            return None
        raise ValueError(f"action {action} is illegal in phase {self.phase.name}: {why}")

    def _why_illegal(self, action: int) -> str:
        if self.phase == Phase.BET:
            return f"the bet phase takes actions 0..{self.n_bet_actions - 1} (ante level x bonus level)"
        if action < self.setting_offset:
            return f"bets are over; the set phase takes settings {self.setting_offset}..{self.setting_offset + self.n_settings - 1}"
        return (f"setting {action - self.setting_offset} is fouled ({self._describe(self.player, action - self.setting_offset)}); "
                f"mask_fouls=True masks it (invalid_action='penalize' plays it as a foul, which loses the wager)")

    def _observation(self) -> np.ndarray:
        show = self.phase != Phase.BET
        fill_observation(self.player, show, int(self.phase), self.main_wager / self._main_max,
                         self.bonus_wager / self._bonus_max if self._bonus_max else 0.0, self._obs)
        if self.config.observe_settings:
            extra = self._obs[OBS_SIZE:self.setting_features_start]
            if show:
                extra[:] = (self.ranks * self._value_scale).ravel()
            else:
                extra[:] = 0.0
        if self._setting_features is not None:
            block = self._obs[self.setting_features_start:]
            if show:
                self._setting_features.fill(self.ranks, self.fouled, block)
            else:
                block[:] = 0.0
        return self._obs.copy()

    def _info(self) -> dict[str, Any]:
        """The step's info: every key of :data:`splitpoker.envs.info.ROUND_INFO` at every step."""
        info: dict[str, Any] = {"action_mask": self.action_masks(), "phase": self.phase.name.lower(),
                                "main_wager": float(self.main_wager), "bonus_wager": float(self.bonus_wager)}
        if self.phase != Phase.BET:
            info["cards"] = self._cards_text
            info["house_way_setting"] = self.house_way_setting
        if self.last_outcome is not None:
            info.update(self.last_outcome)
        return complete(info, ROUND_INFO)

    def _table_view(self):
        """What the ``rgb_array`` picture shows, as plain data (:class:`splitpoker.envs.render.TableView`)."""
        from splitpoker.envs.render import TableView

        wager = ""
        if self.main_wager:
            wager = f"{self._wager_name} ${self.main_wager:g}" + (f"  {self._bonus_name} ${self.bonus_wager:g}" if self.bonus_wager else "")
        view = TableView(title=f"{type(self).__name__.removesuffix('Env')}   phase: {self.phase.name.lower()}", wager=wager)
        if self.phase == Phase.BET:
            view.result = [f"choose a bet: {self.n_bet_actions} actions (main level x bonus level)"]
            return view
        view.cards = [int(c) for c in self.player]
        o = self.last_outcome
        if o is None or o.get("invalid_action", -1) >= 0:
            view.rows.append(("house way", self._slots(self.player, self.house_way_setting), ""))
            if o is None:
                view.result = [f"set the cards: {int(self.action_masks().sum())} legal actions"]
            else:
                view.result = [f"invalid action {o['invalid_action']}: penalty {o['net_chips']:+g} chips", o["reason"][:110]]
                view.result_colour = "#ff8a80"
            return view
        view.rows.append(("you set", self._slots(self.player, o["setting"]), "FOULED" if o["fouled"] else ""))
        view.rows.append(("dealer", self._slots(self.dealers[0], o["dealer_setting"]), ""))
        verdict = "FOULED: the wager loses" if o["fouled"] else f"won {o['hands_won']} of {len(self.slot_names)} hands"
        if self._n_dealers > 1:
            verdict += f" (shown: dealer 1 of {self._n_dealers}; main = mean {o['main_result']:+.3f} x wager)"
        net = o["net_chips"]
        view.result = [f"{verdict}   net {net:+g} chips",
                       f"main {o['main_chips']:+g}, bonus {o['bonus_chips']:+g}"
                       + (f" ({o['bonus_line']})" if o.get("bonus_line") else "")
                       + ("   (house way)" if o["agrees_with_house_way"] else "")]
        view.result_colour = "#b9f6ca" if net > 0 else ("#ff8a80" if net < 0 else "white")
        return view

    def _render_text(self) -> str:
        lines = [f"[{type(self).__name__}] phase: {self.phase.name.lower()}"]
        if self.main_wager:
            lines.append(f"wager ${self.main_wager:g}" + (f", bonus ${self.bonus_wager:g}" if self.bonus_wager else ""))
        if self.phase == Phase.BET:
            lines.append(f"choose a bet: {self.n_bet_actions} actions (main level x bonus level)")
            return "\n".join(lines)
        lines.append("your cards: " + format_cards(self.player, symbols=True))
        lines.append("house way:  " + self._describe(self.player, self.house_way_setting))
        o = self.last_outcome
        if o is not None and o.get("invalid_action", -1) >= 0:
            lines.append(f"invalid action {o['invalid_action']}: {o['reason']} (penalty)")
        elif o is not None:
            lines.append("you set:    " + self._describe(self.player, o["setting"]))
            lines.append("dealer:     " + self._describe(self.dealers[0], o["dealer_setting"]))
            verdict = "FOULED" if o["fouled"] else f"won {o['hands_won']} of {len(self.slot_names)} hands"
            lines.append(f"result: {verdict}; main {o['main_chips']:+g}, bonus {o['bonus_chips']:+g}"
                         + (f" ({o['bonus_line']})" if o.get("bonus_line") else "")
                         + f"; net {o['net_chips']:+g} chips")
        return "\n".join(lines)
