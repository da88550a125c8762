#!/usr/bin/env python
"""Speed benchmarks, measured side by side in one run (this machine is shared and noisy: compare
ratios within a run, not absolute figures across runs). Writes one JSON object.

Sections (``--only`` to pick):
  rules      settings ranked per second (numba, all 105 Asia / 21 Pai Gow settings of a hand)
  houseway   house-way hands per second per core (batch) and per single Python call, per style
  simulate   house way vs house way rounds per second (all cores)
  env        single-env step rate of AsiaPokerSetting-v0 vs Gymnasium's Blackjack-v1, same run
  bonus      the exhaustive bonus enumeration (all 154,143,080 hands, no cache)
  exact      exact solver: seconds per hand vs the naive method (see the exact-solver section)
  vector     (only with --only) batched steps/s for N envs: the native vector env vs gym.make_vec sync, SB3
             DummyVecEnv / SubprocVecEnv of single envs and EnvPool Blackjack-v1 (if installed);
             MaskablePPO training steps/s native vs DummyVecEnv with the share of time in the env
  schedule   (only with --only) the exhaustive passes' thread schedule: a prange over task rows (largest
             first) against one bin of rows per thread, on the same hands of the house-way proof
             (scripts/support/speed_schedule.py; --schedule-batches of its 40 batches)
  render     (only with --only) rgb_array frames per second: cached text and card sprites against the
             same frames drawn whole by matplotlib, interleaved, on the same episodes (pixel-equal)
  scorer     (only with --only) MaskablePPO + SettingScorerPolicy end-to-end training steps/s before and
             after the fused scorer function, interleaved, with both models' final exact regret on the
             same validation hands (scripts/support/speed_scorer.py; --train-steps per run); with
             --scorer-light also each game's lighter update on today's code
  serve      (only with --only) the strategy explorer (scripts/serve.py) over loopback HTTP: warm
             /api/analyze latency p50/p95 over --serve-hands random hands per game beside the solver
             alone, then 16 requests at once three times (all answered? memory before/after)

Examples:
    python scripts/benchmark.py --out docs/benchmarks/benchmarks.json
    python scripts/benchmark.py --only env --seconds 5
    python scripts/benchmark.py --only vector --out docs/benchmarks/benchmarks_vector.json
    python scripts/benchmark.py --only schedule --out docs/benchmarks/benchmarks_schedule.json
    python scripts/benchmark.py --only scorer --train-steps 4096 --out docs/rl_benchmark/rl_benchmark_scorer_speed.json
    python scripts/benchmark.py --only serve --out docs/explorer/benchmark_serve.json

--out must name a .json file in an existing, writable folder (checked before any timing) and is
written atomically. Ctrl-C exits 130 and prints the sections finished so far (marked
"interrupted"), without writing --out.
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import os
import platform
import time

import numba
import numpy as np

from splitpoker.scripts.support import cli

SECTIONS = ("rules", "houseway", "simulate", "env", "bonus", "exact", "vector", "schedule", "scorer", "render", "serve")
SCORER_GAMES = ("paigow", "asia")  # the keys of scripts/support/speed_scorer.py's GAMES


def _timeit(fn, min_seconds: float) -> tuple[int, float]:
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return n, dt


def bench_rules(args) -> dict:
    from numba import njit

    from splitpoker.envs.rules.games.outcome import all_setting_values
    from splitpoker.envs.rules.games.spec import SPECS
    from splitpoker.envs.rules.house_ways.batch import random_hands

    @njit(cache=False)
    def rank_all(game_id, hands, table, to_two, ranks, fouled):
        acc = 0
        for i in range(hands.shape[0]):
            all_setting_values(game_id, hands[i], table, to_two, ranks, fouled)
            acc += ranks[7, 0]
        return acc

    n = 200_000
    hands = np.empty((n, 7), dtype=np.int64)
    random_hands(1, n, hands)
    out = {}
    for name, spec in SPECS.items():
        engine = spec.engine_cls()
        n_set = spec.n_settings
        args_ = (spec.game_id, hands, engine.rank_table, engine.to_two, np.empty((n_set, spec.ranks_width), np.int64),
                 np.empty(n_set, np.bool_))
        rank_all(*args_)  # compile
        reps, dt = _timeit(lambda: rank_all(*args_), args.seconds)
        out[name] = {"settings_per_second": reps * n * n_set / dt, "hands_per_second": reps * n / dt,
                     "settings_per_hand": n_set, "threads": 1}
    return out


def bench_houseway(args) -> dict:
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.rules.house_ways.batch import (
        house_way_batch,
        house_way_batch_serial,
        random_hands,
    )
    from splitpoker.envs.rules.house_ways.registry import HouseWayStyle

    n = 500_000
    hands = np.empty((n, 7), dtype=np.int64)
    random_hands(2, n, hands)
    out = {}
    for style in HouseWayStyle:
        g = Game(style.game, style.value)
        res = np.empty(n, dtype=np.int64)
        house_way_batch_serial(g.style_id, hands[:10], g.rank_table, g.to_two, res[:10])
        house_way_batch(g.style_id, hands[:10], g.rank_table, g.to_two, res[:10])
        reps, dt = _timeit(lambda: house_way_batch_serial(g.style_id, hands, g.rank_table, g.to_two, res), args.seconds)
        per_core = reps * n / dt
        reps, dt = _timeit(lambda: house_way_batch(g.style_id, hands, g.rank_table, g.to_two, res), args.seconds)
        all_cores = reps * n / dt
        one = hands[123]
        g.house_way(one)
        k, dt = _timeit(lambda: g.house_way(one), min(args.seconds, 1.0))
        out[style.value] = {"batch_hands_per_second_per_core": per_core, "batch_hands_per_second_all_cores": all_cores,
                            "python_call_microseconds": 1e6 * dt / k, "target_per_core": 500_000,
                            "meets_target": per_core >= 500_000}
    return out


def bench_simulate(args) -> dict:
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.rules.house_ways.check import simulate
    from splitpoker.envs.rules.house_ways.registry import HouseWayStyle

    out = {}
    for style in HouseWayStyle:
        g = Game(style.game, style.value)
        simulate(g, 10_000, seed=1)  # compile
        rep = simulate(g, args.rounds, seed=1)
        out[style.value] = {"rounds": rep["rounds"], "rounds_per_second": rep["rounds_per_second"],
                            "target": 1_000_000, "meets_target": rep["rounds_per_second"] >= 1_000_000}
    return out


def env_steps_per_second(env, seconds: float, masked: bool, seed: int = 0) -> float:
    """Steps per second of a random agent (mask-respecting when ``masked``), resets included."""
    rng = np.random.default_rng(seed)
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(200):
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                a = legal[rng.integers(legal.size)]
            else:
                a = env.action_space.sample()
            obs, r, term, trunc, info = env.step(a)
            n += 1
            if term or trunc:
                obs, info = env.reset()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def bench_env(args) -> dict:
    import gymnasium as gym

    import splitpoker  # noqa: F401

    rates = {"Blackjack-v1": [], "splitpoker/AsiaPokerSetting-v0": [], "splitpoker/PaiGowPokerSetting-v0": []}
    for _ in range(args.repeats):  # interleave, so machine noise hits every env alike
        for env_id in rates:
            env = gym.make(env_id)
            rates[env_id].append(env_steps_per_second(env, args.seconds / 2, masked=env_id != "Blackjack-v1"))
            env.close()
    med = {k: float(np.median(v)) for k, v in rates.items()}
    bj = med["Blackjack-v1"]
    return {
        "method": "random agent via gym.make (default wrappers), mask-respecting for splitpoker; resets included; "
                  f"median of {args.repeats} interleaved runs",
        "steps_per_second": med, "runs": rates,
        "ratio_asia_setting_to_blackjack": med["splitpoker/AsiaPokerSetting-v0"] / bj,
        "ratio_paigow_setting_to_blackjack": med["splitpoker/PaiGowPokerSetting-v0"] / bj,
        "target_ratio": 0.5,
        "meets_target": med["splitpoker/AsiaPokerSetting-v0"] / bj >= 0.5,
    }


def bench_bonus(args) -> dict:
    from splitpoker.envs.rules.bonus.features import feature_histogram

    t0 = time.perf_counter()
    hist = feature_histogram()
    dt = time.perf_counter() - t0
    return {"hands": int(hist.sum()), "seconds": dt, "hands_per_second": hist.sum() / dt, "target_seconds": 60,
            "meets_target": dt <= 60, "note": "includes numba compilation when the on-disk numba cache is cold"}


def bench_exact(args) -> dict:
    from splitpoker.scripts.support.speed_exact import exact_benchmark

    return exact_benchmark(args.exact_hands)


def bench_schedule(args) -> dict:
    from splitpoker.scripts.support.speed_schedule import schedule_benchmark

    return schedule_benchmark(n_batches=args.schedule_batches, repeats=args.repeats)


def _vector_sizes(text: str) -> list[int]:
    from splitpoker.scripts.support.speed_vector import parse_sizes

    try:
        return parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def bench_vector(args) -> dict:
    from splitpoker.scripts.support.speed_vector import run_vector_benchmark

    return run_vector_benchmark(args)


def bench_render(args) -> dict:
    """Frames/s of envs/render.py's draw_table against draw_table_whole on the views of the same
    AsiaPoker-v0 episodes (bet, set and settled frames), interleaved; the text sprites' cache is
    warmed on other episodes first, as a long training run's video would have it."""
    import gymnasium as gym

    import splitpoker  # noqa: F401
    from splitpoker.envs.render import _text_sprite, draw_table, draw_table_whole

    env = gym.make("splitpoker/AsiaPoker-v0", render_mode="rgb_array").unwrapped

    def views(seeds):
        out = []
        for seed in seeds:
            _, info = env.reset(seed=seed)
            out.append(env._table_view())
            done = False
            while not done:
                _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
                out.append(env._table_view())
        return out

    for v in views(range(1000, 1020)):
        draw_table(v)
    frames = views(range(20))
    rates: dict[str, list[float]] = {"sprites": [], "whole": []}
    for _ in range(args.repeats):
        for name, draw in (("sprites", draw_table), ("whole", draw_table_whole)):
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < args.seconds:
                for v in frames:
                    draw(v)
                n += len(frames)
            rates[name].append(n / (time.perf_counter() - t0))
    med = {k: float(np.median(v)) for k, v in rates.items()}
    equal = all(np.array_equal(draw_table(v), draw_table_whole(v)) for v in frames)
    return {"method": f"{len(frames)} frames of 20 AsiaPoker-v0 episodes, median of {args.repeats} interleaved runs "
                      f"of >= {args.seconds:g} s each", "frames_per_second": med, "runs": rates,
            "ratio_sprites_to_whole": med["sprites"] / med["whole"], "pixel_equal": bool(equal),
            "text_sprites_cached": _text_sprite.cache_info().currsize}


def _games(text: str) -> list[str]:
    games = [g.strip() for g in text.split(",") if g.strip()]
    bad = [g for g in games if g not in SCORER_GAMES]
    if bad or not games:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a comma-separated list of {list(SCORER_GAMES)}")
    return list(dict.fromkeys(games))


def bench_serve(args) -> dict:
    from splitpoker.scripts.support.speed_serve import serve_benchmark

    return serve_benchmark(args.serve_hands, log=lambda m: print(m, file=sys.stderr, flush=True))


def bench_scorer(args) -> dict:
    from splitpoker.scripts.support.speed_scorer import run_scorer_benchmark

    return run_scorer_benchmark(args, log=lambda m: print(m, file=sys.stderr, flush=True))


@cli.leaves_process_as_found
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append", choices=SECTIONS, help="run only these sections (repeatable)")
    p.add_argument("--seconds", type=cli.positive_float(600, "each measurement repeats per section and style"),
                   default=2.0, help="minimum seconds per timed measurement (default 2; at most 600)")
    p.add_argument("--repeats", type=cli.count(1, 100, "each repeat times three environments"), default=3,
                   help="interleaved repeats of the env comparison (default 3; 1..100)")
    p.add_argument("--rounds", type=cli.count(10_000, 1_000_000_000, "time: ~1-3 million rounds/s per style"),
                   default=5_000_000, help="rounds for the simulate section (default 5,000,000)")
    p.add_argument("--exact-hands", type=cli.count(1, 1000, "time: the naive method takes minutes per hand"),
                   default=3, help="hands for the exact-solver timing (default 3; 1..1000)")
    p.add_argument("--vector-envs", default="1,64,256,1024", type=_vector_sizes,
                   help="vector section: comma-separated numbers of environments (default 1,64,256,1024)")
    p.add_argument("--train-steps", type=cli.count(0, 10_000_000, "time: MaskablePPO trains ~1k steps/s here"), default=8192,
                   help="vector section: MaskablePPO steps per training measurement (default 8192; 0 skips training); "
                        "scorer section: timed steps per run (at least 1)")
    p.add_argument("--scorer-light", action="store_true",
                   help="scorer section: also time each game's lighter update (speed_scorer.LIGHT) on today's code")
    p.add_argument("--scorer-games", type=_games, default=["paigow", "asia"],
                   help="scorer section: comma-separated games (default paigow,asia)")
    p.add_argument("--scorer-hands", type=cli.count(2, 10_000, "time: ~0.15 s of exact solving per new hand"),
                   default=200, help="scorer section: validation hands the final exact regret is measured on (default 200)")
    p.add_argument("--schedule-batches", type=cli.count(1, 40, "the house-way proof has 40 batches"), default=4,
                   help="schedule section: batches of the house-way proof timed (default 4, the largest rows; 1..40)")
    p.add_argument("--serve-hands", type=cli.count(1, 10_000, "time: ~0.3 s a request"), default=100,
                   help="serve section: random hands per game timed one request at a time (default 100)")
    p.add_argument("--out", help="also write the JSON to this file (.json, atomically)")
    args = p.parse_args(argv)
    cli.handle_interrupts()
    if cli.refuse_output("--out", args.out, (".json",)):
        return 2
    sections = list(dict.fromkeys(args.only)) if args.only else [s for s in SECTIONS if s not in ("bonus", "vector", "schedule", "scorer", "render", "serve")]
    if "scorer" in sections and args.train_steps < 1:
        p.error("--train-steps 0: the scorer section needs at least 1 timed step")
    if args.scorer_light and "scorer" not in sections:
        p.error("--scorer-light times rows of the scorer section, which this run leaves out: add --only scorer")
    result = {"machine": {"cpus": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
                          "python": platform.python_version(), "numba": numba.__version__,
                          "platform": platform.platform()},
              "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        for s in sections:
            print(f"[benchmark] {s} ...", file=sys.stderr)
            result[s] = globals()[f"bench_{s}"](args)
    except BaseException as e:  # Ctrl-C (or an error it caused inside numba)
        if not cli.is_interrupt(e):
            raise
        result["interrupted"] = f"during {s}; sections finished: {[x for x in sections if x in result]}"
        print(cli.dumps(result))
        return cli.interrupted(f"partial results printed{', --out not written' if args.out else ''}")
    print(cli.dumps(result))
    if args.out:
        cli.write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
