"""splitpoker: Gymnasium environments for Asia Poker and Pai Gow Poker.

``import envs`` registers ``splitpoker/AsiaPoker-v0``, ``splitpoker/AsiaPokerSetting-v0``,
``splitpoker/PaiGowPoker-v0`` and ``splitpoker/PaiGowPokerSetting-v0`` with Gymnasium when it is
installed. The rules core, :mod:`envs.rules`, needs only numpy and numba.
"""

from . import rules  # noqa: F401  (first: configures the numba cache before any kernel is defined)
from .registration import ENV_IDS, GAME_OF_ENV

try:  # the rules core must work without the training stack
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover - exercised by tests/test_core_imports.py
    pass
else:
    from .registration import register_envs

    register_envs()

__all__ = ["ENV_IDS", "GAME_OF_ENV"]
