"""Native batched environments: N games of one splitpoker id stepped by one numba call.

``gym.make_vec("splitpoker/AsiaPokerSetting-v0", num_envs=256, vectorization_mode="vector_entry_point")``
(or ``AsiaPokerVectorEnv(256, ...)`` directly) gives a :class:`gymnasium.vector.VectorEnv` whose
``step`` deals, ranks the settings, runs the dealer's house way, settles, fills observations and
masks for all N sub-environments in :func:`splitpoker.envs.vector.kernels.advance_range` (numba, GIL released;
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
from splitpoker.envs.base import Phase, SplitHandEnv
from splitpoker.envs.pai_gow_poker import PaiGowPokerEnv, PaiGowPokerSettingEnv
from splitpoker.envs.rules.play.rounds_batch import new_scratch
from splitpoker.envs.rules.play.seed_stream import generator_from_state, states_from_generators
from splitpoker.envs.vector import kernels as K
from splitpoker.envs.vector.threads import BlockPool

_MODES = {AutoresetMode.NEXT_STEP: K.NEXT_STEP, AutoresetMode.SAME_STEP: K.SAME_STEP, AutoresetMode.DISABLED: K.DISABLED}
_PHASE_NAMES = np.array(["bet", "set", "done"], dtype=object)
_OUTCOME_KEYS = ("setting", "fouled", "hands_won", "main_result", "main_chips", "bonus_chips", "bonus_line",
                 "net_chips", "dealer_cards", "dealer_setting", "agrees_with_house_way", "main_wager", "bonus_wager",
                 "house_way_action")

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
    sub-environment's episode with reward ``-invalid_action_penalty`` and
    ``info["invalid_action"]``, ``info["reason"]``. ``"raise"``: any masked action raises
    ``ValueError`` naming the sub-environment, the action and the phase, before any
    sub-environment moves.

    ## Observation Space
    ``Box(0, 1, (num_envs, D), float32)``: row ``i`` is sub-environment ``i``'s observation in
    the layout of :mod:`splitpoker.envs.observation` (``single_observation_space``; D = 202, or more with
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

    Episodes never truncate. ``info`` holds arrays over sub-environments, each with a boolean
    ``info["_key"]`` saying which rows carry it (Gymnasium's vector convention):
    ``action_mask``, ``phase`` (``"bet"``/``"set"``/``"done"``) on every row; ``cards`` (the
    seven card integers, ``splitpoker.envs.rules.cards.format_cards`` gives the single env's text) and
    ``house_way_setting`` once the cards are dealt; on a settled round ``setting``,
    ``fouled``, ``hands_won``, ``main_result``, ``main_chips``, ``bonus_chips``,
    ``bonus_line`` (pay-line key, ``""`` if none pays), ``net_chips``, ``dealer_cards`` (integers, first
    dealer hand), ``dealer_setting``, ``agrees_with_house_way``, ``main_wager``,
    ``bonus_wager``, ``house_way_action``; on a penalised action ``invalid_action``,
    ``reason``, ``net_chips``.

    ## Arguments
    ``gym.make_vec("{env_id}", num_envs=N, vectorization_mode="vector_entry_point",
    autoreset_mode=AutoresetMode.NEXT_STEP, num_threads=None, **fields)`` or ``{cls}(num_envs,
    config=None, autoreset_mode=..., num_threads=None, **fields)``: the config and every keyword
    of the single environment (``house_way``, ``rules``, ``dealer_samples``,
    ``observe_settings``, bet levels, bonus table, ``allow_house_way_action``,
    ``invalid_action``, ...). ``num_envs`` must be a positive integer. ``num_threads``: threads
    per step, each stepping a contiguous block of sub-environments (the numba kernels release the
    GIL; the env keeps ``num_threads - 1`` worker threads, shut down by ``close()``). ``None``
    (default): one thread per {min_block} sub-environments, at most one per usable CPU
    (``os.sched_getaffinity``), so a few environments step in the calling thread alone and 256
    or more use every core; an integer ``1..64`` fixes it. Results do not depend on it (a test
    steps 1, 2 and 3 threads side by side). ``render_mode`` is not supported
    (render a single env instead).

    ## Version History
    * v0: initial release (numba batch step; penalised invalid actions as described above).
    """


#: environments per thread under ``num_threads=None``: below this a second thread's hand-off
#: (tens of microseconds) costs more than the block it takes (docs/benchmarks.md, vector section)
MIN_ENVS_PER_THREAD = 128
#: the largest explicit ``num_threads``
MAX_THREADS = 64


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
    if isinstance(num_threads, (bool, np.bool_)) or not isinstance(num_threads, (int, np.integer)) \
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
                 num_threads: int | None = None, render_mode: str | None = None, **overrides):
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: expected a positive integer (the number of sub-environments)")
        self.num_threads = resolve_num_threads(num_threads, num_envs)
        self._pool = BlockPool(self.num_threads)
        if render_mode is not None:
            raise ValueError(f"render_mode={render_mode!r}: the vector environment does not render; "
                             f"expected None (render a single {self.single_env_cls.__name__} instead)")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(f"autoreset_mode={autoreset_mode!r}: expected one of "
                             f"{[m.value for m in AutoresetMode]} (gymnasium.vector.AutoresetMode)") from None
        proto = self.single_env_cls(config, **overrides)  # validates the config exactly as the single env does
        self._proto = proto
        self.config = proto.config
        self.num_envs = int(num_envs)
        self.autoreset_mode = mode
        self._mode = _MODES[mode]
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.single_action_space = proto.action_space
        self.single_observation_space = proto.observation_space
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, proto.action_space.n, dtype=np.int64))
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.num_envs, proto.obs_size), dtype=np.float32)
        self.n_actions = int(proto.action_space.n)
        self.n_bet_actions = proto.n_bet_actions
        self.setting_offset = proto.setting_offset
        self.n_settings = proto.n_settings
        self.house_way_action = proto.house_way_action
        self.bet_table = proto.bet_table
        self._asia = isinstance(proto, AsiaPokerEnv)
        table = proto.game.bonus_paytable
        self._paytable = table
        self._line_of_code = table.line_of_code if table is not None else np.full(1, -1, np.int8)
        self._line_odds = np.array([ln.odds for ln in table.lines], dtype=np.float64) if table is not None else np.zeros(1)
        # the pay line's key per line index, "" for none (index -1)
        self._line_keys = np.array([ln.key for ln in table.lines] + [""], dtype=object) if table is not None else np.array([""], dtype=object)
        self._max_payout = float(table.max_payout) if table is not None and table.max_payout is not None else np.inf
        self._bet_main = np.array([a for a, _ in self.bet_table] or [0.0], dtype=np.float64)
        self._bet_bonus = np.array([b for _, b in self.bet_table] or [0.0], dtype=np.float64)
        n, k, s, w = self.num_envs, proto._n_dealers, proto.n_settings, proto.ranks_width
        self._streams = np.zeros((n, 4), dtype=np.uint64)
        self._seeded = False
        self.player = np.zeros((n, 7), dtype=np.int64)
        self.dealers = np.zeros((n, k, 7), dtype=np.int64)
        self.ranks = np.zeros((n, s, w), dtype=np.int64)
        self.fouled = np.zeros((n, s), dtype=np.bool_)
        self.house_way_setting = np.zeros(n, dtype=np.int64)
        self.phase = np.full(n, K.DONE, dtype=np.int8)
        self.main_wager = np.zeros(n, dtype=np.float64)
        self.bonus_wager = np.zeros(n, dtype=np.float64)
        self._mask = np.zeros((n, self.n_actions), dtype=np.bool_)
        self._dealer_settings = np.zeros((n, k), dtype=np.int64)
        self._dealer_won = np.zeros((n, k), dtype=np.int64)
        self._scratch = new_scratch(n)
        self._obs_size = proto.obs_size
        self._features = proto._setting_features  # None unless setting_features=True (filled in Python)
        self._features_start = proto.setting_features_start
        self._reset_called = False
        self._no_actions = np.zeros(n, dtype=np.int64)  # the kernel's unused argument when resetting
        self._no_which = np.zeros(n, dtype=np.bool_)  # ... and when stepping

    # ---- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
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
        out = _Outputs(self.num_envs, self._obs_size, False)  # every row written from the state
        self._run(K.advance_range, True, which, self._no_actions, self._game(), self._state(), out.as_tuple())
        obs = out.obs
        self._fill_setting_features(obs)
        self._reset_called = True
        return obs, self._base_info()

    def step(self, actions):
        if not self._reset_called:
            raise RuntimeError("step() before reset(): call reset() first")
        a = self._check_actions(actions)
        n = self.num_envs
        bad, why = K.first_refused(a, self._mask, self.phase, self.n_actions, self.config.invalid_action == "raise",
                                   self._mode)
        if bad >= 0:
            raise ValueError(self._refusal(int(bad), int(why), actions))
        out = _Outputs(n, self._obs_size, self._mode == K.SAME_STEP)
        obs, final_obs = out.obs, out.final_obs
        before = (self.ranks.copy(), self.fouled.copy()) if self._features is not None else None
        self._run(K.advance_range, False, self._no_which, a, self._game(), self._state(), out.as_tuple())
        if before is not None:
            self._fill_setting_features(obs)
            if self._mode == K.SAME_STEP and out.terminated.any():
                # a finished round's final observation shows that round's settings (phase done)
                done = out.terminated
                block = np.empty((int(done.sum()), obs.shape[1] - self._features_start), dtype=np.float32)
                self._features.fill_batch(before[0][done], before[1][done], np.ones(len(block), dtype=bool), block)
                final_obs[done, self._features_start:] = block
        self._last = out
        info = self._base_info()
        outcome = self._outcome_info(out, a)
        if self._mode == K.SAME_STEP:
            done = out.terminated
            if done.any():
                final = dict(outcome)
                final.update(self._final_base_info(done))
                final_objs = np.full(n, None, dtype=object)
                for i in np.flatnonzero(done):
                    final_objs[i] = final_obs[i]
                info["final_obs"] = final_objs
                info["_final_obs"] = done.copy()
                info["final_info"] = final
                info["_final_info"] = done.copy()
        else:
            info.update(outcome)
        return obs, out.reward, out.terminated, np.zeros(n, dtype=np.bool_), info  # obs: fresh, never written again

    def _fill_setting_features(self, obs: np.ndarray) -> None:
        """The ``setting_features`` block of every row (numpy, after the kernel): the settings'
        feature rows, all zero in the bet phase, as the single environment fills them."""
        if self._features is not None:
            self._features.fill_batch(self.ranks, self.fouled, self.phase != K.BET, obs[:, self._features_start:])

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, A]``: the legal actions of every sub-environment (MaskablePPO's protocol)."""
        return self._mask.copy()

    def close_extras(self, **kwargs):
        self._pool.close()
        self._proto.close()

    # ---- helpers for users ---------------------------------------------------------------
    def sample_legal_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per sub-environment (any action for a finished one), drawn in
        numba from one 63-bit seed taken from ``rng`` (default: the env's ``np_random``)."""
        rng = self.np_random if rng is None else rng
        out = np.empty(self.num_envs, dtype=np.int64)
        K.sample_legal(self._mask, np.uint64(rng.integers(0, 2**63 - 1)), out)
        return out

    def sub_env_np_random(self, i: int) -> np.random.Generator:
        """A copy of sub-environment ``i``'s ``np_random`` at its current point: what a single
        environment in the same state would hold."""
        if not 0 <= int(i) < self.num_envs:
            raise IndexError(f"sub-environment {i!r} out of range: expected 0..{self.num_envs - 1}")
        return generator_from_state(self._streams[int(i)])

    # ---- internals -----------------------------------------------------------------------
    def _game(self) -> tuple:
        """The ``game`` tuple of the kernels (:data:`splitpoker.envs.vector.kernels.GAME_FIELDS`)."""
        game = getattr(self, "_game_tuple", None)
        if game is None:
            p = self._proto
            cfg = self.config
            game = (bool(self._asia), np.int64(p.game.style_id), p.game.rank_table, p.game.to_two,
                    float(cfg.rules.commission) if not self._asia else 0.0, bool(p.betting),
                    float(p.config.fixed_wager) if not p.betting else 0.0, self._bet_main, self._bet_bonus,
                    np.int64(p.n_bet_actions), np.int64(p.setting_offset), np.int64(p.n_settings),
                    np.int64(-1 if p.house_way_action is None else p.house_way_action), bool(cfg.mask_fouls),
                    bool(cfg.observe_settings), p._value_scale, float(p._main_max), float(p._bonus_max or 0.0),
                    float(cfg.unit), float(cfg.invalid_action_penalty), p.game.bonus_categories,
                    self._line_of_code, self._line_odds, float(self._max_payout), np.int64(self._mode),
                    bool(cfg.observe_settings or self._features is not None))
            assert len(game) == len(K.GAME_FIELDS)
            self._game_tuple = game
        return game

    def _state(self) -> tuple:
        return (self._streams, self.player, self.dealers, self.ranks, self.fouled, self.house_way_setting, self.phase,
                self.main_wager, self.bonus_wager, self._mask, self._dealer_settings, self._dealer_won, self._scratch)

    def _run(self, kernel, *args) -> None:
        """``kernel(lo, hi, *args)`` over all sub-environments: in the calling thread, or split
        into ``num_threads`` contiguous blocks, the first in the calling thread and the others on
        the env's worker threads (:mod:`splitpoker.envs.vector.threads`; the kernels release the GIL and
        touch disjoint rows)."""
        self._pool.run(kernel, self.num_envs, *args)

    def _check_actions(self, actions) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            flat = arr.reshape(-1)
            first = f": sub-environment 0's action is {flat[0].item()!r}" if arr.ndim == 1 and flat.size else ""
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
        return f"action {a} of sub-environment {i} is illegal in phase {phase}: {self._why_illegal(i, a)}"

    def _why_illegal(self, i: int, a: int) -> str:
        if self.phase[i] == K.BET:
            return f"the bet phase takes actions 0..{self.n_bet_actions - 1} (ante level x bonus level)"
        if a < self.setting_offset:
            return (f"bets are over; the set phase takes settings {self.setting_offset}.."
                    f"{self.setting_offset + self.n_settings - 1}")
        s = a - self.setting_offset
        return f"setting {s} is fouled ({self._proto._describe(self.player[i], s)}); mask_fouls=True masks it"

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
                if s is not None and (isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 0):
                    raise ValueError(f"seed {s!r} of sub-environment {i}: expected a non-negative integer or None")
            return [None if s is None else int(s) for s in seeds]
        raise TypeError(f"seed={seed!r}: expected None, a non-negative integer or a list of {n} of them")

    def _seed_streams(self, seeds, which) -> None:
        fresh = [i for i in range(self.num_envs) if which[i] and (seeds[i] is not None or not self._seeded)]
        if fresh:
            gens = [seeding.np_random(seeds[i])[0] for i in fresh]
            self._streams[fresh] = states_from_generators(gens)
        self._seeded = True

    def _base_info(self) -> dict[str, Any]:
        n = self.num_envs
        dealt = self.phase != K.BET
        everyone = np.ones(n, dtype=np.bool_)
        return {"action_mask": self._mask.copy(), "_action_mask": everyone,
                "phase": _PHASE_NAMES.take(self.phase), "_phase": everyone.copy(),
                "cards": self.player.copy(), "_cards": dealt,
                "house_way_setting": self.house_way_setting.copy(), "_house_way_setting": dealt.copy()}

    def _final_base_info(self, done) -> dict[str, Any]:
        """Base info of the finished rounds (SAME_STEP; the state already holds the next round)."""
        n = self.num_envs
        out = self._last
        return {"action_mask": np.ones((n, self.n_actions), dtype=np.bool_), "_action_mask": done.copy(),
                "phase": np.where(done, "done", "").astype(object), "_phase": done.copy(),
                "cards": out.cards, "_cards": done.copy(),
                "house_way_setting": out.house_way, "_house_way_setting": done.copy()}

    def _outcome_info(self, out: _Outputs, actions) -> dict[str, Any]:
        settled = out.kind == K.KIND_SETTLED
        invalid = out.kind == K.KIND_INVALID
        info: dict[str, Any] = {}
        if np.count_nonzero(settled):  # (count_nonzero: a fraction of .any()'s call cost)
            values = {"setting": out.setting, "fouled": out.fouled, "hands_won": out.hands_won,
                      "main_result": out.main_result, "main_chips": out.main_chips, "bonus_chips": out.bonus_chips,
                      "bonus_line": self._line_keys.take(out.bonus_line), "net_chips": out.net_chips,
                      "dealer_cards": out.dealer_cards, "dealer_setting": out.dealer_setting,
                      "agrees_with_house_way": out.setting == out.house_way, "main_wager": out.main_wager,
                      "bonus_wager": out.bonus_wager,
                      "house_way_action": (actions == self.house_way_action) if self.house_way_action is not None
                      else np.zeros(self.num_envs, dtype=np.bool_)}
            for k in _OUTCOME_KEYS:  # one shared row mask: Gymnasium's "_key" arrays, read-only by convention
                info[k] = values[k]
                info[f"_{k}"] = settled
        if np.count_nonzero(invalid):
            reasons = np.full(self.num_envs, "", dtype=object)
            for i in np.flatnonzero(invalid):
                reasons[i] = self._why_illegal_reason(int(out.reason[i]), int(actions[i]))
            info["invalid_action"] = np.where(invalid, actions, -1)
            info["_invalid_action"] = invalid
            info["reason"] = reasons
            info["_reason"] = invalid.copy()
            ended = settled | invalid
            for k, v in (("net_chips", out.net_chips), ("main_wager", out.main_wager), ("bonus_wager", out.bonus_wager)):
                info[k] = v
                info[f"_{k}"] = ended
        return info

    def _why_illegal_reason(self, reason: int, a: int) -> str:
        if reason == K.REASON_BET_PHASE:
            return f"the bet phase takes actions 0..{self.n_bet_actions - 1} (ante level x bonus level)"
        return (f"bets are over; the set phase takes settings {self.setting_offset}.."
                f"{self.setting_offset + self.n_settings - 1}")


class _Outputs:
    """Per-step output arrays of the kernel (:data:`splitpoker.envs.vector.kernels.OUT_FIELDS`): a few fresh
    blocks per step (rows are contiguous views), so infos can hold views safely. ``obs`` and, with
    ``same_step``, ``final_obs`` are the two halves of one block (the kernel's ``obs_rows``);
    ``terminated`` and ``fouled`` are boolean views of the int8 ``flags`` rows the kernel writes."""

    def __init__(self, n: int, obs_size: int, same_step: bool):
        rows = np.empty((2 * n if same_step else n, obs_size), dtype=np.float32)
        self.obs, self.final_obs = rows[:n], rows[n:]
        floats = np.zeros((7, n), dtype=np.float64)
        (self.reward, self.main_result, self.main_chips, self.bonus_chips, self.net_chips, self.main_wager,
         self.bonus_wager) = floats
        ints = np.zeros((5, n), dtype=np.int64)
        self.setting, self.hands_won, self.bonus_line, self.dealer_setting, self.house_way = ints
        cards = np.zeros((2, n, 7), dtype=np.int64)
        self.cards, self.dealer_cards = cards
        flags = np.zeros((4, n), dtype=np.int8)
        self.terminated, self.fouled = flags[:2].view(np.bool_)
        self.kind, self.reason = flags[2], flags[3]
        self.fields = (rows, np.int64(n if same_step else -1), floats, ints, cards, flags)  # K.OUT_FIELDS

    def as_tuple(self) -> tuple:
        return self.fields


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
