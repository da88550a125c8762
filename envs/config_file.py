"""Reading a YAML config file: PyYAML's safe loader, without anchors and aliases.

An alias (``*a``) repeats a node without writing it again, so a file of a kilobyte can describe a
value of billions of items (the "billion laughs"): loading it is cheap, but anything that walks
the value, such as an error message that shows it, runs out of memory (a 1 KB ``house_way`` ran
185 s into ``MemoryError``). No config here needs one, so the loader refuses the first anchor
(``&a``) or alias it meets, naming the file, line and column. Every config loader uses
:func:`load_yaml` (env, training, benchmark configs and pay-table files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class AliasRefused(yaml.composer.ComposerError):
    """A YAML anchor or alias in a config file (a :class:`yaml.YAMLError`)."""


class NoAliasSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` whose compose step refuses anchors and aliases (:class:`AliasRefused`)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            kind = "alias *" if isinstance(event, yaml.AliasEvent) else "anchor &"
            raise AliasRefused(None, None, f"found the {kind}{event.anchor}: YAML anchors and aliases are not accepted "
                                           f"in a config (write the value out where it is used)", event.start_mark)
        return super().compose_node(parent, index)


def load_yaml(path: str | Path) -> Any:
    """The YAML document in the file at ``path`` (``None`` when empty), loaded safely and without
    anchors or aliases. Raises ``OSError`` when the file cannot be read and :class:`yaml.YAMLError`
    (:class:`AliasRefused` among them; its message names the file, line and column) when it is not
    valid YAML or uses an anchor or alias."""
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=NoAliasSafeLoader)  # noqa: S506 - a SafeLoader
