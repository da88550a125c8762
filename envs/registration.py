"""Registration of the splitpoker environment ids (done on ``import splitpoker``): every Gymnasium id,
and the two PettingZoo tables in PettingZoo's registry (PettingZoo 1.27 has one:
``pettingzoo.make("parallel", "splitpoker/paigow_table_v0", num_seats=3)``)."""

from __future__ import annotations

ENV_IDS = {
    "splitpoker/AsiaPoker-v0": "splitpoker.envs.asia_poker:AsiaPokerEnv",
    "splitpoker/AsiaPokerSetting-v0": "splitpoker.envs.asia_poker:AsiaPokerSettingEnv",
    "splitpoker/PaiGowPoker-v0": "splitpoker.envs.pai_gow_poker:PaiGowPokerEnv",
    "splitpoker/PaiGowPokerSetting-v0": "splitpoker.envs.pai_gow_poker:PaiGowPokerSettingEnv",
}
# Single-agent table envs (envs/table/gym_env.py): kept apart from ENV_IDS, whose envs share the
# one-seat observation layout; GAME_OF_ENV covers both.
TABLE_ENV_IDS = {
    "splitpoker/AsiaTable-v0": "splitpoker.envs.table.gym_env:AsiaTableEnv",
    "splitpoker/PaiGowTable-v0": "splitpoker.envs.table.gym_env:PaiGowTableEnv",
}
# Bankroll-session envs (envs/session.py): many rounds per episode, their own observation layout.
SESSION_ENV_IDS = {
    "splitpoker/AsiaPokerSession-v0": "splitpoker.envs.session:AsiaPokerSessionEnv",
    "splitpoker/PaiGowPokerSession-v0": "splitpoker.envs.session:PaiGowPokerSessionEnv",
}
#: every registered id and its entry point
ALL_ENV_IDS = {**ENV_IDS, **TABLE_ENV_IDS, **SESSION_ENV_IDS}
#: native batched versions (``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``)
VECTOR_ENTRY_POINTS = {
    "splitpoker/AsiaPoker-v0": "splitpoker.envs.vector.env:AsiaPokerVectorEnv",
    "splitpoker/AsiaPokerSetting-v0": "splitpoker.envs.vector.env:AsiaPokerSettingVectorEnv",
    "splitpoker/PaiGowPoker-v0": "splitpoker.envs.vector.env:PaiGowPokerVectorEnv",
    "splitpoker/PaiGowPokerSetting-v0": "splitpoker.envs.vector.env:PaiGowPokerSettingVectorEnv",
}
#: the PettingZoo tables (``pettingzoo.make("aec" | "parallel", id, **keywords)``): id -> module
PETTINGZOO_IDS = {
    "splitpoker/asia_table_v0": "splitpoker.envs.table.asia_table_v0",
    "splitpoker/paigow_table_v0": "splitpoker.envs.table.paigow_table_v0",
}
GAME_OF_ENV = {
    "splitpoker/AsiaPoker-v0": "asia", "splitpoker/AsiaPokerSetting-v0": "asia",
    "splitpoker/PaiGowPoker-v0": "paigow", "splitpoker/PaiGowPokerSetting-v0": "paigow",
    "splitpoker/AsiaTable-v0": "asia", "splitpoker/PaiGowTable-v0": "paigow",
    "splitpoker/AsiaPokerSession-v0": "asia", "splitpoker/PaiGowPokerSession-v0": "paigow",
}


def register_envs() -> None:
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ALL_ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, disable_env_checker=False,
                     vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id))


def register_pettingzoo_envs() -> bool:
    """The tables in PettingZoo's registry, AEC (``env``) and parallel (``parallel_env``) entry
    points; ``False`` (nothing done) where the installed PettingZoo has no registry (before 1.27).
    PettingZoo writes a ``_v0`` suffix as ``-v0``, and ``make`` takes either spelling."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return False
    for env_id, module in PETTINGZOO_IDS.items():
        for kind, registry, entry in (("aec", pettingzoo.aec_registry, "env"),
                                      ("parallel", pettingzoo.parallel_registry, "parallel_env")):
            if env_id.replace("_v0", "-v0") not in registry:
                pettingzoo.register(kind, env_id, entry_point=f"{module}:{entry}")
    return True
