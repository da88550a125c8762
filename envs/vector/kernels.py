"""Numba kernels of the batched environments (:mod:`splitpoker.envs.vector.env`): one call steps all N games.

Every kernel runs the rules of :mod:`splitpoker.envs.rules.play.rounds` (deal, settings, house way, settlement),
the bonus pay table (:mod:`splitpoker.envs.rules.bonus.paytables` as arrays), the observation of
:mod:`splitpoker.envs.observation` and the action mask, for each sub-environment ``i`` of a range of
environments, so the Python layer only checks the actions and wraps arrays (EnvPool and Pgx are
the models). Each sub-environment's episode seed comes from its own PCG64 stream
(:mod:`splitpoker.envs.rules.play.seed_stream`), the draw a single environment makes in ``reset``; so sub-environment
``i`` deals exactly what a single environment seeded the same way deals.

State of N environments (``VecState`` fields, all arrays with N rows):

==============  ================  ===========================================================
field           dtype, shape      meaning
==============  ================  ===========================================================
streams         uint64 (N, 4)     PCG64 state of each sub-environment's ``np_random``
player          int64 (N, 7)      the player's sorted cards
dealers         int64 (N, K, 7)   the K = ``dealer_samples`` dealer hands
ranks           int64 (N, S, W)   hand values of every setting (W = 3 Asia, 2 Pai Gow); Asia
                                  fills them only with ``observe_settings`` or ``setting_features`` (their readers)
fouled          bool (N, S)       setting fouls
house_way       int64 (N,)        house-way setting of the player's cards
phase           int8 (N,)         :class:`splitpoker.envs.base.Phase` (bet, set, done)
main_wager      float64 (N,)      ante / wager in chips
bonus_wager     float64 (N,)      bonus / Fortune wager in chips
mask            bool (N, A)       legal actions of the current phase
scratch         int64 (N, 10, 53)  per-environment work arrays of :mod:`splitpoker.envs.rules.play.rounds_batch`
==============  ================  ===========================================================

The kernels take three tuples: ``game`` (the constants of the table, :data:`GAME_FIELDS`),
``state`` (:data:`STATE_FIELDS`: the fields above, with the per-round ``dealer_settings`` and
``dealer_won`` before ``scratch``; nothing is allocated per round) and ``out``
(the step's outputs, :data:`OUT_FIELDS`: the observation rows and four blocks of rows named by
:data:`FLOAT_ROWS`, :data:`INT_ROWS`, :data:`CARD_ROWS`, :data:`FLAG_ROWS`). Each kernel works on a range ``lo..hi-1`` of
sub-environments and releases the GIL (``nogil``), so the vector env splits a step over its
threads by handing each a disjoint range (sub-environments share nothing but read-only tables);
the result does not depend on the split.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splitpoker.envs.observation import OBS_SIZE, fill_observation
from splitpoker.envs.rules.bonus.features import features_sorted
from splitpoker.envs.rules.games.asia import asia_setting_ranks
from splitpoker.envs.rules.play.dealing import bounded, stream_state
from splitpoker.envs.rules.play.rounds_batch import (
    asia_round_start_into,
    asia_settle_into,
    paigow_round_start_into,
    paigow_settle_into,
)
from splitpoker.envs.rules.play.seed_stream import next_round_seed

BET, SET, DONE = 0, 1, 2  # splitpoker.envs.base.Phase

#: what a sub-environment did in a step (``kind`` output)
KIND_BET, KIND_SETTLED, KIND_INVALID, KIND_RESET = 0, 1, 2, 3
#: why an action was refused (``reason`` output / validation)
REASON_NONE, REASON_BET_PHASE, REASON_SET_PHASE, REASON_FOULED, REASON_RANGE, REASON_DONE = 0, 1, 2, 3, 4, 5
#: autoreset modes
NEXT_STEP, SAME_STEP, DISABLED = 0, 1, 2


GAME_FIELDS = ("asia", "style_id", "rank", "to_two", "commission", "betting", "fixed_wager", "bet_main", "bet_bonus",
               "n_bet", "offset", "n_settings", "hw_action", "mask_fouls", "observe_settings", "value_scale",
               "main_max", "bonus_max", "unit", "penalty", "cat5", "line_of_code", "line_odds", "max_payout", "mode",
               "keep_ranks")
STATE_FIELDS = ("streams", "player", "dealers", "ranks", "fouled", "house_way", "phase", "main_wager", "bonus_wager",
                "mask", "dealer_settings", "dealer_won", "scratch")
OUT_FIELDS = ("obs_rows", "final_base", "floats", "ints", "cards", "flags")
#: rows of the ``out`` blocks: ``floats`` (float64), ``ints`` (int64), ``cards`` (int64, N x 7 each), ``flags`` (int8)
FLOAT_ROWS = ("reward", "main_result", "main_chips", "bonus_chips", "net_chips", "main_wager", "bonus_wager")
INT_ROWS = ("setting", "hands_won", "bonus_line", "dealer_setting", "house_way")
CARD_ROWS = ("cards", "dealer_cards")
FLAG_ROWS = ("terminated", "fouled", "kind", "reason")


@njit(cache=True)
def first_refused(actions, mask, phase, n_actions, raise_illegal, mode):
    """Index of the first sub-environment whose action the step must refuse, and why (-1, 0 if
    none): out of range, a finished episode (autoreset disabled), or illegal under
    ``invalid_action="raise"``. A NEXT_STEP autoreset ignores the action of a finished env."""
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
    """Reset (``resetting``) or step every sub-environment ``lo <= i < hi``; releases the GIL, so
    :class:`splitpoker.envs.vector.env.SplitHandVectorEnv` runs disjoint ranges on its threads.

    **Reset** (``SplitHandEnv.reset``): a new round in each sub-environment with ``which[i]``
    (the others keep their state); every row's observation and mask are written.

    **Step** (``SplitHandEnv.step``; ``actions`` already validated). Bet phase: a bet action sets
    the wagers. Set phase: a setting (or the house-way action) is settled against the dealer
    hands, a fouled one played as a foul. Any other action (the wrong phase) ends the episode
    with reward ``-penalty``. Mode NEXT_STEP: a finished env starts its next round instead
    (reward 0, ``kind`` RESET); SAME_STEP: a finished env's observation goes to row
    ``final_base + i`` of ``obs_rows`` and the next round starts in the same step. The finished
    round's cards, house-way setting and first dealer hand go to ``out``'s ``cards``,
    ``house_way``, ``dealer_cards``.

    One loop body, no helper taking arrays: numba reference-counts (atomically) every array it
    binds, and passing a dozen arrays to a helper per environment cost as much as the round."""
    (asia, style_id, rank, to_two, commission, betting, fixed_wager, bet_main, bet_bonus, n_bet, offset, n_settings,
     hw_action, mask_fouls, observe_settings, value_scale, main_max, bonus_max, unit, penalty, cat5, line_of_code,
     line_odds, max_payout, mode, keep_ranks) = game
    (streams, player, dealers, ranks, fouled, house_way, phase, main_wager, bonus_wager, mask, dealer_settings,
     dealer_won, scratch) = state
    obs_rows, final_base, floats, ints, cards, flags = out  # few arrays: each costs the dispatch an unboxing
    reward, main_result, main_chips, bonus_chips, net_chips, wager_out, bonus_wager_out = (
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
                    if asia:
                        if keep_ranks:
                            ph, pm, pl = ranks[i, s, 0], ranks[i, s, 1], ranks[i, s, 2]
                        else:
                            ph, pm, pl = asia_setting_ranks(player[i], s, rank)
                        mean = asia_settle_into(ph, pm, pl, foul, dealers[i], style_id, rank, to_two,
                                                dealer_settings[i], dealer_won[i], scratch[i])
                    else:
                        mean = paigow_settle_into(ranks[i, s, 0], ranks[i, s, 1], foul, dealers[i], style_id, rank,
                                                  to_two, commission, dealer_settings[i], dealer_won[i], scratch[i])
                    m_chips = main_wager[i] * mean
                    b_chips = 0.0
                    if bonus_wager[i] > 0:
                        line = line_of_code[features_sorted(player[i], cat5)]
                        bonus_line[i] = line
                        if line < 0:
                            b_chips = -bonus_wager[i]
                        else:
                            b_chips = bonus_wager[i] * line_odds[line]
                            if b_chips > max_payout:
                                b_chips = max_payout
                    net = m_chips + b_chips
                    setting_out[i] = s
                    fouled_out[i] = foul
                    hands_won[i] = dealer_won[i, 0]
                    main_result[i] = mean
                    main_chips[i] = m_chips
                    bonus_chips[i] = b_chips
                    net_chips[i] = net
                    dealer_setting[i] = dealer_settings[i, 0]
                    reward[i] = net / unit
                    phase[i] = DONE
                    terminated[i] = True
                    kind[i] = KIND_SETTLED
                else:  # the wrong phase's action: penalised
                    reason[i] = REASON_BET_PHASE if p == BET else REASON_SET_PHASE
                    net_chips[i] = -penalty * unit
                    reward[i] = -penalty
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
                if start:  # a new round: draw its seed, deal, rank
                    seed = next_round_seed(streams[i])
                    if asia:  # Asia's setting values are kept only for the observation
                        house_way[i] = asia_round_start_into(seed, style_id, rank, to_two, player[i], dealers[i],
                                                             ranks[i], fouled[i], scratch[i], keep_ranks)
                    else:
                        house_way[i] = paigow_round_start_into(seed, style_id, rank, to_two, player[i], dealers[i],
                                                               ranks[i], fouled[i], scratch[i])
                    if betting:
                        phase[i] = BET
                        main_wager[i] = 0.0
                    else:
                        phase[i] = SET
                        main_wager[i] = fixed_wager
                    bonus_wager[i] = 0.0
            # the observation (SplitHandEnv._observation) and the mask (action_masks)
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


#: random draws :func:`sample_legal` tries before it counts its way to a legal action
SAMPLE_TRIES = 8


@njit(cache=True)
def sample_legal(mask, seed, out):
    """A uniformly random legal action per row of ``mask`` (0 where nothing is legal: a finished
    env whose next action is ignored), from a counter-based stream seeded by ``seed``.

    Rejection sampling: up to :data:`SAMPLE_TRIES` uniform draws from all actions, the first legal
    one taken; if none is, the k-th legal action for a uniform k. Either way each legal action
    has probability 1/L (a draw accepted at any try is uniform over the legal ones), and a row
    whose actions are mostly legal costs a draw or two instead of a scan of the mask."""
    width = mask.shape[1]
    for i in range(mask.shape[0]):
        n = 0
        for a in range(width):
            n += mask[i, a]
        out[i] = 0
        if n == 0:
            continue
        state = stream_state(seed, i)
        found = False
        for _ in range(SAMPLE_TRIES):
            state, a = bounded(state, width)
            if mask[i, a]:
                out[i] = a
                found = True
                break
        if found:
            continue
        _, k = bounded(state, n)
        for a in range(width):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
