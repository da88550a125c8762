"""Strategy cards: a short list of if-then rules a person can follow, distilled from exact labels.

Two learners (``learner=``), both over readable features of the seven cards
(:mod:`splitpoker.agents.evaluation.card_features`), both with a setting recipe
(:mod:`splitpoker.agents.evaluation.recipes`) as each rule's action, and both minimising the exact
regret (a recipe's cost on a hand), i.e. the EV given up, not the number of mistakes:

* ``tree`` (the default): each rule is a leaf of a cost-sensitive tree
  (:mod:`splitpoker.agents.evaluation.rule_learner`), its path's conditions simplified in order.
  It reads the features before ``sf_pair_left`` (:data:`TREE_FEATURES`), the set the shipped tree
  cards were fitted on, so their commands still give the same cards.
* ``list``: exceptions prepended to a default rule, each a conjunction of at most three
  conditions (:mod:`splitpoker.agents.evaluation.list_learner`); it reads every feature.

Choosing the size: :func:`fit_card` fits (one fit per candidate ``min_leaf``) on the first
``1 - validation`` of the training hands, picks the ``min_leaf`` and number of rules (at most
``max_rules``) with the least regret on the last ``validation`` part, and fits again on all
training hands. Held-out hands (another seed) are only ever used to report
(:func:`evaluate_card`, :func:`regret_curve`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splitpoker.agents.evaluation.card_features import (
    FEATURE_INDEX,
    FEATURES,
    describe_conjunction,
    feature_matrix,
)
from splitpoker.agents.evaluation.decision_list import actions, rules_from_leaves, simplify
from splitpoker.agents.evaluation.hand_categories import big_hand_size
from splitpoker.agents.evaluation.labels import HandLabels, house_way_rules, mean_ci
from splitpoker.agents.evaluation.list_learner import fit_rule_lists
from splitpoker.agents.evaluation.recipes import Recipe, recipe_settings, recipes
from splitpoker.agents.evaluation.rule_learner import CostTree
from splitpoker.envs.rules.games.spec import SPECS

GAME_NAMES = {spec.name: spec.title for spec in SPECS.values()}
FEATURE_RANGES = [(f.low, f.high) for f in FEATURES]
TREE_FEATURES = FEATURE_INDEX["sf_pair_left"]  # the tree reads the columns before it (module docstring)
LEARNERS = ("tree", "list")


@dataclass(frozen=True)
class CardData:
    """Hands ready for fitting or scoring: readable features, the setting every recipe makes,
    its exact cost (regret) and the house way's setting."""

    labels: HandLabels
    X: np.ndarray  # int64[n, F]
    settings: np.ndarray  # int64[n, R]
    cost: np.ndarray  # float64[n, R]
    house_way: np.ndarray  # int64[n]
    book: tuple[Recipe, ...]  # the recipes, one per column of settings and cost

    @property
    def hands(self) -> int:
        return self.labels.hands

    def subset(self, rows: np.ndarray) -> CardData:
        lab = self.labels
        sub = HandLabels(lab.labeller, lab.exact, lab.env_id, lab.seed, tuple(np.asarray(lab.seeds)[rows].tolist()),
                         lab.cards[rows], lab.ev[rows], lab.sha256)
        return CardData(sub, self.X[rows], self.settings[rows], self.cost[rows], self.house_way[rows], self.book)


def card_data(game, labels: HandLabels, book: tuple[Recipe, ...] | None = None) -> CardData:
    """Features, recipe settings and costs of every hand of ``labels``."""
    book = recipes(game.game) if book is None else book
    settings = recipe_settings(game, labels.cards, book)
    played = labels.ev[np.arange(labels.hands)[:, None], settings]
    cost = labels.best[:, None] - played
    return CardData(labels, feature_matrix(labels.cards, big_hand_size(game)), settings, cost,
                    house_way_rules(game, labels.cards)[0], tuple(book))


@dataclass
class StrategyCard:
    """A fitted card: the ordered rules (:mod:`splitpoker.agents.evaluation.decision_list`)
    simplified from the ``k`` leaves of ``tree`` (the ``tree`` learner) or from the list of ``k``
    rules (the ``list`` learner, ``tree`` None), over the recipes ``book``."""

    game: str
    style: str
    book: tuple[Recipe, ...]
    tree: CostTree | None
    k: int
    train_hands: int
    train_seed: int
    exact: bool = True  # fitted on the real game's exact labels (not a small dealer pool)
    rule_list: list = None  # [(bounds, recipe index)], first match decides; set by :func:`make_card`

    @property
    def rules(self) -> list[dict]:
        out = []
        last = len(self.rule_list)
        for j, (bounds, action) in enumerate(self.rule_list, 1):
            r = self.book[action]
            when = ("any other hand" if last > 1 else "any hand") if j == last and not bounds else \
                describe_conjunction(bounds)
            out.append({"rule": j, "if": when, "then": r.text, "recipe": r.name,
                        "conditions": {FEATURES[f].name: list(b) for f, b in sorted(bounds.items())}})
        return out

    def play(self, data: CardData) -> np.ndarray:
        """The setting the card makes of every hand of ``data`` (same recipe book)."""
        return data.settings[np.arange(data.hands), actions(data.X, self.rule_list)]

    def text(self, score: dict | None = None) -> str:
        """The card in plain words (with ``score``, its held-out exact regret beside the house way's)."""
        rules = self.rules
        lines = [f"Strategy card: {GAME_NAMES[self.game]} against the {self.style} house way",
                 f"({len(rules)} rule{'s' if len(rules) != 1 else ''}, read from the top: the first that applies "
                 f"decides; fitted on {self.train_hands:,} "
                 f"{'exactly solved' if self.exact else 'small-pool labelled (NOT the real game)'} "
                 f"hands, seed {self.train_seed})", ""]
        for r in rules:
            when = "Any other hand" if r["if"] == "any other hand" else (
                "Any hand" if r["if"] == "any hand" else f"If {r['if']}")
            lines.append(f"{r['rule']:>2}. {when}: {r['then']}")
        lines += ["", "To carry out a rule: among the settings that obey it and do not foul, make the first hand "
                      "named as strong as possible, then the next. If no setting obeys it, make the hands in that "
                      "order without the constraint."]
        if score:
            lines += ["", f"Exact regret on {score['hands']:,} held-out hands (seed {score['seed']}): "
                          f"{score['exact_regret']:.5f} ± {score['exact_regret_ci95']:.5f} per hand; the house way "
                          f"on the same hands: {score['house_way_exact_regret']:.5f} ± "
                          f"{score['house_way_exact_regret_ci95']:.5f}."]
        return "\n".join(lines) + "\n"


# conditions tried for removal first: singletons' ranks, then group ranks, counts, flags, categories
_EAGERNESS = {"single": 0, "rank": 1, "sum": 1, "count": 2, "flag": 3}
READABILITY_ORDER = sorted(range(len(FEATURES)), key=lambda f: (
    4 if FEATURES[f].name.startswith("cat_") else _EAGERNESS[FEATURES[f].kind], f))


def make_card(game, style: str, train: CardData, tree: CostTree, k: int) -> StrategyCard:
    """The card of the tree of ``k`` leaves, its rules simplified on the training hands."""
    rule_list = simplify(train.X, train.cost, rules_from_leaves(tree.leaves(k)), READABILITY_ORDER)
    return StrategyCard(game.game if hasattr(game, "game") else game, style, train.book, tree, k, train.hands,
                        train.labels.seed, train.labels.exact, rule_list)


def _fitter(learner: str, grow_leaves: int):
    """``fit(data, min_leaf, max_rules, game, style)`` of ``learner``: yields the ``(k, card)`` of
    every size it makes with at most ``max_rules`` rules, in order of size."""
    if learner == "tree":
        def fit(data: CardData, ml: int, max_rules: int, game: str, style: str):
            tree = CostTree(data.X[:, :TREE_FEATURES], data.cost, grow_leaves=max(grow_leaves, max_rules),
                            min_leaf=ml, feature_ranges=FEATURE_RANGES[:TREE_FEATURES])
            yield from _cards_up_to(data, tree, max_rules, game=game, style=style)
        return fit

    def fit(data: CardData, ml: int, max_rules: int, game: str, style: str):
        lists = fit_rule_lists(data.X, data.cost, max_rules=max_rules, min_leaf=ml, feature_ranges=FEATURE_RANGES)
        for k, rules in enumerate(lists, 1):
            rule_list = simplify(data.X, data.cost, rules, READABILITY_ORDER)
            yield k, StrategyCard(game, style, data.book, None, k, data.hands, data.labels.seed, data.labels.exact,
                                  rule_list)
    return fit


def fit_card(game, style: str, train: CardData, *, max_rules: int, min_leaf=(3, 8, 20), grow_leaves: int = 300,
             validation: float = 0.25, learner: str = "tree") -> tuple[StrategyCard, dict]:
    """The card of at most ``max_rules`` rules chosen on a validation part of ``train`` (module
    docstring). ``min_leaf``: one value or several to choose from; for each, the ``learner``
    (``tree``: grown to ``grow_leaves`` leaves and pruned by cost; ``list``: exceptions
    prepended) fits the fitting part; the (min_leaf, size) with the least validation regret wins
    (ties: fewer rules) and is refitted on all of ``train``.
    Returns the card and the selection (validation regret per size, per min_leaf)."""
    for name, v in (("max_rules", max_rules), ("grow_leaves", grow_leaves)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name}={v!r}: expected an integer >= 1")
    if learner not in LEARNERS:
        raise ValueError(f"learner={learner!r}: expected one of {LEARNERS}")
    if not 0 < validation < 1:
        raise ValueError(f"validation={validation!r}: expected a share strictly between 0 and 1")
    n_fit = int(round(train.hands * (1 - validation)))
    if n_fit < 1 or n_fit >= train.hands:
        raise ValueError(f"{train.hands} training hands cannot be split {1 - validation:.0%}/{validation:.0%}")
    leaf_sizes = (min_leaf,) if isinstance(min_leaf, (int, np.integer)) else tuple(min_leaf)
    fit, val = train.subset(np.arange(n_fit)), train.subset(np.arange(n_fit, train.hands))
    grow = max(grow_leaves, max_rules)
    fitter = _fitter(learner, grow)
    curves, best = {}, None
    for ml in leaf_sizes:
        curves[int(ml)] = []
        for k, card in fitter(fit, int(ml), max_rules, game.game, style):
            r = float(val.labels.regrets(card.play(val)).mean())
            curves[int(ml)].append({"leaves": k, "rules": len(card.rule_list), "validation_regret": r})
            key = (round(r, 12), len(card.rule_list))
            if best is None or key < best[0]:
                best = (key, int(ml), len(card.rule_list))
    _, ml, n_rules = best
    # refit on every training hand: the largest fit whose card needs at most the chosen number of rules
    card = None
    for _, candidate in fitter(train, ml, n_rules, game.game, style):
        card = candidate
    return card, {"learner": learner, "fit_hands": n_fit, "validation_hands": train.hands - n_fit,
                  "validation": curves, "chosen_min_leaf": ml, "chosen_rules": n_rules, "chosen_leaves": card.k,
                  "rules": len(card.rule_list), **({"grow_leaves": grow} if learner == "tree" else {})}


def _cards_up_to(data: CardData, tree: CostTree, max_rules: int, patience: int = 5, game: str = "", style: str = ""):
    """``(k, card)`` for k = 1, 2, ... leaves while the simplified card has at most
    ``max_rules`` rules (stopping after ``patience`` sizes in a row that need more)."""
    over = 0
    for k in range(1, tree.max_leaves + 1):
        card = make_card(game, style, data, tree, k)
        if len(card.rule_list) > max_rules:
            over += 1
            if over >= patience:
                return
            continue
        over = 0
        yield k, card


def evaluate_card(card: StrategyCard, test: CardData) -> dict:
    """Exact regret of the card on ``test`` next to the house way's on the same hands."""
    lab = test.labels
    r = lab.regrets(card.play(test))
    h = lab.regrets(test.house_way)
    m, ci = mean_ci(r)
    hm, hci = mean_ci(h)
    d, dci = mean_ci(r - h)
    floor, _ = mean_ci(test.cost.min(axis=1))
    return {"hands": lab.hands, "seed": lab.seed, "exact": lab.exact, "exact_regret": m, "exact_regret_ci95": ci,
            "house_way_exact_regret": hm, "house_way_exact_regret_ci95": hci, "minus_house_way": d,
            "minus_house_way_ci95": dci, "ratio_to_house_way": m / hm if hm > 0 else None,
            "optimal_rate": float((r <= 0).mean()), "best_recipe_per_hand_regret": floor}


def regret_curve(train: CardData, test: CardData, *, max_rules: int, min_leaf: int = 8,
                 grow_leaves: int = 300, learner: str = "tree") -> list[dict]:
    """Training and held-out exact regret of the cards of at most ``max_rules`` rules of one fit
    of ``learner`` on all of ``train`` (the tree: simplified from the trees of 1, 2, ... leaves
    pruned from one grown tree; the list: its nested lists); per number of rules, the card with
    the least *training* regret (a report: nothing is chosen on ``test``)."""
    if learner not in LEARNERS:
        raise ValueError(f"learner={learner!r}: expected one of {LEARNERS}")
    by_size = {}
    for k, card in _fitter(learner, grow_leaves)(train, min_leaf, max_rules, "", ""):
        point = {"leaves": k, "rules": len(card.rule_list),
                 "train_regret": float(train.labels.regrets(card.play(train)).mean()),
                 "test_regret": float(test.labels.regrets(card.play(test)).mean())}
        if point["rules"] not in by_size or point["train_regret"] < by_size[point["rules"]]["train_regret"]:
            by_size[point["rules"]] = point  # per number of rules, the card best on the training hands
    return [by_size[n] for n in sorted(by_size)]


def plot_curve(curves: dict[str, dict], path) -> None:
    """Held-out exact regret against the number of rules, one line per dealer style, with each
    style's house way as a dashed line (log axis). ``curves``: style -> {curve, house_way}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for (style, c), color in zip(curves.items(), ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"),
                                 strict=False):
        ks = [p["rules"] for p in c["curve"]]
        ax.plot(ks, [p["test_regret"] for p in c["curve"]], "-o", ms=3, color=color, label=f"{style}: card")
        ax.axhline(c["house_way"], color=color, ls="--", lw=1, label=f"{style}: house way")
    ax.set_yscale("log")
    ax.set_xlabel("rules on the card")
    ax.set_ylabel("exact regret per hand, held-out hands (log)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
