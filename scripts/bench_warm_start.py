#!/usr/bin/env python
"""Speed of the warm start's teacher dataset, side by side in one process: hands per second
written and rows per second read, for the two writing paths and the two ways of reading.

Writing (teacher ``table``, action values included, same hands, same file contents):
  one-by-one   env.reset + the table policy per hand, then env.step (the general path)
  batched      the native vector env deals BATCH_HANDS hands per call, the strategy table values
               all their settings in one lookup (splitpoker.agents.training.warm_start, the default for the
               one-step setting environments)
Reading the file back:
  to_pylist    pyarrow's row-by-row Python lists, then numpy
  flat         the list columns' flat value buffers reshaped (splitpoker.agents.training.warm_start.read_teacher_dataset)

The one-by-one writer runs on ``--slow-hands`` hands (it is slow), the others on ``--hands``; the
rates are per hand / per row, so the ratios compare. The strategy table and kernels are loaded
and compiled before timing. Results go to stdout as JSON (and to --out).

Example:
    python scripts/bench_warm_start.py --game asia --hands 20000 --slow-hands 1000 --out /tmp/ws.json
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import tempfile
import time
from pathlib import Path

from splitpoker.scripts.support import cli

ENVS = cli.SETTING_ENVS


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(ENVS), default="paigow", help="which one-step setting env (default paigow)")
    p.add_argument("--hands", type=cli.count(1, 10_000_000, "memory: one row per hand"), default=20_000,
                   help="hands for the batched writer and the readers (default 20000)")
    p.add_argument("--slow-hands", type=cli.count(1, 1_000_000, "time: one Python step per hand"), default=1_000,
                   help="hands for the one-by-one writer (default 1000)")
    p.add_argument("--out", help="also write the JSON here (.json, atomically; the folder is checked first)")
    return p.parse_args(argv)


def measure(game: str, hands: int, slow_hands: int, log=print) -> dict:
    import gymnasium as gym
    import numpy as np
    import pyarrow.parquet as pq

    import splitpoker  # noqa: F401
    from splitpoker.agents.training.warm_start import read_teacher_dataset, write_teacher_dataset

    env_id, kw = ENVS[game]
    env = gym.make(env_id, **kw, dealer_samples=16, observe_settings=True, setting_features=True)
    out = {"game": game, "env_id": env_id, "teacher": "table", "writers": {}, "readers": {}}
    with tempfile.TemporaryDirectory(prefix="bench_warm_start_") as tmp:
        for batched in (False, None):  # warm-up: table, kernels
            write_teacher_dataset(env, "table", 64, 99, Path(tmp) / "warm.parquet", batched=batched)
        for name, n, batched in (("one-by-one", slow_hands, False), ("batched", hands, None)):
            t = time.perf_counter()
            write_teacher_dataset(env, "table", n, 1, Path(tmp) / f"{name}.parquet", batched=batched)
            s = time.perf_counter() - t
            out["writers"][name] = {"hands": n, "seconds": round(s, 3), "hands_per_s": round(n / s, 1)}
            log(f"write {name}: {out['writers'][name]}")
        path = Path(tmp) / "batched.parquet"
        t = time.perf_counter()
        tab = pq.read_table(path)
        slow = [np.asarray(tab.column(c).to_pylist(), dtype=d) for c, d in
                (("obs", np.float32), ("action_mask", bool), ("action_values", np.float32))]
        s = time.perf_counter() - t
        out["readers"]["to_pylist"] = {"rows": hands, "seconds": round(s, 3), "rows_per_s": round(hands / s, 1)}
        t = time.perf_counter()
        obs, masks, _, values = read_teacher_dataset(path, values=True)
        s = time.perf_counter() - t
        out["readers"]["flat"] = {"rows": hands, "seconds": round(s, 3), "rows_per_s": round(hands / s, 1)}
        same = (np.array_equal(slow[0], obs) and np.array_equal(slow[1], masks)
                and np.array_equal(slow[2], values, equal_nan=True))
        out["readers_agree"] = bool(same)
        log(f"read: {out['readers']} (same arrays: {same})")
        same_rows = min(slow_hands, hands)
        a = read_teacher_dataset(Path(tmp) / "one-by-one.parquet", values=True)
        out["writers_agree_on_first_hands"] = bool(all(np.array_equal(x[:same_rows], y[:same_rows], equal_nan=True)
                                                       for x, y in zip(a, (obs, masks, _, values), strict=True)))
    env.close()
    w, r = out["writers"], out["readers"]
    out["write_speedup"] = round(w["batched"]["hands_per_s"] / w["one-by-one"]["hands_per_s"], 1)
    out["read_speedup"] = round(r["flat"]["rows_per_s"] / r["to_pylist"]["rows_per_s"], 1)
    return out


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_measurement(args.out, lambda log: measure(args.game, args.hands, args.slow_hands, log=log))


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
