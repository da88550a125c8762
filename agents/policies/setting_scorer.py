"""Setting-scoring policies for stable-baselines3 and sb3-contrib: every setting's logit comes
from ONE shared network applied to that setting's own features.

A flat MLP over the cards treats the 105 (Pai Gow: 21) settings as unrelated arms and has to
rediscover hand ranking. Here each setting is described by a feature row (its hands' categories,
strengths, kickers and the foul flag — the environment option ``setting_features=True``, layout
in :mod:`splitpoker.envs.setting_features`), and the same small network scores every row, as pointer
networks and Q-heads over action embeddings do::

    setting row x_s ──φ (shared MLP)──> h_s ──┐
                                              ├─ (w + M ctx) · h_s + b ──> logit of setting s
    cards, phase, wagers ─┬─ card MLP ──> c   │
    mean_s h_s ───────────┴────────────> ctx ─┘
    [c, mean_s h_s, max_s h_s] ──> value features (SB3's value_net reads them)
                               ──> bet logits (bet phase) and the house-way action's logit

Permuting the settings (their rows) permutes their logits and leaves the value unchanged (the
pooling is symmetric); the test suite checks both. The per-setting cost is one small MLP (the
score is linear in ``h_s``, its weights shifted by the hand's context), because it runs 105 times
per sample: a first version with a two-layer 128-wide score head on ``[h_s, ctx]`` reached 12
steps/s on the shared 2-core machine, too slow to learn anything in the time budget. Masks apply as for any policy:
``MaskablePPO`` masks illegal logits (``MaskableCategorical``); plain ``PPO`` sees the foul flag
and learns that a fouled setting loses.

In a config::

    env: {id: splitpoker/AsiaPokerSetting-v0, kwargs: {setting_features: true}}
    algo: maskable_ppo            # or ppo
    policy: SettingScorerPolicy
    policy_kwargs: {hidden: 64, context: 16}

The layout (``n_settings``, ``setting_offset``, ``features_start``, ``n_features``) is read from the
environment by :func:`layout_kwargs` when training; it is saved in ``model.zip`` with the other
constructor arguments, so ``MaskablePPO.load`` rebuilds the same network in a fresh process.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch as th
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.distributions import CategoricalDistribution
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn
from torch.distributions import Categorical

from splitpoker.agents.policies.scorer_kernel import scorer_core
from splitpoker.envs.rules.play.observation import OBS_SIZE

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}
LAYOUT_KEYS = ("n_settings", "setting_offset", "features_start", "n_features")


def layout_kwargs(env) -> dict[str, int]:
    """The policy's layout arguments for a splitpoker environment (raises if the environment
    was made without ``setting_features=True``)."""
    u = env.unwrapped if hasattr(env, "unwrapped") else env
    if not getattr(getattr(u, "config", None), "setting_features", False):
        raise ValueError("SettingScorerPolicy needs the per-setting features: make the environment with "
                         "setting_features=True (env kwargs in the config)")
    return {"n_settings": int(u.n_settings), "setting_offset": int(u.setting_offset),
            "features_start": int(u.setting_features_start), "n_features": int(u.setting_features_width)}


class SettingScorerNet(nn.Module):
    """The shared scorer; SB3 calls it as the policy's ``mlp_extractor``: ``forward_actor`` gives
    the action logits themselves (``latent_dim_pi = n_actions``), ``forward_critic`` the value
    features."""

    def __init__(self, obs_dim: int, n_actions: int, *, n_settings: int, setting_offset: int, features_start: int,
                 n_features: int, hidden: int = 64, context: int = 16, value_hidden: int = 64,
                 activation: str = "relu"):
        super().__init__()
        if features_start + n_settings * n_features != obs_dim:
            raise ValueError(f"observation of {obs_dim} values cannot hold {n_settings} setting rows of {n_features} "
                             f"from index {features_start}: was the environment made with setting_features=True?")
        n_after = n_actions - setting_offset - n_settings
        if setting_offset < 0 or n_after not in (0, 1):
            raise ValueError(f"action space of {n_actions} does not match {setting_offset} bet actions + "
                             f"{n_settings} settings (+ the optional house-way action)")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r}: expected one of {sorted(ACTIVATIONS)}")
        act = ACTIVATIONS[activation]
        self.n_settings, self.n_features, self.features_start = n_settings, n_features, features_start
        self.setting_offset, self.has_house_way = setting_offset, n_after == 1
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = value_hidden
        self.phi = nn.Sequential(nn.Linear(n_features, hidden), act(), nn.Linear(hidden, hidden), act())
        self.card = nn.Sequential(nn.Linear(OBS_SIZE, hidden), act())
        self.ctx = nn.Sequential(nn.Linear(2 * hidden, context), act())
        self.score = nn.Linear(hidden, 1)  # w . h_s + b
        self.modulate = nn.Linear(context, hidden, bias=False)  # + (M ctx) . h_s: the hand's context
        self.value = nn.Sequential(nn.Linear(3 * hidden, value_hidden), act())
        self.bet = nn.Linear(3 * hidden, setting_offset) if setting_offset else None
        self.house_way = nn.Linear(3 * hidden, 1) if self.has_house_way else None
        self.fused = activation == "relu"  # scorer_kernel's hand-written backward is written for ReLU

    def output_layers(self) -> list[nn.Linear]:
        """Layers that emit logits (initialised small, like SB3's ``action_net``)."""
        return [m for m in (self.score, self.modulate, self.bet, self.house_way) if m is not None]

    def _rows(self, obs: th.Tensor) -> th.Tensor:
        # contiguous: a Linear over the strided view of obs costs about 1.4x as much
        return obs[:, self.features_start:].reshape(obs.shape[0], self.n_settings, self.n_features).contiguous()

    def _encode(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``(scores[B, S], pooled[B, 3 hidden])``: every setting's score and the pooled features
        ``[c, mean_s h_s, max_s h_s]``. ReLU networks take the fused path
        (:mod:`splitpoker.agents.policies.scorer_kernel`: the same values, a hand-written backward),
        other activations :meth:`_encode_modules`."""
        if not self.fused:
            return self._encode_modules(obs)
        c = self.card(obs[:, :OBS_SIZE])
        scores, mean, top = scorer_core(self._rows(obs), c, self.phi, self.ctx[0], self.modulate, self.score)
        return scores, th.cat([c, mean, top], dim=1)

    def _encode_modules(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """:meth:`_encode` written with the modules and autograd (the reference of the fused path)."""
        h = self.phi(self._rows(obs))  # [B, S, hidden]
        c = self.card(obs[:, :OBS_SIZE])
        mean = h.mean(dim=1)
        ctx = self.ctx(th.cat([c, mean], dim=1))
        weights = self.modulate(ctx) + self.score.weight  # w + M ctx: one score vector per hand
        scores = (h * weights.unsqueeze(1)).sum(dim=2) + self.score.bias
        return scores, th.cat([c, mean, h.amax(dim=1)], dim=1)

    def _logits(self, scores: th.Tensor, pooled: th.Tensor) -> th.Tensor:
        parts = []
        if self.bet is not None:
            parts.append(self.bet(pooled))
        parts.append(scores)
        if self.house_way is not None:
            parts.append(self.house_way(pooled))
        return th.cat(parts, dim=1) if len(parts) > 1 else scores

    def forward_actor(self, obs: th.Tensor) -> th.Tensor:
        return self._logits(*self._encode(obs))

    def forward_critic(self, obs: th.Tensor) -> th.Tensor:
        return self.value(self._encode(obs)[1])

    def forward(self, obs: th.Tensor):
        """Logits and value features from one pass of the shared network over the settings
        (SB3 calls this in rollouts and in training; encoding once halves the per-setting work)."""
        scores, pooled = self._encode(obs)
        return self._logits(scores, pooled), self.value(pooled)


class _LeanMaskableCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical without torch's argument validation (the logits come from
    the network, the masks from the environment; validation cost about 5% of a training step)."""

    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = MaskableCategorical(logits=action_logits.view(-1, self.action_dim), validate_args=False)
        return self


class _LeanCategorical(CategoricalDistribution):
    """stable-baselines3's categorical without torch's argument validation."""

    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = Categorical(logits=action_logits, validate_args=False)
        return self


def _lean_distribution(dist):
    """The same distribution without argument checks (values, samples and gradients unchanged)."""
    if type(dist) is MaskableCategoricalDistribution:
        return _LeanMaskableCategorical(dist.action_dim)
    if type(dist) is CategoricalDistribution:
        return _LeanCategorical(dist.action_dim)
    return dist


def _foreach_optimizer_kwargs(optimizer_class, kwargs: dict) -> dict:
    """``kwargs`` with ``foreach=True`` unless given: torch's Adam then updates all parameters in a
    few calls instead of a Python loop over them (the same numbers, bit for bit)."""
    kwargs = dict(kwargs)
    if "foreach" in inspect.signature(optimizer_class).parameters:
        kwargs.setdefault("foreach", True)
    return kwargs


class _ScorerMixin:
    """Replaces SB3's ``mlp_extractor`` + ``action_net`` by :class:`SettingScorerNet`."""

    def __init__(self, observation_space, action_space, lr_schedule, *, n_settings: int, setting_offset: int,
                 features_start: int, n_features: int, hidden: int = 64, context: int = 16, value_hidden: int = 64,
                 activation: str = "relu", **kwargs):
        self._scorer_kwargs = {"n_settings": n_settings, "setting_offset": setting_offset,
                               "features_start": features_start, "n_features": n_features, "hidden": hidden,
                               "context": context, "value_hidden": value_hidden, "activation": activation}
        for k in ("n_settings", "features_start", "n_features", "hidden", "context", "value_hidden"):
            v = self._scorer_kwargs[k]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"SettingScorerPolicy {k}={v!r}: expected a positive integer")
        if kwargs.pop("net_arch", None):
            raise ValueError("SettingScorerPolicy takes no net_arch: size it with hidden, context and value_hidden")
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[], **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SettingScorerNet(int(self.features_dim), int(self.action_space.n), **self._scorer_kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the scorer's output already is the logits
        if self.ortho_init:
            for layer in self.mlp_extractor.output_layers():
                nn.init.orthogonal_(layer.weight, gain=0.01)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        self.action_dist = _lean_distribution(self.action_dist)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **_foreach_optimizer_kwargs(self.optimizer_class, self.optimizer_kwargs))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.pop("net_arch", None)
        data.update(self._scorer_kwargs)
        return data


class SettingScorerPolicy(_ScorerMixin, MaskableActorCriticPolicy):
    """For ``MaskablePPO`` (sb3-contrib)."""


class SettingScorerActorCriticPolicy(_ScorerMixin, ActorCriticPolicy):
    """For ``PPO`` and ``A2C`` (stable-baselines3), which cannot mask."""


POLICY_NAMES = ("SettingScorerPolicy",)


def policy_class(name: str, algorithm):
    """The class behind a config's ``policy:`` name for ``algorithm`` (a row of
    ``splitpoker.agents.training.algorithms.ALGORITHMS``: its ``scorer`` field says which of the two
    classes fits); ``None`` for a name that is not ours (an SB3 alias such as ``MlpPolicy``)."""
    if name not in POLICY_NAMES:
        return None
    cls = {"maskable": SettingScorerPolicy, "actor_critic": SettingScorerActorCriticPolicy}.get(algorithm.scorer)
    if cls is None:
        raise ValueError(f"policy {name!r} works with maskable_ppo, ppo and a2c, not {algorithm.name!r}")
    return cls
