"""Provides the main screen: tree, Raw Log pane and inspector, and every storage call.

This screen is the only UI code that talks to the storage. Each call runs in an async
worker on the app's own event loop (no threads of ours); a failure becomes a notice and
an error line, never a crash.
"""

from __future__ import annotations

import asyncio
import gc
import json
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header, Input

from ..formatting import full_text, join, kind_name, summary_blocks
from ..model import (
    AssistantMessage,
    CompactedMessage,
    RawMessageRecord,
    SessionNode,
    SnapshotInfo,
    ToolMessage,
)
from ..widgets.footer import KeyFooter
from ..widgets.inspector import Inspector
from ..widgets.line import TextLine
from ..widgets.rawlog import RawLogView
from ..widgets.safe import clean, one_line
from ..widgets.session_tree import SessionTree
from .detail import HelpScreen, MessageDetail

if TYPE_CHECKING:
    from ..app import ZettBrowserApp

ROOTS_PAGE = 100
CHILDREN_PAGE = 200
#: The inspector's "summary + K tail messages" counts the rows the model gets by reading
#: the tail when it is at most this long (decoded like one page); longer tails are named
#: by their boundary instead.
MODEL_TAIL_COUNTED = 200


@dataclass
class OpenSession:
    """What the Raw Log pane shows now."""

    node: SessionNode
    count: int = 0
    first: int = 0
    last: int = 0
    snapshots: list[SnapshotInfo] = field(default_factory=list)
    model_view: bool = False


class MainScreen(Screen[None]):
    """Session tree, Raw Log and inspector."""

    BINDINGS = [
        Binding("n", "page('next')", "Next page"),
        Binding("p", "page('prev')", "Prev page"),
        Binding("g", "page('first')", "First", show=False),
        Binding("G", "page('last')", "Last", show=False),
        Binding("colon", "jump", "Jump to #"),
        Binding("escape", "cancel_jump", "Cancel jump", show=False),
        Binding("i", "toggle_inspector", "Inspector"),
        Binding("m", "toggle_model_view", "Raw/Model"),
        Binding("t", "toggle_tree", "Tree", show=False),
        Binding("left_square_bracket", "resize_tree(-4)", "Narrower tree", show=False),
        Binding("right_square_bracket", "resize_tree(4)", "Wider tree", show=False),
        Binding("b", "back", "Back"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.open: OpenSession | None = None
        self.history: list[str] = []
        self._token: tuple[object, ...] | None = None
        self._polling = False
        #: Keep the Raw Log at the newest message while the store grows.
        self.follow = False
        #: Messages appended after the shown page while the user looks elsewhere.
        self.unseen = 0
        #: Why the server cannot be reached, while it cannot (None: connected).
        self.offline: str | None = None
        self._started = False

    @property
    def browser(self) -> ZettBrowserApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="panes"):
            yield SessionTree(clock=self.browser.clock, id="tree")
            with Vertical(id="center"):
                yield TextLine(id="breadcrumb")
                with Horizontal(id="status-row"):
                    yield TextLine(id="page-status")
                    # Always in place (showing and hiding it would lay the screen out twice).
                    yield Input(placeholder=": jump to #", id="jump", restrict=r"[0-9#,]*")
                yield RawLogView(id="rawlog")
            yield Inspector(id="inspector")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The jump field is reached with ":" only: tab goes from the tree to the Raw Log.
        self.query_one("#jump", Input).can_focus = False
        self.title = "zett-browser"
        self.sub_title = self.browser.storage.display_name
        self.load_roots()
        if self.browser.start_session:
            self.open_session_by_id(self.browser.start_session, self.browser.start_seq)
        if self.browser.poll_interval > 0:
            self.set_interval(self.browser.poll_interval, self.poll_changes)

    # ---------------------------------------------------------------- following a live store

    def poll_changes(self) -> None:
        """Start a check for changes unless the previous one is still running."""
        if not self._polling:
            self._polling = True
            self._poll()

    @work(group="poll", exit_on_error=False)
    async def _poll(self) -> None:
        """Compare the store's change token; re-read only what a change can touch.

        A check is never cancelled by the next tick (that could drop a change whose token
        was already recorded), and the token is recorded only after the re-read.
        """
        try:
            token = await self.browser.storage.change_token()
            self._connected()
            if token != self._token:
                await self._refresh_tree()
                await self._refresh_open_session()
                self._token = token
        except Exception as error:  # noqa: BLE001 - a busy store is retried at the next tick
            self.log.warning(f"change check failed: {error!r}")
            if self.browser.is_connection_failure(error):
                self._disconnected(error)
        finally:
            self._polling = False

    def _disconnected(self, error: Exception, *, announce: bool = True) -> None:
        """Say once that the server is gone; the header keeps saying it until it is back."""
        if announce and self.offline is None:
            self.notify(
                f"{clean(error)}\nBrowsing resumes by itself once the server answers again.",
                title="Connection lost",
                severity="error",
                markup=False,
                timeout=10,
            )
        self.offline = clean(error)
        self.sub_title = f"{self.browser.storage.display_name} · connection lost, retrying"

    def _connected(self) -> None:
        if self.offline is not None:
            self.offline = None
            self.sub_title = self.browser.storage.display_name
            self.notify("Reconnected to the store", markup=False, timeout=4)

    async def _refresh_tree(self) -> None:
        storage = self.browser.storage
        tree = self.query_one(SessionTree)
        try:
            roots = await storage.list_roots(limit=ROOTS_PAGE)
            expanded = [node for node in tree.expanded_session_nodes() if isinstance(node.data, SessionNode)]
            children = {
                node.id: (await storage.list_children(node.data.session_id, limit=CHILDREN_PAGE)).items  # type: ignore[union-attr]
                for node in expanded
            }
        except Exception:  # noqa: BLE001
            return
        tree.merge_sessions(tree.root, roots.items, newest_first=True)
        for node in expanded:
            tree.merge_sessions(node, children[node.id], newest_first=False)

    async def _refresh_open_session(self) -> None:
        state = self.open
        if state is None:
            return
        storage = self.browser.storage
        view = self.query_one(RawLogView)
        try:
            bounds = await storage.raw_bounds(state.node.session_id)
            snapshots = await storage.list_snapshots(state.node.session_id)
        except Exception:  # noqa: BLE001
            return
        grew = bounds.count != state.count
        if not grew and len(snapshots) == len(state.snapshots):
            return
        shown_last = view.records[-1].sequence if view.records else 0
        at_end = shown_last >= state.last
        added = max(0, (bounds.last_sequence or 0) - state.last)
        state.count, state.first, state.last = bounds.count, bounds.first_sequence or 0, bounds.last_sequence or 0
        if grew or len(snapshots) != len(state.snapshots):
            state.snapshots = snapshots
            self.query_one(Inspector).show(snapshots, message_count=bounds.count)
        if self.follow:
            await self._load_page(0, before=state.last + 1, select=state.last)
            self.unseen = 0
        elif at_end and len(view.records) < self.browser.page_size:
            # New rows belong on this unfilled page: re-read it, keeping the cursor.
            keep = view.current.sequence if view.current is not None else None
            scroll = view.scroll_y
            await self._load_page(view.records[0].sequence - 1 if view.records else 0, select=keep)
            view.rendered_lines()  # the whole page, so the old scroll position exists again
            view.scroll_to(y=scroll, animate=False)
            self.unseen = 0
        else:
            self.unseen += added
            self._show_status(view.records)

    # ---------------------------------------------------------------- tree

    @work(group="tree", exit_on_error=False)
    async def load_roots(self) -> None:
        tree = self.query_one(SessionTree)
        try:
            # Taken before reading, so a change committed meanwhile is seen at the next poll.
            storage = self.browser.storage
            self._token = await storage.change_token()
            page, orphans = await asyncio.gather(storage.list_roots(limit=ROOTS_PAGE), storage.list_orphans(limit=1))
        except Exception as error:  # noqa: BLE001 - shown to the user, never a crash
            self._failed("Could not list sessions", error)
            return
        if not page.items and not orphans.items:
            self.query_one(RawLogView).show_page([], empty_text="This store has no sessions yet.")
        tree.add_sessions(tree.root, page.items, page.next_cursor)
        if orphans.items:
            tree.add_orphan_group()
        tree.root.expand()
        if self.open is None and page.items and not self.browser.start_session:
            tree.move_cursor(tree.root.children[0] if tree.root.children else None)
            self.open_session_by_id(page.items[0].session_id, None)

    @work(group="tree", exit_on_error=False)
    async def on_session_tree_children_wanted(self, event: SessionTree.ChildrenWanted) -> None:
        tree = self.query_one(SessionTree)
        try:
            if event.parent_id is None:
                page = await self.browser.storage.list_roots(limit=ROOTS_PAGE, cursor=event.cursor)
            else:
                page = await self.browser.storage.list_children(
                    event.parent_id, limit=CHILDREN_PAGE, cursor=event.cursor
                )
            hints = await self.browser.storage.child_labels(event.parent_id, page.items)
        except Exception as error:  # noqa: BLE001
            self._failed("Could not load sessions", error)
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, hints=hints)

    @work(group="tree", exit_on_error=False)
    async def on_session_tree_orphans_wanted(self, event: SessionTree.OrphansWanted) -> None:
        tree = self.query_one(SessionTree)
        try:
            page = await self.browser.storage.list_orphans(limit=CHILDREN_PAGE, cursor=event.cursor)
        except Exception as error:  # noqa: BLE001
            self._failed("Could not load orphaned sessions", error)
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, orphans=True)

    def on_session_tree_session_chosen(self, event: SessionTree.SessionChosen) -> None:
        if self.open is None or self.open.node.session_id != event.session.session_id:
            self.open_session_by_id(event.session.session_id, None)

    # ---------------------------------------------------------------- opening a session

    @work(exclusive=True, group="session", exit_on_error=False)
    async def open_session_by_id(self, session_id: str, sequence: int | None, *, push: bool = False) -> None:
        storage = self.browser.storage
        try:
            # Independent reads, on the pool's connections at once.
            node, bounds, snapshots, ancestors = await asyncio.gather(
                storage.get_node(session_id),
                storage.raw_bounds(session_id),
                storage.list_snapshots(session_id),
                storage.ancestors(session_id),
            )
            if node is None:
                self.notify(f"No session {clean(session_id)} in this store", severity="error", markup=False)
                return
            boundary = snapshots[-1].compacted_through_sequence if snapshots else 0
            compacted_chars = await storage.text_size(session_id, through_sequence=boundary) if boundary else 0
            model_tail = await self._model_tail(session_id, boundary, bounds.last_sequence or 0)
        except Exception as error:  # noqa: BLE001
            self._failed("Could not open the session", error)
            return
        if push and self.open is not None:
            self.history.append(self.open.node.session_id)
        self.open = OpenSession(
            node=node,
            count=bounds.count,
            first=bounds.first_sequence or 0,
            last=bounds.last_sequence or 0,
            snapshots=snapshots,
        )
        self._show_breadcrumb(ancestors, node)
        inspector = self.query_one(Inspector)
        saved = None
        if snapshots:
            saved = max(0, (compacted_chars - len(snapshots[-1].summary_text)) // 4)
        inspector.show(snapshots, message_count=bounds.count, saved_tokens=saved, model_tail=model_tail)
        self.query_one(SessionTree).reveal(ancestors, node)
        start = self._page_start_for(sequence) if sequence is not None else 0
        await self._load_page(start, select=sequence)

    async def _model_tail(self, session_id: str, boundary: int, last: int) -> int | None:
        """Messages after the boundary that the model gets (as the model view shows them),
        when the tail is short enough to count by reading it; else None."""
        if not boundary or last - boundary > MODEL_TAIL_COUNTED:
            return None
        tail = await self.browser.storage.raw_page(session_id, after_sequence=boundary, limit=MODEL_TAIL_COUNTED)
        return sum(1 for record in tail if record.message.include_in_messages)

    def _page_start_for(self, sequence: int) -> int:
        size = self.browser.page_size
        return max(0, ((max(1, sequence) - 1) // size) * size)

    def _show_breadcrumb(self, ancestors: list[SessionNode], node: SessionNode) -> None:
        crumb = Text(no_wrap=True, overflow="ellipsis")
        for parent in ancestors:
            crumb.append(one_line(parent.title or parent.session_id[:8] + "…", 30), style="dim")
            crumb.append("  ›  ", style="dim")
        crumb.append(one_line(node.title or node.session_id[:8] + "…", 50), style="bold")
        if node.agent_name:
            crumb.append(f"  ({clean(node.agent_name)})", style="cyan")
        if node.parent_session_id and not ancestors:
            crumb.append("  parent missing: orphaned", style="red")
        if ancestors:
            crumb.append("   b: back to parent", style="dim italic")
        self.query_one("#breadcrumb", TextLine).show(crumb)

    async def _load_page(self, after: int, *, select: int | None = None, before: int | None = None) -> None:
        state = self.open
        if state is None:
            return
        storage = self.browser.storage
        size = self.browser.page_size
        view = self.query_one(RawLogView)
        try:
            if state.model_view:
                boundary = state.snapshots[-1].compacted_through_sequence if state.snapshots else 0
                after = max(after, boundary)
            if before is not None:
                records = await storage.raw_page_before(state.node.session_id, before_sequence=before, limit=size)
            else:
                records = await storage.raw_page(state.node.session_id, after_sequence=after, limit=size)
        except Exception as error:  # noqa: BLE001
            self._failed("Could not read the Raw Log", error)
            return
        boundaries = {
            item.compacted_through_sequence: f"v{item.version}: compacted through #{item.compacted_through_sequence}"
            for item in state.snapshots
        }
        compacted = state.snapshots[-1].compacted_through_sequence if state.snapshots else 0
        if state.model_view:
            records = [record for record in records if record.message.include_in_messages]
        view.show_page(
            records,
            boundaries=boundaries,
            compacted_through=compacted,
            select_sequence=select,
            empty_text="This session has no messages." if not state.count else "No messages here.",
        )
        self._show_status(records)
        if not self._started:
            self._started = True
            self.call_after_refresh(_freeze_startup_objects)

    def _show_status(self, records: list[RawMessageRecord]) -> None:
        state = self.open
        status = Text()
        if state is None:
            return
        if state.model_view:
            status.append("MODEL VIEW ", style="bold reverse green")
            if state.snapshots:
                latest = state.snapshots[-1]
                status.append(f" summary v{latest.version} + tail after #{latest.compacted_through_sequence} ")
            else:
                status.append(" no snapshot: the model sees the whole log ")
        else:
            status.append("RAW LOG ", style="bold reverse")
        if records:
            status.append(f"  #{records[0].sequence:,}–{records[-1].sequence:,} of {state.count:,}")
        else:
            status.append(f"  0 of {state.count:,}")
        if self.unseen:
            status.append(f"   ▼ {self.unseen:,} new (G: last page)", style="bold reverse magenta")
        if self.follow:
            status.append("   following", style="bold green")
        if state.snapshots:
            status.append(
                f"   ◆ {len(state.snapshots)} snapshot{'s' if len(state.snapshots) > 1 else ''}", style="yellow"
            )
        self.query_one("#page-status", TextLine).show(status)
        if (
            state.model_view
            and state.snapshots
            and records
            and records[0].sequence == state.snapshots[-1].compacted_through_sequence + 1
        ):
            summary = state.snapshots[-1]
            if isinstance(summary.message, CompactedMessage):
                self.notify(one_line(summary.summary_text, 200), title=f"Summary v{summary.version}", markup=False)

    # ---------------------------------------------------------------- actions

    @work(exclusive=True, group="session", exit_on_error=False)
    async def action_page(self, where: str) -> None:
        state = self.open
        if state is None:
            return
        size = self.browser.page_size
        view = self.query_one(RawLogView)
        if where == "first":
            await self._load_page(0)
        elif where == "last":
            self.unseen = 0
            await self._load_page(0, before=state.last + 1, select=state.last if self.follow else None)
        elif where == "next":
            if view.records and view.records[-1].sequence < state.last:
                await self._load_page(view.records[-1].sequence)
        elif where == "prev" and view.records and view.records[0].sequence > state.first:
            start = max(0, view.records[0].sequence - 1 - size)
            await self._load_page(start)

    def action_jump(self) -> None:
        field_ = self.query_one("#jump", Input)
        field_.value = ""
        field_.can_focus = True
        field_.focus()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if event.widget.id == "jump":
            event.widget.can_focus = False

    def action_cancel_jump(self) -> None:
        field_ = self.query_one("#jump", Input)
        if field_.has_focus:
            field_.value = ""
            self.query_one(RawLogView).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "jump":
            return
        event.input.value = ""
        self.query_one(RawLogView).focus()
        try:
            sequence = int(event.value.strip().lstrip("#").replace(",", ""))
        except ValueError:
            self.notify("Type a sequence number such as 151", severity="warning", markup=False)
            return
        self.jump_to(sequence)

    @work(exclusive=True, group="session", exit_on_error=False)
    async def jump_to(self, sequence: int) -> None:
        state = self.open
        if state is None:
            return
        if not state.first <= sequence <= state.last:
            self.notify(f"#{sequence} is outside #{state.first}–{state.last}", severity="warning", markup=False)
            return
        view = self.query_one(RawLogView)
        if not view.select_sequence(sequence):
            await self._load_page(self._page_start_for(sequence), select=sequence)

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow:
            self.unseen = 0
            self.action_page("last")
        elif self.open is not None:
            self._show_status(self.query_one(RawLogView).records)

    def action_toggle_inspector(self) -> None:
        self.query_one(Inspector).toggle_class("hidden")

    def action_resize_tree(self, step: int) -> None:
        tree = self.query_one(SessionTree)
        width = tree.outer_size.width + step
        tree.styles.width = max(20, min(width, self.size.width - 40))

    def action_toggle_tree(self) -> None:
        self.query_one(SessionTree).toggle_class("hidden")

    @work(exclusive=True, group="session", exit_on_error=False)
    async def action_toggle_model_view(self) -> None:
        state = self.open
        if state is None:
            return
        state.model_view = not state.model_view
        await self._load_page(0)

    def action_back(self) -> None:
        if self.history:
            self.open_session_by_id(self.history.pop(), None)
        elif self.open is not None and self.open.node.parent_session_id:
            self.open_session_by_id(self.open.node.parent_session_id, None)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def on_raw_log_view_record_opened(self, event: RawLogView.RecordOpened) -> None:
        record = event.record
        title = f"#{record.sequence} {kind_name(record)}"
        self.app.push_screen(MessageDetail(title, partial(full_text, record)))  # formatted in a thread

    @work(exclusive=True, group="session", exit_on_error=False)
    async def on_raw_log_view_call_jump(self, event: RawLogView.CallJump) -> None:
        state = self.open
        record = event.record
        if state is None:
            return
        message = record.message
        targets: set[str] = set()
        if isinstance(message, AssistantMessage):
            targets = {call.id for call in message.tool_calls}
            find_result = True
        elif isinstance(message, ToolMessage):
            targets = {message.tool_call_id}
            find_result = False
        else:
            self.notify("This message is neither a tool call nor a result", markup=False)
            return
        if not targets:
            self.notify("This message calls no tools", markup=False)
            return
        storage = self.browser.storage
        sequence = record.sequence
        try:
            # Walk outward from here a page at a time (calls and results sit close together).
            for _ in range(20):
                if find_result:
                    page = await storage.raw_page(state.node.session_id, after_sequence=sequence, limit=50)
                else:
                    page = await storage.raw_page_before(state.node.session_id, before_sequence=sequence, limit=50)
                    page = list(reversed(page))
                if not page:
                    break
                for candidate in page:
                    found = candidate.message
                    if find_result and isinstance(found, ToolMessage) and found.tool_call_id in targets:
                        self.jump_to(candidate.sequence)
                        return
                    if not find_result and isinstance(found, AssistantMessage):
                        if any(call.id in targets for call in found.tool_calls):
                            self.jump_to(candidate.sequence)
                            return
                sequence = page[-1].sequence
        except Exception as error:  # noqa: BLE001
            self._failed("Could not search the Raw Log", error)
            return
        self.notify("No matching tool call or result found", severity="warning", markup=False)

    @work(exclusive=True, group="session", exit_on_error=False)
    async def on_raw_log_view_child_requested(self, event: RawLogView.ChildRequested) -> None:
        child = _named_child(event.record)
        state = self.open
        if child is None and state is not None:
            try:
                children = (await self.browser.storage.list_children(state.node.session_id, limit=2)).items
            except Exception as error:  # noqa: BLE001
                self._failed("Could not list delegated sessions", error)
                return
            if len(children) == 1:
                child = children[0].session_id
        if child is None:
            self.notify("This message names no delegated session", markup=False)
            return
        self.open_session_by_id(child, None, push=True)

    def on_inspector_summary_opened(self, event: Inspector.SummaryOpened) -> None:
        snapshot = event.snapshot
        # Formatted (10 MB cleaned) in the detail screen's thread, not here.
        self.app.push_screen(
            MessageDetail(f"v{snapshot.version} summary", lambda: join(summary_blocks(snapshot, limit=None)))
        )

    def on_inspector_version_chosen(self, event: Inspector.VersionChosen) -> None:
        if self.open is not None and self.open.model_view:
            self.open.model_view = False
        self.jump_to(event.snapshot.compacted_through_sequence)

    def _failed(self, what: str, error: Exception) -> None:
        if self.browser.is_connection_failure(error):
            self._disconnected(error, announce=False)  # the notification below says it
        self.notify(f"{what}: {clean(error)}", severity="error", markup=False, timeout=8)


def _freeze_startup_objects() -> None:
    """Exempt what start-up made (modules, classes, the first screen) from collection.

    They live as long as the app. Without this, every full garbage collection walks some
    150,000 of them and pauses the app for about 100 ms in the middle of a key press.
    """
    gc.freeze()


def _named_child(record: RawMessageRecord) -> str | None:
    """The child session a delegation names: a task result's JSON ``session_id``."""
    message = record.message
    if not (isinstance(message, ToolMessage) and isinstance(message.content, str)):
        return None
    try:
        value: Any = json.loads(message.content)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("session_id"), str):
        return str(value["session_id"])
    return None
