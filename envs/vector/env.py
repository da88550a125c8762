"""Native batched environments: N games of one splitpoker one-round id stepped by one numba call.

The four one-round ids (``AsiaPoker-v0``, ``AsiaPokerSetting-v0``, ``PaiGowPoker-v0``,
``PaiGowPokerSetting-v0``: ``VECTOR_ENTRY_POINTS`` in envs/registration.py) have one; the table and
session ids do not (``gym.make_vec`` in ``"sync"``/``"async"`` mode vectorises them).

``gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=256, vectorization_mode="vector_entry_point")``
(or ``AsiaPokerVectorEnv(256, ...)`` directly) gives a :class:`gymnasium.vector.VectorEnv` whose
``step`` deals, ranks the settings, runs the dealer's house way, settles, fills observations and
masks for all N sub-environments in :func:`splitpoker.envs.rules.play.kernel.advance_range` (numba, GIL released;
with several threads each takes a contiguous block of environments). Python only checks the
actions and wraps arrays.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from splitpoker.envs.asia_poker import AsiaPokerEnv, AsiaPokerSettingEnv
from splitpoker.envs.base import SplitHandEnv, _config, env_layout, round_options
from splitpoker.envs.info import check_info_text
from splitpoker.envs.pai_gow_poker import PaiGowPokerEnv, PaiGowPokerSettingEnv
from splitpoker.envs.rules.checks import check_fits_in_memory, is_integer
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.round_rows import RoundRows
from splitpoker.envs.rules.play.seed_stream import (
    ROUND_SEED_BOUND,
    generator_from_state,
    states_from_generators,
)
from splitpoker.envs.setting_features import SettingFeatures
from splitpoker.envs.vector.info import VectorInfo
from splitpoker.envs.vector.sampling import sample_legal
from splitpoker.envs.vector.threads import BlockPool

_MODES = {AutoresetMode.NEXT_STEP: K.NEXT_STEP, AutoresetMode.SAME_STEP: K.SAME_STEP, AutoresetMode.DISABLED: K.DISABLED}

_MANUAL = """

    ## Description
    ``num_envs`` independent games of :class:`{single}` (same rules, options, observation,
    actions, rewards and masks: see its manual), stepped together by one numba call per
    ``step``. Sub-environment ``i`` of ``reset(seed=s)`` deals, episode after episode, exactly what
    ``gym.make("{env_id}", **same_kwargs)`` deals after ``reset(seed=s + i)`` (Gymnasium's
    vector seeding, as ``SyncVectorEnv``): each sub-environment keeps its own ``np_random``
    stream (PCG64, advanced in numba by :mod:`splitpoker.envs.rules.play.seed_stream`) and draws one round seed per
    episode from it, as the single environment does. ``reset(seed=[s0, s1, ...])`` seeds each
    one; ``reset()`` without a seed continues the streams (first call: fresh entropy).

    ## Action Space
    ``MultiDiscrete([A] * num_envs)`` (``single_action_space = Discrete(A)``, the single env's
    layout). ``step`` takes an integer array of shape ``(num_envs,)``; any other shape or dtype
    raises ``ValueError``/``TypeError``, an action outside ``0..A-1`` raises ``ValueError`` naming
    the sub-environment and the action, and nothing is stepped. ``action_masks()`` returns the
    ``(num_envs, A)`` boolean mask (sb3-contrib's protocol), also in ``info["action_mask"]``.

    Illegal actions follow ``invalid_action``. ``"penalize"``: a fouled setting stepped while
    masked (``mask_fouls=True``) is played as in the real game (a foul: the main wager loses); an
    action of the wrong phase (a bet in the set phase, a setting in the bet phase) ends that
    sub-environment's episode with the single env's reward (``-invalid_action_penalty`` in the
    bet phase; in the set phase every wager placed forfeited and the penalty on top) and
    ``info["invalid_action"]``, ``info["reason"]``. ``"raise"``: any masked action raises
    ``ValueError`` naming the sub-environment, the action and the phase, before any
    sub-environment moves.

    ## Observation Space
    ``Box(0, 1, (num_envs, D), float32)``: row ``i`` is sub-environment ``i``'s observation in
    the layout of :mod:`splitpoker.envs.rules.play.observation` (``single_observation_space``; D = 202, or more with
    ``observe_settings`` and ``setting_features``; the feature block is filled by numpy after the
    kernel, :meth:`splitpoker.envs.setting_features.SettingFeatures.fill_batch`).

    ## Rewards
    ``float64[num_envs]``, the single environment's reward per sub-environment.

    ## Episode End
    Autoreset (``autoreset_mode``, in ``metadata["autoreset_mode"]``):

    * ``NEXT_STEP`` (Gymnasium 1.x's default): the step that ends an episode returns its final
      observation and ``terminated[i] = True``; the *next* ``step`` starts the next round in
      that sub-environment, ignores its action, and returns the new first observation with
      reward 0 and ``terminated[i] = False``. A finished sub-environment's mask is all True
      (Pgx's convention): its next action is ignored, and a masked sampler never sees an empty
      mask.
    * ``SAME_STEP``: the ending step already returns the next round's first observation;
      the final one is in ``info["final_obs"][i]`` and its info in ``info["final_info"]`` (the
      convention of SB3's VecEnvs, used by :mod:`splitpoker.agents.training.sb3_vec`).
    * ``DISABLED``: stepping a finished sub-environment raises; ``reset(options={{"reset_mask":
      mask}})`` restarts the chosen ones.

    Episodes never truncate. ``info`` is what ``gym.make_vec("{env_id}", N,
    vectorization_mode="sync")`` returns (:mod:`splitpoker.envs.vector.info`): every key of the
    single env's ``info`` (:data:`splitpoker.envs.info.ROUND_INFO`, ``action_mask``, ``phase``) as
    an array over sub-environments with the sync env's dtype, at every step (reset, step, autoreset
    step, ``final_info``), each with a boolean ``info["_key"]`` saying which rows carry it
    (Gymnasium's vector convention: every row, so a key that does not apply holds its default,
    ``-1``, ``""``, ``0.0`` or ``False``; after ``reset(options={{"reset_mask": m}})`` the rows
    reset). ``info["invalid_action"] >= 0`` marks the penalised rows, ``info["setting"] >= 0``
    the settled ones. One difference from the sync env: ``cards`` and ``dealer_cards`` are the seven
    card integers (``int64[N, 7]``, ``-1`` where no hand is shown; under the default
    ``info_text=True`` ``_cards`` / ``_dealer_cards`` mark the rows where the hand is shown:
    dealt, settled); ``splitpoker.envs.rules.cards.format_card_rows`` gives the single env's text.
    With ``info_text=False`` every value is a number, as the single env's then (cards included),
    and the info is the sync env's in every key, dtype and mask.

    ## Arguments
    ``gym.make_vec("{env_id}", num_envs=N, vectorization_mode="vector_entry_point",
    autoreset_mode=AutoresetMode.NEXT_STEP, num_threads=None, info_text=True, **fields)`` or
    ``{cls}(num_envs, config=None, autoreset_mode=..., num_threads=None, info_text=True, **fields)``: the config and every keyword
    of the single environment (``house_way``, ``rules``, ``dealer_samples``,
    ``observe_settings``, bet levels, bonus table, ``allow_house_way_action``,
    ``invalid_action``, ...). ``num_envs`` must be a positive integer, and ``num_envs`` rows of
    ``dealer_samples`` dealer hands must fit in the memory available (refused naming both figures:
    ``splitpoker.envs.rules.checks.check_fits_in_memory``). ``num_threads``: threads
    per step, each stepping a contiguous block of sub-environments (the numba kernels release the
    GIL; the env keeps ``num_threads - 1`` worker threads, shut down by ``close()``). ``None``
    (default): one thread per {min_block} sub-environments, at most one per usable CPU
    (``os.sched_getaffinity``), so a few environments step in the calling thread alone and 256
    or more use every core; an integer ``1..64`` fixes it. Results do not depend on it (a test
    steps 1, 2 and 3 threads side by side). ``info_text``: ``True`` (default) text where the single
    env has text (``phase``, ``bonus_line``, ``reason``), ``False`` numbers only (the codes of
    :mod:`splitpoker.envs.info`; tensor libraries such as TorchRL, docs/clients.md).
    ``render_mode`` is not supported (render a single env instead).

    ## Version History
    * v0: initial release (numba batch step; penalised invalid actions as described above).
    * v0, revised in 0.2 (same id; observations, rewards and ends unchanged): ``info`` holds every
      key of the sync vector env at every step, every row marked in ``_key`` (before, a row was
      marked only where the value was live: test ``info["invalid_action"] >= 0`` instead of
      ``info["_invalid_action"]``); ``info_text=False``.
    """


#: environments per thread under ``num_threads=None``: below this a second thread's hand-off
#: (tens of microseconds) costs more than the block it takes (docs/benchmarks/benchmarks.md, vector section)
MIN_ENVS_PER_THREAD = 128
#: the largest explicit ``num_threads``
MAX_THREADS = 64
#: the largest ``num_envs``: each sub-environment holds about 8 KB of state (its scratch block,
#: setting values, observation), so 2**20 of them take about 8 GB
MAX_NUM_ENVS = 1 << 20


def usable_cpus() -> int:
    """CPUs this process may run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_num_threads(num_threads, num_envs: int) -> int:
    """The thread count of a vector env: ``None`` -> one per :data:`MIN_ENVS_PER_THREAD`
    environments, at most :func:`usable_cpus`; an integer 1..:data:`MAX_THREADS` as given (never
    more threads than environments)."""
    if num_threads is None:
        return max(1, min(usable_cpus(), int(num_envs) // MIN_ENVS_PER_THREAD))
    if not is_integer(num_threads) \
            or not 1 <= num_threads <= MAX_THREADS:
        raise ValueError(f"num_threads={num_threads!r}: expected None (automatic: one thread per "
                         f"{MIN_ENVS_PER_THREAD} environments, up to {usable_cpus()} usable CPUs) or an integer "
                         f"1..{MAX_THREADS}")
    return max(1, min(int(num_threads), int(num_envs)))


class SplitHandVectorEnv(VectorEnv):
    """Base class of the native vector environments; see the subclasses' manuals."""

    single_env_cls: type[SplitHandEnv] = None  # set by subclasses
    env_id: str = ""

    def __init__(self, num_envs: int = 1, config=None, *, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 num_threads: int | None = None, render_mode: str | None = None, info_text: bool = True,
                 **overrides):
        if not is_integer(num_envs) or not 1 <= num_envs <= MAX_NUM_ENVS:
            raise ValueError(f"num_envs={num_envs!r}: expected an integer 1..{MAX_NUM_ENVS:,} (the number of "
                             f"sub-environments; each holds about 8 KB of state)")
        if render_mode is not None:
            raise ValueError(f"render_mode={render_mode!r}: the vector environment does not render; "
                             f"expected None (render a single {self.single_env_cls.__name__} instead)")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(f"autoreset_mode={autoreset_mode!r}: expected one of "
                             f"{[m.value for m in AutoresetMode]} (gymnasium.vector.AutoresetMode)") from None
        self.info_text = check_info_text(info_text)
        single = self.single_env_cls
        # the config is validated exactly as the single env validates it
        self.config = cfg = _config(single.config_cls, config, overrides, f"{type(self).__name__}.__init__()")
        self.num_threads = resolve_num_threads(num_threads, num_envs)
        self.num_envs = n = int(num_envs)
        self.autoreset_mode = mode
        self._mode = _MODES[mode]
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.game = cfg.make_game()
        self.layout = lay = env_layout(cfg, single.betting)
        # N rows of the round kernel, each drawing its round seeds from its own stream; Asia's
        # setting values are kept only for their readers (observe_settings, setting_features)
        options = round_options(cfg, lay, mode=self._mode, seed_from_streams=True, keep_ranks=False)
        # each row: its kernel state, and float32 observation rows (the observation space's low
        # and high bounds, the kernel's rows, the observation, the setting features' block
        # computed first when they are on, a copy), checked before any of them is made
        per_row = RoundRows.row_nbytes(self.game, options, lay.n_actions) + 6 * 4 * lay.obs_size
        check_fits_in_memory(f"num_envs={n:,} x dealer_samples={cfg.dealer_samples:,}"
                             + (" with setting_features" if cfg.setting_features else ""), n * per_row,
                             "lower num_envs or dealer_samples")
        self.single_action_space = spaces.Discrete(lay.n_actions)
        self.single_observation_space = spaces.Box(0.0, 1.0, shape=(lay.obs_size,), dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(n, lay.n_actions, dtype=np.int64))
        self.observation_space = spaces.Box(0.0, 1.0, shape=(n, lay.obs_size), dtype=np.float32)
        self.n_actions = lay.n_actions
        self.n_bet_actions = lay.n_bet
        self.setting_offset = lay.offset
        self.n_settings = lay.n_settings
        self.house_way_action = lay.house_way_action
        self.bet_table = list(lay.bet_table)
        self._pool = BlockPool(self.num_threads)  # its threads start once the sizes are known to fit
        self.rows = RoundRows(self.game, n, options, n_actions=lay.n_actions, run=self._pool.run)
        r = self.rows
        self.player, self.dealers, self.ranks, self.fouled = r.player, r.dealers, r.ranks, r.fouled
        self.house_way_setting, self.phase, self.main_wager, self.bonus_wager = (r.house_way, r.phase, r.main_wager,
                                                                                r.bonus_wager)
        self._info = VectorInfo(r, lay.house_way_action, self.info_text)
        self._features = SettingFeatures(self.game.game, self.game.table.class_category) \
            if cfg.setting_features else None
        self._features_start = lay.features_start
        self._seeded = False
        self._reset_called = False
        self._closed = False

    # ---- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        self._check_open("reset")
        which = np.ones(self.num_envs, dtype=np.bool_)
        if options:
            unknown = sorted(set(options) - {"reset_mask"})
            if unknown:
                raise ValueError(f"reset options {unknown} are not supported: expected None or {{'reset_mask': bool array}}")
            which = self._reset_mask(options["reset_mask"])
        seeds = self._seed_list(seed)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            super().reset(seed=int(seed))
        self._seed_streams(seeds, which)
        out = self.rows.reset(which)  # every row's observation written from the state
        obs = self._with_features(out.obs)
        self._reset_called = True
        return obs, self._info.reset(which)

    def step(self, actions):
        self._check_open("step")
        if not self._reset_called:
            raise RuntimeError("step() before reset(): call reset() first")
        a = self._check_actions(actions)
        n = self.num_envs
        bad, why = self.rows.refused(a, self.config.invalid_action == "raise")
        if bad >= 0:
            raise ValueError(self._refusal(bad, why, actions))
        before = (self.ranks.copy(), self.fouled.copy()) if self._features is not None else None
        out = self.rows.step(a)
        obs = self._with_features(out.obs)
        final_obs = out.final_obs
        if before is not None and self._mode == K.SAME_STEP and out.terminated.any():
            # a finished round's final observation shows that round's settings (phase done)
            final_obs = self._with_features(final_obs, before[0], before[1], np.ones(n, dtype=bool))
        info = self._info.same_step(out, a, final_obs) if self._mode == K.SAME_STEP else self._info.step(out, a)
        return obs, out.reward, out.terminated, np.zeros(n, dtype=np.bool_), info  # obs: fresh, never written again

    def _with_features(self, rows: np.ndarray, ranks=None, fouled=None, show=None) -> np.ndarray:
        """The kernel's observation rows with the ``setting_features`` block after them (numpy):
        the settings' feature rows, all zero in the bet phase, as the single environment fills
        them; the rows as they are without the block."""
        if self._features is None:
            return rows
        obs = np.empty((rows.shape[0], self.layout.obs_size), dtype=np.float32)
        obs[:, :self._features_start] = rows
        self._features.fill_batch(self.ranks if ranks is None else ranks, self.fouled if fouled is None else fouled,
                                  self.phase != K.BET if show is None else show, obs[:, self._features_start:])
        return obs

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, A]``: the legal actions of every sub-environment (MaskablePPO's protocol)."""
        return self.rows.mask.copy()

    def close_extras(self, **kwargs):
        self._pool.close()
        self._closed = True

    # ---- helpers for users ---------------------------------------------------------------
    def sample_legal_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per sub-environment (any action for a finished one), drawn in
        numba from one 63-bit seed taken from ``rng`` (default: the env's ``np_random``)."""
        rng = self.np_random if rng is None else rng
        out = np.empty(self.num_envs, dtype=np.int64)
        sample_legal(self.rows.mask, np.uint64(rng.integers(0, ROUND_SEED_BOUND)), out)
        return out

    def sub_env_np_random(self, i: int) -> np.random.Generator:
        """A copy of sub-environment ``i``'s ``np_random`` at its current point: what a single
        environment in the same state would hold."""
        if not 0 <= int(i) < self.num_envs:
            raise IndexError(f"sub-environment {i!r} out of range: expected 0..{self.num_envs - 1}")
        return generator_from_state(self.rows.streams[int(i)])

    # ---- internals -----------------------------------------------------------------------
    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(f"{what}() after close(): this vector env's worker threads are shut down; "
                               f"make a new one")

    def _check_actions(self, actions) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            flat = arr.reshape(-1)
            first = ""
            if arr.ndim == 1 and flat.size:  # an object array holds Python values, a numeric one numpy scalars
                v = flat[0].item() if isinstance(flat[0], np.generic) else flat[0]
                first = f": sub-environment 0's action is {v!r}"
            raise TypeError(f"actions must be integers (one per sub-environment), got dtype {arr.dtype}{first} "
                            f"({np.array2string(flat[:8], threshold=8)}...)")
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions have shape {arr.shape}: expected ({self.num_envs},), one action per sub-environment "
                             f"(got {np.array2string(arr.reshape(-1)[:8], threshold=8)}...)")
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            i = int(np.argmax(arr))
            raise ValueError(f"action {int(arr[i])} of sub-environment {i} out of range: expected 0..{self.n_actions - 1}")
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _refusal(self, i: int, why: int, actions) -> str:
        a = int(np.asarray(actions).reshape(-1)[i])
        phase = Phase(int(self.phase[i])).name
        if why == K.REASON_RANGE:
            return f"action {a} of sub-environment {i} out of range: expected 0..{self.n_actions - 1}"
        if why == K.REASON_DONE:
            return (f"action {a} of sub-environment {i} in phase DONE: its episode is over and autoreset is disabled; "
                    f"call reset(options={{'reset_mask': ...}})")
        return f"action {a} of sub-environment {i} is illegal in phase {phase}: {self.rows.why_illegal(i, a)}"

    def _reset_mask(self, mask) -> np.ndarray:
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({self.num_envs},), got {mask!r}")
        if not mask.any():
            raise ValueError("options['reset_mask'] selects no sub-environment: expected at least one True")
        if not self._reset_called and not mask.all():
            raise ValueError("the first reset() must reset every sub-environment (reset_mask all True or omitted)")
        return mask.copy()

    def _seed_list(self, seed) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            if seed < 0:
                raise ValueError(f"seed={seed!r}: expected a non-negative integer")
            return [int(seed) + i for i in range(n)]
        if isinstance(seed, (list, tuple, np.ndarray)):
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds for {n} sub-environments: expected one per sub-environment")
            for i, s in enumerate(seeds):
                if s is not None and (not is_integer(s) or s < 0):
                    raise ValueError(f"seed {s!r} of sub-environment {i}: expected a non-negative integer or None")
            return [None if s is None else int(s) for s in seeds]
        raise TypeError(f"seed={seed!r}: expected None, a non-negative integer or a list of {n} of them")

    def _seed_streams(self, seeds, which) -> None:
        fresh = [i for i in range(self.num_envs) if which[i] and (seeds[i] is not None or not self._seeded)]
        if fresh:
            gens = [seeding.np_random(seeds[i])[0] for i in fresh]
            self.rows.streams[fresh] = states_from_generators(gens)
        self._seeded = True


def _manual(cls, single, env_id):
    cls.__doc__ = (cls.__doc__ or "") + _MANUAL.format(single=single.__name__, env_id=env_id, cls=cls.__name__,
                                                           min_block=MIN_ENVS_PER_THREAD)
    cls.single_env_cls = single
    cls.env_id = env_id
    return cls


class AsiaPokerVectorEnv(SplitHandVectorEnv):
    """``splitpoker/AsiaPoker-v0`` as a native vector environment (bet, then set)."""


class AsiaPokerSettingVectorEnv(SplitHandVectorEnv):
    """``splitpoker/AsiaPokerSetting-v0`` as a native vector environment (one setting step)."""


class PaiGowPokerVectorEnv(SplitHandVectorEnv):
    """``splitpoker/PaiGowPoker-v0`` as a native vector environment (bet, then set)."""


class PaiGowPokerSettingVectorEnv(SplitHandVectorEnv):
    """``splitpoker/PaiGowPokerSetting-v0`` as a native vector environment (one setting step)."""


_manual(AsiaPokerVectorEnv, AsiaPokerEnv, "splitpoker/AsiaPoker-v0")
_manual(AsiaPokerSettingVectorEnv, AsiaPokerSettingEnv, "splitpoker/AsiaPokerSetting-v0")
_manual(PaiGowPokerVectorEnv, PaiGowPokerEnv, "splitpoker/PaiGowPoker-v0")
_manual(PaiGowPokerSettingVectorEnv, PaiGowPokerSettingEnv, "splitpoker/PaiGowPokerSetting-v0")
