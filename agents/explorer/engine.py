"""What the strategy explorer computes, without the web: requests checked into a :class:`Query`,
every setting's exact EV (:func:`splitpoker.envs.solver.hand_analysis.analyze_hand`, the same dict
as ``scripts/analyze.py --exact --json``), the strategy card's and loaded agents' choices, and a
practice hand's score.

One :class:`~splitpoker.envs.solver.exact.ExactSolver` per game, style and rules, loaded once and
reused (its dealer table memory-mapped, shared by rules that differ only in the commission). A
solver keeps a scratch histogram, so one request at a time uses it (a lock per solver); the web
layer bounds how many requests run at once. A table that is not cached yet is built in a
background thread, and the request that asked for it is told so (:class:`TableNotReady`) instead
of waiting minutes.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from splitpoker.envs.rules.cards import format_card
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.games.spec import SPECS, get_spec
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle, styles_of

GAMES = {spec.name: spec.title for spec in SPECS.values()}
DEFAULT_STYLE = {spec.name: spec.default_house_way for spec in SPECS.values()}
MAX_QUERY_CHARS = 2_000  # a whole query string; a hand is about 20
MAX_VALUE_CHARS = 200
ECHO_CHARS = 60  # how much of a bad value an error repeats


class RequestError(ValueError):
    """A request a user can fix: ``field`` names the input (``cards``, ``style``, ...)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class TableNotReady(RuntimeError):
    """The dealer table of these rules is being built (first time only); ``progress`` in [0, 1]."""

    def __init__(self, message: str, progress: float):
        super().__init__(message)
        self.progress = progress


def echo(value: str) -> str:
    """``repr`` of a user's value, shortened: an error never repeats a long input whole."""
    return repr(value if len(value) <= ECHO_CHARS else value[:ECHO_CHARS] + "...")


def rule_options(game: str) -> dict[str, Any]:
    """The rules options of ``game`` that change an EV, with their defaults (the fields of its
    rules dataclass: ``--rules`` of the command-line scripts)."""
    return {f.name: f.default for f in dataclasses.fields(get_spec(game).rules_cls)}


def _option_value(name: str, text: str, default: Any) -> Any:
    if isinstance(default, bool):
        low = text.strip().lower()
        if low in ("true", "1", "on", "yes"):
            return True
        if low in ("false", "0", "off", "no"):
            return False
        raise RequestError(name, f"{name}={echo(text)}: expected true or false")
    if isinstance(default, float):
        try:
            value = float(text)
        except ValueError:
            raise RequestError(name, f"{name}={echo(text)}: expected a number, e.g. {default}") from None
        if not np.isfinite(value):
            raise RequestError(name, f"{name}={echo(text)}: expected a finite number, e.g. {default}")
        return value
    return text.strip()


@dataclass(frozen=True)
class Query:
    """A checked request: the game, its house-way style and rules, and (when given) seven cards."""

    game: Game
    cards: np.ndarray | None
    options: dict  # the rules options that differ from the defaults, as given

    @property
    def params(self) -> dict[str, str]:
        """The query string that asks for this again (the page's shareable URL)."""
        out = {"game": self.game.game, "style": self.game.style.value}
        out.update({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in self.options.items()})
        if self.cards is not None:
            out["cards"] = " ".join(format_card(int(c)) for c in self.cards)
        return out


def parse_query(params: Mapping[str, str], *, need_cards: bool = True, extra: tuple[str, ...] = ()) -> Query:
    """Check a request's parameters (``game``, ``style``, ``cards`` and the rules options of the
    game by their field names, e.g. ``commission``); :class:`RequestError` names the first bad one.
    ``extra``: more parameters the caller reads itself."""
    if sum(len(k) + len(v) + 2 for k, v in params.items()) > MAX_QUERY_CHARS:
        raise RequestError("query", f"the query is longer than {MAX_QUERY_CHARS:,} characters: expected a game, a "
                                    f"style, seven cards and rules options")
    for k, v in params.items():
        if len(v) > MAX_VALUE_CHARS:
            raise RequestError(k if len(k) <= ECHO_CHARS else "query",
                               f"{echo(k)} is {len(v):,} characters long: expected at most {MAX_VALUE_CHARS}")
    game_name = params.get("game", "asia").strip().lower()
    if game_name not in GAMES:
        raise RequestError("game", f"game={echo(game_name)}: expected one of {', '.join(GAMES)}")
    allowed = rule_options(game_name)
    known = {"game", "style", "cards", *allowed, *extra}
    for k in params:
        if k not in known:
            raise RequestError("query", f"unknown parameter {echo(k)} for {GAMES[game_name]}: expected "
                                        f"{', '.join(sorted(known))}")
    style = params.get("style", "").strip().lower() or DEFAULT_STYLE[game_name]
    if style not in styles_of(game_name):
        raise RequestError("style", f"style={echo(style)}: expected a house way of {GAMES[game_name]}, one of "
                                    f"{', '.join(styles_of(game_name))}")
    options = {k: _option_value(k, params[k], allowed[k]) for k in allowed if params.get(k, "").strip()}
    try:
        rules = get_spec(game_name).rules_cls.from_dict(options)
        game = Game(game_name, style, rules)
    except (ValueError, TypeError) as e:
        field = next((k for k in options if k in str(e)), "query")
        raise RequestError(field, str(e)) from None
    options = {k: v for k, v in options.items() if v != allowed[k]}
    cards = None
    text = params.get("cards", "").strip()
    if text:
        try:
            cards = game.hand(text)
        except (ValueError, TypeError) as e:
            raise RequestError("cards", str(e)) from None
    elif need_cards:
        raise RequestError("cards", 'cards: missing: expected seven cards, e.g. "Qh Th 8h 3h Kd 5d Tc" (joker: JK)')
    return Query(game, cards, options)


def deal(seed: int) -> np.ndarray:
    """Seven random cards of the 53-card deck (sorted), from ``seed``."""
    return np.sort(np.random.default_rng(seed).choice(53, size=7, replace=False)).astype(np.int64)


def setting_of_hands(game: Game, cards: np.ndarray, hands: Mapping[str, str]) -> int:
    """The index of the setting of ``cards`` that puts these cards in each hand (``hands`` maps the
    game's hand names, e.g. ``high``, to card text); :class:`RequestError` when they are not a
    split of the seven cards."""
    from splitpoker.envs.rules.cards import parse_cards

    want = {}
    for slot in game.slots:
        text = hands.get(slot, "")
        try:
            want[slot] = frozenset(parse_cards(text)) if text.strip() else frozenset()
        except (ValueError, TypeError) as e:
            raise RequestError(slot, f"{slot}: {e}") from None
    for s in range(game.n_settings):
        got = {k: frozenset(int(c) for c in v) for k, v in game.describe(cards, s).hands().items()}
        if got == want:
            return s
    sizes = ", ".join(f"{k} {len(v)}" for k, v in game.describe(cards, 0).hands().items())
    given = ", ".join(f"{k} {len(v)}" for k, v in want.items())
    raise RequestError("hands", f"the hands ({given} cards) are not a split of the seven cards: expected every card "
                                f"once, in hands of {sizes} cards")


class Explorer:
    """The explorer's engine: exact solvers loaded once, the strategy cards, the loaded agents.

    ``models``: saved models (``model.zip`` of a setting env) to compare, loaded at start;
    ``reports``: a folder of house-way audits (``<style>/report.json`` of ``scripts/report.py``);
    ``cards``: a folder of fitted cards (``<style>.yaml``; default the shipped ones);
    ``written_cards``: card files to compare on every hand of their game; ``log``: where loading
    messages go."""

    def __init__(self, *, models: tuple[str, ...] = (), reports: str | Path | None = None,
                 cards: str | Path | None = None, written_cards: tuple[str, ...] = (),
                 log: Callable[[str], None] = print):
        self.log = log
        self._tables: dict[tuple, np.ndarray] = {}
        self._solvers: dict[tuple, tuple[Any, threading.Lock]] = {}
        self._building: dict[tuple, dict] = {}
        self._lock = threading.Lock()
        self.reports = Path(reports) if reports else None
        from splitpoker.agents.explorer.agents import load_agents

        self.agents = load_agents(models, log=log)
        from splitpoker.agents.explorer.cards import CardBook

        self.cards = CardBook(cards, written_cards, log=log)

    # ---- the solvers ----------------------------------------------------------------------
    @staticmethod
    def _table_key(game: Game) -> tuple:
        rules = dataclasses.asdict(game.rules)
        rules.pop("commission", None)
        return game.game, game.style.value, tuple(sorted(rules.items()))

    @staticmethod
    def is_cached(game: Game) -> bool:
        """Whether the dealer table of ``game`` (its style and ranking options) is in the cache."""
        from splitpoker.envs.rules.cache import entry_paths
        from splitpoker.envs.solver.dealer_table import table_key

        return all(p.exists() for p in entry_paths(f"dealer-{game.game}-{game.style.value}", table_key(game)))

    def preload(self, styles=None, progress: Callable[[int], Any] | None = None) -> float:
        """Load the default dealer table of every style of ``styles`` and compile the solver (one
        solve each); returns the seconds it took. A table not cached yet is built here
        (``progress(n)`` after each batch of hands). ``styles=None``: each game's default house way
        (built if need be) and every other style whose table is cached; the rest are built in the
        background when first asked for (:class:`TableNotReady` says so meanwhile)."""
        t0 = time.perf_counter()
        for game_name in GAMES:
            for style in styles_of(game_name):
                if styles is not None and style not in styles:
                    continue
                if styles is None and style != DEFAULT_STYLE[game_name] and not self.is_cached(Game(game_name, style)):
                    self.log(f"{style}: dealer table not cached yet; it is built when first asked for")
                    continue
                game = Game(game_name, style)
                t = time.perf_counter()
                solver = self._solver(game, build=True, progress=progress)
                with self._solvers[self._solver_key(game)][1]:
                    solver.solve(deal(0))
                self.log(f"{style}: dealer table and solver ready in {time.perf_counter() - t:.1f} s")
        return time.perf_counter() - t0

    @staticmethod
    def _solver_key(game: Game) -> tuple:
        return game.game, game.style.value, game.rules

    def _solver(self, game: Game, *, build: bool = False, progress=None):
        from splitpoker.envs.solver.dealer_table import dealer_table
        from splitpoker.envs.solver.exact import ExactSolver

        key = self._solver_key(game)
        with self._lock:
            if key in self._solvers:
                return self._solvers[key][0]
            tkey = self._table_key(game)
            table = self._tables.get(tkey)
            if table is None:
                if not build and not self.is_cached(game):
                    state = self._building.get(tkey)
                    if state is None:
                        state = self._building[tkey] = {"done": 0, "total": 1, "error": None,
                                                        "started": time.perf_counter()}
                        threading.Thread(target=self._build, args=(game, tkey, state), daemon=True,
                                         name=f"build dealer-{game.game}-{game.style.value}").start()
                    if state["error"]:
                        err = state["error"]
                        del self._building[tkey]
                        raise RuntimeError(f"building the dealer table of {describe_rules(game)} failed: {err}")
                    frac = state["done"] / max(state["total"], 1)
                    raise TableNotReady(f"the dealer table of {describe_rules(game)} is being built (first time only; "
                                        f"{frac:.0%} done, a few minutes in all): ask again soon", frac)
                table = dealer_table(game, log=self.log, progress=progress)
                self._tables[tkey] = table
            solver = ExactSolver(game, table=table)
            self._solvers[key] = (solver, threading.Lock())
            return solver

    def _build(self, game: Game, tkey: tuple, state: dict) -> None:
        from splitpoker.envs.solver.dealer_table import dealer_table

        state["total"] = math.comb(53, 7)  # the table has a row for every 7-card hand of the deck

        def progress(n):
            state["done"] += int(n)

        try:
            table = dealer_table(game, log=self.log, progress=progress)
            with self._lock:
                self._tables[tkey] = table
                self._building.pop(tkey, None)
        except Exception as e:  # noqa: BLE001 - told to the next request
            state["error"] = f"{type(e).__name__}: {e}"

    def solve(self, game: Game, cards: np.ndarray):
        """The exact result of ``cards`` (:class:`~splitpoker.envs.solver.exact.ExactResult`)."""
        solver = self._solver(game)
        with self._solvers[self._solver_key(game)][1]:
            return solver.solve(cards)

    # ---- the answers ----------------------------------------------------------------------
    def analyze(self, query: Query) -> dict:
        """``scripts/analyze.py --exact --json``'s dict for the query's hand, plus ``explorer``: the
        house way's source, the strategy card's and every loaded agent's choice with its EV and
        its cost against the optimum (and each written card's)."""
        from splitpoker.envs.solver.hand_analysis import analyze_hand

        game, cards = query.game, query.cards
        solver = self._solver(game)
        with self._solvers[self._solver_key(game)][1]:
            rep = analyze_hand(game, cards, exact=True, solver=solver)
        evs = {e["setting"]: e["ev"] for e in rep["settings"]}
        res_ev = self._all_evs(game, cards, rep)
        best = rep["optimal_ev"]

        def scored(setting: int) -> dict:
            ev = float(res_ev[setting])
            return {"setting": int(setting), "ev": ev, "cost": best - ev, "fouled": setting not in evs,
                    "hands": {k: [format_card(int(c)) for c in v] for k, v in game.describe(cards, setting).hands().items()}}

        card = self.cards.choice(game, cards)
        rep["explorer"] = {
            "house_way_source": game.style.source,
            "strategy_card": None if card is None else {**scored(card["setting"]), **card},
            "written_cards": [{**scored(c["setting"]), **c} for c in self.cards.written_choices(game, cards)],
            "agents": [{**scored(a["setting"]), **a} for a in self.agents.choices(game, cards)],
        }
        return rep

    def _all_evs(self, game: Game, cards: np.ndarray, rep: dict) -> np.ndarray:
        ev = np.full(game.n_settings, -1.0)  # fouled settings lose the wager: EV -1
        for e in rep["settings"]:
            ev[e["setting"]] = e["ev"]
        return ev

    def practice(self, query: Query, setting: int) -> dict:
        """The score of playing ``setting`` on the query's hand: its exact EV, the optimum's and the
        house way's, and what it gives up."""
        from splitpoker.envs.solver.hand_analysis import setting_entry

        game, cards = query.game, query.cards
        res = self.solve(game, cards)
        hw = game.house_way(cards)
        best = res.best(prefer=hw.setting)

        def entry(s):
            e = setting_entry(game, cards, s, res.ev[s], 0.0, "exact")
            e["p_win"], e["p_push"], e["p_loss"] = (float(res.wins[s] / res.n_dealer_hands),
                                                     float(res.pushes[s] / res.n_dealer_hands),
                                                     float(res.losses[s] / res.n_dealer_hands))
            return e

        return {"game": game.game, "style": game.style.value, "cards": [format_card(int(c)) for c in cards],
                "played": entry(setting), "optimal": entry(best), "house_way": entry(hw.setting),
                "house_way_rule": hw.rule, "gives_up": float(res.ev[best] - res.ev[setting]),
                "house_way_gives_up": float(res.ev[best] - res.ev[hw.setting]),
                "optimal_settings": [int(s) for s in res.optimal_settings()]}

    # ---- the audits -----------------------------------------------------------------------
    def _audit_folders(self) -> dict[str, Path]:
        """Per style, the folder of ``reports`` holding its largest house-way audit (a
        ``report.json`` of ``scripts/report.py --policy house-way``, in any sub-folder)."""
        import json

        best: dict[str, tuple[int, Path]] = {}
        if self.reports is None or not self.reports.is_dir():
            return {}
        for path in sorted(self.reports.glob("*/report.json")):
            try:
                rep = json.loads(path.read_text())
                style, hands = rep["style"], int(rep["hands"])
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not an audit this explorer can show
            if rep.get("policy") == "house-way" and style in HouseWayStyle._value2member_map_ and \
                    hands > best.get(style, (0, None))[0]:
                best[style] = (hands, path.parent)
        return {s.value: best[s.value][1] for s in HouseWayStyle if s.value in best}

    def audit_styles(self) -> list[str]:
        """The styles with a house-way audit in ``reports``."""
        return list(self._audit_folders())

    def audit(self, style: str) -> dict:
        """The largest house-way audit of ``style`` (``scripts/report.py``'s report.json), with its
        plots (``plots``) and its folder (``folder``)."""
        import json

        folders = self._audit_folders()
        if style not in folders:
            raise RequestError("style", f"no house-way audit of {echo(style)}: expected one of "
                                        f"{', '.join(folders) or '(none: start with --reports DIR)'}")
        folder = folders[style]
        try:
            report = json.loads((folder / "report.json").read_text())
        except (OSError, ValueError) as e:
            raise RuntimeError(f"{folder / 'report.json'} cannot be read: {e}") from None
        report["plots"] = sorted(p.name for p in folder.glob("*.png"))
        report["folder"] = folder
        return report


def describe_rules(game: Game) -> str:
    """``asia-000 with ace_low_straight='second_highest'``: a style and its non-default options."""
    defaults = rule_options(game.game)
    diff = [f"{k}={v!r}" for k, v in dataclasses.asdict(game.rules).items() if defaults.get(k) != v]
    return game.style.value + (" with " + ", ".join(diff) if diff else "")
