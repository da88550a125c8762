"""Registration of the splitpoker environment ids (done on ``import splitpoker``): every Gymnasium id,
and the two PettingZoo tables in PettingZoo's registry (PettingZoo 1.27 has one:
``pettingzoo.make("parallel", "splitpoker/paigow_table_v0", num_seats=3)``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameEnvNames:
    """How one game's environments are named; every id table below is generated from these rows
    (a new game adds one row here, and its env classes under these names)."""

    game: str          # the GameSpec's name (envs/rules/games/spec.py)
    name: str          # ids splitpoker/<name>-v0, <name>Setting-v0, <name>Session-v0; classes <name>Env, ...
    module: str        # splitpoker.envs.<module> holds <name>Env and <name>SettingEnv
    table: str         # the single-agent table splitpoker/<table>-v0 (class <table>Env)
    pettingzoo: str    # the PettingZoo table splitpoker/<pettingzoo> (module splitpoker.envs.table.<pettingzoo>)

    @property
    def env_id(self) -> str:  # betting and setting: the whole round
        return f"splitpoker/{self.name}-v0"

    @property
    def setting_id(self) -> str:  # the hand-setting step alone
        return f"splitpoker/{self.name}Setting-v0"

    @property
    def table_id(self) -> str:
        return f"splitpoker/{self.table}-v0"

    @property
    def session_id(self) -> str:
        return f"splitpoker/{self.name}Session-v0"

    @property
    def pettingzoo_id(self) -> str:
        return f"splitpoker/{self.pettingzoo}"


GAME_ENVS = {g.game: g for g in (
    GameEnvNames("asia", "AsiaPoker", "asia_poker", "AsiaTable", "asia_table_v0"),
    GameEnvNames("paigow", "PaiGowPoker", "pai_gow_poker", "PaiGowTable", "paigow_table_v0"),
)}

#: the one-seat envs (betting, setting), which share the one-seat observation layout
ENV_IDS = {i: e for g in GAME_ENVS.values() for i, e in (
    (g.env_id, f"splitpoker.envs.{g.module}:{g.name}Env"),
    (g.setting_id, f"splitpoker.envs.{g.module}:{g.name}SettingEnv"))}
#: single-agent table envs (envs/table/gym_env.py)
TABLE_ENV_IDS = {g.table_id: f"splitpoker.envs.table.gym_env:{g.table}Env" for g in GAME_ENVS.values()}
#: bankroll-session envs (envs/session.py): many rounds per episode, their own observation layout
SESSION_ENV_IDS = {g.session_id: f"splitpoker.envs.session:{g.name}SessionEnv" for g in GAME_ENVS.values()}
#: every registered id and its entry point
ALL_ENV_IDS = {**ENV_IDS, **TABLE_ENV_IDS, **SESSION_ENV_IDS}
#: native batched versions (``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``)
VECTOR_ENTRY_POINTS = {i: e for g in GAME_ENVS.values() for i, e in (
    (g.env_id, f"splitpoker.envs.vector.env:{g.name}VectorEnv"),
    (g.setting_id, f"splitpoker.envs.vector.env:{g.name}SettingVectorEnv"))}
#: the PettingZoo tables (``pettingzoo.make("aec" | "parallel", id, **keywords)``): id -> module
PETTINGZOO_IDS = {g.pettingzoo_id: f"splitpoker.envs.table.{g.pettingzoo}" for g in GAME_ENVS.values()}
#: the game of every registered id
GAME_OF_ENV = {i: g.game for g in GAME_ENVS.values() for i in (g.env_id, g.setting_id, g.table_id, g.session_id)}
#: each game's setting env (the one-step env the exact tools, cards and benchmarks score on)
SETTING_ENV_OF_GAME = {g.game: g.setting_id for g in GAME_ENVS.values()}


def setting_env_id(game: str) -> str:
    """The setting env of ``game`` (``ValueError`` naming an unknown game)."""
    try:
        return SETTING_ENV_OF_GAME[str(game)]
    except KeyError:
        raise ValueError(f"unknown game {game!r}: expected one of {list(GAME_ENVS)}") from None

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
