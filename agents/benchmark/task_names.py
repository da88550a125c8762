"""The benchmark's task names, the environments each task scores and the row labels: the part of
:mod:`splitpoker.agents.benchmark.tasks` that configs check against (kept apart so that the config
module and the tasks module do not import each other)."""

from __future__ import annotations

from splitpoker.envs.registration import GAME_ENVS

TASKS = ("setting", "card_removal", "bets", "session")
SETTING_IDS = tuple(g.setting_id for g in GAME_ENVS.values())
#: each betting env and the setting env whose hands it deals
BET_IDS = {g.env_id: g.setting_id for g in GAME_ENVS.values()}
SESSION_IDS = tuple(g.session_id for g in GAME_ENVS.values())
TASK_ENVS = {"setting": SETTING_IDS, "card_removal": SETTING_IDS, "bets": tuple(BET_IDS), "session": SESSION_IDS}
SPLITS = ("validation", "test")


def natural_task(env_id: str) -> str | None:
    """The task an environment is scored on when the config names none."""
    for task in ("setting", "bets", "session"):
        if env_id in TASK_ENVS[task]:
            return task
    return None


def check_task(task, env_id: str, where: str) -> str:
    """``task`` if it is known and fits ``env_id``, else a ``ValueError`` naming it."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r} in {where}: expected one of {list(TASKS)}")
    if env_id not in TASK_ENVS[task]:
        raise ValueError(f"task {task!r} in {where} does not fit {env_id}: it scores {list(TASK_ENVS[task])}")
    return task


def task_label(env_label: str, task: str, tasks: tuple[str, ...]) -> str:
    """The row label of ``task`` on an environment: the env's label for its first task,
    ``<label>_<task>`` for the others (``asia_card_removal``)."""
    return env_label if task == tasks[0] else f"{env_label}_{task}"
