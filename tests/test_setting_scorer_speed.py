"""The setting scorer's fast paths compute what the plain code computes: the fused kernel
(agents/policies/scorer_kernel.py) bit for bit in the forward pass and to float rounding in the
gradients, against the modules-and-autograd path and against the formula the scorer used before;
foreach Adam bit for bit; the distributions without argument checks give the same values and
samples."""

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from stable_baselines3.common.distributions import CategoricalDistribution

import splitpoker  # noqa: F401
from splitpoker.agents.policies import setting_scorer as ss
from splitpoker.agents.policies.setting_scorer import SettingScorerNet, layout_kwargs
from splitpoker.envs.rules.play.observation import OBS_SIZE

ROOT = Path(__file__).resolve().parents[1]
ENVS = [("splitpoker/AsiaPokerSetting-v0", {}), ("splitpoker/PaiGowPokerSetting-v0", {}),
        ("splitpoker/AsiaPoker-v0", {"allow_house_way_action": True})]


def observations(env_id, kwargs, n, seed=0):
    """``n`` set-phase observations (the betting envs: after the minimum bet) and the env."""
    env = gym.make(env_id, setting_features=True, **kwargs)
    rows = []
    for i in range(n):
        obs, _ = env.reset(seed=seed + i)
        if env.unwrapped.n_bet_actions:
            obs, *_ = env.step(0)
        rows.append(obs)
    return env, th.as_tensor(np.stack(rows).astype(np.float32))


def nets(env, hidden=32, context=8, seed=0):
    """The same weights in a fused net and in one that runs the modules path."""
    lay = layout_kwargs(env)
    th.manual_seed(seed)
    fused = SettingScorerNet(env.observation_space.shape[0], int(env.action_space.n), **lay, hidden=hidden,
                             context=context)
    for p in fused.parameters():  # not the tiny output init: every path must carry signal
        p.data.normal_(0, 0.3)
    plain = SettingScorerNet(env.observation_space.shape[0], int(env.action_space.n), **lay, hidden=hidden,
                             context=context)
    plain.load_state_dict(fused.state_dict())
    plain.fused = False
    assert fused.fused
    return fused, plain


def loss_and_grads(net, x):
    net.zero_grad()
    logits, value = net(x)
    weights = th.linspace(-1, 1, logits.shape[1])
    (logits.logsumexp(1).sum() + (logits * weights).sum() + (value ** 2).sum()).backward()
    return logits.detach(), value.detach(), {k: p.grad.clone() for k, p in net.named_parameters()}


@pytest.mark.parametrize("env_id,kwargs", ENVS)
@pytest.mark.parametrize("batch", [1, 7, 64])
def test_fused_forward_is_bit_for_bit_and_gradients_agree(env_id, kwargs, batch):
    env, x = observations(env_id, kwargs, batch)
    fused, plain = nets(env)
    lf, vf, gf = loss_and_grads(fused, x)
    lp, vp, gp = loss_and_grads(plain, x)
    assert th.equal(lf, lp) and th.equal(vf, vp)
    with th.no_grad():  # the rollout path (no graph, nothing saved)
        assert th.equal(fused(x)[0], lp)
        assert th.equal(fused.forward_actor(x), lp) and th.equal(fused.forward_critic(x), vp)
    for k in gp:
        scale = gp[k].abs().max().item()
        assert scale > 0, k  # every parameter gets a gradient here
        assert th.allclose(gf[k], gp[k], rtol=1e-5, atol=1e-6 * scale), k


def test_gradients_split_ties_of_the_max_like_amax():
    # duplicate setting rows tie at the max of every unit: the gradient is shared among them
    env, x = observations("splitpoker/PaiGowPokerSetting-v0", {}, 4)
    lay = layout_kwargs(env)
    rows = x[:, lay["features_start"]:].view(4, lay["n_settings"], lay["n_features"])
    rows[:, 1] = rows[:, 0]
    rows[:, 2] = rows[:, 0]
    fused, plain = nets(env)
    _, _, gf = loss_and_grads(fused, x)
    _, _, gp = loss_and_grads(plain, x)
    for k in gp:
        assert th.allclose(gf[k], gp[k], rtol=1e-5, atol=1e-6 * gp[k].abs().max().item()), k


def previous_formula(net, obs):
    """The scorer's logits as computed before the fused kernel (a Linear score head plus an
    einsum with the modulated context, amax pooling over a strided view of the observation)."""
    rows = obs[:, net.features_start:].reshape(obs.shape[0], net.n_settings, net.n_features)
    h = net.phi(rows)
    c = net.card(obs[:, :OBS_SIZE])
    ctx = net.ctx(th.cat([c, h.mean(dim=1)], dim=1))
    scores = net.score(h).squeeze(2) + th.einsum("bsh,bh->bs", h, net.modulate(ctx))
    return scores, th.cat([c, h.mean(dim=1), h.amax(dim=1)], dim=1)


@pytest.mark.parametrize("env_id,kwargs", ENVS)
def test_same_function_as_before(env_id, kwargs):
    env, x = observations(env_id, kwargs, 16)
    fused, _ = nets(env, hidden=64)
    with th.no_grad():
        scores, pooled = previous_formula(fused, x)
        old_logits, old_value = fused._logits(scores, pooled), fused.value(pooled)
        logits, value = fused(x)
    assert th.equal(value, old_value)  # pooling is unchanged bit for bit
    assert th.allclose(logits, old_logits, rtol=0, atol=1e-5 * old_logits.abs().max().item())


def test_other_activations_take_the_modules_path():
    env, x = observations("splitpoker/PaiGowPokerSetting-v0", {}, 3)
    lay = layout_kwargs(env)
    net = SettingScorerNet(x.shape[1], int(env.action_space.n), **lay, hidden=16, context=4, activation="tanh")
    assert not net.fused
    logits, value = net(x)
    assert logits.shape == (3, lay["n_settings"]) and th.isfinite(logits).all()


def test_foreach_adam_is_bit_for_bit():
    assert ss._foreach_optimizer_kwargs(th.optim.Adam, {"eps": 1e-5}) == {"eps": 1e-5, "foreach": True}
    assert ss._foreach_optimizer_kwargs(th.optim.Adam, {"foreach": False}) == {"foreach": False}
    th.manual_seed(1)
    a = [th.randn(8, 5, requires_grad=True), th.randn(5, requires_grad=True)]
    b = [p.detach().clone().requires_grad_() for p in a]
    oa = th.optim.Adam(a, lr=1e-2, eps=1e-5, foreach=False)
    ob = th.optim.Adam(b, lr=1e-2, eps=1e-5, **ss._foreach_optimizer_kwargs(th.optim.Adam, {}))
    for _ in range(20):
        for p, q in zip(a, b, strict=True):
            g = th.randn_like(p)
            p.grad, q.grad = g.clone(), g.clone()
        oa.step()
        ob.step()
    assert all(th.equal(p, q) for p, q in zip(a, b, strict=True))


def test_policy_uses_foreach_adam_and_lean_distributions():
    from sb3_contrib import MaskablePPO

    from splitpoker.agents.training.run import TrainConfig, make_vec_env, resolve_policy

    cfg = TrainConfig(env_id="splitpoker/PaiGowPokerSetting-v0", env_kwargs={"setting_features": True},
                      policy="SettingScorerPolicy", n_envs=2, vec_env="native",
                      algo_kwargs={"n_steps": 8, "batch_size": 8}, policy_kwargs={"hidden": 8, "context": 4})
    venv = make_vec_env(cfg)
    policy, kw = resolve_policy(cfg)
    model = MaskablePPO(policy, venv, seed=0, policy_kwargs=kw, **cfg.algo_kwargs)
    assert model.policy.optimizer.defaults["foreach"] is True
    assert model.policy.optimizer.defaults["eps"] == 1e-5  # SB3's Adam default is kept
    assert isinstance(model.policy.action_dist, ss._LeanMaskableCategorical)
    venv.close()


@pytest.mark.parametrize("masked", [True, False])
def test_lean_distributions_give_the_same_numbers(masked):
    th.manual_seed(2)
    logits = th.randn(6, 9)
    masks = th.rand(6, 9) > 0.3
    masks[:, 0] = True
    actions = th.zeros(6, dtype=th.long)
    if masked:
        ref, lean = MaskableCategoricalDistribution(9), ss._lean_distribution(MaskableCategoricalDistribution(9))
    else:
        ref, lean = CategoricalDistribution(9), ss._lean_distribution(CategoricalDistribution(9))
    assert type(lean) is not type(ref)
    for d in (ref, lean):
        d.proba_distribution(logits)
        if masked:
            d.apply_masking(masks)
    assert th.equal(ref.log_prob(actions), lean.log_prob(actions))
    assert th.equal(ref.entropy(), lean.entropy())
    assert th.equal(ref.mode(), lean.mode())
    th.manual_seed(3)
    a = ref.sample()
    th.manual_seed(3)
    assert th.equal(a, lean.sample())


def test_speed_benchmarks_previous_code_path_is_the_previous_formula():
    """scripts/benchmark.py --only scorer times "before" on MainCodePathNet: it must compute the
    previous formula exactly (same operations, same order) from the same parameters."""
    from splitpoker.scripts.support.speed_scorer import MainCodePathNet

    env, x = observations("splitpoker/AsiaPokerSetting-v0", {}, 9)
    fused, _ = nets(env, hidden=32)
    before = SettingScorerNet(x.shape[1], int(env.action_space.n), **layout_kwargs(env), hidden=32, context=8)
    before.load_state_dict(fused.state_dict())
    before.__class__ = MainCodePathNet
    with th.no_grad():
        scores, pooled = previous_formula(fused, x)
        logits, value = before(x)
        assert th.equal(logits, fused._logits(scores, pooled))
        assert th.equal(value, fused.value(pooled))
        assert th.equal(before.forward_actor(x), logits) and th.equal(before.forward_critic(x), value)
        assert th.allclose(fused(x)[0], logits, rtol=0, atol=1e-5 * logits.abs().max().item())


def test_speed_benchmark_switches_a_model_to_the_previous_code_path():
    from sb3_contrib import MaskablePPO

    from splitpoker.agents.training.run import TrainConfig, make_vec_env, resolve_policy
    from splitpoker.scripts.support.speed_scorer import MainCodePathNet, use_previous_code_path

    cfg = TrainConfig(env_id="splitpoker/PaiGowPokerSetting-v0", env_kwargs={"setting_features": True},
                      policy="SettingScorerPolicy", n_envs=2, vec_env="native",
                      algo_kwargs={"n_steps": 8, "batch_size": 8, "learning_rate": 3e-4},
                      policy_kwargs={"hidden": 8, "context": 4})
    venv = make_vec_env(cfg)
    policy, kw = resolve_policy(cfg)
    model = MaskablePPO(policy, venv, seed=0, policy_kwargs=kw, **cfg.algo_kwargs)
    params = [id(p) for p in model.policy.parameters()]
    use_previous_code_path(model)
    assert type(model.policy.mlp_extractor) is MainCodePathNet
    assert type(model.policy.action_dist) is MaskableCategoricalDistribution
    opt = model.policy.optimizer
    assert opt.defaults["foreach"] is False and opt.defaults["eps"] == 1e-5 and opt.defaults["lr"] == 3e-4
    assert [id(p) for g in opt.param_groups for p in g["params"]] == params  # the same parameters train
    model.learn(16)  # trains on the previous path
    venv.close()


def test_the_light_rows_are_the_benchmark_grids_chosen_rows():
    """speed_scorer.LIGHT times the rows docs/rl_benchmark/rl_benchmark_extra.md chose on validation (the
    configs of grids scorer_speed and scorer_speed_lighter), on a constant rate."""
    import yaml

    from splitpoker.scripts.support.speed_scorer import LIGHT, build_model

    chosen = {"asia": ("scorer_speed.yaml", "MaskablePPO+SettingScorer+light-4e-3"),
              "paigow": ("scorer_speed_lighter.yaml", "MaskablePPO+SettingScorer+lighter-8e-3")}
    for game, (config, name) in chosen.items():
        cfg = yaml.safe_load((ROOT / "configs" / "benchmark" / config).read_text())
        row = next(a for a in cfg["algorithms"] if a["name"] == name)
        n_envs, kw = LIGHT[game]
        assert n_envs == row["n_envs"]
        for k in ("n_steps", "batch_size", "n_epochs", "gae_lambda", "ent_coef"):
            assert kw[k] == row["algo_kwargs"][k], (game, k)
        assert kw["learning_rate"] == float(row["algo_kwargs"]["learning_rate"].removeprefix("lin_"))
    model, venv = build_model("paigow", 0, *LIGHT["paigow"])
    try:
        assert (model.n_envs, model.n_steps, model.batch_size, model.n_epochs) == (128, 16, 512, 2)
    finally:
        venv.close()
