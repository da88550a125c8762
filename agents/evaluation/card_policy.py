"""A card file as a policy (``act(obs, mask)``, like the baselines): it sets every hand by the first
rule of the card that applies (:mod:`splitpoker.agents.evaluation.card_file`) and bets the table
minimum with no bonus, as the ``house-way`` baseline does."""

from __future__ import annotations

import numpy as np

from splitpoker.agents.evaluation.card_file import WrittenCard, load_card
from splitpoker.agents.policies.baselines import Policy


class CardPolicy(Policy):
    """Plays ``card`` (a :class:`WrittenCard` or a card file's path) in the env's game."""

    def __init__(self, *, card, **kw):
        super().__init__(**kw)
        self.card = card if isinstance(card, WrittenCard) else load_card(card)
        if self.card.game != self.game.game:
            raise ValueError(f"card {self.card.path or self.card.name}: a card for {self.card.game}, the env plays "
                             f"{self.game.game}")
        self.name = self.card.name

    def choose_setting(self, hand, legal):
        settings, _ = self.card.play(self.game, np.sort(np.asarray(hand, dtype=np.int64))[None, :])
        return int(settings[0])
