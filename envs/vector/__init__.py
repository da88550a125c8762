"""Native batched environments: N games stepped by one numba call, on the env's own threads.

``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` builds them; the classes
are :mod:`splitpoker.envs.vector.env`'s (re-exported here).
"""

from splitpoker.envs.vector.env import (  # noqa: F401
    AsiaPokerSettingVectorEnv,
    AsiaPokerVectorEnv,
    PaiGowPokerSettingVectorEnv,
    PaiGowPokerVectorEnv,
    SplitHandVectorEnv,
)
