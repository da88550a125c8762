"""Asia Poker at a table of up to six seats (PettingZoo).

## Description
The dealer and seats 1..6 dealt from one 53-card deck in seed 004's order (the Asia seeds give no
table procedure; docs/rules.md), every seat playing Asia Poker (seeds 000-002) against the
dealer's house-way hand (``asia-000`` by default): a four-card high, a two-card medium and a
one-card low hand; winning two of three comparisons wins even money, copies go to the dealer, a
fouled setting loses. The seed-000 bonus pays on the seat's own seven cards (capped at $50,000).
Asia Poker has no Envy bonus.

Agents are the ``player`` seats ``seat_k`` (``num_seats`` of them); ``house_way_seats`` more seats
bet ``house_way_bet`` and set the house way; ``seats=[...]`` gives any layout of ``player``,
``house_way`` and ``empty``. A round is two parallel steps: bets, then settings (AEC: each agent
once per phase, in seat order).

## Action Space
``Discrete(n_bet + 105 [+ 1])`` per agent, as ``splitpoker/AsiaPoker-v0``: bet actions
``0 .. n_bet-1`` = (``ante_levels[a // n_bonus]``, ``bonus_levels[a % n_bonus]``; 8 × 6 = 48 by
default), setting ``s`` (0..104) = action ``n_bet + s``, then optionally "play the house way".

## Observation Space
``Dict(observation=Box(0, 1, (210,), float32), action_mask=Box(0, 1, (n_actions,), int8))``:
indices 0-201 as the one-seat env, 202 = other seats in play / 5, 203 = 0 (no Envy), 204-209 =
one-hot seat number; ``observe_settings=True`` appends 105 × 3 setting values.

## Rewards
At settlement, each agent's net chips (ante result + bonus result) / ``reward_unit`` (default $5).
A wrong-phase action: ``-invalid_action_penalty`` in the bet phase; in the set phase every wager
the seat placed is forfeited, ``-(ante + bonus) / reward_unit - invalid_action_penalty``, worse
than any played hand (docs/rules.md, "Invalid actions").

## Episode End
All agents terminate together when the round ends (after the set step); invalid actions as in
``paigow_table_v0`` (default ``invalid_action="penalize"``: a fouled setting is played and loses,
a wrong-phase action ends that agent's round at once (Rewards), the agent
staying in ``agents`` until the round ends with its later actions ignored; ``"raise"`` raises).
Masks are never all zero: a seat whose round is over has every action marked.

## Arguments
``asia_table_v0.env(num_seats=1..6, house_way_seats=0, seats=None, house_way_bet=(5, 0),
config=AsiaPokerConfig | dict | None, render_mode=None | "ansi" | "human", info_text=True,
**fields)``, ``parallel_env(...)`` the same; every ``AsiaPokerConfig`` field is a keyword.
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

parallel_env, env = versioned_table_env("asia", "asia_table_v0", __doc__)
