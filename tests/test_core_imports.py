"""The rules core and the exact solver import only the standard library, numpy and numba.

The subprocess blocks the training stack at import time (as if it were not installed), imports
every core module, and checks none of it was loaded. ``envs/__init__.py`` registers the Gymnasium
environments only when gymnasium is importable, so ``import splitpoker.envs.rules`` works without it.
"""

import subprocess
import sys

CORE_MODULES = [
    "splitpoker.envs.rules.cards", "splitpoker.envs.rules.ranking.categories", "splitpoker.envs.rules.ranking.combinatorics", "splitpoker.envs.rules.ranking.hand_eval",
    "splitpoker.envs.rules.options", "splitpoker.envs.rules.ranking.rank_tables", "splitpoker.envs.rules.games.asia", "splitpoker.envs.rules.games.paigow",
    "splitpoker.envs.rules.bonus.features", "splitpoker.envs.rules.bonus.paytables", "splitpoker.envs.rules.house_ways.common",
]
# (yaml is not listed: numba itself imports it when installed, to read .numba_config.yaml)
FORBIDDEN = ["gymnasium", "torch", "stable_baselines3", "sb3_contrib", "matplotlib", "pygame", "tqdm", "rich"]

SCRIPT = f"""
import importlib, importlib.abc, pkgutil, sys
FORBIDDEN = {FORBIDDEN!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in FORBIDDEN:
            raise ImportError(f'blocked {{name}}')
sys.meta_path.insert(0, Block())
import splitpoker.envs.rules
import splitpoker.envs.solver
mods = {CORE_MODULES!r} + [f'splitpoker.envs.rules.{{m.name}}' for m in pkgutil.iter_modules(splitpoker.envs.rules.__path__)]
mods += [f'splitpoker.envs.solver.{{m.name}}' for m in pkgutil.iter_modules(splitpoker.envs.solver.__path__)]
for m in mods:
    importlib.import_module(m)
loaded = [m for m in FORBIDDEN if m in sys.modules]
assert not loaded, f'rules core pulled in {{loaded}}'
print('ok', len(mods))
"""


def test_rules_core_imports_without_training_stack():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("ok")
