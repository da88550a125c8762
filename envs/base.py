"""The single environments' machinery: one row of the round kernel behind Gymnasium's API.

A :class:`SplitHandEnv` holds the :class:`~splitpoker.envs.rules.game.Game` its config
describes (``env.game``: tables, house way, rules options, bonus pay table) and one row of the
round kernel (:class:`~splitpoker.envs.rules.play.round_rows.RoundRows`, ``env.rows``), which deals,
settles, observes and masks; ``step()`` checks the action, runs the kernel and turns its outputs
into ``info`` (:mod:`splitpoker.envs.info`). ``asia_poker.py`` and ``pai_gow_poker.py`` add the
user manuals and the layout constants; the native vector env runs the same kernel on N rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from splitpoker.envs.actions import as_action
from splitpoker.envs.info import ROUND_INFO, check_info_text, complete, numeric, unexpected_keywords
from splitpoker.envs.render import check_render_mode
from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.rules.dealing import deal_dealers_into
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.observation import OBS_SIZE
from splitpoker.envs.rules.play.round_rows import RoundOptions, RoundRows, bet_table_of
from splitpoker.envs.rules.play.seed_stream import ROUND_SEED_BOUND
from splitpoker.envs.setting_features import FEATURES, SettingFeatures

__all__ = ["Layout", "Phase", "SplitHandEnv", "env_layout"]


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


@dataclass(frozen=True)
class Layout:
    """The action and observation layout of a one-seat env under ``config`` (shared by the single
    and the vector envs): bet actions first, then the settings, then "play the house way"; the
    observation's 202 cells (:mod:`splitpoker.envs.rules.play.observation`), every setting's values
    with ``observe_settings``, then the setting-feature block with ``setting_features``."""

    bet_table: tuple[tuple[float, float], ...]
    offset: int
    n_settings: int
    house_way_action: int | None
    n_actions: int
    round_obs_size: int
    features_start: int
    features_width: int
    obs_size: int

    @property
    def n_bet(self) -> int:
        return len(self.bet_table)


def env_layout(config, betting: bool) -> Layout:
    spec = config.spec
    bet_table = bet_table_of(config.bet_levels) if betting else ()
    offset = len(bet_table)
    hw = offset + spec.n_settings if config.allow_house_way_action else None
    n_actions = offset + spec.n_settings + (1 if hw is not None else 0)
    round_obs = OBS_SIZE + (spec.n_settings * spec.ranks_width if config.observe_settings else 0)
    width = FEATURES[spec.name]
    obs_size = round_obs + (spec.n_settings * width if config.setting_features else 0)
    return Layout(bet_table, offset, spec.n_settings, hw, n_actions, round_obs, round_obs, width, obs_size)


def round_options(config, layout: Layout, *, mode: int = K.DISABLED, seed_from_streams: bool = False,
                  keep_ranks: bool = True) -> RoundOptions:
    """The round kernel's options of a one-seat env: the layout's bets, the config's masks,
    scales, unit and penalty."""
    main_max, bonus_max = config.limits
    return RoundOptions(
        bet_table=layout.bet_table, fixed_wager=config.fixed_wager if not layout.bet_table else 0.0,
        house_way_action=-1 if layout.house_way_action is None else layout.house_way_action,
        mask_fouls=config.mask_fouls, observe_settings=config.observe_settings,
        keep_ranks=keep_ranks or config.setting_features, main_max=main_max, bonus_max=bonus_max or 0.0,
        unit=config.unit, penalty=config.invalid_action_penalty, mode=mode, seed_from_streams=seed_from_streams,
        n_dealers=config.dealer_samples)


class SplitHandEnv(gym.Env):
    """Base class; see :class:`splitpoker.envs.asia_poker.AsiaPokerEnv` for the user manual."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    config_cls: type = None  # set by subclasses
    n_settings: int = 0
    slot_names: tuple[str, ...] = ()
    ranks_width = 0  # hands per setting
    betting: bool = True  # a bet phase before the setting (the *Setting envs: fixed wager, no bet phase)
    _wager_name, _bonus_name = "wager", "bonus"

    def __init__(self, config=None, *, betting: bool | None = None, render_mode: str | None = None,
                 info_text: bool = True, **overrides):
        self.config = _config(self.config_cls, config, overrides, f"{type(self).__name__}.__init__()")
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.betting = type(self).betting if betting is None else bool(betting)
        self.game = self.config.make_game()
        self.layout = lay = env_layout(self.config, self.betting)
        self.bet_table = list(lay.bet_table)
        self.n_bet_actions = lay.n_bet
        self.setting_offset = lay.offset
        self.house_way_action = lay.house_way_action
        self.action_space = spaces.Discrete(lay.n_actions)
        self.obs_size = lay.obs_size
        self.setting_features_start = lay.features_start
        self.setting_features_width = lay.features_width
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.obs_size,), dtype=np.float32)
        self._n_dealers = self.config.dealer_samples
        # one row of the round kernel; the round seed comes from np_random, episodes end (no autoreset)
        self.rows = RoundRows(self.game, 1, round_options(self.config, lay), n_actions=lay.n_actions)
        # the row's arrays, filled in place at every reset
        self.player, self.dealers = self.rows.player[0], self.rows.dealers[0]
        self.ranks, self.fouled = self.rows.ranks[0], self.rows.fouled[0]
        self._obs = np.zeros(self.obs_size, dtype=np.float32)
        self.last_outcome: dict[str, Any] | None = None
        self._cards_text = ""
        self.info_text = check_info_text(info_text)  # False: numbers only in info (envs/info.py)
        self._codes: dict[str, Any] = {}  # the round's text keys as numbers, for info_text=False
        self._setting_features = SettingFeatures(self.game.game, self.game.table.class_category) \
            if self.config.setting_features else None

    # the row's state, as the env's own attributes
    @property
    def phase(self) -> Phase:
        return Phase(int(self.rows.phase[0]))

    @property
    def main_wager(self) -> float:
        return float(self.rows.main_wager[0])

    @property
    def bonus_wager(self) -> float:
        return float(self.rows.bonus_wager[0])

    @property
    def house_way_setting(self) -> int:
        return int(self.rows.house_way[0])

    def _slots(self, cards, setting: int) -> list[tuple[str, list[int]]]:
        return self.game.slot_cards(cards, setting)

    def _describe(self, cards, setting: int) -> str:
        return "  ".join(f"{name} [{format_cards(hand, symbols=True)}]" for name, hand in self._slots(cards, setting))

    # ---- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new round (Gymnasium's ``reset``). ``options={"cards": hand}`` deals the player
        ``hand`` (seven distinct cards: text such as ``"As Kd 7h 7c 4s 3d 2c"`` or card integers)
        instead of seven random ones; the dealer hands are dealt from the other 46 cards as the
        round's seed would deal them, so ``reset(seed=s, options={"cards": c})`` is
        ``reset(seed=s)`` whenever ``c`` are the cards that seed deals."""
        super().reset(seed=seed)
        cards = self._reset_cards(options)
        self.rows.round_seeds[0] = int(self.np_random.integers(0, ROUND_SEED_BOUND))
        if cards is None:
            out = self.rows.reset()
        else:
            self.player[:] = cards
            deal_dealers_into(int(self.rows.round_seeds[0]), self._n_dealers, self.player, self.dealers,
                              self.rows.scratch[0, 0:2])
            out = self.rows.reset(preset=True)
        self._cards_text = format_cards(self.player)
        self.last_outcome = None
        self._codes = {}
        self._last_obs = out.obs[0]
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        action = self._validate_action(action)
        out = self.rows.step(np.array([action], dtype=np.int64))
        kind = int(out.kind[0])
        if kind == K.KIND_SETTLED:
            self.last_outcome = self._outcome(out, action)
            self._codes = {"dealer_cards": out.dealer_cards[0], "bonus_line": int(out.bonus_line[0])}
        elif kind == K.KIND_INVALID:
            self.last_outcome = {"invalid_action": action, "reason": self.rows.reason_text(int(out.reason[0])),
                                 "net_chips": float(out.net_chips[0])}
            self._codes = {"reason": int(out.reason[0])}
        self._last_obs = out.obs[0]
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(out.reward[0]), bool(out.terminated[0]), False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the current phase (sb3-contrib's MaskablePPO protocol). Never all
        False: once the episode is done every action is marked (Pgx's convention; no action is
        taken from a terminal state, and a masked sampler needs one legal action)."""
        return self.rows.mask[0].copy()

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
    def _reset_cards(self, options) -> np.ndarray | None:
        """The player's hand of ``reset(options=...)`` (sorted card integers), or None."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise ValueError(f"reset options={options!r}: expected a dict such as {{'cards': 'As Kd 7h 7c 4s 3d 2c'}} or None")
        unknown = sorted(set(options) - {"cards"})
        if unknown:
            raise ValueError(f"reset options {unknown} are not supported: expected 'cards' (the player's seven cards)")
        if options.get("cards") is None:
            return None
        try:
            return np.sort(self.game.hand(options["cards"])).astype(np.int64)
        except ValueError as e:
            raise ValueError(f"reset options cards={options['cards']!r}: {e}") from None

    def _validate_action(self, action) -> int:
        """The action as an int, or ``ValueError``: a finished episode, out of range, or (under
        ``invalid_action="raise"``) a masked one. Under ``"penalize"`` the kernel plays a masked
        foul and penalises a wrong-phase action: every wager placed is forfeited and the penalty
        comes on top (:func:`splitpoker.envs.rules.play.kernel.invalid_outcome`)."""
        action = as_action(action, self.action_space.n, check_range=False)
        if self.phase == Phase.DONE:
            raise ValueError(f"action {action} in phase DONE: the episode is over, call reset()")
        if not 0 <= action < self.action_space.n:
            raise ValueError(f"action {action} out of range: expected 0..{self.action_space.n - 1}")
        if self.config.invalid_action == "raise" and not self.rows.mask[0, action]:
            raise ValueError(f"action {action} is illegal in phase {self.phase.name}: {self._why_illegal(action)}")
        return action

    def _why_illegal(self, action: int) -> str:
        if self.phase == Phase.SET and action >= self.setting_offset and action != self.house_way_action:
            s = action - self.setting_offset
            return (f"setting {s} is fouled ({self._describe(self.player, s)}); mask_fouls=True masks it "
                    f"(invalid_action='penalize' plays it as a foul, which loses the wager)")
        return self.rows.why_illegal(0, action)

    def _outcome(self, out, action: int) -> dict[str, Any]:
        """The settled round as ``info`` entries (:data:`splitpoker.envs.info.ROUND_INFO`): the
        row's outcome (:meth:`RoundRows.outcome <splitpoker.envs.rules.play.round_rows.RoundRows.outcome>`)
        and whether the house-way action played it."""
        return {**self.rows.outcome(out, 0), "house_way_action": action == self.house_way_action}

    def _observation(self) -> np.ndarray:
        """The kernel's observation row, then the setting-feature block (numpy)."""
        obs = self._obs
        obs[: self.layout.round_obs_size] = self._last_obs
        if self._setting_features is not None:
            block = obs[self.setting_features_start:]
            if self.phase != Phase.BET:
                self._setting_features.fill(self.ranks, self.fouled, block)
            else:
                block[:] = 0.0
        return obs.copy()

    def _info(self) -> dict[str, Any]:
        """The step's info: every key of :data:`splitpoker.envs.info.ROUND_INFO` at every step
        (numbers only with ``info_text=False``: :func:`splitpoker.envs.info.numeric`)."""
        info: dict[str, Any] = {"action_mask": self.action_masks(), "phase": self.phase.name.lower(),
                                "main_wager": float(self.main_wager), "bonus_wager": float(self.bonus_wager)}
        if self.phase != Phase.BET:
            info["cards"] = self._cards_text
            info["house_way_setting"] = self.house_way_setting
        if self.last_outcome is not None:
            info.update(self.last_outcome)
        info = complete(info, ROUND_INFO)
        if self.info_text:
            return info
        codes = {"phase": int(self.phase), **self._codes}
        if self.phase != Phase.BET:
            codes["cards"] = self.player
        return numeric(info, codes)

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
                view.result = [f"invalid action {o['invalid_action']}: net {o['net_chips']:+g} chips (wagers forfeited, penalty)",
                               o["reason"][:110]]
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
            lines.append(f"invalid action {o['invalid_action']}: {o['reason']}; net {o['net_chips']:+g} chips")
        elif o is not None:
            lines.append("you set:    " + self._describe(self.player, o["setting"]))
            lines.append("dealer:     " + self._describe(self.dealers[0], o["dealer_setting"]))
            verdict = "FOULED" if o["fouled"] else f"won {o['hands_won']} of {len(self.slot_names)} hands"
            lines.append(f"result: {verdict}; main {o['main_chips']:+g}, bonus {o['bonus_chips']:+g}"
                         + (f" ({o['bonus_line']})" if o.get("bonus_line") else "")
                         + f"; net {o['net_chips']:+g} chips")
        return "\n".join(lines)
