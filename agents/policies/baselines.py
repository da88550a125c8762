"""Baseline policies with one interface: ``act(obs, mask) -> action`` (and SB3-style ``predict``).

Every policy is built for one environment's action layout (``from_env``): bet actions first
(AsiaPoker-v0 / PaiGowPoker-v0), then the settings, then the optional house-way action. The card
policies read the seven cards from the observation (:func:`splitpoker.envs.rules.play.observation.cards_from_observation`).

Betting, for the baselines that do not learn it: ``house-way`` and ``mc-best`` bet the table
minimum with no bonus — every bonus in the seeds has a negative expectation (docs/rules.md), so
that is the bet that loses least; ``random`` picks any legal action, bets included.
"""

from __future__ import annotations

import numpy as np

from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.play.observation import PHASE, cards_from_observation


class Policy:
    name = "policy"

    def __init__(self, *, setting_offset: int, n_settings: int, n_actions: int, bet_table: list, game: Game,
                 solver=None):
        self.setting_offset = setting_offset
        self.n_settings = n_settings
        self.n_actions = n_actions
        self.bet_table = bet_table
        self.game = game
        self._solver = solver

    @classmethod
    def from_env(cls, env, **kwargs):
        """A policy for ``env``'s action layout, playing the env's own :class:`Game`
        (``env.unwrapped.game``: house way, rules options, pay table)."""
        u = env.unwrapped
        game = getattr(u, "game", None)
        if not isinstance(game, Game):
            raise ValueError(f"{type(u).__name__} has no game attribute holding an splitpoker.envs.rules.game.Game: expected a "
                             f"splitpoker one-seat or session env")
        return cls(setting_offset=u.setting_offset, n_settings=u.n_settings, n_actions=int(u.action_space.n),
                   bet_table=list(u.bet_table), game=game, **kwargs)

    @property
    def solver(self):
        """The exact solver of :attr:`game` (:mod:`splitpoker.envs.solver.exact`), built on first use: it
        needs the 617 MB dealer table (built and cached on first use, about a minute)."""
        if self._solver is None:
            from splitpoker.envs.solver.exact import ExactSolver

            self._solver = ExactSolver(self.game)
        return self._solver

    # -- interface ------------------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if obs[PHASE][0] > 0.5:
            return self.bet(obs, mask)
        return self.setting_offset + self.choose_setting(cards_from_observation(obs), mask[self.setting_offset:self.setting_offset + self.n_settings])

    def predict(self, obs, state=None, episode_start=None, deterministic=True, action_masks=None):
        """SB3-style: batched or single observation; returns (actions, None)."""
        obs = np.asarray(obs)
        if obs.ndim == 1:
            return np.int64(self.act(obs, action_masks)), None
        masks = action_masks if action_masks is not None else [None] * len(obs)
        return np.array([self.act(o, m) for o, m in zip(obs, masks, strict=True)], dtype=np.int64), None

    def bet(self, obs, mask) -> int:
        """Table minimum, no bonus (the first bet action)."""
        return 0

    def choose_setting(self, hand: np.ndarray, legal: np.ndarray) -> int:
        raise NotImplementedError


class RandomPolicy(Policy):
    """Uniformly random among the legal actions (bets included)."""

    name = "random"

    def __init__(self, *, seed: int = 0, **kw):
        super().__init__(**kw)
        self.rng = np.random.default_rng(seed)

    def act(self, obs, mask):
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the episode is over")
        return int(legal[self.rng.integers(legal.size)])


class HouseWayPolicy(Policy):
    """The dealer's own rules for the player's cards (seed 000's "Play the House Way")."""

    name = "house-way"

    def choose_setting(self, hand, legal):
        return self.game.house_way(hand).setting


class MonteCarloPolicy(Policy):
    """The setting with the best Monte Carlo EV over ``samples`` dealer hands (common random
    numbers; ties go to the lowest setting index). Fouled settings are never chosen."""

    name = "mc-best"

    def __init__(self, *, samples: int = 500, seed: int = 0, **kw):
        super().__init__(**kw)
        self.samples = samples
        self.seed = seed
        self._calls = 0

    def choose_setting(self, hand, legal):
        self._calls += 1
        mean, _ = self.game.monte_carlo(hand, self.samples, seed=self.seed * 1_000_003 + self._calls)
        mean = np.where(legal, mean, -np.inf)
        return int(np.argmax(mean))


class OptimalPolicy(Policy):
    """The exactly optimal setting against the house-way dealer (:mod:`splitpoker.envs.solver.exact`): the highest
    exact EV over all 53,524,680 dealer hands. Ties (equal exact counts) go to the house-way
    setting when it is among the optimal ones, else to the lowest setting index. Needs the
    dealer table (built and cached on first use, about a minute).

    ``store``: a solved-class folder (``scripts/solve_all.py``) or a loaded
    :class:`splitpoker.agents.exact.solved_store.SolvedStore`: each hand is looked up there first and solved only
    when its class is missing (the same choice either way; a store for other rules is refused)."""

    name = "optimal"

    def __init__(self, *, store=None, **kw):
        """``store``: a solved-class store (:class:`splitpoker.agents.exact.solved_store.SolvedStore` or its
        folder) looked up before solving; classes it lacks are solved."""
        super().__init__(**kw)
        if store is not None:
            self.attach_store(store)

    def attach_store(self, store):
        """Look hands up in ``store`` (a :class:`splitpoker.agents.exact.solved_store.SolvedStore` or its folder;
        one for other rules is refused) before solving them; returns the
        :class:`splitpoker.agents.exact.solved_store.StoreSolver` (its ``hits``/``misses`` count the lookups)."""
        from splitpoker.agents.exact.solved_store import SolvedStore, StoreSolver

        store = store if isinstance(store, SolvedStore) else SolvedStore(store, self.game)
        self._solver = StoreSolver(store, self._solver)
        return self._solver

    def choose_setting(self, hand, legal):
        result = self.solver.solve(hand)
        return result.best(prefer=self.game.house_way(hand).setting)


class StrategyTablePolicy(Policy):
    """The non-fouled setting with the highest strategy-table EV (:mod:`splitpoker.agents.policies.strategy_table`):
    each setting valued exactly by its sub-hand values against all 154,143,080 dealer hands,
    ignoring card removal. Ties go to the house way when it is among the best, else to the lowest
    setting index. ``exact_margin > 0``: when the best two table EVs differ by less than it, solve
    the hand exactly instead (card removal included; 0.1-0.2 s per such hand on a free core)."""

    name = "table"

    def __init__(self, *, table=None, exact_margin: float = 0.0, **kw):
        super().__init__(**kw)
        if isinstance(exact_margin, bool) or not isinstance(exact_margin, (int, float)) or not exact_margin >= 0:
            raise ValueError(f"exact_margin={exact_margin!r}: expected a number >= 0 (0 = never solve exactly)")
        self._table = table
        self.exact_margin = float(exact_margin)
        self.n_exact = 0

    @property
    def table(self):
        if self._table is None:
            from splitpoker.agents.policies.strategy_table import StrategyTable

            self._table = StrategyTable(self.game)
        return self._table

    def choose_setting(self, hand, legal):
        from splitpoker.agents.policies.strategy_table import best_setting

        r = self.table.evaluate(hand)
        house = self.game.house_way(hand).setting
        s = best_setting(r, house, legal)
        if self.exact_margin > 0:
            ev = np.where(~r.fouled & np.asarray(legal, dtype=bool), r.ev, -np.inf)
            top2 = np.sort(ev)[-2:]
            if top2.size == 2 and top2[1] - top2[0] < self.exact_margin:
                self.n_exact += 1
                s = best_setting(self.solver.solve(hand), house, legal)
        return s


class RemovalTablePolicy(Policy):
    """The strategy table with card removal (:mod:`splitpoker.agents.policies.card_removal`): each
    setting valued by its table EV plus the exact effect of removing each of the player's seven
    cards from the dealer's deck (first-order effects of removal); plays the non-fouled setting of
    highest value. Ties go to the house way when it is among the best, else to the lowest setting
    index. Needs the table's 53 per-card arrays (built and cached on first use: about a minute
    of the solver's histogram kernel per game; 146 MB for Pai Gow, 690 MB for Asia)."""

    name = "table-eor"

    def __init__(self, *, table=None, **kw):
        super().__init__(**kw)
        self._table = table

    @property
    def table(self):
        if self._table is None:
            from splitpoker.agents.policies.card_removal import RemovalTable

            self._table = RemovalTable(self.game)
        return self._table

    def setting_values(self, hand) -> np.ndarray:
        """The values ``V`` the policy ranks the settings of ``hand`` by (fouled: -1)."""
        return self.table.values(hand)

    def choose_setting(self, hand, legal):
        return self.table.best(hand, legal)


class SB3Policy(Policy):
    """A trained stable-baselines3 / sb3-contrib model behind the same interface."""

    name = "model"

    def __init__(self, model, *, deterministic: bool = True, name: str | None = None, **kw):
        super().__init__(**kw)
        self.model = model
        self.deterministic = deterministic
        self.uses_masks = type(model).__name__.startswith("Maskable")
        if name:
            self.name = name

    def act(self, obs, mask):
        if self.uses_masks:
            a, _ = self.model.predict(obs, deterministic=self.deterministic, action_masks=mask)
        else:
            a, _ = self.model.predict(obs, deterministic=self.deterministic)
        return int(a)


BASELINES = {"random": RandomPolicy, "house-way": HouseWayPolicy, "mc-best": MonteCarloPolicy, "optimal": OptimalPolicy,
             "table": StrategyTablePolicy, "table-eor": RemovalTablePolicy}


def make_baseline(name: str, env, **kwargs) -> Policy:
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ValueError(f"unknown baseline policy {name!r}: expected one of {sorted(BASELINES)} or a model path") from None
    return cls.from_env(env, **kwargs)
