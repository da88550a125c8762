#!/usr/bin/env python
"""Write episodes of a policy as an offline-RL dataset: Parquet (one row per step) or Minari.

Any environment of the package (one-step setting envs, the round with bets, bankroll sessions)
played by any policy: a baseline (`house-way`, `table`, `optimal`, `mc-best`, `random`; on a
session env the DP's `dp`, `bold`, `flat`, `random`) or a saved model (`--policy path/model.zip`).
Episode i is `env.reset(seed=seeds[i])` (seeds from --seed, as every evaluation here), so two
datasets with the same --seed hold the same deals.

With the dataset go the **reference scores** a loader needs to normalise returns (Minari's
`ref_min_score` / `ref_max_score`; D4RL's convention): the expected episode return of the
uniformly random legal policy and of the exact optimum, computed exactly on a reference sample
(--reference-hands hands of the benchmark's validation seed 2024, solved once and cached; for a
session env the DP's success probabilities, no sample) by splitpoker.agents.benchmark.tasks.
`normalised = (return - ref_min_score) / (ref_max_score - ref_min_score)`.

Parquet columns (pyarrow; readable by pandas, polars, DuckDB): `episode`, `step`, `obs`
(list<float32>), `action`, `reward`, `terminated`, `truncated`, `next_obs`, `action_mask`
(list<bool>); the file's schema metadata key `splitpoker` holds a JSON object with the env id and
keywords, the policy, the seeds' origin, the reference scores and how they were made. Minari
(`--format minari`, needs `pip install 'splitpoker[minari]'`): a local Minari dataset named
--out (e.g. `splitpoker/asia-setting/table-v0`), recorded through `minari.DataCollector`, with
the same reference scores.

Exit codes: 0 done, 2 bad arguments (nothing written; a --policy file that is no saved model or a
model of another env, a session the DP cannot solve, too few --reference-hands for a betting env
are refused before the reference solve), 130 Ctrl-C / 143 SIGTERM (nothing written: the file is
renamed into place only when complete).

Examples:
    python scripts/dataset.py --env splitpoker/AsiaPokerSetting-v0 --policy table --episodes 10000 --out asia_table.parquet
    python scripts/dataset.py --env splitpoker/PaiGowPokerSession-v0 --env-kwargs '{"bankroll": 100, "target": 150}' \\
        --policy dp --episodes 2000 --out sessions_dp.parquet
    python scripts/dataset.py --policy runs/asia/model.zip --episodes 5000 --format minari --out splitpoker/asia/ppo-v0
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import json
import os
import tempfile
from pathlib import Path

from splitpoker.scripts.support import cli

FORMATS = ("parquet", "minari")
HAND_POLICIES = ("house-way", "table", "optimal", "mc-best", "random")
SESSION_POLICIES = ("dp", "bold", "flat", "random")
REFERENCE_SEED = 2024  # the benchmark's validation seed: the same cached reference hands
#: a betting env's reference sample: the optimum's value V* is estimated on it (its 95% CI is about
#: +-0.26 units on 2 hands) and must come out below 0 (the minimum bet then is the optimal bet)
MIN_BET_REFERENCE_HANDS = 100
#: Parquet: the episodes are held in memory until the file is written; measured peak (tracemalloc,
#: 2,000 episodes) 17.6 KB a step on AsiaPokerSetting-v0 (202 observation values, 105 actions) and
#: 24.6 KB on AsiaPoker-v0 (202, 153): about this many bytes per observation value and per action
BYTES_PER_OBS_VALUE, BYTES_PER_ACTION = 84, 40


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--env", default="splitpoker/AsiaPokerSetting-v0", help="environment id (default AsiaPokerSetting-v0)")
    p.add_argument("--env-kwargs", default="{}", type=cli.json_object("env keywords"), help="JSON of env keywords")
    p.add_argument("--policy", required=True, help=f"a baseline ({', '.join(HAND_POLICIES)}; sessions: "
                   f"{', '.join(SESSION_POLICIES)}) or a saved model .zip (loading a model runs the code "
                   "pickled in it: load only models you trust)")
    p.add_argument("--episodes", type=cli.count(1, 10_000_000, "episodes to write"), required=True, help="episodes to write")
    p.add_argument("--seed", type=cli.seed, default=0, help="seed of the episodes' reset seeds (default 0)")
    p.add_argument("--format", choices=FORMATS, default="parquet", help="parquet (default) or minari")
    p.add_argument("--out", required=True, help="output .parquet file, or the Minari dataset id")
    p.add_argument("--reference-hands", type=cli.count(2, 100_000, "hands solved for the reference scores"), default=200,
                   help="hands of the reference sample (exact solves, cached; default 200; a betting env needs "
                        f"at least {MIN_BET_REFERENCE_HANDS})")
    return p.parse_args(argv)


def make_policy(name: str, env, seed: int):
    """An ``act(obs, info) -> action`` callable for ``env``."""
    import numpy as np

    u = env.unwrapped
    if name.endswith(".zip"):
        from splitpoker.agents.training.models import load_model

        model, _ = load_model(name)
        masked = type(model).__name__.startswith("Maskable")

        def act(obs, info):
            kw = {"action_masks": info["action_mask"]} if masked else {}
            return int(model.predict(obs, deterministic=True, **kw)[0])

        act.model = model
        return act
    if hasattr(u, "start_bankroll"):  # a session env: the DP's policies bet, the delegate sets
        from splitpoker.agents.sessions import dp as sd
        from splitpoker.agents.sessions.round_distribution import house_way_distribution

        if name == "random":
            rng = np.random.default_rng(seed)
            return lambda obs, info: int(rng.choice(np.flatnonzero(info["action_mask"])))
        table = sd.BetTable(tuple(u.bet_table))
        dist = house_way_distribution(u.game, u.config.paytable)
        if name == "dp":
            sol = sd.solve(dist, table, u.start_bankroll, u.target, u.max_hands)
            return lambda obs, info: sol.action(info["bankroll"], info["hands_left"])
        if name == "bold":
            return lambda obs, info: sd.bold_action(table, dist, info["bankroll"], u.target)
        return lambda obs, info: sd.flat_action(table)
    from splitpoker.agents.policies.baselines import make_baseline

    kw = {"seed": seed} if name in ("random", "mc-best") else {}
    pol = make_baseline(name, env, **kw)
    return lambda obs, info: pol.act(obs, info["action_mask"])


def reference_scores(env_id: str, kwargs: dict, hands: int, log) -> dict:
    """Expected episode return of the random legal policy and of the exact optimum (exact)."""
    from splitpoker.agents.benchmark.tasks import natural_task, prepare

    task = natural_task(env_id)
    if task is None:
        raise cli.CliError(f"--env {env_id}: no exact reference scores for this env (expected a one-seat or session env)")
    data = prepare(task, "validation", env_id, kwargs, hands, REFERENCE_SEED, log=log)
    if task == "session":
        s = data.session
        if kwargs.get("reward", "target") != "target":
            raise cli.CliError("reference scores of a session are success probabilities: use reward='target'")
        best, worst = s["p_optimal"], s["p_random"]
        how = f"exact success probabilities of the DP optimum and of uniformly random legal bets (${s['bankroll']:g} to ${s['target']:g})"
    else:
        best = float(data.evalset.best.mean())  # (bets: the optimum bets one unit, no bonus: the same return)
        worst = best - data.random_regret
        how = (f"exact expected return per episode on {data.evalset.hands} reference hands (seed {REFERENCE_SEED}, "
               f"sha256 {data.evalset.sha256[:16]}): the exact-optimal policy and the uniformly random legal policy")
    return {"ref_min_score": float(worst), "ref_max_score": float(best), "reference": how, "task": task}


def episodes(env, act, seeds, progress=None):
    """Yield one dict of lists per episode: obs, action, reward, terminated, truncated, next_obs, mask."""
    for s in seeds:
        obs, info = env.reset(seed=s)
        ep = {k: [] for k in ("obs", "action", "reward", "terminated", "truncated", "next_obs", "action_mask")}
        while True:
            a = act(obs, info)
            ep["obs"].append(obs)
            ep["action_mask"].append(info["action_mask"])
            obs, r, term, trunc, info = env.step(a)
            ep["action"].append(int(a))
            ep["reward"].append(float(r))
            ep["terminated"].append(bool(term))
            ep["truncated"].append(bool(trunc))
            ep["next_obs"].append(obs)
            if term or trunc:
                break
        if progress is not None:
            progress(1)
        yield ep


def write_parquet(path: Path, env, act, seeds, meta: dict, progress=None) -> int:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {k: [] for k in ("episode", "step", "obs", "action", "reward", "terminated", "truncated", "next_obs", "action_mask")}
    for i, ep in enumerate(episodes(env, act, seeds, progress)):
        n = len(ep["action"])
        cols["episode"] += [i] * n
        cols["step"] += list(range(n))
        for k in ("obs", "next_obs"):
            cols[k] += [np.asarray(o, dtype=np.float32) for o in ep[k]]
        cols["action_mask"] += [np.asarray(m, dtype=bool) for m in ep["action_mask"]]
        for k in ("action", "reward", "terminated", "truncated"):
            cols[k] += ep[k]
    width = len(cols["obs"][0])
    table = pa.table({
        "episode": pa.array(cols["episode"], pa.int64()), "step": pa.array(cols["step"], pa.int32()),
        "obs": pa.FixedSizeListArray.from_arrays(np.concatenate(cols["obs"]), width),
        "action": pa.array(cols["action"], pa.int64()), "reward": pa.array(cols["reward"], pa.float64()),
        "terminated": pa.array(cols["terminated"]), "truncated": pa.array(cols["truncated"]),
        "next_obs": pa.FixedSizeListArray.from_arrays(np.concatenate(cols["next_obs"]), width),
        "action_mask": pa.FixedSizeListArray.from_arrays(np.concatenate(cols["action_mask"]), len(cols["action_mask"][0])),
    }).replace_schema_metadata({"splitpoker": json.dumps(meta)})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return table.num_rows


def read_parquet(path) -> tuple:
    """``(pyarrow.Table, metadata dict)`` of a dataset written by this script."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return table, json.loads(table.schema.metadata[b"splitpoker"])


def write_minari(dataset_id: str, env, act, seeds, meta: dict, progress=None) -> int:
    import importlib.util

    if importlib.util.find_spec("minari") is None or importlib.util.find_spec("jax") is None:  # create_dataset needs jax
        raise cli.CliError("--format minari needs Minari with its dataset-creation extra: pip install 'splitpoker[minari]' "
                           "(or use --format parquet)")
    import minari

    collector = minari.DataCollector(env, record_infos=False, data_format="arrow")  # pyarrow: no h5py needed
    steps = 0
    for s in seeds:
        obs, info = collector.reset(seed=s)
        while True:
            obs, _, term, trunc, info = collector.step(act(obs, info))
            steps += 1
            if term or trunc:
                break
        if progress is not None:
            progress(1)
    collector.create_dataset(dataset_id=dataset_id, algorithm_name=meta["policy"], ref_min_score=meta["ref_min_score"],
                             ref_max_score=meta["ref_max_score"], description=meta["reference"],
                             eval_env=meta["env_id"])
    return steps


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    # Ctrl-C/SIGTERM raise KeyboardInterrupt from here on: one landing while the env is checked
    # and built (imports, gym.make) ends in one line too, as one during the episodes does
    return cli.run_interruptible(_main, args, "nothing written; rerun the same command")


def _policy(name: str, env, args):
    """The policy's ``act``, made before any slow work: a file that is no saved model, or a model
    of another env (another game, other keywords), is a :class:`cli.CliError` naming it."""
    if name.endswith(".zip"):
        from splitpoker.agents.training.models import check_model_fits

        try:
            act = make_policy(name, env, args.seed)
        except Exception as e:  # noqa: BLE001 - any unloadable file is a user error here
            raise cli.CliError(f"--policy {name}: cannot load it as a saved model ({type(e).__name__}: {e})") from None
        try:
            check_model_fits(act.model, env.unwrapped, args.env)
        except ValueError as e:
            raise cli.CliError(f"--policy {name}: {e}") from None
        return act
    try:
        return make_policy(name, env, args.seed)
    except ValueError as e:  # the DP's refusal of a session it cannot solve, a baseline's of its env
        raise cli.CliError(f"--policy {name} on {args.env} {json.dumps(args.env_kwargs)}: {e}") from None


def _check_memory(env, episodes: int) -> None:
    """Refuse (:class:`cli.CliError` with the figures) a Parquet dataset whose episodes cannot be
    held in this machine's memory until the file is written."""
    import math

    from splitpoker.envs.rules.checks import check_fits_in_memory

    u = env.unwrapped
    per_step = BYTES_PER_OBS_VALUE * math.prod(env.observation_space.shape) + BYTES_PER_ACTION * int(env.action_space.n)
    if hasattr(u, "start_bankroll"):  # a session: a bet step (and a setting step) per hand
        hands = u.max_hands or 1
        steps, least = hands * (2 if getattr(u, "agent_sets", False) else 1), u.max_hands is None
    else:
        steps, least = (2 if getattr(u, "n_bet_actions", 0) else 1), False
    try:
        check_fits_in_memory(f"--episodes {episodes:,} ({'at least ' if least else ''}{episodes * steps:,} steps of "
                             f"about {per_step:,} bytes, held until the file is written)", episodes * steps * per_step,
                             "write fewer episodes per file")
    except ValueError as e:
        raise cli.CliError(str(e)) from None


def _main(args) -> int:
    say = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    env = None
    try:
        try:
            if args.format == "parquet":
                out = cli.check_output("--out", args.out, (".parquet",))
                if out.exists():
                    raise cli.CliError(f"--out {args.out}: the file exists; remove it or choose another name")
            name = args.policy
            if name.endswith(".zip") and not Path(name).is_file():
                raise cli.CliError(f"--policy {name}: the model file does not exist")
            import gymnasium as gym

            import splitpoker  # noqa: F401  (registers the ids)
            from splitpoker.agents.benchmark.task_names import natural_task
            from splitpoker.envs.registration import ALL_ENV_IDS, SESSION_ENV_IDS

            if args.env not in ALL_ENV_IDS:
                raise cli.CliError(f"--env {args.env}: unknown id; expected one of {', '.join(ALL_ENV_IDS)}")
            allowed = SESSION_POLICIES if args.env in SESSION_ENV_IDS else HAND_POLICIES
            if not name.endswith(".zip") and name not in allowed:
                raise cli.CliError(f"--policy {name}: expected a saved model .zip or one of {', '.join(allowed)} for {args.env}")
            if natural_task(args.env) == "bets" and args.reference_hands < MIN_BET_REFERENCE_HANDS:
                raise cli.CliError(f"--reference-hands {args.reference_hands}: a betting env's reference scores need at least "
                                   f"{MIN_BET_REFERENCE_HANDS} hands (the optimum's value is estimated on them and must be "
                                   f"below 0 for the minimum bet to be the optimal one; default 200)")
            try:
                env = gym.make(args.env, **args.env_kwargs)
            except (TypeError, ValueError) as e:
                raise cli.CliError(f"--env-kwargs {json.dumps(args.env_kwargs)}: {e}") from None
            act = _policy(name, env, args)
            if args.format == "parquet":
                _check_memory(env, args.episodes)
        except cli.CliError as e:
            say(f"error: {e}")
            return 2
        from tqdm import tqdm

        from splitpoker.agents.evaluation.evaluate import hand_seeds

        try:
            meta = {"env_id": args.env, "env_kwargs": args.env_kwargs, "policy": name, "episodes": args.episodes,
                    "seeds": f"splitpoker.agents.evaluation.evaluate.hand_seeds({args.seed}, {args.episodes})"}
            try:
                meta.update(reference_scores(args.env, args.env_kwargs, args.reference_hands, log=say))
            except ValueError as e:  # e.g. a betting env's optimum not shown below 0 on this sample
                if isinstance(e, cli.CliError):
                    raise
                raise cli.CliError(f"--reference-hands {args.reference_hands} on {args.env}: {e}") from None
            seeds = hand_seeds(args.seed, args.episodes)
            with tqdm(total=args.episodes, desc=f"{name} episodes", unit="ep", file=sys.stderr, disable=None) as bar:
                if args.format == "parquet":
                    rows = write_parquet(out, env, act, seeds, meta, bar.update)
                    where = str(out)
                else:
                    rows = write_minari(args.out, env, act, seeds, meta, bar.update)
                    where = f"Minari dataset {args.out}"
        except cli.CliError as e:
            say(f"error: {e}")
            return 2
    finally:
        if env is not None:
            env.close()
    say(f"wrote {args.episodes:,} episodes ({rows:,} steps) of {name} on {args.env} to {where}; "
        f"reference scores: random {meta['ref_min_score']:+.4f}, optimum {meta['ref_max_score']:+.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
