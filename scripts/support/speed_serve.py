"""``scripts/benchmark.py --only serve``: the strategy explorer's warm latency and load behaviour,
measured over real HTTP on the loopback against ``scripts/serve.py`` started as a user starts it.

Per game: ``hands`` random hands (seeded), one ``/api/analyze`` request at a time after a warm-up,
p50/p95/max of the wall time a client sees; beside it, in the same run, the exact solver alone on
the first 20 of those hands in this process (what the server adds is the difference). Then
``burst`` requests at once, three times: every answer's status, the burst's wall time, and the
server's resident memory (VmRSS) before and after each burst.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

from splitpoker.envs.rules.games.spec import SPECS

ROOT = Path(__file__).resolve().parents[2]
GAMES = {spec.name: spec.default_house_way for spec in SPECS.values()}


def _rss_mb(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024


def _get(url: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    return status, time.perf_counter() - t0


def _hands(game: str, n: int, seed: int) -> list[str]:
    from splitpoker.agents.explorer.engine import deal
    from splitpoker.envs.rules.cards import format_cards

    rng = np.random.default_rng(seed)
    return [format_cards(deal(int(rng.integers(2**62)))) for _ in range(n)]


def serve_benchmark(hands: int = 100, burst: int = 16, seed: int = 0, log=print) -> dict:
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", "0", "--styles",
                             ",".join(GAMES.values())], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        t0 = time.perf_counter()
        base = None
        for line in proc.stdout:
            m = re.match(r"serving on (http://\S+)", line)
            if m:
                base = m.group(1)
                break
        if base is None:
            raise RuntimeError(f"scripts/serve.py exited {proc.wait()} before serving")
        start_seconds = time.perf_counter() - t0
        log(f"serving on {base} after {start_seconds:.1f} s")
        out: dict = {"method": f"{hands} random hands per game, one request at a time over loopback HTTP after 5 "
                               f"warm-up requests; then {burst} requests at once, three times",
                     "start_seconds": start_seconds, "games": {}}
        from splitpoker.envs.rules.game import Game
        from splitpoker.envs.solver.exact import ExactSolver

        for game, style in GAMES.items():
            hs = _hands(game, hands + 5, seed)
            for h in hs[:5]:
                _get(f"{base}/api/analyze?" + urlencode({"game": game, "style": style, "cards": h}))
            times, statuses = [], []
            for h in hs[5:]:
                s, dt = _get(f"{base}/api/analyze?" + urlencode({"game": game, "style": style, "cards": h}))
                statuses.append(s)
                times.append(dt)
            g = Game(game, style)
            solver = ExactSolver(g)
            solver.solve(g.hand(hs[0]))
            solve = []
            for h in hs[5:25]:
                t = time.perf_counter()
                solver.solve(g.hand(h))
                solve.append(time.perf_counter() - t)
            del solver
            t = np.array(times)
            out["games"][game] = {"style": style, "requests": len(t), "ok": int(sum(s == 200 for s in statuses)),
                                  "p50_seconds": float(np.percentile(t, 50)), "p95_seconds": float(np.percentile(t, 95)),
                                  "max_seconds": float(t.max()), "mean_seconds": float(t.mean()),
                                  "solver_alone_median_seconds": float(np.median(solve)),
                                  "goal_p95_seconds": 0.5, "meets_goal": bool(np.percentile(t, 95) < 0.5)}
            log(f"{game}: p50 {np.percentile(t, 50):.3f} s, p95 {np.percentile(t, 95):.3f} s "
                f"(solver alone {np.median(solve):.3f} s)")
        bursts = []
        hs = _hands("paigow", burst * 3, seed + 1)
        for k in range(3):
            before = _rss_mb(proc.pid)
            results: list = [None] * burst
            def one(i):
                results[i] = _get(f"{base}/api/analyze?" + urlencode({"game": "paigow", "cards": hs[k * burst + i]}))
            threads = [threading.Thread(target=one, args=(i,)) for i in range(burst)]
            t = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.perf_counter() - t
            bursts.append({"answered": sum(r is not None and r[0] == 200 for r in results), "requests": burst,
                           "wall_seconds": wall, "slowest_seconds": max(r[1] for r in results),
                           "rss_mb_before": before, "rss_mb_after": _rss_mb(proc.pid)})
            log(f"burst {k + 1}: {bursts[-1]['answered']}/{burst} answered in {wall:.2f} s, "
                f"RSS {before:.0f} -> {bursts[-1]['rss_mb_after']:.0f} MB")
        out["bursts"] = bursts
        out["all_burst_requests_answered"] = all(b["answered"] == b["requests"] for b in bursts)
        return out
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
