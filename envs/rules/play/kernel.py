"""The round kernel: every environment's round, for N >= 1 rows, in one numba function.

One round of either game from the player's side: deal, bet, set, settle (main wager against the
dealer's house way, the bonus on the seven cards, capped), the observation, the mask of legal
actions and the invalid-action rules. The single environment is one row, the native vector
environment N rows (split over threads by ranges), a table its seats (rows sharing one deck:
the table deals, the kernel is told the cards are preset), a bankroll session the single
environment's row hand after hand. The environments only map it to their API (Pgx's one
``step``, vmapped, is the model); nothing of a round is written anywhere else.

Phases (:class:`Phase`): ``BET`` (a bet action sets the wagers; the cards are dealt but not
shown), ``SET`` (a setting, or the house-way action, is settled), ``DONE``. Per row and step,
:func:`advance_range`:

* **bet phase**, a bet action: the wagers of the bet table; phase SET;
* **set phase**, a setting (legal, or a masked foul played as the foul it is) or the house-way
  action: settled against every dealer hand; phase DONE, reward net chips / unit;
* **any other action** (the wrong phase's, an illegal one): phase DONE, ``kind`` INVALID, and the
  invalid-action rule (:func:`invalid_outcome`): every wager placed is forfeited and the penalty
  comes on top, net chips ``-(main + bonus) - penalty * unit``, reward net chips / unit. In the bet
  phase nothing is placed yet, so it is ``-penalty`` alone; in the set phase it is below the worst
  a played hand can do (``-(main + bonus)``), so no policy gains by sending it (docs/rules.md,
  "Invalid actions");
* **a finished row** (phase DONE): under NEXT_STEP autoreset the next round starts and the
  action is ignored (reward 0); SAME_STEP writes the finished round's observation to
  ``final_base + i`` and starts the next round in the same step; DISABLED is refused before the
  kernel runs (:func:`first_refused`).

The mask is the legal actions of the phase (bets; the unfouled settings, all settings with
``mask_fouls`` off, and the house-way action) and, once a row is done, every action (never an
empty mask: Pgx's convention). ``invalid_action="raise"`` is checked before the kernel runs
(:func:`first_refused`), so the kernel itself never raises.

State of N rows (:data:`STATE_FIELDS`, all arrays with N rows):

==============  ================  ===========================================================
field           dtype, shape      meaning
==============  ================  ===========================================================
streams         uint64 (N, 4)     PCG64 state of each row's episode stream (``seed_from_streams``)
round_seeds     int64 (N,)        the next round's seed (read when not ``seed_from_streams``)
player          int64 (N, 7)      the player's sorted cards
dealers         int64 (N, K, 7)   the K = ``dealer_samples`` dealer hands
ranks           int64 (N, S, W)   hand values of every setting (W = 3 Asia, 2 Pai Gow), filled
                                  when ``keep_ranks`` (else Asia's fast path keeps only fouls)
fouled          bool (N, S)       setting fouls
house_way       int64 (N,)        house-way setting of the player's cards
phase           int8 (N,)         :class:`Phase`
main_wager      float64 (N,)      ante / wager in chips
bonus_wager     float64 (N,)      bonus / Fortune wager in chips
mask            bool (N, A)       legal actions of the current phase
dealer_settings int64 (N, K)      the dealer hands' house-way settings (last settlement)
dealer_won      int64 (N, K)      hands the player won against each
scratch         int64 (N, 10, 53) per-row work arrays of :mod:`splitpoker.envs.rules.play.rounds`
==============  ================  ===========================================================

The kernel takes three tuples: ``game`` (a :class:`KernelGame` as a plain tuple, :data:`GAME_FIELDS`:
the game's tables, :class:`~splitpoker.envs.rules.game.GameTables`, then the environment's options;
built by name and checked once by :class:`splitpoker.envs.rules.play.round_rows.RoundRows`),
``state`` (above) and ``out`` (:data:`OUT_FIELDS`: the observation rows and four blocks of rows
named by :data:`FLOAT_ROWS`, :data:`INT_ROWS`, :data:`CARD_ROWS`, :data:`FLAG_ROWS`). It works on a
range ``lo..hi-1`` of rows and releases the GIL, so rows can be split over threads (they share
nothing but read-only tables; the result does not depend on the split).

One loop body, no helper taking arrays: numba reference-counts (atomically) every array it binds,
and passing a dozen arrays to a helper per row cost as much as the round (docs/vector.md).
"""

from __future__ import annotations

from collections import namedtuple
from enum import IntEnum

import numpy as np
from numba import njit

from splitpoker.envs.rules.bonus.features import features_sorted
from splitpoker.envs.rules.bonus.paytables import bonus_chips
from splitpoker.envs.rules.dealing import deal_player_and_dealers_into
from splitpoker.envs.rules.games.outcome import setting_values
from splitpoker.envs.rules.house_ways.registry import STYLE_IDS_OF_GAME_ID
from splitpoker.envs.rules.play.observation import OBS_SIZE, fill_observation
from splitpoker.envs.rules.play.rounds import settle_into, value_round_into
from splitpoker.envs.rules.play.seed_stream import next_round_seed


class Phase(IntEnum):
    """The phase of a round (one definition for every environment and the table)."""

    BET = 0
    SET = 1
    DONE = 2


BET, SET, DONE = int(Phase.BET), int(Phase.SET), int(Phase.DONE)  # numba reads these as constants

#: what a row did in a step (``kind`` output)
KIND_BET, KIND_SETTLED, KIND_INVALID, KIND_RESET = 0, 1, 2, 3
#: why an action was refused (``reason`` output / validation)
REASON_NONE, REASON_BET_PHASE, REASON_SET_PHASE, REASON_FOULED, REASON_RANGE, REASON_DONE = 0, 1, 2, 3, 4, 5
#: autoreset modes (Gymnasium's ``AutoresetMode``)
NEXT_STEP, SAME_STEP, DISABLED = 0, 1, 2

#: the fields of the kernel's ``game`` argument and what each must be: a numpy scalar or Python
#: type, or ``(dtype, ndim)`` of an array. The first nine are the game's
#: (:class:`~splitpoker.envs.rules.game.GameTables`), the rest the environment's options.
GAME_FIELD_TYPES = {
    "game_id": np.int64, "style_id": np.int64, "rank": ("uint16", 1), "to_two": ("int64", 1), "commission": float,
    "cat5": ("uint8", 1), "line_of_code": ("int8", 1), "line_odds": ("float64", 1), "max_payout": float,
    "betting": bool, "fixed_wager": float, "bet_main": ("float64", 1), "bet_bonus": ("float64", 1), "n_bet": np.int64,
    "offset": np.int64, "n_settings": np.int64, "hw_action": np.int64, "mask_fouls": bool, "observe_settings": bool,
    "value_scale": ("float32", 1), "main_max": float, "bonus_max": float, "unit": float, "penalty": float,
    "mode": np.int64, "keep_ranks": bool, "seed_from_streams": bool, "preset_deal": bool,
}
GAME_FIELDS = tuple(GAME_FIELD_TYPES)
#: the kernel's constants by name; the kernel is called with ``tuple(kernel_game)`` (numba types a
#: plain tuple in its C fast path, a named tuple about 3 us slower per call) and unpacks it in this order
KernelGame = namedtuple("KernelGame", GAME_FIELDS)


def kernel_game(**fields) -> KernelGame:
    """The kernel's ``game`` argument from its fields by name, each checked against
    :data:`GAME_FIELD_TYPES`: a missing or unknown field, or one of the wrong type, dtype or shape,
    is a ``TypeError`` naming it (numba would otherwise compile a new kernel for it, or fail deep
    inside one)."""
    missing = [f for f in GAME_FIELDS if f not in fields]
    unknown = sorted(set(fields) - set(GAME_FIELDS))
    if missing or unknown:
        raise TypeError(f"kernel game fields: missing {missing}, unknown {unknown} (GAME_FIELDS lists them)")
    for name, want in GAME_FIELD_TYPES.items():
        v = fields[name]
        if isinstance(want, tuple):
            dtype, ndim = want
            ok = isinstance(v, np.ndarray) and v.dtype == np.dtype(dtype) and v.ndim == ndim
            expected = f"a {ndim}-d {dtype} array"
        else:
            ok = type(v) is want
            expected = want.__name__
        if not ok:
            got = f"{type(v).__name__}" + (f" {v.dtype} {v.shape}" if isinstance(v, np.ndarray) else f" {v!r}")
            raise TypeError(f"kernel game field {name!r}: expected {expected}, got {got}")
    style_id, game_id = int(fields["style_id"]), int(fields["game_id"])
    if style_id not in STYLE_IDS_OF_GAME_ID.get(game_id, ()):
        # the numba dispatch has no branch to refuse it in (a raise inside prange is not reliable)
        raise ValueError(f"kernel game style_id={style_id}: expected a registered house way of game id {game_id} "
                         f"(ids {list(STYLE_IDS_OF_GAME_ID.get(game_id, ()))})")
    return KernelGame(**fields)

STATE_FIELDS = ("streams", "round_seeds", "player", "dealers", "ranks", "fouled", "house_way", "phase", "main_wager",
                "bonus_wager", "mask", "dealer_settings", "dealer_won", "scratch")
OUT_FIELDS = ("obs_rows", "final_base", "floats", "ints", "cards", "flags")
#: rows of the ``out`` blocks: ``floats`` (float64), ``ints`` (int64), ``cards`` (int64, N x 7 each), ``flags`` (int8)
FLOAT_ROWS = ("reward", "main_result", "main_chips", "bonus_chips", "net_chips", "main_wager", "bonus_wager")
INT_ROWS = ("setting", "hands_won", "bonus_line", "dealer_setting", "house_way")
CARD_ROWS = ("cards", "dealer_cards")
FLAG_ROWS = ("terminated", "fouled", "kind", "reason")


@njit(cache=True)
def invalid_outcome(main_wager, bonus_wager, penalty, unit):
    """``(net chips, reward)`` of an invalid action: every wager placed (``main_wager``,
    ``bonus_wager``, chips; both 0 before the bet) is forfeited, and the penalty (``penalty``
    reward units of ``unit`` chips) comes on top. The one statement of the rule: the kernel and the
    table seats use it; the session envs take the forfeit from it. Before the bet the reward is
    exactly ``-penalty``."""
    lost = main_wager + bonus_wager
    return -lost - penalty * unit, -lost / unit - penalty


@njit(cache=True)
def first_refused(actions, mask, phase, n_actions, raise_illegal, mode):
    """Index of the first row whose action the step must refuse, and why (-1, 0 if none): out of
    range, a finished episode (autoreset disabled), or illegal under ``invalid_action="raise"``.
    A NEXT_STEP autoreset ignores the action of a finished row."""
    for i in range(actions.shape[0]):
        if phase[i] == DONE and mode == NEXT_STEP:
            continue
        a = actions[i]
        if a < 0 or a >= n_actions:
            return i, REASON_RANGE
        if phase[i] == DONE:
            return i, REASON_DONE
        if raise_illegal and not mask[i, a]:
            return i, REASON_BET_PHASE if phase[i] == BET else REASON_SET_PHASE
    return -1, REASON_NONE


@njit(cache=True, nogil=True)
def advance_range(lo, hi, resetting, which, actions, game, state, out):
    """Reset (``resetting``) or step every row ``lo <= i < hi`` (see the module docstring).

    **Reset**: a new round in each row with ``which[i]`` (the others keep their state); every
    row's observation and mask are written. **Step** (``actions`` already checked by
    :func:`first_refused`): one action per row. The finished round's cards, house-way setting and
    first dealer hand go to ``out``'s ``cards``, ``house_way``, ``dealer_cards``."""
    # ``game`` is ``tuple(KernelGame)``, unpacked in GAME_FIELDS order (tests/test_kernel_game.py
    # holds these names to GAME_FIELDS)
    (game_id, style_id, rank, to_two, commission, cat5, line_of_code, line_odds, max_payout, betting, fixed_wager,
     bet_main, bet_bonus, n_bet, offset, n_settings, hw_action, mask_fouls, observe_settings, value_scale, main_max,
     bonus_max, unit, penalty, mode, keep_ranks, seed_from_streams, preset_deal) = game
    (streams, round_seeds, player, dealers, ranks, fouled, house_way, phase, main_wager, bonus_wager, mask,
     dealer_settings, dealer_won, scratch) = state
    obs_rows, final_base, floats, ints, cards, flags = out  # few arrays: each costs the dispatch an unboxing
    reward, main_result, main_chips, bonus_chips_out, net_chips, wager_out, bonus_wager_out = (
        floats[0], floats[1], floats[2], floats[3], floats[4], floats[5], floats[6])
    setting_out, hands_won, bonus_line, dealer_setting, house_way_out = ints[0], ints[1], ints[2], ints[3], ints[4]
    cards_out, dealer_cards_out = cards[0], cards[1]
    terminated, fouled_out, kind, reason = flags[0], flags[1], flags[2], flags[3]
    width = ranks.shape[2]
    n_actions = mask.shape[1]
    for i in range(lo, hi):
        start = False
        final_row = -1
        if resetting:
            start = which[i]
        else:
            terminated[i] = False
            reward[i] = 0.0
            reason[i] = REASON_NONE
            bonus_line[i] = -1
            if phase[i] == DONE:  # NEXT_STEP autoreset (validation refused it otherwise)
                start = True
                kind[i] = KIND_RESET
            else:
                a = actions[i]
                p = phase[i]
                if p == BET and a < n_bet:
                    main_wager[i] = bet_main[a]
                    bonus_wager[i] = bet_bonus[a]
                    phase[i] = SET
                    kind[i] = KIND_BET
                elif p == SET and a >= offset:
                    # a setting (legal, or a masked foul played as the foul it is) or the house-way action
                    s = house_way[i] if a == hw_action else a - offset
                    foul = fouled[i, s]
                    if keep_ranks:  # the values were kept at the deal
                        v0, v1 = ranks[i, s, 0], ranks[i, s, 1]
                        v2 = ranks[i, s, 2] if width == 3 else np.int64(0)
                    else:  # Asia's fast path kept only the fouls: value the one setting played
                        v0, v1, v2 = setting_values(game_id, player[i], s, rank)
                    mean = settle_into(game_id, v0, v1, v2, foul, dealers[i], style_id, rank, to_two, commission,
                                       dealer_settings[i], dealer_won[i], scratch[i])
                    m_chips = main_wager[i] * mean
                    b_chips = 0.0
                    if bonus_wager[i] > 0:  # paid on the seven cards, whatever the main result
                        line = line_of_code[features_sorted(player[i], cat5)]
                        bonus_line[i] = line
                        b_chips = bonus_chips(line, bonus_wager[i], line_odds, max_payout)
                    net = m_chips + b_chips
                    setting_out[i] = s
                    fouled_out[i] = foul
                    hands_won[i] = dealer_won[i, 0]
                    main_result[i] = mean
                    main_chips[i] = m_chips
                    bonus_chips_out[i] = b_chips
                    net_chips[i] = net
                    dealer_setting[i] = dealer_settings[i, 0]
                    reward[i] = net / unit
                    phase[i] = DONE
                    terminated[i] = True
                    kind[i] = KIND_SETTLED
                else:  # the wrong phase's action: the wagers placed are forfeited, the penalty on top
                    reason[i] = REASON_BET_PHASE if p == BET else REASON_SET_PHASE
                    net, r = invalid_outcome(main_wager[i], bonus_wager[i], penalty, unit)
                    main_chips[i] = -main_wager[i]
                    bonus_chips_out[i] = -bonus_wager[i]
                    net_chips[i] = net
                    reward[i] = r
                    phase[i] = DONE
                    terminated[i] = True
                    kind[i] = KIND_INVALID
                wager_out[i] = main_wager[i]
                bonus_wager_out[i] = bonus_wager[i]
            if terminated[i]:
                for c in range(7):
                    cards_out[i, c] = player[i, c]
                    dealer_cards_out[i, c] = dealers[i, 0, c]
                house_way_out[i] = house_way[i]
                if mode == SAME_STEP:  # the finished round's observation first, then the next round
                    final_row = final_base + i
                    start = True
        for t in range(2):
            if t == 0:
                if final_row < 0:
                    continue
                row = final_row
            else:
                row = i
                if start:  # a new round: its seed, the deal (unless the table dealt it), the values
                    if not preset_deal:
                        seed = next_round_seed(streams[i]) if seed_from_streams else round_seeds[i]
                        deal_player_and_dealers_into(seed, dealers.shape[1], player[i], dealers[i], scratch[i, 0:2])
                    house_way[i] = value_round_into(game_id, style_id, rank, to_two, player[i], ranks[i], fouled[i],
                                                    scratch[i], keep_ranks)
                    if betting:
                        phase[i] = BET
                        main_wager[i] = 0.0
                    else:
                        phase[i] = SET
                        main_wager[i] = fixed_wager
                    bonus_wager[i] = 0.0
            # the observation and the mask
            p = phase[i]
            show = p != BET
            bonus_frac = bonus_wager[i] / bonus_max if bonus_max != 0.0 else 0.0
            fill_observation(player[i], show, p, main_wager[i] / main_max, bonus_frac, obs_rows[row])
            if observe_settings:
                for s in range(n_settings):
                    for w in range(width):
                        obs_rows[row, OBS_SIZE + s * width + w] = (
                            np.float32(ranks[i, s, w] * np.float64(value_scale[w])) if show else 0.0)
            for a in range(n_actions):
                mask[i, a] = p == DONE  # a finished round: every action marked, never an empty mask
            if p == BET:
                for a in range(n_bet):
                    mask[i, a] = True
            elif p == SET:
                for s in range(n_settings):
                    mask[i, offset + s] = not (mask_fouls and fouled[i, s])
                if hw_action >= 0:
                    mask[i, hw_action] = True
