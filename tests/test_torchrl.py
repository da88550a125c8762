"""TorchRL takes the environments in its users' first lines (docs/clients.md, TorchRL section):
``PettingZooWrapper(<table>.parallel_env(..., info_text=False), use_mask=True)`` and
``TransformedEnv(GymEnv(id, info_text=False).auto_register_info_dict(), ActionMask())``.
``check_env_specs`` passes, and random rollouts drawn through the masks (TorchRL's own
``rand_action`` under the mask) play legal actions only: no penalised action, settled rounds
whose rewards are the info's net chips in reward units."""

import pytest

torchrl = pytest.importorskip("torchrl")

import torch  # noqa: E402
from torchrl.envs import ActionMask, GymEnv, PettingZooWrapper, TransformedEnv  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import splitpoker  # noqa: E402, F401  (registers the ids)
from splitpoker.envs.rules.play.kernel import Phase  # noqa: E402
from splitpoker.envs.table import asia_table_v0, paigow_table_v0  # noqa: E402


def _rollout(env, steps: int, seed: int):
    """``env.rollout(steps)`` with TorchRL's random actions, seeded, torch's global RNG left as it was."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        env.set_seed(seed)
        return env.rollout(steps, break_when_any_done=False)


@pytest.mark.parametrize("table", [paigow_table_v0, asia_table_v0], ids=["paigow_table", "asia_table"])
def test_pettingzoo_wrapper_plays_the_table_through_its_mask(table):
    parallel = table.parallel_env(num_seats=2, info_text=False)
    unit = parallel.seats.unit
    env = PettingZooWrapper(parallel, use_mask=True)
    check_env_specs(env)
    td = _rollout(env, 16, seed=3)  # 8 rounds: a bet step, then a set step
    actions, masks = td["seat", "action"], td["seat", "action_mask"]
    assert actions.shape == (16, 2) and masks.shape == (16, 2, parallel.seats.n_actions)
    assert masks.gather(-1, actions.unsqueeze(-1)).all()  # every action drawn was legal
    assert not masks.all(-1)[::2].any()  # the bet steps' masks did mask something (settings)
    info = td["next", "seat", "info"]
    assert (info["invalid_action"] == -1).all() and (info["reason"] == 0).all()
    assert (info["phase"][0::2] == Phase.SET).all() and (info["phase"][1::2] == Phase.DONE).all()
    settled = info["setting"] >= 0
    assert settled[1::2].all() and not settled[0::2].any()  # every seat settled every round
    reward = td["next", "seat", "reward"].squeeze(-1)
    torch.testing.assert_close(reward[1::2], (info["net_chips"][1::2] / unit).to(reward.dtype))
    assert (info["cards"][1::2] >= 0).all() and (info["dealer_cards"][1::2] >= 0).all()
    env.close()


@pytest.mark.parametrize("env_id", ["splitpoker/PaiGowPokerSetting-v0", "splitpoker/AsiaPoker-v0"])
def test_gym_env_action_mask_reads_the_mask_from_info(env_id):
    base = GymEnv(env_id, info_text=False).auto_register_info_dict()  # TorchRL's own info reader
    env = TransformedEnv(base, ActionMask())
    check_env_specs(env)
    td = _rollout(env, 40, seed=5)
    chosen = td["action"].long().argmax(-1)  # one-hot actions
    assert td["action_mask"].gather(-1, chosen.unsqueeze(-1)).all()  # every action drawn was legal
    assert not td["action_mask"].all(-1).all()  # something was masked
    nxt = td["next"]
    assert (nxt["invalid_action"] == -1).all() and (nxt["reason"] == 0).all()
    done = nxt["done"].squeeze(-1)
    assert done.sum() >= 10 and ((nxt["setting"] >= 0) == done).all()  # every round ended settled
    assert (nxt["phase"][done] == Phase.DONE).all()
    unit = base._env.unwrapped.config.unit
    torch.testing.assert_close(nxt["reward"].squeeze(-1)[done], (nxt["net_chips"][done] / unit).float())
    env.close()
