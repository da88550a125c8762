"""The algorithm table (agents/training/algorithms.py) against the classes it names: what it says of
each algorithm is read off stable-baselines3 itself."""

import inspect

import pytest
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

from splitpoker.agents.training.algorithms import (
    ALGORITHMS,
    ALGOS,
    MASKING_ALGOS,
    OFF_POLICY_ALGOS,
    get_algorithm,
)
from splitpoker.agents.training.config import TrainConfig, policy_class


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_row_matches_its_class(name):
    algo = ALGORITHMS[name]
    cls = algo.load_class()
    assert algo.name == name
    assert algo.masking == ("use_masking" in inspect.signature(cls.learn).parameters)
    assert algo.off_policy == issubclass(cls, OffPolicyAlgorithm)
    assert algo.actor_critic == issubclass(cls, OnPolicyAlgorithm)
    scorer = policy_class(name, "SettingScorerPolicy") if algo.scorer else None
    if algo.scorer == "maskable":
        assert scorer.__name__ == "SettingScorerPolicy"
    elif algo.scorer == "actor_critic":
        assert scorer.__name__ == "SettingScorerActorCriticPolicy"


def test_derived_names_and_refusals():
    assert ALGOS == ("maskable_ppo", "ppo", "a2c", "dqn")
    assert MASKING_ALGOS == ("maskable_ppo",) and OFF_POLICY_ALGOS == ("dqn",)
    with pytest.raises(ValueError, match=r"unknown algo 'sac': expected one of \('maskable_ppo'"):
        get_algorithm("sac")
    with pytest.raises(ValueError, match=r"policy 'SettingScorerPolicy' works with maskable_ppo, ppo and a2c, not 'dqn'"):
        TrainConfig(algo="dqn", policy="SettingScorerPolicy",
                    env_kwargs={"house_way": "asia-000", "setting_features": True})
    with pytest.raises(ValueError, match=r"algo_kwargs.batch_size=1: expected an integer >= 2"):
        TrainConfig(algo="ppo", algo_kwargs={"batch_size": 1})
