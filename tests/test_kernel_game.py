"""The round kernel's ``game`` argument is one named, checked structure built from a ``Game``
(issue 47): its fields by name, each of the type the kernel was compiled for; the table's bulk
settlement reads the same tables, not a second build; an unregistered or other game's house-way
id is refused before any kernel runs."""

import itertools

import numpy as np
import pytest

from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.round_rows import RoundOptions, RoundRows
from splitpoker.envs.rules.ranking.hand_eval import one_card_value, two_card_value
from splitpoker.envs.rules.table.rules import TableRules


def _fields(game: str) -> dict:
    return RoundRows(Game(game), 1, RoundOptions()).kernel_game._asdict()


def test_the_kernel_unpacks_its_game_in_the_order_of_the_fields():
    """The kernel is called with ``tuple(KernelGame)`` and unpacks it by position: its names, in
    order, must be GAME_FIELDS (a reordered field would silently read another's value)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(K.advance_range.py_func).strip())
    unpack = next(node for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and isinstance(node.value, ast.Name) and node.value.id == "game")
    assert [elt.id for elt in unpack.targets[0].elts] == list(K.GAME_FIELDS)


@pytest.mark.parametrize("game", ["asia", "paigow"])
def test_the_kernel_game_is_named_and_every_field_checked(game):
    fields = _fields(game)
    assert list(fields) == list(K.GAME_FIELDS)
    assert K.kernel_game(**fields) == K.KernelGame(**fields)
    with pytest.raises(TypeError, match=r"missing \['penalty'\]"):
        K.kernel_game(**{k: v for k, v in fields.items() if k != "penalty"})
    with pytest.raises(TypeError, match=r"unknown \['penalt'\]"):
        K.kernel_game(**fields, penalt=1.0)
    with pytest.raises(TypeError, match="'rank': expected a 1-d uint16 array, got ndarray int64"):
        K.kernel_game(**{**fields, "rank": fields["rank"].astype(np.int64)})
    with pytest.raises(TypeError, match="'n_bet': expected int64, got int 3"):
        K.kernel_game(**{**fields, "n_bet": 3})
    with pytest.raises(TypeError, match="'mask_fouls': expected bool"):
        K.kernel_game(**{**fields, "mask_fouls": np.bool_(True)})


@pytest.mark.parametrize("game", ["asia", "paigow"])
def test_a_house_way_the_registry_does_not_hold_for_the_game_is_refused(game):
    fields = _fields(game)
    other = next(s for s in HouseWayStyle if s.game != game)
    for bad in (np.int64(other.style_id), np.int64(len(HouseWayStyle)), np.int64(-1)):
        with pytest.raises(ValueError, match=f"style_id={int(bad)}: expected a registered house way"):
            K.kernel_game(**{**fields, "style_id": bad})


@pytest.mark.parametrize("game", ["asia", "paigow"])
def test_the_table_reads_the_games_tables_not_a_second_build(game):
    rules = TableRules(game)
    g = rules.make_game()
    assert rules.make_game() is g
    a, t = rules.arrays(), g.tables
    for name, key in (("rank", "rank"), ("to_two", "to_two"), ("cat5", "cat5"), ("line_of_code", "line_of_code"),
                      ("line_odds", "line_odds")):
        assert a[key] is getattr(t, name)
    assert a["style_id"] == HouseWayStyle.parse(rules.house_way).style_id == int(t.style_id)
    assert a["bonus_cap"] == t.max_payout and a["commission"] == t.commission


@pytest.mark.parametrize("game", ["asia", "paigow"])
def test_the_observed_value_scale_is_one_over_each_slots_largest_value(game):
    """Brute force: the largest two-card value over every pair of the 53 cards, the largest
    one-card value over every card, the first slot's table's largest class."""
    spec = get_spec(game)
    g = Game(game)
    two = max(int(two_card_value(a, b)) for a, b in itertools.combinations(range(53), 2))
    one = max(int(one_card_value(c)) for c in range(53))
    largest = {2: two, 1: one}
    want = [int(g.table.rank.max())] + [largest[k] for k in spec.hand_sizes[1:]]
    np.testing.assert_array_equal(1.0 / spec.value_scale(g.table), np.array(want, dtype=np.float32))
    assert (two, one) == (90, 12)
