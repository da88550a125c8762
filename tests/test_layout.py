"""The layout's rules, read statically from the source (docs/architecture.md):

- dependencies point one way: ``envs`` <- ``agents`` <- ``scripts`` (no import the other way, not
  even one inside a function);
- the rules core (``envs/rules``) imports only the standard library, numpy, numba and itself;
- no circle of module-level imports between modules, nor between the subpackages of the rules core
  and of ``agents``;
- no library module over 500 lines;
- every module has a docstring and a row of docs/architecture.md's module map, and the map names
  no module that is gone;
- only ``envs/rules/games/outcome.py`` tests which game it is (a game id or name compared).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"envs": "splitpoker.envs", "agents": "splitpoker.agents", "scripts": "splitpoker.scripts"}
MAX_LINES = 500


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    parts[0] = PACKAGES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    found = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[_module_name(path)] = path
    return found


SOURCES = _sources()


def _imports(path: Path, module: str, top_level_only: bool) -> set[str]:
    """The absolute names ``path`` imports (``from a.b import c`` gives ``a.b.c`` when that is a
    module of ours, else ``a.b``); ``top_level_only``: only statements run at import time (not
    inside a function or a class body's method), nor under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()

    def visit(node, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            lazy = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)) and not (top_level_only and in_function):
                if isinstance(child, ast.Import):
                    names.update(a.name for a in child.names)
                else:
                    base = child.module or ""
                    if child.level:
                        base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + ([base] if base else []))
                    for a in child.names:
                        full = f"{base}.{a.name}"
                        names.add(full if full in SOURCES else base)
            visit(child, lazy)

    visit(tree, False)
    return names


def _ours(name: str) -> str | None:
    """The module of ours that ``name`` is or lies in."""
    while name:
        if name in SOURCES:
            return name
        name = name.rpartition(".")[0]
    return None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            strong(v)
    return out


def _graph(top_level_only: bool) -> dict[str, set[str]]:
    graph = {}
    for module, path in SOURCES.items():
        deps = {_ours(n) for n in _imports(path, module, top_level_only)}
        graph[module] = {d for d in deps if d and d != module and not module.startswith(d + ".")}
    return graph


def test_the_walk_finds_the_tree():
    # a guard on the test itself: an import reader that saw nothing would pass every check below
    assert len(SOURCES) > 120
    graph = _graph(top_level_only=False)
    assert "splitpoker.envs.rules.games.spec" in graph["splitpoker.envs.rules.game"]
    assert "splitpoker.agents.training.algorithms" in graph["splitpoker.agents.training.run"]
    assert sum(len(v) for v in graph.values()) > 400


def test_dependencies_point_one_way():
    wrong = []
    for module, deps in _graph(top_level_only=False).items():
        for d in deps:
            if module.startswith("splitpoker.envs") and d.startswith(("splitpoker.agents", "splitpoker.scripts")):
                wrong.append(f"{module} -> {d}")
            if module.startswith("splitpoker.agents") and d.startswith("splitpoker.scripts"):
                wrong.append(f"{module} -> {d}")
    assert not wrong, wrong


def test_rules_core_imports_only_numpy_numba_and_itself():
    allowed = set(sys.stdlib_module_names) | {"numpy", "numba", "splitpoker", "__future__"}
    wrong = []
    for module, path in SOURCES.items():
        if module.startswith("splitpoker.envs.rules"):
            for name in _imports(path, module, top_level_only=False):
                if name.split(".")[0] not in allowed or (name.startswith("splitpoker.")
                                                         and not name.startswith("splitpoker.envs.rules")):
                    wrong.append(f"{module} imports {name}")
    assert not wrong, wrong


def test_no_circle_of_module_imports():
    assert _cycles(_graph(top_level_only=True)) == []


def test_no_circle_between_subpackages():
    def group(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:4]) if parts[1:3] == ["envs", "rules"] or parts[1] == "agents" else ".".join(parts[:3])

    groups: dict[str, set[str]] = {}
    for module, deps in _graph(top_level_only=False).items():
        g = group(module)
        groups.setdefault(g, set()).update(group(d) for d in deps if group(d) != g)
    assert _cycles(groups) == [], "subpackages that import each other (lazily included)"


def test_no_library_module_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in SOURCES.values() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def _module_map() -> list[str]:
    import re

    doc = (ROOT / "docs" / "architecture.md").read_text()
    section = doc[doc.index("## Module map"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


def test_module_map_lists_every_module():
    listed = _module_map()
    on_disk = [str(p.relative_to(ROOT)) for p in SOURCES.values()]
    assert len(listed) == len(set(listed)), "a module listed twice in docs/architecture.md's module map"
    assert sorted(set(on_disk) - set(listed)) == [], "modules missing from docs/architecture.md's module map"
    assert sorted(set(listed) - set(on_disk)) == [], "the module map names modules that are gone"
    undocumented = [str(p.relative_to(ROOT)) for p in SOURCES.values() if not ast.get_docstring(ast.parse(p.read_text()))]
    assert undocumented == [], "modules without a docstring (the map's 'what' is its first sentence)"


# the per-game dispatch: the one module whose code may test which game it is (spec.py defines the ids)
GAME_DISPATCH = {"splitpoker.envs.rules.games.outcome", "splitpoker.envs.rules.games.spec"}
GAME_IDS = {"ASIA_ID", "PAIGOW_ID", "game_id"}
GAME_NAMES = {"asia", "paigow"}


def _tests_the_game(node: ast.Compare) -> bool:
    names = [n for n in (node.left, *node.comparators)]
    ids = any((isinstance(n, ast.Name) and n.id in GAME_IDS) or (isinstance(n, ast.Attribute) and n.attr in GAME_IDS)
              for n in names)
    named = any(isinstance(n, ast.Constant) and n.value in GAME_NAMES for n in names)
    return ids or named


def test_only_the_dispatch_module_tests_the_game():
    """A new hand layout adds its branch to ``games/outcome.py`` (and its spec), nowhere else
    (docs/architecture.md, "A game variant"): no other module compares a game id or a game name."""
    found = []
    for module, path in SOURCES.items():
        if module in GAME_DISPATCH:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
                                                     for op in node.ops) and _tests_the_game(node):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


# per-game choices that are not the spec's to hold (the card language's book, benchmark settings),
# each with why; everything else a game has is read from its GameSpec
GAME_KEYED_CHOICES = {
    ("splitpoker.agents.evaluation.recipes", "ORDERS"): "the recipe book's order of orders (ties in the learners)",
    ("splitpoker.agents.evaluation.recipes", "GAME_CONSTRAINTS"): "which constraints a game's cards use",
    ("splitpoker.scripts.support.speed_scorer", "LIGHT"): "benchmark hyperparameters chosen per game",
}


def _game_keyed_dicts() -> set[tuple[str, str]]:
    """``(module, name)`` of every dict literal keyed by both game names (its assignment's target)."""
    found = set()
    for module, path in SOURCES.items():
        tree = ast.parse(path.read_text())
        owner = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                for d in ast.walk(node.value) if node.value is not None else ():
                    owner.setdefault(d, target.id if isinstance(target, ast.Name) else ast.unparse(target))
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and GAME_NAMES <= {k.value for k in node.keys if isinstance(k, ast.Constant)}:
                found.add((module, owner.get(node, f"line {node.lineno}")))
    return found


def test_no_table_keyed_by_game_restates_the_spec():
    """A game's names, titles, slots, sizes, default house way, config class and feature width are
    its ``GameSpec``'s (issue 47: "the spec is the only place a game lives"); a table keyed by the
    game names (``{"asia": ..., "paigow": ...}``) is one of the listed choices, or it restates the
    spec and a new game would have to be added to it by hand."""
    found = _game_keyed_dicts()
    assert found == set(GAME_KEYED_CHOICES), sorted(found ^ set(GAME_KEYED_CHOICES))
