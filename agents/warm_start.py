"""Warm start: behaviour cloning from a teacher policy, then RL fine-tuning (config key
``warm_start``).

1. :func:`write_teacher_dataset` plays ``hands`` seeded hands of the training environment with a
   teacher (``table`` — the strategy table —, ``house-way``, ``mc-best`` or ``optimal``; any name
   of :data:`agents.policies.BASELINES` except ``random``) and writes every decision as a row of
   a Parquet file (columns ``obs`` (list<float32>), ``action_mask`` (list<bool>), ``action``
   (int64), ``seed`` (int64)) — a standard format readable by pandas, pyarrow or polars, so the
   same file serves offline-RL experiments.
2. :func:`behaviour_clone` maximises the policy's log-likelihood of the teacher's actions (masks
   applied, as in training) for a few epochs with the model's own optimizer.
3. :func:`agents.training.train` then runs the configured RL algorithm from those weights.

Config::

    warm_start: {teacher: table, hands: 20000, epochs: 3, batch_size: 256, seed: 1}

The dataset is written to the run directory (``warm_start.parquet``) and the run's
``warm_start.json`` records the teacher, its size and the clone's final accuracy on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TEACHERS = ("table", "house-way", "mc-best", "optimal")


@dataclass(frozen=True)
class WarmStart:
    """The ``warm_start`` config block (every field has its meaning in the module docstring)."""

    teacher: str = "table"
    hands: int = 20_000
    epochs: int = 3
    batch_size: int = 256
    seed: int = 1

    def __post_init__(self):
        if self.teacher not in TEACHERS:
            raise ValueError(f"warm_start teacher {self.teacher!r}: expected one of {TEACHERS}")
        for name in ("hands", "epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"warm_start {name}={v!r}: expected a positive integer")

    @classmethod
    def from_dict(cls, data) -> WarmStart:
        from envs.rules.options import dataclass_from_dict

        if not isinstance(data, dict):
            raise ValueError(f"warm_start={data!r}: expected a mapping such as {{teacher: table, hands: 20000}}")
        return dataclass_from_dict(cls, data, "warm_start field(s)")


def write_teacher_dataset(env, teacher: str, hands: int, seed: int, path: str | Path, progress=None) -> Path:
    """Play ``hands`` hands (reset seeds from ``seed``) with ``teacher``; one Parquet row per
    decision (two per hand in the bet-phase environments)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .evaluation import hand_seeds
    from .policies import make_baseline

    policy = make_baseline(teacher, env, **({"seed": seed} if teacher == "mc-best" else {}))
    obs_rows, mask_rows, actions, seeds = [], [], [], []
    for s in hand_seeds(seed, hands):
        obs, info = env.reset(seed=s)
        while True:
            a = policy.act(obs, info["action_mask"])
            obs_rows.append(obs.astype(np.float32))
            mask_rows.append(np.asarray(info["action_mask"], dtype=bool))
            actions.append(int(a))
            seeds.append(int(s))
            obs, _, term, trunc, info = env.step(a)
            if term or trunc:
                break
        if progress is not None:
            progress(1)
    table = pa.table({
        "obs": pa.array(obs_rows, type=pa.list_(pa.float32())),
        "action_mask": pa.array(mask_rows, type=pa.list_(pa.bool_())),
        "action": pa.array(actions, type=pa.int64()),
        "seed": pa.array(seeds, type=pa.int64()),
    })
    path = Path(path)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    tmp.replace(path)
    return path


def read_teacher_dataset(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(obs[n, d] float32, masks[n, n_actions] bool, actions[n] int64)`` from a dataset file."""
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    missing = {"obs", "action_mask", "action"} - set(t.column_names)
    if missing:
        raise ValueError(f"{path} is not a teacher dataset: columns {sorted(missing)} missing")
    obs = np.asarray(t.column("obs").to_pylist(), dtype=np.float32)
    masks = np.asarray(t.column("action_mask").to_pylist(), dtype=bool)
    return obs, masks, t.column("action").to_numpy().astype(np.int64)


def behaviour_clone(model, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray, *, epochs: int,
                    batch_size: int, seed: int = 0) -> dict:
    """Cross-entropy on the teacher's actions through the model's policy (masked logits for
    maskable policies); returns the final accuracy (greedy action = teacher's) and loss."""
    import torch as th

    policy = model.policy
    maskable = type(model).__name__.startswith("Maskable")
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    n = len(actions)
    loss_v = float("nan")
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(n), max(1, n // batch_size)):
            o = th.as_tensor(obs[idx], device=policy.device)
            a = th.as_tensor(actions[idx], device=policy.device)
            dist = policy.get_distribution(o, action_masks=masks[idx]) if maskable else policy.get_distribution(o)
            loss = -dist.log_prob(a).mean()
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            loss_v = float(loss.detach())
    policy.set_training_mode(False)
    with th.no_grad():
        o = th.as_tensor(obs, device=policy.device)
        dist = policy.get_distribution(o, action_masks=masks) if maskable else policy.get_distribution(o)
        greedy = dist.get_actions(deterministic=True).cpu().numpy()
    return {"accuracy": float((greedy == actions).mean()), "final_batch_loss": loss_v, "rows": int(n)}


def warm_start(model, env_factory, ws: WarmStart, run_dir: Path, log=print) -> dict:
    """Steps 1-2 for a freshly built model; writes ``warm_start.parquet`` and ``warm_start.json``."""
    env = env_factory()
    try:
        path = write_teacher_dataset(env, ws.teacher, ws.hands, ws.seed, Path(run_dir) / "warm_start.parquet")
    finally:
        env.close()
    stats = behaviour_clone(model, *read_teacher_dataset(path), epochs=ws.epochs, batch_size=ws.batch_size, seed=ws.seed)
    stats.update({"teacher": ws.teacher, "hands": ws.hands, "epochs": ws.epochs, "dataset": path.name})
    (Path(run_dir) / "warm_start.json").write_text(json.dumps(stats, indent=1))
    log(f"warm start: cloned {ws.teacher} on {stats['rows']:,} decisions, accuracy {stats['accuracy']:.3f}")
    return stats
