"""The round kernels (splitpoker.envs.rules.play.rounds) compute exactly what the rules' pieces written out
compute (the dealer, every setting's values, the house way, hands won, main results), for both games
behind one game id, with scratch blocks reused dirty from round to round."""

import numpy as np
import pytest

from splitpoker.envs.rules.dealing import (
    deal_from,
    deal_player_and_dealers,
    deal_player_and_dealers_into,
    deal_round,
    remaining_cards,
    sort7,
    stream_state,
)
from splitpoker.envs.rules.games.asia import (
    HIGH_POS,
    LOW_POS,
    MEDIUM_POS,
    asia_all_setting_ranks,
    asia_hands_won,
    asia_main_result,
    asia_setting_ranks,
)
from splitpoker.envs.rules.games.paigow import (
    paigow_all_setting_ranks,
    paigow_hands_won,
    paigow_main_result,
    paigow_setting_ranks,
)
from splitpoker.envs.rules.games.spec import ASIA_ID, PAIGOW_ID
from splitpoker.envs.rules.house_ways.registry import (
    ASIA_000_ID,
    ASIA_BORGATA_ID,
    PAIGOW_IGW_ID,
    house_way,
    house_way_into,
)
from splitpoker.envs.rules.options import AsiaRules, PaiGowRules
from splitpoker.envs.rules.play.rounds import (
    FOUR_SUBSETS,
    HIGH_OF_SETTING,
    MEDIUM_OF_SETTING,
    PAIRS,
    asia_setting_values,
    new_scratch,
    round_start,
    round_start_into,
    settle,
    settle_into,
)
from splitpoker.envs.rules.ranking.rank_tables import asia_high_table, paigow_back_table

N_ROUNDS = 400


def _settle_reference(game, values, fouled, dealers, style_id, rank, to_two, commission=0.0):
    """Settlement written out from the rules' pieces (house way, setting values, hands won,
    main result), independent of the settle kernels: (mean result, dealer settings, hands won)."""
    settings, won, total = [], [], 0.0
    for hand in dealers:
        ds = house_way(style_id, hand, rank, to_two)
        if game == "asia":
            w = asia_hands_won(*values, *asia_setting_ranks(hand, ds, rank))
            total += -1.0 if fouled else asia_main_result(w)
        else:
            w = paigow_hands_won(*values, *paigow_setting_ranks(hand, ds, rank))
            total += -1.0 if fouled else paigow_main_result(w, commission)
        settings.append(ds)
        won.append(w)
    return total / len(dealers), np.array(settings), np.array(won)
SEEDS = np.random.default_rng(2026).integers(0, 2**63 - 1, N_ROUNDS)


def _tables(game, rules=None):
    table = asia_high_table(rules) if game == "asia" else paigow_back_table(rules)
    return table.rank, table.class_to_two.astype(np.int64)


def test_setting_decomposition_tables():
    # every setting's high hand is its 4-subset, its medium hand its pair; each 4-subset is the
    # high hand of exactly 3 settings (the other three cards: 3 choices of the low card)
    for s in range(105):
        assert FOUR_SUBSETS[HIGH_OF_SETTING[s]].tolist() == HIGH_POS[s].tolist()
        assert PAIRS[MEDIUM_OF_SETTING[s]].tolist() == MEDIUM_POS[s].tolist()
        assert sorted(HIGH_POS[s].tolist() + MEDIUM_POS[s].tolist() + [int(LOW_POS[s])]) == list(range(7))
    assert np.bincount(HIGH_OF_SETTING, minlength=35).tolist() == [3] * 35
    assert np.bincount(MEDIUM_OF_SETTING, minlength=21).tolist() == [5] * 21


def test_deal_into_matches_the_allocating_dealer():
    # the dealer as written before scratch buffers existed: deal_round, remaining_cards, deal_from
    work = np.zeros((2, 53), dtype=np.int64)
    for seed in SEEDS[:200]:
        player = np.empty(7, np.int64)
        deal_round(seed, 0, 7, player)
        sort7(player, 0)
        rest = remaining_cards(player)
        ref = [player]
        for d in range(3):
            row = np.empty(7, np.int64)
            deal_from(np.uint64(stream_state(seed, d + 1)), rest, 46, 7, row)
            sort7(row, 0)
            ref.append(row)
        p = np.empty(7, np.int64)
        dealers = np.empty((3, 7), np.int64)
        deal_player_and_dealers_into(seed, 3, p, dealers, work)
        assert np.array_equal(p, ref[0]) and np.array_equal(dealers, np.stack(ref[1:]))
        p2 = np.empty(7, np.int64)
        dealers2 = np.empty((3, 7), np.int64)
        deal_player_and_dealers(seed, 3, p2, dealers2)
        assert np.array_equal(p2, p) and np.array_equal(dealers2, dealers)
        assert len(set(p.tolist()) | set(dealers[0].tolist())) == 14


@pytest.mark.parametrize("rules", [None, AsiaRules(flush_beats_straight=False, ace_low_straight="second_highest")])
def test_asia_setting_values_match_all_setting_ranks(rules):
    rank, to_two = _tables("asia", rules)
    scratch = new_scratch(1)[0]
    player = np.empty(7, np.int64)
    dealers = np.empty((1, 7), np.int64)
    n_fouled = 0
    for seed in SEEDS:
        deal_player_and_dealers(seed, 1, player, dealers)
        ref_r = np.empty((105, 3), np.int64)
        ref_f = np.empty(105, np.bool_)
        asia_all_setting_ranks(player, rank, to_two, ref_r, ref_f)
        r = np.full((105, 3), -7, np.int64)
        f = np.empty(105, np.bool_)
        asia_setting_values(player, rank, to_two, scratch, True, r, f)
        assert np.array_equal(r, ref_r) and np.array_equal(f, ref_f)
        r2 = np.full((105, 3), -7, np.int64)
        f2 = np.empty(105, np.bool_)
        asia_setting_values(player, rank, to_two, scratch, False, r2, f2)
        assert np.array_equal(f2, ref_f) and (r2 == -7).all()  # fouls only: ranks untouched
        n_fouled += int(ref_f.sum())
    assert n_fouled > 0  # the comparison saw fouled settings


@pytest.mark.parametrize("style_id", [ASIA_000_ID, ASIA_BORGATA_ID, PAIGOW_IGW_ID])
def test_house_way_into_matches_house_way(style_id):
    rank, to_two = _tables("paigow" if style_id == PAIGOW_IGW_ID else "asia")
    scratch = new_scratch(1)[0]
    hand = np.empty(7, np.int64)
    dealers = np.empty((1, 7), np.int64)
    seen = set()
    for seed in SEEDS:
        deal_player_and_dealers(seed, 1, hand, dealers)
        for h in (hand, dealers[0]):
            s = house_way_into(style_id, h, rank, to_two, scratch)
            assert s == house_way(style_id, h, rank, to_two)
            seen.add(int(s))
    assert len(seen) > 10  # many different settings compared, not one


@pytest.mark.parametrize("game,style_id,n_dealers", [("asia", ASIA_000_ID, 1), ("asia", ASIA_BORGATA_ID, 3),
                                                     ("paigow", PAIGOW_IGW_ID, 1), ("paigow", PAIGOW_IGW_ID, 4)])
def test_round_start_and_settle_match_the_rules_written_out(game, style_id, n_dealers):
    rank, to_two = _tables(game)
    game_id, width, n_set = (ASIA_ID, 3, 105) if game == "asia" else (PAIGOW_ID, 2, 21)
    all_values = asia_all_setting_ranks if game == "asia" else paigow_all_setting_ranks
    scratch = new_scratch(1)[0]  # reused, dirty, from round to round
    c = PaiGowRules().commission if game == "paigow" else 0.0
    results = set()
    for k, seed in enumerate(SEEDS[:150]):
        ref = [np.empty(7, np.int64), np.empty((n_dealers, 7), np.int64), np.empty((n_set, width), np.int64),
               np.empty(n_set, np.bool_)]
        deal_player_and_dealers(seed, n_dealers, ref[0], ref[1])
        all_values(ref[0], rank, to_two, ref[2], ref[3])
        hw_ref = house_way(style_id, ref[0], rank, to_two)
        for fresh in (False, True):
            new = [np.empty(7, np.int64), np.empty((n_dealers, 7), np.int64), np.zeros((n_set, width), np.int64),
                   np.empty(n_set, np.bool_)]
            hw_new = (round_start(game_id, seed, style_id, rank, to_two, *new) if fresh else
                      round_start_into(game_id, seed, style_id, rank, to_two, *new, scratch, True))
            assert hw_new == hw_ref
            for a, b in zip(ref, new, strict=True):
                assert np.array_equal(a, b)
        s = (k * 7) % n_set  # a spread of settings, fouled ones included
        v = tuple(ref[2][s]) + ((0,) if width == 2 else ())
        m_ref, ds_ref, dw_ref = _settle_reference(game, tuple(ref[2][s]), ref[3][s], ref[1], style_id, rank, to_two, c)
        ds_one, dw_one = np.empty(n_dealers, np.int64), np.empty(n_dealers, np.int64)
        ds_new, dw_new = np.empty(n_dealers, np.int64), np.empty(n_dealers, np.int64)
        m_one = settle(game_id, *v, ref[3][s], ref[1], style_id, rank, to_two, c, ds_one, dw_one)
        m_new = settle_into(game_id, *v, ref[3][s], ref[1], style_id, rank, to_two, c, ds_new, dw_new, scratch)
        for m, ds, dw in ((m_new, ds_new, dw_new), (m_one, ds_one, dw_one)):
            assert m == m_ref and np.array_equal(ds, ds_ref) and np.array_equal(dw, dw_ref)
        results.add(float(m_ref))
    assert len(results) >= 2  # wins and losses both compared
