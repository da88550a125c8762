"""What a training run needs of the machine, checked when it starts (once the env gives the
observation and action sizes): memory for its model (:func:`check_model_memory`, through the one
memory check :func:`splitpoker.envs.rules.checks.check_fits_in_memory`) and a torch device that
exists (:func:`check_device`). Used by ``train()`` and the benchmark's runs; a config is read
without them (a model trained on a GPU is still evaluated on a CPU-only machine)."""

from __future__ import annotations

import inspect
import math
from typing import Any

from splitpoker.agents.training.algorithms import algo_class, get_algorithm
from splitpoker.envs.rules.checks import check_fits_in_memory


def _hidden_layers(net_arch, default: list[int]) -> list[list[int]]:
    """The hidden layer sizes of each network a policy builds from ``net_arch`` (a list: one
    shared by the actor and the critic in SB3, built twice; ``{pi, vf}``: two)."""
    if net_arch is None:
        return [default, default]
    if isinstance(net_arch, dict):
        return [list(net_arch.get("pi", [])), list(net_arch.get("vf", []))]
    return [list(net_arch), list(net_arch)]


def check_model_memory(algo: str, algo_kwargs: dict[str, Any], policy_kwargs: dict[str, Any], observation_space,
                       action_space, where: str = "") -> None:
    """The model's memory against the machine's (:func:`splitpoker.envs.rules.checks.check_fits_in_memory`),
    once the env gives the observation and action sizes: the networks' weights (with gradients and
    Adam's two moments: 16 bytes each; DQN's target network too) and an off-policy algorithm's
    replay buffer (``buffer_size`` transitions of two float32 observations, an action, a reward and
    two flags). ``ValueError`` with both figures."""
    obs = int(math.prod(observation_space.shape or (1,)))
    n_actions = int(getattr(action_space, "n", 1) or 1)
    if get_algorithm(algo).off_policy:
        nets = _hidden_layers(policy_kwargs.get("net_arch"), [64, 64])[:1] * 2  # the Q network and its target
    else:
        nets = _hidden_layers(policy_kwargs.get("net_arch"), [64, 64])
    weights = 0
    for hidden in nets:
        sizes = [obs, *hidden, n_actions]
        weights += sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
    check_fits_in_memory(f"{where}policy_kwargs.net_arch={policy_kwargs.get('net_arch')!r} on observations of {obs:,} "
                         f"values ({weights:,} weights)", 16 * weights, "use smaller layers")
    if get_algorithm(algo).off_policy:
        size = algo_kwargs.get("buffer_size")
        if size is None:
            size = inspect.signature(algo_class(algo).__init__).parameters["buffer_size"].default
        per = 2 * 4 * obs + 8 + 3 * 4
        check_fits_in_memory(f"{where}algo_kwargs.buffer_size={size:,} (replay transitions of {per:,} bytes)",
                             float(size) * per, "lower buffer_size")


def check_device(device: str) -> None:
    """``ValueError`` unless torch can train on ``device`` here: stable-baselines3 falls back to the
    CPU without a word for a ``cuda`` it cannot use (a run meant for a GPU took hours on the CPU).
    ``auto`` and ``cpu`` always pass. Checked when training starts, not when a config is read (a
    model trained on a GPU is still evaluated on a CPU-only machine)."""
    import torch

    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= count:
            raise ValueError(f"device={device!r}: torch sees {count} CUDA device(s) on this machine"
                             + (" (torch.cuda.is_available() is false)" if count == 0 else "")
                             + ": use device: cpu (or auto, which takes a GPU only where there is one)")
    elif device == "mps" and not torch.backends.mps.is_available():
        raise ValueError("device='mps': torch has no MPS (Apple GPU) device here: use device: cpu or auto")
