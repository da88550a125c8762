"""Rule ids of the house-way styles, one idiom for all: each style module holds a table of
``(NAME, text)`` pairs (the position is the rule id, the last rule is ``FALLBACK``), from which
:func:`rule_ids` derives an ``IntEnum`` that numba reads as integer constants (the kernels write
``R.TWO_PAIRS``) and the tuple of texts that :class:`~splitpoker.envs.rules.house_ways.registry.HouseWayResult` and
``scripts/check_house_way.py`` report. The ids are published (per-rule counts in the tests and
docs/house_ways.md): append, never renumber.
"""

from __future__ import annotations

from enum import IntEnum


def rule_ids(class_name: str, table, module: str) -> tuple[type[IntEnum], tuple[str, ...]]:
    """``(IntEnum, texts)`` from a rule table of ``(NAME, text)`` pairs (the position is the id)."""
    names = [name for name, _ in table]
    if len(set(names)) != len(names) or names[-1] != "FALLBACK":
        raise ValueError(f"rule table of {class_name}: expected unique names ending in FALLBACK, got {names}")
    enum = IntEnum(class_name, [(name, i) for i, name in enumerate(names)], module=module)
    enum.__doc__ = f"Rule ids of the house way, one per rule and branch of its seed ({len(names)} ids)."
    return enum, tuple(text for _, text in table)
