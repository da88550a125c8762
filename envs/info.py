"""What ``info`` holds, per kind of environment: the same keys at every step, typed, never ``None``.

Outside RL libraries stack ``info`` dicts into arrays (Tianshou's buffer refuses ``None`` as
"NaNs in buffer"; others build one column per key from the first step), so every environment
returns all of its keys at every step, each with a value of a fixed type; a key that does not
apply yet holds its default below (``-1`` for an index or action, ``""`` for text, ``0.0`` for
chips, ``False`` for a flag). ``phase`` says which values are live: ``"done"`` after a settled
round (``setting >= 0``) or a penalised action (``invalid_action >= 0``).

One-seat rounds (``AsiaPoker-v0`` ... ``PaiGowPokerSetting-v0``; the session envs' ``round``):

==========================  ========  ==============================================================
key                         default   meaning
==========================  ========  ==============================================================
``action_mask``             --        ``bool[A]``, the legal actions (all True once done)
``phase``                   --        ``"bet"``, ``"set"`` or ``"done"``
``cards``                   ``""``    the player's seven cards as text, once dealt
``house_way_setting``       ``-1``    the house way's setting of the player's cards, once dealt
``setting``                 ``-1``    the setting played
``fouled``                  False     it fouls (a foul loses the main wager)
``hands_won``               ``0``     hands won against the first dealer hand
``main_result``             ``0.0``   mean main result per unit wagered over the dealer hands
``main_chips``              ``0.0``   the main wager's result in chips
``bonus_chips``             ``0.0``   the bonus wager's result in chips
``bonus_line``              ``""``    key of the paying bonus line (``""``: none pays or no bonus)
``net_chips``               ``0.0``   the round's net chips (invalid action: wagers lost + penalty)
``dealer_cards``            ``""``    the first dealer hand as text
``dealer_setting``          ``-1``    its house-way setting
``agrees_with_house_way``   False     the setting played is the house way's
``main_wager``              ``0.0``   the main wager (ante / wager) placed
``bonus_wager``             ``0.0``   the bonus (Fortune) wager placed
``house_way_action``        False     the "play the house way" action was taken
``invalid_action``          ``-1``    a penalised wrong-phase action
``reason``                  ``""``    why it was refused
==========================  ========  ==============================================================

Numbers only (``info_text=False``)
----------------------------------
Tensor libraries cannot stack text: TorchRL's ``PettingZooWrapper`` builds a tensor per info key
(``TypeError: new(): invalid data type 'str'``) and its ``GymEnv`` info reader reads each value's
``dtype``. With ``info_text=False`` (a keyword of every one-seat env, table and native vector env)
``info`` holds the same keys, every value a numpy array (0-d for a number, so Gymnasium's sync
vector env stacks each key into a typed array and TorchRL reads its dtype), and the text keys
become numbers (:data:`NUMERIC_DEFAULTS`, :func:`numeric`):

==================  ==========================  ===============================================
key                 default                     numeric form
==================  ==========================  ===============================================
``phase``           --                          :class:`~splitpoker.envs.rules.play.kernel.Phase`:
                                                0 bet, 1 set, 2 done
``cards``           ``[-1] * 7``                the seven card integers (rank * 4 + suit, joker 52)
``dealer_cards``    ``[-1] * 7``                the first dealer hand's seven card integers
``bonus_line``      ``-1``                      index of the paying line in the game's pay table
                                                (``env.unwrapped.game.bonus_paytable.lines[i]``)
``reason``          ``0`` (:class:`Reason`)     1: a setting in the bet phase, 2: a bet in the set
                                                phase (``Reason.BET_PHASE`` / ``Reason.SET_PHASE``)
``kind`` (tables)   ``-1``                      the seat's :class:`~splitpoker.envs.rules.table.table.SeatKind`
==================  ==========================  ===============================================

A numeric ``info`` never repeats the observation: the PettingZoo tables, whose observation is
``{"observation", "action_mask"}``, leave ``action_mask`` out of it (TorchRL's wrapper takes the
mask from one place or the other, not both); every other env keeps ``info["action_mask"]``, which
its observation does not hold.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from splitpoker.envs.rules.play import kernel as K

#: the one-seat round's keys and their defaults, in the order the table above gives
ROUND_INFO: dict[str, Any] = {
    "cards": "", "house_way_setting": -1, "setting": -1, "fouled": False, "hands_won": 0, "main_result": 0.0,
    "main_chips": 0.0, "bonus_chips": 0.0, "bonus_line": "", "net_chips": 0.0, "dealer_cards": "",
    "dealer_setting": -1, "agrees_with_house_way": False, "main_wager": 0.0, "bonus_wager": 0.0,
    "house_way_action": False, "invalid_action": -1, "reason": "",
}
#: a table seat's keys (the round's, then the table's own)
TABLE_INFO: dict[str, Any] = {
    **ROUND_INFO, "seat": 0, "kind": "", "envy": False, "envy_chips": 0.0, "envy_hands": 0, "first_spot": 0,
    "main": 0.0, "bonus": 0.0, "net": 0.0,
}
#: a bankroll session's keys (``round`` is the last hand's :data:`ROUND_INFO` subset)
SESSION_INFO: dict[str, Any] = {
    "bankroll": 0.0, "hands_played": 0, "hands_left": -1, "cards": "", "house_way_setting": -1, "end": "",
    "reached_target": False, "invalid_action": -1, "reason": "",
}
#: the keys of a session's ``round`` entry
SESSION_ROUND_KEYS = ("setting", "fouled", "hands_won", "main_wager", "bonus_wager", "main_chips", "bonus_chips",
                      "bonus_line", "net_chips", "cards", "dealer_cards", "house_way_setting")


def complete(info: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``info`` with every key of ``schema`` (its default where absent or ``None``), in the
    schema's order after the keys already there; no ``None`` anywhere (a ``None`` of a key
    outside the schema raises ``ValueError``: every key must have a typed default)."""
    out = dict(info)
    for key, default in schema.items():
        if out.get(key) is None:
            out[key] = default
    stray = [k for k, v in out.items() if v is None]
    if stray:
        raise ValueError(f"info keys {stray} are None and have no typed default: add them to the schema")
    return out


class Reason(IntEnum):
    """``info["reason"]`` under ``info_text=False``: why an action was penalised (the round
    kernel's codes; the text under ``info_text=True`` says the same in words)."""

    NONE = K.REASON_NONE
    BET_PHASE = K.REASON_BET_PHASE  # an action other than a bet in the bet phase
    SET_PHASE = K.REASON_SET_PHASE  # a bet action in the set phase


#: a hand not dealt (yet): seven ``-1`` card integers
NO_CARDS = (-1,) * 7
#: the text keys' numeric defaults under ``info_text=False`` (``phase`` always has its value)
NUMERIC_DEFAULTS: dict[str, Any] = {
    "cards": NO_CARDS, "dealer_cards": NO_CARDS, "bonus_line": -1, "reason": int(Reason.NONE), "kind": -1,
}
#: the keys whose value is text under ``info_text=True``
TEXT_KEYS = ("phase", *NUMERIC_DEFAULTS)


def check_info_text(info_text) -> bool:
    """``info_text`` as given, or ``ValueError`` if it is not a bool."""
    if not isinstance(info_text, (bool, np.bool_)):
        raise ValueError(f"info_text={info_text!r}: expected True (text values in info: phase, cards, reason, ...) "
                         f"or False (numbers only, for tensor libraries such as TorchRL; envs/info.py)")
    return bool(info_text)


def reason_code(invalid_action: int, n_bet: int) -> int:
    """The :class:`Reason` of a penalised wrong-phase ``invalid_action`` (-1: none): an action
    ``>= n_bet`` was sent in the bet phase, a bet action (``< n_bet``) in the set phase."""
    if invalid_action < 0:
        return int(Reason.NONE)
    return int(Reason.SET_PHASE if invalid_action < n_bet else Reason.BET_PHASE)


def numeric(info: dict[str, Any], codes: dict[str, Any]) -> dict[str, Any]:
    """A complete text-form ``info`` with numbers only (``info_text=False``): each text key's
    value from ``codes`` (``phase`` must be there; another absent one takes its
    :data:`NUMERIC_DEFAULTS`), every value a fresh numpy array (0-d for a number). Text that
    would remain raises ``ValueError`` naming the key."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if key in TEXT_KEYS:
            value = codes[key] if key == "phase" else codes.get(key, NUMERIC_DEFAULTS[key])
        value = np.array(value)
        if value.dtype.kind not in "biuf":
            raise ValueError(f"info[{key!r}] = {info[key]!r} has no numeric form ({value.dtype}): expected a number, "
                             f"a flag or a numeric array (add the key to envs/info.py's NUMERIC_DEFAULTS)")
        out[key] = value
    return out


def unexpected_keywords(owner: str, unknown, allowed) -> TypeError:
    """The ``TypeError`` Python raises for an unknown keyword argument, in Python's own words
    (``X() got an unexpected keyword argument 'frameskip'``), so clients that recognise it (e.g.
    TorchRL's ``GymEnv``, which retries without ``frameskip``) do; then what is allowed."""
    unknown = sorted(unknown)
    more = f" (and {', '.join(repr(k) for k in unknown[1:])})" if len(unknown) > 1 else ""
    return TypeError(f"{owner} got an unexpected keyword argument {unknown[0]!r}{more}: expected some of "
                     f"{sorted(allowed)}")
