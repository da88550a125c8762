"""Hyperparameter schedules written as strings in the YAML configs, the RL Baselines3 Zoo idiom.

stable-baselines3 accepts a function of ``progress_remaining`` (1 at the start of ``learn``, 0 at
its end) wherever it takes a ``learning_rate`` or a PPO ``clip_range``. A config names one as a
string instead of a number::

    algo_kwargs:
      learning_rate: lin_2e-3          # 2e-3 at the start, decaying linearly to 0 at the last step
      learning_rate: lin_2e-3_2e-4     # 2e-3 decaying linearly to a floor of 2e-4
      clip_range: lin_0.2              # PPO / MaskablePPO clip range, same forms

Worked example, ``lin_2e-3``: progress 1 -> 2e-3, 0.5 -> 1e-3, 0 -> 0. ``lin_2e-3_2e-4``:
progress 1 -> 2e-3, 0.5 -> 1.1e-3, 0 -> 2e-4. SB3 updates the learning rate once per rollout (PPO)
from the steps done out of ``total_timesteps``, so the decay spans exactly the run's budget (a
resumed run continues it: it learns with ``reset_num_timesteps=False``).

The config keeps the string (``config.yaml`` of a run shows ``lin_2e-3``); :func:`resolve_schedules`
turns it into a :class:`LinearSchedule` only when the model is built. A ``LinearSchedule`` is a
plain frozen dataclass of this module, so ``model.zip`` pickles it by reference and
``MaskablePPO.load`` restores it in a fresh process.

Only the keys of :data:`SCHEDULE_KEYS` take a schedule; a malformed string (``lin_abc``,
``lin_-1``, ``exp_1e-3``, a floor above the start) is a ``ValueError`` naming the key and value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: algo_kwargs that SB3 accepts as a schedule (a function of progress_remaining)
SCHEDULE_KEYS = ("learning_rate", "clip_range", "clip_range_vf")
KINDS = ("lin",)
FORMS = "'lin_<start>' (linear to 0) or 'lin_<start>_<floor>' (linear to floor, 0 <= floor <= start)"


@dataclass(frozen=True)
class LinearSchedule:
    """``final + progress_remaining * (initial - final)``: ``initial`` at the first update,
    ``final`` at the last (RL Zoo's ``linear_schedule`` when ``final`` is 0)."""

    initial: float
    final: float = 0.0

    def __call__(self, progress_remaining: float) -> float:
        return self.final + float(progress_remaining) * (self.initial - self.final)

    def __str__(self) -> str:
        return f"lin_{self.initial:g}" + (f"_{self.final:g}" if self.final else "")


def _number(text: str, name: str, value: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        raise ValueError(f"{name}={value!r}: {text!r} is not a finite number; expected {FORMS}, "
                         f"e.g. 'lin_2e-3'")
    return x


def parse_schedule(value: str, name: str = "learning_rate") -> LinearSchedule:
    """The schedule a config string names; ``name`` (e.g. ``algo_kwargs.learning_rate``) is used
    in the error message."""
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r}: expected a schedule string, {FORMS}")
    kind, sep, rest = value.strip().partition("_")
    if kind in KINDS and not sep:
        raise ValueError(f"{name}={value!r}: no start value; expected {FORMS}, e.g. 'lin_2e-3'")
    if kind not in KINDS:
        raise ValueError(f"{name}={value!r}: unknown schedule {kind!r}; expected {FORMS}, e.g. 'lin_2e-3'")
    parts = rest.split("_")
    if len(parts) > 2 or not all(parts):
        raise ValueError(f"{name}={value!r}: expected {FORMS}, e.g. 'lin_2e-3' or 'lin_2e-3_2e-4'")
    initial = _number(parts[0], name, value)
    final = _number(parts[1], name, value) if len(parts) == 2 else 0.0
    if initial <= 0:
        raise ValueError(f"{name}={value!r}: the start value {initial:g} must be > 0")
    if not 0 <= final <= initial:
        raise ValueError(f"{name}={value!r}: the floor {final:g} must be between 0 and the start value {initial:g}")
    return LinearSchedule(initial, final)


def resolve_schedules(algo_kwargs: dict[str, Any], where: str = "algo_kwargs") -> dict[str, Any]:
    """``algo_kwargs`` with every schedule string of :data:`SCHEDULE_KEYS` replaced by its
    :class:`LinearSchedule` (what the algorithm's constructor is given); other values untouched."""
    out = dict(algo_kwargs)
    for key in SCHEDULE_KEYS:
        if isinstance(out.get(key), str):
            out[key] = parse_schedule(out[key], f"{where}.{key}")
    return out


def with_start(value: str, start: float, name: str = "learning_rate") -> str:
    """The schedule string ``value`` restarted at ``start``, its floor kept in the same ratio to
    the start (``lin_2e-3_2e-4`` with start 1e-3 -> ``lin_0.001_0.0001``): how a hyperparameter
    search samples a schedule's start while keeping the grid's shape (:mod:`splitpoker.agents.benchmark.tuning`)."""
    s = parse_schedule(value, name)
    return str(LinearSchedule(float(start), float(start) * s.final / s.initial))
