"""Asia Poker environments: ``splitpoker/AsiaPoker-v0`` and ``splitpoker/AsiaPokerSetting-v0``."""

from __future__ import annotations

from splitpoker.envs.base import SplitHandEnv
from splitpoker.envs.config import AsiaPokerConfig
from splitpoker.envs.rules.games.asia import N_ASIA_SETTINGS


class AsiaPokerEnv(SplitHandEnv):
    """Asia Poker against a house-way dealer.

    ## Description
    Asia Poker (seeds 000–002) is played with 52 cards and a joker. The player and the dealer get
    seven cards each and set them into a four-card *high*, two-card *medium* and one-card *low*
    hand, which must not descend out of order (high ≥ medium ≥ low, else the setting is *fouled*
    and loses). Each hand meets the dealer's hand of the same size; the player needs two wins of
    three, ties ("copies") go to the dealer, and a win pays even money on the ante. The optional
    bonus wager is paid on the player's seven cards alone (pay table ``seed-000`` by default).
    The dealer always sets by the configured house way (``asia-000`` or ``asia-borgata``).

    ``AsiaPoker-v0`` has two steps: a bet (ante level × bonus level), then the setting.
    ``AsiaPokerSetting-v0`` has one: the ante is fixed (``setting_ante``, no bonus) and the cards
    are dealt at reset.

    ## Action Space
    ``Discrete(n_bet + 105 [+ 1])``, one space for both phases; ``action_masks()`` and
    ``info["action_mask"]`` mark the legal ones.

    ==========================  ==============================================================
    action                       meaning
    ==========================  ==============================================================
    ``0 .. n_bet-1``             (AsiaPoker-v0, bet phase) ``ante_levels[a // n_bonus]`` and
                                 ``bonus_levels[a % n_bonus]``; ``n_bet = n_ante * n_bonus``
                                 (8 × 6 = 48 by default)
    ``n_bet + s``, s in 0..104   (set phase) setting ``s`` of the seven cards sorted ascending:
                                 low card at position ``s // 15``, medium pair the ``s % 15``-th
                                 pair of the remaining positions (see ``envs/rules/games/asia.py``)
    ``n_bet + 105``              (``allow_house_way_action``) "Play the House Way" (seed 000)
    ==========================  ==============================================================

    Every action of the space can be stepped under the default arguments (Gymnasium's contract;
    ``check_env``, plain PPO/A2C/DQN and RL Zoo run unmodified), and the mask marks what a
    maskable algorithm must avoid:

    * a fouled setting (masked while ``mask_fouls=True``) is *played* as in the real game: it is
      a foul and loses the ante (``info["fouled"]`` is True; the bonus is still paid on the seven
      cards, seed 000: "Regardless of whether the Player wins the round, a Bonus wager ... will
      be paid");
    * a wrong-phase action ends the episode with ``info["invalid_action"]`` (the action) and
      ``info["reason"]``: a setting in the bet phase (nothing placed yet) costs
      ``invalid_action_penalty`` units (default 1, one table minimum); a bet action in the set
      phase forfeits every wager placed (ante and bonus) and costs the penalty on top (Rewards).

    ``invalid_action="raise"`` is a debugging option: every masked action (fouled settings
    included) raises ``ValueError`` naming the action and the phase. With ``mask_fouls=False``
    fouled settings are unmasked (and lose the ante). An action outside ``0..n-1``, a
    non-integer, or a step after the episode ended always raises ``ValueError``.

    ## Observation Space
    ``Box(0, 1, (202,), float32)`` (517 with ``observe_settings=True``, + 1,995 with
    ``setting_features=True``), layout in :mod:`splitpoker.envs.rules.play.observation` and :mod:`splitpoker.envs.setting_features`:

    ==========  =====  ====================================================================
    index       size   meaning
    ==========  =====  ====================================================================
    0-52        53     cards held, multi-hot by card integer (rank*4+suit, joker 52)
    53-65       13     rank counts / 4
    66-69       4      suit counts / 7
    70          1      joker held
    71-196      126    the 7 sorted cards, per position a 14-rank one-hot and a 4-suit one-hot
    197-199     3      phase one-hot: bet, set, done
    200         1      ante / ante_max
    201         1      bonus wager / bonus_max
    202-516     315    (``observe_settings``) per setting: high rank / 2534, medium / 90, low / 12
    next        1,995  (``setting_features``) per setting ``s``, a row of 19 at ``start + 19 s``
                       (``start`` = 202, or 517 with ``observe_settings``), table below
    ==========  =====  ====================================================================

    A setting's feature row (``setting_features=True``; for one shared per-setting network,
    :mod:`splitpoker.agents.policies.setting_scorer`; zero in the bet phase):

    ======  ====  ================================================================
    offset  size  meaning
    ======  ====  ================================================================
    0-10    11    high hand category one-hot (``HandCategory`` order)
    11      1     high hand rank class / 2534
    12      1     high hand position within its category (0 weakest .. 1 strongest)
    13      1     medium value / 90
    14      1     medium is a pair
    15-16   2     medium top and second card ranks / 12 (the pair rank twice)
    17      1     low card rank / 12
    18      1     fouled
    ======  ====  ================================================================

    ## Starting State
    Seven random cards for the player and ``dealer_samples`` dealer hands from the other 46, drawn
    from ``np_random`` (``reset(seed=...)``). ``reset(options={"cards": "As Kd 7h 7c 4s 3d 2c"})``
    (text or seven card integers) deals the player those cards instead; the dealer hands come from
    the other 46 as the round's seed deals them, so with the cards a seed deals it is that seed's
    reset. A repeated or bad card, a count other than seven, or another option raises
    ``ValueError`` naming it.

    ## Rewards
    Net chips of the round divided by ``reward_unit`` (default: the table minimum, $5): ante ×
    (+1 if two or three hands won, else −1) plus the bonus (odds × wager, capped at the table's
    maximum payout, or −wager). The bet step returns 0. With ``dealer_samples=K`` the ante part
    is the mean over K independent dealer hands from the 46 unseen cards (same expectation, less
    variance; K=1 is the real game).

    A wrong-phase action: ``-invalid_action_penalty`` in the bet phase; in the set phase
    ``-(ante + bonus) / reward_unit - invalid_action_penalty``: every wager placed is forfeited,
    so it is worse than the worst a played hand can do (``info["net_chips"]`` is the same in
    chips). No policy gains by sending one, even knowing the hand's result (docs/rules.md,
    "Invalid actions").

    ## Episode End
    Terminates after the setting step (or a wrong-phase action: penalised, wagers forfeited).
    Never truncates.
    ``info`` then carries: ``setting``, ``fouled``, ``hands_won``, ``main_result`` (mean per
    unit of ante), ``main_chips``, ``bonus_chips``, ``bonus_line``, ``net_chips``,
    ``dealer_cards``, ``dealer_setting``, ``house_way_setting`` (for the player's cards),
    ``agrees_with_house_way``, ``main_wager``, ``bonus_wager``, ``house_way_action``; every
    step carries ``action_mask`` and ``phase``.

    ## Arguments
    ``gym.make("splitpoker/AsiaPoker-v0", config=AsiaPokerConfig(...) | dict | None,
    render_mode=None | "ansi" | "human" | "rgb_array", info_text=True, **fields)`` — any :class:`splitpoker.envs.config.AsiaPokerConfig`
    field as a keyword (``house_way``, ``rules``, ``bonus_paytable``, ``ante_levels``,
    ``bonus_levels``, ``mask_fouls``, ``allow_house_way_action``, ``dealer_samples``,
    ``invalid_action``, ``reward_unit``, ``observe_settings``, ``setting_features``, …). Every field is validated when
    the config is built; a bad value raises ``ValueError`` naming the field, the value and what
    is allowed (numpy numbers are accepted where numbers are, booleans are not numbers).

    ``info_text=False`` (default ``True``): ``info`` holds numbers only, every value a numpy array
    (0-d for a number): ``phase`` as :class:`~splitpoker.envs.rules.play.kernel.Phase`, ``cards``
    and ``dealer_cards`` as the seven card integers (``-1`` until shown), ``bonus_line`` as the
    pay line's index in ``env.unwrapped.game.bonus_paytable.lines`` (``-1``: none), ``reason`` as
    a :class:`splitpoker.envs.info.Reason` code (``0``: none); the other keys keep their values.
    That is the form tensor libraries stack (TorchRL's ``GymEnv`` + ``ActionMask``:
    docs/clients.md); the table is in :mod:`splitpoker.envs.info`.

    ``env.unwrapped.game`` is the :class:`splitpoker.envs.rules.game.Game` the config describes (house way,
    rules options, bonus pay table; ``config.make_game()``): it deals and settles every round
    (:class:`splitpoker.envs.rules.play.round.Round`, ``env.unwrapped.round``), and policies and solvers read it.

    Render modes: ``"ansi"`` returns the table as text, ``"human"`` prints it, ``"rgb_array"``
    returns a picture of the table (the seven cards, the hands as set, the dealer's hands as set,
    the result) as a ``(450, 800, 3)`` ``uint8`` array, drawn with matplotlib's Agg canvas only
    when ``render()`` is called (``make_vec_env`` and ``RecordVideo`` ask for it).

    ## Version History
    * v0: initial release.
    * v0, revised (same id): default ``invalid_action`` is now ``"penalize"`` so every action of
      the space steps (a masked fouled setting is played and loses the ante; a wrong-phase action
      ends the episode with the penalty); ``"raise"`` stays as a debugging option. Added the
      ``rgb_array`` render mode; config fields are validated when the config is built. The
      opt-in ``setting_features`` block (default off, so default observations are unchanged).
    * v0, revised in 0.2 (same id; observations, rewards and ends unchanged): ``info`` holds the
      same keys at every step, typed, never ``None`` (:mod:`splitpoker.envs.info`); the mask of a
      finished episode is all True (Pgx's convention: a masked sampler never sees an empty mask);
      an unknown keyword raises Python's ``TypeError: ... got an unexpected keyword argument``.
    * v0, revised (same id; legal play unchanged): a wrong-phase action in the set phase forfeits
      every wager placed, with the penalty on top (it cost the penalty alone and the wagers were
      returned, which let an agent that had seen a bad hand take its bet back for one unit).
    * v0, revised in 0.2 (same id): the opt-in ``info_text=False`` (numbers only in ``info``;
      the default unchanged).
    * v0, revised (same id; every other reset unchanged): ``reset(options={"cards": ...})``
      deals the player a given hand.
    """

    config_cls = AsiaPokerConfig
    n_settings = N_ASIA_SETTINGS
    slot_names = ("high", "medium", "low")
    _wager_name, _bonus_name = "ante", "bonus"
    ranks_width = 3


class AsiaPokerSettingEnv(AsiaPokerEnv):
    __doc__ = AsiaPokerEnv.__doc__
    betting = False

    def __init__(self, config: AsiaPokerConfig | dict | None = None, *, render_mode: str | None = None, **overrides):
        super().__init__(config, render_mode=render_mode, **overrides)
