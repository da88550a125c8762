"""The table as the environments see it: action layout, per-seat observations and masks, one
phase of actions applied at once with the project's invalid-action semantics. Shared by the
PettingZoo environments (``asia_table_v0``, ``paigow_table_v0``) and the single-agent Gymnasium
variant (``splitpoker.envs.table.gym_env``); imports neither PettingZoo nor Gymnasium.

The seats' rounds are the table's rows of the round kernel
(:attr:`splitpoker.envs.rules.table.table.Table.rows`): a seat's mask in the set phase, its setting
values (``observe_settings``), fouls and house-way setting are read from its row; this module only
maps them to the action layout below and applies one phase of actions.

Per-seat action (``Discrete(n_bet + n_settings [+ 1])``, as the one-seat envs):
``0 .. n_bet-1`` bet levels (main level × bonus level; a Fortune bet of $5 or more takes the Envy
bonus automatically when ``envy=True``), ``n_bet + s`` setting ``s``, then optionally "play the
house way" (the row's actions are settings ``0..S-1`` then the house way ``S``: the set phase's
mask is the row's, shifted by ``n_bet``).

Per-seat observation (``float32``, in [0, 1]): the 202 values of :mod:`splitpoker.envs.rules.play.observation` for the
seat's own cards, phase and bets, then

=====  ====================================================================
index  meaning
=====  ====================================================================
202    other seats in play this round / 5 (their hands count for Envy)
203    this seat holds an Envy wager
204-9  one-hot of the seat number 1..6
=====  ====================================================================

then, with ``observe_settings=True``, every setting's hand values as in the one-seat envs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from splitpoker.envs.actions import as_action
from splitpoker.envs.config import config_class
from splitpoker.envs.info import TABLE_INFO, check_info_text, complete, numeric, reason_code
from splitpoker.envs.rules.cards import format_cards, parse_cards
from splitpoker.envs.rules.checks import is_integer, is_number
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.play.kernel import invalid_outcome
from splitpoker.envs.rules.play.observation import OBS_SIZE, fill_observation
from splitpoker.envs.rules.table.table import MAX_SEATS, Phase, SeatKind, Table

TABLE_OBS_SIZE = OBS_SIZE + 2 + MAX_SEATS
SEAT_ONE_HOT = OBS_SIZE + 2


def table_layout(num_seats=None, house_way_seats=0, seats=None) -> tuple[str, ...]:
    """Seat kinds for seats 1..6: ``seats`` if given (a sequence of ``player`` / ``house_way`` /
    ``empty``), else ``num_seats`` player seats then ``house_way_seats`` house-way seats."""
    if seats is not None:
        if num_seats is not None or house_way_seats:
            raise ValueError("give either seats=[...] or num_seats/house_way_seats, not both")
        kinds = [str(k).lower() for k in seats]
    else:
        n = 1 if num_seats is None else num_seats
        for name, v, lo in (("num_seats", n, 1), ("house_way_seats", house_way_seats, 0)):
            if not is_integer(v) or v < lo:
                raise ValueError(f"{name}={v!r}: expected an integer >= {lo}")
        if n + house_way_seats > MAX_SEATS:
            raise ValueError(f"num_seats={n} + house_way_seats={house_way_seats} = {n + house_way_seats} seats: a 53-card "
                             f"deck deals at most 7 hands of 7 cards (the dealer and {MAX_SEATS} seats)")
        kinds = ["player"] * int(n) + ["house_way"] * int(house_way_seats)
    if len(kinds) > MAX_SEATS:
        raise ValueError(f"{len(kinds)} seats: a 53-card deck deals at most 7 hands of 7 cards (the dealer and {MAX_SEATS} seats)")
    for k in kinds:
        if k not in ("player", "house_way", "empty"):
            raise ValueError(f"seat kind {k!r}: expected 'player', 'house_way' or 'empty'")
    if "player" not in kinds:
        raise ValueError(f"seats {kinds}: expected at least one 'player' seat")
    return tuple(kinds)


class TableSeats:
    """A :class:`~splitpoker.envs.rules.table.table.Table` with the environments' action and observation layout."""

    def __init__(self, game: str, layout: tuple[str, ...], *, envy: bool = True, envy_unit: float = 1.0,
                 house_way_bet: tuple[float, float] | None = None, config=None, info_text: bool = True,
                 **overrides):
        spec = get_spec(game)
        cls = config_class(spec)
        overrides.setdefault("invalid_action", "penalize")  # every action steps (docs/rules.md)
        if config is None:
            config = cls(**overrides)
        elif isinstance(config, dict):
            config = cls.from_dict({**config, **overrides})
        elif isinstance(config, cls):
            config = cls.from_dict({**{f.name: getattr(config, f.name) for f in dataclasses.fields(cls)}, **overrides})
        else:
            raise TypeError(f"config must be a {cls.__name__}, a dict or None, got {type(config).__name__}")
        if config.dealer_samples != 1:
            raise ValueError(f"dealer_samples={config.dealer_samples}: a table has one dealer hand; expected 1")
        if not isinstance(envy, bool):
            raise ValueError(f"envy={envy!r}: expected True or False")
        if envy and not spec.has_envy:
            raise ValueError(f"envy=True: {spec.title} has no Envy bonus (seed 000); expected envy=False")
        self.spec = spec
        self.game = spec.name
        self.config = c = config
        self.rules = c.table_rules(envy=envy, envy_unit=envy_unit)
        self.table = Table(self.rules, layout, mask_fouls=c.mask_fouls)
        self.envy = envy
        mains, bonuses = c.bet_levels
        self.bet_table = [(float(m), float(b)) for m in mains for b in bonuses]
        self.n_bet = len(self.bet_table)
        self.n_settings = self.rules.n_settings
        self.house_way_action = self.n_bet + self.n_settings if c.allow_house_way_action else None
        self.n_actions = self.n_bet + self.n_settings + (1 if c.allow_house_way_action else 0)
        self.width = spec.ranks_width
        self.obs_size = TABLE_OBS_SIZE + (self.n_settings * self.width if c.observe_settings else 0)
        self._scale = self.table.rows.value_scale
        self.main_max = self.rules.main_max
        self.bonus_max = self.rules.bonus_max
        hb = house_way_bet if house_way_bet is not None else (self.rules.main_min, 0.0)
        if isinstance(hb, (str, bytes)) or not isinstance(hb, (tuple, list)) or len(hb) != 2:
            raise ValueError(f"house_way_bet={house_way_bet!r}: expected (main wager, bonus wager) in chips, e.g. (5, 0)")
        self.house_way_bet = self.rules.check_bet(hb[0], hb[1], self._takes_envy(hb[1]) if is_number(hb[1]) else False)
        self.player_seats = [s for s in self.table.taken if self.table.kinds[s - 1] == SeatKind.PLAYER]
        self.unit = c.unit
        self.outcomes: dict[int, dict[str, Any]] = {}
        self.info_text = check_info_text(info_text)  # False: numbers only in info (envs/info.py)
        self._line_index = {key: i for i, key in enumerate(self.table.rows.line_keys[:-1])}

    def _takes_envy(self, bonus: float) -> bool:
        return self.envy and bonus >= self.rules.envy_min_fortune

    # ---- round ---------------------------------------------------------------------------
    def start(self) -> None:
        t = self.table
        t.new_round()
        for s in t.taken:
            if t.kinds[s - 1] == SeatKind.HOUSE_WAY:
                t.place_bet(s, *self.house_way_bet)
        self.outcomes = {}

    @property
    def phase(self) -> Phase:
        return self.table.phase

    def in_play(self, seat: int) -> bool:
        return seat not in self.table.left and seat not in self.outcomes

    def mask(self, seat: int) -> np.ndarray:
        if not self.in_play(seat):  # never all zero: every action marked once the seat's round is over
            return np.ones(self.n_actions, dtype=np.int8)
        m = np.zeros(self.n_actions, dtype=np.int8)
        if self.phase == Phase.BET:
            m[: self.n_bet] = 1
        elif self.phase == Phase.SET:  # the row's mask: settings 0..S-1, then the house-way action
            row = self.table.rows.mask[self.table.row(seat)]
            m[self.n_bet: self.n_bet + self.n_settings] = row[: self.n_settings]
            if self.house_way_action is not None:
                m[self.house_way_action] = row[self.n_settings]
        return m

    def observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(self.obs_size, dtype=np.float32)
        t = self.table
        # cards show once they are dealt: a seat that left in the bet phase (a penalised action)
        # may end a round that was never dealt (no player left in play), its hand still all -1
        show = t.phase != Phase.BET and bool(t.hands[seat, 0] >= 0)
        hand = t.hands[seat] if show else np.zeros(7, dtype=np.int64)
        main, bonus, envy = t.bets.get(seat, (0.0, 0.0, False))
        fill_observation(hand, show, int(t.phase), main / self.main_max, bonus / self.bonus_max if self.bonus_max else 0.0,
                         obs[:OBS_SIZE])
        others = [s for s in t.taken if s != seat and s not in t.left]
        obs[OBS_SIZE] = len(others) / (MAX_SEATS - 1)
        obs[OBS_SIZE + 1] = float(envy)
        obs[SEAT_ONE_HOT + seat - 1] = 1.0
        if self.config.observe_settings and show and seat in t.dealt:
            obs[TABLE_OBS_SIZE:] = (t.rows.ranks[t.row(seat)] * self._scale).ravel()
        return obs

    def info(self, seat: int) -> dict[str, Any]:
        t = self.table
        info: dict[str, Any] = {"action_mask": self.mask(seat), "phase": t.phase.name.lower(), "seat": seat}
        if t.phase != Phase.BET and seat in t.dealt:
            info["cards"] = format_cards(t.hands[seat])
            info["house_way_setting"] = t.house_way_setting(seat)
        bet = t.bets.get(seat)
        if bet is not None:
            info["main_wager"], info["bonus_wager"], info["envy"] = float(bet[0]), float(bet[1]), bool(bet[2])
        if seat in self.outcomes:
            info.update(self.outcomes[seat])
        info = complete(info, TABLE_INFO)
        return info if self.info_text else self._numeric(info)

    def _numeric(self, info: dict[str, Any]) -> dict[str, Any]:
        """A seat's complete ``info`` with numbers only (``info_text=False``; envs/info.py): each text
        value as its number, read from the text itself so that the two forms always agree."""
        codes = {"phase": int(self.table.phase), "reason": reason_code(info["invalid_action"], self.n_bet),
                 "bonus_line": self._line_index[info["bonus_line"]] if info["bonus_line"] else -1,
                 "kind": int(SeatKind[info["kind"].upper()]) if info["kind"] else -1}
        for key in ("cards", "dealer_cards"):
            if info[key]:
                codes[key] = parse_cards(info[key])
        return numeric(info, codes)

    def why_illegal(self, seat: int, action: int) -> str | None:
        """None if ``action`` is legal for ``seat`` now (unmasked), else the reason."""
        if self.phase == Phase.BET:
            if action < self.n_bet:
                return None
            return f"the bet phase takes actions 0..{self.n_bet - 1} (main level x bonus level)"
        if action < self.n_bet:
            return f"bets are over; the set phase takes settings {self.n_bet}..{self.n_bet + self.n_settings - 1}"
        if action == self.house_way_action:
            return None
        s = action - self.n_bet
        if not self.table.rows.mask[self.table.row(seat), s]:  # masked: a foul under mask_fouls
            return f"setting {s} is fouled; mask_fouls=True masks it"
        return None

    def check_actions(self, actions: dict[int, Any]) -> dict[int, int]:
        """Validate one phase of actions (seat -> action) without changing anything: every seat to
        act has one, no seat other than the player seats does, each is an integer in the action
        space; with ``invalid_action="raise"`` a masked action raises too. Returns the actions of
        the seats in play as ints: a player seat whose round ended early (a penalised action) may
        still send one, which is checked and ignored (every agent acts at every step)."""
        if self.phase == Phase.DONE:
            raise ValueError("the round is over: call reset()")
        to_act = [s for s in self.player_seats if self.in_play(s)]
        extra = sorted(set(actions) - set(self.player_seats))
        if extra:
            raise ValueError(f"action(s) for seat(s) {extra} that are not to act: seats to act are {to_act}")
        missing = [s for s in to_act if s not in actions]
        if missing:
            raise ValueError(f"no action for seat(s) {missing}: every seat in play acts in the {self.phase.name.lower()} phase")
        out = {}
        for s, a in actions.items():
            a = as_action(a, self.n_actions, f" for seat {s}")
            if s not in to_act:  # its round is over: accepted and ignored
                continue
            why = self.why_illegal(s, a)
            if why is not None and self.config.invalid_action == "raise":
                raise ValueError(f"action {a} for seat {s} is illegal in phase {self.phase.name}: {why}")
            out[s] = a
        return out

    def apply(self, actions: dict[int, Any]) -> dict[int, float]:
        """Apply one phase of actions; returns the reward (units) of each seat that finished.

        A wrong-phase action (a setting in the bet phase, a bet action in the set phase) takes the
        seat out of the round (:meth:`Table.leave`: its hand is dead) and costs what the round
        kernel charges: every wager the seat placed is forfeited, and the penalty comes on top
        (:func:`~splitpoker.envs.rules.play.kernel.invalid_outcome`; the penalty alone in the bet
        phase, where nothing is placed yet). A masked fouled setting is played and loses."""
        actions = self.check_actions(actions)
        t = self.table
        rewards: dict[int, float] = {}
        penalty = float(self.config.invalid_action_penalty)
        for s, a in actions.items():
            why = self.why_illegal(s, a)
            if why is not None and not (t.phase == Phase.SET and a >= self.n_bet):  # wrong phase: penalised end
                # every wager placed is forfeited (none in the bet phase), the penalty on top
                main, bonus, envy = t.bets.get(s, (0.0, 0.0, False))
                net, reward = invalid_outcome(main, bonus, penalty, self.unit)
                t.leave(s)
                cost = ("every wager placed is forfeited, and the penalty on top" if main + bonus > 0
                        else "no wager placed yet: the penalty alone")
                self.outcomes[s] = {"invalid_action": a, "reason": f"{why}; {cost}", "net_chips": float(net),
                                    "main_wager": main, "bonus_wager": bonus, "envy": envy}
                rewards[s] = float(reward)
                continue
            if t.phase == Phase.BET:
                main, bonus = self.bet_table[a]
                t.place_bet(s, main, bonus, self._takes_envy(bonus))
            else:  # a setting (a masked fouled one is played: it loses, as at the table)
                t.set_hand(s, t.house_way_setting(s) if a == self.house_way_action else a - self.n_bet)
        in_play = [s for s in t.taken if s not in t.left]
        if t.phase == Phase.BET:
            if any(s in self.player_seats for s in in_play):
                t.deal(seed=self._round_seed)
            else:
                t.phase = Phase.DONE
            return rewards
        result = t.settle()
        for s in self.player_seats:
            if s in result.seats:
                r = result.seats[s]
                o = dataclasses.asdict(r)
                o.update({"net_chips": r.net, "main_chips": r.main, "bonus_chips": r.bonus,
                          "main_result": r.main / r.main_wager if r.main_wager else 0.0,
                          "dealer_cards": result.dealer_cards, "dealer_setting": result.dealer_setting,
                          "first_spot": result.first_spot, "house_way_action": actions.get(s) == self.house_way_action,
                          "agrees_with_house_way": r.setting == t.house_way_setting(s)})
                self.outcomes[s] = o
                rewards[s] = r.net / self.unit
        return rewards

    def reset_round(self, round_seed: int) -> None:
        self._round_seed = int(round_seed)
        self.start()

    def render(self) -> str:
        t = self.table
        lines = [f"[{self.game} table] phase: {t.phase.name.lower()}"
                 + (f", first hand to spot {t.first_spot}" if t.first_spot else "")]
        if t.phase != Phase.BET:
            lines.append(f"dealer: {format_cards(t.hands[0], symbols=True) if t.hands[0, 0] >= 0 else 'not dealt'}")
        for s in t.taken:
            kind = t.kinds[s - 1].name.lower()
            bet = t.bets.get(s)
            text = f"seat {s} ({kind})"
            if bet:
                text += f" bet ${bet[0]:g}" + (f" + ${bet[1]:g}" if bet[1] else "") + (" + Envy" if bet[2] else "")
            if t.phase != Phase.BET and s not in t.left:
                text += f": {format_cards(t.hands[s], symbols=True)}" if t.hands[s, 0] >= 0 else ""
            if s in t.left:
                text += ": out of the round"
            if t.result is not None and s in t.result.seats:
                r = t.result.seats[s]
                text += (f" -> {'FOULED, ' if r.fouled else ''}main {r.main:+g}, bonus {r.bonus:+g}"
                         + (f", envy {r.envy_chips:+g}" if r.envy else "") + f", net {r.net:+g}")
            lines.append(text)
        return "\n".join(lines)

    def render_text(self, render_mode: str | None) -> str | None:
        """The envs' text rendering: :meth:`render`'s text, printed (and ``None`` returned) in
        ``"human"`` mode."""
        text = self.render()
        if render_mode == "human":
            print(text)
            return None
        return text
