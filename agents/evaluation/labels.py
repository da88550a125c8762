"""Per-hand labels for a report or a strategy card: the EV of every setting of every hand of a
seeded sample, the house way's setting and the rule that chose it.

Hand ``i`` of a sample is the player's cards of ``env.reset(seed=hand_seeds(seed, n)[i])`` (the
hands every evaluation in this project plays, :mod:`splitpoker.agents.evaluation.evaluate`).
Three labellers, named by :data:`LABELLERS`:

``exact``
    The exact solver's EVs (every one of the 53,524,680 dealer hands), through the evaluation-set
    cache (:mod:`splitpoker.agents.exact.eval_set`): solved once (~0.1-0.3 s a hand), then a
    file read. Solved stores (``scripts/solve_all.py``) are looked up first when given.
``table``
    The strategy table's EVs (:mod:`splitpoker.agents.policies.strategy_table`): exact counts
    against the dealer's full 53-card distribution, card removal ignored; microseconds a hand,
    nothing to cache. Not exact: its error is measured in docs/strategy_insight.md.
``small-pool``
    Exact against dealer hands of the unseen cards below ``max_pool_card`` only, with a small
    dealer table built in memory (tests and quick looks; NOT the real game's EVs).

The house way's setting and rule come from the registry's batch kernel
(:func:`splitpoker.envs.rules.house_ways.batch.house_way_batch_with_rule`), so any registered
style is labelled the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from splitpoker.agents.evaluation.evaluate import hand_seeds, mean_ci
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import house_way_batch_with_rule

LABELLERS = ("exact", "table", "small-pool")
FULL_POOL = 53


@dataclass(frozen=True)
class HandLabels:
    """EVs of every setting of a sample of hands.

    Attributes:
        labeller: one of :data:`LABELLERS`; ``exact``: whether the EVs are the real game's exact ones.
        env_id, seed: where the hands were dealt (``seeds``: the per-hand reset seeds).
        cards: ``int64[n, 7]`` sorted cards; ``ev``: ``float64[n, n_settings]`` (fouled = -1).
        sha256: the evaluation set's checksum (``exact``), else None.
    """

    labeller: str
    exact: bool
    env_id: str
    seed: int
    seeds: tuple[int, ...]
    cards: np.ndarray
    ev: np.ndarray
    sha256: str | None = None

    @property
    def hands(self) -> int:
        return int(self.cards.shape[0])

    @property
    def best(self) -> np.ndarray:
        return self.ev.max(axis=1)

    def played_ev(self, settings) -> np.ndarray:
        """EV of the played ``settings`` per hand (``-1`` for an invalid action: EV -1)."""
        s = np.asarray(settings, dtype=np.int64)
        if s.shape != (self.hands,):
            raise ValueError(f"settings has shape {s.shape}: expected ({self.hands},), one per hand")
        if s.max(initial=-1) >= self.ev.shape[1] or s.min(initial=0) < -1:
            raise ValueError(f"settings must lie in -1..{self.ev.shape[1] - 1}, got {s.min()}..{s.max()}")
        return np.where(s >= 0, self.ev[np.arange(self.hands), np.maximum(s, 0)], -1.0)

    def regrets(self, settings) -> np.ndarray:
        """EV of the best setting minus that of the played one, per hand (>= 0)."""
        return self.best - self.played_ev(settings)

    def optimal(self, settings) -> np.ndarray:
        """Whether each played setting ties the best EV exactly."""
        return self.regrets(settings) <= 0.0

    def best_settings(self, prefer=None) -> np.ndarray:
        """An optimal setting per hand: ``prefer[i]`` (e.g. the house way) when it is optimal,
        else the lowest optimal index (the tie rule of the exact solver)."""
        top = self.ev == self.best[:, None]
        first = top.argmax(axis=1)
        if prefer is None:
            return first
        prefer = np.asarray(prefer, dtype=np.int64)
        return np.where(top[np.arange(self.hands), prefer], prefer, first)


def house_way_rules(game: Game, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The house way's setting and rule id of each sorted hand (``game.style.rule_names[id]``)."""
    hands = np.ascontiguousarray(cards, dtype=np.int64)
    settings = np.empty(hands.shape[0], dtype=np.int64)
    rules = np.empty(hands.shape[0], dtype=np.int64)
    house_way_batch_with_rule(game.style_id, hands, game.rank_table, game.to_two, settings, rules)
    return settings, rules


class _Dealer:
    """The hands of a sample, dealt by the environment (the same cards every policy sees)."""

    def __init__(self, env_id: str, env_kwargs: dict):
        from splitpoker.agents.exact.eval_set import game_of_env, make_eval_env

        self.env = make_eval_env(env_id, env_kwargs)
        self.game = game_of_env(self.env)

    def hands(self, seeds) -> np.ndarray:
        out = np.empty((len(seeds), 7), dtype=np.int64)
        for i, s in enumerate(seeds):
            self.env.reset(seed=s)
            out[i] = np.sort(np.asarray(self.env.unwrapped.player, dtype=np.int64))
        return out

    def close(self):
        self.env.close()


def _label_each(cards: np.ndarray, value: Callable[[np.ndarray], np.ndarray], n_settings: int,
                progress: Callable[[int], None] | None) -> np.ndarray:
    ev = np.empty((cards.shape[0], n_settings), dtype=np.float64)
    for i, hand in enumerate(cards):
        ev[i] = value(hand)
        if progress is not None:
            progress(1)
    return ev


def load_labels(labeller: str, env_id: str, env_kwargs: dict, hands: int, seed: int, *, solved: tuple = (),
                max_pool_card: int = FULL_POOL, progress=None, log=None) -> HandLabels:
    """The labels of hands ``0 .. hands-1`` of the sample ``seed`` of ``env_id`` (see the module
    docstring for the labellers). ``progress(n)`` is told of every hand labelled."""
    if labeller not in LABELLERS:
        raise ValueError(f"labeller {labeller!r}: expected one of {LABELLERS}")
    if (labeller == "small-pool") != (max_pool_card != FULL_POOL):
        raise ValueError(f"labeller {labeller!r} with max_pool_card={max_pool_card}: the small-pool labeller "
                         f"and only it takes a dealer pool below {FULL_POOL}")
    seeds = hand_seeds(seed, hands)
    if labeller == "exact":
        from splitpoker.agents.exact.eval_set import load_evalset

        prefix = cached_prefix(env_id, env_kwargs, hands, seed, log=log)
        if prefix is not None:
            return prefix
        es = load_evalset(env_id, env_kwargs, hands, seed, solved=solved, progress=progress, log=log)
        return HandLabels("exact", True, env_id, int(seed), es.seeds, es.cards, es.ev, es.sha256)
    dealer = _Dealer(env_id, env_kwargs)
    try:
        game = dealer.game
        cards = dealer.hands(seeds)
    finally:
        dealer.close()
    if labeller == "table":
        from splitpoker.agents.policies.strategy_table import StrategyTable

        table = StrategyTable(game, log=log)
        ev = _label_each(cards, lambda h: table.evaluate(h).ev, game.n_settings, progress)
    else:
        from splitpoker.envs.solver.sample import make_solver

        solver = make_solver(game, max_pool_card)
        pool = np.arange(max_pool_card)
        ev = _label_each(cards, lambda h: solver.solve(h, pool=np.setdiff1d(pool, h)).ev, game.n_settings, progress)
    return HandLabels(labeller, False, env_id, int(seed), tuple(seeds), cards, ev)


def cached_prefix(env_id: str, env_kwargs: dict, hands: int, seed: int, *, log=None) -> HandLabels | None:
    """The exact labels of hands ``0 .. hands-1`` read from a cached evaluation set of the same
    environment, rules and seed with more hands, when one exists and no set of exactly ``hands``
    is cached (None otherwise). Valid because the reset seeds of a sample are a prefix of those
    of any larger sample of the same seed (:func:`hand_seeds`, checked here for the two sizes);
    the entry is checksum-verified as the evaluation-set cache verifies it."""
    import json

    from splitpoker.agents.exact.eval_set import evalset_key, game_of_env, make_eval_env
    from splitpoker.envs.rules.cache import CacheError, cache_dir, entry_paths, load

    env = make_eval_env(env_id, env_kwargs)
    try:
        game = game_of_env(env)
    finally:
        env.close()
    want = json.loads(json.dumps(evalset_key(env_id, game, hands, seed), default=str))
    name = f"rleval-{game.game}-{game.style.value}"
    if entry_paths(name, want)[0].exists():
        return None
    found = []
    for meta_path in cache_dir().glob(f"{name}-*.json"):
        try:
            key = json.loads(meta_path.read_text()).get("key") or {}
        except (OSError, json.JSONDecodeError):
            continue
        more = key.get("hands")
        if isinstance(more, int) and more > hands and json.loads(json.dumps({**key, "hands": hands}, default=str)) == want:
            found.append((more, key))
    for more, key in sorted(found, key=lambda f: f[0]):
        seeds = hand_seeds(seed, hands)
        if hand_seeds(seed, more)[:hands] != seeds:
            continue
        try:
            arr = load(name, key)
        except CacheError:
            continue
        meta = json.loads(entry_paths(name, key)[1].read_text())
        if log:
            log(f"labels: the first {hands:,} hands of the cached {more:,}-hand evaluation set "
                f"({entry_paths(name, key)[0]})")
        return HandLabels("exact", True, env_id, int(seed), tuple(seeds), arr[:hands, :7].astype(np.int64),
                          np.ascontiguousarray(arr[:hands, 7:]), f"{meta['sha256']}[:{hands}]")
    return None


def share_ci(flags: np.ndarray) -> tuple[float, float, float]:
    """Share of true ``flags`` and its 95% Wilson interval ``(share, low, high)``."""
    from splitpoker.agents.evaluation.evaluate import Z95

    x = np.asarray(flags, dtype=bool)
    n = x.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    p = float(x.mean())
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return p, float(max(0.0, centre - half)), float(min(1.0, centre + half))


__all__ = ["FULL_POOL", "LABELLERS", "HandLabels", "house_way_rules", "load_labels", "mean_ci", "share_ci"]
