"""Training, evaluation and the demo on tiny budgets; every algorithm; SubprocVecEnv masking."""

import json
import os

import gymnasium as gym
import numpy as np
import pytest
import yaml

import splitpoker  # noqa: F401
from splitpoker.agents.evaluation.evaluate import hand_seeds, mean_ci, run_policy, summarize
from splitpoker.agents.policies.baselines import (
    HouseWayPolicy,
    MonteCarloPolicy,
    RandomPolicy,
    SB3Policy,
    make_baseline,
)
from splitpoker.agents.training.models import load_model
from splitpoker.agents.training.run import (
    ConfigError,
    TrainConfig,
    latest_checkpoint,
    make_vec_env,
    train,
)
from splitpoker.agents.training.state import newest_state, saved_steps


def tiny(tmp_path, algo="maskable_ppo", env_id="splitpoker/AsiaPokerSetting-v0", **kw):
    algo_kwargs = {"maskable_ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
                   "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
                   "a2c": {"n_steps": 8},
                   "dqn": {"learning_starts": 50, "buffer_size": 1000, "train_freq": 4}}[algo]
    return TrainConfig(env_id=env_id, algo=algo, algo_kwargs=algo_kwargs, policy_kwargs={"net_arch": [32]},
                       n_envs=2, total_timesteps=256, checkpoint_freq=128, log_dir=str(tmp_path), **kw)


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo", "a2c", "dqn"])
def test_smoke_train_each_algorithm(tmp_path, algo):
    run_dir = train(tiny(tmp_path, algo), progress_bar=False, log=lambda m: None)
    assert (run_dir / "model.zip").exists() and (run_dir / "config.yaml").exists()
    assert latest_checkpoint(run_dir) is not None
    assert list(run_dir.glob("tb_*/events.out.tfevents.*"))
    model, cfg = load_model(run_dir / "model.zip")
    assert cfg.algo == algo and cfg.seed == 0
    if algo != "maskable_ppo":  # cannot mask: the env penalises illegal actions instead of raising
        assert cfg.resolved_env_kwargs["invalid_action"] == "penalize"


def test_custom_metrics_logged(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = train(tiny(tmp_path), progress_bar=False, log=lambda m: None)
    ea = EventAccumulator(str(next(run_dir.glob("tb_*"))))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    assert {"splitpoker/reward_per_hand", "splitpoker/foul_rate", "splitpoker/house_way_agreement",
            "splitpoker/bonus_taken"} <= tags
    assert ea.Scalars("splitpoker/foul_rate")[-1].value == 0.0  # masked: never fouls


def test_resume_continues_from_the_newest_state(tmp_path):
    """The final model (256 steps) is newer than the last checkpoint (128): resume starts there,
    keeps counting (reset_num_timesteps=False) and writes into the same TensorBoard folder."""
    cfg = tiny(tmp_path)
    run_dir = train(cfg, progress_bar=False, log=lambda m: None)
    assert saved_steps(run_dir / "model.zip") == 256 and saved_steps(run_dir / "checkpoints" / "model_128_steps.zip") == 128
    cfg2 = tiny(tmp_path)
    cfg2.total_timesteps = 512
    messages = []
    train(cfg2, resume=run_dir, progress_bar=False, log=messages.append)
    assert any("from model.zip (256 steps)" in m for m in messages), messages
    model, _ = load_model(run_dir / "model.zip")
    assert model.num_timesteps == 512
    assert [p.name for p in run_dir.glob("tb_*")] == ["tb_1"]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    # one event file per session, same curve; "events.out.tfevents.<time>.<host>.<pid>.<writer count>":
    # ordered by time, then by the process's writer count (as numbers: 9 < 10)
    first, second = sorted((run_dir / "tb_1").iterdir(),
                           key=lambda p: (int(p.name.split(".")[3]), int(p.name.rsplit(".", 1)[1])))
    steps = []
    for path in (first, second):
        ea = EventAccumulator(str(path))
        ea.Reload()
        steps.append([e.step for e in ea.Scalars("splitpoker/hands")])
    assert max(steps[0]) <= 256 < min(steps[1]) and max(steps[1]) == 512
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["total_timesteps"] == 512 and saved["resumed"][0]["from_steps"] == 256
    assert saved["seed"] == 0 and "stable-baselines3" in saved["versions"]


def test_resume_reads_steps_from_the_zip_and_never_rewinds(tmp_path):
    run_dir = train(tiny(tmp_path), progress_bar=False, log=lambda m: None)
    ckpts = run_dir / "checkpoints"
    # a misleading file name and an unreadable zip do not win over the final model
    (ckpts / "model_128_steps.zip").rename(ckpts / "model_999999_steps.zip")
    (ckpts / "model_5000_steps.zip").write_bytes(b"not a zip")
    warnings = []
    state = newest_state(run_dir, warn=warnings.append)
    assert state.path == run_dir / "model.zip" and state.steps == 256
    assert any("model_5000_steps.zip" in w for w in warnings)
    assert latest_checkpoint(run_dir) == run_dir / "model.zip"
    # resuming refuses the unreadable zip (every save is atomic: it is not a crash's), changing nothing
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    with pytest.raises(ConfigError, match=r"model_5000_steps.zip is not a readable stable-baselines3 model"):
        train(resume=run_dir, total_timesteps=256, progress_bar=False, log=lambda m: None)
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before
    (ckpts / "model_5000_steps.zip").unlink()
    # the target is already met: nothing is written, the finished model is not replaced
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    messages = []
    for total in (256, 100):
        assert train(resume=run_dir, total_timesteps=total, progress_bar=False, log=messages.append) == run_dir
    assert sum("nothing to do" in m for m in messages) == 2
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before
    # resuming with a config of another experiment is refused
    other = tiny(tmp_path, seed=1)
    with pytest.raises(ValueError, match="seed differ"):
        train(other, resume=run_dir, progress_bar=False, log=lambda m: None)


def test_dqn_resume_restores_the_replay_buffer(tmp_path):
    run_dir = train(tiny(tmp_path, "dqn"), progress_bar=False, log=lambda m: None)
    model, _ = load_model(run_dir / "model.zip")
    model.load_replay_buffer(run_dir / "replay_buffer.pkl")
    assert model.replay_buffer.size() * 2 == model.num_timesteps == 256
    messages = []
    train(resume=run_dir, total_timesteps=400, progress_bar=False, log=messages.append)
    assert any("replay buffer restored: 256 transitions" in m for m in messages), messages
    model, _ = load_model(run_dir / "model.zip")
    model.load_replay_buffer(run_dir / "replay_buffer.pkl")
    assert model.replay_buffer.size() * 2 == model.num_timesteps == 400


def test_subproc_vec_env_with_maskable_ppo(tmp_path):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    cfg = tiny(tmp_path, vec_env="subproc")
    vec = make_vec_env(cfg)
    vec.reset()
    masks = get_action_masks(vec)  # through SubprocVecEnv: from the envs themselves
    assert masks.shape == (2, 105) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    vec.close()


def test_bad_training_config():
    with pytest.raises(ValueError, match="unknown algo 'sac'"):
        TrainConfig(algo="sac")
    with pytest.raises(ValueError, match="unknown env id"):
        TrainConfig(env_id="splitpoker/Nope-v0")
    with pytest.raises(ValueError, match=r"unknown config key\(s\) \[.lr.\]"):
        TrainConfig.from_dict({"lr": 1})


def test_policies_and_crn_evaluation():
    env = gym.make("splitpoker/AsiaPoker-v0")
    seeds = hand_seeds(1, 60)
    pols = {"random": RandomPolicy.from_env(env, seed=1), "house-way": HouseWayPolicy.from_env(env),
            "mc-best": MonteCarloPolicy.from_env(env, samples=100, seed=1)}
    recs = {n: run_policy(env, p, seeds) for n, p in pols.items()}
    summary = summarize(recs)
    assert summary["house-way"]["house_way_agreement"] == 1.0
    assert summary["house-way"]["diff_vs_house_way"] == 0.0
    assert summary["mc-best"]["foul_rate"] == 0.0 and summary["random"]["foul_rate"] == 0.0
    # the house-way policy bets the minimum with no bonus: reward = +-1 exactly
    assert set(np.abs(recs["house-way"].reward)) == {1.0}
    # common random numbers: the same hand seeds give the same dealer hands for every policy
    again = run_policy(env, HouseWayPolicy.from_env(env), seeds)
    assert np.array_equal(again.reward, recs["house-way"].reward)
    with pytest.raises(ValueError, match="unknown baseline policy 'smart'"):
        make_baseline("smart", env)


def test_sb3_policy_wrapper(tmp_path):
    run_dir = train(tiny(tmp_path), progress_bar=False, log=lambda m: None)
    model, _ = load_model(run_dir / "model.zip")
    env = gym.make("splitpoker/AsiaPokerSetting-v0")
    pol = SB3Policy.from_env(env, model=model)
    rec = run_policy(env, pol, hand_seeds(0, 20))
    assert rec.fouled.sum() == 0


def test_mean_ci_covers_the_true_mean_95_percent_of_the_time():
    """Coverage, not the formula: 4,000 samples of 60 results +1 (p = 0.3) or -1 have the true
    mean 2 * 0.3 - 1 = -0.4; a correct normal 95% interval covers it in 95% of them (binomial
    standard error of the rate: sqrt(0.95 * 0.05 / 4000) = 0.34 points, so 93.6%..96.4% is +-4
    of them). A wrong z, a missing square root or a population sd would leave the band."""
    rng = np.random.default_rng(7)
    samples = np.where(rng.random((4000, 60)) < 0.3, 1.0, -1.0)
    covered = 0
    for x in samples:
        m, half = mean_ci(x)
        covered += abs(m + 0.4) <= half
    assert 0.936 <= covered / 4000 <= 0.964
    m, half = mean_ci(np.array([1.0, -1.0, 1.0, -1.0]))  # by hand: sd = sqrt(4/3), half = 1.96 * sd / 2
    assert m == 0.0 and half == pytest.approx(1.959963984540054 / np.sqrt(3))
    assert np.isnan(mean_ci(np.array([0.5]))[1])  # one value: no interval


def test_evaluate_script_and_demo(tmp_path, capsys):
    import importlib.util
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "scripts"))
    spec = importlib.util.spec_from_file_location("demo", root / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    assert demo.main(["--timesteps", "256", "--hands", "40", "--regret-hands", "0", "--log-dir", str(tmp_path),
                      "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "tensorboard --logdir" in out and "learned policy" in out
    run_dir = next(tmp_path.glob("demo__*"))
    res = json.loads((run_dir / "evaluation.json").read_text())
    assert set(res["policies"]) == {"learned", "random", "house-way"} and res["hands"] == 40
    assert (run_dir / "evaluation.png").stat().st_size > 1000
    import evaluate

    with pytest.raises(SystemExit) as exit_info:  # argparse refuses the count before any work
        demo.main(["--timesteps", "0"])
    assert exit_info.value.code == 2
    row = {"hands": 300, "mean_regret": 0.01, "regret_ci95": 0.004}
    house = {"hands": 300, "mean_regret": 0.06, "regret_ci95": 0.01}
    assert "beats the house way" in demo.verdict({"learned": row, "house-way": house}) and "apart" in demo.verdict(
        {"learned": row, "house-way": house})
    assert "overlap" in demo.verdict({"learned": {**row, "mean_regret": 0.05}, "house-way": house})
    assert "NOT" in demo.verdict({"learned": {**row, "mean_regret": 0.07}, "house-way": house})
    assert evaluate.main(["--model", "nope.zip"]) == 2
    with pytest.raises(SystemExit) as exit_info:  # argparse refuses the count before any work
        evaluate.main(["--model", "house-way", "--hands", "0"])
    assert exit_info.value.code == 2


def test_a_new_run_stopped_before_it_saved_a_model_leaves_no_folder(tmp_path, monkeypatch):
    """Interrupted after its folder and config.yaml are written but before a model is saved (in
    set-up, or by a signal in the first rollout): the folder goes, so the same command starts the
    run again instead of refusing an existing folder with nothing in it to resume."""
    import signal

    from stable_baselines3.common.callbacks import BaseCallback

    import splitpoker.agents.training.run as run_mod
    from splitpoker.agents.training.state import TrainingInterrupted

    class SignalOnFirstStep(BaseCallback):
        def _on_step(self):
            if self.num_timesteps <= 2:
                os.kill(os.getpid(), signal.SIGINT)  # SignalStop's handler: stop at the next step, save
            return True

    def setup_interrupted(*args, **kwargs):
        assert (tmp_path / cfg.make_run_name() / "config.yaml").exists()  # the folder is made by then
        raise KeyboardInterrupt

    cfg = tiny(tmp_path, run_name="r")
    with monkeypatch.context() as m:
        m.setattr(run_mod, "session_callback", setup_interrupted)
        with pytest.raises(KeyboardInterrupt):
            train(cfg, progress_bar=False, log=lambda msg: None)
    assert list(tmp_path.iterdir()) == []
    with monkeypatch.context() as m:
        m.setattr(run_mod, "metrics_callback", SignalOnFirstStep)
        with pytest.raises(TrainingInterrupted) as e:
            train(tiny(tmp_path, run_name="r"), progress_bar=False, log=lambda msg: None)
    assert e.value.path is None and e.value.steps == 0 and not e.value.run_dir.exists()
    run_dir = train(tiny(tmp_path, run_name="r"), progress_bar=False, log=lambda msg: None)  # the same command
    assert saved_steps(run_dir / "model.zip") == 256


def test_a_signal_after_the_last_step_still_stops_the_caller(tmp_path, monkeypatch):
    """A SIGTERM that lands after the last step (in the final update or the save) used to be
    swallowed: training returned as if nothing had happened and the caller (the demo) went on to
    its evaluation and exited 0. The run is complete and saved; the caller is told to stop."""
    import signal

    from stable_baselines3.common.callbacks import BaseCallback

    import splitpoker.agents.training.run as run_mod
    from splitpoker.agents.training.state import TrainingInterrupted

    class SignalAtTheEnd(BaseCallback):
        def _on_step(self):
            return True

        def _on_training_end(self):  # after the last step: no _on_step sees the signal
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(run_mod, "metrics_callback", SignalAtTheEnd)
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(TrainingInterrupted) as e:
        train(tiny(tmp_path, run_name="r"), progress_bar=False, log=lambda msg: None)
    assert e.value.complete and e.value.exit_code == 143 and e.value.steps == 256
    assert e.value.path == e.value.run_dir / "model.zip" and saved_steps(e.value.path) == 256
    assert "as training finished: all 256 steps done" in str(e.value)
    assert signal.getsignal(signal.SIGTERM) is previous  # the handlers are put back


def test_the_demo_stopped_by_sigterm_while_training_exits_143_and_says_what_it_saved(tmp_path):
    """The demo's training takes the signal with its own handler (stop at the next step, save): the
    script then exits 143 for a SIGTERM (it said 130, the Ctrl-C code, as if the signal had been a
    SIGINT) and its line names the checkpoint."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    p = subprocess.Popen([sys.executable, str(root / "scripts" / "demo.py"), "--timesteps", "10000000",
                          "--regret-hands", "0", "--no-progress"], cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(root)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not list(tmp_path.glob("runs/*/config.yaml")):  # written just before learning starts
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()[1][-2000:]
            time.sleep(0.2)
        time.sleep(3)  # inside model.learn
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 143, (p.returncode, err[-2000:])
    assert "interrupted by SIGTERM at " in err and "; demo stopped" in err and "Traceback" not in err, err[-2000:]
