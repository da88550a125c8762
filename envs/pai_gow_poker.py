"""Pai Gow Poker environments: ``splitpoker/PaiGowPoker-v0`` and ``splitpoker/PaiGowPokerSetting-v0``."""

from __future__ import annotations

from splitpoker.envs.base import SplitHandEnv
from splitpoker.envs.config import PaiGowPokerConfig
from splitpoker.envs.rules.games.paigow import N_PAIGOW_SETTINGS


class PaiGowPokerEnv(SplitHandEnv):
    """Pai Gow Poker against a house-way dealer.

    ## Description
    Pai Gow Poker (seeds 003, 004) with 52 cards and a joker: seven cards are set into a
    five-card *back* and a two-card *front* hand; the front may not outrank the back (else the
    setting is *fouled* and loses). Winning both hands against the dealer pays even money less
    the commission (5% by default), losing both loses, one each pushes; copies go to the dealer.
    The optional Fortune bonus is paid on the seven cards alone (pay table ``fortune``). The
    dealer sets by the IGW house way (``paigow-igw``).

    ``PaiGowPoker-v0``: a bet step (wager level × Fortune level), then the setting.
    ``PaiGowPokerSetting-v0``: one step, fixed wager (``setting_wager``), no Fortune bet.

    ## Action Space
    ``Discrete(n_bet + 21 [+ 1])``: bet actions ``0 .. n_bet-1`` (``wager_levels[a // n_fortune]``,
    ``fortune_levels[a % n_fortune]``; 7 × 4 = 28 by default), then setting ``s`` in 0..20 as
    action ``n_bet + s`` (front = the ``s``-th pair of positions of the sorted cards,
    lexicographic; see ``envs/rules/games/paigow.py``), then optionally "play the house way".
    Masks, errors and ``invalid_action`` as in :class:`splitpoker.envs.asia_poker.AsiaPokerEnv`: under the
    defaults every action steps; a masked fouled setting is played and loses the wager (the
    Fortune bet is still settled on the seven cards alone), a wrong-phase
    action ends the episode: ``-invalid_action_penalty`` in the bet phase, and in the set phase
    every wager placed (wager and Fortune) forfeited with the penalty on top (Rewards);
    ``invalid_action="raise"`` raises on any masked action instead.

    ## Observation Space
    ``Box(0, 1, (202,), float32)``, the layout of :mod:`splitpoker.envs.rules.play.observation` (index 200 = wager /
    wager_max, 201 = Fortune wager / fortune_max); with ``observe_settings=True`` 244 values, the
    last 42 each setting's back rank class / 7462 and front value / 90. With
    ``setting_features=True`` a further 21 × 18 values follow: per setting ``s`` a row at
    ``start + 18 s`` (:mod:`splitpoker.envs.setting_features`): 0-10 back hand category one-hot, 11 back
    rank class / 7462, 12 position within its category, 13 front value / 90, 14 front is a pair,
    15-16 front card ranks / 12, 17 fouled; zero in the bet phase.

    ## Starting State
    As in Asia Poker: seven random cards, or ``reset(options={"cards": ...})``'s, and the dealer
    hands from the other 46 as the round's seed deals them.

    ## Rewards
    Net chips / ``reward_unit`` (default the table minimum, $5): wager × (1 − commission, 0 or
    −1) plus the Fortune result. The bet step returns 0. ``dealer_samples=K`` averages the main
    result over K dealer hands. A wrong-phase action: ``-invalid_action_penalty`` in the bet phase,
    ``-(wager + Fortune) / reward_unit - invalid_action_penalty`` in the set phase (worse than any
    played hand; docs/rules.md, "Invalid actions").

    ## Episode End
    After the setting step (or a wrong-phase action: penalised, wagers forfeited); never truncates. ``info`` as in Asia
    Poker, with ``hands_won`` out of two.

    ## Arguments
    ``gym.make("splitpoker/PaiGowPoker-v0", config=PaiGowPokerConfig(...) | dict | None,
    render_mode=None | "ansi" | "human" | "rgb_array", info_text=True, **fields)``; every
    :class:`splitpoker.envs.config.PaiGowPokerConfig` field as a keyword, validated as in Asia Poker;
    ``rgb_array`` shows the back and front hands; ``info_text=False``: numbers only in ``info``, as
    in Asia Poker (``bonus_line``: the Fortune line's index). ``env.unwrapped.game`` is the
    :class:`splitpoker.envs.rules.game.Game` that deals and settles every round (rules options, commission,
    Fortune pay table), as in Asia Poker.

    ## Version History
    * v0: initial release.
    * v0, revised (same id): default ``invalid_action="penalize"`` (every action steps; a masked
      fouled setting is played and loses the wager), ``rgb_array`` render mode, config fields
      validated when the config is built.
    * v0, revised in 0.2 (same id; observations, rewards and ends unchanged): ``info`` holds the
      same keys at every step, typed, never ``None`` (:mod:`splitpoker.envs.info`); the mask of a
      finished episode is all True (Pgx's convention: a masked sampler never sees an empty mask);
      an unknown keyword raises Python's ``TypeError: ... got an unexpected keyword argument``.
    * v0, revised (same id; legal play unchanged): a wrong-phase action in the set phase forfeits
      every wager placed, with the penalty on top (it cost the penalty alone).
    * v0, revised (same id; every other reset unchanged): ``reset(options={"cards": ...})``
      deals the player a given hand.
    * v0, revised in 0.2 (same id): the opt-in ``info_text=False`` (numbers only in ``info``;
      the default unchanged).
    """

    config_cls = PaiGowPokerConfig
    n_settings = N_PAIGOW_SETTINGS
    slot_names = ("back", "front")
    _wager_name, _bonus_name = "wager", "Fortune"
    ranks_width = 2


class PaiGowPokerSettingEnv(PaiGowPokerEnv):
    __doc__ = PaiGowPokerEnv.__doc__
    betting = False

    def __init__(self, config: PaiGowPokerConfig | dict | None = None, *, render_mode: str | None = None, **overrides):
        super().__init__(config, render_mode=render_mode, **overrides)
