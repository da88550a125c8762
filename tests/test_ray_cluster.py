"""A real two-node Ray cluster on this machine: a head and a worker node (``ray start``, one CPU
each, private temp dirs, free ports, a private auth token), joined on 127.0.0.1.

``scripts/solve_all.py``, ``scripts/benchmark_rl.py`` and ``scripts/rllib_ppo.py`` run with
``--address`` on it and give what they give on a local two-CPU Ray (same seeds); then the worker
node's raylet is killed (SIGKILL) mid-run: no finished shard, run or iteration is lost, and a rerun
completes. docs/cluster.md is the recipe these tests follow.

The cluster is this module's, started once and always stopped (SIGTERM to each ``ray start
--block``, then SIGKILL to anything left in its session), also when a test fails or is
interrupted; Ray only ever runs in child processes here, so the test process keeps its
environment (no ``RAY_ADDRESS`` or auth variables are set in it).
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).with_name("ray")
K = 32  # solve_all's tiny dealer pool: unseen cards < 32 (not the real game; ~0.05 s a class)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not RAY.exists(), reason=f"no {RAY}")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def session_pids(sid: int, comm: str | None = None) -> list[int]:
    """Live processes of session ``sid`` (what one ``ray start`` started: Ray's workers get process
    groups of their own but stay in the raylet's session), by command name if given (its first 15
    characters, as the kernel keeps it: ``ray::_ray_run_o``)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        name, rest = stat.split("(", 1)[1].rsplit(")", 1)
        fields = rest.split()
        if int(fields[3]) == sid and fields[0] != "Z" and (comm is None or name == comm[:15]):
            out.append(int(d.name))
    return out


def _die_with_parent():  # preexec_fn: a `ray start` of a test process killed outright stops too
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Cluster:
    """A head and a worker node on this machine. ``env`` is what every process of the cluster
    (nodes and drivers) runs with: the checkout on PYTHONPATH and this cluster's own token."""

    def __init__(self):
        # a short folder: Ray's socket paths live under it (a Unix socket path has ~107 bytes)
        self.dir = Path(tempfile.mkdtemp(prefix="rc-", dir="/tmp"))
        token = self.dir / "token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        self.env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token),
                        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.head = self.worker = None
        self.workers_started = 0

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = self.dir / f"{name}.log"
        ports = ["--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                 "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port"]
        cmd = [str(RAY), "start", *args, "--num-cpus", "1", "--temp-dir", str(self.dir / name),
               "--disable-usage-stats", "--block", *[x for p in ports for x in (p, str(free_port()))]]
        with open(log, "w") as f:
            p = subprocess.Popen(cmd, env=self.env, cwd=self.dir, stdout=f, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text():
            if p.poll() is not None or time.monotonic() > deadline:
                self._stop(p)
                raise AssertionError(f"ray start ({name}) did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        return p

    def start(self) -> Cluster:
        self.head = self._start("head", ["--head", "--port", str(self.port), "--include-dashboard", "false",
                                         "--ray-client-server-port", str(free_port())])
        self.start_worker()
        return self

    def start_worker(self) -> None:
        """(Re)start the worker node (a fresh temp dir each time: its logs show which node ran what)."""
        if self.worker is not None:
            self._stop(self.worker)
        self.workers_started += 1
        self.worker = self._start(f"worker{self.workers_started}", ["--address", self.address])

    def worker_raylet(self) -> int:
        pids = session_pids(self.worker.pid, "raylet")
        assert len(pids) == 1, f"expected one raylet in the worker node's session, found {pids}"
        return pids[0]

    def worker_pids(self, comm: str) -> list[int]:
        return session_pids(self.worker.pid, comm)

    @staticmethod
    def _stop(p: subprocess.Popen) -> None:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # `ray start --block` drains and stops its processes (~1 s)
            try:
                p.wait(40)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + 10
        while (left := session_pids(p.pid)) and time.monotonic() < deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        if p.poll() is None:
            p.kill()
        p.wait()

    def stop(self) -> None:
        for p in (self.worker, self.head):
            if p is not None:
                self._stop(p)
        self.head = self.worker = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(self, script: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], env=self.env, cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)

    def popen(self, script: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, str(ROOT / "scripts" / script), *args], env=self.env, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def run_losing_the_worker(self, script: str, *args: str, ready, what: str, poll: float = 0.05,
                              at_loss=lambda: None):
        """Run ``script`` on the cluster; once ``ready()`` holds, SIGKILL the worker node's raylet,
        note ``at_loss()`` (what the run had written by then) and let the run finish. Returns
        (exit code, stdout, stderr, what ``at_loss`` returned). The worker node is started again
        afterwards, also when the run fails, for the tests after this one."""
        p = self.popen(script, *args)
        try:
            _wait_for(ready, what, p, poll=poll)
            os.kill(self.worker_raylet(), signal.SIGKILL)
            noted = at_loss()
            code, stdout, err = _finish(p)
        finally:
            _reap(p)
            self.start_worker()
        return code, stdout, err, noted


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    atexit.register(c.stop)  # Ctrl-C or an error outside the fixture's teardown
    try:
        yield c.start()
    finally:
        c.stop()
        atexit.unregister(c.stop)


def _wait_for(predicate, what: str, p: subprocess.Popen, timeout: float = 300, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if p.poll() is not None:
            out, err = p.communicate()
            raise AssertionError(f"the run ended (exit {p.returncode}) before {what}:\n{err[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} in {timeout} s")
        time.sleep(poll)
    return value


def _reap(p: subprocess.Popen) -> None:
    """A driver still running (a test that failed while it ran) is killed with its process group."""
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def _finish(p: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        _reap(p)
    return p.returncode, out, err


def _ok(r: subprocess.CompletedProcess, cpus: int | None = 2) -> subprocess.CompletedProcess:
    """``r`` ended 0, on a Ray with ``cpus`` CPUs (None: Ray not started, nothing left to do)."""
    assert r.returncode == 0, r.stderr[-4000:]
    assert cpus is None or f"Ray: {cpus} CPU(s)" in r.stderr, r.stderr[-2000:]
    return r


def _untimed(x):
    """``x`` without what measures time or where and when it ran (seconds, rates, niceness, paths,
    the commit: other work is committed to the checkout while the tests run)."""
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items()
                if not any(w in k for w in ("seconds", "per_second", "niceness", "throughput", "cost_model"))
                and k not in ("out", "run_dir", "address", "command", "git", "run_commits")}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


# ---- solve_all.py ---------------------------------------------------------------------------

def _shards(out: Path, n: int) -> list:
    import pyarrow.parquet as pq

    from splitpoker.agents.exact.solved_store import shard_name

    return [pq.read_table(out / shard_name(k)).drop(["seconds"]) for k in range(n)]  # a shard's solve time varies


@pytest.mark.timeout(900)
def test_solve_all_on_the_cluster_equals_local_and_survives_a_lost_node(cluster, tmp_path):
    """The shards solved on the two nodes equal a local Ray's (the rows are a pure function of a
    shard's classes; only each shard's ``seconds`` differ); the worker node's raylet killed mid-run
    costs nothing: its shards in flight are retried on the head (``max_retries``), the run ends 0
    with every shard, equal to the local ones, and a rerun skips them all."""
    n = 40
    args = ["--game", "paigow", "--sample", str(n), "--seed", "5", "--shard-size", "1", "--max-pool-card", str(K),
            "--json"]
    local = json.loads(_ok(cluster.run("solve_all.py", *args, "--num-cpus", "2", "--out", str(tmp_path / "local"))).stdout)
    on = json.loads(_ok(cluster.run("solve_all.py", *args, "--address", cluster.address,
                                    "--out", str(tmp_path / "cluster"))).stdout)
    assert on["classes_done"] == local["classes_done"] == n and on["run"]["workers"] == 2
    assert _untimed(on) == _untimed(local)
    reference = _shards(tmp_path / "local", n)
    for x, y in zip(_shards(tmp_path / "cluster", n), reference, strict=True):
        assert x.equals(y)

    out = tmp_path / "killed"
    code, stdout, err, at_kill = cluster.run_losing_the_worker(
        "solve_all.py", *args, "--address", cluster.address, "--out", str(out),
        ready=lambda: len(list(out.glob("shard-*.parquet"))) >= 2, what="second shard",
        at_loss=lambda: len(list(out.glob("shard-*.parquet"))))
    assert at_kill < n, "the run finished before the node was lost: nothing was tested"
    assert code == 0, err[-4000:]
    rep = json.loads(stdout)
    assert rep["classes_done"] == n and rep["run"]["shards_solved"] == n
    for x, y in zip(_shards(out, n), reference, strict=True):
        assert x.equals(y)
    again = json.loads(_ok(cluster.run("solve_all.py", *args, "--address", cluster.address, "--out", str(out)),
                           cpus=None).stdout)
    assert again["run"]["shards_skipped"] == n and again["run"]["shards_solved"] == 0
    assert _untimed({k: v for k, v in again.items() if k != "run"}) == _untimed({k: v for k, v in local.items() if k != "run"})


# ---- benchmark_rl.py ------------------------------------------------------------------------

BENCH = ["--config", str(ROOT / "configs" / "benchmark" / "smoke.yaml"), "--envs", "asia", "--algorithms", "DQN",
         "--references", "house-way", "--seeds", "0,1,2", "--total-timesteps", "256", "--eval-every", "128", "--json"]
BENCH_RUNS = [f"asia__DQN__{seed}" for seed in (0, 1, 2)]
FIGURES = ["rl_benchmark_asia.png", "rl_benchmark_asia_card_removal.png", "rl_benchmark_profiles.png"]


def _weights(run: Path) -> bytes:
    """The trained network in a run's model.zip (the archive's other members hold SB3's clock)."""
    with zipfile.ZipFile(run / "model.zip") as z:
        return z.read("policy.pth")


def _same_runs(a: Path, b: Path, runs: list[str]) -> None:
    for r in runs:
        x, y = (json.loads((d / "runs" / r / "result.json").read_text()) for d in (a, b))
        assert _untimed(x) == _untimed(y), r
        assert _weights(a / "runs" / r) == _weights(b / "runs" / r), r



@pytest.mark.timeout(900)
def test_benchmark_rl_on_the_cluster_equals_local_and_survives_a_lost_node(cluster, tmp_path):
    """The runs trained on the two nodes equal a local Ray's: every score and curve point, the
    network's weights, the summary and the three figures byte for byte (what differs is time:
    seconds, steps per second, and the niceness the runs had; see docs/cluster.md). The worker
    node's raylet killed while it trains a run: the runs finished before are kept, the lost one is
    retried on the head, the grid ends complete and equal to the local one."""
    local = json.loads(_ok(cluster.run("benchmark_rl.py", *BENCH, "--num-cpus", "2", "--out", str(tmp_path / "local"))).stdout)
    on = json.loads(_ok(cluster.run("benchmark_rl.py", *BENCH, "--address", cluster.address,
                                    "--out", str(tmp_path / "cluster"))).stdout)
    assert on["runs_done"] == local["runs_done"] == 3
    assert _untimed(on) == _untimed(local)
    _same_runs(tmp_path / "local", tmp_path / "cluster", BENCH_RUNS)
    for f in FIGURES:
        assert (tmp_path / "local" / f).read_bytes() == (tmp_path / "cluster" / f).read_bytes(), f

    out = tmp_path / "killed"
    code, stdout, err, kept = cluster.run_losing_the_worker(
        "benchmark_rl.py", *BENCH, "--address", cluster.address, "--out", str(out),
        ready=lambda: cluster.worker_pids("ray::_ray_run_one"), what="run on the worker node",
        at_loss=lambda: {r: _weights(out / "runs" / r) for r in BENCH_RUNS
                         if (out / "runs" / r / "result.json").exists()})
    assert code == 0, err[-4000:]
    summary = json.loads(stdout)
    assert _untimed(summary) == _untimed(local)
    _same_runs(tmp_path / "local", out, BENCH_RUNS)
    assert all(_weights(out / "runs" / r) == w for r, w in kept.items())  # a finished run is not trained again


# ---- rllib_ppo.py ---------------------------------------------------------------------------

RLLIB = ["--env", "splitpoker/AsiaPokerSetting-v0", "--batch-size", "64", "--minibatch-size", "32", "--epochs", "1",
         "--eval-episodes", "10", "--num-env-runners", "2", "--no-progress"]


def _sampled(summary: dict) -> list:
    return [row["env_steps_sampled_lifetime"] for row in summary["iterations"]]


@pytest.mark.timeout(1200)
def test_rllib_ppo_on_the_cluster_equals_local_and_survives_a_lost_node(cluster, tmp_path):
    """Two env runners, one on each node, train what two local ones train: every iteration's
    returns and step counts and the evaluation (only seconds differ). The worker node's raylet
    killed after the first iteration: RLlib goes on with the env runner left (it cannot place a
    new one: the head's CPU is taken), so the run still ends 0 with every iteration and the
    iterations saved before the loss unchanged; the later ones are sampled by one runner alone,
    so they are not those of an uninterrupted run. With the node back, the rerun completes from
    the checkpoint."""
    rllib_ppo = pytest.importorskip("splitpoker.agents.training.rllib_ppo")
    local = json.loads(_ok(cluster.run("rllib_ppo.py", *RLLIB, "--iterations", "2", "--num-cpus", "2",
                                       "--run-dir", str(tmp_path / "local"))).stdout)
    on = json.loads(_ok(cluster.run("rllib_ppo.py", *RLLIB, "--iterations", "2", "--address", cluster.address,
                                    "--run-dir", str(tmp_path / "cluster"))).stdout)
    assert _sampled(on) == _sampled(local) == [64, 128]  # each iteration its whole batch (none timed out)
    assert _untimed(on) == _untimed(local)
    assert rllib_ppo.build_config(rllib_ppo.PPORun(num_env_runners=2)).sample_timeout_s is None

    run_dir = tmp_path / "killed"
    args = [*RLLIB, "--iterations", "3", "--address", cluster.address, "--run-dir", str(run_dir)]
    progress = run_dir / "progress.json"
    code, stdout, err, before = cluster.run_losing_the_worker(
        "rllib_ppo.py", *args, ready=progress.exists, what="first iteration", poll=0.02,
        at_loss=lambda: json.loads(progress.read_text())["iterations"])
    assert code == 0, err[-4000:]
    summary = json.loads(stdout)
    assert _sampled(summary) == [64, 128, 192]
    assert summary["iterations"][:len(before)] == before and len(before) < 3
    assert _untimed(before[:1]) == _untimed(on["iterations"][:1])
    again = _ok(cluster.run("rllib_ppo.py", *args))
    assert "resumed" in again.stderr and "3 iteration(s) done" in again.stderr
    assert json.loads(again.stdout)["iterations"] == summary["iterations"]
