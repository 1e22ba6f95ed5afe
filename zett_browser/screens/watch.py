"""Provides the change poll: the main screen follows the changes another process commits.

:class:`ChangePoller` compares the store's change token at each tick and, when it moved,
re-reads the tree's shown levels and hands the rest to the screen (the open session, the
side index). It is built with the store, the one read helper and the tree; the screen
routes the ticks to it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

from ..model import SessionNode, SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..model.store import BrowsingStore
from ..widgets.session_tree import SessionTree
from .reads import Failed, Services

ROOTS_PAGE = 100
CHILDREN_PAGE = 200


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


class ChangePoller:
    """Follows a live store: one check at a time, the token recorded after the re-read.

    Args:
        services: The store, the read helper (a lost server is announced there), workers.
        tree: The session tree whose shown levels are merged with the store's.
        store_changed: Called when a change is seen after the first token (the index follows).
        refresh_rest: Re-reads what else a change can touch (the open session, a ledger).
    """

    def __init__(
        self,
        services: Services,
        tree: SessionTree,
        *,
        store_changed: Callable[[], object],
        refresh_rest: Callable[[], Awaitable[object]],
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._tree = tree
        self._run = services.run_worker
        self._store_changed = store_changed
        self._refresh_rest = refresh_rest
        #: The change token of the last re-read (None: not read yet).
        self.token: tuple[object, ...] | None = None
        self._polling = False
        #: The first read of the roots has answered (or failed): polls may start.
        self.roots_read = False
        #: Called with the sessions a re-read added or changed (their states are read again).
        self.changed: Callable[[list[SessionNode]], object] | None = None

    def roots_answered(self, token: tuple[object, ...] | None) -> None:
        """The first read of the roots answered, with the token it took (None: it failed)."""
        self.roots_read = True
        if token is not None:
            self.token = token

    def poll(self) -> None:
        """Start a check for changes unless the previous one is still running, or the
        first read of the roots has not answered yet (it takes the first token)."""
        if not self._polling and self.roots_read:
            self._polling = True
            self._run(partial(self._poll), name="_poll", group="poll", description="_poll()", exit_on_error=False)

    async def _poll(self) -> None:
        """Compare the store's change token; re-read only what a change can touch.

        A check is never cancelled by the next tick (that could drop a change whose token
        was already recorded), and the token is recorded only after the re-read.
        """
        try:
            token = await self._reader.fetch(self._store.change_token())
            if isinstance(token, Failed):
                return  # a busy store is retried at the next tick
            self._reader.connected()
            if token != self.token:
                if self.token is not None:
                    self._store_changed()
                await self._refresh_tree()
                await self._refresh_rest()
                self.token = token
        finally:
            self._polling = False

    async def _refresh_tree(self) -> None:
        tree = self._tree
        expanded = [node for node in tree.expanded_session_nodes() if isinstance(node.data, SessionNode)]
        ids = [node.data.session_id for node in expanded if isinstance(node.data, SessionNode)]
        # One read for the roots and every expanded node (it was one read per node).
        result = await self._reader.fetch(
            self._store.tree_refresh(ids, roots_limit=ROOTS_PAGE, children_limit=CHILDREN_PAGE)
        )
        if isinstance(result, Failed):
            return
        roots, children = result
        changed = tree.merge_roots(roots.items)
        for node, session_id in zip(expanded, ids, strict=True):
            changed += tree.merge_sessions(node, children[session_id].items, newest_first=False)
        if changed and self.changed is not None:
            self.changed(changed)


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
