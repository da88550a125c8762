"""The native vector environment's ``info``: what ``gym.make_vec(id, N, vectorization_mode="sync")``
returns, built from the round kernel's arrays without a loop over rows.

Gymnasium's sync vector env stacks the single env's ``info`` (:data:`splitpoker.envs.info.ROUND_INFO`,
every key at every step) into one array per key, typed by the first value (``int`` -> ``int64``,
``float`` -> ``float64``, ``bool`` -> ``bool``, text -> ``object``, an array -> its dtype with a leading
axis), each with a boolean ``_key`` array marking the rows that carry it. :class:`VectorInfo` gives
the same keys and dtypes from the kernel's state rows and :class:`~splitpoker.envs.rules.play.round_rows.Outputs`:

* every row carries every key (``_key`` all True), at reset, at a step and at the autoreset step
  (where a sub-environment starts its next round: the single env's reset ``info``); a key that does
  not apply holds its default (``-1``, ``""``, ``0.0``, ``False``); after
  ``reset(options={"reset_mask": m})`` the masks are ``m`` (the rows that were reset), as Gymnasium's;
* ``autoreset_mode=SAME_STEP``: ``info["final_info"]`` holds the finished rounds' last ``info``, its
  masks the finished rows;
* one difference, kept from the first release: ``cards`` and ``dealer_cards`` are the seven card
  integers (``int64[N, 7]``, ``-1`` where no hand is shown), not text; under ``info_text=True``
  their masks say where the hand is shown (``_cards``: dealt, ``_dealer_cards``: settled), as
  before; ``splitpoker.envs.rules.cards.format_card_rows`` gives the single env's text. Under
  ``info_text=False`` the single env's cards are integers too, and every key, dtype and mask is
  the sync vector env's (``tests/test_vector_info.py`` compares them).

The defaults come from a few template blocks copied once per call (a fresh block per dtype, each
key a row of it, as :class:`~splitpoker.envs.rules.play.round_rows.Outputs`); a row's values are
written where the kernel says the round settled or was penalised. The ``_key`` arrays of one
``info`` are one read-only array (writing to one would change the others).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from splitpoker.envs.info import NUMERIC_DEFAULTS, ROUND_INFO, Reason
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.round_rows import Outputs, RoundRows

_PHASE_NAMES = np.array(["bet", "set", "done"], dtype=object)
#: outcome keys by dtype (the wagers come from the state, the texts and cards apart)
INT_KEYS = ("setting", "hands_won", "dealer_setting", "invalid_action")
FLOAT_KEYS = ("main_result", "main_chips", "bonus_chips", "net_chips")
FLAG_KEYS = ("fouled", "agrees_with_house_way", "house_way_action")


def _put(dst: np.ndarray, src: np.ndarray, rows: np.ndarray | None) -> None:
    """``dst[rows] = src[rows]`` (every row when ``rows`` is None)."""
    if rows is None:
        dst[...] = src
    else:
        np.copyto(dst, src, where=rows if src.ndim == 1 else rows[:, None])


def _rows(mask: np.ndarray, n: int) -> np.ndarray | None:
    """``None`` if ``mask`` selects every row (a plain copy serves), else ``mask``."""
    return None if np.count_nonzero(mask) == n else mask


class VectorInfo:
    """``info`` of a native vector env of ``rows.n`` sub-environments (see the module docstring)."""

    def __init__(self, rows: RoundRows, house_way_action: int | None, info_text: bool):
        self.rows = rows
        self.n = n = rows.n
        self.text = bool(info_text)
        self.house_way_action = house_way_action
        self._ints = np.array([[ROUND_INFO[k]] * n for k in INT_KEYS], dtype=np.int64)
        self._floats = np.zeros((len(FLOAT_KEYS), n), dtype=np.float64)
        self._flags = np.zeros((len(FLAG_KEYS), n), dtype=np.bool_)
        self._no_cards = np.full((n, 7), NUMERIC_DEFAULTS["cards"][0], dtype=np.int64)
        self._no_setting = np.full(n, ROUND_INFO["house_way_setting"], dtype=np.int64)
        self._codes = np.array([[NUMERIC_DEFAULTS["bonus_line"]] * n, [NUMERIC_DEFAULTS["reason"]] * n],
                               dtype=np.int64)
        self._no_text = np.full(n, "", dtype=object)
        # the text of each Reason code (codes index it)
        self._reasons = np.array([""] + [rows.reason_text(int(r)) for r in (Reason.BET_PHASE, Reason.SET_PHASE)],
                                 dtype=object)
        assert [int(r) for r in Reason] == list(range(len(self._reasons)))
        self._all_actions = np.ones((n, rows.n_actions), dtype=np.bool_)
        self._done_text = np.full(n, "done", dtype=object)
        self._done_code = np.full(n, K.DONE, dtype=np.int64)
        self._mask_names = {key: f"_{key}" for key in ("action_mask", "phase", *ROUND_INFO)}
        self._true = np.ones(n, dtype=np.bool_)

    # ---- the three kinds of info ----------------------------------------------------------
    def reset(self, which: np.ndarray) -> dict[str, Any]:
        """After ``reset``: every row's state (the rows not reset keep theirs), masks ``which``."""
        info = self._state()
        info.update(self._outcome(None, None, None, None))
        return self._masked(info, which, self.rows.phase != K.BET, None)

    def step(self, out: Outputs, actions: np.ndarray) -> dict[str, Any]:
        """After a step (autoreset ``NEXT_STEP`` or ``DISABLED``): every row's state, and the
        outcome where the step settled a round or penalised an action."""
        settled, invalid = out.kind == K.KIND_SETTLED, out.kind == K.KIND_INVALID
        info = self._state()
        info.update(self._outcome(out, actions, settled, invalid))
        if np.count_nonzero(out.terminated):  # the wagers settled (the single env reports the outcome's)
            ended = settled | invalid
            for key, column in (("main_wager", out.main_wager), ("bonus_wager", out.bonus_wager)):
                _put(info[key], column, ended)
        return self._masked(info, None, self.rows.phase != K.BET, settled)

    def same_step(self, out: Outputs, actions: np.ndarray, final_obs: np.ndarray) -> dict[str, Any]:
        """After a step under ``SAME_STEP``: every row's state (a finished row's is its next
        round's: the single env's reset ``info``), and the finished rounds in ``final_info``."""
        info = self._masked(self._state() | self._outcome(None, None, None, None), None,
                            self.rows.phase != K.BET, None)
        done = out.terminated
        if np.count_nonzero(done):
            done = done.copy()
            settled, invalid = out.kind == K.KIND_SETTLED, out.kind == K.KIND_INVALID
            final = {"action_mask": self._all_actions.copy(),
                     "phase": self._done_text.copy() if self.text else self._done_code.copy(),
                     "main_wager": out.main_wager, "bonus_wager": out.bonus_wager, "cards": out.cards,
                     "house_way_setting": out.house_way}
            final.update(self._outcome(out, actions, settled, invalid))
            final_objs = np.full(self.n, None, dtype=object)
            for i in np.flatnonzero(done):
                final_objs[i] = final_obs[i]
            info["final_obs"] = final_objs
            info["_final_obs"] = done
            info["final_info"] = self._masked(final, done, done, settled)
            info["_final_info"] = done.copy()
        return info

    # ---- parts -----------------------------------------------------------------------------
    def _state(self) -> dict[str, Any]:
        """The keys the single env reads from its state: mask, phase, cards, house way, wagers."""
        r = self.rows
        dealt = _rows(r.phase != K.BET, self.n)
        if dealt is None:  # every hand shown
            cards, house_way = r.player.copy(), r.house_way.copy()
        else:
            cards, house_way = self._no_cards.copy(), self._no_setting.copy()
            _put(cards, r.player, dealt)
            _put(house_way, r.house_way, dealt)
        return {"action_mask": r.mask.copy(),
                "phase": _PHASE_NAMES.take(r.phase) if self.text else r.phase.astype(np.int64),
                "cards": cards, "house_way_setting": house_way,
                "main_wager": r.main_wager.copy(), "bonus_wager": r.bonus_wager.copy()}

    def _outcome(self, out: Outputs | None, actions, settled, invalid) -> dict[str, Any]:
        """The outcome keys: the settled rows' results and the penalised rows' action and
        reason (defaults elsewhere; all defaults without ``out``). Where every row settled (a
        setting env's settling step) the kernel's output rows are the values as they are."""
        n = self.n
        n_settled = np.count_nonzero(settled) if out is not None else 0  # (a fraction of .any()'s cost)
        n_invalid = np.count_nonzero(invalid) if out is not None else 0
        if n_settled == n:
            hw = self.house_way_action
            info = {"setting": out.setting, "hands_won": out.hands_won, "dealer_setting": out.dealer_setting,
                    "invalid_action": self._ints[INT_KEYS.index("invalid_action")].copy(),
                    "main_result": out.main_result, "main_chips": out.main_chips, "bonus_chips": out.bonus_chips,
                    "net_chips": out.net_chips, "fouled": out.fouled,
                    "agrees_with_house_way": out.setting == out.house_way,
                    "house_way_action": actions == hw if hw is not None else self._flags[0].copy(),
                    "dealer_cards": out.dealer_cards, "bonus_line": out.bonus_line,
                    "reason": self._codes[1].copy()}
        else:
            info = dict(zip(INT_KEYS + FLOAT_KEYS + FLAG_KEYS, (*self._ints.copy(), *self._floats.copy(),
                                                                *self._flags.copy()), strict=True))
            info["dealer_cards"] = self._no_cards.copy()
            info["bonus_line"], info["reason"] = self._codes.copy()
            if n_settled:
                for key, column in (("setting", out.setting), ("hands_won", out.hands_won),
                                    ("dealer_setting", out.dealer_setting), ("main_result", out.main_result),
                                    ("main_chips", out.main_chips), ("bonus_chips", out.bonus_chips),
                                    ("net_chips", out.net_chips), ("fouled", out.fouled),
                                    ("dealer_cards", out.dealer_cards), ("bonus_line", out.bonus_line)):
                    _put(info[key], column, settled)
                _put(info["agrees_with_house_way"], out.setting == out.house_way, settled)
                if self.house_way_action is not None:
                    _put(info["house_way_action"], actions == self.house_way_action, settled)
            if n_invalid:
                for key, column in (("invalid_action", actions), ("net_chips", out.net_chips),
                                    ("reason", out.reason)):
                    _put(info[key], column, invalid)
        if self.text:
            info["bonus_line"] = self.rows.line_keys.take(info["bonus_line"]) if n_settled else self._no_text.copy()
            info["reason"] = self._reasons.take(info["reason"]) if n_invalid else self._no_text.copy()
        return info

    def _masked(self, info: dict[str, Any], rows: np.ndarray | None, dealt: np.ndarray,
                settled: np.ndarray | None) -> dict[str, Any]:
        """``info`` with Gymnasium's ``_key`` arrays: ``rows`` (None: all) for every key; under
        ``info_text=True`` the card keys' say where a hand is shown (dealt, settled)."""
        every = self._true.copy() if rows is None else rows.copy()
        every.flags.writeable = False
        names = self._mask_names
        info.update({names[key]: every for key in tuple(info)})
        if self.text:
            info["_cards"] = every & dealt
            info["_dealer_cards"] = every & settled if settled is not None else np.zeros(self.n, dtype=np.bool_)
        return info
