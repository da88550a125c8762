"""Multi-seat table core (envs/rules/table/table.py): seed 004's deal order, settlement of every seat,
every Envy line with fixed decks, and bad input leaving the table unchanged."""

import copy

import numpy as np
import pytest

from splitpoker.envs.rules.bonus.features import bonus_features
from splitpoker.envs.rules.bonus.paytables import FORTUNE, SEED_000
from splitpoker.envs.rules.cards import parse_cards
from splitpoker.envs.rules.games.asia import AsiaPoker
from splitpoker.envs.rules.games.paigow import PaiGowPoker
from splitpoker.envs.rules.table.table import (
    Phase,
    Table,
    TableRules,
    deal_table,
    envy_line_of_hand,
)

# Seed 004's Envy column, read off the seed text (independent of paytables.py)
ENVY_COLUMN = {
    "seven_card_straight_flush_no_joker": ("2s 3s 4s 5s 6s 7s 8s", 1000),
    "royal_flush_no_joker_plus_royal_match": ("Ts Js Qs Ks As Kh Qh", 750),
    "seven_card_straight_flush_with_joker": ("2h 3h 4h 5h 6h 7h JK", 250),
    "five_aces": ("As Ah Ad Ac JK 3d 7c", 100),
    "royal_flush": ("Tc Jc Qc Kc Ac 2d 5h", 50),
    "straight_flush": ("5c 6c 7c 8c 9c 2d Kh", 20),
    "four_of_a_kind": ("9s 9h 9d 9c 2d 5h Kc", 5),
}
NOT_QUALIFYING = "Kd Qd 4d 8h 8d 3c Jh"  # the dealer in the line tests: a pair
PLAIN = "2c 4c 5d 6d Td Th Jd"  # seat 1 in the line tests: a pair, no Envy line


def build_deck(piles):
    """Deck in deal order: the given hands (text) as the first piles, the rest of the 53 cards after."""
    cards = [c for p in piles for c in parse_cards(p, n=7)]
    assert len(set(cards)) == len(cards), "test hands overlap"
    rest = [c for c in range(53) if c not in set(cards)]
    return np.array(cards + rest, dtype=np.int64)


def fill_piles(*hands):
    """Seven piles: the given hands first, then hands made of the unused cards."""
    used = {c for h in hands for c in parse_cards(h, n=7)}
    rest = [c for c in range(53) if c not in used]
    piles = list(hands)
    while len(piles) < 7:
        piles.append(rest[:7])
        rest = rest[7:]
    return [p if isinstance(p, str) else " ".join(f"{'23456789TJQKA'[c >> 2]}{'shdc'[c & 3]}" if c != 52 else "JK" for c in p)
            for p in piles]


def paigow_table(kinds=("player", "player"), **kw):
    return Table(TableRules("paigow", **kw), list(kinds))


def test_deal_order_follows_seed_004():
    # "The Dealer is always hand #1, with hand #2 being the first spot to the Dealer's left":
    # pile j goes to spot (first_spot - 1 + j) % 7 + 1
    deck = np.arange(53, dtype=np.int64)[::-1].copy()
    for first in range(1, 8):
        t = paigow_table(["player"] * 6)
        for s in range(1, 7):
            t.place_bet(s, 5)
        t.deal(deck=deck, first_spot=first)
        assert t.first_spot == first
        for j in range(7):
            spot = (first - 1 + j) % 7 + 1
            want = np.sort(deck[7 * j: 7 * j + 7])
            got = t.dealer_hand if spot == 1 else t.hand(spot - 1)
            assert got.tolist() == want.tolist(), (first, j)


def test_random_deal_uses_49_distinct_cards_and_every_first_spot():
    hands = np.empty((7, 7), dtype=np.int64)
    firsts = np.zeros(8, dtype=np.int64)
    for i in range(2800):
        f = deal_table(12345, i, hands)
        firsts[f] += 1
        assert np.unique(hands).size == 49 and hands.min() >= 0 and hands.max() <= 52
        assert (np.diff(hands, axis=1) > 0).all()
    assert firsts[0] == 0
    # 400 expected per spot; 5 sigma ~ 93
    assert np.all(np.abs(firsts[1:] - 400) < 100), firsts


@pytest.mark.parametrize("line", list(ENVY_COLUMN))
def test_every_envy_line_pays_other_seats_with_fixed_decks(line):
    text, amount = ENVY_COLUMN[line]
    rules = TableRules("paigow", envy_unit=2.0)
    assert envy_line_of_hand(rules, parse_cards(text)) == line
    # first_spot=1: pile 0 -> dealer, pile 1 -> seat 1, pile 2 -> seat 2, ...
    piles = fill_piles(NOT_QUALIFYING, PLAIN, text)
    t = Table(rules, ["player", "house_way", "house_way"])
    t.place_bet(1, 5, 5, envy=True)
    t.place_bet(2, 5, 0)
    t.place_bet(3, 10, 25, envy=True)
    t.deal(deck=build_deck(piles), first_spot=1)
    assert t.hand(2).tolist() == sorted(parse_cards(text))
    t.set_hand(1, 0)
    r = t.settle()
    assert r.seats[1].envy_chips == 2.0 * amount and r.seats[1].envy_hands == 1
    assert r.seats[2].envy_chips == 0.0 and not r.seats[2].envy  # no Envy wager, nothing paid
    # seat 3 (the next pile of unused cards) holds Envy too: seat 2's hand pays it, seat 1's does not qualify
    assert r.seats[3].envy_chips == 2.0 * amount


def test_envy_counts_every_other_seat_never_the_dealer_own_or_empty_seats():
    quads = "9s 9h 9d 9c 2d 5h Kc"
    sf = "5c 6c 7c 8c Tc 2h Kh"  # no straight flush (9c missing): a flush, Envy does not pay
    piles = fill_piles("Qs Qh Qd Qc 3h 4s 6s",   # dealer: four queens, never counts
                       "As Ah Ad Ac 7d 8d 5d",   # seat 1: four aces, its own hand never pays itself
                       quads,                    # seat 2: four nines
                       sf,                       # seat 3: nothing for Envy
                       "Ks Kd 3d 3c 4d 8h JK",   # seat 4
                       "Js Jh Jc Jd 2s 2c 4c",   # seat 5 is empty: dead hand
                       "Ts Th Td 3s 5s 6h 7h")   # seat 6
    t = paigow_table(["player", "house_way", "player", "house_way", "empty", "house_way"])
    for s in (1, 2, 3, 4, 6):
        t.place_bet(s, 5, 5, envy=True)
    t.deal(deck=build_deck(piles), first_spot=1)
    t.set_hand(1, 0)
    t.set_hand(3, 0)
    r = t.settle()
    assert 5 not in r.seats
    assert r.seats[1].envy_chips == 5 and r.seats[1].envy_hands == 1   # seat 2's nines
    assert r.seats[2].envy_chips == 5 and r.seats[2].envy_hands == 1   # seat 1's aces
    for s in (3, 4, 6):
        assert r.seats[s].envy_chips == 10 and r.seats[s].envy_hands == 2
    assert r.seats[1].bonus == 5 * 25 and r.seats[1].bonus_line == "four_of_a_kind"


def test_envy_amount_does_not_depend_on_the_fortune_wager():
    piles = fill_piles(NOT_QUALIFYING, PLAIN, ENVY_COLUMN["straight_flush"][0])
    t = paigow_table(["player", "house_way", "player"])
    t.place_bet(1, 5, 5, envy=True)
    t.place_bet(2, 5)
    t.place_bet(3, 5, 100, envy=True)
    t.deal(deck=build_deck(piles), first_spot=1)
    t.set_hand(1, 0)
    t.set_hand(3, 0)
    r = t.settle()
    assert r.seats[1].envy_chips == r.seats[3].envy_chips == 20


def test_settlement_matches_the_one_seat_engines():
    rng = np.random.default_rng(7)
    for game, engine in (("paigow", PaiGowPoker()), ("asia", AsiaPoker())):
        rules = TableRules(game)
        paytable = FORTUNE if game == "paigow" else SEED_000
        for _ in range(40):
            t = Table(rules, ["player", "house_way", "player"])
            t.place_bet(1, 10, 5)
            t.place_bet(2, 5, 0)
            t.place_bet(3, 5, 10)
            t.deal(rng)
            s1, s3 = int(rng.integers(rules.n_settings)), int(rng.integers(rules.n_settings))
            t.set_hand(1, s1)
            t.set_hand(3, s3)
            dealer = t.dealer_hand
            r = t.settle()
            for seat, setting in ((1, s1), (2, r.seats[2].setting), (3, s3)):
                res = r.seats[seat]
                unit, won, fouled = engine.settle(t.hand(seat), setting, dealer, r.dealer_setting)
                assert res.main == pytest.approx(res.main_wager * unit) and res.hands_won == won and res.fouled == fouled
                want_bonus = paytable.settle(bonus_features(t.hand(seat)), res.bonus_wager)[0] if res.bonus_wager else 0.0
                assert res.bonus == pytest.approx(want_bonus)
                assert res.net == pytest.approx(res.main + res.bonus + res.envy_chips)


def _state(t):
    return (t.phase, copy.deepcopy(t.bets), dict(t.settings), set(t.left), t.hands.copy(), t.first_spot)


def _unchanged(t, call, match):
    before = _state(t)
    with pytest.raises(ValueError, match=match):
        call()
    after = _state(t)
    assert before[:4] == after[:4] and np.array_equal(before[4], after[4]) and before[5] == after[5]


def test_bad_input_names_it_and_leaves_the_table_unchanged():
    with pytest.raises(ValueError, match="7 seats.*at most 7 hands"):
        paigow_table(["player"] * 7)
    with pytest.raises(ValueError, match="Asia Poker has no Envy"):
        TableRules("asia", envy_paytable="envy")
    t = paigow_table(["player", "house_way", "empty"])
    _unchanged(t, lambda: t.place_bet(1, 5, 4, envy=True), r"Envy wager needs a Fortune wager of \$5 or more, got \$4")
    _unchanged(t, lambda: t.place_bet(1, 5, 0, envy=True), r"got \$0")
    _unchanged(t, lambda: t.place_bet(1, 1000), r"wager \$1000 is off the table limits: expected \$5..\$500")
    _unchanged(t, lambda: t.place_bet(1, 5, 150), r"Fortune wager \$150 is off the table limits")
    _unchanged(t, lambda: t.place_bet(3, 5), "seat 3 is empty")
    _unchanged(t, lambda: t.place_bet(7, 5), "seat 7: expected an integer 1..6")
    _unchanged(t, lambda: t.set_hand(1, 0), "seat 1 cannot set a hand in the bet phase")
    _unchanged(t, lambda: t.deal(seed=1), r"seat\(s\) \[1, 2\] have not bet")
    t.place_bet(1, 5, 5, envy=True)
    _unchanged(t, lambda: t.place_bet(1, 10), "seat 1 is not to bet: it has already bet")
    t.place_bet(2, 5)
    t.deal(seed=3)
    _unchanged(t, lambda: t.place_bet(2, 5), "seat 2 cannot bet in the set phase")
    _unchanged(t, lambda: t.set_hand(2, 0), "seat 2 is not to set a hand: its hand is set the house way")
    _unchanged(t, lambda: t.set_hand(1, 21), "setting 21 for seat 1: expected an integer 0..20")
    _unchanged(t, lambda: t.settle(), r"seat\(s\) \[1\] have not set")
    t.set_hand(1, 3)
    _unchanged(t, lambda: t.set_hand(1, 4), "seat 1 is not to set a hand: it has already set its hand")
    asia = Table(TableRules("asia"), ["player"])
    _unchanged(asia, lambda: asia.place_bet(1, 5, 5, envy=True), "Asia Poker has no Envy bonus")
    _unchanged(asia, lambda: asia.place_bet(1, 12), r"ante \$12 is not a multiple of the \$5 chip")
    _unchanged(asia, lambda: asia.place_bet(1, 5, 105), r"bonus wager \$105 is off the table limits")


def test_a_seat_that_leaves_is_not_settled_and_its_hand_is_dead():
    piles = fill_piles(NOT_QUALIFYING, PLAIN, ENVY_COLUMN["four_of_a_kind"][0])
    t = paigow_table(["player", "player"])
    t.place_bet(1, 5, 5, envy=True)
    t.place_bet(2, 5, 5, envy=True)
    t.deal(deck=build_deck(piles), first_spot=1)
    t.set_hand(1, 0)
    t.leave(2)
    assert t.phase == Phase.SET
    r = t.settle()
    assert list(r.seats) == [1] and r.seats[1].envy_chips == 0


def _script(*args):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, str(root / "scripts" / "simulate_table.py"), *args], capture_output=True,
                          text=True, timeout=900, cwd=root)


def test_simulate_table_script_help_and_bad_input():
    out = _script("--help")
    assert out.returncode == 0 and "usage" in out.stdout.lower()
    for args, fragment in ((["--seats", "7"], "--seats 7: expected 1..6"), (["--rounds", "0"], "--rounds 0"),
                           (["--fortune-wager", "4"], r"Envy needs $5"), (["--style", "asia-000"], "is for asia")):
        out = _script(*args)
        assert out.returncode == 2 and fragment in out.stderr, out.stderr


@pytest.mark.slow
def test_envy_exact_figures_and_the_published_column():
    import yaml

    from splitpoker.envs.rules.bonus.features import cached_feature_histogram, paytable_report
    from splitpoker.envs.rules.bonus.paytables import ENVY, PayTable

    hist = cached_feature_histogram()
    assert paytable_report(ENVY, hist)["expected_envy_units_per_other_seat"] == pytest.approx(0.043706, abs=5e-7)
    from pathlib import Path

    with open(Path(__file__).resolve().parent.parent / "configs" / "paytables" / "envy_5000.yaml") as f:
        published = PayTable.from_dict(yaml.safe_load(f))
    per_seat = paytable_report(published, hist)["expected_envy_units_per_other_seat"]
    # Wizard of Odds (quoted by Casino City Times, 2015): each other player is worth 0.92% of a $5 Fortune wager
    assert round(100 * per_seat / 5, 2) == 0.92


@pytest.mark.slow
def test_simulate_table_script_small_run_is_within_ci():
    import json

    out = _script("--game", "paigow", "--seats", "4", "--rounds", "20000", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["simulation"]["rounds"] == 20000 and not rep["simulation"]["interrupted"]
    assert rep["exact"]["fortune_with_envy_chips_by_other_seats"]["3"] == pytest.approx(5 * -0.085241 + 3 * 0.043706, abs=1e-5)
    assert rep["checks"]["envy_within_ci"] and rep["checks"]["bonus_within_ci"]
