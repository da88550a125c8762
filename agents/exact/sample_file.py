"""The resumable file of an exact-solve sample (``scripts/solve_sample.py``): one row per hand.

The rows come from :func:`splitpoker.envs.solver.sample.solve_hand`; this module keeps them in a ``.parquet``
or ``.csv`` file and summarises them.

* **Resume**: an existing file must come from the same game / style / seed / ``max_pool_card``
  (else ``ValueError``); the hands already in it are skipped and the rest appended.
* **Atomic**: the file is rewritten through a temporary file and a rename every ``checkpoint``
  hands, and when the run stops on any exception (Ctrl-C included), so an interrupted run loses
  at most the hand being solved and never leaves a corrupt file.
* **Summary** (:func:`summarize`) over hands ``0 .. N-1``: mean house-way EV, mean optimal EV,
  mean gain (optimal - house way) with 95% CIs over hands, the largest gain, the fraction of
  hands where the house way is optimal and the fraction with tied optima.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from splitpoker.agents.evaluation.evaluate import mean_ci
from splitpoker.envs.rules.game import Game
from splitpoker.envs.solver import sample

SUFFIXES = (".parquet", ".csv")
_ARROW = {"str": "string", "int": "int64", "float": "float64", "bool": "bool_"}


def schema(game: Game):
    """The pyarrow schema of ``game``'s sample file (:func:`splitpoker.envs.solver.sample.columns`)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, _ARROW[kind])()) for name, kind in sample.columns(game)])


def run_meta(game: Game, seed: int, max_pool_card: int) -> dict:
    """The columns that identify a run (the same in every row of its file)."""
    return {"game": game.game, "style": game.style.value, "seed": seed, "max_pool_card": max_pool_card}


def read_table(path: Path, sch):
    """The rows of an existing sample file, cast to ``sch``; ValueError if it is not one."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    try:
        if path.suffix == ".csv":
            t = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=sch))
        else:
            t = pq.read_table(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is a user error here
        raise ValueError(f"--out {path}: cannot read the existing file to resume ({e})") from e
    if t.schema.names != sch.names:
        raise ValueError(f"--out {path}: existing file has columns {t.schema.names}, not those of this "
                         f"game's solve_sample output; choose another --out")
    return t.cast(sch)


def write_atomic(table, path: Path) -> None:
    """``table`` sorted by hand index, written to ``path`` through a temporary file and a rename."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            (pcsv.write_csv if path.suffix == ".csv" else pq.write_table)(table.sort_by("index"), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class SampleFile:
    """The rows of one run, held in memory and saved atomically to ``path``."""

    def __init__(self, path: str | os.PathLike, game: Game, seed: int, max_pool_card: int = sample.FULL_POOL):
        self.path = Path(path)
        if self.path.suffix not in SUFFIXES:
            raise ValueError(f"--out {path}: unknown extension {self.path.suffix!r}, expected .parquet or .csv")
        self.game = game
        self.meta = run_meta(game, seed, sample.check_max_pool_card(max_pool_card))
        self.schema = schema(game)
        self.table = self.schema.empty_table()
        self._pending: list[dict] = []
        if self.path.exists():
            self.table = read_table(self.path, self.schema)
            for key, value in self.meta.items():
                found = set(self.table.column(key).to_pylist())
                if found and found != {value}:
                    raise ValueError(f"--out {self.path}: existing file was made with {key}={sorted(found)}, not "
                                     f"{value!r}; use another --out or the same {key}")

    @property
    def n_rows(self) -> int:
        return self.table.num_rows + len(self._pending)

    def todo(self, n: int) -> list[int]:
        """The hand indices ``0 .. n-1`` not yet in the file."""
        done = set(self.table.column("index").to_pylist()) | {r["index"] for r in self._pending}
        return [i for i in range(n) if i not in done]

    def add(self, index: int, row: dict) -> None:
        self._pending.append(dict(self.meta, index=index, **row))

    def save(self) -> None:
        """Write the file if rows were added since the last save."""
        import pyarrow as pa

        if self._pending:
            self.table = pa.concat_tables([self.table, pa.Table.from_pylist(self._pending, schema=self.schema)])
            self._pending = []
            write_atomic(self.table, self.path)


def solve_into(store: SampleFile, n: int, checkpoint: int = 50,
               progress: Callable[[Iterable[int]], Iterable[int]] | None = None,
               solver_progress: Callable[[int], None] | None = None, log: Callable[[str], None] | None = None) -> int:
    """Solve the hands ``0 .. n-1`` not yet in ``store`` and save them every ``checkpoint`` hands.
    ``progress`` wraps the iterable of hand indices (a progress bar); ``solver_progress`` and
    ``log`` are passed to the dealer-table build. Any exception (Ctrl-C included) saves the hands
    solved so far before it propagates. Returns the number of hands solved."""
    todo = store.todo(n)
    if not todo:
        return 0
    game, k = store.game, store.meta["max_pool_card"]
    hands = sample.sample_hands(store.meta["seed"], n)
    try:
        solver = sample.make_solver(game, k, progress=solver_progress, log=log)
        for i in (progress or iter)(todo):
            store.add(i, sample.solve_hand(game, solver, hands[i], k))
            if len(store._pending) >= checkpoint:
                store.save()
    finally:
        store.save()
    return len(todo)


def _mean_ci95(x: np.ndarray) -> tuple[float, list[float] | None]:
    m, half = mean_ci(x)
    return m, None if x.size < 2 else [m - half, m + half]


def summarize(store: SampleFile, n: int) -> dict:
    """The summary of hands ``0 .. n-1`` of ``store`` (see the module docstring)."""
    table = store.table
    t = table.filter(table.column("index").to_numpy() < n)
    hw, opt, gain = (t.column(c).to_numpy().astype(float) for c in ("house_way_ev", "optimal_ev", "regret"))
    rep = dict(store.meta, out=str(store.path), hands=t.num_rows)
    rep["mean_house_way_ev"], rep["house_way_ev_ci95"] = _mean_ci95(hw)
    rep["mean_optimal_ev"], rep["optimal_ev_ci95"] = _mean_ci95(opt)
    rep["mean_gain"], rep["gain_ci95"] = _mean_ci95(gain)
    rep["max_gain"] = float(gain.max())
    rep["house_way_optimal_fraction"] = float(t.column("house_way_optimal").to_numpy(zero_copy_only=False).mean())
    rep["ties_fraction"] = float((t.column("n_optimal").to_numpy() > 1).mean())
    return rep
