"""The RL algorithms training and the benchmark know: one table, one row per algorithm.

Everything the rest of the code asks about an algorithm is a field of its row: the class (imported
lazily, so that ``import splitpoker.agents`` does not import torch), whether it reads
``action_masks()``, whether it learns off-policy (a replay buffer to checkpoint), whether its policy
is an actor-critic (``net_arch`` may be ``{pi: [...], vf: [...]}``), its smallest sensible batch
and the setting-scorer class that matches it. ``train.py``, the YAML checks, the setting scorer,
``benchmark_rl.py`` and ``tune.py`` all read this table, so adding an algorithm is one row here
(plus a test and a line in docs/training.md)::

    ALGORITHMS["qrdqn"] = Algorithm("qrdqn", "sb3_contrib:QRDQN", off_policy=True, actor_critic=False)

==============  ==========================  =======  ==========  ============  ==========  ==============
name            class                       masking  off-policy  actor-critic  batch >=    setting scorer
==============  ==========================  =======  ==========  ============  ==========  ==============
maskable_ppo    sb3_contrib.MaskablePPO     yes      no          yes           2           maskable
ppo             stable_baselines3.PPO       no       no          yes           2           actor-critic
a2c             stable_baselines3.A2C       no       no          yes           1           actor-critic
dqn             stable_baselines3.DQN       no       yes         no            1           (none)
==============  ==========================  =======  ==========  ============  ==========  ==============
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: its config name and what the training code needs to know about it."""

    name: str  #: the ``algo:`` value in a YAML config
    target: str  #: ``"module:Class"`` of the stable-baselines3-compatible class
    masking: bool = False  #: reads ``action_masks()`` (illegal actions may then raise)
    off_policy: bool = False  #: keeps a replay buffer (saved with its checkpoints)
    actor_critic: bool = True  #: separate ``pi`` / ``vf`` networks may be given
    min_batch_size: int = 1  #: the smallest ``batch_size`` that trains (MaskablePPO and PPO: 1 gives NaN)
    scorer: str | None = None  #: ``"maskable"`` / ``"actor_critic"``: the setting-scorer class that fits
    tunable: bool = False  #: ``tune.py`` has a search space for it

    def load_class(self):
        module, name = self.target.split(":")
        return getattr(importlib.import_module(module), name)


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("maskable_ppo", "sb3_contrib:MaskablePPO", masking=True, min_batch_size=2, scorer="maskable",
                  tunable=True),
        Algorithm("ppo", "stable_baselines3:PPO", min_batch_size=2, scorer="actor_critic", tunable=True),
        Algorithm("a2c", "stable_baselines3:A2C", scorer="actor_critic"),
        Algorithm("dqn", "stable_baselines3:DQN", off_policy=True, actor_critic=False),
    )
}

ALGOS = tuple(ALGORITHMS)
MASKING_ALGOS = tuple(n for n, a in ALGORITHMS.items() if a.masking)
OFF_POLICY_ALGOS = tuple(n for n, a in ALGORITHMS.items() if a.off_policy)
TUNABLE_ALGOS = tuple(n for n, a in ALGORITHMS.items() if a.tunable)


def get_algorithm(name: str) -> Algorithm:
    """The row of ``name``; ``ValueError`` naming it and the known names otherwise."""
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise ValueError(f"unknown algo {name!r}: expected one of {ALGOS}")
    return ALGORITHMS[name]


def algo_class(name: str):
    """The stable-baselines3 / sb3-contrib class of ``algo``."""
    return get_algorithm(name).load_class()


def quiet_logger():
    """A stable-baselines3 logger that writes nothing, for a model that logs nowhere. Without one, a
    model with ``verbose=0`` and no ``tensorboard_log`` gets a logger from SB3's ``configure()``,
    which makes an empty ``SB3-<date>`` folder in the temp directory at every ``learn()``: one per
    run of a benchmark grid, left behind."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])
