"""The strategy cards the explorer shows beside the exact answer, read through
:mod:`splitpoker.agents.evaluation.card_file` (the YAML rule language of docs/strategy_insight.md):

* the **fitted card** of the dealer's house way: ``configs/strategies/fitted/<style>.yaml`` (or
  ``<style>.yaml`` of the folder ``--cards DIR`` names), fitted by ``scripts/strategy_card.py``;
* any **written cards** named with ``--card FILE`` (a book's or your own strategy), each shown with
  its choice and its cost on every hand of its game.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from splitpoker.agents.evaluation.card_file import FITTED_DIR, WrittenCard, card_choice, load_card
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle


def _choice(card: WrittenCard, game, cards: np.ndarray) -> dict:
    c = card_choice(card, game, cards)
    return {"setting": c.setting, "rule": c.rule + 1, "rules": len(card.rules), "rule_name": c.rule_name,
            "text": c.rule_text, "name": card.name, "source": Path(card.path).name if card.path else card.name}


class CardBook:
    """The fitted card of each style (from ``folder``, default ``configs/strategies/fitted``) and
    the written cards ``extra`` (paths); ``ValueError`` naming a card file that cannot be used."""

    def __init__(self, folder: str | Path | None = None, extra: tuple[str, ...] = (), *,
                 log: Callable[[str], None] = print):
        folder = Path(folder) if folder else FITTED_DIR
        self.fitted: dict[str, WrittenCard] = {}
        for style in HouseWayStyle:
            path = folder / f"{style.value}.yaml"
            if path.is_file():
                card = load_card(path)
                if card.game != style.game:
                    raise ValueError(f"strategy card {path}: a card for {card.game}, not for {style.value}")
                self.fitted[style.value] = card
        if self.fitted:
            log(f"fitted strategy cards: {', '.join(self.fitted)} (from {folder})")
        self.written = [load_card(p) for p in extra]
        for card in self.written:
            log(f"written card {card.name!r} for {card.game} ({card.path})")

    def choice(self, game, cards: np.ndarray) -> dict | None:
        """The fitted card of ``game``'s style for ``cards``: the setting it makes and the rule that
        made it (number and words); ``None`` without a card for the style."""
        card = self.fitted.get(game.style.value)
        return None if card is None else _choice(card, game, cards)

    def written_choices(self, game, cards: np.ndarray) -> list[dict]:
        """Every written card of ``game``'s game and what it makes of ``cards``."""
        return [_choice(c, game, cards) for c in self.written if c.game == game.game]
