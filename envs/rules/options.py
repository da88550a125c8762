"""Rules options: frozen dataclasses, passed explicitly (Blackjack's ``natural``/``sab``).

Every option is a place where the seeds leave the casino a choice; docs/rules.md quotes the
sentence behind each default. ``from_dict`` takes plain data (e.g. parsed YAML from ``configs/``);
unknown keys and bad values raise ``ValueError`` naming them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from splitpoker.envs.rules.checks import short_repr

WHEEL_LOWEST = "lowest"
WHEEL_SECOND_HIGHEST = "second_highest"
_WHEEL_CHOICES = (WHEEL_LOWEST, WHEEL_SECOND_HIGHEST)


def dataclass_from_dict(cls, data: dict[str, Any] | None, what: str = "option(s)"):
    """``cls(**data)`` after checking every key is a field: an unknown key raises ``ValueError``
    naming it and listing the fields (configs fail loudly on a typo)."""
    if data is not None and not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} {what}: expected a mapping of field names to values, got {short_repr(data)}")
    data = dict(data or {})
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} {what} {short_repr(unknown)}: expected some of {sorted(names)}")
    return cls(**data)


class _RankingOptions:
    """What both games' options share: ``from_dict`` and the ace-low straight choice."""

    ace_low_straight: str

    def _check_ace_low_straight(self) -> None:
        if not isinstance(self.ace_low_straight, str) or self.ace_low_straight not in _WHEEL_CHOICES:
            raise ValueError(f"ace_low_straight={self.ace_low_straight!r}: expected one of {_WHEEL_CHOICES}")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None):
        return dataclass_from_dict(cls, data)

    @property
    def wheel_high(self) -> bool:
        return self.ace_low_straight == WHEEL_SECOND_HIGHEST


@dataclass(frozen=True)
class AsiaRules(_RankingOptions):
    """Asia Poker ranking options.

    Attributes:
        flush_beats_straight: four-card flush ranks above four-card straight (default True: the
            common published order; the seeds only say both beat three of a kind).
        ace_low_straight: where A-2-3-4 ranks among four-card straights: ``"lowest"`` (default,
            as in published four-card games) or ``"second_highest"`` (seed 001: "The casino's rules
            state how an ace-low straight (A-2-3-4) ranks against other straights").
    """

    flush_beats_straight: bool = True
    ace_low_straight: str = WHEEL_LOWEST

    def __post_init__(self):
        if not isinstance(self.flush_beats_straight, (bool, np.bool_)):
            raise ValueError(f"flush_beats_straight={self.flush_beats_straight!r}: expected true or false")
        object.__setattr__(self, "flush_beats_straight", bool(self.flush_beats_straight))
        self._check_ace_low_straight()


@dataclass(frozen=True)
class PaiGowRules(_RankingOptions):
    """Pai Gow Poker ranking and settlement options.

    Attributes:
        ace_low_straight: where A-2-3-4-5 ranks among straights: ``"second_highest"`` (default,
            seed 004: "in Pai Gow Poker, Ace, Two, Three, Four, Five is the second highest
            straight") or ``"lowest"`` (some casinos).
        commission: fraction of a winning wager kept by the house (default 0.05; 0 allowed for
            commission-free variants). Must be in [0, 1).
    """

    ace_low_straight: str = WHEEL_SECOND_HIGHEST
    commission: float = 0.05

    def __post_init__(self):
        self._check_ace_low_straight()
        if isinstance(self.commission, (bool, np.bool_)) or not isinstance(self.commission, (int, float, np.integer, np.floating)):
            raise ValueError(f"commission={self.commission!r}: expected a number in [0, 1)")
        if not 0.0 <= float(self.commission) < 1.0:
            raise ValueError(f"commission={self.commission!r}: expected a fraction in [0, 1), e.g. 0.05")
        object.__setattr__(self, "commission", float(self.commission))
