"""splitpoker: reinforcement-learning environments, rules engine, house ways and exact solvers for
Asia Poker and Pai Gow Poker.

``import splitpoker`` registers every Gymnasium id (``splitpoker/AsiaPokerSetting-v0``, ...), so
``gym.make("splitpoker/AsiaPokerSetting-v0")`` works after it, and
``gym.make("splitpoker:splitpoker/AsiaPokerSetting-v0")`` works in any client with nothing
imported (Gymnasium imports the module named before the colon).

The package's parts are its subpackages, mapped by ``pyproject.toml`` onto the source folders:

==========================  ===============  ===============================================
import name                 source folder    what
==========================  ===============  ===============================================
``splitpoker.envs.rules``   ``envs/rules/``  rules core (numpy + numba only): cards, ranking,
                                             games, house ways, bonus, play, table
``splitpoker.envs``         ``envs/``        Gymnasium / PettingZoo environments, exact solver
``splitpoker.agents``       ``agents/``      policies, training, benchmark, exact strategy,
                                             evaluation, sessions
``splitpoker.scripts``      ``scripts/``     the command-line programs (one job each)
==========================  ===============  ===============================================
"""

from pathlib import Path as _Path

# A source checkout that is not installed (Ray workers on PYTHONPATH, ``python scripts/x.py``):
# the subpackages are the sibling folders envs/, agents/, scripts/ (pyproject.toml maps them the
# same way for an install, so either way the same files are imported under the same names).
_checkout = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).resolve().parent / "envs").is_dir() and (_checkout / "envs" / "__init__.py").is_file():
    __path__.append(str(_checkout))  # noqa: F821  (the package's own __path__)

from splitpoker.envs import registration as _registration  # noqa: E402  (registers the ids)
from splitpoker.envs.registration import ALL_ENV_IDS, ENV_IDS  # noqa: E402

__version__ = "0.2.0"
__all__ = ["ALL_ENV_IDS", "ENV_IDS", "__version__"]
del _registration
