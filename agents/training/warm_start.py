"""Warm start: behaviour cloning or policy distillation from a teacher, then RL fine-tuning
(config key ``warm_start``).

1. :func:`write_teacher_dataset` deals ``hands`` seeded hands of the training environment to a
   teacher (``table`` — the strategy table —, ``house-way``, ``mc-best`` or ``optimal``; any name
   of :data:`splitpoker.agents.policies.baselines.BASELINES` except ``random``) and writes every decision as a row of
   a Parquet file — a standard format readable by pandas, pyarrow or polars, so the same file
   serves offline-RL experiments. Columns:

   ================  =================  ==========================================================
   ``obs``           list<float32>      the observation the decision was taken on
   ``action_mask``   list<bool>         the legal actions
   ``action``        int64              the teacher's action
   ``action_values`` list<float32>      the teacher's value of every action, EV per unit wagered
                                        (``table``: exact EV against all dealer hands without card
                                        removal; ``optimal``: exact EV; ``mc-best``: its Monte
                                        Carlo estimate). **NaN** where the action is illegal or
                                        the teacher has no value for it (``house-way``; the bet
                                        decisions of the betting environments), never a number
                                        that could pass for an EV.
   ``seed``          int64              the hand's reset seed (``env.reset(seed=seed)`` deals it)
   ================  =================  ==========================================================

   The one-step setting environments (``*Setting-v0``) with the ``table`` or ``house-way``
   teacher take the batched path: the native vector environment (:mod:`splitpoker.envs.vector.env`) deals
   thousands of hands per call (the same hands as ``reset(seed=s)`` of the single environment)
   and the strategy table values all their settings in one vectorised lookup. Other
   combinations play the hands one by one.
2. :func:`behaviour_clone` trains the untrained model's policy on the rows (masks applied, as in
   training) for ``epochs`` epochs with the model's own optimizer (learning rate
   ``learning_rate``, default the model's), minimising the cross-entropy against a target:

   * ``target: hard`` (behaviour cloning): the teacher's action, one-hot.
   * ``target: soft`` (policy distillation): ``softmax(action_values / temperature)`` over the
     legal actions (illegal ones get zero mass; a row without values falls back to its one-hot).
     The clone then learns *how much* worse every other setting is, not only which one is best:
     a near-tie costs almost nothing if confused, a 0.05 gap costs a lot, and the hard target
     cannot tell the two apart.

3. :func:`splitpoker.agents.training.run.train` (or the benchmark harness) then runs the configured RL
   algorithm from those weights, with that algorithm's own ``algo_kwargs``.

Temperature (units: EV per unit wagered). Regret gaps between a hand's best settings are about
0.001-0.05, so ``T`` must be of that order: ``T`` = 0.1 spreads the target over dozens of
settings (it teaches the ranking but the greedy action blurs), ``T`` → 0 is the hard label. The
default ``T`` = 0.003 gives a setting 0.003 worse than the best e⁻¹ ≈ 0.37 of its weight and one
0.015 worse under 1%: near-ties share the mass, real mistakes get none. Measured (one seed,
50,000 table hands, 5 epochs, exact regret of the clone on the benchmark's 500 evaluation
hands; docs/training.md, "Warm start"): Pai Gow 0.00040 at ``T`` = 0.003, 0.00048 at 0.01,
0.00056 at 0.03, 0.00065 with hard labels; Asia 0.00099 at 0.003, 0.00160 at 0.01.

Config::

    warm_start: {teacher: table, hands: 50000, epochs: 5, batch_size: 256, seed: 1,
                 target: soft, temperature: 0.003, learning_rate: 0.001}

The dataset is written to the run directory (``warm_start.parquet``) and the run's
``warm_start.json`` records the teacher, its size, the loss and the clone's final accuracy and
teacher-value regret on it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from splitpoker.envs.rules.checks import is_integer

TEACHERS = ("table", "house-way", "mc-best", "optimal")
#: the teachers that value every setting (``target: soft`` needs them)
VALUE_TEACHERS = ("table", "mc-best", "optimal")
TARGETS = ("hard", "soft")
DEFAULT_TEMPERATURE = 0.003
#: hands dealt per call of the native vector environment on the batched path
BATCH_HANDS = 4096


@dataclass(frozen=True)
class WarmStart:
    """The ``warm_start`` config block (every field has its meaning in the module docstring)."""

    teacher: str = "table"
    hands: int = 20_000
    epochs: int = 3
    batch_size: int = 256
    seed: int = 1
    target: str = "hard"
    temperature: float = DEFAULT_TEMPERATURE
    learning_rate: float | None = None

    def __post_init__(self):
        if self.teacher not in TEACHERS:
            raise ValueError(f"warm_start teacher {self.teacher!r}: expected one of {TEACHERS}")
        for name in ("hands", "epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"warm_start {name}={v!r}: expected a positive integer")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"warm_start seed={self.seed!r}: expected an integer >= 0")
        if self.target not in TARGETS:
            raise ValueError(f"warm_start target {self.target!r}: expected 'hard' (the teacher's action) or "
                             f"'soft' (softmax of the teacher's action values / temperature)")
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise ValueError(f"warm_start temperature={t!r}: expected a finite number > 0 (EV per unit wagered, "
                             f"e.g. {DEFAULT_TEMPERATURE})")
        lr = self.learning_rate
        if lr is not None and (isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0):
            raise ValueError(f"warm_start learning_rate={lr!r}: expected null (the model's own) or a finite number > 0")
        if self.target == "soft" and self.teacher not in VALUE_TEACHERS:
            raise ValueError(f"warm_start target 'soft' needs a teacher that values every action, one of {VALUE_TEACHERS}; "
                             f"teacher {self.teacher!r} only names its action: use target: hard")

    @classmethod
    def from_dict(cls, data) -> WarmStart:
        from splitpoker.envs.rules.options import dataclass_from_dict

        if not isinstance(data, dict):
            raise ValueError(f"warm_start={data!r}: expected a mapping such as {{teacher: table, hands: 20000}}")
        return dataclass_from_dict(cls, data, "warm_start field(s)")


# ---- the dataset ------------------------------------------------------------------------------

def write_teacher_dataset(env, teacher: str, hands: int, seed: int, path: str | Path, progress=None, *,
                          batched: bool | None = None, table=None) -> Path:
    """Deal ``hands`` hands (reset seeds :func:`splitpoker.agents.evaluation.evaluate.hand_seeds` of ``seed``) to
    ``teacher``; one Parquet row per decision (two per hand in the betting environments).
    ``table``: the :class:`splitpoker.agents.policies.strategy_table.StrategyTable` of the ``table`` teacher
    (default: the cached one of the environment's game).

    ``batched``: None (default) takes the batched path when it exists for ``env`` and
    ``teacher`` (:func:`batched_path_available`), False never, True requires it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from splitpoker.agents.evaluation.evaluate import hand_seeds

    if not is_integer(hands) or hands < 1:
        raise ValueError(f"hands={hands!r}: expected a positive integer (hands to deal to the teacher)")
    if teacher not in TEACHERS:
        raise ValueError(f"teacher {teacher!r}: expected one of {TEACHERS}")
    seeds = hand_seeds(seed, int(hands))
    can = batched_path_available(env, teacher)
    if batched and not can:
        raise ValueError(f"no batched dataset path for teacher {teacher!r} on {type(env.unwrapped).__name__}: it "
                         f"needs a one-step setting environment and teacher 'table' or 'house-way'")
    rows = (_rows_batched if can and batched is not False else _rows_one_by_one)(env, teacher, seeds, seed, progress, table)
    obs, masks, actions, values, row_seeds = rows
    data = pa.table({
        "obs": _fixed_lists(obs.astype(np.float32, copy=False), pa.float32()),
        "action_mask": _fixed_lists(masks.astype(bool, copy=False), pa.bool_()),
        "action": pa.array(actions.astype(np.int64, copy=False), type=pa.int64()),
        "action_values": _fixed_lists(values.astype(np.float32, copy=False), pa.float32()),
        "seed": pa.array(row_seeds.astype(np.int64, copy=False), type=pa.int64()),
    })
    path = Path(path)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(data, tmp)
    tmp.replace(path)
    return path


def _fixed_lists(a: np.ndarray, value_type):
    """A list<value_type> array of ``a``'s rows, built from the flat buffer and offsets (no
    Python loop over rows); large_list once the values outgrow 32-bit offsets."""
    import pyarrow as pa

    n, w = a.shape
    if n * w < 2**31:
        offsets = pa.array(np.arange(0, (n + 1) * w, w, dtype=np.int32), type=pa.int32())
        return pa.ListArray.from_arrays(offsets, pa.array(a.reshape(-1), type=value_type))
    offsets = pa.array(np.arange(0, (n + 1) * w, w, dtype=np.int64), type=pa.int64())
    return pa.LargeListArray.from_arrays(offsets, pa.array(a.reshape(-1), type=value_type))


def batched_path_available(env, teacher: str) -> bool:
    """True for a one-step setting environment (no bet phase) of a game with a native vector
    environment and a teacher the batch can answer (``table``, ``house-way``)."""
    from splitpoker.envs.vector.env import SplitHandVectorEnv

    u = env.unwrapped
    return (teacher in ("table", "house-way") and getattr(u, "n_bet_actions", 1) == 0
            and any(c.single_env_cls is type(u) for c in SplitHandVectorEnv.__subclasses__()))


def _action_values(n_actions: int, offset: int, house_action, setting_values: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``float32[..., n_actions]``: the settings' values at their actions (the house-way action
    gets the house way's setting's value), NaN where illegal."""
    out = np.full(setting_values.shape[:-1] + (n_actions,), np.nan, dtype=np.float32)
    out[..., offset:offset + setting_values.shape[-1]] = setting_values
    if house_action is not None:
        idx, house = house_action
        out[..., idx] = np.take_along_axis(setting_values, np.asarray(house)[..., None], -1)[..., 0]
    return np.where(legal, out, np.nan).astype(np.float32)


def _rows_batched(env, teacher, seeds, seed, progress, table):
    """The batched path: the vector environment deals ``BATCH_HANDS`` hands at a time; the
    strategy table values them in one lookup and picks as :class:`splitpoker.agents.policies.baselines.StrategyTablePolicy`
    does (highest exact table EV among legal settings; ties to the house way, else lowest index)."""
    from splitpoker.agents.policies.strategy_table import StrategyTable
    from splitpoker.envs.vector.env import SplitHandVectorEnv

    u = env.unwrapped
    vec_cls = next(c for c in SplitHandVectorEnv.__subclasses__() if c.single_env_cls is type(u))
    if teacher == "table" and table is None:
        table = StrategyTable(u.game)
    table = table if teacher == "table" else None
    out = {k: [] for k in ("obs", "mask", "action", "values")}
    venv = vec_cls(min(BATCH_HANDS, len(seeds)), u.config)
    try:
        off, s_n, a_n = venv.setting_offset, venv.n_settings, venv.n_actions
        for lo in range(0, len(seeds), venv.num_envs):
            chunk = seeds[lo:lo + venv.num_envs]
            b = len(chunk)
            obs, _ = venv.reset(seed=chunk + [None] * (venv.num_envs - b))
            mask = venv.action_masks()[:b]
            legal = mask[:, off:off + s_n]
            house = venv.house_way_setting[:b].copy()
            if table is None:
                settings = house
                vals = np.full((b, a_n), np.nan, dtype=np.float32)
            else:
                ranks = venv.ranks[:b]
                r = table.counts(ranks.reshape(b * s_n, -1), venv.fouled[:b].reshape(-1))
                key = r._exact_key().reshape(b, s_n)
                ok = legal & ~venv.fouled[:b]
                ok = np.where(ok.any(1, keepdims=True), ok, legal)
                key = np.where(ok, key, np.iinfo(np.int64).min)
                best = ok & (key == key.max(1, keepdims=True))
                settings = np.where(best[np.arange(b), house], house, best.argmax(1))
                ha = None if venv.house_way_action is None else (venv.house_way_action, house)
                vals = _action_values(a_n, off, ha, r.ev.reshape(b, s_n), mask)
            out["obs"].append(obs[:b].copy())
            out["mask"].append(mask)
            out["action"].append(off + settings)
            out["values"].append(vals)
            if progress is not None:
                progress(b)
    finally:
        venv.close()
    cat = {k: np.concatenate(v) for k, v in out.items()}
    return cat["obs"], cat["mask"], cat["action"], cat["values"], np.asarray(seeds, dtype=np.int64)


def _rows_one_by_one(env, teacher, seeds, seed, progress, table):
    """The general path: play each hand with the teacher through ``env.step``; values from the
    teacher's own computation of the hand (table EVs, exact EVs, Monte Carlo means)."""
    from splitpoker.agents.policies.baselines import make_baseline
    from splitpoker.envs.rules.play.observation import PHASE, cards_from_observation

    extra = {"seed": seed} if teacher == "mc-best" else {"table": table} if teacher == "table" and table is not None else {}
    policy = make_baseline(teacher, env, **extra)
    u = env.unwrapped
    off, s_n, a_n = u.setting_offset, u.n_settings, int(u.action_space.n)
    obs_rows, mask_rows, actions, values, row_seeds = [], [], [], [], []
    for s in seeds:
        obs, info = env.reset(seed=s)
        while True:
            mask = np.asarray(info["action_mask"], dtype=bool)
            vals = np.full(a_n, np.nan, dtype=np.float32)
            if obs[PHASE][0] > 0.5 or teacher == "house-way":  # bets: the teachers have no values
                a = policy.act(obs, mask)
            else:
                hand = cards_from_observation(obs)
                legal = mask[off:off + s_n]
                ev = _setting_values(policy, teacher, hand, legal)
                house = policy.game.house_way(hand).setting
                ha = None if u.house_way_action is None else (np.array(u.house_way_action), np.array(house))
                vals = _action_values(a_n, off, ha, ev, mask)
                a = off + _teacher_choice(policy, teacher, hand, legal, ev)
            obs_rows.append(obs.astype(np.float32))
            mask_rows.append(mask)
            actions.append(int(a))
            values.append(vals)
            row_seeds.append(int(s))
            obs, _, term, trunc, info = env.step(a)
            if term or trunc:
                break
        if progress is not None:
            progress(1)
    return (np.asarray(obs_rows, dtype=np.float32), np.asarray(mask_rows, dtype=bool), np.asarray(actions, dtype=np.int64),
            np.asarray(values, dtype=np.float32), np.asarray(row_seeds, dtype=np.int64))


def _setting_values(policy, teacher, hand, legal) -> np.ndarray:
    """The teacher's value of every setting of ``hand`` (computed once per decision)."""
    if teacher == "table":
        policy._last = policy.table.evaluate(hand)
        return policy._last.ev
    if teacher == "optimal":
        policy._last = policy.solver.solve(hand)
        return policy._last.ev
    policy._calls += 1  # mc-best: the same draw its choose_setting would make
    mean, _ = policy.game.monte_carlo(hand, policy.samples, seed=policy.seed * 1_000_003 + policy._calls)
    return np.asarray(mean, dtype=np.float64)


def _teacher_choice(policy, teacher, hand, legal, ev) -> int:
    """The teacher's setting, from the values just computed (the policy's own tie rules)."""
    from splitpoker.agents.policies.strategy_table import best_setting

    if teacher == "mc-best":
        return int(np.argmax(np.where(legal, ev, -np.inf)))
    house = policy.game.house_way(hand).setting
    if teacher == "optimal":
        return int(policy._last.best(prefer=house))
    s = best_setting(policy._last, house, legal)
    if policy.exact_margin > 0:  # table with the exact refinement: exactly as its choose_setting
        return int(policy.choose_setting(hand, legal))
    return int(s)


def read_teacher_dataset(path: str | Path, *, values: bool = False):
    """``(obs[n, d] float32, masks[n, n_actions] bool, actions[n] int64)`` from a dataset file,
    plus ``values[n, n_actions] float32`` (NaN: illegal or unknown) with ``values=True``.

    Reads the flat child buffers of the list columns and reshapes them (no Python objects per
    row); every row of a column must have the same length."""
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    need = {"obs", "action_mask", "action"} | ({"action_values"} if values else set())
    missing = need - set(t.column_names)
    if missing:
        raise ValueError(f"{path} is not a teacher dataset: columns {sorted(missing)} missing"
                         + (" (written before action values existed: rewrite it, or use target: hard)"
                            if missing == {"action_values"} else ""))
    n = t.num_rows
    obs = _column_matrix(t, "obs", np.float32, path)
    masks = _column_matrix(t, "action_mask", bool, path)
    actions = t.column("action").to_numpy().astype(np.int64)
    if masks.shape[0] != n or obs.shape[0] != n:
        raise ValueError(f"{path}: list columns do not have one entry per row")
    if not values:
        return obs, masks, actions
    vals = _column_matrix(t, "action_values", np.float32, path)
    if vals.shape != masks.shape:
        raise ValueError(f"{path}: action_values rows of width {vals.shape[1]}, expected {masks.shape[1]} (one per action)")
    return obs, masks, actions, vals


def _column_matrix(t, name: str, dtype, path) -> np.ndarray:
    col = t.column(name).combine_chunks()
    if col.null_count:
        raise ValueError(f"{path}: column {name!r} has {col.null_count} null rows, expected none")
    offsets = col.offsets.to_numpy()
    widths = np.diff(offsets)
    if len(widths) and (widths != widths[0]).any():
        raise ValueError(f"{path}: column {name!r} has rows of lengths {sorted(set(widths.tolist()))[:5]}, expected one length")
    w = int(widths[0]) if len(widths) else 0
    flat = col.values.slice(int(offsets[0]) if len(offsets) else 0, len(widths) * w)
    return np.require(flat.to_numpy(zero_copy_only=False).astype(dtype, copy=False), requirements="W").reshape(len(widths), w)


# ---- the loss ---------------------------------------------------------------------------------

def soft_targets(values: np.ndarray, masks: np.ndarray, actions: np.ndarray, temperature: float) -> np.ndarray:
    """``float32[n, n_actions]`` distillation targets: ``softmax(values / temperature)`` over the
    legal actions with a value; zero on every other action. Rows without any legal value get the
    one-hot of ``actions``.

    Worked example (three legal actions, values 0.01, 0, -0.02, ``temperature`` 0.01): logits
    1, 0, -2, so the target is e¹, e⁰, e⁻² over their sum 3.853617 = 0.705385, 0.259496,
    0.035119."""
    values = np.asarray(values, dtype=np.float64)
    ok = np.asarray(masks, dtype=bool) & np.isfinite(values)
    z = np.where(ok, values / float(temperature), -np.inf)
    top = z.max(1, keepdims=True)
    has = np.isfinite(top[:, 0])
    e = np.where(ok, np.exp(z - np.where(has[:, None], top, 0.0)), 0.0)
    p = e / np.where(has[:, None], e.sum(1, keepdims=True), 1.0)
    p[~has] = 0.0
    p[np.flatnonzero(~has), np.asarray(actions)[~has]] = 1.0
    return p.astype(np.float32)


def behaviour_clone(model, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray, *, epochs: int,
                    batch_size: int, seed: int = 0, targets: np.ndarray | None = None,
                    values: np.ndarray | None = None, learning_rate: float | None = None) -> dict:
    """Cross-entropy of the model's policy (masked logits for maskable policies) against
    ``targets`` (rows of probabilities, :func:`soft_targets`) or, without them, the teacher's
    ``actions``. ``learning_rate``: the optimizer's rate during cloning (default: unchanged).

    Returns the final accuracy (greedy action = teacher's), the last batch's loss and, with
    ``values``, the greedy actions' mean regret in the teacher's values (its best legal value
    minus the value of the clone's choice) on the rows."""
    import torch as th

    policy = model.policy
    maskable = type(model).__name__.startswith("Maskable")
    rng = np.random.default_rng(seed)
    opt = policy.optimizer
    saved = [g["lr"] for g in opt.param_groups]
    if learning_rate is not None:
        for g in opt.param_groups:
            g["lr"] = float(learning_rate)
    policy.set_training_mode(True)
    n = len(actions)
    loss_v = float("nan")
    try:
        for _ in range(epochs):
            for idx in np.array_split(rng.permutation(n), max(1, n // batch_size)):
                o = th.as_tensor(obs[idx], device=policy.device)
                dist = policy.get_distribution(o, action_masks=masks[idx]) if maskable else policy.get_distribution(o)
                if targets is None:
                    loss = -dist.log_prob(th.as_tensor(actions[idx], device=policy.device)).mean()
                else:
                    logp = th.log_softmax(dist.distribution.logits, dim=-1)
                    p = th.as_tensor(targets[idx], device=policy.device)
                    loss = -th.where(p > 0, p * logp, th.zeros_like(logp)).sum(-1).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_v = float(loss.detach())
    finally:
        for g, lr in zip(opt.param_groups, saved, strict=True):
            g["lr"] = lr
    policy.set_training_mode(False)
    greedy = np.empty(n, dtype=np.int64)
    with th.no_grad():
        for lo in range(0, n, 4096):
            o = th.as_tensor(obs[lo:lo + 4096], device=policy.device)
            m = masks[lo:lo + 4096]
            dist = policy.get_distribution(o, action_masks=m) if maskable else policy.get_distribution(o)
            greedy[lo:lo + 4096] = dist.get_actions(deterministic=True).cpu().numpy()
    stats = {"accuracy": float((greedy == actions).mean()), "final_batch_loss": loss_v, "rows": int(n)}
    if values is not None:
        v = np.where(masks & np.isfinite(values), values, np.nan).astype(np.float64)
        rows = np.isfinite(v).any(1)
        if rows.any():
            best = np.nanmax(v[rows], axis=1)
            got = v[rows][np.arange(int(rows.sum())), greedy[rows]]
            got = np.where(np.isfinite(got), got, -1.0)  # an illegal or unvalued choice counts as losing the wager
            stats["teacher_value_regret"] = float(np.mean(best - got))
    return stats


def warm_start(model, env_factory, ws: WarmStart, run_dir: Path, log=print) -> dict:
    """Steps 1-2 for a freshly built model; writes ``warm_start.parquet`` and ``warm_start.json``."""
    import time

    env = env_factory()
    t0 = time.perf_counter()
    try:
        path = write_teacher_dataset(env, ws.teacher, ws.hands, ws.seed, Path(run_dir) / "warm_start.parquet")
    finally:
        env.close()
    t1 = time.perf_counter()
    obs, masks, actions, values = read_teacher_dataset(path, values=True)
    targets = soft_targets(values, masks, actions, ws.temperature) if ws.target == "soft" else None
    stats = behaviour_clone(model, obs, masks, actions, epochs=ws.epochs, batch_size=ws.batch_size, seed=ws.seed,
                            targets=targets, values=values, learning_rate=ws.learning_rate)
    stats.update({"teacher": ws.teacher, "hands": ws.hands, "epochs": ws.epochs, "target": ws.target,
                  "temperature": ws.temperature if ws.target == "soft" else None, "learning_rate": ws.learning_rate,
                  "dataset": path.name, "dataset_seconds": t1 - t0, "clone_seconds": time.perf_counter() - t1})
    (Path(run_dir) / "warm_start.json").write_text(json.dumps(stats, indent=1))
    log(f"warm start: {'distilled' if ws.target == 'soft' else 'cloned'} {ws.teacher} on {stats['rows']:,} decisions, "
        f"accuracy {stats['accuracy']:.3f}")
    return stats
