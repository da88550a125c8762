"""The outcome distribution of one round per unit wagered, for a hand-setting policy: the input of
the bankroll-session dynamic programme (:mod:`splitpoker.agents.sessions.dp`).

A round's net result for a main wager ``m`` and a bonus wager ``k`` is::

    m * main_results[i]  +  (min(k * odds[j], max_payout) if line j pays else -k)

where ``i`` is the main outcome (Asia: win +1 / loss -1, no push — copies go to the dealer;
Pai Gow: win ``1 - commission`` / push 0 / loss -1) and ``j`` the bonus line the player's seven
cards make. Main and bonus are *not* independent (hands that pay a bonus are strong hands that
win the main bet more often), so the distribution is the joint table ``prob[i, j]``.

How each part is obtained (docs/sessions.md):

* **bonus line marginal P(j)**: exact, from the exhaustive seven-card counts
  (:func:`splitpoker.envs.rules.bonus.features.cached_feature_histogram`, all 154,143,080 hands);
* **main outcome given the line, P(i | j), house way against house way**: a large simulation
  (``rounds`` deals, default 20 million, counter-based and seeded — the same kernel as
  ``scripts/simulate.py`` plus the bonus classification); exactness is out of reach there (the
  exact solver takes ~0.1 s per player hand, the game has 154 million). Lines seen fewer than
  ``min_count`` times in the simulation are pooled (all rare lines share one conditional
  distribution). The main marginal carries the simulation's sampling error: its 95% CI is
  reported (``main_ci95``).
* **exact-optimal setter**: the main outcome of optimal play is exact per hand but known only on
  a sample of hands (``scripts/solve_sample.py``). Its win / push / loss probabilities are the
  house way's plus the *paired* gain of optimal play on the sample (exact optimal minus exact
  house-way probabilities, hand by hand): far tighter than the sample's own mean, since the
  hands' luck cancels. The 95% CI combines the gain's sampling error and the simulation's. The
  joint with the bonus line keeps the house way's conditional shape shifted by the same gain
  (documented approximation; it affects only bets with a bonus).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit, prange

from splitpoker.agents.evaluation.evaluate import Z95
from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.bonus.features import (
    N_FEATURE_CODES,
    cached_feature_histogram,
    features_sorted,
)
from splitpoker.envs.rules.bonus.paytables import PayTable
from splitpoker.envs.rules.cache import load_or_build
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.dealing import MASK63
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.house_ways.batch import house_way_round

DEFAULT_ROUNDS = 20_000_000
#: rounds per numba call of the simulation (about 4 s here): a Ctrl-C waits at most that long
JOINT_CHUNK = 1_000_000
WIN, PUSH, LOSS = 0, 1, 2


@njit(cache=True, parallel=True)
def simulate_joint(style_id, seed, start, n_rounds, rank_table, to_two, cat5, line_of_code, counts):
    """House way against house way over rounds ``start .. start+n_rounds-1`` of run ``seed`` (the
    deal of :func:`splitpoker.envs.rules.house_ways.batch.simulate_rounds`: counter-based, so chunks
    add up to the one-call counts). ``counts[t, i, j + 1]`` += 1 per thread ``t`` for main
    outcome ``i`` (win, push, loss) and the bonus line ``j`` of the player's seven cards (``j =
    -1``: no line pays)."""
    for k in prange(n_rounds):
        r = start + k
        t = numba.get_thread_id()
        cards = np.empty(14, dtype=np.int64)
        # only the sign of the result is used: any commission < 1 gives the same outcome
        x = house_way_round(style_id, seed, r, rank_table, to_two, 0.0, cards)
        i = 0 if x > 0 else (1 if x == 0 else 2)
        line = line_of_code[features_sorted(cards[:7], cat5)]
        counts[t, i, line + 1] += 1


@dataclass(frozen=True)
class RoundDistribution:
    """Joint distribution of the main outcome and the bonus line of one round.

    Attributes:
        game, style, setter: what it describes (``setter``: ``house-way`` or ``optimal``).
        main_results: result per unit of main wager of each main outcome (win, push, loss).
        bonus_odds: odds of each bonus line (pay table order); a hand making no line loses the
            bonus wager.
        max_payout: cap on a bonus win in chips (None: no cap).
        prob: ``float64[3, n_lines + 1]``: P(main outcome i, bonus column j); column 0 = no line
            pays, column j + 1 = line j. Sums to 1.
        main_ci95: half-width of the 95% CI of P(win), P(push), P(loss) (sampling error of the
            simulation or of the solved sample).
        source: how it was obtained (method, rounds or hands, seed, file).
    """

    game: str
    style: str
    setter: str
    main_results: tuple[float, float, float]
    bonus_odds: tuple[float, ...]
    max_payout: float | None
    prob: np.ndarray
    main_ci95: tuple[float, float, float]
    source: dict = field(default_factory=dict)
    edge_ci95: float = 0.0

    @property
    def main(self) -> np.ndarray:
        """P(win), P(push), P(loss) of the main wager."""
        return self.prob.sum(axis=1)

    @property
    def main_edge(self) -> float:
        """Expected main result per unit wagered (the player's edge; negative = subfair)."""
        return float(self.main @ np.asarray(self.main_results))

    @property
    def main_edge_ci95(self) -> float:
        """95% half-width of :attr:`main_edge` (sampling error of the simulation or the sample)."""
        return float(self.edge_ci95)

    def bonus_return(self) -> float:
        """Expected bonus result per unit wagered, ignoring the payout cap."""
        col = self.prob.sum(axis=0)
        return float(col[1:] @ np.asarray(self.bonus_odds) - col[0])

    def shifted(self, delta_win: float) -> RoundDistribution:
        """The same joint with ``delta_win`` of probability moved from loss to win in every
        column in proportion (used to propagate the CI of P(win) through the DP)."""
        p = self.prob.copy()
        col = p.sum(axis=0)
        share = np.divide(col, col.sum())
        move = delta_win * share
        p[WIN] = np.clip(p[WIN] + move, 0.0, None)
        p[LOSS] = np.clip(p[LOSS] - move, 0.0, None)
        p /= p.sum()
        return RoundDistribution(self.game, self.style, self.setter, self.main_results, self.bonus_odds,
                                 self.max_payout, p, self.main_ci95, {**self.source, "shifted_win": delta_win},
                                 self.edge_ci95)

    def to_dict(self) -> dict:
        m = self.main
        return {"game": self.game, "style": self.style, "setter": self.setter,
                "p_win": float(m[WIN]), "p_push": float(m[PUSH]), "p_loss": float(m[LOSS]),
                "main_ci95": list(self.main_ci95), "main_results": list(self.main_results),
                "main_edge": self.main_edge, "main_edge_ci95": self.main_edge_ci95,
                "bonus_return": self.bonus_return(), "source": self.source}


def _main_results(game: Game) -> tuple[float, float, float]:
    """The main wager's (win, push, loss) per unit: a win pays even money less the commission."""
    return (1.0 - game.commission, 0.0, -1.0)


def _line_columns(paytable: PayTable | None) -> tuple[np.ndarray, tuple[float, ...], float | None]:
    if paytable is None:
        return None, (), None
    return paytable.line_of_code.astype(np.int64), tuple(float(ln.odds) for ln in paytable.lines), paytable.max_payout


def outcome_shape(game: Game, paytable: PayTable | None) -> RoundDistribution:
    """The amounts a round can pay in this game with this pay table, with no probabilities (all
    zero): enough to size the session DP's bankroll grid (:func:`splitpoker.agents.sessions.dp.state_count`)
    before the simulation that gives the probabilities."""
    _, odds, cap = _line_columns(paytable)
    return RoundDistribution(game.game, game.style.value, "house-way", _main_results(game), odds, cap,
                             np.zeros((3, len(odds) + 1)), (0.0, 0.0, 0.0))


def simulated_counts(game: Game, paytable: PayTable | None, rounds: int = DEFAULT_ROUNDS, seed: int = 0,
                     log=None, progress=None) -> np.ndarray:
    """``int64[3, n_lines + 1]`` joint counts of house way vs house way over ``rounds`` deals,
    cached in the user cache directory (key: game, style, ranking options, pay table lines,
    rounds, seed, rules sources). Simulated in chunks of :data:`JOINT_CHUNK` rounds
    (``progress(n)`` after each: a tqdm ``update``); the counts do not depend on the chunking."""
    if not is_integer(rounds) or rounds < 1000:
        raise ValueError(f"rounds={rounds!r}: expected an integer of at least 1000")
    loc, odds, _ = _line_columns(paytable)
    if loc is None:
        loc = np.full(N_FEATURE_CODES, -1, dtype=np.int64)
    n_cols = len(odds) + 1
    rules = {k: v for k, v in game.rules.__dict__.items() if k != "commission"}
    key = {"what": "house way vs house way joint main/bonus counts", "format": 1, "game": game.game,
           "style": game.style.value, "rules": rules, "lines": None if paytable is None else paytable.to_dict()["lines"],
           "rounds": int(rounds), "seed": int(seed), "rules_source": RULES_SOURCE_DIGEST}

    def build():
        nt = numba.config.NUMBA_NUM_THREADS
        counts = np.zeros((nt, 3, n_cols), dtype=np.int64)
        # in chunks, so that Ctrl-C (seen between numba calls) stops it within seconds
        done = 0
        while done < rounds:
            n = min(JOINT_CHUNK, int(rounds) - done)
            simulate_joint(game.style_id, int(seed) & MASK63, done, n, game.rank_table, game.to_two,
                           game.bonus_categories, loc, counts)
            done += n
            if progress is not None:
                progress(n)
        return counts.sum(axis=0)

    counts = load_or_build("round-joint", key, build, log=log)
    if int(counts.sum()) != int(rounds):
        raise ValueError(f"joint counts total {int(counts.sum())}, expected {rounds}")
    return np.asarray(counts)


def _exact_line_marginal(paytable: PayTable) -> np.ndarray:
    hist = cached_feature_histogram()
    n = len(paytable.lines)
    col = np.zeros(n + 1)
    for j in range(-1, n):
        col[j + 1] = hist[paytable.line_of_code == j].sum()
    return col / col.sum()


def _conditional(counts: np.ndarray, min_count: int) -> np.ndarray:
    """P(main | column) per column; columns with fewer than ``min_count`` simulated hands share
    the pooled distribution of all such columns (or the marginal if the pool is empty too)."""
    counts = counts.astype(float)
    per_col = counts.sum(axis=0)
    cond = np.zeros_like(counts)
    rare = per_col < min_count
    pooled = counts[:, rare].sum(axis=1)
    if pooled.sum() < min_count:
        pooled = counts.sum(axis=1)
    for j in range(counts.shape[1]):
        cond[:, j] = counts[:, j] / per_col[j] if not rare[j] else pooled / pooled.sum()
    return cond


def house_way_distribution(game: Game, paytable: PayTable | None, rounds: int = DEFAULT_ROUNDS, seed: int = 0,
                           min_count: int = 2000, log=None, progress=None) -> RoundDistribution:
    """The round distribution when the player sets by the dealer's own house way (``progress``:
    see :func:`simulated_counts`)."""
    counts = simulated_counts(game, paytable, rounds, seed, log=log, progress=progress)
    _, odds, cap = _line_columns(paytable)
    if paytable is None:
        prob = counts / counts.sum()
    else:
        prob = _conditional(counts, min_count) * _exact_line_marginal(paytable)[None, :]
    main = counts.sum(axis=1) / counts.sum()
    ci = tuple(float(Z95 * math.sqrt(p * (1 - p) / counts.sum())) for p in main)
    res = np.asarray(_main_results(game))
    edge_ci = float(Z95 * math.sqrt(max(0.0, main @ res**2 - (main @ res) ** 2) / counts.sum()))
    src = {"method": "simulation (main | bonus line) x exact bonus line marginal", "rounds": int(rounds),
           "seed": int(seed), "min_count": int(min_count),
           "simulated_main": [float(x) for x in main]}
    return RoundDistribution(game.game, game.style.value, "house-way", _main_results(game), odds, cap, prob, ci, src,
                             edge_ci)


SAMPLE_COLUMNS = ("game", "style", "max_pool_card", "n_dealer_hands",
                  *(f"{who}_{w}" for who in ("optimal", "house_way") for w in ("wins", "pushes", "losses")))


def read_optimal_sample(game: Game, sample):
    """The columns of a ``scripts/solve_sample.py`` output (a path, or a table) for
    :func:`optimal_distribution`, checked: readable, of ``game``'s game and style, for the real game
    (no ``--max-pool-card``), at least 2 hands. ``ValueError`` otherwise, so that a script can
    refuse a bad sample before its simulation."""
    t = _read_sample(sample)
    styles = set(t["style"])
    if styles != {game.style.value} or set(t["game"]) != {game.game}:
        raise ValueError(f"solve sample is for {sorted(set(t['game']))}/{sorted(styles)}, expected "
                         f"{game.game}/{game.style.value}")
    if set(t["max_pool_card"]) != {53}:
        raise ValueError("solve sample was made with --max-pool-card (not the real game): rerun solve_sample.py without it")
    if len(t["style"]) < 2:
        raise ValueError(f"solve sample has {len(t['style'])} hand(s): expected at least 2 to estimate a CI")
    return t


def optimal_distribution(game: Game, paytable: PayTable | None, sample, hw: RoundDistribution) -> RoundDistribution:
    """The round distribution of the exact-optimal setter from a ``scripts/solve_sample.py``
    output (a path to its .parquet/.csv, or a table with its columns) and the house-way
    distribution ``hw`` of the same game (for the joint with the bonus line)."""
    if hw.setter != "house-way" or hw.game != game.game or hw.style != game.style.value:
        raise ValueError(f"hw must be the house-way distribution of {game.game}/{game.style.value}, got "
                         f"{hw.setter} {hw.game}/{hw.style}")
    t = read_optimal_sample(game, sample)
    n = np.asarray(t["n_dealer_hands"], dtype=float)
    opt = np.stack([np.asarray(t[f"optimal_{w}"], dtype=float) / n for w in ("wins", "pushes", "losses")])
    hwp = np.stack([np.asarray(t[f"house_way_{w}"], dtype=float) / n for w in ("wins", "pushes", "losses")])
    k = opt.shape[1]
    if k < 2:
        raise ValueError(f"solve sample has {k} hand(s): expected at least 2 to estimate a CI")
    # paired estimate: the house way's (large simulation) plus the gain of optimal play measured hand
    # by hand on the sample, far tighter than the sample's own mean of optimal play
    gain = opt - hwp
    delta = gain.mean(axis=1)
    main = hw.main + delta
    ci = tuple(float(math.hypot(Z95 * g.std(ddof=1) / math.sqrt(k), c)) for g, c in zip(gain, hw.main_ci95, strict=True))
    res = np.asarray(_main_results(game))
    edge_gain = res @ gain
    edge_ci = float(math.hypot(Z95 * edge_gain.std(ddof=1) / math.sqrt(k), hw.edge_ci95))
    cond = hw.prob / hw.prob.sum(axis=0, keepdims=True)
    col = hw.prob.sum(axis=0)
    cond = np.clip(cond + delta[:, None], 0.0, None)
    cond /= cond.sum(axis=0, keepdims=True)
    prob = cond * col[None, :]
    rows = prob.sum(axis=1)
    prob *= np.divide(main, rows, out=np.zeros_like(main), where=rows > 0)[:, None]  # main marginal = hw + gain
    prob /= prob.sum()
    src = {"method": "house way (simulation) + paired gain of exact optimal settings on a solved sample; bonus "
                     "joint = house way's conditional shifted by the gain",
           "hands": int(k), "sample_seed": sorted({int(s) for s in t["seed"]}),
           "paired_gain": [float(x) for x in delta], "edge_gain": float(edge_gain.mean())}
    _, odds, cap = _line_columns(paytable)
    return RoundDistribution(game.game, game.style.value, "optimal", _main_results(game), odds, cap, prob, ci, src,
                             edge_ci)


def _read_sample(sample) -> dict:
    if isinstance(sample, dict):
        return sample
    from pathlib import Path

    path = Path(sample)
    if not path.exists():
        raise ValueError(f"solve sample {str(path)!r} does not exist: make it with scripts/solve_sample.py")
    if path.suffix not in (".csv", ".parquet"):
        raise ValueError(f"solve sample {str(path)!r}: expected a .parquet or .csv from scripts/solve_sample.py")
    try:
        if path.suffix == ".csv":
            import pyarrow.csv as pcsv

            table = pcsv.read_csv(path)
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise ValueError(f"solve sample {str(path)!r} is unreadable (truncated or not from scripts/solve_sample.py): "
                         f"{e}") from None
    missing = [c for c in SAMPLE_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"solve sample {str(path)!r} lacks the column(s) {missing}: not a scripts/solve_sample.py "
                         f"output")
    return table.to_pydict()
