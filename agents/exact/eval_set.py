"""A fixed evaluation set whose every setting's exact EV is known, so that exact regret is a lookup.

The set is the first ``hands`` deals of :func:`splitpoker.agents.evaluation.evaluate.hand_seeds` (``seed``) in one
environment: hand ``i`` holds the player's cards of ``env.reset(seed=seeds[i])``. For each hand the
exact solver (:mod:`splitpoker.envs.solver.exact`) gives the exact EV of all settings against the house-way dealer
(all 53,524,680 dealer hands; fouled settings −1), once; the array is cached with its checksum
(:mod:`splitpoker.envs.rules.cache`) under a key holding the env id, game, house-way style, rules (commission
included), ``hands``, ``seed`` and the rules-source digest. A corrupt or stale entry is detected by
the checksum or key and rebuilt, never used.

A build is not lost when it stops: every :data:`CHECKPOINT_SECONDS`, and once more when it is
stopped (Ctrl-C, SIGTERM, an error), the hands solved so far are cached as a *checkpoint* (the key
of the set of that many hands plus ``checkpoint_of``). A build starts from the largest cached set
of the same environment, rules and seed with fewer hands, or checkpoint, and solves only the other
hands (the reset seeds of a sample are a prefix of any larger sample's); the array, and so its
hash, is the one an uninterrupted build writes. Once the whole set is cached, the checkpoints it
holds are removed.

Cached layout, ``float64[hands, 7 + n_settings]``::

    columns 0..6     the player's seven sorted cards (card integers, exact in float64)
    columns 7..      EV of setting 0, 1, ... per unit wagered (exact counts / N; fouled = -1.0)

Scoring a policy: the setting it plays on hand ``i`` (``-1`` for a penalised invalid action,
counted as EV −1, what a foul loses) → regret ``max(ev[i]) - ev[i, setting]``. The evaluation set's
*hash* is the SHA-256 of the cached array file (recorded in every benchmark run directory).

A benchmark grid draws two sets per environment from two seeds: a *validation* set (tuning,
selecting rows, early stopping) and a *test* set (the published table only);
:func:`check_disjoint` refuses two sets that share a hand.

**Card-removal sets** (:func:`load_card_removal_set`): the hands on which the strategy table
(:mod:`splitpoker.agents.policies.strategy_table`, exact EVs that ignore which cards the player
holds) plays a setting whose exact EV is below the optimum's. Candidates are the deals of the
same seed stream in order; a candidate is solved only when the table's two best settings are
within ``margin`` of each other by table EV (card removal moves a setting's EV by far less than
the default 0.03: docs/rl_benchmark/rl_benchmark.md measures how many differing hands a margin misses), and
kept when the table's setting is strictly worse than the optimum. Cached layout
``float64[hands, 8 + n_settings]``: the seven cards, the hand's reset seed, the setting EVs.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from splitpoker.agents.evaluation.evaluate import hand_seeds, mean_ci
from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.cache import entry_paths, load_or_build, save
from splitpoker.envs.rules.game import Game

EVALSET_FORMAT = 1
EVAL_ENV_OVERRIDES = {"dealer_samples": 1, "invalid_action": "penalize"}  # the real game; never raise


@dataclass(frozen=True)
class EvalSet:
    """Cards and exact setting EVs of a fixed sample of hands.

    Attributes:
        env_id: the environment that deals the hands.
        game, style: ``asia``/``paigow`` and the house-way style of the dealer.
        seed: the seed of :func:`hand_seeds`; ``seeds`` the per-hand reset seeds.
        cards: ``int64[hands, 7]`` the player's sorted cards.
        ev: ``float64[hands, n_settings]`` exact EV of every setting.
        sha256: checksum of the cached array (the set's identity).
    """

    env_id: str
    game: str
    style: str
    seed: int
    seeds: tuple[int, ...]
    cards: np.ndarray
    ev: np.ndarray
    sha256: str
    kind: str = "setting"  # or "card_removal": hands where the strategy table is not optimal
    candidates: int = 0  # card removal: deals scanned to find the hands

    @property
    def hands(self) -> int:
        return int(self.cards.shape[0])

    @property
    def best(self) -> np.ndarray:
        return self.ev.max(axis=1)

    def regrets(self, settings: np.ndarray) -> np.ndarray:
        """Per-hand exact regret of the played ``settings`` (``-1``: an invalid action, EV −1)."""
        settings = np.asarray(settings, dtype=np.int64)
        if settings.shape != (self.hands,):
            raise ValueError(f"settings has shape {settings.shape}: expected ({self.hands},), one per evaluation hand")
        if settings.max(initial=-1) >= self.ev.shape[1] or settings.min(initial=0) < -1:
            raise ValueError(f"settings must lie in -1..{self.ev.shape[1] - 1}, got {settings.min()}..{settings.max()}")
        played = np.where(settings >= 0, self.ev[np.arange(self.hands), np.maximum(settings, 0)], -1.0)
        return self.best - played

    def score(self, settings: np.ndarray, cards: np.ndarray | None = None) -> dict:
        """Mean exact regret with its 95% interval (over hands), the share of hands played
        optimally and the mean exact EV. ``cards`` (if given) must be the set's cards: the check
        that the policy saw the same deals."""
        if cards is not None and not np.array_equal(np.asarray(cards)[: self.hands], self.cards):
            bad = int(np.flatnonzero((np.asarray(cards)[: self.hands] != self.cards).any(axis=1))[0])
            raise ValueError(f"evaluation hand {bad} was dealt different cards than the evaluation set: not paired")
        settings = np.asarray(settings, dtype=np.int64)[: self.hands]
        r = self.regrets(settings)
        m, ci = mean_ci(r)
        ev, evci = mean_ci(self.best - r)
        return {"hands": self.hands, "mean_regret": m, "regret_ci95": ci, "optimal_rate": float((r <= 0.0).mean()),
                "mean_exact_ev": ev, "exact_ev_ci95": evci}


def evalset_key(env_id: str, game: Game, hands: int, seed: int) -> dict:
    return {"what": "rl evaluation set", "format": EVALSET_FORMAT, "env_id": env_id, "game": game.game,
            "style": game.style.value, "rules": dataclasses.asdict(game.rules), "hands": int(hands),
            "seed": int(seed), "rules_source": RULES_SOURCE_DIGEST}


def make_eval_env(env_id: str, env_kwargs: dict):
    """The environment a benchmark evaluates in: the training kwargs with one dealer hand per hand
    (the real game) and invalid actions penalised (an agent that cannot mask must not crash it)."""
    import gymnasium as gym

    import splitpoker  # noqa: F401

    return gym.make(env_id, **{**dict(env_kwargs), **EVAL_ENV_OVERRIDES})


def game_of_env(env) -> Game:
    """The :class:`Game` an environment plays (``env.unwrapped.game``)."""
    return env.unwrapped.game


def _remove(name: str, key: dict) -> None:
    for path in entry_paths(name, key):
        path.unlink(missing_ok=True)


def build_evalset_array(env, game: Game, seeds: list[int], solver=None, progress=None, *,
                        head: np.ndarray | None = None, checkpoint=None) -> np.ndarray:
    """Deal each hand through ``env.reset(seed=...)`` and solve it exactly (no cache). ``head``: the
    rows of the first hands, already solved (a smaller cached set of the same seed); only the rest
    are solved. ``checkpoint(rows)`` is handed the rows solved so far every
    :data:`CHECKPOINT_SECONDS` and once more if the build stops (Ctrl-C, SIGTERM, an error), so a
    long build that is stopped keeps its hands (see :func:`load_evalset`)."""
    from splitpoker.envs.solver.exact import ExactSolver

    out = np.empty((len(seeds), 7 + game.n_settings), dtype=np.float64)
    done = 0
    if head is not None:
        done = head.shape[0]
        out[:done] = head
        if progress is not None:
            progress(done)
    saved, last = done, time.monotonic()
    try:
        solver = solver or ExactSolver(game)
        for i in range(done, len(seeds)):
            env.reset(seed=seeds[i])
            cards = np.sort(np.asarray(env.unwrapped.player, dtype=np.int64))
            out[i, :7] = cards
            out[i, 7:] = solver.solve(cards).ev
            done = i + 1
            if progress is not None:
                progress(1)
            if (checkpoint is not None and 2 <= done < len(seeds) and done > saved
                    and time.monotonic() - last >= CHECKPOINT_SECONDS):
                checkpoint(out[:done])
                saved, last = done, time.monotonic()
    except BaseException:
        if checkpoint is not None and done > saved and done >= 2:
            checkpoint(out[:done])
        raise
    return out


CHECKPOINT_SECONDS = 60.0  # a build keeps its solved hands at least this often (a smaller cached set)


def _same_set(key: dict, want: dict) -> bool:
    """Whether cache key ``key`` is of the same environment, rules and seed as ``want`` (any size,
    a checkpoint or not)."""
    import json

    def norm(k: dict) -> dict:
        return json.loads(json.dumps({**k, "hands": 0, "checkpoint_of": 0}, default=str))

    return norm(key) == norm(want)


def _entries_like(name: str, want: dict) -> list[dict]:
    """The keys of the cached ``name`` entries of the same set as ``want``, of any size."""
    import json

    from splitpoker.envs.rules.cache import cache_dir

    keys = []
    for meta_path in cache_dir().glob(f"{name}-*.json"):
        try:
            key = json.loads(meta_path.read_text()).get("key") or {}
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(key, dict) and isinstance(key.get("hands"), int) and _same_set(key, want):
            keys.append(key)
    return keys


def _checkpoints(name: str, want: dict) -> list[dict]:
    """The checkpoints (parts kept by stopped builds) of the same set as ``want``."""
    return [k for k in _entries_like(name, want) if "checkpoint_of" in k]


def cached_head(env_id: str, game: Game, hands: int, seed: int, *, log=None) -> np.ndarray | None:
    """The rows of the largest cached evaluation set of the same environment, rules and seed with
    fewer than ``hands`` hands, or of a checkpoint of at most ``hands`` (checksum-verified; None if
    there is none): they are the first rows of the set of ``hands``, since the reset seeds of a
    sample are a prefix of those of any larger sample of the same seed (:func:`hand_seeds`, checked
    here for the two sizes)."""
    from splitpoker.envs.rules.cache import CacheError, load

    want = evalset_key(env_id, game, hands, seed)
    name = f"rleval-{game.game}-{game.style.value}"
    found = [k for k in _entries_like(name, want)
             if 2 <= k["hands"] < hands or ("checkpoint_of" in k and 2 <= k["hands"] <= hands)]
    seeds = hand_seeds(seed, hands)
    for key in sorted(found, key=lambda k: -k["hands"]):
        fewer = key["hands"]
        if hand_seeds(seed, fewer) != seeds[:fewer]:
            continue
        try:
            arr = load(name, key)
        except CacheError:
            continue
        if log:
            log(f"{name}: the first {fewer:,} of {hands:,} hands are cached ({entry_paths(name, key)[0]}); "
                f"solving the other {hands - fewer:,}")
        return np.asarray(arr)
    return None


def load_evalset(env_id: str, env_kwargs: dict, hands: int, seed: int, *, solver=None, progress=None,
                 log=None, solved: tuple = ()) -> EvalSet:
    """The cached evaluation set (built on first use: ~0.1-0.2 s per hand plus the dealer table).
    ``solved``: solved-store folders (``scripts/solve_all.py``); hands whose class is in the one
    made for this game are looked up instead of solved (the values are the same, exactly)."""
    import json

    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 2:
        raise ValueError(f"hands={hands!r}: expected an integer >= 2 (a confidence interval needs two hands)")
    env = make_eval_env(env_id, env_kwargs)
    try:
        game = game_of_env(env)
        seeds = hand_seeds(seed, hands)
        key = evalset_key(env_id, game, hands, seed)
        if solver is None and solved:
            from splitpoker.agents.exact.solved_store import solver_for

            solver = solver_for(game, solved)
        name = f"rleval-{game.game}-{game.style.value}"
        kept: list[dict] = []  # the checkpoints this build saved: smaller sets, superseded by the whole

        def checkpoint(rows: np.ndarray) -> None:
            part = {**evalset_key(env_id, game, rows.shape[0], seed), "checkpoint_of": hands}
            try:
                save(name, part, rows)
            except OSError as e:  # a full or read-only disk: the build goes on, unsaved
                if log:
                    log(f"{name}: could not keep the {rows.shape[0]:,} hands solved so far ({e})")
                return
            for old in kept:
                _remove(name, old)
            kept[:] = [part]
            if log:
                log(f"{name}: {rows.shape[0]:,} of {hands:,} hands solved and kept ({entry_paths(name, part)[0]}); "
                    f"a rerun solves only the rest")

        def build() -> np.ndarray:
            head = cached_head(env_id, game, hands, seed, log=log)
            return build_evalset_array(env, game, seeds, solver, progress, head=head, checkpoint=checkpoint)

        arr = load_or_build(name, key, build, log=log)
        if entry_paths(name, key)[0].exists():  # the whole set is saved: the parts it holds are not needed
            for old in kept + [k for k in _checkpoints(name, key) if k["hands"] <= hands]:
                _remove(name, old)
    finally:
        env.close()
    meta = json.loads(entry_paths(name, key)[1].read_text())
    cards = arr[:, :7].astype(np.int64)
    return EvalSet(env_id, game.game, game.style.value, int(seed), tuple(seeds), cards,
                   np.ascontiguousarray(arr[:, 7:]), meta["sha256"])


CARD_REMOVAL_MARGIN = 0.03
MAX_CANDIDATES_PER_HAND = 400  # a stream that yields fewer differing hands than 1 in 400 is refused


def build_card_removal_array(env, game: Game, hands: int, seed: int, margin: float, solver=None, table=None,
                             progress=None) -> np.ndarray:
    """Scan the deals of ``hand_seeds(seed, ...)`` in order; keep the first ``hands`` on which the
    strategy table's setting is exactly worse than the optimum (no cache). Row layout: cards,
    reset seed, setting EVs; the scan count is stored in the last row's padding (see caller)."""
    from splitpoker.agents.policies.strategy_table import StrategyTable, best_setting
    from splitpoker.envs.solver.exact import ExactSolver

    solver = solver or ExactSolver(game)
    table = table or StrategyTable(game)
    limit = hands * MAX_CANDIDATES_PER_HAND
    stream = hand_seeds(seed, limit)
    rows, scanned = [], 0
    for s in stream:
        if len(rows) == hands:
            break
        scanned += 1
        env.reset(seed=s)
        cards = np.sort(np.asarray(env.unwrapped.player, dtype=np.int64))
        r = table.evaluate(cards)
        ev = np.where(r.fouled, -np.inf, r.ev)
        top2 = np.sort(ev)[-2:]
        if top2[1] - top2[0] >= margin:
            continue
        choice = best_setting(r, game.house_way(cards).setting)
        exact = solver.solve(cards)
        if choice in set(exact.optimal_settings().tolist()):
            continue
        rows.append(np.concatenate([cards.astype(np.float64), [float(s)], exact.ev]))
        if progress is not None:
            progress(1)
    if len(rows) < hands:
        raise ValueError(f"only {len(rows)} card-removal hands in the first {limit:,} deals of seed {seed}: "
                         f"raise the margin ({margin}) or ask for fewer hands")
    out = np.stack(rows)
    return np.vstack([out, np.full((1, out.shape[1]), float(scanned))])  # last row: the scan count


def load_card_removal_set(env_id: str, env_kwargs: dict, hands: int, seed: int, *, margin: float = CARD_REMOVAL_MARGIN,
                          solver=None, progress=None, log=None) -> EvalSet:
    """The cached card-removal set of ``hands`` hands (built on first use; each solved candidate
    costs one exact solve)."""
    import json

    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 2:
        raise ValueError(f"hands={hands!r}: expected an integer >= 2 (a confidence interval needs two hands)")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin > 0:
        raise ValueError(f"margin={margin!r}: expected a table-EV margin > 0")
    env = make_eval_env(env_id, env_kwargs)
    try:
        game = game_of_env(env)
        key = {**evalset_key(env_id, game, hands, seed), "what": "rl card-removal set", "margin": float(margin)}
        name = f"rlcr-{game.game}-{game.style.value}"
        arr = load_or_build(name, key, lambda: build_card_removal_array(env, game, hands, seed, margin, solver,
                                                                        progress=progress), log=log)
    finally:
        env.close()
    meta = json.loads(entry_paths(name, key)[1].read_text())
    scanned, arr = int(arr[-1, 0]), arr[:-1]
    return EvalSet(env_id, game.game, game.style.value, int(seed), tuple(int(x) for x in arr[:, 7]),
                   arr[:, :7].astype(np.int64), np.ascontiguousarray(arr[:, 8:]), meta["sha256"], "card_removal",
                   scanned)


def check_disjoint(a: EvalSet, b: EvalSet, what: str = "validation and test sets") -> None:
    """Refuse two evaluation sets that share a hand (the same seven cards)."""
    if a.seed == b.seed:
        raise ValueError(f"the {what} share seed {a.seed}: expected two different seeds")
    shared = {tuple(c) for c in a.cards.tolist()} & {tuple(c) for c in b.cards.tolist()}
    if shared:
        raise ValueError(f"the {what} (seeds {a.seed}, {b.seed}) share {len(shared)} hand(s), e.g. {sorted(shared)[0]}: "
                         "expected disjoint sets")
