"""``scripts/benchmark.py --only scorer``: the setting scorer's end-to-end training speed before and
after the fused autograd function, side by side in one process, with the final exact regret of
both trained models on the same held-out hands ("at equal final regret").

*Before* is the code path of the scorer as it was before :mod:`splitpoker.agents.policies.scorer_kernel`:
:class:`MainCodePathNet` (the previous ``SettingScorerNet`` forward, written with the modules and
autograd: ``phi`` over the strided setting rows, ``amax`` pooling, ``score(h) + einsum`` scores),
sb3-contrib's masked categorical with torch's argument checks, and Adam without ``foreach``
(torch's CPU default). *After* is the shipped policy. Both train MaskablePPO +
``SettingScorerPolicy`` from the same seed with the same hyperparameters on the native vector env;
their parameters are the same modules, so the two runs learn the same function up to float
rounding of the gradients.

Each game runs ``before, after, before, after`` (fresh models, the same seed): the repeats bracket
changes in machine load, and steps per CPU-second (``time.process_time``: this process only) is
the figure to compare on a shared machine. Timed: ``model.learn`` of ``--train-steps`` steps
after a one-rollout warm-up (rollouts, the environment and the updates: end to end).
"""

from __future__ import annotations

import time

import numpy as np
import torch as th

from splitpoker.agents.policies.setting_scorer import SettingScorerNet
from splitpoker.agents.process_state import leaves_process_as_found
from splitpoker.envs.rules.play.observation import OBS_SIZE
from splitpoker.scripts.support.cli import SETTING_ENVS

GAMES = SETTING_ENVS
TRAIN_KWARGS = {"dealer_samples": 64, "observe_settings": True, "setting_features": True}
# the headline grid's MaskablePPO + SettingScorer row (configs/benchmark/headline.yaml), constant rate
N_ENVS = 16
ALGO_KWARGS = {"learning_rate": 2e-3, "n_steps": 128, "batch_size": 128, "n_epochs": 4, "gamma": 0.0,
               "gae_lambda": 1.0, "ent_coef": 0.01}
POLICY_KWARGS = {"hidden": 64, "context": 8}
# the lighter update at equal final regret, per game (docs/rl_benchmark/rl_benchmark_extra.md, grids scorer_speed
# and scorer_speed_lighter, 10 seeds each): Asia 64 envs x 32 steps, batch 256, 2 epochs, lin_4e-3;
# Pai Gow 128 envs x 16 steps, batch 512, 2 epochs, lin_8e-3 (timed here at a constant rate)
LIGHT = {"asia": (64, {**ALGO_KWARGS, "learning_rate": 4e-3, "n_steps": 32, "batch_size": 256, "n_epochs": 2}),
         "paigow": (128, {**ALGO_KWARGS, "learning_rate": 8e-3, "n_steps": 16, "batch_size": 512, "n_epochs": 2})}
VALIDATION_SEED = 2024  # the benchmark's validation split (nothing here is chosen on it)


class MainCodePathNet(SettingScorerNet):
    """The setting scorer's forward before the fused function (the same parameters; kept for the
    side-by-side speed benchmark only)."""

    def _encode_previous(self, obs: th.Tensor):
        rows = obs[:, self.features_start:].reshape(obs.shape[0], self.n_settings, self.n_features)
        h = self.phi(rows)  # [B, S, hidden]
        c = self.card(obs[:, :OBS_SIZE])
        pooled = th.cat([c, h.mean(dim=1), h.amax(dim=1)], dim=1)
        return h, c, pooled

    def _scores_previous(self, h: th.Tensor, c: th.Tensor) -> th.Tensor:
        ctx = self.ctx(th.cat([c, h.mean(dim=1)], dim=1))
        return self.score(h).squeeze(2) + th.einsum("bsh,bh->bs", h, self.modulate(ctx))

    def forward_actor(self, obs: th.Tensor) -> th.Tensor:
        h, c, pooled = self._encode_previous(obs)
        return self._logits(self._scores_previous(h, c), pooled)

    def forward_critic(self, obs: th.Tensor) -> th.Tensor:
        return self.value(self._encode_previous(obs)[2])

    def forward(self, obs: th.Tensor):
        h, c, pooled = self._encode_previous(obs)
        return self._logits(self._scores_previous(h, c), pooled), self.value(pooled)


def use_previous_code_path(model) -> None:
    """Switch a freshly built MaskablePPO + SettingScorerPolicy to the code path before the fused
    function: the previous forward, the checked distribution, Adam without ``foreach``."""
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    policy = model.policy
    policy.mlp_extractor.__class__ = MainCodePathNet
    policy.action_dist = MaskableCategoricalDistribution(int(policy.action_space.n))
    lr = policy.optimizer.param_groups[0]["lr"]
    kwargs = {**policy.optimizer_kwargs, "foreach": False}
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=lr, **kwargs)


def build_model(game: str, seed: int, n_envs: int = N_ENVS, algo_kwargs: dict | None = None):
    from splitpoker.agents.training.algorithms import quiet_logger
    from splitpoker.agents.training.config import TrainConfig
    from splitpoker.agents.training.run import algo_class, make_vec_env, resolve_policy

    env_id, kw = GAMES[game]
    cfg = TrainConfig(env_id=env_id, env_kwargs={**kw, **TRAIN_KWARGS}, algo="maskable_ppo",
                      policy="SettingScorerPolicy", algo_kwargs=dict(algo_kwargs or ALGO_KWARGS),
                      policy_kwargs=dict(POLICY_KWARGS), n_envs=n_envs, total_timesteps=1, seed=seed, vec_env="native")
    venv = make_vec_env(cfg)
    policy, pkw = resolve_policy(cfg)
    model = algo_class("maskable_ppo")(policy, venv, seed=seed, device="cpu", policy_kwargs=pkw, verbose=0,
                                       **cfg.algo_kwargs)
    model.set_logger(quiet_logger())
    return model, venv


def train_timed(game: str, variant: str, steps: int, seed: int) -> tuple[object, dict]:
    """Train one model of ``variant``: ``before`` (the headline row on the code path before the
    fused function), ``after`` (the headline row today) or ``light`` (today's code with the game's
    lighter update, :data:`LIGHT`); returns it with its timing row."""
    n_envs, algo_kwargs = LIGHT[game] if variant == "light" else (N_ENVS, ALGO_KWARGS)
    model, venv = build_model(game, seed, n_envs, algo_kwargs)
    if variant == "before":
        use_previous_code_path(model)
    warm = n_envs * algo_kwargs["n_steps"]
    model.learn(warm)  # warm-up: one rollout and update (first calls, numba kernels)
    t, c = time.perf_counter(), time.process_time()
    model.learn(steps, reset_num_timesteps=False)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    venv.close()
    done = int(model.num_timesteps) - warm
    return model, {"steps": done, "wall_s": wall, "cpu_s": cpu, "steps_per_wall_s": done / wall,
                   "steps_per_cpu_s": done / cpu, "load_1min_after": _load()}


def _load() -> float | None:
    try:
        import os

        return float(os.getloadavg()[0])
    except OSError:
        return None


def exact_regrets(model, game: str, hands: int, log) -> tuple[np.ndarray, np.ndarray, dict, object]:
    """Per-hand exact regret and settings of ``model`` on the validation hands (cached set)."""
    from splitpoker.agents.evaluation.evaluate import run_policy
    from splitpoker.agents.exact.eval_set import load_evalset, make_eval_env
    from splitpoker.agents.policies.baselines import SB3Policy

    env_id, kw = GAMES[game]
    kw = {**kw, **TRAIN_KWARGS}
    es = load_evalset(env_id, kw, hands, VALIDATION_SEED, log=log)
    env = make_eval_env(env_id, kw)
    try:
        rec = run_policy(env, SB3Policy.from_env(env, model=model, name="scorer"), list(es.seeds))
    finally:
        env.close()
    return es.regrets(rec.settings), rec.settings, es.score(rec.settings, rec.cards), es


@leaves_process_as_found
def run_scorer_benchmark(args, log=print) -> dict:
    from splitpoker.agents.evaluation.evaluate import mean_ci

    th.set_num_threads(1)
    steps, hands, seed = args.train_steps, args.scorer_hands, 0
    out = {"method": __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "steps": steps, "seed": seed,
           "n_envs": N_ENVS, "algo_kwargs": ALGO_KWARGS, "policy_kwargs": POLICY_KWARGS, "env_kwargs": TRAIN_KWARGS,
           "torch_threads": th.get_num_threads(), "load_1min_before": _load(), "games": {}}
    for game in args.scorer_games:
        rows, models = [], {}
        variants = ("before", "after", "light") if args.scorer_light else ("before", "after")
        for variant in variants * 2:
            model, row = train_timed(game, variant, steps, seed)
            models.setdefault(variant, model)
            rows.append({"variant": variant, **row})
            log(f"[scorer] {game} {variant}: {row['steps_per_cpu_s']:.0f} steps/CPU-s, "
                f"{row['steps_per_wall_s']:.0f} steps/wall-s (load {row['load_1min_after']})")
        speed = {v: {"steps_per_cpu_s": [r["steps_per_cpu_s"] for r in rows if r["variant"] == v],
                     "steps_per_wall_s": [r["steps_per_wall_s"] for r in rows if r["variant"] == v]} for v in models}
        ratio_cpu = float(np.mean(speed["after"]["steps_per_cpu_s"]) / np.mean(speed["before"]["steps_per_cpu_s"]))
        ratio_wall = float(np.mean(speed["after"]["steps_per_wall_s"]) / np.mean(speed["before"]["steps_per_wall_s"]))
        light = {}
        if "light" in speed:  # the lighter update today against the headline row as the issue found it
            light = {"light_row": {"n_envs": LIGHT[game][0], "algo_kwargs": LIGHT[game][1]},
                     "speedup_light_vs_before_cpu": float(np.mean(speed["light"]["steps_per_cpu_s"])
                                                          / np.mean(speed["before"]["steps_per_cpu_s"])),
                     "speedup_light_vs_before_wall": float(np.mean(speed["light"]["steps_per_wall_s"])
                                                           / np.mean(speed["before"]["steps_per_wall_s"])),
                     "speedup_light_vs_after_cpu": float(np.mean(speed["light"]["steps_per_cpu_s"])
                                                         / np.mean(speed["after"]["steps_per_cpu_s"]))}
        regrets, settings, scored, es = {}, {}, {}, None
        for v, model in models.items():
            regrets[v], settings[v], scored[v], es = exact_regrets(model, game, hands, log)
        d, dci = mean_ci(regrets["before"] - regrets["after"])
        out["games"][game] = {
            "env_id": GAMES[game][0], "runs": rows, "speed": speed,
            "speedup_cpu": ratio_cpu, "speedup_wall": ratio_wall,
            "final_regret": {v: {k: scored[v][k] for k in ("mean_regret", "regret_ci95", "optimal_rate")} for v in models},
            "regret_before_minus_after": d, "regret_before_minus_after_ci95": dci,
            "hands_played_differently": int((settings["before"] != settings["after"]).sum()),
            "evalset": {"split": "validation", "hands": es.hands, "seed": es.seed, "sha256": es.sha256}, **light}
        log(f"[scorer] {game}: {ratio_cpu:.2f}x steps/CPU-s, {ratio_wall:.2f}x steps/wall-s; final exact regret "
            f"before {scored['before']['mean_regret']:.4f}, after {scored['after']['mean_regret']:.4f}")
        if light:
            log(f"[scorer] {game}: light row {light['speedup_light_vs_before_cpu']:.2f}x steps/CPU-s of the headline "
                f"row before the fused function ({light['speedup_light_vs_after_cpu']:.2f}x of it today); final exact "
                f"regret {scored['light']['mean_regret']:.4f} (one seed: the 10-seed comparison is the benchmark grid's)")
    out["load_1min_after"] = _load()
    return out
