"""Provides the lines above the Raw Log: the breadcrumb, the page status and the jump field.

The breadcrumb and the status are :class:`TextLine` widgets (they repaint without a
layout, which a page turn would otherwise pay for); the texts are built by plain
functions from model records. Every string from the store goes through ``safe``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Input

from ..model import RawMessageRecord, SessionNode, SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..model.frozen import replace
from ..model.session_state import SessionState
from ..views.labels import node_name
from .line import TextLine
from .render import style_of
from .safe import clean, one_line


def session_label(node: SessionNode, width: int, tag: str | None = None) -> str:
    """A session's name by the one rule (``views.labels``: title, what its parent asked or
    its first prompt, agent, short id), after the ``tag`` that tells it from its siblings
    (cleaned, cut to ``width``)."""
    name = node_name(node, width)
    if tag and tag.rstrip("…").startswith(name.rstrip("…")):
        return one_line(tag, width)  # the name is a short id: the tree's longer prefix replaces it
    return one_line(f"{tag} {name}", width) if tag else name


def breadcrumb_text(
    ancestors: Sequence[SessionNode],
    node: SessionNode,
    width: int = 0,
    state: SessionState | None = None,
    tags: Mapping[str, str] | None = None,
) -> Text:
    """The parent chain (dim), then the open session (bold) and what it is.

    When the line is too narrow the ancestors are shortened, then dropped from the root
    down (the nearest parent is kept longest); the open session is never cut for them.
    ``width`` 0: no limit.
    """
    current = Text(no_wrap=True)
    # A title is the user's name for the session; a hint (what the parent asked) is long
    # prose, so it gets less room than a title and leaves some to the parent chain.
    tags = tags or {}
    label = session_label(node, 50 if node.title else 36, tags.get(node.session_id))
    current.append(label, style="bold")
    if node.agent_name and not label.startswith(clean(node.agent_name) + ":"):
        current.append(f"  ({clean(node.agent_name)})", style=style_of("agent"))
    if node.store:  # several stores open: it lives in another one than its parent
        current.append(f"  @{clean(node.store)}", style=style_of("store"))
    if node.parent_session_id and not ancestors:
        current.append("  parent missing: orphaned", style=style_of("error"))
    if state is not None and state.badge:
        # How its last request ended: the tree's badge first (a narrow line keeps it), the
        # stop's words at the end.
        badge = Text(state.badge + "  ", style="dim" if state.quiet else style_of("problem"))
        current = badge.append_text(current)
        if state.detail:
            current.append(f"  {clean(state.detail)[:80]}", style="dim")
    hint = Text("   b: back to parent", style="dim italic") if ancestors else Text()
    room = (width or 10_000) - current.cell_len
    if _chain(ancestors, 30).cell_len + hint.cell_len > room:
        hint = Text()
    crumb = _fit_chain(ancestors, room, tags)
    crumb.append_text(current)
    crumb.append_text(hint)
    crumb.no_wrap = True
    crumb.overflow = "ellipsis"
    return crumb


def _chain(ancestors: Sequence[SessionNode], each: int, tags: Mapping[str, str] | None = None) -> Text:
    chain = Text()
    for parent in ancestors:
        chain.append(session_label(parent, each, (tags or {}).get(parent.session_id)), style="dim")
        chain.append("  ›  ", style="dim")
    return chain


def _fit_chain(ancestors: Sequence[SessionNode], room: int, tags: Mapping[str, str]) -> Text:
    """As many of the nearest ancestors as fit in ``room`` cells, each cut to 30 at most."""
    for start in range(len(ancestors) + 1):
        kept = ancestors[start:]
        prefix = Text("…  ›  ", style="dim") if start else Text()
        for each in (30, 16, 8):
            chain = prefix + _chain(kept, each, tags)
            if chain.cell_len <= room:
                return chain
    return Text()


@dataclass(frozen=True, slots=True)
class PageState:
    """What the status line reports about the shown page."""

    records: Sequence[RawMessageRecord]
    count: int
    snapshots: Sequence[SnapshotInfo | SnapshotMeta]
    model_view: bool = False
    unseen: int = 0
    follow: bool = False


def status_text(state: PageState, *, compact: bool = False, brief: bool = False) -> Text:
    """RAW LOG / MODEL VIEW, the shown range, new messages, following, snapshots.

    For a line that cannot hold the whole text (the range and the total are what a cut loses
    first): ``brief`` leaves out the model view's summary details, ``compact`` also shortens
    every label.
    """
    status = Text()
    gap = " " if compact else "   "
    if state.model_view:
        status.append("MODEL" if compact else "MODEL VIEW ", style=style_of("mode.model"))
        if compact or brief:
            pass
        elif state.snapshots:
            latest = state.snapshots[-1]
            status.append(f" summary v{latest.version} + tail after #{latest.compacted_through_sequence} ")
        else:
            status.append(" no snapshot: the model sees the whole log ")
    else:
        status.append("LOG" if compact else "RAW LOG ", style="bold reverse")
    lead = " " if compact else "  "
    records = state.records
    if records:
        status.append(f"{lead}#{records[0].sequence:,}–{records[-1].sequence:,} of {state.count:,}")
    elif state.count:
        status.append(f"{lead}none of {state.count:,} here")
    else:
        status.append(f"{lead}no messages")
    if state.unseen:
        new = f"▼ {state.unseen:,} new" if compact else f"▼ {state.unseen:,} new (G: last page)"
        status.append(gap + new, style=style_of("unseen"))
    if state.follow:
        status.append(gap + ("follow" if compact else "following"), style=style_of("following"))
    if state.snapshots:
        plural = "s" if len(state.snapshots) > 1 else ""
        snapshots = f"◆{len(state.snapshots)}" if compact else f"◆ {len(state.snapshots)} snapshot{plural}"
        status.append(gap + snapshots, style=style_of("snapshots"))
    return status


def range_text(state: PageState, *, separators: bool = True) -> Text:
    """Only the shown range and the total (``#99,951–100,000/100,000``; without
    ``separators``: ``#99951–100000/100000``), for a row too narrow for the compact form."""
    records = state.records
    if not records:
        return Text(f"{state.count:,}" if separators else str(state.count))
    first, last = records[0].sequence, records[-1].sequence
    return Text(f"#{first:,}–{last:,}/{state.count:,}" if separators else f"#{first}–{last}/{state.count}")


class Breadcrumb(TextLine):
    """The open session, its parents and its full id, fitted to the line's width."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._session: tuple[Sequence[SessionNode], SessionNode] | None = None
        self._state: SessionState | None = None
        #: The tags that tell siblings apart, as the tree assigned them (read at each paint).
        self.tags: Mapping[str, str] = {}
        #: Names the tree has read (an untitled root's first prompt) for sessions read without.
        self.hints: Mapping[str, str] = {}

    def show_session(
        self, ancestors: Sequence[SessionNode], node: SessionNode, state: SessionState | None = None
    ) -> None:
        self._session = (ancestors, node)
        self._state = state
        self.refresh()

    @property
    def session(self) -> tuple[Sequence[SessionNode], SessionNode] | None:
        """The ancestors and the session shown (None: none yet)."""
        return self._session

    def show_state(self, state: SessionState) -> None:
        """How the open session's last request ended (read again after a change)."""
        if state != self._state:
            self._state = state
            self.refresh()

    def render(self) -> Text:
        if self._session is None:
            return super().render()
        width = self.content_region.width or self.size.width
        ancestors, node = self._session
        ancestors = [self._named(parent) for parent in ancestors]
        return breadcrumb_text(ancestors, self._named(node), width=width, state=self._state, tags=self.tags)

    def _named(self, node: SessionNode) -> SessionNode:
        hint = self.hints.get(node.session_id)
        if hint is None or node.title or node.label_hint is not None:
            return node
        return replace(node, label_hint=hint)


def summary_item(snapshot: SnapshotInfo, preview: int = 2_000) -> list[Text]:
    """The model view's first item: the latest summary (a bounded preview of it)."""
    title = Text(
        f"Summary v{snapshot.version} · what the model is given first (replaces #1–"
        f"#{snapshot.compacted_through_sequence})",
        style=style_of("boundary"),
    )
    body = snapshot.summary_text
    more = len(body) > preview
    text = Text(clean(body[:preview]) + ("…" if more else ""))
    return [title, text]


class StatusLine(TextLine):
    """Which view, which messages of how many, and what is going on: the compact form
    where the whole text does not fit (a narrow pane, the index's progress beside it)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._shorter: tuple[Text, ...] = ()
        self._compact = Text()

    def show_state(self, state: PageState) -> None:
        brief = status_text(state, brief=True) if state.model_view else None
        self._compact = status_text(state, compact=True)
        # Narrower still (a 100-column terminal's Raw Log row: ~40 cells), the range and
        # the total alone: they are what the line is for.
        tiny = (range_text(state), range_text(state, separators=False))
        self._shorter = (*([brief] if brief else []), self._compact, *tiny)
        self.show(status_text(state))

    @property
    def compact_cells(self) -> int:
        """The cells the compact form takes."""
        return self._compact.cell_len if self._shorter else self.cells

    def render(self) -> Text:
        room = self.content_region.width or self.size.width
        if room and self.cells > room and self._shorter:
            line = next((form for form in self._shorter if form.cell_len <= room), self._shorter[-1]).copy()
            line.no_wrap = True
            line.overflow = "ellipsis"
            return line
        return super().render()


class JumpField(Input):
    """The ``: jump to #`` field: reached with ``:`` only, never by tab.

    Always in place (showing and hiding it would lay the screen out twice); it can take
    focus only while it is open, and gives that up again when it loses focus.
    """

    PLACEHOLDER = ": jump to #"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(placeholder=self.PLACEHOLDER, id=id, restrict=r"[0-9#,]*")
        self.can_focus = False

    def show_note(self, note: str | None) -> None:
        """Show ``note`` (already safe) where the placeholder is, or the placeholder again."""
        placeholder = self.PLACEHOLDER if note is None or self.has_focus else note
        if self.placeholder != placeholder:
            self.placeholder = placeholder

    def open(self) -> None:
        """Empty the field and give it the keys."""
        self.value = ""
        self.placeholder = self.PLACEHOLDER
        self.can_focus = True
        self.focus()

    def on_blur(self) -> None:
        self.can_focus = False
