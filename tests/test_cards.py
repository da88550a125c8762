"""Cards: integer layout, parsing, formatting, and every bad-input error."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from splitpoker.envs.rules.cards import (
    JOKER,
    card_rank,
    card_suit,
    format_card,
    format_cards,
    full_deck,
    hand_array,
    make_card,
    parse_card,
    parse_cards,
)


def test_layout_matches_docstring():
    assert parse_card("2s") == 0
    assert parse_card("2h") == 1
    assert parse_card("2c") == 3
    assert parse_card("Kd") == 46
    assert parse_card("As") == 48
    assert parse_card("Ac") == 51
    assert parse_card("JK") == JOKER == 52
    assert make_card(12, 1) == parse_card("Ah")
    assert card_rank(parse_card("Td")) == 8 and card_suit(parse_card("Td")) == 2
    assert full_deck().tolist() == list(range(53))


@pytest.mark.parametrize("token,expected", [
    ("10h", "Th"), ("th", "Th"), ("TH", "Th"), ("aS", "As"), ("Joker", "JK"), ("jk", "JK"),
    ("JKR", "JK"), (" 9c ", "9c"),
])
def test_aliases_format_canonically(token, expected):
    assert format_card(parse_card(token)) == expected


def test_parse_string_and_sequences():
    assert parse_cards("As Kd Th 9c 2h") == [48, 46, 33, 31, 1]
    assert parse_cards("As,Kd, JK") == [48, 46, 52]
    assert parse_cards(["As", 46, "JK"]) == [48, 46, 52]
    assert format_cards([48, 52], symbols=True) == "A♠ JK"


@given(st.lists(st.integers(0, 52), unique=True, max_size=53))
def test_round_trip(cards):
    assert parse_cards(format_cards(cards)) == cards


@pytest.mark.parametrize("bad,fragment", [
    ("Xs", "unknown rank 'X'"),
    ("Ax", "unknown suit 'x'"),
    ("A", "bad card 'A'"),
    ("11h", "bad card '11h'"),
    ("", "bad card ''"),
])
def test_bad_tokens_are_named(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_card(bad)


def test_duplicate_card_is_named():
    with pytest.raises(ValueError, match=r"duplicate card 'ah' \(Ah\)"):
        parse_cards("Ah Kd ah")
    with pytest.raises(ValueError, match="duplicate card 'Joker'"):
        parse_cards("JK Joker")


def test_wrong_count_is_named():
    with pytest.raises(ValueError, match="expected 7 cards, got 6"):
        hand_array("As Kd Qh Jc Ts 9d", n=7)


@pytest.mark.parametrize("bad,exc", [(53, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_bad_integers(bad, exc):
    with pytest.raises(exc, match=repr(bad)):
        parse_cards([bad])


def test_joker_has_no_rank_or_suit():
    with pytest.raises(ValueError, match="joker"):
        card_rank(JOKER)
    with pytest.raises(ValueError, match="joker"):
        card_suit(JOKER)


def test_hand_array_sorted_int64():
    h = hand_array("JK As 2c")
    assert h.dtype == np.int64 and h.tolist() == [3, 48, 52]


def test_make_card_range():
    with pytest.raises(ValueError, match="rank 13"):
        make_card(13, 0)
    with pytest.raises(ValueError, match="suit 4"):
        make_card(0, 4)


# ---- suit symbols, as format_cards(..., symbols=True) and the env renderings print them ----------

@pytest.mark.parametrize("token,expected", [
    ("A♠", 48), ("K♥", 45), ("T♦", 34), ("9♣", 31), ("10♠", 32), ("10♥", 33), ("2♣", 3),
    ("q♦", 42), ("A♤", 48), ("K♡", 45), ("T♢", 34), ("9♧", 31), ("A♥\ufe0f", 49),
])
def test_suit_symbols_parse(token, expected):
    assert parse_card(token) == expected


def test_seed_style_symbol_hand():
    from splitpoker.envs.rules.game import Game

    for game in ("asia", "paigow"):
        g = Game(game)
        assert g.hand("A♠ K♥ T♦ 9♣ 10♠ 2♦ JK").tolist() == g.hand("As Kh Td 9c Ts 2d JK").tolist()


@given(st.lists(st.integers(0, 52), unique=True, min_size=7, max_size=7))
def test_game_hand_round_trips_symbol_text(cards):
    from splitpoker.envs.rules.game import Game

    g = Game("asia")
    assert g.hand(format_cards(cards, symbols=True)).tolist() == g.hand(format_cards(cards)).tolist() == sorted(cards)
    ten_text = format_cards(cards, symbols=True).replace("T", "10")  # "10♠" as people write it
    assert g.hand(ten_text).tolist() == sorted(cards)


@given(st.lists(st.integers(0, 52), unique=True, max_size=53))
def test_symbol_round_trip(cards):
    assert parse_cards(format_cards(cards, symbols=True)) == cards


@pytest.mark.parametrize("bad,fragment", [
    ("A♤♤", "bad card 'A♤♤'"),
    ("A☆", "unknown suit '☆'"),
    ("★♠", "unknown rank '★'"),
    ("1♠", "bad card '1♠'"),
    ("11♥", "bad card '11♥'"),
])
def test_bad_symbol_tokens_are_named(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_card(bad)
