"""What every script in ``scripts/`` shares: checked arguments, strict JSON, atomic writes, output
paths checked before the work, and Ctrl-C.

Conventions (one place, so every script behaves alike):

* **Bad values exit 2 before any work** with a message naming the flag, the value and what is
  allowed: argparse ``type=`` functions below (:func:`seed`, :func:`count`, :func:`positive_float`).
* **Seeds** are integers ``0 .. 2**63 - 1``: the counter-based deal keeps 63 bits, so a negative
  seed or one >= 2**63 would silently deal the same cards as another seed.
* **JSON flags** (``--env-kwargs``, ``--table``) take a JSON object, parsed by :func:`json_object`.
* **Sizes are bounded** (each flag states its bound and why: memory or time).
* **Output files** (``--out``, ``--plot``): the folder must already exist and be writable (it is
  not created: a typo in a folder name is refused rather than silently made), checked before the
  work; JSON is written atomically (temporary file in the same folder, then rename).
* **Output folders** (a run's, a study's, a solved store: ``--out DIR``): an existing folder is
  reused (that is how a run resumes); a new one is made inside an existing, writable folder, one
  level only (:func:`check_output_dir`); a file is refused. A script's *default* folder
  (``runs/...``) is made with its parents.
* **JSON is strict**: ``NaN``/``inf`` become ``null`` (``allow_nan=False``), numpy scalars plain
  numbers.
* **Ctrl-C** exits 130 with one line on stderr, keeping partial results where they make sense;
  long numba work runs in chunks so Python checks for the interrupt between chunks (< 1 s).
  **SIGTERM** does the same and exits 143 (128 + the signal number, as a shell reports it).
  :func:`install_startup_interrupt` covers the seconds of imports before ``main`` runs.
  docs/cli.md states the whole contract.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import json
import math
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from splitpoker.agents.output import dumps, jsonable, output_failed, write_json, write_text_atomic  # noqa: F401  (re-exported)
from splitpoker.envs.registration import SETTING_ENV_OF_GAME
from splitpoker.envs.rules.games.spec import SPECS

MAX_SEED = 2**63 - 1

#: the one-step setting env of each game that the benchmark scripts measure on (the reference
#: dealers, Pai Gow with the 5% commission and the wheel as the second-highest straight)
#: Pai Gow's reference rules written out (today's defaults: a benchmark measures the same game if they change)
REFERENCE_RULES = {"paigow": {"commission": 0.05, "ace_low_straight": "second_highest"}}
SETTING_ENVS = {spec.name: (SETTING_ENV_OF_GAME[spec.name], {"house_way": spec.default_house_way, **(
    {"rules": REFERENCE_RULES[spec.name]} if spec.name in REFERENCE_RULES else {})}) for spec in SPECS.values()}


class CliError(ValueError):
    """A bad command-line value: ``main`` prints ``error: <message>`` and exits 2."""


INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C, and a polite kill (a scheduler, `kill`, `timeout`)


def exit_code(signum: int = signal.SIGINT) -> int:
    """The exit code of a run stopped by ``signum``: 128 + the signal number, as a shell reports a
    killed process (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + int(signum)


def _name(signum: int) -> str:
    return "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"


def _interrupted_during_startup(signum, frame):  # pragma: no cover - exercised in subprocess tests
    sys.stderr.write(f"interrupted{_name(signum)} (while starting up; nothing was done)\n")
    sys.stderr.flush()
    os._exit(exit_code(signum))


def install_startup_interrupt() -> None:
    """Call first thing in a script run as a program: a Ctrl-C or SIGTERM during the imports
    (numba loads its kernels for a few seconds) exits 130 / 143 with one line instead of a
    traceback. :func:`handle_interrupts` turns both into ``KeyboardInterrupt`` once ``main`` runs,
    and :func:`finished` makes them end a finished run with its own exit code."""
    for s in INTERRUPT_SIGNALS:
        signal.signal(s, _interrupted_during_startup)
    if not _finished["script"]:
        _finished["script"] = True
        atexit.register(_ignore_if_finished)  # the first registered: it runs after every other exit function


_finished: dict[str, Any] = {"script": False, "code": None}


def _exit_now(code: int, signum, frame) -> None:  # pragma: no cover - exercised in subprocess tests
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


def _ignore_if_finished() -> None:
    # the interpreter puts the default handlers back after the exit functions, and a signal in the
    # rest of its shutdown (unloading torch and numba) would then kill the finished run by the signal
    if _finished["code"] is not None:
        for s in INTERRUPT_SIGNALS:
            signal.signal(s, signal.SIG_IGN)


def finished(code: int | None) -> int:
    """A finished run's exit code, as the script's last step: ``sys.exit(cli.finished(main()))``.
    The work is done and reported, so a Ctrl-C or SIGTERM during the interpreter's shutdown (threads,
    exit functions, unloading torch and numba: up to a second) ends the process at once with that
    code, instead of a traceback or a kill by the signal. In-process callers (tests) are unaffected."""
    code = 0 if code is None else int(code)
    if _finished["script"]:
        _finished["code"] = code
        for s in INTERRUPT_SIGNALS:
            signal.signal(s, functools.partial(_exit_now, code))
        if "ray" in sys.modules:
            _leave_ray_driver(code)
    return code


def _leave_ray_driver(code: int) -> None:  # pragma: no cover - exercised in subprocess tests
    """End a finished run that loaded Ray with its own exit code, skipping the interpreter's
    teardown. After ``ray.shutdown()``, Ray's C++ core can end the driver with exit code 1 while the
    interpreter finishes: an interrupted ``solve_all.py`` printed its line and exited 1 instead of
    130 (in CI, and 1 of 7 runs of its test here; 0 of 33 runs outside pytest), and the driver's Ray
    log then ended with "The core worker process is not initialized yet or already shutdown" (Ray's
    quick exit, code 1), written on the main thread just after the core worker was destructed. The
    likely late call: an ObjectRef freed after ``ray.shutdown()`` (the interrupt's traceback held
    the frames that held four of them). ``run_plan`` in :mod:`splitpoker.agents.exact.strategy`
    and the RL benchmark's Ray loop now let them go before they shut Ray down; with both cores
    kept busy the test failed 1 of 6 runs before and 0 of 8 after. The run is done and
    reported, so this does what the interpreter's exit does before its teardown (waits for the
    program's own threads, runs the exit functions, Ray's own shutdown among them, flushes the
    output) and leaves with ``os._exit``; tests/test_cli_signals.py checks that order."""
    main = threading.main_thread()
    for t in threading.enumerate():
        if t is not main and not t.daemon:
            t.join()
    atexit._run_exitfuncs()
    _exit_now(code, None, None)


_sigint = {"seen": False, "signum": signal.SIGINT, "waiting": False, "resent": False}


def _numba_compiling() -> bool:
    compiler_lock = sys.modules.get("numba.core.compiler_lock")
    try:
        return bool(compiler_lock and compiler_lock.global_compiler_lock.is_locked())
    except Exception:  # pragma: no cover - a numba without the lock's is_locked()
        return False


def _ask_again(signum) -> None:
    _sigint["resent"] = True  # this signal is ours, not the user's second one
    os.kill(os.getpid(), signum)


def _press(signum) -> str:
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def _quit_during_compile(signum) -> None:  # pragma: no cover - exercised in subprocess tests
    sys.stderr.write(f"interrupted{_name(signum)} (a second {_press(signum)} during a numba compile: quit at once; "
                     "what was saved before is kept, nothing more was saved)\n")
    if "ray" in sys.modules:  # stop the Ray processes this driver started (ray.shutdown is an exit function)
        atexit._run_exitfuncs()
    _exit_now(exit_code(signum), signum, None)


def _raise_interrupt(signum, frame):
    resent, _sigint["resent"] = _sigint["resent"], False
    _sigint["seen"] = True
    _sigint["signum"] = signum
    if _numba_compiling():
        # a KeyboardInterrupt raised inside numba's compiler surfaces in a ctypes callback as an
        # "Exception ignored" traceback and leaves numba unusable: ask again once it is done. A
        # cold compile can take a minute (solve_sample.py's kernels: about 65 s on a fresh clone),
        # so the user is told, and a second signal quits at once.
        if _sigint["waiting"] and not resent:
            _quit_during_compile(signum)
        if not _sigint["waiting"]:
            _sigint["waiting"] = True
            sys.stderr.write(f"{_press(signum)} during a numba compile: stopping when it ends "
                             f"(seconds; up to a minute on a first run; {_press(signum)} again quits at once, "
                             "saving nothing more)\n")
            sys.stderr.flush()
        threading.Timer(0.05, _ask_again, (signum,)).start()
        return
    _sigint["waiting"] = False
    raise KeyboardInterrupt


def handle_interrupts() -> None:
    """From here on Ctrl-C and SIGTERM raise ``KeyboardInterrupt`` (caught by the script's
    ``main``: one line, exit :func:`interrupt_exit_code`) and are remembered (see
    :func:`is_interrupt`). Only in a script run as a program: a caller's own handler (a test
    runner's) is left alone."""
    if signal.getsignal(signal.SIGINT) is _interrupted_during_startup:
        for s in INTERRUPT_SIGNALS:
            signal.signal(s, _raise_interrupt)


def is_program() -> bool:
    """Whether this process is a script run as a program (:func:`install_startup_interrupt` put
    its handler in, or :func:`handle_interrupts` took over from it), not a caller's session."""
    return signal.getsignal(signal.SIGINT) in (_interrupted_during_startup, _raise_interrupt)


def leaves_process_as_found(main):
    """Decorator of every script's ``main``: called in-process (a notebook, a test), it leaves the
    process as it found it when it returns or raises (signal handlers, environment variables, working
    directory, warnings filters, torch's and numba's thread counts: :mod:`splitpoker.agents.process_state`);
    a finished training run no longer leaves Ctrl-C ignored for the rest of a notebook session. Run as
    a program (:func:`install_startup_interrupt` came first) the process ends after ``main``, and
    :func:`finished` owns the handlers from there, so nothing is put back."""
    from splitpoker.agents.process_state import preserved

    @functools.wraps(main)
    def wrapper(*args, **kwargs):
        if is_program():  # the process ends after main
            try:
                code = main(*args, **kwargs)
                sys.stdout.flush()  # a failed write of the output surfaces here, not in the interpreter's exit
                return code
            except OSError as e:
                return output_failed(e)
        with preserved():
            return main(*args, **kwargs)

    return wrapper


def interrupt_exit_code() -> int:
    """130 after a Ctrl-C (or a ``KeyboardInterrupt`` raised by hand), 143 after a SIGTERM."""
    return exit_code(_sigint["signum"])


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C, or an error raised after one: a ``KeyboardInterrupt`` that
    lands inside numba's compiler can resurface as an unrelated error (seen: ``RuntimeError: no
    compiled object yet``); it still means the user pressed Ctrl-C."""
    return isinstance(exc, KeyboardInterrupt) or (_sigint["seen"] and isinstance(exc, Exception))


def interrupted(what: str = "") -> int:
    """Print the one-line interrupt message and return the exit code (130 Ctrl-C, 143 SIGTERM)."""
    print(f"interrupted{_name(_sigint['signum'])}{': ' + what if what else ''}", file=sys.stderr)
    return interrupt_exit_code()


def run_interruptible(run, args, on_interrupt: str = "") -> int:
    """``run(args)`` with Ctrl-C handled (see :func:`handle_interrupts`): an interrupt, or an
    error it caused inside numba, prints ``interrupted: <on_interrupt>`` and returns 130 (143
    after a SIGTERM); any other exception propagates."""
    handle_interrupts()
    try:
        return run(args)
    except BaseException as e:
        if not is_interrupt(e):
            raise
        signum = getattr(e, "signum", None)  # training's own handler took it (TrainingInterrupted)
        if isinstance(signum, int):
            _sigint["signum"] = signum  # SIGTERM exits 143 there too, and the line says what was saved
            print(f"{e}{'; ' + on_interrupt if on_interrupt else ''}", file=sys.stderr)
            return interrupt_exit_code()
        return interrupted(on_interrupt)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def seed(text: str) -> int:
    """argparse type: a seed ``0 .. 2**63 - 1``."""
    value = _int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"{text}: expected an integer 0..2**63-1 (the deal keeps 63 bits of the seed, so this value would "
            f"deal the same cards as another seed)")
    return value


def count(lo: int, hi: int, why: str):
    """argparse type: an integer ``lo .. hi``; ``why`` explains the upper bound."""

    def parse(text: str) -> int:
        value = _int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text}: expected an integer {lo:,}..{hi:,} ({why})")
        return value

    parse.__name__ = "count"
    return parse


def positive_float(hi: float, why: str):
    """argparse type: a finite float ``0 < x <= hi``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(value) and 0 < value <= hi):
            raise argparse.ArgumentTypeError(f"{text}: expected a number > 0 and <= {hi:g} ({why})")
        return value

    parse.__name__ = "number"
    return parse


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A script's argument parser: its module docstring, verbatim, as the ``--help`` text."""
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def add_game(p: argparse.ArgumentParser, style_help: str = "house-way style", rules: bool = True) -> None:
    """``--game`` (required), ``--style`` (a house-way style, default the game's first) and, with
    ``rules``, ``--rules`` (JSON of ranking options): what :func:`game_from_args` reads."""
    from splitpoker.envs.rules.house_ways.registry import STYLES

    p.add_argument("--game", required=True, choices=["asia", "paigow"], help="the game")
    p.add_argument("--style", choices=STYLES, help=f"{style_help} (default: asia-000 / paigow-igw)")
    if rules:
        p.add_argument("--rules", default="{}", help="JSON of rules options (e.g. '{\"commission\": 0}')")


def add_seed(p: argparse.ArgumentParser, of: str) -> None:
    """``--seed`` (default 0), checked by :func:`seed`; ``of`` says what it seeds."""
    p.add_argument("--seed", type=seed, default=0, help=f"seed of {of}, 0..2**63-1 (default 0)")


def game_from_args(args):
    """The :class:`splitpoker.envs.rules.game.Game` of ``args.game``, ``args.style`` and the JSON text
    ``args.rules`` (see :func:`add_game`); ValueError/TypeError naming the bad value."""
    from splitpoker.envs.rules.game import Game
    from splitpoker.envs.rules.games.spec import rules_from_json

    return Game(args.game, args.style, rules_from_json(args.game, args.rules))


def json_object(what: str):
    """argparse type: a JSON object (returned as a ``dict``); ``what`` says what its keys are
    (e.g. ``"config overrides"``). argparse names the flag in the error."""

    def parse(text: str) -> dict:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise argparse.ArgumentTypeError(f"{text!r} is not JSON ({e})") from None
        if not isinstance(value, dict):
            raise argparse.ArgumentTypeError(f"{text!r}: expected a JSON object of {what}, e.g. '{{}}'")
        return value

    parse.__name__ = "JSON object"
    return parse


def env_of_models(configs, env_id: str | None, env_kwargs: dict) -> tuple[str | None, dict]:
    """The environment to evaluate saved models in. ``configs`` holds ``(path, config)`` per model
    (``config`` has ``env_id`` and ``resolved_env_kwargs``, or is ``None`` for a model saved
    without one). The id is ``env_id`` (``--env``) if given, else the first model's; every model
    must have been trained on it (ValueError naming the model otherwise). The keywords are the
    models' training keywords, the earlier model's winning, overridden by ``env_kwargs``
    (``--env-kwargs``). Returns ``(env_id or None, keywords)``; ``env_kwargs`` is not modified."""
    kwargs = dict(env_kwargs)
    for path, cfg in configs:
        if cfg is None:
            continue
        if env_id is None:
            env_id = cfg.env_id
        elif env_id != cfg.env_id:
            raise ValueError(f"model {path} was trained on {cfg.env_id}, not {env_id}")
        kwargs = {**cfg.resolved_env_kwargs, **kwargs}
    return env_id, kwargs


def check_output(flag: str, path: str | os.PathLike, suffixes: tuple[str, ...] | None = None) -> Path:
    """Refuse, before any work, an output path that could not be written: a missing or
    unwritable folder, an existing directory, a wrong extension. Raises :class:`CliError`."""
    p = Path(path)
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise CliError(f"{flag} {path}: expected a file ending in {' or '.join(suffixes)}")
    if p.is_dir():
        raise CliError(f"{flag} {path}: is a directory, expected a file name")
    folder = p.parent
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise CliError(f"{flag} {path}: the folder {folder} {what} (create it first)")
    _probe(flag, path, folder)
    return p


def _probe(flag: str, path, folder: Path) -> None:
    try:  # the only sure test (permissions, read-only mounts, quotas): create and drop a file there
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".splitpoker.", suffix=".probe"):
            pass
    except OSError as e:
        raise CliError(f"{flag} {path}: cannot write in the folder {folder} ({e.strerror or e})") from None


def check_output_dir(flag: str, path: str | os.PathLike, default: bool = False) -> Path:
    """Refuse, before any work, an output folder that could not be used: a file, a folder this
    process cannot write, or (unless ``default``: the script's own default path, made with its
    parents) a new folder whose parent does not exist. Raises :class:`CliError`; creates nothing."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise CliError(f"{flag} {path}: is a file, expected a folder")
    if p.is_dir():
        _probe(flag, path, p)
        return p
    folder = p.parent
    if default:  # the nearest existing parent must be a writable folder
        while not folder.exists() and folder.parent != folder:
            folder = folder.parent
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise CliError(f"{flag} {path}: the folder {folder} {what} (create it first)")
    _probe(flag, path, folder)
    return p


def make_output_dir(path: str | os.PathLike) -> Path:
    """The output folder checked by :func:`check_output_dir`, created (alone, not its parents) once
    the work is done."""
    p = Path(path)
    p.mkdir(exist_ok=True)
    return p


def refuse_output(flag: str, path: str | os.PathLike | None, suffixes: tuple[str, ...] | None = None) -> int:
    """:func:`check_output` for a script's ``main``: 0 when ``path`` is None or writable, else
    print ``error: ...`` to stderr and return the exit code 2."""
    if path is None:
        return 0
    try:
        check_output(flag, path, suffixes)
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def refuse_output_dir(flag: str, path: str | os.PathLike, default: bool = False) -> int:
    """:func:`check_output_dir` for a script's ``main``: 0 when usable, else print ``error: ...``
    and return the exit code 2."""
    try:
        check_output_dir(flag, path, default)
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def report_json(result: Any, out: str | os.PathLike | None) -> None:
    """Print ``result`` as strict JSON and, with ``out``, also write it there atomically (a
    measuring script's last step; check ``out`` with :func:`check_output` before the work)."""
    if out:
        write_json(out, result)
    print(dumps(result))


def run_measurement(out: str | os.PathLike | None, measure) -> int:
    """A measuring script's ``main`` after parsing: refuse an unwritable ``--out`` before the
    work, run ``measure(log)`` (``log`` prints to stderr) with Ctrl-C handled (exit 130, nothing
    written), then print the result as JSON and write it to ``out``."""
    if refuse_output("--out", out, (".json",)):
        return 2

    def run(_) -> int:
        report_json(measure(lambda m: print(m, file=sys.stderr, flush=True)), out)
        return 0

    return run_interruptible(run, None, "nothing written")
