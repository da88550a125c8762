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

import os as _os
import signal as _signal
import sys as _sys
from pathlib import Path as _Path


def _interrupted_while_starting(signum, frame):  # pragma: no cover - exercised in subprocess tests
    _sys.stderr.write("interrupted (while starting up; nothing was done)\n")
    _sys.stderr.flush()
    _os._exit(130)


def _guard_a_starting_script() -> None:
    """While one of the package's scripts starts as a program (``python scripts/x.py`` or a
    ``splitpoker-x`` command), a Ctrl-C during the imports below (numpy, numba, gymnasium: seconds
    on a loaded machine) ends it with exit 130 and one line, not a traceback; the script's own
    handler (``splitpoker.scripts.support.cli``) takes over once its imports are done."""
    if _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler:
        return  # a caller (or an earlier import) chose its own handling
    here = _Path(__file__).resolve().parent
    folders = [str(here / "scripts"), str(here.parent / "scripts")]
    main = _os.path.realpath(getattr(_sys.modules.get("__main__"), "__file__", None) or "")
    command = _os.path.basename(_sys.argv[0]) if _sys.argv else ""
    if any(main.startswith(f + _os.sep) for f in folders) or command.startswith("splitpoker-"):
        try:
            _signal.signal(_signal.SIGINT, _interrupted_while_starting)
        except ValueError:  # pragma: no cover - not the main thread
            pass


_guard_a_starting_script()

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
del _registration, _guard_a_starting_script
