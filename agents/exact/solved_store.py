"""Solved hand classes on disk: the shard format, and lookup of any hand's exact result.

A *store* is a folder written by ``scripts/solve_all.py`` (:mod:`splitpoker.agents.exact.strategy`)::

    manifest.json          the key (game, style, rules with commission, rules-source digest,
                           class-index and store formats, dealer pool) and the plan (classes,
                           sample, seed, shard size, number of shards)
    shard-000000.parquet   one row per solved class (columns below), written atomically
    shard-000001.parquet   ...

Columns of a shard (one row per hand class of :mod:`splitpoker.envs.solver.classes`)::

    class               int64    class index
    weight              int8     hands the class stands for (1..24)
    house_way_setting   int8     the house way's setting of the canonical hand
    house_way_ev        float64  house-way EV averaged over the class's hands (see below)
    house_way_varies    bool     the house way's EV differs between hands of the class
    optimal_setting     int8     optimal setting of the canonical hand (ties: house way, else lowest)
    optimal_ev          float64  its exact EV, correctly rounded
    n_optimal           int8     settings tied for the optimum
    wins                uint32[S]  dealer hands each setting of the canonical hand beats (S = 105/21)
    pushes              uint32[S]  Pai Gow only: dealer hands each setting pushes
    seconds             float64  solve time of the class (worker CPU, for the cost model)

Every EV of every setting is exact: losses = N - wins - pushes over N = C(46, 7) dealer hands
(fouled settings, recomputed from the cards, lose all N). Size per class before compression:
Asia 105 x 4 B = 420 B of counts, Pai Gow 21 x 8 B = 168 B, plus ~40 B of scalars. The shard's
Parquet metadata repeats the manifest key, so a shard moved into another store is refused.

:class:`SolvedStore` loads a store and gives any hand's :class:`~splitpoker.envs.solver.exact.ExactResult`
(settings matched card for card to the class's canonical hand); :class:`StoreSolver` is a drop-in
for ``ExactSolver.solve`` that looks a hand up first and solves it only when its class is missing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path

import numpy as np

from splitpoker.envs.rules import RULES_SOURCE_DIGEST
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver import classes as hc
from splitpoker.envs.solver.exact import ExactResult

STORE_FORMAT = 1
FULL_POOL = 53
MANIFEST = "manifest.json"


class StoreError(ValueError):
    """A solved store that cannot be used: missing, corrupt, or made for other rules."""


def store_key(game: Game, universe: int = FULL_POOL) -> dict:
    """What a store's results depend on; two stores with different keys never mix."""
    return {"what": "solved hand classes", "format": STORE_FORMAT, "class_index_format": hc.INDEX_FORMAT,
            "n_classes": hc.N_CLASSES, "game": game.game, "style": game.style.value,
            "rules": dataclasses.asdict(game.rules), "universe": int(universe), "rules_source": RULES_SOURCE_DIGEST}


def shard_name(k: int) -> str:
    return f"shard-{k:06d}.parquet"


def shard_schema(game: Game, key: dict):
    import pyarrow as pa

    n = game.n_settings
    cols = [("class", pa.int64()), ("weight", pa.int8()), ("house_way_setting", pa.int8()),
            ("house_way_ev", pa.float64()), ("house_way_varies", pa.bool_()), ("optimal_setting", pa.int8()),
            ("optimal_ev", pa.float64()), ("n_optimal", pa.int8()), ("wins", pa.list_(pa.uint32(), n))]
    if game.spec.is_paigow:  # one hand each pushes
        cols.append(("pushes", pa.list_(pa.uint32(), n)))
    cols.append(("seconds", pa.float64()))
    return pa.schema(cols, metadata={b"splitpoker": json.dumps(key, sort_keys=True).encode()})


def shard_table(game: Game, key: dict, rows: dict):
    """``rows``: column name -> numpy array (``wins``/``pushes`` shaped ``(n, S)``)."""
    import pyarrow as pa

    sch = shard_schema(game, key)
    arrays = []
    for f in sch:
        v = rows[f.name]
        if pa.types.is_fixed_size_list(f.type):
            v = np.ascontiguousarray(v, dtype=np.uint32)
            arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1), pa.uint32()), v.shape[1]))
        else:
            arrays.append(pa.array(np.asarray(v), f.type))
    return pa.Table.from_arrays(arrays, schema=sch)


def write_shard_atomic(table, path: Path) -> None:
    """Temp file in the same folder, fsync, rename: a crash leaves the old state or the whole shard."""
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            pq.write_table(table, f, compression="zstd")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_shard(path: Path, game: Game, key: dict, expect_rows: int | None = None):
    """The shard's table, or :class:`StoreError` naming the file and what is wrong."""
    import pyarrow.parquet as pq

    try:
        t = pq.read_table(path)
    except Exception as e:  # noqa: BLE001 - any unreadable shard is reported as corrupt
        raise StoreError(f"shard {path} is unreadable ({type(e).__name__}: {e})") from e
    meta = (t.schema.metadata or {}).get(b"splitpoker")
    found = json.loads(meta) if meta else None
    if found != key:
        raise StoreError(f"shard {path} was made for {_describe(found)}, not {_describe(key)}")
    want = shard_schema(game, key)
    if t.schema.remove_metadata() != want.remove_metadata():
        raise StoreError(f"shard {path} has columns {t.schema.names}, expected {want.names}")
    if expect_rows is not None and t.num_rows != expect_rows:
        raise StoreError(f"shard {path} holds {t.num_rows} classes, expected {expect_rows}")
    return t


def _describe(key: dict | None) -> str:
    if not key:
        return "no recorded key"
    return (f"{key.get('game')}/{key.get('style')} (rules {key.get('rules')}, dealer pool {key.get('universe')}, "
            f"store format {key.get('format')}, rules source {str(key.get('rules_source'))[:12]})")


def list_column(t, name: str, n: int) -> np.ndarray:
    col = t.column(name).combine_chunks()
    return col.flatten().to_numpy().reshape(-1, n)


def read_manifest(directory: Path) -> dict:
    path = Path(directory) / MANIFEST
    if not path.is_file():
        raise StoreError(f"{directory} is not a solved store: {MANIFEST} is missing (make one with scripts/solve_all.py)")
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise StoreError(f"{path} is unreadable ({e})") from e


class SolvedStore:
    """All solved classes of a store folder, for ``game`` (its style, rules and commission must be
    those the store was solved for, else :class:`StoreError`). Unfinished shards are skipped."""

    def __init__(self, directory, game: Game):
        self.directory = Path(directory)
        self.game = game
        manifest = read_manifest(self.directory)
        self.key = store_key(game)
        if manifest.get("key") != self.key:
            raise StoreError(f"solved store {self.directory} was made for {_describe(manifest.get('key'))}; "
                             f"this evaluation needs {_describe(self.key)}")
        n = game.n_settings
        classes, wins, pushes = [], [], []
        for k in range(int(manifest["plan"]["n_shards"])):
            path = self.directory / shard_name(k)
            if not path.exists():
                continue
            t = read_shard(path, game, self.key)
            classes.append(t.column("class").to_numpy())
            wins.append(list_column(t, "wins", n))
            if game.spec.is_paigow:
                pushes.append(list_column(t, "pushes", n))
        self.classes = np.concatenate(classes) if classes else np.empty(0, np.int64)
        order = np.argsort(self.classes)
        self.classes = self.classes[order]
        self.wins = np.concatenate(wins)[order] if wins else np.empty((0, n), np.uint32)
        self.pushes = np.concatenate(pushes)[order] if pushes else None
        if self.classes.size and (np.diff(self.classes) == 0).any():
            raise StoreError(f"solved store {self.directory} holds a class twice: its shards are corrupt")
        self.n_dealer_hands = math.comb(46, 7)

    def __len__(self) -> int:
        return int(self.classes.size)

    def lookup(self, cards) -> ExactResult | None:
        """The exact result of ``cards`` if its class is stored, else None."""
        g = self.game
        hand = g.hand(cards)
        c = int(hc.classify(hand)[0])
        j = int(np.searchsorted(self.classes, c))
        if j >= self.classes.size or self.classes[j] != c:
            return None
        m = hc.setting_map(g.game, hand)
        n = self.n_dealer_hands
        wins = self.wins[j][m].astype(np.int64)
        pushes = self.pushes[j][m].astype(np.int64) if self.pushes is not None else np.zeros_like(wins)
        _, fouled = g.settings(hand)
        wins = np.where(fouled, 0, wins)
        pushes = np.where(fouled, 0, pushes)
        losses = np.where(fouled, n, n - wins - pushes)
        commission = g.commission
        ev = np.where(fouled, -1.0, ((1 - commission) * wins - losses) / n)
        return ExactResult(g.game, g.style.value, hand, n, wins, pushes, losses, fouled, ev, commission)


class StoreSolver:
    """``solve(cards)`` like :class:`~splitpoker.envs.solver.exact.ExactSolver`, from the store when the hand's
    class is there (``hits``), else by solving (``misses``; the dealer table loads on first miss).
    Only full-pool solves are looked up; a ``pool`` argument always solves."""

    def __init__(self, store: SolvedStore, solver=None):
        self.store = store
        self.game = store.game
        self._solver = solver
        self.hits = 0
        self.misses = 0

    @property
    def solver(self):
        if self._solver is None:
            from splitpoker.envs.solver.exact import ExactSolver

            self._solver = ExactSolver(self.game)
        return self._solver

    def solve(self, cards, pool=None, parallel: bool = True) -> ExactResult:
        if pool is None:
            res = self.store.lookup(cards)
            if res is not None:
                self.hits += 1
                return res
        self.misses += 1
        return self.solver.solve(cards, pool=pool, parallel=parallel)


def solver_for(game: Game, stores) -> StoreSolver | None:
    """A :class:`StoreSolver` over the first of the store folders ``stores`` made for ``game``
    (style, rules and commission), or None when none is; a folder that is not a store raises
    :class:`StoreError`. Lets one list of stores serve several environments."""
    for d in stores:
        if read_manifest(Path(d)).get("key") == store_key(game):
            return StoreSolver(SolvedStore(d, game))
    return None
