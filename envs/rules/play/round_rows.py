"""``RoundRows``: N rows of the round kernel (:mod:`splitpoker.envs.rules.play.kernel`) as one object:
the state arrays, the kernel's constants built once from a :class:`~splitpoker.envs.rules.game.Game`
and :class:`RoundOptions`, and the reset and step calls.

Every environment owns one: the single environment one row, the native vector environment
``num_envs`` rows (stepped by ranges on its threads), a table (:class:`splitpoker.envs.rules.table.table.Table`)
one row per taken seat, with ``preset_deal`` (the table's deck writes ``player`` and ``dealers``),
no bet table (the table checks its own wagers and writes ``main_wager`` / ``bonus_wager``) and the
house-way action; it steps only the rows in play (``run``). They only check actions, run
:meth:`RoundRows.reset` / :meth:`RoundRows.step` and turn the :class:`Outputs` into their API::

    rows = RoundRows(Game("paigow"), 4, RoundOptions(bet_table=bet_table_of(levels), ...))
    rows.streams[:] = ...                 # or rows.round_seeds[:] = ... (seed_from_streams=False)
    out = rows.reset()                    # every row deals; out.obs, rows.mask
    out = rows.step(np.array([0, 1, 2, 3]))

Nothing here is numba: the arrays are numpy and :func:`~splitpoker.envs.rules.play.kernel.advance_range`
does the work (``run`` may split it into ranges, e.g. over threads).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.observation import OBS_SIZE
from splitpoker.envs.rules.play.rounds import SCRATCH_ROWS, SCRATCH_WIDTH, new_scratch

#: the kernel's autoreset modes by Gymnasium's names
AUTORESET_MODES = {"NextStep": K.NEXT_STEP, "SameStep": K.SAME_STEP, "Disabled": K.DISABLED}


@dataclass(frozen=True)
class RoundOptions:
    """The environment's side of the round kernel (the game's tables come from the ``Game``).

    Attributes:
        bet_table: the bet actions' ``(main, bonus)`` wagers in chips; empty: no bet phase, the
            round starts in the set phase with ``fixed_wager``.
        fixed_wager: the main wager when there is no bet phase.
        house_way_action: the action index of "play the house way", or -1.
        mask_fouls: fouled settings are masked (they stay playable, and lose).
        observe_settings: the observation carries every setting's values after the 202 cells.
        keep_ranks: keep every setting's values at the deal (what ``observe_settings`` and the
            setting features read; Pai Gow always keeps them).
        main_max, bonus_max: the wagers' scale in the observation (table maxima).
        unit: chips per reward unit. penalty: the invalid-action penalty (reward units, >= 0): a
            wrong-phase action forfeits every wager placed and loses the penalty on top
            (:func:`~splitpoker.envs.rules.play.kernel.invalid_outcome`).
        mode: autoreset (:data:`AUTORESET_MODES`).
        seed_from_streams: each row draws its round seed from its PCG64 stream (the vector env);
            else the caller writes ``round_seeds`` (the single env, from its ``np_random``).
        preset_deal: the caller deals (``player``, ``dealers``) before a reset (the table).
        n_dealers: dealer hands per row (1 is the real game).
    """

    bet_table: tuple[tuple[float, float], ...] = ()
    fixed_wager: float = 0.0
    house_way_action: int = -1
    mask_fouls: bool = True
    observe_settings: bool = False
    keep_ranks: bool = False
    main_max: float = 1.0
    bonus_max: float = 0.0
    unit: float = 1.0
    penalty: float = 1.0
    mode: int = K.NEXT_STEP
    seed_from_streams: bool = True
    preset_deal: bool = False
    n_dealers: int = 1

    @property
    def betting(self) -> bool:
        return bool(self.bet_table)

    @property
    def n_bet(self) -> int:
        return len(self.bet_table)


class Outputs:
    """One step's outputs (:data:`~splitpoker.envs.rules.play.kernel.OUT_FIELDS`): a few fresh
    blocks per step (rows are contiguous views), so callers may keep views. ``obs`` and, with
    ``same_step``, ``final_obs`` are the two halves of one block; ``terminated`` and ``fouled``
    are boolean views of the int8 ``flags`` rows the kernel writes."""

    def __init__(self, n: int, obs_size: int, same_step: bool):
        rows = np.empty((2 * n if same_step else n, obs_size), dtype=np.float32)
        self.obs, self.final_obs = rows[:n], rows[n:]
        floats = np.zeros((len(K.FLOAT_ROWS), n), dtype=np.float64)
        (self.reward, self.main_result, self.main_chips, self.bonus_chips, self.net_chips, self.main_wager,
         self.bonus_wager) = floats
        ints = np.zeros((len(K.INT_ROWS), n), dtype=np.int64)
        self.setting, self.hands_won, self.bonus_line, self.dealer_setting, self.house_way = ints
        cards = np.zeros((len(K.CARD_ROWS), n, 7), dtype=np.int64)
        self.cards, self.dealer_cards = cards
        flags = np.zeros((len(K.FLAG_ROWS), n), dtype=np.int8)
        self.terminated, self.fouled = flags[:2].view(np.bool_)
        self.kind, self.reason = flags[2], flags[3]
        self.fields = (rows, np.int64(n if same_step else -1), floats, ints, cards, flags)


def default_run(kernel, n: int, *args) -> None:
    """Run ``kernel(0, n, *args)`` in the calling thread (a runner may split the range)."""
    kernel(0, n, *args)


class RoundRows:
    """``n`` rows of one game's rounds (see the module docstring).

    Attributes (numpy arrays with ``n`` rows, read by the environments; the kernel writes them):
    ``streams``, ``round_seeds``, ``player``, ``dealers``, ``ranks``, ``fouled``, ``house_way``,
    ``phase``, ``main_wager``, ``bonus_wager``, ``mask``, ``dealer_settings``, ``dealer_won``;
    and ``game``, ``options``, ``n_actions``, ``obs_size``, ``offset`` (the first setting action).
    """

    def __init__(self, game, n: int, options: RoundOptions, n_actions: int | None = None,
                 run: Callable[..., None] | None = None):
        self.game = game
        self.options = o = options
        self.n = int(n)
        s, w, k = game.n_settings, game.spec.ranks_width, int(o.n_dealers)
        self.offset = o.n_bet
        self.n_actions = int(n_actions) if n_actions is not None else (
            o.n_bet + s + (1 if o.house_way_action >= 0 else 0))
        self.obs_size = OBS_SIZE + (s * w if o.observe_settings else 0)
        self._run = run or default_run
        self.streams = np.zeros((n, 4), dtype=np.uint64)
        self.round_seeds = np.zeros(n, dtype=np.int64)
        self.player = np.zeros((n, 7), dtype=np.int64)
        self.dealers = np.zeros((n, k, 7), dtype=np.int64)
        self.ranks = np.zeros((n, s, w), dtype=np.int64)
        self.fouled = np.zeros((n, s), dtype=np.bool_)
        self.house_way = np.full(n, -1, dtype=np.int64)
        self.phase = np.full(n, K.DONE, dtype=np.int8)
        self.main_wager = np.zeros(n, dtype=np.float64)
        self.bonus_wager = np.zeros(n, dtype=np.float64)
        self.mask = np.zeros((n, self.n_actions), dtype=np.bool_)
        self.dealer_settings = np.zeros((n, k), dtype=np.int64)
        self.dealer_won = np.zeros((n, k), dtype=np.int64)
        self.scratch = new_scratch(n)
        self._state = (self.streams, self.round_seeds, self.player, self.dealers, self.ranks, self.fouled,
                       self.house_way, self.phase, self.main_wager, self.bonus_wager, self.mask, self.dealer_settings,
                       self.dealer_won, self.scratch)
        #: the kernel's constants by name (:class:`~splitpoker.envs.rules.play.kernel.KernelGame`), and
        #: as the plain tuple the kernel is called with (numba types a plain tuple in its C fast
        #: path; a named tuple costs about 3 us more per call, measured)
        self.kernel_game = self._build_kernel_game()
        self._game = tuple(self.kernel_game)
        self._no_actions = np.zeros(n, dtype=np.int64)  # the kernel's unused argument when resetting
        self._no_which = np.zeros(n, dtype=np.bool_)  # ... and when stepping
        table = game.bonus_paytable
        #: the bonus line keys per line index (``bonus_line`` output), "" for none (index -1)
        self.line_keys = np.array([ln.key for ln in table.lines] + [""] if table is not None else [""], dtype=object)

    @staticmethod
    def row_nbytes(game, options: RoundOptions, n_actions: int) -> int:
        """Bytes of one row's arrays, as ``__init__`` allocates them (the scratch block and the
        dealer hands dominate: ``n_dealers`` x 72 bytes)."""
        s, w, k = game.n_settings, game.spec.ranks_width, int(options.n_dealers)
        return (4 * 8 + 8 + 7 * 8 + k * 7 * 8 + s * w * 8 + s + 8 + 1 + 2 * 8 + int(n_actions) + 2 * k * 8
                + SCRATCH_ROWS * SCRATCH_WIDTH * 8 + 8 + 1)

    def _build_kernel_game(self) -> K.KernelGame:
        """The kernel's ``game`` argument (:class:`~splitpoker.envs.rules.play.kernel.KernelGame`):
        the ``Game``'s tables as they are (:attr:`~splitpoker.envs.rules.game.Game.tables`, built
        once there), then the options, by name and checked."""
        g, o = self.game, self.options
        bets = o.bet_table or ((0.0, 0.0),)
        return K.kernel_game(
            **g.tables._asdict(), betting=bool(o.betting), fixed_wager=float(o.fixed_wager),
            bet_main=np.array([b[0] for b in bets], dtype=np.float64),
            bet_bonus=np.array([b[1] for b in bets], dtype=np.float64), n_bet=np.int64(o.n_bet),
            offset=np.int64(self.offset), n_settings=np.int64(g.n_settings), hw_action=np.int64(o.house_way_action),
            mask_fouls=bool(o.mask_fouls), observe_settings=bool(o.observe_settings), value_scale=g.spec.value_scale(g.table),
            main_max=float(o.main_max), bonus_max=float(o.bonus_max), unit=float(o.unit), penalty=float(o.penalty),
            mode=np.int64(o.mode), keep_ranks=bool(o.keep_ranks or o.observe_settings or g.spec.is_paigow),
            seed_from_streams=bool(o.seed_from_streams), preset_deal=bool(o.preset_deal))

    def game_field(self, name: str):
        """One field of the kernel's ``game`` argument by its name (:data:`~splitpoker.envs.rules.play.kernel.GAME_FIELDS`)."""
        return getattr(self.kernel_game, name)

    @property
    def value_scale(self) -> np.ndarray:
        return self.game_field("value_scale")

    def outputs(self, same_step: bool = False) -> Outputs:
        return Outputs(self.n, self.obs_size, same_step)

    def reset(self, which: np.ndarray | None = None, run: Callable[..., None] | None = None,
              out: Outputs | None = None, *, preset: bool = False) -> Outputs:
        """A new round in every row with ``which[i]`` (default: all); every row's observation and
        mask are written (``out.obs``). ``out``: a block of :meth:`outputs` to write into instead of
        a fresh one (a caller that reads it before the next call). ``preset``: this once, the
        caller has dealt ``player`` and ``dealers`` (as ``preset_deal`` does for every reset)."""
        which = np.ones(self.n, dtype=np.bool_) if which is None else which
        out = out if out is not None else self.outputs(False)
        game = tuple(self.kernel_game._replace(preset_deal=True)) if preset else self._game
        (run or self._run)(K.advance_range, self.n, True, which, self._no_actions, game, self._state, out.fields)
        return out

    def step(self, actions: np.ndarray, run: Callable[..., None] | None = None, out: Outputs | None = None) -> Outputs:
        """One action per row (``int64[n]``, checked by the caller, e.g. with :meth:`refused`);
        ``out`` as in :meth:`reset`."""
        out = out if out is not None else self.outputs(self.options.mode == K.SAME_STEP)
        (run or self._run)(K.advance_range, self.n, False, self._no_which, actions, self._game, self._state,
                           out.fields)
        return out

    def outcome(self, out: Outputs, i: int) -> dict[str, Any]:
        """Row ``i``'s settled round (``out.kind[i]`` is ``KIND_SETTLED``) as plain data: the one
        mapping of the kernel's outputs to the ``info`` entries of a settled round
        (:data:`splitpoker.envs.info.ROUND_INFO`; the single envs, :meth:`Round.settle
        <splitpoker.envs.rules.play.round.Round.settle>`; the native vector env writes the same
        from whole arrays, ``envs/vector/info.py``, and a test holds the two equal).
        ``bonus_line`` is the paying line's key, ``""`` if none."""
        setting = int(out.setting[i])
        return {
            "setting": setting, "fouled": bool(out.fouled[i]), "hands_won": int(out.hands_won[i]),
            "main_result": float(out.main_result[i]), "main_chips": float(out.main_chips[i]),
            "bonus_chips": float(out.bonus_chips[i]), "bonus_line": str(self.line_keys[int(out.bonus_line[i])]),
            "net_chips": float(out.net_chips[i]), "dealer_cards": format_cards(out.dealer_cards[i]),
            "dealer_setting": int(out.dealer_setting[i]), "agrees_with_house_way": setting == int(out.house_way[i]),
            "main_wager": float(out.main_wager[i]), "bonus_wager": float(out.bonus_wager[i]),
        }

    def refused(self, actions: np.ndarray, raise_illegal: bool) -> tuple[int, int]:
        """``(row, reason)`` of the first action the step must refuse (``(-1, 0)`` if none)."""
        i, why = K.first_refused(actions, self.mask, self.phase, self.n_actions, raise_illegal, self.options.mode)
        return int(i), int(why)

    def why_illegal(self, i: int, action: int) -> str:
        """Why ``action`` is not legal in row ``i`` now (for error messages and ``info["reason"]``)."""
        o = self.options
        if self.phase[i] == K.BET:
            return f"the bet phase takes actions 0..{o.n_bet - 1} (ante level x bonus level)"
        if action < self.offset:
            return f"bets are over; the set phase takes settings {self.offset}..{self.offset + self.game.n_settings - 1}"
        s = action - self.offset
        return (f"setting {s} is fouled ({self.game.engine.describe(self.player[i], s)}); mask_fouls=True masks it")

    def reason_text(self, reason: int) -> str:
        """``info["reason"]`` of a penalised action (the kernel's ``reason`` code): why it was
        illegal and what it cost (:func:`~splitpoker.envs.rules.play.kernel.invalid_outcome`)."""
        o = self.options
        if reason == K.REASON_BET_PHASE:
            return (f"the bet phase takes actions 0..{o.n_bet - 1} (ante level x bonus level); "
                    f"no wager placed yet: the penalty alone")
        return (f"bets are over; the set phase takes settings {self.offset}..{self.offset + self.game.n_settings - 1}; "
                f"every wager placed is forfeited, and the penalty on top")


def bet_table_of(levels: tuple[Sequence[float], Sequence[float]]) -> tuple[tuple[float, float], ...]:
    """The bet actions of ``(main levels, bonus levels)``: action ``a`` bets ``main[a // n_bonus]``
    and ``bonus[a % n_bonus]``."""
    mains, bonuses = levels
    return tuple((float(m), float(b)) for m in mains for b in bonuses)
