"""Provides the types of the key map (:mod:`zett_browser.keymap`): who binds a key
(:data:`Scope`), one binding (:class:`Key`) and one line of help (:class:`Row`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Who binds a key: the app, the main screen, the Raw Log pane, the tree (its own keys),
#: the live demo (bound when it runs), the inspector, the detail view, the search view
#: and its list of hits, or Textual itself.
Scope = Literal[
    "app",
    "main",
    "rawlog",
    "tree",
    "live",
    "inspector",
    "versions",
    "ledger",
    "detail",
    "search",
    "hits",
    "textual",
    "export",
    "context",
    "timing",
    "timingview",
    "usage",
    "compare",
    "compareview",
]


@dataclass(frozen=True, slots=True)
class Key:
    """One binding: Textual key names (comma-separated), its action and its titles."""

    keys: str
    action: str
    title: str
    scope: Scope
    footer: bool = False
    #: The command palette's title when it differs from the footer's short one.
    command: str | None = None
    palette: bool = True


@dataclass(frozen=True, slots=True)
class Row:
    """One line of help: the keys as shown (the key table's markdown), where, what they do."""

    label: str
    where: str
    text: str
    keys: tuple[Key, ...] = ()


def bind(keys: str, action: str, title: str, scope: Scope, **kw: object) -> Key:
    """One binding of the table (the keyword arguments are :class:`Key`'s optional fields)."""
    return Key(keys, action, title, scope, **kw)  # type: ignore[arg-type]


__all__ = ["Key", "Row", "Scope", "bind"]
