"""Strategy cards as files: a written strategy (a book's, a site's, your own) in the rule language
the fitted cards print, loaded, checked and played like any policy.

A card file is YAML (``configs/strategies/*.yaml``); a fitted card's JSON (``docs/cards/*.json``,
written by ``scripts/strategy_card.py --out``) loads the same way. The schema::

    game: paigow                  # required: paigow | asia
    style: paigow-igw             # optional: the house way it is meant against (the default dealer)
    name: simple strategy         # optional: what reports call it (default: the file's name)
    source: "..."                 # optional: where the strategy comes from
    notes: "..."                  # optional
    rules:                        # required: read from the top, the FIRST rule that applies decides
      - name: two pair, low       # optional (default "rule N")
        if:                       # optional: omitted or {} = any hand (the fallback)
          cat_two_pair: 1         # a feature and a value, or
          pair_sum: {max: 9}      #   {min: .., max: ..} (either may go), or
          top_single: [K, A]      #   [low, high], both included
        then: groups:fb           # a recipe (card_file.recipe_names(game)) or house-way:<style>

Features are those of :mod:`splitpoker.agents.evaluation.card_features` (``cat_two_pair``,
``pairs``, ``top_pair``, ``top_single``, ``pair_sum``, ``sf_left_high``, ...). Values of a rank feature
(``top_pair``, ``top_single``, ...) are rank names ``2``..``10``, ``J``, ``Q``, ``K``, ``A`` (or
``none``: that rank is absent); flags take ``0``/``1`` or ``true``/``false``; counts and
``pair_sum`` (aces 14) take integers. Recipes are those of
:mod:`splitpoker.agents.evaluation.recipes` by name (``groups:fb`` = "keep every pair, trips and
quads in back; then the best front hand, then the best back hand"), plus ``house-way:<style>``:
set the hand as that house way does (so a card can change one rule of a house way and keep the
rest).

Overlapping rules are allowed: the card is a *decision list*, the first rule whose conditions
all hold decides, later rules only see the hands the earlier ones left. Every hand must be
decided, so the last rule must have no conditions (the fallback) and only the last. Refused when
loading (:class:`CardError`, naming the file, the rule and the problem): unknown keys, features,
recipes or styles, a value outside the feature's range, an empty range, a card of no fallback
(with a sample hand no rule takes) and rules after the fallback (never reached).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from splitpoker.agents.evaluation.card_features import (
    FEATURE_INDEX,
    FEATURES,
    FLAG,
    RANK,
    SINGLE,
    describe_conjunction,
    feature_matrix,
)
from splitpoker.agents.evaluation.decision_list import which_rule
from splitpoker.agents.evaluation.hand_categories import RANK_NAMES, big_hand_size
from splitpoker.agents.evaluation.recipes import recipe_settings, recipes
from splitpoker.envs.rules.cards import format_cards
from splitpoker.envs.rules.games.spec import SPECS

GAMES = tuple(SPECS)
HOUSE_WAY = "house-way:"
CARD_KEYS = ("game", "style", "name", "source", "notes", "rules")
RULE_KEYS = ("name", "if", "then")
SUFFIXES = (".yaml", ".yml", ".json")
BIG_HAND = {spec.name: spec.hand_sizes[0] for spec in SPECS.values()}  # card_features reads straights in it
FITTED_DIR = Path(__file__).resolve().parents[2] / "configs" / "strategies" / "fitted"
_RANKS = {name: i for i, name in enumerate(RANK_NAMES)} | {"none": -1, "T": 8}


class CardError(ValueError):
    """A card file that cannot be played: the message names the file, the rule and the problem."""


@dataclass(frozen=True)
class CardRule:
    """One rule: ``bounds`` {feature index: (lo, hi)} (inclusive, all must hold) and its recipe."""

    name: str
    bounds: dict
    recipe: str
    text: str  # "If <conditions>: <recipe in words>" (or "Any other hand: ...")


@dataclass(frozen=True)
class WrittenCard:
    """A loaded, checked card (see the module docstring)."""

    game: str
    rules: tuple[CardRule, ...]
    name: str = "card"
    style: str | None = None
    source: str = ""
    notes: str = ""
    path: str = ""

    @property
    def decision_list(self) -> list[tuple[dict, int]]:
        return [(r.bounds, j) for j, r in enumerate(self.rules)]

    def rule_of(self, X: np.ndarray) -> np.ndarray:
        """Index of the rule that decides each row of the feature matrix ``X``."""
        return which_rule(X, self.decision_list)

    def play(self, game, cards) -> tuple[np.ndarray, np.ndarray]:
        """``(settings, rule index)`` per hand (rows of sorted ``cards``) in ``game``, a
        :class:`splitpoker.envs.rules.game.Game` of the card's game (its house way is the dealer's;
        ``house-way:<style>`` recipes use the named style with ``game``'s rules)."""
        if game.game != self.game:
            raise CardError(f"{self.path or self.name}: a card for {self.game}, played in {game.game}")
        cards = np.asarray(cards, dtype=np.int64).reshape(-1, 7)
        rule = self.rule_of(feature_matrix(cards, big_hand_size(game)))
        settings = np.full(cards.shape[0], -1, dtype=np.int64)
        for j, r in enumerate(self.rules):
            rows = np.flatnonzero(rule == j)
            if rows.size:
                settings[rows] = recipe_column(game, r.recipe, cards[rows])
        return settings, rule

    def text(self) -> str:
        lines = [f"{self.name} ({self.game}{', against ' + self.style if self.style else ''}; "
                 f"{len(self.rules)} rule{'s' if len(self.rules) != 1 else ''}, the first that applies decides)"]
        if self.source:
            lines.append(f"source: {self.source}")
        lines += [f"{j:>2}. [{r.name}] {r.text}" for j, r in enumerate(self.rules, 1)]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class CardChoice:
    """What a card does with one hand: the setting index, the rule (0-based) and its words."""

    setting: int
    rule: int
    rule_name: str
    rule_text: str


def card_choice(card: WrittenCard, game, cards) -> CardChoice:
    """The setting ``card`` makes of seven ``cards`` (card integers, any order) in ``game``, and the
    rule that chose it. The explorer's entry point; stable signature."""
    hand = np.sort(np.asarray(cards, dtype=np.int64).reshape(7))
    settings, rule = card.play(game, hand[None, :])
    r = card.rules[int(rule[0])]
    return CardChoice(int(settings[0]), int(rule[0]), r.name, r.text)


def fitted_card_choice(style: str, cards) -> CardChoice:
    """What the shipped fitted card of house-way ``style`` (:func:`fitted_card`) does with seven
    ``cards`` against that dealer: the setting index and the rule. Stable signature."""
    card = fitted_card(style)
    return card_choice(card, _game(card.game, style), cards)


@cache
def _game(game: str, style: str):
    from splitpoker.envs.rules.game import Game

    return Game(game, style)


def fitted_card_path(style: str) -> Path:
    """The shipped fitted card of a house-way style (``configs/strategies/fitted/<style>.yaml``)."""
    return FITTED_DIR / f"{style}.yaml"


@cache
def fitted_card(style: str) -> WrittenCard:
    """The shipped fitted card of ``style`` (ValueError if none is shipped)."""
    path = fitted_card_path(style)
    if not path.is_file():
        have = sorted(p.stem for p in FITTED_DIR.glob("*.yaml"))
        raise ValueError(f"style {style!r}: no fitted card shipped ({path}); shipped: {have}")
    return load_card(path)


# ---- recipes --------------------------------------------------------------------------------------

def recipe_names(game: str) -> list[str]:
    """The recipe names a card of ``game`` may use in ``then`` (besides ``house-way:<style>``)."""
    return [r.name for r in recipes(game)]


def recipe_words(game: str, name: str) -> str:
    if name.startswith(HOUSE_WAY):
        return f"Set the hand as the {name[len(HOUSE_WAY):]} house way does."
    return next(r.text for r in recipes(game) if r.name == name)


def recipe_column(game, name: str, cards: np.ndarray) -> np.ndarray:
    """The setting recipe ``name`` makes of each row of ``cards`` in ``game``."""
    if name.startswith(HOUSE_WAY):
        from splitpoker.agents.evaluation.labels import house_way_rules
        from splitpoker.envs.rules.game import Game

        style = name[len(HOUSE_WAY):]
        other = game if game.style.value == style else Game(game.game, style, game.rules)
        return house_way_rules(other, cards)[0]
    book = tuple(r for r in recipes(game.game) if r.name == name)
    return recipe_settings(game, cards, book)[:, 0]


# ---- loading and checks ---------------------------------------------------------------------------

def _suggest(word: str, options) -> str:
    near = difflib.get_close_matches(str(word), [str(o) for o in options], n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _value(where: str, feature, v, side: str) -> int:
    """One bound of a condition as the feature's integer."""
    f = feature
    if isinstance(v, bool):
        if f.kind != FLAG:
            raise CardError(f"{where}: {f.name} {side} {v!r}: true/false is for flags; {f.name} takes "
                            f"{_takes(f)}")
        return int(v)
    if f.kind in (RANK, SINGLE):
        key = str(v).upper() if str(v).lower() != "none" else "none"
        if key not in _RANKS:
            raise CardError(f"{where}: {f.name} {side} {v!r}: expected a rank 2..10, J, Q, K, A or none")
        return _RANKS[key]
    if isinstance(v, (int, np.integer)):
        return int(v)
    raise CardError(f"{where}: {f.name} {side} {v!r}: expected {_takes(f)}")


def _takes(f) -> str:
    if f.kind == FLAG:
        return "0/1 (or true/false)"
    if f.kind in (RANK, SINGLE):
        return "a rank 2..10, J, Q, K, A or none"
    return f"an integer {max(f.low, 0)}..{f.high}"


def _condition(where: str, name, spec) -> tuple[int, tuple[int, int]]:
    if name not in FEATURE_INDEX:
        raise CardError(f"{where}: unknown feature {name!r}{_suggest(name, FEATURE_INDEX)}; expected one of "
                        f"{list(FEATURE_INDEX)}")
    i = FEATURE_INDEX[name]
    f = FEATURES[i]
    if isinstance(spec, dict):
        extra = set(spec) - {"min", "max"}
        if extra or not spec:
            raise CardError(f"{where}: {name}: {spec!r}: expected {{min: .., max: ..}} (either may be left out)")
        lo = _value(where, f, spec["min"], "min") if "min" in spec else f.low
        hi = _value(where, f, spec["max"], "max") if "max" in spec else f.high
    elif isinstance(spec, list):
        if len(spec) != 2:
            raise CardError(f"{where}: {name}: {spec!r}: expected [low, high] (two values)")
        lo, hi = _value(where, f, spec[0], "low"), _value(where, f, spec[1], "high")
    else:
        lo = hi = _value(where, f, spec, "value")
    for v in (lo, hi):
        if not f.low <= v <= f.high:
            raise CardError(f"{where}: {name} = {v}: outside its range; {name} takes {_takes(f)}")
    if lo > hi:
        raise CardError(f"{where}: {name}: low {lo} above high {hi}: no hand can match")
    return i, (lo, hi)


def sample_hands(n: int = 4000, seed: int = 49) -> np.ndarray:
    """A fixed sample of seven-card hands from the 53-card deck (for the checks' sample hands)."""
    rng = np.random.default_rng(seed)
    return np.sort(np.array([rng.choice(53, 7, replace=False) for _ in range(n)], dtype=np.int64), axis=1)


def parse_card(data, *, where: str = "card", name: str | None = None) -> WrittenCard:
    """A :class:`WrittenCard` from the parsed YAML/JSON ``data`` (see the module docstring);
    :class:`CardError` naming ``where``, the rule and the problem."""
    from splitpoker.envs.rules.house_ways.registry import styles_of

    if not isinstance(data, dict):
        raise CardError(f"{where}: expected a mapping with game and rules, got {type(data).__name__}")
    fitted = "conditions" in (data.get("rules") or [{}])[0] if isinstance(data.get("rules"), list) else False
    if not fitted:
        extra = [k for k in data if k not in CARD_KEYS]
        if extra:
            raise CardError(f"{where}: unknown key {extra[0]!r}{_suggest(extra[0], CARD_KEYS)}; a card has "
                            f"{list(CARD_KEYS)}")
    game = data.get("game")
    if game not in GAMES:
        raise CardError(f"{where}: game {game!r}: expected one of {list(GAMES)}")
    style = data.get("style")
    styles = styles_of(game)
    if style is not None and style not in styles:
        raise CardError(f"{where}: style {style!r}: expected a {game} house way, one of {styles}")
    rules = data.get("rules")
    if not isinstance(rules, list) or not rules:
        raise CardError(f"{where}: rules: expected a list of at least one rule (the last without 'if')")
    names = recipe_names(game)
    out = []
    for j, rule in enumerate(rules, 1):
        if not isinstance(rule, dict):
            raise CardError(f"{where}: rule {j}: expected a mapping with 'if' and 'then', got {rule!r}")
        rname = str(rule.get("name") or f"rule {j}")
        at = f"{where}: rule {j} ({rname!r})"
        if fitted:
            conds, recipe = rule.get("conditions") or {}, rule.get("recipe")
            bounds = {}
            for fname, (lo, hi) in conds.items():
                if fname not in FEATURE_INDEX:
                    raise CardError(f"{at}: unknown feature {fname!r}")
                bounds[FEATURE_INDEX[fname]] = (int(lo), int(hi))
        else:
            extra = [k for k in rule if k not in RULE_KEYS]
            if extra:
                raise CardError(f"{at}: unknown key {extra[0]!r}{_suggest(extra[0], RULE_KEYS)}; a rule has "
                                f"{list(RULE_KEYS)}")
            conds, recipe = rule.get("if") or {}, rule.get("then")
            if not isinstance(conds, dict):
                raise CardError(f"{at}: if: expected a mapping of feature: value, got {conds!r}")
            bounds = dict(_condition(at, k, v) for k, v in conds.items())
            bounds = {i: b for i, b in bounds.items() if b != (FEATURES[i].low, FEATURES[i].high)}
        if not isinstance(recipe, str):
            raise CardError(f"{at}: then: expected a recipe name, got {recipe!r}; one of {names} or "
                            f"house-way:<style>")
        if recipe.startswith(HOUSE_WAY):
            if recipe[len(HOUSE_WAY):] not in styles:
                raise CardError(f"{at}: then {recipe!r}: unknown house way; expected house-way:<style> with a "
                                f"style of {game}: {styles}")
        elif recipe not in names:
            raise CardError(f"{at}: then {recipe!r}: unknown recipe{_suggest(recipe, names)}; expected one of "
                            f"{names} or house-way:<style>")
        out.append((rname, bounds, recipe))
    free = [j for j, (_, b, _) in enumerate(out) if not b]
    if free and free[0] < len(out) - 1:
        j = free[0]
        raise CardError(f"{where}: rule {j + 1} ({out[j][0]!r}) has no conditions, so it takes every hand left and "
                        f"rules {j + 2}..{len(out)} are never reached: make it the last rule or give it conditions")
    if not free:
        X = feature_matrix(sample_hands(), BIG_HAND[game])
        left = np.flatnonzero(which_rule(X, [(b, k) for k, (_, b, _) in enumerate(out)]) == len(out))
        example = f"; e.g. {format_cards(sample_hands()[left[0]])} matches none" if left.size else ""
        raise CardError(f"{where}: no fallback: the last rule ({out[-1][0]!r}) has conditions, so some hands match "
                        f"no rule{example}; end the card with a rule without 'if' (any other hand)")
    last = len(out)
    card_rules = []
    for rname, bounds, recipe in out:
        when = ("Any other hand" if last > 1 else "Any hand") if not bounds else f"If {describe_conjunction(bounds)}"
        card_rules.append(CardRule(rname, bounds, recipe, f"{when}: {recipe_words(game, recipe)}"))
    return WrittenCard(game, tuple(card_rules), name=str(data.get("name") or name or "card"), style=style,
                       source=str(data.get("source") or ""), notes=str(data.get("notes") or ""), path=where)


def is_card_file(name) -> bool:
    """Whether a policy argument names a card file (by its suffix; ``.json`` only if it holds rules)."""
    p = Path(str(name))
    if p.suffix in (".yaml", ".yml"):
        return True
    if p.suffix == ".json" and p.is_file():
        try:
            return isinstance(json.loads(p.read_text()).get("rules"), list)
        except (OSError, ValueError, AttributeError):
            return False
    return False


def load_card(path) -> WrittenCard:
    """The card in the YAML (or fitted-card JSON) file ``path``; :class:`CardError` if it is not a
    valid card (see the module docstring)."""
    import yaml

    p = Path(path)
    if p.suffix not in SUFFIXES:
        raise CardError(f"{p}: expected a card file ending {SUFFIXES}")
    if not p.is_file():
        raise CardError(f"{p}: no such card file")
    try:
        text = p.read_text()
        data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as e:
        raise CardError(f"{p}: cannot read it as {'JSON' if p.suffix == '.json' else 'YAML'} ({e})") from None
    card = parse_card(data, where=str(p), name=p.stem)
    if isinstance(data, dict) and "conditions" in str(data.get("rules")) and not data.get("name"):
        card = WrittenCard(card.game, card.rules, f"fitted card {p.stem}", card.style, card.source, card.notes, card.path)
    return card


def card_yaml(card: WrittenCard) -> str:
    """The card as a card file (rank features by name): a fitted card made editable."""
    import yaml

    def value(f, v):
        if f.kind in (RANK, SINGLE):
            return "none" if v < 0 else RANK_NAMES[v]
        return int(v)

    rules = []
    for r in card.rules:
        cond = {}
        for i, (lo, hi) in sorted(r.bounds.items()):
            f = FEATURES[i]
            cond[f.name] = value(f, lo) if lo == hi else (
                {"max": value(f, hi)} if lo <= f.low else {"min": value(f, lo)} if hi >= f.high
                else [value(f, lo), value(f, hi)])
        rules.append({"name": r.name, **({"if": cond} if cond else {}), "then": r.recipe})
    head = {k: v for k, v in (("game", card.game), ("style", card.style), ("name", card.name),
                              ("source", card.source), ("notes", card.notes)) if v}
    return yaml.safe_dump({**head, "rules": rules}, sort_keys=False, allow_unicode=True, width=100)
