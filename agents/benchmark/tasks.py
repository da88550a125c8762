"""The benchmark's tasks: what a trained policy is scored on, each with an exact regret and a
normalised score (0 = the uniformly random legal policy, 1 = the exact optimum), so that tasks
aggregate (IQM, performance profiles, probability of improvement: :mod:`splitpoker.agents.benchmark.stats`).

==============  ==========================  =====================================================
task            environments                regret per hand (exact)
==============  ==========================  =====================================================
``setting``     ``*PokerSetting-v0``        EV(optimal setting) − EV(setting played), on a fixed
                                            set of hands whose every setting's EV is cached
``card_removal``  ``*PokerSetting-v0``      the same, on hands where the strategy table (exact
                                            EVs that ignore card removal) is *not* optimal; the
                                            row also gives the regret minus the table's
``bets``        ``AsiaPoker-v0``,           the EV lost on the bet and bonus choice plus the
                ``PaiGowPoker-v0``          setting's: ``(a/u)·setting regret + (a/u − 1)(−V*) +
                                            (b/u)(−β_b)``, ante ``a``, bonus ``b``, unit ``u`` (the
                                            table minimum), ``V*`` the value of optimal play per
                                            unit, ``β_b`` the bonus's exact return per unit
``session``     ``*PokerSession-v0``        P(reach target | DP optimum) − P(reach target | the
                                            policy's bets), both exact (:mod:`splitpoker.agents.sessions.dp`)
==============  ==========================  =====================================================

**The bets task's optimum.** The bet is chosen before the cards are seen, so its value is an
expectation: every unit of ante above the minimum earns ``V*`` (negative: a loss), every bonus unit
``β_b`` (negative for every pay table in the seeds, docs/rules.md). The single-round optimum is
therefore the minimum ante, no bonus, and the exact-optimal setting — *if* ``V* < 0``. ``V*`` is the
house way's edge (a 20-million-round simulation, ±0.03 points,
:func:`splitpoker.agents.sessions.round_distribution.house_way_distribution`) plus the exact gain of
the optimal setting over the house way's on the task's own hands (paired: the hands' luck cancels).
Pai Gow (IGW, 5% commission): ``V*`` ≈ −2.2%: the task is defined. Asia against ``asia-000``: the
house way's −5.6% plus a gain of about 6 points leaves the sign unsettled (docs/sessions.md), so
the optimum bet is unknown: :func:`prepare` refuses a set whose estimate of ``V*`` is not negative
(the interval is recorded with the set, ``v_star_ci95``; a tiny set, as in the smoke grid, gives a
wide one).

**Anchors.** The random policy's regret is computed exactly (an expectation over its uniform
choices, not a sampled run): setting tasks average the regret over each hand's legal settings; the
bets task over the bet table too; the session task solves the random betting policy's success
probability as a Markov chain. The optimum scores 0 regret by definition. ``normalized = 1 −
regret / random_regret`` (session: ``(P − P_random) / (P_opt − P_random)``).

A task's data for one split (validation or test) is prepared once in the driver
(:func:`prepare`: evaluation sets are solved and cached) and sent to the workers, where
:func:`make_scorer` builds the scorer that plays a policy on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from splitpoker.agents.benchmark.task_names import (  # noqa: F401  (re-exported: the task names live there)
    BET_IDS,
    SESSION_IDS,
    SETTING_IDS,
    SPLITS,
    TASK_ENVS,
    TASKS,
    check_task,
    natural_task,
    task_label,
)
from splitpoker.agents.evaluation.evaluate import Z95, mean_ci

# ---- task data --------------------------------------------------------------------------------

@dataclass(frozen=True)
class TaskData:
    """Everything a scorer needs for one task and split (picklable: it travels to Ray workers)."""

    task: str
    split: str
    env_id: str
    env_kwargs: dict
    evalset: object = None  # splitpoker.agents.exact.eval_set.EvalSet (hand tasks)
    random_regret: float = math.nan  # the anchor: exact expected regret of the random legal policy
    table_regret: float | None = None  # card removal: the strategy table's mean regret on the set
    bets: dict = field(default_factory=dict)  # bets task: unit, bet table, V*, bonus returns
    session: dict = field(default_factory=dict)  # session task: the DP's model inputs and anchors

    @property
    def identity(self) -> dict:
        """What the published tables name the set by."""
        out = {"task": self.task, "split": self.split, "env_id": self.env_id, "random_regret": self.random_regret}
        if self.evalset is not None:
            es = self.evalset
            out.update({"hands": es.hands, "seed": es.seed, "sha256": es.sha256, "kind": es.kind})
            if es.kind == "card_removal":
                out["candidates_scanned"] = es.candidates
        if self.table_regret is not None:
            out["table_regret"] = self.table_regret
        if self.bets:
            out.update({k: self.bets[k] for k in ("v_star", "v_star_ci95", "v_house_way", "unit")})
        if self.session:
            out.update({k: self.session[k] for k in ("bankroll", "target", "p_optimal", "p_random", "p_bold", "p_flat")})
        return out


def random_setting_regret(evalset) -> float:
    """Exact expected regret of the uniformly random legal (unfouled) setting, over the set."""
    ev = evalset.ev
    legal = ev > -1.0 + 1e-12  # fouled settings are stored as exactly -1 (and are masked)
    legal[~legal.any(axis=1)] = True
    best = ev.max(axis=1)
    per_hand = np.where(legal, best[:, None] - ev, 0.0).sum(axis=1) / legal.sum(axis=1)
    return float(per_hand.mean())


def _setting_task_data(task: str, split: str, env_id: str, kwargs: dict, evalset) -> TaskData:
    table_regret = None
    if task == "card_removal":
        from splitpoker.agents.exact.eval_set import make_eval_env
        from splitpoker.agents.policies.strategy_table import StrategyTable
        from splitpoker.envs.rules.game import Game

        env = make_eval_env(env_id, kwargs)
        game: Game = env.unwrapped.game
        env.close()
        table = StrategyTable(game)
        settings = np.array([table.best(c) for c in evalset.cards])
        table_regret = float(evalset.regrets(settings).mean())
    return TaskData(task, split, env_id, dict(kwargs), evalset, random_setting_regret(evalset), table_regret)


def bonus_returns(dist, bonus_levels) -> dict[float, float]:
    """Exact expected bonus result in chips per bonus level (the line marginal is exact; the
    payout cap applies per level), from a :class:`RoundDistribution`."""
    col = dist.prob.sum(axis=0)
    out = {}
    for b in bonus_levels:
        b = float(b)
        wins = [min(b * o, dist.max_payout) if dist.max_payout is not None else b * o for o in dist.bonus_odds]
        out[b] = float(col[1:] @ np.asarray(wins) - col[0] * b) if b > 0 else 0.0
    return out


def _bets_task_data(split: str, env_id: str, kwargs: dict, evalset, log=print) -> TaskData:
    import gymnasium as gym

    from splitpoker.agents.sessions.round_distribution import house_way_distribution

    env = gym.make(env_id, **kwargs)
    u = env.unwrapped
    game, config = u.game, u.config
    bet_table = [(float(a), float(b)) for a, b in u.bet_table]
    env.close()
    dist = house_way_distribution(game, config.paytable, log=log)
    hw = np.array([game.house_way(c).setting for c in evalset.cards])
    gain = evalset.best - evalset.ev[np.arange(evalset.hands), hw]
    g, gci = mean_ci(gain)
    v_star = dist.main_edge + g
    v_ci = math.hypot(dist.main_edge_ci95, gci)
    if v_star >= 0:
        raise ValueError(f"task 'bets' on {env_id}: the value of optimal play V* = {v_star:+.4f} ± {v_ci:.4f} per unit "
                         "is not below 0, so the minimum ante is not the optimal bet; this game's bet phase has no "
                         "known exact optimum (score its setting env instead)")
    unit = float(config.unit)
    main_levels, bonus_levels = config.bet_levels
    if min(main_levels) != unit:
        raise ValueError(f"task 'bets' on {env_id}: the smallest main level {min(main_levels):g} differs from the reward "
                         f"unit {unit:g}: expected reward_unit = the table minimum")
    beta = bonus_returns(dist, bonus_levels)
    if any(v > 0 for v in beta.values()):
        raise ValueError(f"task 'bets' on {env_id}: a bonus level has a positive return {beta}: no bonus is not optimal")
    data = {"unit": unit, "bet_table": bet_table, "v_star": float(v_star), "v_star_ci95": float(v_ci),
            "v_house_way": float(dist.main_edge), "bonus_chips": {str(k): v for k, v in beta.items()},
            "penalty": float(config.invalid_action_penalty)}
    rs = random_setting_regret(evalset)
    rand = float(np.mean([(a / unit) * rs + bet_regret(data, a, b) for a, b in bet_table]))
    return TaskData("bets", split, env_id, dict(kwargs), evalset, rand, None, data)


def bet_regret(bets: dict, main: float, bonus: float) -> float:
    """Expected EV lost by betting ``main`` + ``bonus`` instead of the minimum and no bonus (units)."""
    u = bets["unit"]
    return (main / u - 1.0) * (-bets["v_star"]) - bets["bonus_chips"][str(float(bonus))] / u


def _session_task_data(split: str, env_id: str, kwargs: dict, log=print) -> TaskData:
    import gymnasium as gym

    from splitpoker.agents.sessions import dp as sd
    from splitpoker.agents.sessions.round_distribution import house_way_distribution

    env = gym.make(env_id, **kwargs)
    u = env.unwrapped
    if u.agent_sets or u.max_hands is not None or u.target is None:
        env.close()
        raise ValueError(f"task 'session' on {env_id}: expected a betting-only session (setting house-way or optimal) "
                         "with a target and no hand limit (the exact DP scores a stationary betting policy)")
    if u.setting != "house-way":
        env.close()
        raise ValueError(f"task 'session' on {env_id}: setting={u.setting!r}; the exact round distribution is the "
                         "house way's (use setting='house-way')")
    dist = house_way_distribution(u.game, u.config.paytable, log=log)
    table = sd.BetTable(tuple(u.bet_table))
    sol = sd.solve(dist, table, u.start_bankroll, u.target)
    model = sol.model
    legal = np.array([[model.live[i] and model.cost[a] <= i for a in range(len(table.bets))] for i in range(model.n)])
    p_rand = float(evaluate_mixed(model, legal / np.maximum(legal.sum(axis=1, keepdims=True), 1))[model.state(u.start_bankroll)])
    bold = sd.policy_success(dist, table, u.start_bankroll, u.target, lambda b: sd.bold_action(table, dist, b, u.target))[0]
    flat = sd.policy_success(dist, table, u.start_bankroll, u.target, lambda b: sd.flat_action(table))[0]
    env.close()
    p_opt = sol.success(u.start_bankroll)
    data = {"dist": dist, "bankroll": u.start_bankroll, "target": u.target, "p_optimal": p_opt, "p_random": p_rand,
            "p_bold": bold, "p_flat": flat, "optimal_policy": sol.policy.tolist()}
    return TaskData("session", split, env_id, dict(kwargs), None, p_opt - p_rand, None, {}, data)


def evaluate_mixed(model, weights: np.ndarray) -> np.ndarray:
    """Exact success probability of a stochastic betting policy: ``weights[i, a]`` the probability
    of bet ``a`` at state ``i`` (a row of zeros: the session fails there, as a penalised invalid
    bet ends it). One linear solve over the live states."""
    live_idx = np.flatnonzero(model.live)
    pos = np.full(model.n + 1, -1)
    pos[live_idx] = np.arange(live_idx.size)
    m = live_idx.size
    P = np.zeros((m, m))
    r = np.zeros(m)
    for k, i in enumerate(live_idx):
        for a in np.flatnonzero(weights[i] > 0):
            w = weights[i, a]
            nxt = np.minimum(i + model.shifts[a], model.n)
            for j, p in zip(nxt, model.probs[a], strict=True):
                if j == model.n:
                    r[k] += w * p
                elif pos[j] >= 0:
                    P[k, pos[j]] += w * p
    v = np.linalg.solve(np.eye(m) - P, r)
    out = np.zeros(model.n + 1)
    out[live_idx] = np.clip(v, 0.0, 1.0)
    out[model.n] = 1.0
    return out


def prepare(task: str, split: str, env_id: str, kwargs: dict, hands: int, seed: int, *, solved: tuple = (),
            card_removal_margin: float | None = None, log=print, progress=None) -> TaskData:
    """The task's data for one split: evaluation sets solved (or read from the cache) and the
    anchors computed."""
    from splitpoker.agents.exact.eval_set import (
        CARD_REMOVAL_MARGIN,
        load_card_removal_set,
        load_evalset,
    )

    if task == "session":
        return _session_task_data(split, env_id, kwargs, log=log)
    set_id = BET_IDS.get(env_id, env_id)
    if task == "card_removal":
        es = load_card_removal_set(set_id, kwargs, hands, seed, margin=card_removal_margin or CARD_REMOVAL_MARGIN,
                                   log=log, progress=progress)
    else:
        es = load_evalset(set_id, kwargs, hands, seed, log=log, progress=progress, solved=solved)
    if task == "bets":
        return _bets_task_data(split, env_id, kwargs, es, log=log)
    return _setting_task_data(task, split, set_id, kwargs, es)


# ---- scorers ----------------------------------------------------------------------------------

def make_scorer(data: TaskData, paired_hands: int):
    if data.task in ("setting", "card_removal"):
        return SettingTaskScorer(data, paired_hands)
    if data.task == "bets":
        return BetsTaskScorer(data)
    return SessionTaskScorer(data)


def _normalized(regret: float, random_regret: float) -> float:
    return 1.0 - regret / random_regret if random_regret > 0 else math.nan


class SettingTaskScorer:
    """Exact regret on the set (and the paired reward against the house way on its deals)."""

    def __init__(self, data: TaskData, paired_hands: int):
        from splitpoker.agents.benchmark.config import EnvSpec
        from splitpoker.agents.benchmark.scorer import Scorer

        self.data = data
        paired = paired_hands if data.task == "setting" else data.evalset.hands
        self.inner = Scorer(EnvSpec(data.env_id, data.task, data.env_kwargs), data.evalset, paired)
        self.env = self.inner.env

    def score(self, policy) -> dict:
        out = self.inner.score(policy)
        out["normalized"] = _normalized(out["mean_regret"], self.data.random_regret)
        if self.data.table_regret is not None:
            out["regret_vs_table"] = out["mean_regret"] - self.data.table_regret
        return out

    def close(self):
        self.inner.close()


class BetsTaskScorer:
    """The full round (bet, then setting) on the set's deals; exact regret per hand."""

    def __init__(self, data: TaskData):
        from splitpoker.agents.exact.eval_set import make_eval_env

        self.data = data
        self.env = make_eval_env(data.env_id, data.env_kwargs)

    def score(self, policy) -> dict:
        es, bets = self.data.evalset, self.data.bets
        n = es.hands
        mains, bonuses, invalid = np.zeros(n), np.zeros(n), np.zeros(n, bool)
        settings, reward = np.zeros(n, np.int64), np.zeros(n)
        for i, s in enumerate(es.seeds):
            obs, info = self.env.reset(seed=s)
            if not np.array_equal(np.sort(self.env.unwrapped.player), es.cards[i]):
                raise ValueError(f"the bets env dealt other cards than its evaluation set on hand {i}: not paired")
            while True:
                obs, r, term, trunc, info = self.env.step(policy.act(obs, info["action_mask"]))
                reward[i] += r
                if term or trunc:
                    break
            if info["invalid_action"] >= 0:  # envs/info.py: -1 when no action was penalised
                invalid[i] = True
                continue
            mains[i], bonuses[i], settings[i] = info["main_wager"], info["bonus_wager"], info["setting"]
        sr = es.regrets(settings)
        u = bets["unit"]
        regret = np.array([(m / u) * r + bet_regret(bets, m, b) for m, b, r in zip(mains, bonuses, sr, strict=True)])
        # what the env charged: the penalty, and in the set phase every wager placed (kernel.invalid_outcome)
        regret[invalid] = bets["v_star"] - reward[invalid]
        m, ci = mean_ci(regret)
        ok = ~invalid
        return {"hands": n, "mean_regret": m, "regret_ci95": ci, "normalized": _normalized(m, self.data.random_regret),
                "optimal_rate": float(((regret <= 1e-12) & ok).mean()),
                "min_bet_rate": float(((mains == u) & (bonuses == 0) & ok).mean()),
                "mean_main_units": float((mains[ok] / u).mean()) if ok.any() else math.nan,
                "bonus_rate": float((bonuses > 0).mean()),
                "setting_regret": float(sr[ok].mean()) if ok.any() else math.nan,
                "invalid_rate": float(invalid.mean()), "mean_reward": float(reward.mean()),
                "diff_vs_house_way": math.nan, "diff_vs_house_way_ci95": math.nan}

    def close(self):
        self.env.close()


class SessionTaskScorer:
    """The policy's bet at every bankroll of the DP's grid, then its exact success probability."""

    def __init__(self, data: TaskData):
        import gymnasium as gym

        self.data = data
        self.env = gym.make(data.env_id, **data.env_kwargs)
        from splitpoker.agents.sessions import dp as sd

        u = self.env.unwrapped
        self.model = sd.SessionModel.build(data.session["dist"], sd.BetTable(tuple(u.bet_table)), u.start_bankroll, u.target)

    def bets_on_grid(self, policy) -> np.ndarray:
        """``int[n]``: the policy's bet at each live state (-1: not live; -2: an illegal bet)."""
        u = self.env.unwrapped
        self.env.reset(seed=0)
        acts = np.full(self.model.n, -1, dtype=np.int64)
        for i in np.flatnonzero(self.model.live):
            u.bankroll = float(i * self.model.grid)
            mask = u.action_masks()
            a = int(policy.act(u._observation(), mask))
            acts[i] = a if 0 <= a < mask.size and mask[a] else -2
        u.done = True
        return acts

    def success(self, acts: np.ndarray) -> float:
        w = np.zeros((self.model.n, len(self.model.shifts)))
        ok = acts >= 0
        w[np.flatnonzero(ok), acts[ok]] = 1.0
        v = evaluate_mixed(self.model, w)
        return float(v[self.model.state(self.data.session["bankroll"])])

    def score(self, policy) -> dict:
        s = self.data.session
        acts = self.bets_on_grid(policy)
        p = self.success(acts)
        regret = s["p_optimal"] - p
        live = acts[self.model.live]
        return {"mean_regret": regret, "regret_ci95": 0.0, "success": p, "normalized": _normalized(regret, self.data.random_regret),
                "optimal_rate": float(np.mean(live == np.asarray(s["optimal_policy"])[self.model.live])),
                "illegal_states": int((live == -2).sum()), "diff_vs_house_way": math.nan, "diff_vs_house_way_ci95": math.nan}

    def close(self):
        self.env.close()


def reference_rows(data: TaskData, references: tuple[str, ...], reference_kwargs: dict, paired_hands: int,
                   seed: int, log=print, cards: dict | None = None) -> dict:
    """The baseline rows of a task (on its test split): the named baselines played on the set
    (hand tasks), the DP's optimum, bold and flat betting (session), and the exact random anchor.

    ``cards``: the card files among ``references`` (reference -> loaded
    :class:`splitpoker.agents.evaluation.card_file.WrittenCard`), each played as a
    :class:`splitpoker.agents.evaluation.card_policy.CardPolicy` (setting by its rules, betting the
    minimum as ``house-way`` does) on the hand tasks of its own game, in the row
    ``card: <its name>``; on the other game's tasks it is skipped with a log line. A card row names
    the card's ``style`` (``card_style``, the house way it is meant against, or None) and the
    env's ``dealer`` it was scored against; the log says so when they differ (a card may be
    played against any dealer of its game: the figures are this env's)."""
    import time

    from splitpoker.agents.benchmark.config import card_row_name
    from splitpoker.agents.evaluation.card_policy import CardPolicy
    from splitpoker.agents.policies.baselines import make_baseline
    from splitpoker.envs.registration import GAME_OF_ENV

    cards = cards or {}

    rows = {}
    if data.task == "session":
        s = data.session
        for name, p in (("optimal", s["p_optimal"]), ("bold", s["p_bold"]), ("flat", s["p_flat"]), ("random", s["p_random"])):
            regret = s["p_optimal"] - p
            rows[name] = {"mean_regret": regret, "regret_ci95": 0.0, "success": p,
                          "normalized": _normalized(regret, data.random_regret), "exact": True}
        return rows
    scorer = make_scorer(data, paired_hands)
    for name in references:
        if name in cards:
            card, row = cards[name], card_row_name(cards[name].name)
            game = GAME_OF_ENV[data.env_id]
            if card.game != game:
                log(f"[{data.task}] reference {row} ({name}): a card for {card.game}, this task deals {game} hands: skipped")
                continue
            t0 = time.perf_counter()
            rows[row] = scorer.score(CardPolicy.from_env(scorer.env, card=card))
            rows[row]["seconds"] = time.perf_counter() - t0
            dealer = scorer.env.unwrapped.game.style.value
            rows[row].update({"card_style": card.style, "dealer": dealer})
            note = (f" (the card is meant against {card.style}; scored against this env's dealer, {dealer})"
                    if card.style and card.style != dealer else "")
            log(f"[{data.task}] reference {row}: exact regret {rows[row]['mean_regret']:.4f}{note}")
            continue
        if data.task == "bets" and name in ("table", "mc-best"):
            continue  # the same settings as on the setting task; the bets task's baselines bet the minimum
        kw = dict(reference_kwargs.get(name, {}))
        if name in ("random", "mc-best"):
            kw.setdefault("seed", seed)
        t0 = time.perf_counter()
        rows[name] = scorer.score(make_baseline(name, scorer.env, **kw))
        rows[name]["seconds"] = time.perf_counter() - t0
        log(f"[{data.task}] reference {name}: exact regret {rows[name]['mean_regret']:.4f}")
    scorer.close()
    rows["random (exact expectation)"] = {"mean_regret": data.random_regret, "regret_ci95": math.nan, "normalized": 0.0,
                                          "exact": True}
    return rows


Z = Z95  # re-exported for the report's interval notes
