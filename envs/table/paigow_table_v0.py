"""Fortune Pai Gow Poker at a table of up to six seats, with the Envy bonus (PettingZoo).

## Description
Seed 004's table: the dealer (hand #1) and seats 1..6 going round from the dealer's left, seven
hands of seven cards dealt from one 53-card deck (49 cards), the first hand placed at the spot a
random number generator picks. Every seat plays Pai Gow Poker against the dealer's house-way hand
(``paigow-igw``): a five-card back and a two-card front; both hands higher wins even money less the
commission, one each pushes, both lower (or a fouled setting) loses; copies go to the dealer. The
Fortune bonus pays on the seat's seven cards. A Fortune wager of $5 or more takes the **Envy
bonus**: the seat collects the Envy amount for every *other* seat's hand of four of a kind or
better (the dealer's hand and the seat's own hand never count; docs/rules.md, "Multi-seat table").

Agents are the ``player`` seats, named ``seat_k`` by seat number (``num_seats`` of them, seats
1..num_seats); ``house_way_seats`` more seats bet ``house_way_bet`` and set the house way with no
decision (their hands count for Envy); ``seats=[...]`` gives any layout of ``player``,
``house_way`` and ``empty`` seats. Bets are placed simultaneously, then hands are set
simultaneously: a round is two parallel steps (AEC: each agent once per phase, in seat order).

## Action Space
``Discrete(n_bet + 21 [+ 1])`` per agent, as ``splitpoker/PaiGowPoker-v0``: bet actions
``0 .. n_bet-1`` = (``wager_levels[a // n_fortune]``, ``fortune_levels[a % n_fortune]``; 7 × 4 =
28 by default; a Fortune level of $5+ includes Envy), setting ``s`` (0..20) = action ``n_bet + s``,
then optionally "play the house way" (``allow_house_way_action=True``).

## Observation Space
``Dict(observation=Box(0, 1, (210,), float32), action_mask=Box(0, 1, (n_actions,), int8))`` (PettingZoo
classic's convention). ``observation``: indices 0-201 as the one-seat env (:mod:`splitpoker.envs.rules.play.observation`:
own cards, phase, wager / wager_max, Fortune / fortune_max), 202 = other seats in play / 5, 203 =
holds Envy, 204-209 = one-hot seat number; ``observe_settings=True`` appends 21 × 2 setting values.
Other seats' cards are never shown ("Players cannot show their hands to other Players", seed 004).

## Rewards
At settlement, each agent's net chips (wager result + Fortune result + Envy) / ``reward_unit``
(default the $5 minimum); 0 for the bet step. A wrong-phase action: ``-invalid_action_penalty`` in
the bet phase; in the set phase every wager the seat placed is forfeited, ``-(wager + Fortune) /
reward_unit - invalid_action_penalty``, worse than any played hand (docs/rules.md, "Invalid
actions").

## Episode End
All agents terminate together when the round ends (after the set step), so every agent acts at
every step (what SuperSuit's vector stacking needs). Invalid actions follow the project's
semantics: with the default ``invalid_action="penalize"`` every action in the space steps; a
fouled setting is played and loses; a wrong-phase action (a bet in the set phase, a setting in the
bet phase) ends *that agent's* round at once with the reward above and
``info["invalid_action"]`` / ``info["reason"]`` — its seat leaves the round (its wagers
forfeited, its hand dead, not counted for Envy) — while the agent stays in ``agents`` until the round ends,
its later actions accepted and ignored. Masks are never all zero: a seat whose round is over has
every action marked. ``info`` carries the same keys at every step
(:data:`splitpoker.envs.info.TABLE_INFO`). ``invalid_action="raise"`` raises ``ValueError`` naming the action, seat and phase for any
masked action. An action for an agent not to act, or a missing one, raises ``ValueError``.

## Arguments
``paigow_table_v0.env(num_seats=1..6, house_way_seats=0, seats=None, envy=True, envy_unit=1.0,
house_way_bet=(5, 0), config=PaiGowPokerConfig | dict | None, render_mode=None | "ansi" | "human",
info_text=True, **fields)``, ``parallel_env(...)`` the same; every ``PaiGowPokerConfig`` field is a keyword
(``house_way``, ``rules``, pay tables, bet levels and limits, ``mask_fouls``,
``allow_house_way_action``, ``invalid_action`` (default ``"penalize"``), ``invalid_action_penalty``,
``reward_unit``, ``observe_settings``).
``info_text=False``: every ``info`` value a number (numpy arrays, 0-d for a number; ``phase``,
``cards``, ``reason``, ``kind``, ... as the codes of :mod:`splitpoker.envs.info`) and no
``action_mask`` in ``info`` (the observation holds it): what TorchRL's
``PettingZooWrapper(env, use_mask=True)`` stacks (docs/clients.md).

## Version History
* v0: initial release.
* v0, revised in 0.2: every agent stays in ``agents`` until the round ends (a penalised one with
  its reward at once and its later actions ignored); masks never all zero; ``info`` with the same
  keys at every step, never ``None``.
"""

from __future__ import annotations

from splitpoker.envs.table.parallel import versioned_table_env

parallel_env, env = versioned_table_env("paigow", "paigow_table_v0", __doc__)
