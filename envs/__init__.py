"""``splitpoker.envs``: the Gymnasium and PettingZoo environments of Asia Poker and Pai Gow Poker,
over the rules core :mod:`splitpoker.envs.rules` (which needs only numpy and numba).

Importing it (``import splitpoker`` does) registers every ``splitpoker/*`` id with Gymnasium when
Gymnasium is installed, and the PettingZoo tables in PettingZoo's registry when PettingZoo (1.27 or
later) is (:mod:`splitpoker.envs.registration`).
"""

if __name__ != "splitpoker.envs":  # the source folder imported under its old top-level name
    raise ImportError(
        f"this folder is the package splitpoker.envs, imported here as {__name__!r}: write `import splitpoker` "
        "(or the id prefix 'splitpoker:splitpoker/AsiaPokerSetting-v0'); `import envs` and the 'envs:' prefix were "
        "replaced in 0.2 (docs/migration.md)")

from splitpoker.envs import rules  # noqa: F401  (first: configures the numba cache before any kernel is defined)
from splitpoker.envs.registration import ENV_IDS, GAME_OF_ENV

try:  # the rules core must work without the training stack
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover - exercised by tests/test_core_imports.py
    pass
else:
    from splitpoker.envs.registration import register_envs

    register_envs()
    try:  # the tables in PettingZoo's registry (PettingZoo >= 1.27); the single envs need no PettingZoo
        import pettingzoo as _pettingzoo  # noqa: F401
    except ImportError:
        pass
    else:
        from splitpoker.envs.registration import register_pettingzoo_envs

        register_pettingzoo_envs()

__all__ = ["ENV_IDS", "GAME_OF_ENV"]
