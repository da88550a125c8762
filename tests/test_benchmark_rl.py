"""The RL benchmark harness: config validation, the cached evaluation set (exact, corruption
detected), Ray and local runs giving identical curves, interruption and resumption, the report."""

import copy
import json
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError, apply_overrides
from splitpoker.agents.benchmark.harness import grid, run_grid
from splitpoker.agents.exact.eval_set import load_evalset
from splitpoker.envs.rules.cache import entry_paths, file_sha256

ROOT = Path(__file__).resolve().parent.parent
ASIA = "splitpoker/AsiaPokerSetting-v0"
PAIGOW = "splitpoker/PaiGowPokerSetting-v0"
ASIA_KW = {"house_way": "asia-000", "dealer_samples": 2, "observe_settings": True}


def tiny(**changes) -> dict:
    """A grid small enough for a test: one env, MaskablePPO, a few hundred steps."""
    cfg = {"name": "tiny", "executor": "local", "total_timesteps": 256, "eval_every": 128, "seeds": [0, 1],
           "eval": {"hands": 12, "paired_hands": 30, "validation_seed": 2024, "test_seed": 2025},
           "envs": [{"id": ASIA, "label": "asia", "kwargs": dict(ASIA_KW)}],
           "algorithms": [{"name": "MaskablePPO+MLP", "algo": "maskable_ppo", "policy": "MlpPolicy", "n_envs": 2,
                           "algo_kwargs": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "gamma": 0.0},
                           "policy_kwargs": {"net_arch": [16]}}],
           "references": ["house-way", "random"]}
    cfg.update(changes)
    return cfg


def _set(d, path, value):
    d = copy.deepcopy(d)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return d


@pytest.mark.parametrize("path,value,fragment", [
    (("typo_key",), 1, "unknown key 'typo_key' in config"),
    (("algorithms", 0, "algo"), "sac", "unknown algorithm 'sac' in algorithms[0] ('MaskablePPO+MLP')"),
    (("algorithms", 0, "policy"), "NoSuchPolicy", "unknown policy 'NoSuchPolicy' for algorithm 'maskable_ppo'"),
    (("algorithms", 0, "algo_kwargs", "learning_rat"), 0.1, "unknown key 'learning_rat' in algorithms[0] ('MaskablePPO+MLP').algo_kwargs"),
    (("algorithms", 0, "lr"), 0.1, "unknown key 'lr' in algorithms[0]"),
    (("envs", 0, "id"), "splitpoker/Blackjack-v0", "unknown env 'splitpoker/Blackjack-v0' in envs[0]"),
    (("envs", 0, "kwargs", "house_wya"), "asia-000", "house_wya"),
    (("envs", 0, "kwargs", "house_way"), "paigow-igw", "envs[0] (splitpoker/AsiaPokerSetting-v0): bad kwargs"),
    (("envs", 0, "colour"), "red", "unknown key 'colour' in envs[0]"),
    (("eval", "handz"), 10, "unknown key 'handz' in config: eval"),
    (("references",), ["house-way", "oracle"], "unknown reference policy 'oracle'"),
    (("reference_kwargs",), {"random": {"sample": 3}}, "unknown key 'sample' in reference_kwargs.random"),
    (("executor",), "slurm", "executor='slurm': expected one of ['ray', 'local']"),
    (("eval_every",), 1000, "eval_every=1000 exceeds total_timesteps=256"),
    (("seeds",), [0, 0], "repeats a seed"),
    (("total_timesteps",), 0, "total_timesteps=0: expected an integer >= 1"),
    (("algorithms", 0, "warm_start"), {"teacher": "oracle"}, "algorithms[0] ('MaskablePPO+MLP').warm_start: warm_start teacher 'oracle'"),
    (("algorithms", 0, "warm_start"), {"teacher": "table", "epoch": 3}, "algorithms[0] ('MaskablePPO+MLP').warm_start"),
])
def test_bad_config_names_the_problem(path, value, fragment):
    with pytest.raises(ConfigError) as e:
        BenchmarkConfig.from_dict(_set(tiny(), path, value))
    assert fragment in str(e.value)


def test_config_overrides_and_grid():
    cfg = BenchmarkConfig.from_dict(tiny(seeds=[0, 1, 2]))
    assert [s.run_id for s in grid(cfg)] == ["asia__MaskablePPO+MLP__0", "asia__MaskablePPO+MLP__1", "asia__MaskablePPO+MLP__2"]
    assert len({s.digest for s in grid(cfg)}) == 3
    two = tiny(algorithms=tiny()["algorithms"] + [{"name": "Scorer", "algo": "maskable_ppo", "policy": "NotInstalledPolicy"}])
    with pytest.raises(ConfigError, match="unknown policy 'NotInstalledPolicy'"):
        BenchmarkConfig.from_dict(two)
    narrowed = BenchmarkConfig.from_dict(apply_overrides(two, algorithms=["MaskablePPO+MLP"], seeds=[5, 6], total_timesteps=512,
                                                         eval_hands=7, references=["random"]))
    assert [a.name for a in narrowed.algorithms] == ["MaskablePPO+MLP"] and narrowed.seeds == (5, 6)
    assert (narrowed.total_timesteps, narrowed.eval_hands, narrowed.eval_paired_hands, narrowed.references) == (512, 7, 30, ("random",))
    with pytest.raises(ConfigError, match="unknown algorithm name 'DQN'"):
        apply_overrides(two, algorithms=["DQN"])
    with pytest.raises(ConfigError, match=r"unknown env label 'paigow': this config has \['asia'\]"):
        apply_overrides(two, envs=["paigow"])
    assert apply_overrides(two, envs=["asia"])["envs"] == two["envs"]
    with pytest.raises(ConfigError, match="eval_every=128 exceeds total_timesteps=64"):
        BenchmarkConfig.from_dict(apply_overrides(tiny(), total_timesteps=64))


@pytest.mark.parametrize("name", ["smoke", "asia", "paigow", "headline", "card_removal"])
def test_shipped_configs_validate(name):
    """The shipped grids validate in full; the real ones hold every algorithm of the issue (the
    setting scorer included, buildable: its layout is read from the env) and the reference rows;
    the headline grid has 10 seeds on at least four tasks."""
    from splitpoker.agents.benchmark.run import RunSpec, build_model

    cfg = BenchmarkConfig.from_yaml(ROOT / "configs" / "benchmark" / f"{name}.yaml")
    assert len(cfg.seeds) >= (3 if name != "smoke" else 2) and cfg.validation_seed != cfg.test_seed
    if name == "card_removal":
        assert cfg.envs[0].task_list[0] == "card_removal" and "table" in cfg.references
    elif name == "headline":
        assert len(cfg.seeds) == 10 and sum(len(e.task_list) for e in cfg.envs) >= 4
        assert {a.algo for a in cfg.algorithms} >= {"maskable_ppo", "ppo", "dqn"}
        assert {a.policy for a in cfg.algorithms if a.algo == "maskable_ppo"} == {"SettingScorerPolicy", "MlpPolicy"}
    elif name != "smoke":
        assert {a.algo for a in cfg.algorithms} >= {"maskable_ppo", "ppo", "a2c", "dqn"}
        assert {"table", "house-way", "mc-best", "random"} <= set(cfg.references)
    if name != "smoke":
        scorer = next(a for a in cfg.algorithms if a.policy == "SettingScorerPolicy")
        model, venv = build_model(RunSpec(cfg.envs[0], scorer.on(cfg.envs[0]), 0, 1_000, 1_000, 10, 10, 0, 1), n_envs=1)
        venv.close()
        assert type(model.policy).__name__.startswith("SettingScorer")


def test_a_run_leaves_no_empty_sb3_folder_in_the_temp_dir(tmp_path, monkeypatch):
    """SB3 gives a model with verbose=0 and no tensorboard_log a logger that makes an empty
    SB3-<date> folder in the temp dir at every learn(); the harness's models log nowhere."""
    import tempfile

    from sb3_contrib import MaskablePPO

    from splitpoker.agents.benchmark.run import RunSpec, build_model

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)  # set by conftest.py for the other tests
    cfg = BenchmarkConfig.from_yaml(ROOT / "configs" / "benchmark" / "smoke.yaml")
    env = next(e for e in cfg.envs if e.label == "paigow_session")  # the cheapest env
    for algo in cfg.algorithms:  # MaskablePPO and DQN: on- and off-policy learn()
        model, venv = build_model(RunSpec(env, algo.on(env), 0, 256, 256, 2, 2, 0, 1), n_envs=2)
        try:
            model.learn(256)
            assert list(tmp_path.glob("SB3-*")) == [], algo.name
            if algo.algo == "maskable_ppo":  # the premise: SB3's own logger does make one
                MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, device="cpu").learn(64)
                made = list(tmp_path.glob("SB3-*"))
                assert len(made) == 1
                made[0].rmdir()
        finally:
            venv.close()


class _CardSolver:
    """EVs that are a fixed function of the seven cards: what is under test is which hands get
    solved and kept, not the solver. ``stop_after`` solves: then a Ctrl-C."""

    def __init__(self, n_settings: int, stop_after: int | None = None):
        self.n, self.stop_after, self.calls = n_settings, stop_after, 0

    def solve(self, cards):
        from types import SimpleNamespace

        if self.calls == self.stop_after:
            raise KeyboardInterrupt
        self.calls += 1
        rng = np.random.default_rng([int(c) for c in cards])
        return SimpleNamespace(ev=rng.uniform(-1, 1, self.n))


def _evalset_entries(directory):
    return sorted(json.loads(p.read_text())["key"]["hands"] for p in Path(directory).glob("rleval-*.json"))


def test_a_stopped_evalset_build_keeps_its_hands_and_a_rerun_solves_only_the_rest(tmp_path, monkeypatch):
    """Ctrl-C during a build keeps the hands solved so far as a smaller cached set; the rerun
    solves only the others and writes the same file, byte for byte, as one uninterrupted build;
    the kept part is then removed. Periodic checkpoints keep only the latest part."""
    from splitpoker.agents.exact import eval_set

    env = eval_set.make_eval_env(PAIGOW, {})
    n = eval_set.game_of_env(env).n_settings
    env.close()
    monkeypatch.setattr(eval_set, "CHECKPOINT_SECONDS", 1e9)
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path / "whole"))
    whole = eval_set.load_evalset(PAIGOW, {}, 12, 5, solver=_CardSolver(n))

    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path / "stopped"))
    with pytest.raises(KeyboardInterrupt):
        eval_set.load_evalset(PAIGOW, {}, 12, 5, solver=_CardSolver(n, stop_after=7))
    assert _evalset_entries(tmp_path / "stopped") == [7]
    (kept,) = (tmp_path / "stopped").glob("rleval-*.npy")
    assert np.array_equal(np.load(kept), np.hstack([whole.cards[:7], whole.ev[:7]]))
    rest = _CardSolver(n)
    again = eval_set.load_evalset(PAIGOW, {}, 12, 5, solver=rest)
    assert rest.calls == 5 and again.sha256 == whole.sha256  # the same bytes as the uninterrupted build
    assert _evalset_entries(tmp_path / "stopped") == [12]

    monkeypatch.setattr(eval_set, "CHECKPOINT_SECONDS", 0.0)  # keep after every hand
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path / "periodic"))
    with pytest.raises(KeyboardInterrupt):
        eval_set.load_evalset(PAIGOW, {}, 12, 5, solver=_CardSolver(n, stop_after=4))
    assert _evalset_entries(tmp_path / "periodic") == [4]
    eval_set.load_evalset(PAIGOW, {}, 12, 5, solver=_CardSolver(n))
    assert _evalset_entries(tmp_path / "periodic") == [12]


def test_evalset_is_exact_and_a_corrupt_cache_is_rebuilt():
    from splitpoker.agents.evaluation.evaluate import regret_summary, run_policy
    from splitpoker.agents.policies.baselines import HouseWayPolicy
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.solver.exact import ExactSolver

    solver = ExactSolver(Game("asia", "asia-000"))  # one dealer-table load for the whole test
    es = load_evalset(ASIA, ASIA_KW, 4, 77, solver=solver)
    data_path, meta_path = entry_paths("rleval-asia-asia-000", _key(es))
    assert es.sha256 == file_sha256(data_path) == json.loads(meta_path.read_text())["sha256"]
    assert es.cards.shape == (4, 7) and es.ev.shape == (4, 105)
    # regret by lookup == regret from solving each hand afresh (splitpoker.agents.evaluation.evaluate.regret_summary)
    from splitpoker.agents.exact.eval_set import make_eval_env

    env = make_eval_env(ASIA, ASIA_KW)
    hw = HouseWayPolicy.from_env(env)
    rec = run_policy(env, hw, list(es.seeds))
    ref = regret_summary({"house-way": rec}, solver, 4)["house-way"]
    mine = es.score(rec.settings, rec.cards)
    assert mine["mean_regret"] == pytest.approx(ref["mean_regret"], abs=1e-15)
    assert mine["optimal_rate"] == ref["optimal_rate"]
    assert np.array_equal(es.ev[0], solver.solve(es.cards[0]).ev)
    assert es.score(es.ev.argmax(axis=1))["mean_regret"] == 0.0
    assert es.regrets(np.full(4, -1)) == pytest.approx(es.best + 1.0)  # an invalid action counts as EV -1
    # flip bytes in the cached array: detected by the checksum, rebuilt, never used
    raw = bytearray(data_path.read_bytes())
    raw[-8:] = b"\x00\x00\x00\x00\x00\x00\xf0\x7f"  # the last EV becomes +inf
    data_path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="is corrupt"):
        again = load_evalset(ASIA, ASIA_KW, 4, 77, solver=solver)
    assert np.array_equal(again.ev, es.ev) and again.sha256 == es.sha256
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_evalset(ASIA, ASIA_KW, 4, 77, solver=solver)  # the rebuilt entry loads cleanly


def _key(es):
    from splitpoker.agents.exact.eval_set import evalset_key
    from splitpoker.envs.rules.game import Game

    return evalset_key(es.env_id, Game("asia", "asia-000"), es.hands, es.seed)


@pytest.mark.slow  # starts a local Ray instance (about 10-20 s on two idle cores, much more under load)
def test_scorer_grid_reports_pure_and_warm_started_runs():
    """The goal grid: the setting scorer pure RL and warm-started from the strategy table, on both
    games, 3 seeds, the strategy table among the references."""
    cfg = BenchmarkConfig.from_yaml(ROOT / "configs" / "benchmark" / "scorer.yaml")
    assert len(cfg.seeds) >= 3 and {e.label for e in cfg.envs} == {"asia", "paigow"}
    assert {a.policy for a in cfg.algorithms} == {"SettingScorerPolicy"}
    assert {a.warm_start is not None for a in cfg.algorithms} == {False, True}  # both kinds, reported apart
    assert next(a for a in cfg.algorithms if a.warm_start).warm_start["teacher"] == "table"
    assert "table" in cfg.references


def test_ray_and_local_runs_are_identical(tmp_path):
    cfg = BenchmarkConfig.from_dict(tiny(seeds=[0, 1]))
    logs = []
    local = run_grid(cfg, tmp_path / "local", executor="local", log=logs.append)
    ray_ = run_grid(cfg, tmp_path / "ray", executor="ray", num_cpus=2, log=logs.append)
    assert any("Ray: 2 CPU(s) at local" in m for m in logs)
    for a, b in zip(local["rows"], ray_["rows"], strict=True):
        assert a["curve"] == b["curve"]  # exactly: same seeds, same numbers
    for spec in grid(cfg):
        ra = json.loads((tmp_path / "local" / "runs" / spec.run_id / "result.json").read_text())
        rb = json.loads((tmp_path / "ray" / "runs" / spec.run_id / "result.json").read_text())
        assert ra["curve"] == rb["curve"] and [p["steps"] for p in ra["curve"]] == [0, 128, 256]
        info = json.loads((tmp_path / "ray" / "runs" / spec.run_id / "run.json").read_text())
        assert info["seed"] == spec.seed and info["spec"]["algo"]["algo"] == "maskable_ppo"
        sets = info["evalsets"]["asia"]
        assert sets["test"]["sha256"] == rb["evalsets"]["asia"]["test"]["sha256"] and len(sets["test"]["sha256"]) == 64
        assert (sets["validation"]["seed"], sets["test"]["seed"]) == (2024, 2025) and sets["validation"]["sha256"] != sets["test"]["sha256"]
        assert {"torch", "stable-baselines3", "gymnasium", "ray", "numpy", "numba"} <= set(info["versions"])
        # run metadata: commit, machine, threads, wall and CPU seconds, end-to-end steps/s
        assert len(info["git"]["commit"]) == 40 and isinstance(info["git"]["dirty"], bool)
        assert info["machine"]["cpu_model"] and info["machine"]["torch_threads"] == 1 and info["machine"]["numba_threads"] >= 1
        import os

        assert info["machine"]["niceness"] == os.nice(0)  # Ray's workers run at the driver's priority
        t = info["timing"]
        assert 0 < t["cpu_seconds"] and 0 < t["train_seconds"] <= t["wall_seconds"]
        assert info["steps_per_second"] == pytest.approx(256 / t["train_seconds"])
        run_cfg = yaml.safe_load((tmp_path / "ray" / "runs" / spec.run_id / "config.yaml").read_text())
        assert run_cfg["seed"] == spec.seed and run_cfg["env"]["id"] == ASIA  # the run's own config
    # the two seeds learn differently (the seed reaches the model)
    curves = [json.loads((tmp_path / "local" / "runs" / s.run_id / "result.json").read_text())["curve"] for s in grid(cfg)]
    assert curves[0] != curves[1]
    refs = local["references"]["asia"]
    assert refs["random"]["mean_regret"] > refs["house-way"]["mean_regret"] >= 0.0
    assert refs["house-way"]["diff_vs_house_way"] == 0.0


def _script(*args, **kw):
    return subprocess.Popen([sys.executable, str(ROOT / "scripts" / "benchmark_rl.py"), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.slow  # a long-running check (about 100-160 s on 2 cores)
def test_interrupted_grid_resumes_without_redoing_runs(tmp_path):
    """The shipped smoke grid (2 algorithms × 2 seeds), interrupted with Ctrl-C after its first run."""
    cfg_path = ROOT / "configs" / "benchmark" / "smoke.yaml"
    out = tmp_path / "out"
    args = ("--config", str(cfg_path), "--out", str(out), "--no-ray", "--references", "house-way,random")
    proc = _script(*args)
    # the first run may wait for the evaluation sets (built, on a clean cache, by this or another
    # worker: minutes under load), so wait for it rather than for a fixed time
    deadline = time.time() + 1500
    while not list((out / "runs").glob("*/result.json")) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None and list((out / "runs").glob("*/result.json")), "no run finished in 1,500 s"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "resume with:" in err and "--no-ray" in err
    done = {p.parent.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "runs").glob("*/result.json")}
    assert 1 <= len(done) < 12
    assert not list(out.rglob("*.tmp"))  # nothing half-written
    # the report of what finished, training nothing
    partial = _script(*args, "--report-only")
    _, err1 = partial.communicate(timeout=300)
    assert partial.returncode == 0, err1
    assert f"report of {len(done)}/12 finished runs" in err1 and "run(s) to do" not in err1
    assert f"({len(done)}/12 runs finished)" in (out / "rl_benchmark.md").read_text()
    assert len(list((out / "runs").glob("*/result.json"))) == len(done)
    rerun = _script(*args)
    _, err2 = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err2
    assert f"skipping {len(done)} finished run(s)" in err2 and f"{12 - len(done)} run(s) to do" in err2
    for run_id, (mtime, blob) in done.items():
        p = out / "runs" / run_id / "result.json"
        assert p.stat().st_mtime_ns == mtime and p.read_bytes() == blob  # not redone
    summary = json.loads((out / "benchmark.json").read_text())
    assert summary["runs_done"] == 12 and [r["seeds"] for r in summary["rows"]] == [[0, 1]] * 8  # 4 tasks x 2 algorithms
    # every finished run counted at the commit its run.json names (the checkout's, here)
    from splitpoker.agents.benchmark.run import git_commit

    here = git_commit()
    assert summary["run_commits"] == {f"{here['commit'] or 'unknown'}{'+dirty' if here['dirty'] else ''}": 12}
    assert {r["env"] for r in summary["rows"]} == {"asia", "asia_card_removal", "paigow_bets", "paigow_session"}
    for row in summary["rows"]:
        assert [p["steps"] for p in row["curve"]] == [0, 256, 512]
        assert row["split"] == "test" and row["iqm_regret_ci95"][0] <= row["iqm_regret"] <= row["iqm_regret_ci95"][1]
    assert summary["splits"]["test"]["seed"] == 2025 and summary["published_split"] == "test"
    assert {(p["x"], p["y"]) for p in summary["probability_of_improvement"]} == {("MaskablePPO+MLP", "DQN"), ("DQN", "MaskablePPO+MLP")}
    report = (out / "rl_benchmark.md").read_text()
    assert "| MaskablePPO+MLP | pure RL | 512 |" in report and "| DQN | pure RL | 512 |" in report
    assert "*house way* | reference" in report and "*random legal action (exact expectation)* (exact)" in report
    assert (out / "rl_benchmark_asia.png").stat().st_size > 10_000
    # each run directory holds a model that the evaluation script can load
    from splitpoker.agents.training.models import load_model

    model, train_cfg = load_model(out / "runs" / "asia__MaskablePPO+MLP__1" / "model.zip")
    assert train_cfg.algo == "maskable_ppo" and train_cfg.seed == 1 and model.num_timesteps == 512
    # the same directory with another budget is refused, not mixed
    cfg = BenchmarkConfig.from_yaml(cfg_path, total_timesteps=2048, references=["house-way", "random"])
    with pytest.raises(ValueError, match="holds a run of a different configuration"):
        run_grid(cfg, out, executor="local", log=lambda m: None)


def test_cli_help_and_bad_config_fail_before_training(tmp_path):
    p = _script("--help")
    assert p.communicate(timeout=120)[0].lower().count("usage") and p.returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_set(tiny(), ("algorithms", 0, "algo"), "ppo2")))
    p = _script("--config", str(bad), "--out", str(tmp_path / "o"))
    _, err = p.communicate(timeout=300)
    assert p.returncode == 2 and "unknown algorithm 'ppo2'" in err
    assert not (tmp_path / "o").exists()  # nothing ran
    p = _script("--config", str(tmp_path / "missing.yaml"))
    assert p.communicate(timeout=300)[1].count("does not exist") and p.returncode == 2



def test_report_append_replaces_only_its_own_grid(tmp_path):
    from splitpoker.agents.benchmark.report import write_report

    def summary(name, regret):
        curve = [{"steps": 0, "iqm": 0.5, "low": 0.4, "high": 0.6, "mean_regret": 0.5, "ci95": 0.1},
                 {"steps": 100, "iqm": regret, "low": regret, "high": regret, "mean_regret": regret, "ci95": 0.0}]
        row = {"env": name, "task": "setting", "env_id": "splitpoker/X-v0", "algorithm": "A", "policy": "MlpPolicy",
               "seeds": [0, 1], "steps": 100, "iqm_regret": regret, "iqm_regret_ci95": [regret, regret], "mean_regret": regret,
               "mean_regret_ci95": 0.0, "iqm_normalized": 0.5, "iqm_normalized_ci95": [0.5, 0.5], "optimal_rate": 0.5,
               "optimal_rate_ci95": 0.0, "validation": {"iqm_regret": 0.3}, "steps_per_second": 1000.0,
               "train_seconds": 3.0, "curve": curve}
        ref = {"mean_regret": 0.059, "regret_ci95": 0.01, "optimal_rate": 0.7, "normalized": 0.9}
        sets = {s: {"task": "setting", "env_id": "splitpoker/X-v0", "hands": 10, "seed": seed, "sha256": "ab" * 32,
                    "kind": "setting", "random_regret": 0.6} for s, seed in (("validation", 1), ("test", 2))}
        return {"name": name, "description": "", "total_timesteps": 100, "eval_every": 100, "runs_done": 1, "runs_total": 1,
                "splits": {"validation": {"seed": 1}, "test": {"seed": 2}}, "tasks": {name: sets},
                "references": {name: {"house-way": ref}}, "rows": [row], "aggregate": {}, "probability_of_improvement": []}

    report = tmp_path / "rl.md"
    write_report(summary("g1", 0.25), report, "cmd1")
    write_report(summary("g2", 0.125), report, "cmd2", append=True)
    write_report(summary("g1", 0.375), report, "cmd1b", append=True)
    text = report.read_text()
    assert text.count("# RL benchmark\n") == 1 and text.count("## Grid `g1`") == 1 and text.count("## Grid `g2`") == 1
    assert "| A | pure RL | 100 | 0.3750 [0.3750, 0.3750] | 0.3750 ± 0.0000 | 0.500 [0.500, 0.500] | 50.0 ± 0.0% | 0.3000 | 1,000 | 2 |" in text
    assert "0.2500 [" not in text
    assert "0.1250" in text and "cmd1b" in text and "*house way* | reference | – | – | 0.0590 ± 0.0100 | 0.900 | 70.0% |" in text
    # an appended grid's plots carry its name: they never overwrite another grid's
    assert (tmp_path / "rl_g1.png").exists() and (tmp_path / "rl_g2_g2.png").exists() and (tmp_path / "rl_g1_g1.png").exists()
    assert "](rl_g1_g1.png)" in text and "](rl_g2_g2.png)" in text
    # each grid's numbers beside the report, the latest of each grid: what its section was written from
    assert json.loads((tmp_path / "rl_g1.json").read_text())["rows"][0]["iqm_regret"] == 0.375
    assert json.loads((tmp_path / "rl_g2.json").read_text())["rows"][0]["iqm_regret"] == 0.125
    assert text.count("Data: [`rl_g1.json`](rl_g1.json)") == 1 and text.count("Data: [`rl_g2.json`](rl_g2.json)") == 1


def test_a_failing_run_is_reported_and_the_others_finish(tmp_path, monkeypatch):
    import splitpoker.agents.benchmark.harness as brl

    real = brl.run_one

    def flaky(spec, evalset):
        if spec.seed == 1:
            raise RuntimeError("simulated crash in seed 1")
        return real(spec, evalset)

    monkeypatch.setattr(brl, "run_one", flaky)
    cfg = BenchmarkConfig.from_dict(tiny(seeds=[0, 1], references=[]))
    summary = run_grid(cfg, tmp_path, executor="local", log=lambda m: None)
    assert summary["failed"] == {"asia__MaskablePPO+MLP__1": "RuntimeError: simulated crash in seed 1"}
    assert "simulated crash" in (tmp_path / "runs" / "asia__MaskablePPO+MLP__1" / "error.txt").read_text()
    assert not (tmp_path / "runs" / "asia__MaskablePPO+MLP__1" / "result.json").exists()
    assert summary["runs_done"] == 1 and summary["rows"][0]["seeds"] == [0]


def test_warm_started_run_clones_first_and_is_reported_apart(tmp_path):
    """A ``warm_start`` algorithm behaviour-clones its teacher before RL: the clone's statistics
    are in the result, its time counts in the wall time, the step-0 score is the clone's (not the
    untrained network's), and the report labels the row apart from pure RL."""
    from splitpoker.agents.benchmark.report import write_report

    pure = tiny()["algorithms"][0]
    warm = {**pure, "name": "MaskablePPO+MLP+BC", "warm_start": {"teacher": "house-way", "hands": 60, "epochs": 5, "seed": 3}}
    cfg = BenchmarkConfig.from_dict(tiny(algorithms=[pure, warm], references=["house-way"]))
    summary = run_grid(cfg, tmp_path / "out", executor="local", log=lambda m: None)
    res = {s.algo.name: json.loads((tmp_path / "out" / "runs" / s.run_id / "result.json").read_text()) for s in grid(cfg)}
    assert res["MaskablePPO+MLP"]["warm_start"] is None and res["MaskablePPO+MLP"]["warm_start_seconds"] == 0.0
    ws = res["MaskablePPO+MLP+BC"]["warm_start"]
    assert ws["teacher"] == "house-way" and ws["rows"] == 60 and 0.0 <= ws["accuracy"] <= 1.0  # one decision per hand
    assert 0.0 < res["MaskablePPO+MLP+BC"]["warm_start_seconds"] <= res["MaskablePPO+MLP+BC"]["train_seconds"]
    # same seed, same initial network: only the cloning tells the two step-0 scores apart
    assert res["MaskablePPO+MLP+BC"]["curve"][0] != res["MaskablePPO+MLP"]["curve"][0]
    assert [r["warm_start"] is not None for r in summary["rows"]] == [False, True]
    write_report(summary, tmp_path / "report.md", "cmd")
    text = (tmp_path / "report.md").read_text()
    assert "| MaskablePPO+MLP | pure RL |" in text
    assert "| MaskablePPO+MLP+BC | warm start: BC from `house-way` on 60 hands, then RL |" in text

