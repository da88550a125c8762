"""Saved training state: finding the newest one, writing it atomically, and stopping on a signal.

A run directory holds up to three kinds of saved model, each a stable-baselines3 zip whose
``data`` entry records ``num_timesteps``::

    runs/<run>/model.zip                                  final model (+ replay_buffer.pkl, DQN)
    runs/<run>/checkpoints/model_<steps>_steps.zip        periodic checkpoints and interrupt saves
    runs/<run>/checkpoints/model_replay_buffer_<steps>_steps.pkl   DQN: the newest one only

The newest state is the zip with the most steps, read from the zip itself (not its name); a
tie goes to ``model.zip``. Every file is written to a temporary name and renamed into place, so
a kill during a save leaves the previous file intact, never a truncated one.

Saved states are *consistent*: the step count says exactly what the weights (and the replay
buffer) have seen. Checkpoints are therefore taken at the start of a rollout, after the previous
update. On an interrupt, PPO/A2C/MaskablePPO drop the rollout in progress (its steps are not
counted: at most ``n_steps * n_envs`` steps lost) and DQN drops the last vector step, whose
transitions were not yet stored (``n_envs`` steps lost).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

FINAL_MODEL = "model.zip"
FINAL_REPLAY_BUFFER = "replay_buffer.pkl"
CHECKPOINTS = "checkpoints"
_CKPT = re.compile(r"^model_(\d+)_steps\.zip$")
_BUFFER = re.compile(r"^model_replay_buffer_(\d+)_steps\.pkl$")
SIGNAL_EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


def saved_steps(path: str | Path) -> int | None:
    """``num_timesteps`` recorded in a stable-baselines3 zip, or ``None`` if it cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
        steps = data["num_timesteps"]
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    return steps if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0 else None


@dataclass(frozen=True)
class SavedState:
    path: Path
    steps: int
    replay_buffer: Path | None  # the replay buffer saved with this model (off-policy algorithms)

    @property
    def is_final(self) -> bool:
        return self.path.name == FINAL_MODEL


def checkpoint_path(run_dir: Path, steps: int) -> Path:
    return Path(run_dir) / CHECKPOINTS / f"model_{steps}_steps.zip"


def replay_buffer_path(model_path: Path) -> Path:
    """Where the replay buffer of the model saved at ``model_path`` goes."""
    model_path = Path(model_path)
    if model_path.name == FINAL_MODEL:
        return model_path.with_name(FINAL_REPLAY_BUFFER)
    m = _CKPT.match(model_path.name)
    if not m:
        raise ValueError(f"{model_path} is neither {FINAL_MODEL} nor a checkpoint model_<steps>_steps.zip")
    return model_path.with_name(f"model_replay_buffer_{m.group(1)}_steps.pkl")


def saved_states(run_dir: str | Path, warn=None) -> list[SavedState]:
    """Every readable saved model of ``run_dir``, oldest first (ties: checkpoints before the final
    model). Unreadable zips are skipped, with a message to ``warn``."""
    run_dir = Path(run_dir)
    paths = [run_dir / FINAL_MODEL] if (run_dir / FINAL_MODEL).exists() else []
    paths += sorted(p for p in (run_dir / CHECKPOINTS).glob("model_*_steps.zip") if _CKPT.match(p.name))
    out = []
    for p in paths:
        steps = saved_steps(p)
        if steps is None:
            if warn is not None:
                warn(f"skipping {p}: not a readable stable-baselines3 model")
            continue
        buffer = replay_buffer_path(p)
        out.append(SavedState(p, steps, buffer if buffer.exists() else None))
    return sorted(out, key=lambda s: (s.steps, s.is_final))


def damaged_states(run_dir: str | Path) -> list[Path]:
    """The saved models of ``run_dir`` (final model, checkpoints) that cannot be read. Every save is
    atomic (a temporary file, then a rename), so none of these is a save cut off by a crash: a
    resume refuses them rather than skipping and later overwriting them (docs/cli.md, "State
    read back")."""
    run_dir = Path(run_dir)
    paths = [run_dir / FINAL_MODEL] if (run_dir / FINAL_MODEL).exists() else []
    paths += sorted(p for p in (run_dir / CHECKPOINTS).glob("model_*_steps.zip") if _CKPT.match(p.name))
    return [p for p in paths if saved_steps(p) is None]


def newest_state(run_dir: str | Path, warn=None) -> SavedState | None:
    states = saved_states(run_dir, warn)
    return states[-1] if states else None


def _atomic(path: Path, write) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def save_model(model, path: Path) -> None:
    """``model.save`` to ``path`` atomically."""
    _atomic(path, model.save)


def save_replay_buffer(model, path: Path) -> None:
    """``model.save_replay_buffer`` to ``path`` atomically."""
    _atomic(path, model.save_replay_buffer)


def write_text(path: Path, text: str) -> None:
    _atomic(path, lambda f: f.write(text.encode()))


def prune_replay_buffers(run_dir: Path, keep_steps: int) -> None:
    """Delete checkpoint replay buffers older than ``keep_steps`` (they can be hundreds of MB)."""
    for p in (Path(run_dir) / CHECKPOINTS).glob("model_replay_buffer_*_steps.pkl"):
        m = _BUFFER.match(p.name)
        if m and int(m.group(1)) < keep_steps:
            p.unlink(missing_ok=True)


def save_state(model, path: Path, run_dir: Path, with_replay_buffer: bool) -> None:
    """Save the model (and, for off-policy algorithms, its replay buffer first, so a model file
    never exists without the buffer that belongs to it)."""
    if with_replay_buffer:
        save_replay_buffer(model, replay_buffer_path(path))
    save_model(model, path)
    if with_replay_buffer and path.name != FINAL_MODEL:
        prune_replay_buffers(run_dir, saved_steps(path) or 0)


class RunBusy(ValueError):
    """Another process is training the run (it holds :func:`run_lock`)."""


@contextlib.contextmanager
def run_lock(run_dir: Path):
    """Hold ``run_dir`` for one training session: an exclusive ``flock`` on the folder itself
    (no lock file is written; the kernel drops the lock when the process ends, however it ends).
    Raises :class:`RunBusy` at once if another session holds it, naming the holder's pid where
    the system tells it (:func:`lock_holder`). Where ``fcntl`` is missing (Windows) the run is not
    locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    fd = os.open(run_dir, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = lock_holder(run_dir)
            raise RunBusy(f"{run_dir} is being trained by another process{f' (pid {pid})' if pid else ''}: wait for "
                          f"it to end (or stop it), then resume") from None
        yield
    finally:
        os.close(fd)


def lock_holder(path: Path) -> int | None:
    """The pid of the process holding a ``flock`` on ``path``, from Linux's ``/proc/locks`` (a line
    ``1: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF``); ``None`` where that file is
    missing (macOS) or names no holder (a holder in another pid namespace shows as 0 or -1)."""
    try:
        st = os.stat(path)
        key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
        with open("/proc/locks") as f:
            for line in f:
                fields = line.split()
                if "FLOCK" in fields and "->" not in fields and key in fields[1:]:
                    pid = int(fields[fields.index(key) - 1])
                    return pid if pid > 0 else None
    except (OSError, ValueError):
        return None
    return None


class SignalStop:
    """Context manager: the first SIGINT or SIGTERM asks training to stop and save (``signum``
    records it); a second one raises ``KeyboardInterrupt`` at once (abort without saving).
    Handlers are installed only in the main thread and restored on exit."""

    def __init__(self, log=None):
        self.signum: int | None = None
        self._log = log or (lambda m: print(m, file=sys.stderr, flush=True))
        self._previous = {}

    def __enter__(self) -> SignalStop:
        if threading.current_thread() is threading.main_thread():
            for s in SIGNAL_EXIT_CODES:
                self._previous[s] = signal.signal(s, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum
            self._log(f"\n{signal.Signals(signum).name} received: stopping at the next step and saving "
                      f"(send it again to abort without saving)")
            return
        raise KeyboardInterrupt(f"second {signal.Signals(signum).name}: aborted without saving")

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous.clear()


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped on a signal after saving its state (``path``, ``None`` when nothing new
    was learned since the session started). A ``KeyboardInterrupt``, so callers that do not know
    it treat it as the interrupt it is (and ``except Exception`` does not swallow it)."""

    def __init__(self, run_dir: Path, steps: int, path: Path | None, signum: int, discarded: int = 0,
                 complete: bool = False):
        self.run_dir, self.steps, self.path, self.signum = Path(run_dir), steps, path, signum
        self.discarded = discarded  # steps taken after the saved state (the unfinished rollout)
        self.complete = complete  # the signal came after the last step: the run is finished and saved
        name = signal.Signals(signum).name
        where = f"saved {path}" if path is not None else "nothing new to save"
        lost = f" ({discarded:,} steps of the unfinished rollout not kept)" if discarded else ""
        if complete:
            super().__init__(f"interrupted by {name} as training finished: all {steps:,} steps done, {where}")
        else:
            super().__init__(f"interrupted by {name} at {steps:,} steps{lost}: {where}")

    @property
    def exit_code(self) -> int:
        return SIGNAL_EXIT_CODES.get(self.signum, 1)


def session_callback(run_dir: Path, checkpoint_freq: int, stop: SignalStop, off_policy: bool, log=print):
    """The callback that takes consistent checkpoints and stops learning on a signal.

    ``safe_steps`` is the step count the weights (and replay buffer) correspond to: the start of
    the current rollout for on-policy algorithms, the last stored step for off-policy ones.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class SessionCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.start_steps = 0
            self.safe_steps = 0
            self.next_checkpoint = checkpoint_freq
            self.stopped = False

        def _on_training_start(self) -> None:
            self.start_steps = self.safe_steps = self.model.num_timesteps
            self.next_checkpoint = (self.start_steps // checkpoint_freq + 1) * checkpoint_freq

        def _on_rollout_start(self) -> None:
            self.safe_steps = self.model.num_timesteps
            if self.safe_steps >= self.next_checkpoint:
                save_state(self.model, checkpoint_path(run_dir, self.safe_steps), run_dir, off_policy)
                self.next_checkpoint = (self.safe_steps // checkpoint_freq + 1) * checkpoint_freq

        def _on_step(self) -> bool:
            if stop.signum is None:
                return True
            if off_policy:  # this step's transitions are not stored when learning stops here
                self.safe_steps = self.model.num_timesteps - self.training_env.num_envs
            self.stopped = True
            return False

    return SessionCallback()
