"""Ctrl-C and SIGTERM around a script's work (scripts/support/cli.py, docs/cli.md): a signal during
the interpreter's shutdown after a finished run ends it with the run's own exit code, at once.

Each case runs a small program that uses the scripts' guard the way a script does, with a slow
step in its shutdown (an exit function, or an object freed as its module is unloaded), and signals
it during that step. The control case leaves out :func:`finished` and shows the faults it removes.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

PROGRAM = """
import atexit, sys, time
from splitpoker.scripts.support.cli import finished, handle_interrupts, install_startup_interrupt

install_startup_interrupt()
handle_interrupts()

class SlowToFree:  # a module-level object freed while the module is unloaded (after the exit functions)
    def __del__(self):
        time.sleep({free_s})

keep = SlowToFree()
atexit.register(time.sleep, {atexit_s})  # e.g. Ray's or a thread pool's shutdown
print("result: done", flush=True)
sys.exit({exit_expr})
"""


def run(tmp_path, signum, *, atexit_s=0.0, free_s=0.0, use_finished=True, code=3):
    exit_expr = f"finished({code})" if use_finished else str(code)
    src = textwrap.dedent(PROGRAM.format(free_s=free_s, atexit_s=atexit_s, exit_expr=exit_expr))
    p = subprocess.Popen([sys.executable, "-c", src], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "result: done"  # the run has finished: the shutdown begins
        time.sleep(0.5)  # inside the slow step
        sent = time.perf_counter()
        p.send_signal(signum)
        out, err = p.communicate(timeout=60)
        return p.returncode, err, time.perf_counter() - sent
    finally:
        if p.poll() is None:
            p.kill()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_in_a_slow_exit_function_ends_the_finished_run_at_once_with_its_code(tmp_path, signum):
    code, err, latency = run(tmp_path, signum, atexit_s=20)
    assert (code, err) == (3, "")
    assert latency < 10, latency  # not after the 20 s step


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_modules_are_unloaded_leaves_the_finished_run_its_code(tmp_path, signum):
    # the interpreter has put the default handlers back by then: ignored, the shutdown ends normally
    code, err, _ = run(tmp_path, signum, free_s=3)
    assert (code, err) == (3, "")


def test_without_finished_the_same_signals_give_a_traceback_or_a_kill(tmp_path):
    code, err, _ = run(tmp_path, signal.SIGINT, atexit_s=20, use_finished=False)
    assert "Traceback" in err and "KeyboardInterrupt" in err, (code, err)
    code, err, _ = run(tmp_path, signal.SIGTERM, free_s=3, use_finished=False)
    assert code == -signal.SIGTERM, (code, err)


def test_in_process_callers_keep_their_handlers(monkeypatch):
    from splitpoker.scripts.support import cli

    monkeypatch.setitem(cli._finished, "script", False)  # a caller that did not install the scripts' guard
    before = signal.getsignal(signal.SIGINT)
    assert cli.finished(0) == 0 and cli.finished(None) == 0
    assert signal.getsignal(signal.SIGINT) is before


RAY_DRIVER = """
import atexit, os, sys, threading, time, types
from splitpoker.scripts.support.cli import finished, handle_interrupts, install_startup_interrupt

install_startup_interrupt()
handle_interrupts()
if {ray}:
    sys.modules["ray"] = types.ModuleType("ray")  # a driver that loaded Ray (only the name is checked)

class QuitsWhenFreedLate:  # what Ray's core does when an object is freed after ray.shutdown()
    def __del__(self):
        os._exit(1)

keep = QuitsWhenFreedLate()
atexit.register(lambda: print("exit function ran", flush=True))
threading.Thread(target=lambda: (time.sleep(0.5), print("thread finished", flush=True))).start()
print("result: done", flush=True)
sys.exit(finished(130))
"""


@pytest.mark.parametrize("ray", [True, False])
def test_a_ray_driver_ends_with_its_code_after_its_threads_and_exit_functions(tmp_path, ray):
    src = textwrap.dedent(RAY_DRIVER.format(ray=ray))
    r = subprocess.run([sys.executable, "-c", src], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.stdout.split("\n")[:3] == ["result: done", "thread finished", "exit function ran"], r.stdout
    # without Ray the interpreter's own teardown runs, and the late object ends the process
    assert r.returncode == (130 if ray else 1), (r.returncode, r.stderr)


COMPILING = """
import sys, time
from numba.core.compiler_lock import global_compiler_lock
from splitpoker.scripts.support import cli

cli.install_startup_interrupt()

def run(_):
    with global_compiler_lock:  # what numba holds while it compiles (a cold compile can take a minute)
        print("compiling", flush=True)
        time.sleep({compile_s})
    print("compiled", flush=True)
    time.sleep(60)  # the work after it
    return 0

sys.exit(cli.finished(cli.run_interruptible(run, None, "saved: the rows before")))
"""


def compile_then_signal(tmp_path, signum, presses, compile_s):
    src = textwrap.dedent(COMPILING.format(compile_s=compile_s))
    p = subprocess.Popen([sys.executable, "-c", src], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "compiling"
        sent = time.perf_counter()
        for _ in range(presses):
            p.send_signal(signum)
            time.sleep(0.3)
        out, err = p.communicate(timeout=90)
        return p.returncode, out, err, time.perf_counter() - sent
    finally:
        if p.poll() is None:
            p.kill()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_compile_stops_when_it_ends_and_says_so(tmp_path, signum):
    code, out, err, latency = compile_then_signal(tmp_path, signum, 1, compile_s=2.0)
    assert code == 128 + signum, (code, err)
    assert out == "compiled\n"  # the compile was let finish, the work after it was not run on
    lines = err.splitlines()
    press = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
    assert lines[0].startswith(f"{press} during a numba compile: stopping when it ends"), err
    assert lines[-1].startswith("interrupted") and lines[-1].endswith("saved: the rows before"), err
    assert len(lines) == 2 and "Traceback" not in err, err
    assert 1.5 < latency < 30, latency  # not before the compile's 2 s, not after the 60 s of work


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_during_a_compile_quits_at_once(tmp_path, signum):
    code, out, err, latency = compile_then_signal(tmp_path, signum, 2, compile_s=60)
    assert code == 128 + signum, (code, err)
    assert out == ""  # the compile did not end
    lines = err.splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    assert lines[1].startswith("interrupted") and "quit at once" in lines[1], err
    assert latency < 30, latency  # not the 60 s compile


SIGTERM_IN_RAY_INIT = """
import os, signal, sys
import ray
import ray._private.utils as ray_utils
from splitpoker.agents.exact.strategy import keep_signal_handlers
from splitpoker.scripts.support import cli

cli.install_startup_interrupt()
ray_set = ray_utils.set_sigterm_handler

def set_then_signal(handler):  # the SIGTERM lands just after ray.init installs its sys.exit handler
    ray_set(handler)
    os.kill(os.getpid(), signal.SIGTERM)

ray_utils.set_sigterm_handler = set_then_signal

def run(_):
    if {guard}:
        with keep_signal_handlers():
            ray.init(num_cpus=1, include_dashboard=False)
    else:
        ray.init(num_cpus=1, include_dashboard=False)
    print("ray started", flush=True)
    return 0

sys.exit(cli.finished(cli.run_interruptible(run, None, "nothing was saved")))
"""


@pytest.mark.parametrize("guard", [True, False])
def test_a_sigterm_inside_ray_init_ends_the_run_as_a_sigterm(tmp_path, guard):
    """Ray's first act in ``ray.init`` is its own SIGTERM handler, ``sys.exit(15)``; a SIGTERM
    before ``ray.init`` returns (seen in the fault matrix's rllib_ppo case) ended the run with exit
    15 and no message. Under :func:`keep_signal_handlers` it is the script's SIGTERM: exit 143 with
    its one line. The control (no guard) shows the fault, so the premise about Ray still holds."""
    pytest.importorskip("ray")
    src = textwrap.dedent(SIGTERM_IN_RAY_INIT.format(guard=guard))
    r = subprocess.run([sys.executable, "-c", src], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "ray started" not in r.stdout
    if guard:
        assert r.returncode == 143, (r.returncode, r.stderr[-2000:])
        assert r.stderr.strip() == "interrupted (SIGTERM): nothing was saved", r.stderr[-2000:]
    else:
        assert (r.returncode, r.stderr.strip()) == (15, ""), (r.returncode, r.stderr[-2000:])
