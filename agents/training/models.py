"""Loading a saved model (``model.zip``) for evaluation: the algorithm and the policy's own
objects from the run's ``config.yaml`` when there is one, a clear refusal when the model does not
fit the environment, and models saved under the 0.1 import names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from splitpoker.agents.training.algorithms import ALGOS, algo_class
from splitpoker.agents.training.config import TrainConfig
from splitpoker.agents.training.schedules import resolve_schedules


def load_model(path: str | Path):
    """Load a saved model; the algorithm is read from the run's ``config.yaml`` when present,
    else tried in order (MaskablePPO, PPO, A2C, DQN).

    A model saved by splitpoker 0.1 holds pickled references to the old module names
    (``agents.setting_scorer``, ``agents.schedules``): with the run's ``config.yaml`` beside it
    (or one folder up, for a checkpoint) the policy class and the schedules are taken from the
    config instead (docs/migration.md); without one, a ``ValueError`` says so."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"model {path} does not exist")
    cfg_path = path.parent / "config.yaml"
    if path.parent.name == "checkpoints":
        cfg_path = path.parent.parent / "config.yaml"
    if cfg_path.exists():
        cfg = TrainConfig.from_yaml(cfg_path)
        cls = algo_class(cfg.algo)
        try:
            return cls.load(path, device="cpu"), cfg
        except (ImportError, AttributeError):
            if not _old_module_names(path):
                raise
        return cls.load(path, device="cpu", custom_objects=_objects_from_config(cfg, cls)), cfg
    old = _old_module_names(path)
    if old:
        raise ValueError(f"model {path} was saved by splitpoker 0.1 (it refers to {', '.join(old)}): put its run's "
                         f"config.yaml beside it, and the policy class and schedules are taken from there "
                         f"(docs/migration.md)")
    last = None
    for name in ALGOS:
        try:
            return algo_class(name).load(path, device="cpu"), None
        except Exception as e:  # noqa: BLE001 - try the next algorithm
            last = e
    raise ValueError(f"could not load {path} with any of {ALGOS}: {last}")


def _space_text(space) -> str:
    n = getattr(space, "n", None)
    return f"{int(n)} actions" if n is not None else f"actions {space}"


def check_model_fits(model, env, env_id: str) -> None:
    """``ValueError`` unless ``model`` takes ``env``'s observations and actions (a model of
    another game, or of other env keywords, would fail inside torch with a shape error)."""
    obs, act = env.observation_space, env.action_space
    if model.observation_space.shape == obs.shape and model.action_space == act:
        return
    raise ValueError(f"the model takes observations of shape {model.observation_space.shape} and "
                     f"{_space_text(model.action_space)}, but {env_id} gives shape {obs.shape} and {_space_text(act)}: "
                     f"it was trained on another env or other env keywords (pass --env and --env-kwargs of its "
                     f"training, or keep its run's config.yaml beside it)")


# modules of splitpoker 0.1 (top-level ``agents`` and ``envs``), as pickle names them
_OLD_MODULE = re.compile(rb"(?<![\w.])((?:agents|envs)(?:\.\w+)+)")


def _old_module_names(path: Path) -> list[str]:
    """The 0.1 module names the pickled objects of a saved model refer to (empty for a model of
    this version, or a file that is not one)."""
    import base64
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return []
    found = set()
    for value in data.values() if isinstance(data, dict) else ():
        if isinstance(value, dict) and isinstance(value.get(":serialized:"), str):
            try:
                blob = base64.b64decode(value[":serialized:"])
            except ValueError:
                continue
            found.update(m.decode() for m in _OLD_MODULE.findall(blob))
    return sorted(found)


def _objects_from_config(cfg: TrainConfig, cls) -> dict[str, Any]:
    """What SB3 would unpickle from a saved model, rebuilt from its run's config: the policy class
    and the schedules (``learning_rate``, ``lr_schedule``, ``clip_range``, ``clip_range_vf``)."""
    import inspect

    from stable_baselines3.common.utils import get_schedule_fn

    from splitpoker.agents.training.config import policy_class

    kwargs = resolve_schedules(cfg.algo_kwargs)
    params = inspect.signature(cls.__init__).parameters
    lr = kwargs.get("learning_rate", params["learning_rate"].default)
    objects = {"policy_class": policy_class(cfg.algo, cfg.policy), "learning_rate": lr, "lr_schedule": get_schedule_fn(lr)}
    for key in ("clip_range", "clip_range_vf"):
        if key in params:
            value = kwargs.get(key, params[key].default)
            objects[key] = None if value is None else get_schedule_fn(value)
    return objects
