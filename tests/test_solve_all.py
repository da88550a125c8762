"""The solved-class store and its Ray driver: sample, shards, worker-count independence, restart,
kills, lookup by any hand (OptimalPolicy, StoreSolver), refusal of corrupt or mismatched stores,
and scripts/solve_all.py's arguments."""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from splitpoker.agents.exact import strategy as es
from splitpoker.agents.exact.solved_store import (
    MANIFEST,
    SolvedStore,
    StoreError,
    StoreSolver,
    shard_name,
    shard_table,
    store_key,
    write_shard_atomic,
)
from splitpoker.agents.policies.baselines import OptimalPolicy
from splitpoker.envs.rules.game import Game
from splitpoker.envs.rules.options import PaiGowRules
from splitpoker.envs.solver import classes as hc
from splitpoker.envs.solver.exact import ExactSolver

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "scripts" / "solve_all.py")
K = 28  # tiny runs: dealer hands from the unseen cards < 28 (not the real game; fast)


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT), e.get("PYTHONPATH", "")])
    return e


def test_sample_is_seeded_stratified_and_weight_proportional():
    a = es.sample_classes(200, 7)
    assert np.array_equal(a, es.sample_classes(200, 7)) and not np.array_equal(a, es.sample_classes(200, 8))
    assert (np.diff(a) > 0).all()
    # stratum h covers hands [h T / n, (h + 1) T / n) of the class-ordered hand list: the picked
    # class's hands must meet it
    cum = np.cumsum(hc.class_weights())
    lo = np.concatenate([[0], cum])[a]
    hi = cum[a]
    edges = np.arange(201) * math.comb(53, 7) // 200
    assert ((hi > edges[:-1]) & (lo < edges[1:])).all()
    with pytest.raises(ValueError, match="sample=1: expected an integer 2"):
        es.sample_classes(1, 0)


def _tiny_run(out: Path, game: Game, workers: int, n=4, shard=2):
    plan, classes = es.make_plan(n, 3, shard)
    out.mkdir(exist_ok=True)
    es.prepare_store(out, game, plan, K)
    stats = es.run_plan(out, game, plan, classes, universe=K, num_cpus=workers)
    return plan, classes, stats


def _content(out: Path, plan):
    import pyarrow.parquet as pq

    return [pq.read_table(out / shard_name(k)).drop(["seconds"]) for k in range(plan["n_shards"])]


def test_rows_do_not_depend_on_how_classes_are_split():
    """What a worker returns is a pure function of its classes: one task of four classes or two
    of two give the same rows (so the number of workers cannot change a shard)."""
    game = Game("asia", "asia-000")
    classes = es.make_plan(4, 9, 4)[1]
    whole = es.solve_shard(game.game, game.style.value, game.rules, K, classes)
    halves = [es.solve_shard(game.game, game.style.value, game.rules, K, classes[i:i + 2]) for i in (0, 2)]
    for col, v in whole.items():
        if col != "seconds" and not col.startswith("_"):
            assert np.array_equal(v, np.concatenate([h[col] for h in halves])), col


@pytest.mark.slow
def test_one_or_two_workers_write_identical_shards_and_a_restart_skips_them(tmp_path):
    game = Game("paigow", "paigow-igw")
    plan, classes, s1 = _tiny_run(tmp_path / "a", game, 1)
    _, _, s2 = _tiny_run(tmp_path / "b", game, 2)
    assert s1["shards_solved"] == s2["shards_solved"] == 2 and s2["workers"] == 2
    for x, y in zip(_content(tmp_path / "a", plan), _content(tmp_path / "b", plan), strict=True):
        assert x.equals(y)
    # restart: nothing left to do (Ray is not even started)
    _, _, again = _tiny_run(tmp_path / "b", game, 2)
    assert again["shards_skipped"] == 2 and again["shards_solved"] == 0
    # a corrupt shard is reported and counted as unfinished
    (tmp_path / "b" / shard_name(1)).write_bytes(b"not parquet")
    logs = []
    done = es.finished_shards(tmp_path / "b", game, store_key(game, K), plan, classes, log=logs.append)
    assert done == {0} and "unreadable" in logs[0] and shard_name(1) in logs[0]
    # the rows agree with direct solves of the canonical hands
    cols = es.read_results(tmp_path / "a", game, plan, K)
    hands = hc.class_hands(cols["class"])
    from splitpoker.envs.solver.dealer_table import build_dealer_table

    solver = ExactSolver(game, table=build_dealer_table(game, universe=K))
    for i in range(2):
        r = solver.solve(hands[i], pool=np.setdiff1d(np.arange(K), hands[i]))
        assert np.array_equal(cols["wins"][i], r.wins)
        assert cols["optimal_ev"][i] == pytest.approx(r.ev.max(), abs=1e-15)
    rep = es.summarize(cols, plan, game)
    assert rep["gain"] >= 0 and rep["optimal_edge"] <= rep["house_way_edge"]
    assert rep["optimal_edge_ci95"][0] <= rep["optimal_edge"] <= rep["optimal_edge_ci95"][1]


def test_a_store_for_other_rules_or_another_plan_is_refused(tmp_path):
    game = Game("paigow", "paigow-igw")
    plan, _ = es.make_plan(6, 3, 2)
    es.prepare_store(tmp_path, game, plan, K)
    with pytest.raises(StoreError, match="another plan.*shard_size"):
        es.prepare_store(tmp_path, game, es.make_plan(6, 3, 3)[0], K)
    with pytest.raises(StoreError, match="another game, style"):
        es.prepare_store(tmp_path, Game("asia", "asia-000"), plan, K)
    with pytest.raises(StoreError, match="was made for paigow/paigow-igw.*dealer pool 28"):
        SolvedStore(tmp_path, game)  # a tiny-pool store cannot answer real-game lookups
    with pytest.raises(StoreError, match="manifest.json is missing"):
        SolvedStore(tmp_path / "nowhere", game)


@pytest.fixture(scope="module")
def full_store(tmp_path_factory):
    """A real (full-pool) store of three Pai Gow classes, solved directly (no Ray)."""
    game = Game("paigow", "paigow-igw")
    out = tmp_path_factory.mktemp("store")
    hands = ["Ah Kh Qh Jh 9s 9c JK", "2c 3c 4d 5d 6h 7h 8s", "As Ad Kc Kd 5h 5s 2c"]
    classes = np.sort(hc.classify(np.array([np.sort(__import__("splitpoker.envs.rules.cards", fromlist=["x"]).parse_cards(h))
                                            for h in hands])))
    plan = {"sample": 3, "seed": 0, "shard_size": 3, "n_classes": 3, "n_shards": 2, "classes_sha256": "test"}
    es.prepare_store(out, game, plan, 53)
    rows = es.solve_shard(game.game, game.style.value, game.rules, 53, classes)
    write_shard_atomic(shard_table(game, store_key(game), rows), out / shard_name(0))
    return game, out, hc.class_hands(classes)


def test_lookup_by_any_hand_equals_a_direct_solve(full_store):
    game, out, canon = full_store
    store = SolvedStore(out, game)
    assert len(store) == 3
    solver = ExactSolver(game)
    for h in canon:
        hand = hc.permute_suits(h, [2, 0, 3, 1])  # another hand of the class
        got, want = store.lookup(hand), solver.solve(hand)
        for f in ("wins", "pushes", "losses", "fouled", "ev"):
            assert np.array_equal(getattr(got, f), getattr(want, f)), f
        assert got.best(prefer=game.house_way(hand).setting) == want.best(prefer=game.house_way(hand).setting)
    assert store.lookup("2s 4h 6d 8c Ts Qh Ad") is None
    lookup = StoreSolver(store, solver)
    lookup.solve(hc.permute_suits(canon[0], [1, 0, 2, 3]))
    lookup.solve("2s 4h 6d 8c Ts Qh Ad")
    assert (lookup.hits, lookup.misses) == (1, 1)
    pol = OptimalPolicy(setting_offset=0, n_settings=21, n_actions=21, bet_table=[], game=game, store=out)
    plain = OptimalPolicy(setting_offset=0, n_settings=21, n_actions=21, bet_table=[], game=game, solver=solver)
    for h in canon:
        hand = hc.permute_suits(h, [3, 2, 1, 0])
        assert pol.choose_setting(hand, None) == plain.choose_setting(hand, None)
    assert pol.solver.hits == 3 and pol.solver.misses == 0
    late = OptimalPolicy(setting_offset=0, n_settings=21, n_actions=21, bet_table=[], game=game, solver=solver)
    attached = late.attach_store(store)  # what evaluate.py --solved does to its optimal baseline
    assert late.solver is attached and attached.solver is solver
    assert late.choose_setting(canon[1], None) == plain.choose_setting(canon[1], None)
    assert (attached.hits, attached.misses) == (1, 0)


def test_a_mismatched_or_corrupt_store_is_refused(full_store, tmp_path):
    game, out, _ = full_store
    with pytest.raises(StoreError, match="made for paigow/paigow-igw.*needs asia/asia-000"):
        SolvedStore(out, Game("asia", "asia-000"))
    with pytest.raises(StoreError, match="'commission': 0.05.*'commission': 0.03"):
        SolvedStore(out, Game("paigow", "paigow-igw", PaiGowRules(commission=0.03)))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / MANIFEST).write_text((out / MANIFEST).read_text())
    (bad / shard_name(0)).write_bytes((out / shard_name(0)).read_bytes()[:100])
    with pytest.raises(StoreError, match=f"shard {bad / shard_name(0)} is unreadable"):
        SolvedStore(bad, game)


def _run(*args, timeout=600):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, env=env(), timeout=timeout,
                          cwd=ROOT)


def test_script_bad_arguments_exit_2(tmp_path, capsys):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import solve_all
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    with pytest.raises(SystemExit) as e:
        solve_all.main(["--help"])
    assert e.value.code == 0 and "--address" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        solve_all.main(["--game", "paigow", "--out", str(tmp_path / "x"), "--sample", "1"])
    assert e.value.code == 2 and "--sample: 1: expected an integer 2" in capsys.readouterr().err
    f = tmp_path / "file"
    f.write_text("x")
    assert solve_all.main(["--game", "paigow", "--out", str(f), "--sample", "4"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert solve_all.main(["--game", "paigow", "--out", str(tmp_path / "no" / "such"), "--sample", "4"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert solve_all.main(["--game", "paigow", "--out", str(tmp_path / "y"), "--sample", "4",
                           "--max-pool-card", "30"]) == 2
    assert "--max-pool-card 30: expected a multiple of 4" in capsys.readouterr().err
    assert solve_all.main(["--game", "asia", "--style", "paigow-igw", "--out", str(tmp_path / "z"), "--sample", "4"]) == 2
    assert "paigow-igw" in capsys.readouterr().err


def _session_pids(sid: int, needle: str) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[3]) == sid and needle in cmd:
            out.append(int(d.name))
    return out


@pytest.mark.slow
def test_killing_a_worker_then_the_driver_loses_only_shards_in_flight(tmp_path):
    """Real kills: SIGKILL a Ray worker mid-run (its shard is retried), then SIGKILL the driver
    (the run stops; written shards stay intact); the rerun finishes and equals a clean run."""
    out = tmp_path / "killed"
    args = ["--game", "paigow", "--sample", "16", "--seed", "5", "--shard-size", "1", "--num-cpus", "2",
            "--max-pool-card", str(K), "--out", str(out), "--json"]
    p = subprocess.Popen([sys.executable, SCRIPT, *args], env=env(), cwd=ROOT, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 400
        killed_worker = False
        while time.time() < deadline:
            shards = list(out.glob("shard-*.parquet"))
            if not killed_worker and len(shards) >= 2:
                workers = _session_pids(p.pid, "ray::_ray_solve_shard") or _session_pids(p.pid, "ray::IDLE")
                assert workers, "no Ray worker found"
                os.kill(workers[0], signal.SIGKILL)
                killed_worker = True
            if killed_worker and len(shards) >= 5:
                break
            time.sleep(0.2)
        assert killed_worker and p.poll() is None
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    game = Game("paigow", "paigow-igw")
    plan, classes = es.make_plan(16, 5, 1)
    done = es.finished_shards(out, game, store_key(game, K), plan, classes)
    assert len(done) == len(list(out.glob("shard-*.parquet"))) >= 5  # every written shard intact
    r = _run(*args)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["run"]["shards_skipped"] == len(done) and rep["classes_done"] == 16
    clean = tmp_path / "clean"
    r = _run(*[a if a != str(out) else str(clean) for a in args])
    assert r.returncode == 0, r.stderr
    for x, y in zip(_content(out, plan), _content(clean, plan), strict=True):
        assert x.equals(y)


def test_stores_serve_the_evaluation_set_and_the_benchmark_config(full_store, tmp_path):
    from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
    from splitpoker.agents.exact.solved_store import solver_for

    game, out, canon = full_store
    s = solver_for(game, [str(out)])
    assert isinstance(s, StoreSolver) and s.solve(canon[0]).wins.shape == (21,) and s.hits == 1
    assert solver_for(Game("asia", "asia-000"), [str(out)]) is None  # no store for that game: solve
    with pytest.raises(StoreError, match="manifest.json is missing"):
        solver_for(game, [str(tmp_path)])
    cfg = {"name": "tiny", "executor": "local", "total_timesteps": 256, "eval_every": 128, "seeds": [0, 1],
           "eval": {"hands": 12, "solved": [str(out)], "validation_seed": 2024, "test_seed": 2025}, "envs": [{"id": "splitpoker/AsiaPokerSetting-v0"}],
           "algorithms": [{"name": "MaskablePPO+MLP", "algo": "maskable_ppo", "policy": "MlpPolicy"}],
           "references": ["house-way", "optimal"], "reference_kwargs": {"optimal": {"store": str(out)}}}
    assert BenchmarkConfig.from_dict(cfg).eval_solved == (str(out),)
    cfg["eval"]["solved"] = "dir"
    with pytest.raises(ConfigError, match="eval.solved='dir': expected a list"):
        BenchmarkConfig.from_dict(cfg)


def test_evaluate_refuses_a_store_for_another_game(full_store):
    _, out, _ = full_store
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "evaluate.py"), "--hands", "2", "--regret",
                        "--solved", str(out)], capture_output=True, text=True, env=env(), cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "made for paigow/paigow-igw" in r.stderr and "needs asia/asia-000" in r.stderr


@pytest.mark.slow
def test_ctrl_c_exits_130_keeps_finished_shards_and_stops_ray(tmp_path):
    out = tmp_path / "int"
    p = subprocess.Popen([sys.executable, SCRIPT, "--game", "paigow", "--sample", "12", "--shard-size", "1",
                          "--num-cpus", "1", "--max-pool-card", str(K), "--out", str(out)],
                         env=env(), cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        deadline = time.time() + 300
        while time.time() < deadline and not list(out.glob("shard-*.parquet")):
            time.sleep(0.2)
        assert list(out.glob("shard-*.parquet")), "no shard written in time"
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130 and "rerun the same command to resume" in err, err[-3000:]
    assert not list(out.glob(".*tmp*"))
    game = Game("paigow", "paigow-igw")
    plan, classes = es.make_plan(12, 0, 1)
    done = es.finished_shards(out, game, store_key(game, K), plan, classes)
    assert len(done) == len(list(out.glob("shard-*.parquet"))) >= 1
    deadline = time.monotonic() + 60  # the local Ray it started is shut down (its workers may take seconds to go)
    while _session_pids(p.pid, "ray::") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session_pids(p.pid, "ray::") == []


class _Ref:
    """A stand-in for a Ray ObjectRef: the fake Ray below counts the live ones."""

    live = None  # a weakref.WeakSet, set by the test


def test_an_interrupted_run_lets_every_object_ref_go_before_ray_shuts_down(tmp_path, monkeypatch):
    """An ObjectRef freed after ``ray.shutdown()`` can end the driver in Ray's core with exit code
    1 (an interrupted solve_all.py printed its line, then exited 1 instead of 130): when the run is
    interrupted, no ObjectRef may be alive at the shutdown, though the interrupt's traceback holds
    the frames (``ray.wait``'s included) that held them."""
    import gc
    import weakref

    _Ref.live = weakref.WeakSet()
    seen = {}

    class FakeRay:
        def cluster_resources(self):
            return {"CPU": 2}

        def remote(self, **_):
            def wrap(fn):
                class Task:
                    @staticmethod
                    def remote(*args):
                        ref = _Ref()
                        _Ref.live.add(ref)
                        return ref
                return Task
            return wrap

        def wait(self, refs, num_returns=1):
            waiting = list(refs)  # noqa: F841  (a frame's local that holds refs, as Ray's own wait does)
            raise KeyboardInterrupt

        def cancel(self, ref, force=False):
            raise AssertionError("a Ray started by the run is shut down, never cancelled task by task")

        def shutdown(self):
            gc.collect()
            seen["live_at_shutdown"] = len(_Ref.live)

    monkeypatch.setattr(es, "start_ray", lambda address, num_cpus, log: (FakeRay(), True))
    game = Game("paigow", "paigow-igw")
    plan, classes = es.make_plan(6, 3, 1)
    out = tmp_path / "run"
    out.mkdir()
    es.prepare_store(out, game, plan, K)
    with pytest.raises(KeyboardInterrupt) as caught:
        es.run_plan(out, game, plan, classes, universe=K, num_cpus=2)
    assert caught.value.__traceback__ is not None  # the traceback (and its frames) still alive here
    assert seen == {"live_at_shutdown": 0}
