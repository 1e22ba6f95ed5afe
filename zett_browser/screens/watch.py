"""Provides the base of the browsing screens: the store, the one read helper, and polling.

A :class:`WatchingScreen` is built with its store and options (it never reaches into the
app for data). :meth:`WatchingScreen.fetch` is the one place a failed read becomes a
notice; the change poll re-reads only what a committed change can touch.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from textual import work
from textual.screen import Screen

from .. import paging
from ..model import RawLogBounds, RawMessageRecord, SessionNode, SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..model.store import BrowsingStore
from ..paging import PageRequest, Place
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.safe import clean
from ..widgets.session_tree import SessionTree
from .options import BrowserOptions
from .quiet import QuietGate

T = TypeVar("T")

ROOTS_PAGE = 100
CHILDREN_PAGE = 200


class Failed:
    """What :meth:`WatchingScreen.fetch` returns when the read failed (already reported)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


@dataclass
class OpenSession:
    """What the Raw Log pane shows now."""

    node: SessionNode
    count: int = 0
    first: int = 0
    last: int = 0
    #: Every snapshot version's metadata, and the latest one decoded (the model's summary).
    snapshots: list[SnapshotMeta] = field(default_factory=list)
    model_view: bool = False
    latest: SnapshotInfo | None = None
    #: ``snapshot_mark`` when ``snapshots`` were read by a poll (None: not compared yet).
    snapshot_mark: tuple[int, str | None] | None = None


class WatchingScreen(Screen[None]):
    """A screen over one store that follows the changes another process commits."""

    def __init__(self, store: BrowsingStore, options: BrowserOptions) -> None:
        super().__init__()
        self.store = store
        self.options = options
        self.open: OpenSession | None = None
        self.history: tuple[Place, ...] = ()
        self._token: tuple[object, ...] | None = None
        self._polling = False
        #: Keep the Raw Log at the newest message while the store grows.
        self.follow = options.follow
        #: Messages appended after the shown page while the user looks elsewhere.
        self.unseen = 0
        #: Why the server cannot be reached, while it cannot (None: connected).
        self.offline: str | None = None
        self._started = False
        #: The first read of the roots has answered (or failed): polls may start.
        self.roots_read = False
        #: The tree width the user asked for with [ and ] (None: the stylesheet's).
        self._tree_width: int | None = None
        #: Start-up's background work waits for a pause in the keys (see :mod:`.quiet`).
        self.quiet = QuietGate(self.set_timer, self.call_after_refresh)

    def on_key(self) -> None:
        self.quiet.activity()

    async def _load_page(self, request: PageRequest) -> None:
        raise NotImplementedError

    def _show_status(self, records: list[RawMessageRecord]) -> None:
        raise NotImplementedError

    def _store_changed(self) -> None:
        """Something was committed to the store since the last poll (the side index follows)."""

    async def fetch(self, call: Awaitable[T], failure: str | None = None) -> T | Failed:
        """Run one storage read; report a failure and return :class:`Failed` instead.

        ``failure`` names what failed for the user; None keeps it quiet (a background
        re-read retried at the next tick), except that a lost server is announced once.
        """
        try:
            return await call
        except Exception as error:  # noqa: BLE001 - shown to the user, never a crash
            lost = self.options.is_connection_failure(error)
            if failure is None:
                self.log.warning(f"background read failed: {error!r}")
                if lost:
                    self._disconnected(error)
            else:
                if lost:
                    self._disconnected(error, announce=False)  # the notification below says it
                self.notify(f"{failure}: {clean(error)}", severity="error", markup=False, timeout=8)
            return Failed(error)

    # ---------------------------------------------------------------- the server's state

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
        self.sub_title = f"{self.store.display_name} · connection lost, retrying"

    def _connected(self) -> None:
        if self.offline is not None:
            self.offline = None
            self.sub_title = self.store.display_name
            self.notify("Reconnected to the store", markup=False, timeout=4)

    # ---------------------------------------------------------------- following a live store

    def poll_changes(self) -> None:
        """Start a check for changes unless the previous one is still running, or the
        first read of the roots has not answered yet (it takes the first token)."""
        if not self._polling and self.roots_read:
            self._polling = True
            self._poll()

    @work(group="poll", exit_on_error=False)
    async def _poll(self) -> None:
        """Compare the store's change token; re-read only what a change can touch.

        A check is never cancelled by the next tick (that could drop a change whose token
        was already recorded), and the token is recorded only after the re-read.
        """
        try:
            token = await self.fetch(self.store.change_token())
            if isinstance(token, Failed):
                return  # a busy store is retried at the next tick
            self._connected()
            if token != self._token:
                if self._token is not None:
                    self._store_changed()
                await self._refresh_tree()
                await self._refresh_open_session()
                self._token = token
        finally:
            self._polling = False

    async def _refresh_tree(self) -> None:
        tree = self.query_one(SessionTree)
        expanded = [node for node in tree.expanded_session_nodes() if isinstance(node.data, SessionNode)]
        ids = [node.data.session_id for node in expanded if isinstance(node.data, SessionNode)]
        # One read for the roots and every expanded node (it was one read per node).
        result = await self.fetch(self.store.tree_refresh(ids, roots_limit=ROOTS_PAGE, children_limit=CHILDREN_PAGE))
        if isinstance(result, Failed):
            return
        roots, children = result
        tree.merge_sessions(tree.root, roots.items, newest_first=True)
        for node, session_id in zip(expanded, ids, strict=True):
            tree.merge_sessions(node, children[session_id].items, newest_first=False)

    async def _refresh_open_session(self) -> None:
        state = self.open
        if state is None:
            return
        session_id = state.node.session_id
        store = self.store

        async def read() -> tuple[RawLogBounds, tuple[int, str | None], list[SnapshotMeta]]:
            bounds, mark = await store.raw_bounds(session_id), await store.snapshot_mark(session_id)
            # Version metadata is read again only when a snapshot was added (or the first time).
            if mark == state.snapshot_mark:
                return bounds, mark, state.snapshots
            return bounds, mark, await _versions_after_change(store, session_id, state.snapshots, mark)

        result = await self.fetch(read())
        if isinstance(result, Failed):
            return
        bounds, mark, snapshots = result
        snapshots_changed = snapshots is not state.snapshots and snapshots != state.snapshots
        state.snapshot_mark = mark
        view = self.query_one(RawLogView)
        grew = bounds.count != state.count
        if not grew and not snapshots_changed:
            return
        shown_last = view.records[-1].sequence if view.records else 0
        at_end = shown_last >= state.last
        added = max(0, (bounds.last_sequence or 0) - state.last)
        state.count, state.first, state.last = bounds.count, bounds.first_sequence or 0, bounds.last_sequence or 0
        if snapshots_changed:
            latest = await self.fetch(self.store.snapshot_version(session_id))
            state.latest = None if isinstance(latest, Failed) else latest
        state.snapshots = snapshots
        if snapshots_changed or not snapshots:  # with none, the pane shows the message count
            loader = partial(self.store.snapshot_version, session_id)
            self.query_one(Inspector).show(snapshots, latest=state.latest, message_count=state.count, loader=loader)
        if self.follow:
            await self._load_page(paging.last_page(select=state.last))
            self.unseen = 0
        elif at_end and len(view.records) < self.options.page_size:
            # New rows belong on this unfilled page: re-read it, keeping the cursor.
            keep = view.current.sequence if view.current is not None else None
            scroll = view.scroll_y
            start = view.records[0].sequence - 1 if view.records else 0
            await self._load_page(PageRequest(after=start, select=keep))
            view.rendered_lines()  # the whole page, so the old scroll position exists again
            view.scroll_to(y=scroll, animate=False)
            self.unseen = 0
        else:
            self.unseen += added
            self._show_status(view.records)


async def _versions_after_change(
    store: BrowsingStore, session_id: str, known: list[SnapshotMeta], mark: tuple[int, str | None]
) -> list[SnapshotMeta]:
    """Every version's metadata once the snapshot mark changed: only the versions after the
    newest known one are read when that accounts for the new mark (compaction only adds
    versions); anything else (versions deleted, replaced) reads them all again.

    On a session with 2,500 versions compacted as it grows, reading all of them at each new
    version held the loop ~20 ms (converting 2,500 rows) every few seconds.
    """
    count, newest = mark
    if known and count > len(known):
        added: list[SnapshotMeta] = []
        after = known[-1].version
        while True:
            chunk = await store.snapshot_versions(session_id, after_version=after, limit=VERSIONS_STEP)
            added.extend(chunk)
            if len(chunk) < VERSIONS_STEP:
                break
            after = chunk[-1].version
        versions = [*known, *added]
        if len(versions) == count and newest is not None and newest == max(meta.id for meta in versions):
            return versions
    return await store.all_snapshot_versions(session_id)


#: Versions read per step when only the new ones are read.
VERSIONS_STEP = 1_000
