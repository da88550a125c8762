"""The table's two settlements agree: :meth:`Table.settle` (the seats as rows of the round kernel)
and :func:`settle_table` (the bulk path of ``batch.py``), on random deals, seat kinds, settings,
wagers, Envy wagers and seats that leave, for both games."""

import numpy as np
import pytest

from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.rounds import new_scratch
from splitpoker.envs.rules.table.table import N_SPOTS, SeatKind, Table, TableRules, settle_table

N_DEALS = 300


def _wager(rng, lo, hi, chip, zero_ok):
    levels = np.arange(lo, hi + chip / 2, chip)
    return 0.0 if zero_ok and rng.random() < 0.3 else float(rng.choice(levels))


def _bulk(rules: TableRules, hands, settings, active, main, bonus, envy):
    a = rules.arrays()
    out = {k: np.zeros(N_SPOTS, dtype=t) for k, t in (("setting", np.int64), ("fouled", np.bool_), ("won", np.int64),
           ("main", np.float64), ("bonus", np.float64), ("code", np.int64), ("envy", np.float64), ("hits", np.int64))}
    ds = settle_table(rules.spec.game_id, a["style_id"], a["rank"], a["to_two"], a["cat5"], a["commission"], hands,
                      settings, active, main, bonus, envy, a["line_of_code"], a["line_odds"], a["bonus_cap"],
                      a["envy_amount"], out["setting"], out["fouled"], out["won"], out["main"], out["bonus"],
                      out["code"], out["envy"], out["hits"], new_scratch(1)[0])
    return int(ds), out


@pytest.mark.parametrize("game", ["paigow", "asia"])
def test_rows_settlement_equals_the_bulk_kernel(game):
    rng = np.random.default_rng(2024 if game == "paigow" else 2025)
    rules = TableRules(game, envy_unit=2.0) if game == "paigow" else TableRules(game)
    fouls = seats_left = envy_paid = house_way_seats = 0
    for i in range(N_DEALS):
        kinds = list(rng.choice(["player", "house_way", "empty"], size=6, p=[0.5, 0.3, 0.2]))
        if all(k == "empty" for k in kinds):
            kinds[0] = "player"
        t = Table(rules, kinds, mask_fouls=bool(rng.random() < 0.5))
        taken = t.taken
        leaving = {s for s in taken if rng.random() < 0.1}
        if leaving == set(taken):
            leaving.discard(taken[0])
        for s in taken:
            if s in leaving and rng.random() < 0.5:  # leaves before the deal
                t.leave(s)
                continue
            bonus = _wager(rng, rules.chip, rules.bonus_max, rules.chip, True)
            t.place_bet(s, _wager(rng, rules.main_min, rules.main_max, rules.chip, False), bonus,
                        rules.has_envy and bonus >= rules.envy_min_fortune and rng.random() < 0.7)
        t.deal(seed=int(rng.integers(0, 2**62)))
        for s in t.to_act():
            t.set_hand(s, int(rng.integers(rules.n_settings)))
        for s in leaving - t.left:  # leaves after the deal
            t.leave(s)
        bets, chosen = dict(t.bets), dict(t.settings)
        result = t.settle()
        assert t.phase == Phase.DONE

        active = np.zeros(N_SPOTS, dtype=np.bool_)
        settings = np.full(N_SPOTS, -1, dtype=np.int64)
        main, bonus, envy = np.zeros(N_SPOTS), np.zeros(N_SPOTS), np.zeros(N_SPOTS, dtype=np.bool_)
        for s, (m, b, e) in bets.items():
            active[s], main[s], bonus[s], envy[s] = True, m, b, e
        for s, x in chosen.items():
            settings[s] = x
        ds, out = _bulk(rules, t.hands.copy(), settings, active, main, bonus, envy)
        assert result.dealer_setting == ds, i
        assert sorted(result.seats) == [s for s in range(1, N_SPOTS) if active[s]], i
        for s, r in result.seats.items():
            got = (r.setting, r.fouled, r.hands_won, r.main, r.bonus, r.envy_chips, r.envy_hands)
            want = (int(out["setting"][s]), bool(out["fouled"][s]), int(out["won"][s]), float(out["main"][s]),
                    float(out["bonus"][s]), float(out["envy"][s]), int(out["hits"][s]))
            assert got == want, (i, s, got, want)
            assert r.net == out["main"][s] + out["bonus"][s] + out["envy"][s]
            line = rules.bonus_paytable.line_for(int(out["code"][s])) if r.bonus_wager > 0 else None
            assert r.bonus_line == (None if line is None else line.key), (i, s)
            fouls += r.fouled
            envy_paid += r.envy_chips > 0
            house_way_seats += t.kinds[s - 1] == SeatKind.HOUSE_WAY
        seats_left += len(t.left)
    # the random tables reached every path: fouls, seats that left, house-way seats, Envy paid
    assert fouls > 0 and seats_left > 0 and house_way_seats > 0
    assert envy_paid > 0 if game == "paigow" else envy_paid == 0
