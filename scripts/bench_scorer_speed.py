#!/usr/bin/env python
"""Training speed of the setting scorer, side by side in one process: steps per CPU-second and per
wall-second of MaskablePPO + SettingScorerPolicy under several vectorisations.

Variants (same algo_kwargs, same 2,048-step rollout, one torch thread, after a 2,048-step warm-up):
  dummy-4-two-pass   the previous setup: SB3 DummyVecEnv of 4 single envs, and a scorer forward
                     that encoded the settings twice (once for the logits, once for the value)
  native-4           the native vector env (agents/training/sb3_vec.py), 4 envs, one encoding per forward
  native-16          the native vector env, 16 envs x 128 steps (the shipped configs)
  dummy-4-two-pass   again at the end: the first and last rows bracket any change in load

CPU-seconds (time.process_time) are the figure to compare on a shared machine: wall time depends
on what else runs. Results go to stdout as JSON (and to --out).

Example:
    python scripts/bench_scorer_speed.py --game paigow --steps 8192 --out /tmp/speed.json
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import time

from splitpoker.agents.process_state import leaves_process_as_found
from splitpoker.envs.registration import SETTING_ENV_OF_GAME
from splitpoker.envs.rules.games.spec import SPECS
from splitpoker.scripts.support import cli

ENVS = {spec.name: (SETTING_ENV_OF_GAME[spec.name], {"house_way": spec.default_house_way}) for spec in SPECS.values()}
VARIANTS = [("dummy-4-two-pass", "dummy", 4, 512, True), ("native-4", "native", 4, 512, False),
            ("native-16", "native", 16, 128, False), ("dummy-4-two-pass (again)", "dummy", 4, 512, True)]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(ENVS), default="paigow", help="which one-step setting env (default paigow)")
    p.add_argument("--steps", type=cli.count(1, 10_000_000, "time: ~1,000-4,000 steps/s"), default=8192,
                   help="timed training steps per variant (default 8192)")
    p.add_argument("--out", help="also write the JSON here (.json, atomically; the folder is checked first)")
    return p.parse_args(argv)


@leaves_process_as_found
def measure(game: str, steps: int, log=print) -> dict:
    import torch

    import splitpoker.agents.policies.setting_scorer as ss
    from splitpoker.agents.training.algorithms import quiet_logger
    from splitpoker.agents.training.config import TrainConfig
    from splitpoker.agents.training.run import algo_class, make_vec_env, resolve_policy

    torch.set_num_threads(1)
    one_pass = ss.SettingScorerNet.forward

    def two_pass(self, obs):
        return self.forward_actor(obs), self.forward_critic(obs)

    env_id, kw = ENVS[game]
    kw = {**kw, "dealer_samples": 16, "setting_features": True}
    out = {"game": game, "env_id": env_id, "steps": steps, "variants": {}}
    try:
        for name, vec, n_envs, n_steps, old in VARIANTS:
            ss.SettingScorerNet.forward = two_pass if old else one_pass
            cfg = TrainConfig(env_id=env_id, env_kwargs=kw, algo="maskable_ppo", policy="SettingScorerPolicy",
                              algo_kwargs={"learning_rate": 1e-3, "n_steps": n_steps, "batch_size": 512, "n_epochs": 4,
                                           "gamma": 0.0, "gae_lambda": 1.0, "ent_coef": 0.0},
                              policy_kwargs={"hidden": 64, "context": 16}, n_envs=n_envs, total_timesteps=steps, seed=0,
                              vec_env=vec)
            venv = make_vec_env(cfg)
            policy, pkw = resolve_policy(cfg)
            model = algo_class("maskable_ppo")(policy, venv, seed=0, device="cpu", policy_kwargs=pkw, verbose=0,
                                               **cfg.algo_kwargs)
            model.set_logger(quiet_logger())
            model.learn(2048)  # warm-up: compilation, first rollout
            t, c = time.perf_counter(), time.process_time()
            model.learn(steps, reset_num_timesteps=False)
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            venv.close()
            row = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 2), "steps_per_wall_s": round(steps / wall, 1),
                   "steps_per_cpu_s": round(steps / cpu, 1)}
            out["variants"][name] = row
            log(f"{name}: {row}")
    finally:
        ss.SettingScorerNet.forward = one_pass
    return out


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_measurement(args.out, lambda log: measure(args.game, args.steps, log=log))


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
