"""The checks of one entry of an RL benchmark configuration (:mod:`splitpoker.agents.benchmark.config`):
an algorithm as it runs on an env, an env's tasks and keywords, the card files among the
references, the names that become files and folders. Every check raises :class:`ConfigError`
naming the entry, the value and what was expected."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splitpoker.agents.training.algorithms import ALGOS, algo_class
from splitpoker.agents.training.config import check_algo_values, check_n_envs, check_rollout

if TYPE_CHECKING:
    from splitpoker.agents.benchmark.config import EnvSpec

SCORER_MODULE = "splitpoker.agents.policies.setting_scorer"


class ConfigError(ValueError):
    """A benchmark configuration that cannot run: names the key or value and what was expected."""


CARD_ROW_PREFIX = "card: "  # no baseline name starts so (splitpoker.agents.policies.baselines.BASELINES)


def card_row_name(card_name: str) -> str:
    """The reference row of a card file: ``card: <the card's name>`` (a baseline's row is its bare name)."""
    return f"{CARD_ROW_PREFIX}{card_name}"


@dataclass(frozen=True)
class CardReference:
    """A card file among a grid's references, checked when the config loads."""

    reference: str  # as the config (or --references) writes it
    path: str  # absolute: a relative path is read from the current directory
    row: str  # the row's name in references/<label>.json and the report (card_row_name)
    game: str  # the card's game: it plays the tasks of that game's envs only


def _check_keys(data: Any, allowed: tuple[str, ...], where: str, required: tuple[str, ...] = ()) -> dict:
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping, got {type(data).__name__} {data!r}")
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise ConfigError(f"unknown key {unknown[0]!r} in {where}: expected some of {list(allowed)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise ConfigError(f"{where} is missing {missing[0]!r}")
    return data


def check_name(value: Any, what: str, where: str) -> str:
    """``value`` if it can name a file or folder of the grid's output, else :class:`ConfigError`
    naming it, ``where`` (the config file) and the rule. The grid's ``name`` is its output folder
    (``runs/benchmark/<name>``); an env ``label`` names ``<out>/references/<label>.json`` (and
    ``<label>_<task>.json``) and, with an algorithm's ``name``, the run folders
    ``<out>/runs/<label>__<name>__<seed>/``. A name is a non-empty string of printable characters
    without ``/`` or ``\\``, other than ``.`` and ``..``: nothing that could lead out of the
    output folder (``/abs/path``, ``../x``)."""
    if isinstance(value, str) and value.isprintable() and value not in ("", ".", "..") and not {"/", "\\"} & set(value):
        return value
    raise ConfigError(f"{what}={value!r} in {where}: expected a name (a non-empty string of printable characters "
                      "without '/' or '\\', not '.' or '..'), since it names files and folders inside the output folder")


def _positive_int(value: Any, where: str, minimum: int = 1, maximum: int | None = None, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{where}={value!r}: expected an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{where}={value!r}: expected an integer {minimum:,}..{maximum:,} ({why})")
    return value


def resolve_policy(algo: str, name: str):
    """The ``policy`` argument for ``algo``: an SB3 alias string (``MlpPolicy``) as is, else the
    class of that name in :mod:`splitpoker.agents.policies.setting_scorer`. Unknown names raise :class:`ConfigError`."""
    if not isinstance(name, str) or not name:
        raise ConfigError(f"policy={name!r}: expected a policy name such as 'MlpPolicy'")
    aliases = getattr(algo_class(algo), "policy_aliases", {})
    if name in aliases:
        return name
    try:
        import importlib

        module = importlib.import_module(SCORER_MODULE)
    except ImportError:
        module = None
    cls = getattr(module, name, None) if module is not None else None
    if inspect.isclass(cls):
        return cls
    raise ConfigError(f"unknown policy {name!r} for algorithm {algo!r}: expected one of {sorted(aliases)}"
                      f" or a policy class of {SCORER_MODULE}" + ("" if module else f" ({SCORER_MODULE} is not installed)"))


def _card_references(refs: list, env_specs: list[EnvSpec], where: str) -> dict[str, CardReference]:
    """The card files among ``refs`` (a string ending a card suffix), each loaded and checked now:
    a missing file or a bad card (:class:`splitpoker.agents.evaluation.card_file.CardError`), a
    card whose game no env of the grid scores hands of, two cards of one name: :class:`ConfigError`
    naming the reference."""
    from splitpoker.agents.evaluation.card_file import SUFFIXES as CARD_SUFFIXES
    from splitpoker.agents.evaluation.card_file import CardError, load_card
    from splitpoker.envs.registration import GAME_OF_ENV

    out: dict[str, CardReference] = {}
    rows: dict[str, str] = {}
    hand_envs = {e.label: GAME_OF_ENV.get(e.id) for e in env_specs if set(e.task_list) - {"session"}}
    for r in refs:
        if not isinstance(r, str) or Path(r).suffix not in CARD_SUFFIXES:
            continue
        path = Path(r).expanduser().absolute()
        try:
            card = load_card(path)
        except CardError as e:
            raise ConfigError(f"reference {r!r} in {where}: {e}") from None
        if card.game not in hand_envs.values():
            raise ConfigError(f"reference {r!r} in {where}: a card for {card.game}, but no env of this grid scores "
                              f"{card.game} hands (the envs with hand tasks and their games: {hand_envs}): expected a "
                              f"card of the grid's games, or an env of {card.game}")
        row = card_row_name(card.name)
        if row in rows:
            raise ConfigError(f"references {rows[row]!r} and {r!r} in {where} are both a card named {card.name!r}: "
                              "a card's row is named by its name, so give one of them another 'name:'")
        rows[row] = r
        out[r] = CardReference(r, str(path), row, card.game)
    return out


def _check_algo(a: dict, label: str) -> None:
    """The checks of one algorithm entry as it runs on one env (names the entry in every error)."""
    if a["algo"] not in ALGOS:
        raise ConfigError(f"unknown algorithm {a['algo']!r} in {label}: expected one of {list(ALGOS)}")
    policy = a.get("policy", "MlpPolicy")
    try:
        resolve_policy(a["algo"], policy)
    except ConfigError as err:
        raise ConfigError(f"{err} (in {label})") from None
    n_envs = _positive_int(a.get("n_envs", 4), f"{label}.n_envs")
    try:
        check_n_envs(n_envs, where=f"{label}.n_envs")
    except ValueError as err:
        raise ConfigError(str(err)) from None
    algo_kwargs = a.get("algo_kwargs") or {}
    policy_kwargs = a.get("policy_kwargs") or {}
    for k, v in (("algo_kwargs", algo_kwargs), ("policy_kwargs", policy_kwargs)):
        if not isinstance(v, dict):
            raise ConfigError(f"{label}.{k} must be a mapping, got {v!r}")
    params = set(inspect.signature(algo_class(a["algo"]).__init__).parameters) - {
        "self", "policy", "env", "seed", "device", "policy_kwargs", "verbose", "tensorboard_log", "_init_setup_model"}
    bad = [k for k in algo_kwargs if k not in params]
    if bad:
        raise ConfigError(f"unknown key {bad[0]!r} in {label}.algo_kwargs: expected some of {sorted(params)}")
    try:
        check_algo_values(a["algo"], algo_kwargs)  # ranges; schedules such as lin_2e-3
        check_rollout(a["algo"], algo_kwargs, n_envs, where=f"{label}: ")
    except ValueError as err:
        raise ConfigError(f"{err} (in {label})") from None
    warm = a.get("warm_start")
    if warm is not None:
        from splitpoker.agents.training.warm_start import WarmStart

        try:
            WarmStart.from_dict(warm)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"{label}.warm_start: {err}") from None


def _check_tasks(e: dict, where: str) -> tuple[str, ...]:
    """The env entry's tasks (``()``: its own task), each known and fitting its id."""
    from splitpoker.agents.benchmark.task_names import check_task, natural_task

    tasks = e.get("tasks")
    if tasks is None:
        if natural_task(e["id"]) is None:
            raise ConfigError(f"{where} ({e['id']}): no benchmark task scores this env; expected one of the task envs")
        return ()
    if isinstance(tasks, str):
        tasks = [tasks]
    if not isinstance(tasks, list) or not tasks:
        raise ConfigError(f"{where}.tasks={tasks!r}: expected a non-empty list of task names")
    if len(set(tasks)) != len(tasks):
        raise ConfigError(f"{where}.tasks={tasks!r} repeats a task")
    for t in tasks:
        try:
            check_task(t, e["id"], f"{where}.tasks")
        except ValueError as err:
            raise ConfigError(str(err)) from None
    return tuple(tasks)


def _check_env_kwargs(env_id: str, kwargs: dict, where: str) -> None:
    """Build the environment once so that a bad keyword fails now, not inside a worker."""
    import gymnasium as gym

    try:
        gym.make(env_id, **kwargs).close()
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{where} ({env_id}): bad kwargs: {e}") from None
