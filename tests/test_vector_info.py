"""The native vector env's ``info`` against Gymnasium's sync vector env of the same single envs
(envs/vector/info.py): the same keys, ``_key`` masks, dtypes and shapes at reset, at a step, at a
finished round and at the autoreset step (and in ``final_info`` under SAME_STEP), and the same
values, since sub-environment ``i`` deals what the single env deals after ``reset(seed=s + i)``
(docs/vector.md). Both ``info_text`` forms; the numeric one checked against the text one."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import splitpoker  # noqa: F401  (registers the ids)
from splitpoker.envs.info import ROUND_INFO, TABLE_INFO, Reason, numeric
from splitpoker.envs.registration import VECTOR_ENTRY_POINTS
from splitpoker.envs.rules.cards import format_card_rows, format_cards
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.table.table import SeatKind

IDS = list(VECTOR_ENTRY_POINTS)
N = 4
#: the keys the native env keeps as card integers under info_text=True (the sync env has text)
CARD_KEYS = ("cards", "dealer_cards")


def _compare(sync: dict, native: dict, text: bool, where) -> None:
    """``native`` holds ``sync``'s keys, masks, dtypes and shapes, and its values where the masks
    say a row carries the key; under ``info_text=True`` the card keys are integers whose text is
    the sync env's where the native mask says a hand is shown ("" elsewhere)."""
    assert sorted(native) == sorted(sync), (where, sorted(set(native) ^ set(sync)))
    for key, want in sync.items():
        got = native[key]
        at = (where, key)
        if isinstance(want, dict):
            _compare(want, got, text, at)
            continue
        if text and key.lstrip("_") in CARD_KEYS:
            continue
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape, \
            (at, type(got), got.dtype, want.dtype, got.shape, want.shape)
        if key.startswith("_"):
            assert np.array_equal(got, want), (at, got, want)
            continue
        for i in np.flatnonzero(sync[f"_{key}"]):
            assert np.array_equal(got[i], want[i]), (at, i, got[i], want[i])
    if text:
        for key in CARD_KEYS:
            if key not in sync:
                continue
            shown, carried = native[f"_{key}"], sync[f"_{key}"]
            assert native[key].dtype == np.int64 and native[key].shape == (N, 7), (where, key)
            assert not (shown & ~carried).any(), (where, key, shown, carried)
            texts = np.full(N, "", dtype=object)
            if shown.any():
                texts[shown] = format_card_rows(native[key][shown])
            for i in np.flatnonzero(carried):
                assert texts[i] == sync[key][i], (where, key, i, texts[i], sync[key][i])


def _pair(env_id, mode, **kwargs):
    sync = gym.make_vec(env_id, num_envs=N, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs)
    native = gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", autoreset_mode=mode, **kwargs)
    return sync, native


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=["next_step", "same_step"])
@pytest.mark.parametrize("info_text", [True, False], ids=["text", "numeric"])
@pytest.mark.parametrize("env_id", IDS)
def test_native_info_is_the_sync_info(env_id, info_text, mode):
    sync, native = _pair(env_id, mode, **({} if info_text else {"info_text": False}))  # text: the default
    _, s_info = sync.reset(seed=7)
    _, n_info = native.reset(seed=7)
    _compare(s_info, n_info, info_text, "reset")
    rng = np.random.default_rng(1)
    seen = dict.fromkeys(("playing", "settled", "penalised", "autoreset"), 0)
    finished = np.zeros(N, dtype=bool)
    for t in range(12):
        mask = n_info["action_mask"]
        # mostly legal actions, some of any phase (penalised under the default invalid_action)
        actions = np.array([rng.choice(np.flatnonzero(m)) if rng.random() < 0.7 else rng.integers(m.size)
                            for m in mask])
        _, s_rew, s_term, _, s_info = sync.step(actions)
        _, n_rew, n_term, _, n_info = native.step(actions)
        np.testing.assert_array_equal(n_rew, s_rew)
        np.testing.assert_array_equal(n_term, s_term)
        _compare(s_info, n_info, info_text, ("step", t))
        final = n_info.get("final_info", n_info)  # where the finished rounds' info is
        invalid = final["invalid_action"] >= 0
        seen["penalised"] += int((n_term & invalid).sum())
        seen["settled"] += int((n_term & ~invalid).sum())
        seen["playing"] += int((~n_term & ~finished).sum())
        seen["autoreset"] += int(finished.sum())
        finished = n_term.copy() if mode == AutoresetMode.NEXT_STEP else finished
    betting = native.unwrapped.n_bet_actions > 0  # only there: steps in play, and wrong-phase actions
    needed = ["settled"] + (["playing", "penalised"] if betting else []) \
        + (["autoreset"] if mode == AutoresetMode.NEXT_STEP else [])
    assert all(seen[k] > 0 for k in needed), seen
    sync.close()
    native.close()


@pytest.mark.parametrize("info_text", [True, False], ids=["text", "numeric"])
def test_partial_reset_masks_the_rows_reset(info_text):
    """``reset(options={"reset_mask": m})`` (autoreset disabled): the rows reset carry the info,
    as Gymnasium's (the others' masks are False)."""
    env_id = "splitpoker/PaiGowPoker-v0"
    sync, native = _pair(env_id, AutoresetMode.DISABLED, **({} if info_text else {"info_text": False}))
    sync.reset(seed=3)
    native.reset(seed=3)
    actions = np.array([0, 30, 0, 30])  # rows 1 and 3: a setting in the bet phase, penalised: done
    sync.step(actions)
    native.step(actions)
    which = np.array([False, True, False, True])
    _, s_info = sync.reset(options={"reset_mask": which})
    _, n_info = native.reset(options={"reset_mask": which})
    _compare(s_info, n_info, info_text, "partial reset")
    assert n_info["_setting"].tolist() == which.tolist()


def test_invalid_action_is_readable_at_every_step():
    """docs/migration.md's test ``info["invalid_action"] >= 0`` on the native env: at reset, at a
    step where one row is penalised, and at the autoreset step after it."""
    env = gym.make_vec("splitpoker/PaiGowPoker-v0", num_envs=2, vectorization_mode="vector_entry_point")
    _, info = env.reset(seed=0)
    assert (info["invalid_action"] >= 0).tolist() == [False, False] and info["reason"].tolist() == ["", ""]
    _, _, term, _, info = env.step(np.array([0, 40]))  # row 1: a setting (40 >= 28 bet actions) in the bet phase
    assert term.tolist() == [False, True]
    assert (info["invalid_action"] >= 0).tolist() == [False, True] and info["invalid_action"][1] == 40
    assert info["reason"][0] == "" and info["reason"][1].startswith("the bet phase takes actions 0..27")
    assert info["setting"].tolist() == [-1, -1] and info["phase"].tolist() == ["set", "done"]
    _, _, _, _, info = env.step(np.array([28, 0]))  # row 0 sets; row 1 starts its next round
    assert info["invalid_action"].tolist() == [-1, -1] and info["setting"][0] == 0 and info["setting"][1] == -1
    assert info["phase"].tolist() == ["done", "bet"] and info["main_wager"][1] == 0.0
    env.close()


def _text_and_numeric(make, steps):
    """The infos of two envs made alike but for ``info_text``, stepped with the same actions."""
    text_env, num_env = make(True), make(False)
    out = []
    for seed, actions in steps:
        pair = [(text_env.reset(seed=seed)[1], num_env.reset(seed=seed)[1])]
        for a in actions:
            pair.append((text_env.step(a)[4], num_env.step(a)[4]))
        out += pair
    return out


def _check_numeric_form(text, num, line_keys, n_bet):
    assert list(num) == list(text)
    for key, value in num.items():
        assert isinstance(value, np.ndarray) and value.dtype.kind in "biuf", (key, value)
    assert Phase(int(num["phase"])).name.lower() == text["phase"]
    for key in CARD_KEYS:
        cards = num[key]
        assert cards.shape == (7,) and cards.dtype == np.int64
        assert (format_cards(cards) if cards[0] >= 0 else "") == text[key], key
        assert cards[0] >= 0 or cards.tolist() == [-1] * 7
    line = int(num["bonus_line"])
    assert (line_keys[line] if line >= 0 else "") == text["bonus_line"]
    reason = Reason(int(num["reason"]))
    words = {Reason.NONE: "", Reason.BET_PHASE: "the bet phase takes actions",
             Reason.SET_PHASE: "bets are over; the set phase takes settings"}[reason]
    assert text["reason"].startswith(words) and (reason == Reason.NONE) == (text["reason"] == "")
    if reason != Reason.NONE:  # the code follows from the action: a bet (< n_bet) was sent in the set phase
        assert (int(num["invalid_action"]) < n_bet) == (reason == Reason.SET_PHASE)
    if "kind" in text:
        kind = int(num["kind"])
        assert (SeatKind(kind).name.lower() if kind >= 0 else "") == text["kind"]
    for key, value in text.items():
        if key not in ("phase", "kind", "reason", "bonus_line", *CARD_KEYS):
            assert np.array_equal(num[key], value), key


def _paying_rounds(n_bet, fortune_bet, n_rounds=80):
    """(seed, actions) rounds of a betting env: the largest bonus bet then a setting (played, a
    foul too), and every fourth round either kind of penalty."""
    rounds = []
    for seed in range(n_rounds):
        if seed % 4 == 3:
            rounds.append((seed, [n_bet + 5]))  # a setting in the bet phase: penalised
        elif seed % 4 == 2:
            rounds.append((seed, [fortune_bet, 0]))  # a bet in the set phase: penalised
        else:
            rounds.append((seed, [fortune_bet, n_bet + seed % 21]))
    return rounds


def test_numeric_info_is_the_text_info_in_numbers_single_env():
    """``info_text=False``: the same keys, numpy values only, each text value's number (cards as
    integers, phase as Phase, the pay line's index, the Reason code); the other values equal. The
    rounds cover settled hands with a paying Fortune line and both kinds of penalty."""
    make = lambda text: gym.make("splitpoker/PaiGowPoker-v0", info_text=text).unwrapped  # noqa: E731
    env = make(True)
    n_bet = env.n_bet_actions
    fortune_bet = n_bet - 1  # the largest wager and Fortune levels
    pairs = _text_and_numeric(make, _paying_rounds(n_bet, fortune_bet))
    line_keys = env.rows.line_keys
    for text, num in pairs:
        _check_numeric_form(text, num, line_keys, n_bet)
    assert {t["bonus_line"] for t, _ in pairs} - {""}, "no Fortune line paid: the bonus_line encoding went unchecked"
    assert {t["reason"][:10] for t, _ in pairs} == {"", "the bet ph", "bets are o"}
    assert set(pairs[0][1]) == set(ROUND_INFO) | {"action_mask", "phase"}


def test_numeric_info_is_the_text_info_in_numbers_table():
    """The Gymnasium table (and so the PettingZoo tables' seats) under ``info_text=False``: the
    table's keys (TABLE_INFO) in numbers, the seat kind as a SeatKind."""
    make = lambda text: gym.make("splitpoker/PaiGowTable-v0", other_seats=2, info_text=text).unwrapped  # noqa: E731
    env = make(True)
    n_bet = env.seats.n_bet
    pairs = _text_and_numeric(make, _paying_rounds(n_bet, n_bet - 1))
    for text, num in pairs:
        assert set(text) == set(TABLE_INFO) | {"action_mask", "phase"}
        _check_numeric_form(text, num, env.seats.table.rows.line_keys, n_bet)
    assert {t["bonus_line"] for t, _ in pairs} - {""} and {t["kind"] for t, _ in pairs} == {"", "player"}


def test_pettingzoo_table_numeric_info_leaves_the_mask_to_the_observation():
    from splitpoker.envs.table import paigow_table_v0

    env = paigow_table_v0.parallel_env(num_seats=2, info_text=False)
    obs, infos = env.reset(seed=0)
    assert all("action_mask" not in i and "action_mask" in obs[a] for a, i in infos.items())
    _, _, _, _, infos = env.step({a: 0 for a in env.agents})
    assert all(i["phase"] == Phase.SET and "action_mask" not in i for i in infos.values())
    text_env = paigow_table_v0.parallel_env(num_seats=2)
    _, infos = text_env.reset(seed=0)
    assert all(i["phase"] == "bet" and "action_mask" in i for i in infos.values())  # the default is unchanged


def test_info_text_must_be_a_bool():
    from splitpoker.envs.table import asia_table_v0

    for make in (lambda v: gym.make("splitpoker/AsiaPoker-v0", info_text=v),
                 lambda v: gym.make_vec("splitpoker/AsiaPoker-v0", num_envs=2, vectorization_mode="vector_entry_point",
                                        info_text=v),
                 lambda v: gym.make("splitpoker/AsiaTable-v0", info_text=v),
                 lambda v: asia_table_v0.parallel_env(info_text=v)):
        with pytest.raises(ValueError, match=r"info_text='no': expected True .* or False \(numbers only"):
            make("no")
    with pytest.raises(ValueError, match=r"info\['note'\] = 'x' has no numeric form"):
        numeric({"phase": "bet", "note": "x"}, {"phase": 0})
