"""Provides what the session tree holds: node data, the filter, and a session's label.

Labels are built from cleaned strings only (``one_line``/``clean``), styled from the theme's
role table; nothing from the store is parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from rich.text import Text
from textual.widgets.tree import TreeNode

from ..model import SessionCursor, SessionNode
from ..model.session_state import SessionState
from ..model.usage import SessionUsage
from ..views.usage_text import compact
from .render import relative_time, style_of
from .safe import clean, one_line

#: Characters of a session id shown for an untitled session (UUIDv7: the time part).
ID_PREFIX = 8


def short_id(session_id: str) -> str:
    """An untitled session's id as the tree shows it when nothing better names it.

    UUIDv7 ids of one minute share their first eight characters (the time), so the
    random tail is shown after them: ``01a245fb…5f524f2d5366`` (cleaned like any store string).
    """
    if len(session_id) <= ID_PREFIX + 13:
        return one_line(session_id, ID_PREFIX + 13)
    return f"{one_line(session_id[:ID_PREFIX], ID_PREFIX)}…{one_line(session_id[-12:], 12)}"


@dataclass
class More:
    """A "more…" entry: the next page of a list, from ``cursor``."""

    parent: str | None
    cursor: SessionCursor
    orphans: bool = False


@dataclass
class Group:
    """A grouping node (the orphans)."""

    name: str


NodeData = SessionNode | More | Group


@dataclass(frozen=True)
class TreeFilter:
    """An active filter: the matching sessions, those plus their ancestors, and what was asked."""

    matching: frozenset[str]
    visible: frozenset[str]
    description: str

    def line(self) -> Text:
        """The first line of a filtered tree: ``N sessions match `query` (esc clears)``."""
        count = len(self.matching)
        verb = "session matches" if count == 1 else "sessions match"
        text = Text(f"{count:,} {verb} ", style="bold")
        text.append("`").append(one_line(self.description, 80), style=style_of("agent")).append("`")
        return text.append(" (esc clears)", style="dim")


def node_label(
    node: SessionNode, now: datetime, usage: SessionUsage | None = None, state: SessionState | None = None
) -> Text:
    """The label of a session: title or short id, agent, counts, type, activity, markers,
    with ``usage`` its subtree tokens and cost and a failure mark, and with ``state`` how its
    last request ended (only when that is not a plain ending: the tree stays calm)."""
    label = Text()
    if state is not None and state.badge:
        # First, where a narrow tree still shows it (a prompt as label is long).
        label.append(state.badge, style="dim" if state.quiet else style_of("problem")).append(" ")
    if node.title:
        label.append(one_line(node.title, 120))
    elif node.label_hint:
        # What the parent asked for: UUIDv7 prefixes of one minute's children are identical.
        label.append(one_line(node.label_hint, 120), style="italic")
    else:
        label.append(short_id(node.session_id), style="italic")
    if usage is not None and usage.failed:
        label.append(" ✗", style=style_of("problem"))
    if usage is not None and (usage.subtree.tokens.total or usage.subtree.cost or usage.subtree.unpriced_steps):
        # Next to the name, where a narrow tree still shows it.
        label.append(" · ").append(compact(usage), style=style_of("usage.tree"))
    if node.agent_name:
        label.append(" · ").append(clean(node.agent_name), style=style_of("agent"))
    label.append(" · ").append(f"{node.message_count:,} msg", style="dim")
    if node.child_count:
        label.append(" · ").append(f"↳{node.child_count}", style=style_of("children"))
    if node.snapshot_count:
        label.append(" · ").append(f"◆{node.snapshot_count}", style=style_of("snapshots"))
    if node.session_type:
        label.append(" · ").append(f"type {node.session_type}", style=style_of("session.type"))
    label.append(" · ").append(relative_time(node.updated_at, now), style="dim")
    if node.problems:  # a damaged row is shown, never hidden: say what is wrong with it
        label.append(" · ").append(f"⚠ {clean(node.problems[0])[:60]}", style=style_of("problem"))
    return label


def walk(root: TreeNode[NodeData]) -> Iterator[TreeNode[NodeData]]:
    """Every node under ``root`` (not ``root`` itself), depth first, last child first."""
    stack = list(root.children)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def mark_nodes(
    root: TreeNode[NodeData],
    states: Mapping[str, SessionState],
    hints: Mapping[str, str],
    label_of: Callable[[SessionNode], Text],
) -> None:
    """Relabel the loaded nodes under ``root`` that ``states`` or ``hints`` name; an untitled
    node without a label hint takes its hint (a hint never replaces one: labels stay stable)."""
    for node in walk(root):
        data = node.data
        if not isinstance(data, SessionNode) or (data.session_id not in states and data.session_id not in hints):
            continue
        hint = hints.get(data.session_id)
        if hint and not data.title and data.label_hint is None:
            node.data = data = replace(data, label_hint=hint)
        node.set_label(label_of(data))
