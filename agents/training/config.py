"""Training configs: the :class:`TrainConfig` dataclass and its validation.

A config is checked completely when it is built, before any directory is made, so a typo costs
an error message and not a half-made run. Every error is a ``ValueError`` that names the field
(as written in the YAML, e.g. ``env.kwargs.house_way``), the value and what is allowed:

- top-level keys and the keys of ``env`` (``id``, ``kwargs``);
- ``env.kwargs``: built into the environment's own config class (``AsiaPokerConfig`` or
  ``PaiGowPokerConfig``), so every table field is checked by the same code the environment runs,
  including a house way of the other game; constructor options (``betting``, ``render_mode``)
  against the environment's signature;
- ``algo_kwargs`` against the algorithm class's ``__init__`` signature, ``policy`` against its
  ``policy_aliases`` and ``policy_kwargs`` against the policy class's ``__init__`` signature;
- ``seed`` an integer in ``0 .. 2**32 - 1``; counts positive integers; ``run_name`` a plain name
  (no separators, not ``.`` or ``..``), so a run never lands outside ``log_dir``.

YAML keys (``configs/asia_maskable_ppo.yaml``)::

    env:
      id: splitpoker/AsiaPokerSetting-v0         # a registered id (splitpoker.envs.registration.ALL_ENV_IDS)
      kwargs: {house_way: asia-000}              # fields of the env's config class
    algo: maskable_ppo                           # maskable_ppo | ppo | a2c | dqn
    policy: MlpPolicy                            # a name in the algorithm's policy_aliases
    algo_kwargs: {learning_rate: 0.0003}         # keyword arguments of the algorithm class;
                                                 # learning_rate / clip_range also take a schedule:
                                                 # lin_2e-3 (linear to 0), lin_2e-3_2e-4 (to a floor)
    policy_kwargs: {net_arch: [256, 256]}        # keyword arguments of the policy class
    n_envs: 4                                    # parallel environments: 1..4,096 (subproc 1..64);
                                                 # n_steps x n_envs at most 1,048,576 (rollout memory)
    vec_env: native                              # native | dummy | subproc
    total_timesteps: 200000                      # environment steps in total (1..10,000,000,000)
    seed: 0                                      # 0 .. 2**32 - 1
    checkpoint_freq: 50000                       # environment steps between checkpoints
    log_dir: runs                                # parent folder of the run directories
    run_name: null                               # default {env}__{algo}__{seed}__{unix time}
    device: cpu                                  # torch device: cpu | cuda | cuda:N | auto
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import numbers
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from splitpoker.agents.training.algorithms import ALGOS, MASKING_ALGOS, algo_class, get_algorithm
from splitpoker.agents.training.schedules import FORMS, SCHEDULE_KEYS, parse_schedule

#: native: all envs in one numba call (agents/training/sb3_vec.py); dummy / subproc: SB3 VecEnvs of single envs
VEC_ENVS = ("native", "dummy", "subproc")
SEED_LIMIT = 2**32
# size bounds, each with its reason (a value past one is refused before anything is built)
MAX_TIMESTEPS = 10_000_000_000  # a typo guard: 23 days at the fastest training measured (~5,000 steps/s)
MAX_N_ENVS = 4096  # memory: each environment holds its state, observation and scratch rows
MAX_SUBPROC_ENVS = 64  # vec_env subproc starts one process per environment
MAX_ROLLOUT = 2**20  # on-policy rollout buffer: n_steps x n_envs transitions of up to ~9 KB each (9 GB)
MAX_LAYER_WIDTH = 65_536  # a network layer: two of them are 4.3e9 weights (69 GB with gradients and Adam's moments)
# YAML keys that record provenance (written by train()), not settings
PROVENANCE_KEYS = ("versions", "resumed")
# set by train() itself: not allowed inside algo_kwargs / policy_kwargs
_RESERVED_ALGO_KWARGS = {"policy": "policy", "env": "env.id", "seed": "seed", "device": "device",
                         "tensorboard_log": "log_dir", "policy_kwargs": "policy_kwargs", "verbose": None,
                         "_init_setup_model": None}
_RESERVED_POLICY_KWARGS = ("observation_space", "action_space", "lr_schedule")
# policy_kwargs values that name a class: resolved from these modules when given as a string
_CLASS_KWARGS = {"activation_fn": ("torch.nn", ["ReLU", "Tanh", "ELU", "LeakyReLU", "GELU", "SiLU"]),
                 "optimizer_class": ("torch.optim", ["Adam", "AdamW", "SGD", "RMSprop"])}


class ConfigError(ValueError):
    """A training config (or the environment / model built from it) is invalid; raised before
    anything is written."""


def _hint(name: str, allowed) -> str:
    by_lower = {str(a).lower(): str(a) for a in allowed}
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1)
    return f" (did you mean {by_lower[close[0]]!r}?)" if close else ""


def _unknown(what: str, keys, allowed) -> ValueError:
    keys = sorted(str(k) for k in keys)
    hints = "".join(_hint(k, allowed) for k in keys[:1])
    return ValueError(f"unknown {what} {keys}{hints}: expected some of {sorted(allowed)}")


def _mapping(name: str, value) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{name}={value!r}: expected a mapping of names to values")
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise ValueError(f"{name} has non-string key(s) {bad}: expected names")
    return dict(value)


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name}={value!r}: expected a positive integer")


def check_seed(value, name: str = "seed") -> int:
    """``value`` as a seed: an integer in ``0 .. 2**32 - 1`` (what numpy and torch accept)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{name}={value!r}: expected an integer from 0 to {SEED_LIMIT - 1}")
    return int(value)


def folder_name(text: str) -> str:
    """``text`` as a folder name valid on every system: each character other than a letter, a digit,
    ``.``, ``_`` or ``-`` becomes ``_`` (the ``/`` of an id, and the ``:`` of a prefixed id such as
    ``splitpoker:splitpoker/AsiaPokerSetting-v0``, which Windows refuses in a file name)."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in text)


def check_run_name(value) -> str:
    """A run name is a plain directory name: it cannot climb out of ``log_dir``."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"run_name={value!r}: expected a non-empty plain name such as 'asia_ppo_seed0'")
    if value in (".", "..") or "/" in value or "\\" in value or "\0" in value or Path(value).is_absolute():
        raise ValueError(f"run_name={value!r}: expected a plain name without path separators "
                         f"(the run directory is made inside log_dir)")
    return value


def env_class(env_id: str):
    """The environment class registered under ``env_id`` (``splitpoker.envs.registration.ALL_ENV_IDS``)."""
    import splitpoker  # noqa: F401  (registers the ids)
    from splitpoker.envs.registration import ALL_ENV_IDS as known

    if env_id not in known:
        raise ValueError(f"unknown env id {env_id!r}{_hint(env_id, known)}: expected one of {list(known)}")
    module, name = known[env_id].split(":")
    return getattr(importlib.import_module(module), name)


def _keyword_params(func, skip=()) -> tuple[set[str], bool]:
    params = inspect.signature(func).parameters.values()
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - {"self", *skip}
    return names, any(p.kind is p.VAR_KEYWORD for p in params)


def check_env_kwargs(env_id: str, kwargs: dict[str, Any]) -> None:
    """Check ``env.kwargs`` by building the environment's config class from them."""
    cls = env_class(env_id)
    config_cls = cls.config_cls
    fields = {f.name for f in dataclasses.fields(config_cls)}
    options, _ = _keyword_params(cls.__init__, skip=("config",))
    allowed = fields | options | {"config"}
    unknown = set(kwargs) - allowed
    if unknown:
        raise _unknown(f"env.kwargs key(s) for {env_id}", unknown, allowed)
    given = kwargs.get("config")
    table = given.to_dict() if isinstance(given, config_cls) else _mapping("env.kwargs.config", given)
    table.update({k: v for k, v in kwargs.items() if k in fields})
    unknown = set(table) - fields
    if unknown:
        raise _unknown(f"env.kwargs.config key(s) for {env_id}", unknown, fields)
    try:
        config_cls.from_dict(table)
    except (ValueError, TypeError) as e:
        raise ValueError(f"env.kwargs for {env_id}: {e}") from None
    if "betting" in kwargs and not isinstance(kwargs["betting"], bool):
        raise ValueError(f"env.kwargs.betting={kwargs['betting']!r}: expected true or false")
    if kwargs.get("render_mode") is not None and kwargs["render_mode"] not in cls.metadata.get("render_modes", []):
        raise ValueError(f"env.kwargs.render_mode={kwargs['render_mode']!r}: expected null or one of "
                         f"{cls.metadata.get('render_modes', [])}")


def resolve_policy_kwargs(policy_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``policy_kwargs`` with class names given as strings (``activation_fn: ReLU``) replaced by
    the classes (``torch.nn.ReLU``)."""
    out = dict(policy_kwargs)
    for key, (module_name, examples) in _CLASS_KWARGS.items():
        value = out.get(key)
        if isinstance(value, str):
            module = importlib.import_module(module_name)
            cls = getattr(module, value, None)
            if not inspect.isclass(cls):
                names = [n for n in dir(module) if inspect.isclass(getattr(module, n)) and not n.startswith("_")]
                raise ValueError(f"policy_kwargs.{key}={value!r}{_hint(value, names)}: expected a class name "
                                 f"from {module_name} such as {examples}")
            out[key] = cls
    return out


def _check_net_arch(value, actor_critic: bool) -> None:
    def layers(v):
        return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v)

    widths = value if layers(value) else [x for v in value.values() if layers(v) for x in v] \
        if isinstance(value, dict) else []
    wide = [x for x in widths if x > MAX_LAYER_WIDTH]
    if wide:
        raise ValueError(f"policy_kwargs.net_arch={value!r}: layer size {wide[0]:,} is above {MAX_LAYER_WIDTH:,} "
                         f"(memory: two such layers hold {wide[0] ** 2:,} weights)")
    if layers(value):
        return
    if actor_critic and isinstance(value, dict) and set(value) <= {"pi", "vf"} and all(layers(v) for v in value.values()):
        return
    expected = "a list of positive layer sizes such as [64, 64]"
    if actor_critic:
        expected += " or {pi: [...], vf: [...]}"
    raise ValueError(f"policy_kwargs.net_arch={value!r}: expected {expected}")


# values of common algo_kwargs: (kind, low, high); stable-baselines3 checks only some of them
# (batch_size: its lower bound is the algorithm's, agents/training/algorithms.py)
_ALGO_VALUES = {"learning_rate": ("number", 0.0, None), "gamma": ("number", 0.0, 1.0),
                "gae_lambda": ("number", 0.0, 1.0), "ent_coef": ("number", 0.0, None),
                "vf_coef": ("number", 0.0, None), "clip_range": ("number", 0.0, None),
                "max_grad_norm": ("number", 0.0, None), "n_steps": ("int", 1, None), "n_epochs": ("int", 1, None),
                "buffer_size": ("int", 1, None), "learning_starts": ("int", 0, None),
                "gradient_steps": ("int", 1, None), "target_update_interval": ("int", 1, None),
                "exploration_fraction": ("number", 0.0, 1.0), "exploration_initial_eps": ("number", 0.0, 1.0),
                "exploration_final_eps": ("number", 0.0, 1.0), "tau": ("number", 0.0, 1.0)}


def check_algo_values(algo: str, algo_kwargs: dict[str, Any]) -> None:
    """Check the values of common ``algo_kwargs`` (ranges; schedule strings parsed); raises
    ``ValueError`` naming the key and value."""
    rules = dict(_ALGO_VALUES)
    rules["batch_size"] = ("int", get_algorithm(algo).min_batch_size, None)
    for key, value in algo_kwargs.items():
        if key in SCHEDULE_KEYS and isinstance(value, str):  # lin_2e-3: agents/training/schedules.py
            value = parse_schedule(value, f"algo_kwargs.{key}").initial
        if key not in rules:
            continue
        kind, low, high = rules[key]
        strict = key in ("learning_rate", "clip_range")  # must be above ``low``, not equal to it
        if kind == "int":
            ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= low
            expected = f"an integer >= {low}"
        else:
            ok = (isinstance(value, numbers.Real) and not isinstance(value, bool) and value == value  # not NaN
                  and (value > low if strict else value >= low) and (high is None or value <= high))
            expected = f"a number {'>' if strict else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")
            if key in SCHEDULE_KEYS:
                expected += f", or a schedule {FORMS}"
        if not ok:
            raise ValueError(f"algo_kwargs.{key}={value!r}: expected {expected}")


def check_n_envs(n_envs: int, vec_env: str = "native", where: str = "n_envs") -> None:
    """``n_envs`` within its bound: :data:`MAX_N_ENVS`, and :data:`MAX_SUBPROC_ENVS` processes."""
    if isinstance(n_envs, bool) or not isinstance(n_envs, numbers.Integral) or n_envs < 1:
        raise ValueError(f"{where}={n_envs!r}: expected a positive integer")
    if vec_env == "subproc" and n_envs > MAX_SUBPROC_ENVS:
        raise ValueError(f"{where}={n_envs!r} with vec_env='subproc': expected 1..{MAX_SUBPROC_ENVS} (one process "
                         f"per environment); vec_env 'native' steps up to {MAX_N_ENVS:,} in one process")
    if n_envs > MAX_N_ENVS:
        raise ValueError(f"{where}={n_envs!r}: expected 1..{MAX_N_ENVS:,} (memory: every environment holds its "
                         f"state, observation and scratch rows)")


def check_rollout(algo: str, algo_kwargs: dict[str, Any], n_envs: int, where: str = "") -> None:
    """An on-policy algorithm's rollout buffer (``n_steps x n_envs`` transitions) within
    :data:`MAX_ROLLOUT`."""
    if algo == "dqn":
        return
    n_steps = algo_kwargs.get("n_steps")
    default = n_steps is None
    if default:
        n_steps = inspect.signature(algo_class(algo).__init__).parameters["n_steps"].default
    if n_steps * n_envs > MAX_ROLLOUT:
        raise ValueError(f"{where}algo_kwargs.n_steps={n_steps}{' (the default)' if default else ''} x "
                         f"n_envs={n_envs} = {n_steps * n_envs:,} transitions per rollout: expected at most "
                         f"{MAX_ROLLOUT:,} (memory: the rollout buffer holds every transition, up to ~9 KB each)")


# policies that are not stable-baselines3 aliases: name -> "module:function", where
# ``function(name, algorithm)`` returns the policy class for that algorithm (``algorithm``: its row
# of agents/training/algorithms.py)
CUSTOM_POLICIES: dict[str, str] = {"SettingScorerPolicy": "splitpoker.agents.policies.setting_scorer:policy_class"}
# policies that score each setting from its feature row (env kwarg ``setting_features: true``)
SCORER_POLICIES = ("SettingScorerPolicy",)


def policy_class(algo: str, policy: str):
    """The policy class ``policy`` names for ``algo``: an alias of the algorithm
    (``MlpPolicy``) or an entry of :data:`CUSTOM_POLICIES`."""
    cls = algo_class(algo)
    aliases = getattr(cls, "policy_aliases", {})
    if isinstance(policy, str) and policy in CUSTOM_POLICIES:
        module, func = CUSTOM_POLICIES[policy].split(":")
        return getattr(importlib.import_module(module), func)(policy, get_algorithm(algo))
    if not isinstance(policy, str) or policy not in aliases:
        names = sorted([*aliases, *CUSTOM_POLICIES])
        raise ValueError(f"unknown policy {policy!r} for {cls.__name__}{_hint(policy, names)}: expected one of {names}")
    return aliases[policy]


def check_algo_and_policy(algo: str, policy: str, algo_kwargs: dict[str, Any], policy_kwargs: dict[str, Any]) -> None:
    """Check ``algo_kwargs`` and ``policy_kwargs`` against the signatures of the classes they
    are passed to, and ``policy`` against the algorithm's policy names."""
    cls = algo_class(algo)
    for key in algo_kwargs:
        if key in _RESERVED_ALGO_KWARGS:
            where = _RESERVED_ALGO_KWARGS[key]
            raise ValueError(f"algo_kwargs.{key} is set by the training script"
                             + (f": use the top-level '{where}' instead" if where else ": remove it"))
    names, open_ended = _keyword_params(cls.__init__, skip=("policy", "env"))
    names -= set(_RESERVED_ALGO_KWARGS)
    unknown = set(algo_kwargs) - names
    if unknown and not open_ended:
        raise _unknown(f"algo_kwargs key(s) for {cls.__name__}", unknown, names)
    check_algo_values(algo, algo_kwargs)
    policy_cls = policy_class(algo, policy)
    for key in policy_kwargs:
        if key in _RESERVED_POLICY_KWARGS:
            raise ValueError(f"policy_kwargs.{key} is set from the environment: remove it")
    names, open_ended = _keyword_params(policy_cls.__init__, skip=_RESERVED_POLICY_KWARGS)
    unknown = set(policy_kwargs) - names
    if unknown and not open_ended:
        raise _unknown(f"policy_kwargs key(s) for {policy_cls.__name__}", unknown, names)
    if "net_arch" in policy_kwargs and policy_kwargs["net_arch"] is not None:
        _check_net_arch(policy_kwargs["net_arch"], actor_critic=get_algorithm(algo).actor_critic)
    resolve_policy_kwargs(policy_kwargs)


_YAML_KEYS = ("env", "algo", "policy", "algo_kwargs", "policy_kwargs", "n_envs", "vec_env", "total_timesteps",
              "seed", "checkpoint_freq", "log_dir", "run_name", "device", "warm_start")
# the fields that define the experiment; the others say where it is written and how long it runs
EXPERIMENT_FIELDS = ("env_id", "env_kwargs", "algo", "policy", "algo_kwargs", "policy_kwargs", "n_envs",
                     "vec_env", "seed", "checkpoint_freq", "device", "warm_start")


@dataclass
class TrainConfig:
    """A training run; the module docstring gives a line of help per YAML key. Built and fully
    validated by ``from_yaml``/``from_dict`` (or the constructor); ``validate()`` re-checks after
    fields are changed."""

    env_id: str = "splitpoker/AsiaPokerSetting-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algo: str = "maskable_ppo"
    policy: str = "MlpPolicy"
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    n_envs: int = 4
    vec_env: str = "dummy"
    total_timesteps: int = 200_000
    seed: int = 0
    checkpoint_freq: int = 50_000
    log_dir: str = "runs"
    run_name: str | None = None
    device: str = "cpu"
    warm_start: dict[str, Any] | None = None  # splitpoker.agents.training.warm_start: behaviour cloning before RL

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Check every field (nested keys included); raises ``ValueError`` naming the field."""
        if not isinstance(self.env_id, str):
            raise ValueError(f"env.id={self.env_id!r}: expected a registered environment id")
        self.env_kwargs = _mapping("env.kwargs", self.env_kwargs)
        self.algo_kwargs = _mapping("algo_kwargs", self.algo_kwargs)
        self.policy_kwargs = _mapping("policy_kwargs", self.policy_kwargs)
        if self.algo not in ALGOS:
            raise ValueError(f"unknown algo {self.algo!r}{_hint(self.algo, ALGOS)}: expected one of {ALGOS}")
        if self.vec_env not in VEC_ENVS:
            raise ValueError(f"vec_env={self.vec_env!r}: expected one of {VEC_ENVS}")
        for name in ("n_envs", "total_timesteps", "checkpoint_freq"):
            _positive_int(name, getattr(self, name))
        if self.total_timesteps > MAX_TIMESTEPS:
            raise ValueError(f"total_timesteps={self.total_timesteps!r}: expected an integer 1..{MAX_TIMESTEPS:,} "
                             f"(a bound against typos: 23 days of training at ~5,000 steps/s)")
        check_n_envs(self.n_envs, self.vec_env)
        check_seed(self.seed)
        if isinstance(self.log_dir, os.PathLike):
            self.log_dir = os.fspath(self.log_dir)
        if not isinstance(self.log_dir, str) or not self.log_dir:
            raise ValueError(f"log_dir={self.log_dir!r}: expected a folder path")
        if self.run_name is not None:
            check_run_name(self.run_name)
        if not isinstance(self.device, str) or not (self.device in ("cpu", "cuda", "auto", "mps")
                                                     or self.device.startswith("cuda:")):
            raise ValueError(f"device={self.device!r}: expected 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'")
        check_env_kwargs(self.env_id, self.env_kwargs)
        if self.vec_env == "native":
            from splitpoker.envs.registration import VECTOR_ENTRY_POINTS

            if self.env_id not in VECTOR_ENTRY_POINTS:
                raise ValueError(f"vec_env='native' for {self.env_id}: no native vector env for this id "
                                 f"(there is one for {list(VECTOR_ENTRY_POINTS)}); expected 'dummy' or 'subproc'")
        if self.algo not in MASKING_ALGOS and self.env_kwargs.get("invalid_action") == "raise":
            raise ValueError(f"env.kwargs.invalid_action='raise' cannot train {self.algo}, which does not mask "
                             f"actions: the first fouled setting would stop the run; expected 'penalize' "
                             f"(the default) or algo: maskable_ppo")
        check_algo_and_policy(self.algo, self.policy, self.algo_kwargs, self.policy_kwargs)
        check_rollout(self.algo, self.algo_kwargs, self.n_envs)
        if self.policy in SCORER_POLICIES and self.env_kwargs.get("setting_features") is not True:
            raise ValueError(f"policy {self.policy!r} scores each setting from its feature row: set env.kwargs "
                             f"setting_features: true")
        if self.warm_start is not None:
            from splitpoker.agents.training.warm_start import WarmStart

            WarmStart.from_dict(self.warm_start)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TrainConfig:
        """A config from parsed YAML (the layout of the module docstring)."""
        if not isinstance(data, dict):
            raise ValueError(f"a training config must be a mapping of settings ({', '.join(_YAML_KEYS)}), "
                             f"got {type(data).__name__} {data!r:.80}")
        data = {k: v for k, v in data.items() if k not in PROVENANCE_KEYS}
        unknown = set(data) - set(_YAML_KEYS)
        if unknown:
            raise _unknown("config key(s)", unknown, _YAML_KEYS)
        env = data.pop("env", None)
        if env is not None:
            if not isinstance(env, dict) or "id" not in env:
                raise ValueError(f"env={env!r}: expected a mapping with an 'id' (and optional 'kwargs')")
            unknown = set(env) - {"id", "kwargs"}
            if unknown:
                raise _unknown("env key(s)", unknown, ("id", "kwargs"))
            data["env_id"] = env["id"]
            data["env_kwargs"] = _mapping("env.kwargs", env.get("kwargs"))
        return cls(**data)

    @classmethod
    def from_yaml(cls, path: str | Path) -> TrainConfig:
        """A config from a YAML file; an empty file is an error, not a default run."""
        import yaml

        from splitpoker.envs.config_file import load_yaml

        try:
            data = load_yaml(path)
        except yaml.YAMLError as e:
            raise ValueError(f"config {path} is not valid YAML: {e}") from None
        if data is None:
            raise ValueError(f"config {path} is empty: expected a mapping with at least 'env' and 'algo' "
                             f"(see configs/asia_maskable_ppo.yaml)")
        try:
            return cls.from_dict(data)
        except ValueError as e:
            raise ValueError(f"config {path}: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d = {"env": {"id": d.pop("env_id"), "kwargs": d.pop("env_kwargs")}, **d}
        return d

    def differences(self, other: TrainConfig) -> list[str]:
        """The experiment fields (not ``total_timesteps``, ``log_dir``, ``run_name``) that differ."""
        return [name for name in EXPERIMENT_FIELDS if getattr(self, name) != getattr(other, name)]

    @property
    def resolved_env_kwargs(self) -> dict[str, Any]:
        kw = dict(self.env_kwargs)
        if self.algo not in MASKING_ALGOS:
            kw.setdefault("invalid_action", "penalize")
        return kw

    def make_run_name(self, prefix: str = "") -> str:
        """``run_name``, or ``{prefix}{env id}__{algo}__{seed}__{time}`` (CleanRL's run names) with
        the id made a portable folder name (:func:`folder_name`)."""
        return self.run_name or f"{prefix}{folder_name(self.env_id)}__{self.algo}__{self.seed}__{int(time.time())}"
