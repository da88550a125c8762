"""The hyperparameter search (agents/benchmark/tuning.py, scripts/tune.py): sampled values inside the
documented space, the objective is the run's exact regret, an interrupted study resumes without
redoing trials, bad input fails before any training."""

import json
import logging
import subprocess
import sys
from pathlib import Path

import optuna
import pytest

from splitpoker.agents.benchmark.config import AlgoSpec, BenchmarkConfig, ConfigError
from splitpoker.agents.benchmark.tuning import SPACES, quiet_interrupted_trials, sample_algo, tune

ROOT = Path(__file__).resolve().parent.parent
ASIA = "splitpoker/AsiaPokerSetting-v0"


def tiny_cfg(**changes) -> BenchmarkConfig:
    cfg = {"name": "tiny", "executor": "local", "total_timesteps": 128, "eval_every": 64, "seeds": [0],
           "eval": {"hands": 10, "paired_hands": 10, "validation_seed": 2024, "test_seed": 2025},
           "envs": [{"id": ASIA, "label": "asia", "kwargs": {"house_way": "asia-000", "dealer_samples": 2,
                                                             "setting_features": True}}],
           "algorithms": [{"name": "MLP", "algo": "maskable_ppo", "policy": "MlpPolicy", "n_envs": 2,
                           "algo_kwargs": {"n_steps": 32, "batch_size": 32, "gamma": 0.0}},
                          {"name": "Scorer", "algo": "maskable_ppo", "policy": "SettingScorerPolicy", "n_envs": 2,
                           "algo_kwargs": {"n_steps": 32, "gamma": 0.0}},
                          {"name": "DQN", "algo": "dqn", "policy": "MlpPolicy", "algo_kwargs": {"gamma": 0.0}}],
           "references": []}
    cfg.update(changes)
    return BenchmarkConfig.from_dict(cfg, min_seeds=1)  # a sweep trains one seed per trial


def test_sampled_hyperparameters_lie_in_the_space():
    algo = AlgoSpec("Scorer", "maskable_ppo", "SettingScorerPolicy", 2, {"n_steps": 32, "gamma": 0.0}, {})
    space = {name: args for name, _, *args in SPACES["SettingScorerPolicy"]}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for _ in range(20):
        s = sample_algo(study.ask(), algo)
        assert space["learning_rate"][0] <= s.algo_kwargs["learning_rate"] <= space["learning_rate"][1]
        assert s.algo_kwargs["n_epochs"] in space["n_epochs"][0] and s.algo_kwargs["ent_coef"] in space["ent_coef"][0]
        assert s.policy_kwargs["hidden"] in space["hidden"][0] and s.policy_kwargs["context"] in space["context"][0]
        # batch_size never exceeds the rollout (n_steps x n_envs)
        assert s.algo_kwargs["batch_size"] <= s.algo_kwargs["n_steps"] * 2
        assert s.algo_kwargs["gamma"] == 0.0  # the grid's other keys are kept


def test_study_scores_by_exact_regret_and_resumes(tmp_path):
    cfg = tiny_cfg()
    logs = []
    first = tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=logs.append)
    assert first["trials_done"] == 2 and len(first["trials"]) == 2
    assert (tmp_path / "optuna.journal").exists()
    on_disk = json.loads((tmp_path / "tune.json").read_text())
    assert on_disk["trials_done"] == 2 and on_disk["evalset"]["hands"] == 10
    for t in first["trials"]:
        assert t["state"] in ("COMPLETE", "PRUNED")
        assert [p[0] for p in t["curve"]][:2] == [0, 64]  # scored at the grid's interval
        if t["state"] == "PRUNED":  # never on the untrained network's step-0 score
            assert t["curve"][-1][0] > 0
        if t["state"] == "COMPLETE":  # the objective is the last exact-regret score
            assert t["value"] == t["curve"][-1][1] and t["steps"] == 128
    best = first["best"]
    assert best is not None and best["mean_regret"] == min(t["value"] for t in first["trials"] if t["value"] is not None)
    assert set(best["params"]) == {"learning_rate", "n_epochs", "ent_coef", "net_arch"}
    # rerun with a larger study: only the missing trial runs, the first two are kept as they were
    logs.clear()
    again = tune(cfg, "MLP", None, 3, tmp_path, seed=0, log=logs.append)
    assert any("resuming: 2 trial(s) already done" in m for m in logs)
    assert again["trials_done"] == 3
    assert [t["params"] for t in again["trials"][:2]] == [t["params"] for t in first["trials"]]
    assert sum(m.startswith("trial ") for m in logs) == 1


@pytest.mark.parametrize(("algo", "env", "trials", "fragment"), [
    ("Nope", None, 2, "unknown algorithm name 'Nope'"),
    ("DQN", None, 2, "tuning covers maskable_ppo and ppo only"),
    ("MLP", "paigow", 2, "unknown env label 'paigow'"),
    ("MLP", None, 0, "trials=0: expected a positive integer"),
])
def test_bad_input_fails_before_training(tmp_path, algo, env, trials, fragment):
    with pytest.raises(ConfigError, match=fragment):
        tune(tiny_cfg(), algo, env, trials, tmp_path / "o", log=lambda m: None)
    assert not (tmp_path / "o").exists()


def test_script_help_and_bad_arguments(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, str(ROOT / "scripts" / "tune.py"), *a], cwd=ROOT,  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    p = run("--help")
    assert p.returncode == 0 and "optuna.journal" in p.stdout
    p = run("--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "SAC", "--timesteps", "100",
            "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "unknown algorithm name 'SAC'" in p.stderr and not (tmp_path / "o").exists()
    p = run("--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "PPO", "--timesteps", "0")
    assert p.returncode == 2 and "argument --timesteps: 0: expected an integer 1..10,000,000,000" in p.stderr


def test_a_rerun_with_other_settings_is_refused_before_any_work(tmp_path):
    """One folder, one study: the same --out with another budget, evaluation set, seed or
    algorithm is refused (nothing trained, the journal untouched) instead of reporting the old
    trials as if they had been run this way; the same settings resume."""
    cfg = tiny_cfg()
    tune(cfg, "MLP", None, 1, tmp_path, seed=0, log=lambda m: None)
    journal = (tmp_path / "optuna.journal").read_bytes()
    for other, algo, seed, fragment in [
        (tiny_cfg(total_timesteps=64, eval_every=32), "MLP", 0, "timesteps_per_trial (--timesteps) 128, not 64"),
        (tiny_cfg(eval={"hands": 12, "paired_hands": 12, "validation_seed": 2024, "test_seed": 2025}), "MLP", 0, "eval_hands (--eval-hands) 10, not 12"),
        (cfg, "MLP", 9, "seed (--seed) 0, not 9"),
        (cfg, "Scorer", 0, "holds the study 'tiny-asia-MLP', not 'tiny-asia-Scorer'"),
    ]:
        logs = []
        with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
            tune(other, algo, None, 2, tmp_path, seed=seed, log=logs.append)
        assert not any(m.startswith(("trial ", "resuming")) for m in logs)
        assert (tmp_path / "optuna.journal").read_bytes() == journal
    again = tune(cfg, "MLP", None, 1, tmp_path, seed=0, log=lambda m: None)
    assert again["trials_done"] == 1


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_journal_cut_off_mid_record_is_repaired_and_resumed(tmp_path):
    """A crash while Optuna appends leaves a half record at the end: the rerun drops it (the
    original kept beside it), resumes and runs the missing trials; the journal stays readable."""
    cfg = tiny_cfg()
    tune(cfg, "MLP", None, 1, tmp_path, seed=0, log=lambda m: None)
    path = tmp_path / "optuna.journal"
    whole = path.read_bytes()
    n = len(_records(path))
    path.write_bytes(whole + b'{"op_code": 5, "worker_id": "x", "trial_id": 0, "par')  # cut off mid-record
    logs = []
    again = tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=logs.append)
    assert again["trials_done"] == 2
    assert any("last record was cut off" in m for m in logs), logs
    assert (tmp_path / "optuna.journal.damaged").read_bytes().startswith(whole)
    records = _records(path)  # every line a whole record again
    assert len(records) > n and all("op_code" in r for r in records)
    assert tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=lambda m: None)["trials_done"] == 2


def test_a_journal_damaged_in_the_middle_is_refused_with_its_line(tmp_path):
    cfg = tiny_cfg()
    tune(cfg, "MLP", None, 1, tmp_path, seed=0, log=lambda m: None)
    path = tmp_path / "optuna.journal"
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"garbage" + lines[2][7:]
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"optuna.journal: line 3 of \d+ is not a study record .*\(head -n 2\)"):
        tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=lambda m: None)
    assert path.read_bytes() == before  # refused, not rewritten


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage() + (" +traceback" if record.exc_info else ""))


def test_a_trial_stopped_by_ctrl_c_logs_nothing_but_other_failures_still_do():
    """Optuna logs a trial that raised as a warning with its traceback, from a child logger of
    ``optuna``. Inside :func:`quiet_interrupted_trials` a Ctrl-C logs nothing (the script prints its
    one line); a real error of a trial is still logged, and outside it Optuna is as before."""
    records = _Records()
    logging.getLogger("optuna").addHandler(records)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def run(error):
        def objective(trial):
            raise error
        study = optuna.create_study()
        with pytest.raises(type(error)):
            study.optimize(objective, n_trials=1, catch=())

    try:
        with quiet_interrupted_trials():
            run(KeyboardInterrupt())
        assert records.messages == []
        with quiet_interrupted_trials():
            run(ValueError("bad trial"))
        assert any("ValueError('bad trial')" in m and m.endswith("+traceback") for m in records.messages), records.messages
        records.messages.clear()
        run(KeyboardInterrupt())
        assert any("KeyboardInterrupt" in m for m in records.messages), records.messages
    finally:
        logging.getLogger("optuna").removeHandler(records)


def _hold_run_lock(folder: Path) -> subprocess.Popen:
    """A child process holding the folder's run lock, as a running tune.py does."""
    import textwrap

    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        from splitpoker.agents.training.state import run_lock
        with run_lock(Path({str(folder)!r})):
            print("held", flush=True)
            time.sleep(120)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_run_on_a_busy_study_folder_exits_2_naming_the_holder(tmp_path, capsys):
    """Two identical tune.py runs on one --out: the second marked the first's running trial FAIL
    and the first crashed ("Cannot tell a FAIL trial"). The study folder is locked (train.py's
    run lock); the second run stops before any work, naming the holder's pid."""
    from splitpoker.scripts import tune as script

    out = tmp_path / "study"
    out.mkdir()
    holder = _hold_run_lock(out)
    try:
        with pytest.raises(ConfigError, match=rf"is being trained by another process \(pid {holder.pid}\)"):
            tune(tiny_cfg(), "MLP", None, 1, out, log=lambda m: None)
        code = script.main(["--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "PPO",
                            "--timesteps", "100", "--eval-hands", "2", "--out", str(out)])
        err = capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    assert code == 2, err
    assert f"{out} is being trained by another process (pid {holder.pid})" in err, err
    assert list(out.iterdir()) == []  # no journal, nothing trained


def test_a_journal_record_optuna_does_not_know_is_refused_with_its_line(tmp_path):
    """``{"op_code": 999}`` passed the check (it is JSON with an op_code) and Optuna's replay then
    failed with a bare AssertionError; as a middle or a last line it is refused with its line
    number, the journal untouched (a whole last line is no crash's cut-off, so it is not dropped)."""
    cfg = tiny_cfg()
    tune(cfg, "MLP", None, 1, tmp_path, seed=0, log=lambda m: None)
    path = tmp_path / "optuna.journal"
    lines = path.read_bytes().split(b"\n")[:-1]
    for k, changed in [(3, [*lines[:2], b'{"op_code": 999}', *lines[2:]]), (len(lines) + 1, [*lines, b'{"op_code": 999}']),
                       (2, [lines[0], b'{"op_code": true}', *lines[1:]])]:
        path.write_bytes(b"".join(line + b"\n" for line in changed))
        before = path.read_bytes()
        with pytest.raises(ConfigError, match=rf"optuna.journal: line {k} of {len(changed)} is not a study record"):
            tune(cfg, "MLP", None, 2, tmp_path, seed=0, log=lambda m: None)
        assert path.read_bytes() == before
        assert not (tmp_path / "optuna.journal.damaged").exists()


def test_a_journal_path_that_is_a_folder_exits_2_naming_it(tmp_path, capsys):
    """``<out>/optuna.journal`` a folder gave an IsADirectoryError traceback."""
    from splitpoker.scripts import tune as script

    (tmp_path / "optuna.journal").mkdir()
    with pytest.raises(ConfigError, match="optuna.journal is a folder, not a study journal"):
        tune(tiny_cfg(), "MLP", None, 1, tmp_path, log=lambda m: None)
    code = script.main(["--config", str(ROOT / "configs" / "benchmark" / "asia.yaml"), "--algorithm", "PPO",
                        "--timesteps", "100", "--eval-hands", "2", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'optuna.journal'} is a folder" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["optuna.journal"]
