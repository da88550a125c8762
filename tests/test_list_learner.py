"""The list learner of strategy cards (agents/evaluation/list_learner.py) against brute force, and
the two features of what a straight or flush leaves beside it against the engine's own settings."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from splitpoker.agents.evaluation.card_features import (
    FEATURE_INDEX,
    FEATURES,
    describe,
    feature_matrix,
)
from splitpoker.agents.evaluation.decision_list import actions
from splitpoker.agents.evaluation.list_learner import _best_exception, atoms, fit_rule_lists
from splitpoker.agents.evaluation.recipes import SF_CATEGORIES
from splitpoker.agents.evaluation.strategy_card import LEARNERS, fit_card
from splitpoker.envs.rules.cards import hand_array
from splitpoker.envs.rules.game import Game

PAIR, HIGH = FEATURE_INDEX["sf_pair_left"], FEATURE_INDEX["sf_left_high"]


def _from_settings(game: Game, cards) -> tuple[int, int]:
    """The two features read off the engine: of the settings whose big hand the rank table calls a
    straight or flush (or straight flush), the best second hand (two-card value 78 + r: a pair of
    rank r; below 78, hi * (hi - 1) / 2 + lo)."""
    hand = game.hand(cards)
    values, fouled = game.settings(hand)
    big = game.table.class_category[values[:, 0]]
    second = values[np.isin(big, SF_CATEGORIES), 1]
    if second.size == 0:
        return 0, -1
    v = int(second.max())
    if v >= 78:
        return 1, v - 78
    return 0, max(h for h in range(13) if h * (h - 1) // 2 <= v)


@pytest.mark.parametrize("game_name", ["paigow", "asia"])
def test_what_a_straight_or_flush_leaves_equals_the_engines_settings(game_name):
    game = Game(game_name)
    rng = np.random.default_rng(11)
    k = 5 if game_name == "paigow" else 4
    checked = with_sf = 0
    while with_sf < 150:
        cards = rng.choice(53, size=7, replace=False)
        x = feature_matrix(cards[None, :], k)[0]
        assert (int(x[PAIR]), int(x[HIGH])) == _from_settings(game, cards), (game_name, sorted(cards.tolist()))
        checked += 1
        with_sf += int(x[HIGH]) >= 0
    assert checked > with_sf  # hands without one were checked too


def test_worked_hands_of_what_a_straight_or_flush_leaves():
    def left(text):
        x = feature_matrix(hand_array(text)[None, :], 5)[0]
        return int(x[PAIR]), int(x[HIGH])

    assert left("9s 8d 7c 6h 5s As Ad") == (1, 12)  # the straight leaves the aces: a pair in front
    assert left("9s 8d 7c 6h 5s 5d Ac") == (0, 12)  # 9-5 (either five) leaves A 5: an ace in front
    assert left("Ks Qd Jc Th 9s 9d 2c") == (0, 7)  # K-9 takes one nine and leaves 9 2
    assert left("Ks Qd 7c 5h 3s 2d 2c") == (0, -1)  # no straight or flush
    assert left("JK Qd Jc Th 9s 4d 2c") == (0, 2)  # the joker makes K-9 or Q-8; either leaves 4 2
    assert describe(FEATURES[PAIR], 1, 1) == "a straight or flush that leaves a pair"
    assert describe(FEATURES[HIGH], 10, 12) == \
        "the best two cards left beside a straight or flush have a high card Q or higher"
    assert describe(FEATURES[HIGH], -1, -1) == "no straight or flush"


def _brute_best(X, C, current, min_leaf, max_conditions, ranges):
    """The best exception over every conjunction of up to ``max_conditions`` atoms, by definition."""
    cands = atoms(X, ranges)
    best = -np.inf
    for m in range(1, max_conditions + 1):
        for ids in itertools.combinations(range(len(cands)), m):
            cover = np.ones(len(X), bool)
            for a in ids:
                f, lo, hi = cands[a]
                cover &= (X[:, f] >= lo) & (X[:, f] <= hi)
            if cover.sum() < min_leaf:
                continue
            best = max(best, float((current[cover, None] - C[cover]).sum(axis=0).max()))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_best_exception_of_one_or_two_conditions_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(80, 3))
    C = rng.uniform(0, 1, size=(80, 3))
    C[(X[:, 0] >= 2) & (X[:, 1] <= 1), 2] = 0.0  # an exception that needs two conditions
    ranges = [(0, 3)] * 3
    current = C[:, int(C.sum(0).argmin())]
    cands = atoms(X, ranges)
    A = np.array([(X[:, f] >= lo) & (X[:, f] <= hi) for f, lo, hi in cands])
    for max_conditions in (1, 2):
        gain, ids, recipe = _best_exception(A, (current[:, None] - C).astype(np.float32), 5, max_conditions)
        assert gain == pytest.approx(_brute_best(X, C, current, 5, max_conditions, ranges), rel=1e-5)
        assert len(ids) <= max_conditions
    three, _, _ = _best_exception(A, (current[:, None] - C).astype(np.float32), 5, 3)
    assert three >= gain - 1e-6  # a third condition is only taken when it gains more


def test_lists_are_nested_find_a_planted_exception_and_only_lower_the_training_cost():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(400, 4))
    C = np.ones((400, 3))
    C[:, 0] = 0.1  # the default: recipe 0 everywhere ...
    planted = (X[:, 1] >= 4) & (X[:, 2] <= 1)
    C[planted, 0], C[planted, 1] = 1.0, 0.0  # ... except where two conditions hold
    lists = fit_rule_lists(X, C, max_rules=5, min_leaf=5, feature_ranges=[(0, 5)] * 4)
    assert lists[0] == [({}, 0)]
    assert lists[1][0] == ({1: (4, 5), 2: (0, 1)}, 1) and lists[1][1] == ({}, 0)
    costs = [C[np.arange(400), actions(X, rl)].sum() for rl in lists]
    assert all(b < a for a, b in zip(costs, costs[1:], strict=False))
    for shorter, longer in zip(lists, lists[1:], strict=False):  # nested: one rule more, on top
        assert longer[1:] == shorter
    with pytest.raises(ValueError, match="max_conditions=4"):
        fit_rule_lists(X, C, max_rules=5, max_conditions=4, feature_ranges=[(0, 5)] * 4)
    with pytest.raises(ValueError, match="one feature range per column"):
        fit_rule_lists(X, C, max_rules=5, feature_ranges=[(0, 5)] * 3)


def test_fit_card_with_the_list_learner_and_a_bad_learner(tmp_path):
    from tests.test_strategy_card import _synthetic

    game = Game("paigow")
    one_pair = ["Ks Kd 9c 7h 5s 3d 2c", "Qs Qd 9c 7h 5s 3d 2c", "8s 8d Ac Jh 5s 3d 2c"] * 4
    two_pair = ["Ks Kd 5c 5h 9s 3d 2c", "Qs Qd 4c 4h Ts 8d 2c", "9s 9d 3c 3h As 7d 2c"] * 4
    pairs = FEATURE_INDEX["pairs"]
    hands = [h for both in zip(one_pair, two_pair, strict=True) for h in both]  # both kinds in each part
    data = _synthetic(game, hands, lambda x: [0.0, 1.0] if x[pairs] == 1 else [1.0, 0.0])
    card, sel = fit_card(game, "paigow-igw", data, max_rules=5, min_leaf=2, validation=0.5, learner="list")
    assert sel["learner"] == "list" and card.tree is None and sel["fit_hands"] == 12
    # the synthetic labels' EVs are all 0, so validation sees no regret and keeps the fewest rules
    assert sel["chosen_rules"] == 1 and [p["rules"] for p in sel["validation"][2]] == [1, 2]
    assert card.rules == [{"rule": 1, "if": "any hand", "then": data.book[0].text, "recipe": data.book[0].name,
                           "conditions": {}}]
    lists = fit_rule_lists(data.X, data.cost, max_rules=5, min_leaf=2,
                           feature_ranges=[(f.low, f.high) for f in FEATURES])
    assert len(lists) == 2 and data.cost[np.arange(24), actions(data.X, lists[1])].sum() == 0.0  # the split
    assert json.dumps(card.rules)  # what --out and --card-out write
    assert LEARNERS == ("tree", "list")
    with pytest.raises(ValueError, match="learner='forest'"):
        fit_card(game, "paigow-igw", data, max_rules=5, learner="forest")
