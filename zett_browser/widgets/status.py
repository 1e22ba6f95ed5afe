"""Provides the lines above the Raw Log: the breadcrumb, the page status and the jump field.

The breadcrumb and the status are :class:`TextLine` widgets (they repaint without a
layout, which a page turn would otherwise pay for); the texts are built by plain
functions from model records. Every string from the store goes through ``safe``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Input

from ..model import RawMessageRecord, SessionNode, SnapshotInfo
from .line import TextLine
from .safe import clean, one_line


def session_label(node: SessionNode, width: int) -> str:
    """A session's title, else its id's start (both cleaned, cut to ``width``)."""
    return one_line(node.title or node.session_id[:8] + "…", width)


def breadcrumb_text(ancestors: Sequence[SessionNode], node: SessionNode) -> Text:
    """The parent chain (dim), then the open session (bold) and what it is."""
    crumb = Text(no_wrap=True, overflow="ellipsis")
    for parent in ancestors:
        crumb.append(session_label(parent, 30), style="dim")
        crumb.append("  ›  ", style="dim")
    crumb.append(session_label(node, 50), style="bold")
    if node.agent_name:
        crumb.append(f"  ({clean(node.agent_name)})", style="cyan")
    if node.parent_session_id and not ancestors:
        crumb.append("  parent missing: orphaned", style="red")
    if ancestors:
        crumb.append("   b: back to parent", style="dim italic")
    return crumb


@dataclass(frozen=True, slots=True)
class PageState:
    """What the status line reports about the shown page."""

    records: Sequence[RawMessageRecord]
    count: int
    snapshots: Sequence[SnapshotInfo]
    model_view: bool = False
    unseen: int = 0
    follow: bool = False


def status_text(state: PageState) -> Text:
    """RAW LOG / MODEL VIEW, the shown range, new messages, following, snapshots."""
    status = Text()
    if state.model_view:
        status.append("MODEL VIEW ", style="bold reverse green")
        if state.snapshots:
            latest = state.snapshots[-1]
            status.append(f" summary v{latest.version} + tail after #{latest.compacted_through_sequence} ")
        else:
            status.append(" no snapshot: the model sees the whole log ")
    else:
        status.append("RAW LOG ", style="bold reverse")
    records = state.records
    if records:
        status.append(f"  #{records[0].sequence:,}–{records[-1].sequence:,} of {state.count:,}")
    else:
        status.append(f"  0 of {state.count:,}")
    if state.unseen:
        status.append(f"   ▼ {state.unseen:,} new (G: last page)", style="bold reverse magenta")
    if state.follow:
        status.append("   following", style="bold green")
    if state.snapshots:
        plural = "s" if len(state.snapshots) > 1 else ""
        status.append(f"   ◆ {len(state.snapshots)} snapshot{plural}", style="yellow")
    return status


class Breadcrumb(TextLine):
    """The open session and its parents."""

    def show_session(self, ancestors: Sequence[SessionNode], node: SessionNode) -> None:
        self.show(breadcrumb_text(ancestors, node))


class StatusLine(TextLine):
    """Which view, which messages of how many, and what is going on."""

    def show_state(self, state: PageState) -> None:
        self.show(status_text(state))


class JumpField(Input):
    """The ``: jump to #`` field: reached with ``:`` only, never by tab.

    Always in place (showing and hiding it would lay the screen out twice); it can take
    focus only while it is open, and gives that up again when it loses focus.
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(placeholder=": jump to #", id=id, restrict=r"[0-9#,]*")
        self.can_focus = False

    def open(self) -> None:
        """Empty the field and give it the keys."""
        self.value = ""
        self.can_focus = True
        self.focus()

    def on_blur(self) -> None:
        self.can_focus = False
