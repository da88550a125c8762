"""Scoring a policy on one environment's evaluation set (:class:`Scorer`): the deterministic
policy plays the evaluation deals; the settings it plays on the set's hands are looked up in the
cached exact EVs (:mod:`splitpoker.agents.exact.eval_set`), and its rewards on all the deals are
paired with the house way's (common random numbers, :mod:`splitpoker.agents.evaluation.evaluate`)."""

from __future__ import annotations

from splitpoker.agents.evaluation.evaluate import hand_seeds, mean_ci, run_policy
from splitpoker.agents.exact.eval_set import EvalSet, make_eval_env


class Scorer:
    """Scores a policy on one environment's evaluation set: exact regret on its ``hands`` hands and
    the paired reward difference to the house way on ``paired_hands`` hands (the same deals for
    every policy; the regret hands are the first ones). ``env``: an
    :class:`splitpoker.agents.benchmark.config.EnvSpec` (its ``id`` and ``kwargs``)."""

    def __init__(self, env, evalset: EvalSet, paired_hands: int):
        from splitpoker.agents.policies.baselines import HouseWayPolicy

        self.evalset = evalset
        self.env = make_eval_env(env.id, env.kwargs)
        self.seeds = list(evalset.seeds) + hand_seeds(evalset.seed, max(paired_hands, evalset.hands))[evalset.hands:]
        self.paired_hands = max(paired_hands, evalset.hands)
        self.house_way = run_policy(self.env, HouseWayPolicy.from_env(self.env), self.seeds)

    def score(self, policy) -> dict:
        rec = run_policy(self.env, policy, self.seeds)
        out = self.evalset.score(rec.settings[: self.evalset.hands], rec.cards)
        d, dci = mean_ci(rec.reward - self.house_way.reward)
        r, rci = mean_ci(rec.reward)
        out.update({"paired_hands": self.paired_hands, "diff_vs_house_way": d, "diff_vs_house_way_ci95": dci,
                    "mean_reward": r, "reward_ci95": rci, "foul_rate": float(rec.fouled.mean())})
        return out

    def close(self):
        self.env.close()
