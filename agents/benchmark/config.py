"""The RL benchmark's configuration (``configs/benchmark/*.yaml``): validated before any training.

Layout (every key below is the complete set; an unknown key is an error naming it)::

    name: asia                      # the grid's name (output directory and report title); a name, as
                                    # labels and algorithm names are (check_name: no '/', '\\', '..')
    description: ...                # optional free text
    executor: ray                   # ray (default: local Ray, or a cluster with --address) | local
    num_cpus: null                  # CPUs Ray may use locally (null: all, at most 256); one run per CPU
    total_timesteps: 300000         # the fixed budget of every run (environment steps, <= 10,000,000,000)
    eval_every: 50000               # exact-regret scoring interval (environment steps)
    seeds: [0, 1, 2]                # one run per seed × algorithm × environment (0 .. 2**32 - 1)
    eval:
      hands: 1000                   # exact-regret hands per set (EVs of all settings cached once), 2..100,000
      paired_hands: 2000            # hands played for the paired reward against the house way, 2..1,000,000
      validation_seed: 2024         # the validation set's deals (hand i = reset(seed=seeds[i])):
                                    # tuning (scripts/tune.py), selecting rows, early stopping
      test_seed: 2025               # the test set's deals: the published table only; must differ
      card_removal_hands: 100       # hands per card-removal set (task card_removal)
      card_removal_margin: 0.03     # table-EV margin under which a candidate is solved
    envs:
      - id: splitpoker/AsiaPokerSetting-v0
        label: asia                 # optional short name (default: the id without prefix); it names
                                    # references/<label>.json and runs/<label>__<algorithm>__<seed>/
        kwargs: {house_way: asia-000, dealer_samples: 16, observe_settings: true}
        tasks: [setting, card_removal]  # what its runs are scored on (splitpoker.agents.benchmark.tasks);
                                    # default: the env's own task (setting, bets or session)
        algo_kwargs: {gamma: 1.0}   # optional: merged into every algorithm's algo_kwargs on this env
                                    # (a two-step or many-step episode needs another gamma)
    algorithms:
      - name: MaskablePPO+MLP       # the row label; unique
        algo: maskable_ppo          # maskable_ppo | ppo | a2c | dqn
        policy: MlpPolicy           # an SB3 alias of that algorithm, or a policy class of
                                    # splitpoker.agents.policies.setting_scorer (e.g. SettingScorerPolicy)
        n_envs: 4                   # 1..4,096; n_steps x n_envs <= 1,048,576 (agents/training/config.py)
        algo_kwargs: {...}          # checked against the algorithm's constructor and value ranges;
                                    # learning_rate / clip_range: a number or lin_2e-3 (agents/training/schedules.py)
        policy_kwargs: {...}
        warm_start: {teacher: table, hands: 20000, epochs: 3}   # optional: behaviour cloning first
                                    # (splitpoker.agents.training.warm_start; its time counts in the run's wall time)
        env_overrides:              # optional, per env label: policy / n_envs / algo_kwargs / policy_kwargs
          session: {policy: MlpPolicy, policy_kwargs: {net_arch: [64, 64]}}  # (merged; e.g. a task
                                    # without settings, where the setting scorer has nothing to score)
    references: [table, house-way, mc-best, random]   # baselines of splitpoker.agents.policies.baselines, scored alike,
                                    # and card files (configs/strategies/*.yaml, a path ending .yaml, .yml or
                                    # .json; a relative path is read from the current directory, as --config
                                    # is, not from this file's folder). A card is checked when the config loads
                                    # (a missing file or a bad rule is refused, naming the reference), plays the
                                    # hand tasks of its own game only (skipped, with a log line, on the other
                                    # game's; a card no env's game matches is refused) and bets the table
                                    # minimum as house-way does; its row is named 'card: <the card's name>'
                                    # (its name:, else the file's stem), so it never takes a baseline's name
    reference_kwargs: {mc-best: {samples: 300}}   # keywords of a baseline (a card file takes none)

Refused before any training, naming the value: an unknown key or task, a task that does not fit
its environment, a reference that is neither a baseline nor a card file, a card file that is
missing or breaks a rule of :mod:`splitpoker.agents.evaluation.card_file` (its
:class:`~splitpoker.agents.evaluation.card_file.CardError`), a card whose game no env of the grid
deals hands of, a test seed equal to the validation seed, fewer than 2 seeds (the bootstrap
intervals need two; :meth:`BenchmarkConfig.from_dict`'s ``min_seeds``, which ``scripts/tune.py``
lowers to 1 since a sweep trains one seed per trial).

The checks of one entry (an algorithm, an env, a card reference, a name) are in
:mod:`splitpoker.agents.benchmark.entries`.

Environments of algorithms that cannot mask (ppo, a2c, dqn) penalise invalid actions
(:attr:`splitpoker.agents.training.run.TrainConfig.resolved_env_kwargs`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from splitpoker.agents.benchmark.entries import (  # noqa: F401 (CardReference, card_row_name, check_name, resolve_policy: this module's API too)
    CardReference,
    ConfigError,
    _card_references,
    _check_algo,
    _check_env_kwargs,
    _check_keys,
    _check_tasks,
    _positive_int,
    card_row_name,
    check_name,
    resolve_policy,
)
from splitpoker.agents.training.config import MAX_TIMESTEPS, SEED_LIMIT

EXECUTORS = ("ray", "local")
TOP_KEYS = ("name", "description", "executor", "num_cpus", "total_timesteps", "eval_every", "seeds", "eval", "envs",
            "algorithms", "references", "reference_kwargs")
EVAL_KEYS = ("hands", "paired_hands", "validation_seed", "test_seed", "solved", "card_removal_hands",
             "card_removal_margin")
ENV_KEYS = ("id", "label", "kwargs", "tasks", "algo_kwargs")
OVERRIDE_KEYS = ("policy", "n_envs", "algo_kwargs", "policy_kwargs")
MIN_SEEDS = 2
ALGO_KEYS = ("name", "algo", "policy", "n_envs", "algo_kwargs", "policy_kwargs", "warm_start", "env_overrides")
# size bounds, each with its reason
MAX_EVAL_HANDS = 100_000  # exact EVs of every setting: ~0.1-0.2 s of solving per hand (3-6 core-hours), 90 MB
MAX_PAIRED_HANDS = 1_000_000  # the paired reward plays every hand one Python step at a time
MAX_NUM_CPUS = 256  # a local Ray instance starts a worker process per CPU it uses


@dataclass(frozen=True)
class EnvSpec:
    id: str
    label: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    tasks: tuple[str, ...] = ()  # empty: the env's own task (splitpoker.agents.benchmark.tasks.natural_task)
    algo_kwargs: dict[str, Any] = field(default_factory=dict)  # merged into every algorithm's on this env

    @property
    def task_list(self) -> tuple[str, ...]:
        from splitpoker.agents.benchmark.task_names import natural_task

        return tuple(self.tasks) or (natural_task(self.id),)

    def task_labels(self) -> dict[str, str]:
        """Row label of each task (``asia``, ``asia_card_removal``)."""
        from splitpoker.agents.benchmark.task_names import task_label

        return {t: task_label(self.label, t, self.task_list) for t in self.task_list}


@dataclass(frozen=True)
class AlgoSpec:
    name: str
    algo: str
    policy: str = "MlpPolicy"
    n_envs: int = 4
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    warm_start: dict[str, Any] | None = None  # splitpoker.agents.training.warm_start.WarmStart fields; None: pure RL
    env_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)  # env label -> OVERRIDE_KEYS

    def on(self, env: EnvSpec) -> AlgoSpec:
        """This algorithm as it runs on ``env``: the env's ``algo_kwargs`` and this algorithm's
        ``env_overrides`` for it merged in (no overrides: the spec itself)."""
        import dataclasses

        o = self.env_overrides.get(env.label, {})
        if not o and not env.algo_kwargs:
            return self
        return dataclasses.replace(self, policy=o.get("policy", self.policy), n_envs=o.get("n_envs", self.n_envs),
                                   algo_kwargs={**self.algo_kwargs, **env.algo_kwargs, **o.get("algo_kwargs", {})},
                                   policy_kwargs={**self.policy_kwargs, **o.get("policy_kwargs", {})}
                                   if "policy" not in o else dict(o.get("policy_kwargs", {})), env_overrides={})


@dataclass(frozen=True)
class BenchmarkConfig:
    name: str
    envs: tuple[EnvSpec, ...]
    algorithms: tuple[AlgoSpec, ...]
    seeds: tuple[int, ...]
    total_timesteps: int
    eval_every: int
    eval_hands: int = 1000
    eval_paired_hands: int = 2000
    validation_seed: int = 2024
    test_seed: int = 2025
    executor: str = "ray"
    num_cpus: int | None = None
    references: tuple[str, ...] = ("house-way", "mc-best", "random")
    reference_kwargs: dict[str, dict] = field(default_factory=dict)
    description: str = ""
    eval_solved: tuple[str, ...] = ()  # solved-store folders the evaluation sets look hands up in
    card_removal_hands: int = 100
    card_removal_margin: float = 0.03
    reference_cards: tuple[CardReference, ...] = ()  # the card files among ``references``

    @property
    def cards(self) -> dict[str, CardReference]:
        """The card files among the references, by the reference as written."""
        return {c.reference: c for c in self.reference_cards}

    @property
    def eval_seed(self) -> int:
        """The seed tuning and selection read: the validation set's (never the test set's)."""
        return self.validation_seed

    @classmethod
    def from_yaml(cls, path: str | Path, *, min_seeds: int = MIN_SEEDS, **overrides) -> BenchmarkConfig:
        """Load, apply command-line ``overrides`` (:func:`apply_overrides`), validate."""
        import yaml

        path = Path(path)
        if not path.exists():
            raise ConfigError(f"benchmark config {path} does not exist")
        from splitpoker.envs.config_file import load_yaml

        try:
            data = load_yaml(path)
        except yaml.YAMLError as e:
            raise ConfigError(f"benchmark config {path} is not valid YAML: {e}") from None
        if overrides:
            data = apply_overrides(data, **overrides)
        return cls.from_dict(data, where=str(path), min_seeds=min_seeds)

    @classmethod
    def from_dict(cls, data: Any, where: str = "config", min_seeds: int = MIN_SEEDS) -> BenchmarkConfig:  # noqa: C901 - one check per key
        import splitpoker  # noqa: F401  (registers the ids)
        from splitpoker.agents.policies.baselines import BASELINES
        from splitpoker.envs.registration import ALL_ENV_IDS

        data = _check_keys(data, TOP_KEYS, where, required=("name", "envs", "algorithms", "seeds", "total_timesteps",
                                                            "eval_every"))
        name = check_name(data["name"], "name", where)
        executor = data.get("executor", "ray")
        if executor not in EXECUTORS:
            raise ConfigError(f"executor={executor!r}: expected one of {list(EXECUTORS)}")
        num_cpus = data.get("num_cpus")
        if num_cpus is not None:
            _positive_int(num_cpus, "num_cpus", 1, MAX_NUM_CPUS, "a local Ray instance starts a worker process per CPU")
        total = _positive_int(data["total_timesteps"], "total_timesteps", 1, MAX_TIMESTEPS,
                              "a bound against typos: 23 days of training at ~5,000 steps/s")
        every = _positive_int(data["eval_every"], "eval_every")
        if every > total:
            raise ConfigError(f"eval_every={every} exceeds total_timesteps={total}: expected at most the budget")
        seeds = data["seeds"]
        if not isinstance(seeds, list) or not seeds or any(isinstance(s, bool) or not isinstance(s, int)
                                                           or not 0 <= s < SEED_LIMIT for s in seeds):
            raise ConfigError(f"seeds={seeds!r}: expected a non-empty list of integers 0..{SEED_LIMIT - 1} "
                              f"(the training seed of a run: numpy and torch take 32 bits)")
        if len(set(seeds)) != len(seeds):
            raise ConfigError(f"seeds={seeds!r} repeats a seed")
        if len(seeds) < min_seeds:
            raise ConfigError(f"seeds={seeds!r}: {len(seeds)} seed(s), but the bootstrap intervals across seeds need at "
                              f"least {min_seeds}")
        ev_raw = data.get("eval") or {}
        if isinstance(ev_raw, dict) and "seed" in ev_raw:
            raise ConfigError(f"eval.seed={ev_raw['seed']!r}: a grid now has two sets; name them eval.validation_seed "
                              "(tuning and selection) and eval.test_seed (the published table)")
        ev = _check_keys(ev_raw, EVAL_KEYS, f"{where}: eval", required=("validation_seed", "test_seed"))
        hands = _positive_int(ev.get("hands", 1000), "eval.hands", 2, MAX_EVAL_HANDS,
                              "time and memory: the exact EV of every setting, ~0.1-0.2 s of solving per hand")
        paired = _positive_int(ev.get("paired_hands", max(hands, 2000)), "eval.paired_hands", 2, MAX_PAIRED_HANDS,
                               "time: every hand is played one Python step at a time")
        val_seed = _positive_int(ev["validation_seed"], "eval.validation_seed", 0)
        test_seed = _positive_int(ev["test_seed"], "eval.test_seed", 0)
        if test_seed == val_seed:
            raise ConfigError(f"eval.test_seed={test_seed} is also the validation_seed: the test set must be separate "
                              "from the set that tuning and selection read (give it another seed)")
        cr_hands = _positive_int(ev.get("card_removal_hands", 100), "eval.card_removal_hands", 2)
        cr_margin = ev.get("card_removal_margin", 0.03)
        if isinstance(cr_margin, bool) or not isinstance(cr_margin, (int, float)) or not 0 < cr_margin <= 1:
            raise ConfigError(f"eval.card_removal_margin={cr_margin!r}: expected a table-EV margin in (0, 1]")

        env_list = data["envs"]
        if not isinstance(env_list, list) or not env_list:
            raise ConfigError(f"envs={env_list!r}: expected a non-empty list of {{id, kwargs}} mappings")
        env_specs = []
        for i, e in enumerate(env_list):
            e = _check_keys(e, ENV_KEYS, f"envs[{i}]", required=("id",))
            if e["id"] not in ALL_ENV_IDS:
                raise ConfigError(f"unknown env {e['id']!r} in envs[{i}]: expected one of {list(ALL_ENV_IDS)}")
            kwargs = e.get("kwargs") or {}
            if not isinstance(kwargs, dict):
                raise ConfigError(f"envs[{i}].kwargs must be a mapping, got {kwargs!r}")
            _check_env_kwargs(e["id"], kwargs, f"envs[{i}]")
            label = e["id"].split("/")[-1] if e.get("label") is None else check_name(e["label"], f"envs[{i}].label", where)
            env_algo_kwargs = e.get("algo_kwargs") or {}
            if not isinstance(env_algo_kwargs, dict):
                raise ConfigError(f"envs[{i}].algo_kwargs must be a mapping, got {env_algo_kwargs!r}")
            env_specs.append(EnvSpec(e["id"], label, dict(kwargs), _check_tasks(e, f"envs[{i}]"), dict(env_algo_kwargs)))
        if len({e.label for e in env_specs}) != len(env_specs):
            raise ConfigError("two envs share a label: give each a distinct 'label'")

        algo_list = data["algorithms"]
        if not isinstance(algo_list, list) or not algo_list:
            raise ConfigError(f"algorithms={algo_list!r}: expected a non-empty list of {{name, algo, policy}} mappings")
        algo_specs = []
        labels = {e.label: e for e in env_specs}
        for i, a in enumerate(algo_list):
            a = _check_keys(a, ALGO_KEYS, f"algorithms[{i}]", required=("name", "algo"))
            check_name(a["name"], f"algorithms[{i}].name", where)
            label = f"algorithms[{i}] ({a['name']!r})"
            overrides = a.get("env_overrides") or {}
            if not isinstance(overrides, dict):
                raise ConfigError(f"{label}.env_overrides must be a mapping of env label to overrides, got {overrides!r}")
            for env_label, o in overrides.items():
                if env_label not in labels:
                    raise ConfigError(f"{label}.env_overrides names env {env_label!r}: this config has {list(labels)}")
                _check_keys(o, OVERRIDE_KEYS, f"{label}.env_overrides.{env_label}")
            _check_algo(a, label)
            for e in env_specs:  # every variant of the algorithm is checked as it will run
                o = overrides.get(e.label, {})
                merged = {**a, "policy": o.get("policy", a.get("policy", "MlpPolicy")), "n_envs": o.get("n_envs", a.get("n_envs", 4)),
                          "algo_kwargs": {**(a.get("algo_kwargs") or {}), **e.algo_kwargs, **(o.get("algo_kwargs") or {})},
                          "policy_kwargs": dict(o.get("policy_kwargs") or {}) if "policy" in o else
                          {**(a.get("policy_kwargs") or {}), **(o.get("policy_kwargs") or {})}}
                _check_algo(merged, f"{label} on {e.label}")
            algo_specs.append(AlgoSpec(a["name"], a["algo"], a.get("policy", "MlpPolicy"), a.get("n_envs", 4),
                                       dict(a.get("algo_kwargs") or {}), dict(a.get("policy_kwargs") or {}),
                                       dict(a["warm_start"]) if a.get("warm_start") is not None else None,
                                       {k: dict(v) for k, v in overrides.items()}))
        if len({a.name for a in algo_specs}) != len(algo_specs):
            raise ConfigError("two algorithms share a name: give each a distinct 'name'")

        refs = data.get("references", ["house-way", "mc-best", "random"]) or []
        if not isinstance(refs, list):
            raise ConfigError(f"references={refs!r}: expected a list of baseline names and card files")
        cards = _card_references(refs, env_specs, where)
        from splitpoker.agents.evaluation.card_file import SUFFIXES as CARD_SUFFIXES

        for r in refs:
            if r not in BASELINES and r not in cards:
                raise ConfigError(f"unknown reference policy {r!r}: expected some of {sorted(BASELINES)} or a card file "
                                  f"(a path ending {', '.join(CARD_SUFFIXES)})")
        ref_kwargs = data.get("reference_kwargs") or {}
        if not isinstance(ref_kwargs, dict):
            raise ConfigError(f"reference_kwargs={ref_kwargs!r}: expected a mapping of reference name to keywords")
        for r, kw in ref_kwargs.items():
            if r not in refs:
                raise ConfigError(f"reference_kwargs names {r!r}, which is not among references {refs}")
            if r in cards:
                raise ConfigError(f"reference_kwargs.{r}: a card file takes no keywords (it plays its rules and bets "
                                  "the table minimum)")
            if not isinstance(kw, dict):
                raise ConfigError(f"reference_kwargs.{r} must be a mapping, got {kw!r}")
            params = set(inspect.signature(BASELINES[r].__init__).parameters) - {"self", "kw", "kwargs"}
            bad = [k for k in kw if k not in params]
            if bad:
                raise ConfigError(f"unknown key {bad[0]!r} in reference_kwargs.{r}: expected some of {sorted(params)}")
        desc = data.get("description", "")
        solved = ev.get("solved") or []
        if not isinstance(solved, list) or not all(isinstance(d, str) and d for d in solved):
            raise ConfigError(f"eval.solved={solved!r}: expected a list of solved-store folders (scripts/solve_all.py --out)")
        return cls(name, tuple(env_specs), tuple(algo_specs), tuple(seeds), total, every, hands, paired, val_seed,
                   test_seed, executor, num_cpus, tuple(refs), {k: dict(v) for k, v in ref_kwargs.items()},
                   str(desc or ""), tuple(solved), cr_hands, float(cr_margin), tuple(cards.values()))


def apply_overrides(data: Any, *, algorithms: list[str] | None = None, envs: list[str] | None = None,
                    references: list[str] | None = None,
                    seeds: list[int] | None = None, total_timesteps: int | None = None, eval_every: int | None = None,
                    eval_hands: int | None = None, paired_hands: int | None = None) -> dict:
    """The raw config narrowed or re-budgeted from the command line, *before* validation: a subset
    of its algorithms by name, of its environments by label, and other references (so a grid naming a policy that is not
    installed still runs its other rows), other seeds, budget or evaluation size. Validate the
    result with :meth:`BenchmarkConfig.from_dict`."""
    import copy

    if not isinstance(data, dict):
        raise ConfigError(f"config must be a mapping, got {type(data).__name__} {data!r}")
    data = copy.deepcopy(data)
    if algorithms is not None:
        names = [a.get("name") for a in data.get("algorithms") or [] if isinstance(a, dict)]
        for n in algorithms:
            if n not in names:
                raise ConfigError(f"unknown algorithm name {n!r}: this config has {names}")
        data["algorithms"] = [a for a in data["algorithms"] if a.get("name") in algorithms]
    if envs is not None:
        labels = [e.get("label") or str(e.get("id", "")).split("/")[-1] for e in data.get("envs") or [] if isinstance(e, dict)]
        for n in envs:
            if n not in labels:
                raise ConfigError(f"unknown env label {n!r}: this config has {labels}")
        data["envs"] = [e for e, label in zip(data["envs"], labels, strict=True) if label in envs]
    if references is not None:
        data["references"] = list(references)
        data["reference_kwargs"] = {k: v for k, v in (data.get("reference_kwargs") or {}).items() if k in references}
    if seeds is not None:
        data["seeds"] = list(seeds)
    for key, value in (("total_timesteps", total_timesteps), ("eval_every", eval_every)):
        if value is not None:
            data[key] = value
    for key, value in (("hands", eval_hands), ("paired_hands", paired_hands)):
        if value is not None:
            data["eval"] = {**(data.get("eval") or {}), key: value}
    return data
