"""Provides :class:`MultiStore`: several open stores browsed as one (a :class:`BrowsingStore`).

- Lists merge the stores' own keyset pages in the stores' order (:mod:`.merge`): roots by
  activity, a session's children by creation, whichever store holds them. A child written
  to another store than its parent (zett-agent's default subagent profiles always write to
  ``~/.zett-agent/sessions.sqlite3``) is therefore listed under its parent, and is no
  orphan: the orphans are those whose parent no open store holds.
- Every read about one session goes to the store holding it, learnt from each node listed
  (or asked of every store once). The parent chain crosses stores.
- Each node carries its store's short name (:attr:`SessionNode.store`), which the tree,
  the search hits and the details show.

Every member stays read-only; closing closes them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from ..model import Page, RawLogBounds, RawMessageRecord, SessionCursor, SessionNode, SnapshotInfo
from ..model.compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta
from ..model.context import ContextRow, PointRows
from ..model.origins import Origin
from ..model.steps import StepRow
from ..model.store import BrowsingStore, GroupedStore
from ..model.timing import ChildSpan, TimingRow
from .members import Member, counted, short_names
from .merge import first_pages, merged_page, newest_activity_first, oldest_first

T = TypeVar("T")
#: Longest parent chain followed across stores (each store stops its own walk earlier).
MAX_DEPTH = 1_000


class MultiStore:
    """Several stores as one history (see the module docstring).

    Args:
        stores: The open stores, in the order given on the command line (the first one
            answers first when two hold the same session id).
    """

    def __init__(self, stores: Sequence[BrowsingStore]) -> None:
        if len(stores) < 2:
            raise ValueError("a MultiStore joins two or more stores")
        names = short_names([store.display_name for store in stores])
        self.members = [Member(name, store) for name, store in zip(names, stores, strict=True)]
        #: Session id -> index of the member holding it (learnt from every node seen).
        self._home: dict[str, int] = {}

    @property
    def display_name(self) -> str:
        return " + ".join(member.store.display_name for member in self.members)

    # -- where a session lives ---------------------------------------------------------

    def _learn(self, member: int, nodes: Sequence[SessionNode]) -> list[SessionNode]:
        """Remember where ``nodes`` live; name the store on those whose parent is not in it
        (roots, orphans, a child written to another store than its parent's)."""
        home = self.members[member]
        for node in nodes:
            self._home.setdefault(node.session_id, member)
        return [home.tag(node) if self._home.get(node.parent_session_id or "") != member else node for node in nodes]

    async def _counted(self, nodes: Sequence[SessionNode]) -> list[SessionNode]:
        return await counted(self.members, self._home, nodes)

    async def _where(self, session_id: str) -> int | None:
        """The member holding ``session_id`` (asked of every store the first time), or None."""
        if session_id in self._home:
            return self._home[session_id]
        found = await asyncio.gather(*(member.store.get_node(session_id) for member in self.members))
        for index, node in enumerate(found):
            if node is not None:
                self._home[session_id] = index
                return index
        return None

    async def _on(self, session_id: str, read: Callable[[BrowsingStore], Awaitable[T]], missing: T) -> T:
        """``read`` on the store holding ``session_id``; ``missing`` when none does."""
        where = await self._where(session_id)
        return missing if where is None else await read(self.members[where].store)

    async def home_of(self, session_id: str) -> int | None:
        """The index of the member holding ``session_id`` (None: no open store does)."""
        return await self._where(session_id)

    def store_of(self, session_id: str) -> str | None:
        """The short name of the store known to hold ``session_id`` (None: not seen yet)."""
        where = self._home.get(session_id)
        return None if where is None else self.members[where].name

    # -- lists ---------------------------------------------------------------------------

    @property
    def store_names(self) -> list[str]:
        """The members' short names, in the order given."""
        return [member.name for member in self.members]

    async def roots_in(self, index: int, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """One member's roots (the tree grouped by store), named by their store."""
        page = await self.members[index].store.list_roots(limit=limit, cursor=cursor)
        return Page(await self._counted(self._learn(index, page.items)), page.next_cursor)

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        async def fetch(member: int, at: SessionCursor | None, size: int) -> Page[SessionNode]:
            page = await self.members[member].store.list_roots(limit=size, cursor=at)
            return Page(self._learn(member, page.items), page.next_cursor)

        page = await merged_page(fetch, len(self.members), newest_activity_first, limit=limit, cursor=cursor)
        return Page(await self._counted(page.items), page.next_cursor)

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        await self._where(session_id)  # known, so children in the parent's own store are not named

        async def fetch(member: int, at: SessionCursor | None, size: int) -> Page[SessionNode]:
            page = await self.members[member].store.list_children(session_id, limit=size, cursor=at)
            return Page(self._learn(member, page.items), page.next_cursor)

        page = await merged_page(fetch, len(self.members), oldest_first, limit=limit, cursor=cursor)
        return Page(await self._counted(page.items), page.next_cursor)

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        homes: dict[str, bool] = {}

        async def fetch(member: int, at: SessionCursor | None, size: int) -> Page[SessionNode]:
            page = await self.members[member].store.list_orphans(limit=size, cursor=at)
            nodes = self._learn(member, page.items)
            for node in nodes:  # a parent another open store holds makes it no orphan
                parent = node.parent_session_id
                if parent and parent not in homes and "parent cycle" not in node.problems:
                    homes[parent] = await self._where(parent) is not None
            return Page(nodes, page.next_cursor)

        def keep(_member: int, node: SessionNode) -> bool:
            return "parent cycle" in node.problems or not homes.get(node.parent_session_id or "", False)

        order = newest_activity_first
        page = await merged_page(fetch, len(self.members), order, limit=limit, cursor=cursor, keep=keep)
        return Page(await self._counted(page.items), page.next_cursor)

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        for session_id in session_ids:
            await self._where(session_id)
        answers = await asyncio.gather(
            *(
                member.store.tree_refresh(session_ids, roots_limit=roots_limit, children_limit=children_limit)
                for member in self.members
            )
        )
        roots = [Page(self._learn(index, page.items), page.next_cursor) for index, (page, _) in enumerate(answers)]
        children: dict[str, Page[SessionNode]] = {}
        for session_id in session_ids:
            pages = [
                Page(self._learn(index, kids[session_id].items), kids[session_id].next_cursor)
                for index, (_, kids) in enumerate(answers)
                if session_id in kids
            ]
            if pages:
                merged = first_pages(pages, oldest_first, children_limit)
                children[session_id] = Page(await self._counted(merged.items), merged.next_cursor)
        first = first_pages(roots, newest_activity_first, roots_limit)
        return Page(await self._counted(first.items), first.next_cursor), children

    async def child_spans(
        self, session_id: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[ChildSpan]:
        spans = await asyncio.gather(
            *(member.store.child_spans(session_id, since=since, until=until) for member in self.members)
        )
        return sorted(
            (span for found in spans for span in found),
            key=lambda span: span.created_at.timestamp() if span.created_at else 0.0,
        )

    # -- one session -------------------------------------------------------------------

    async def get_node(self, session_id: str) -> SessionNode | None:
        where = await self._where(session_id)
        if where is None:
            return None
        node = await self.members[where].store.get_node(session_id)
        return None if node is None else (await self._counted(self._learn(where, [node])))[0]

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        """The parent chain, root first, following a parent into the open store holding it."""
        chain: list[SessionNode] = []
        seen = {session_id}
        current = session_id
        while len(chain) < MAX_DEPTH and (where := await self._where(current)) is not None:
            found = self._learn(where, await self.members[where].store.ancestors(current))
            chain = found + chain
            seen.update(node.session_id for node in found)
            top = found[0] if found else await self.get_node(current)
            parent = top.parent_session_id if top is not None else None
            if not parent or parent in seen or (node := await self.get_node(parent)) is None:
                break  # a root, a cycle (its store marked it) or a parent no open store holds
            chain.insert(0, node)  # in another store: its own chain is read from there
            seen.add(parent)
            current = parent
        return chain

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """Labels from the parent's store (what its task calls asked), then from each
        child's own store for those it could not label (their first prompts)."""
        labels: dict[str, str] = {}
        if parent_id is not None and (where := await self._where(parent_id)) is not None:
            labels.update(await self.members[where].store.child_labels(parent_id, nodes))
        by_store: dict[int, list[SessionNode]] = {}
        for node in nodes:
            if node.session_id not in labels and (home := await self._where(node.session_id)) is not None:
                by_store.setdefault(home, []).append(node)
        for home, group in by_store.items():
            labels.update(await self.members[home].store.child_labels(parent_id, group))
        return labels

    async def last_rows(self, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
        by_store: dict[int, list[str]] = {}
        for session_id in session_ids:
            if (home := await self._where(session_id)) is not None:
                by_store.setdefault(home, []).append(session_id)
        rows: dict[str, list[RawMessageRecord]] = {}
        for home, group in by_store.items():
            rows.update(await self.members[home].store.last_rows(group))
        return rows

    async def snapshot_mark(self, session_id: str) -> tuple[int, str | None]:
        return await self._on(session_id, lambda store: store.snapshot_mark(session_id), (0, None))

    async def raw_page(
        self, session_id: str, *, after_sequence: int | None = 0, after_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await self._on(
            session_id,
            lambda store: store.raw_page(session_id, after_sequence=after_sequence, after_id=after_id, limit=limit),
            [],
        )

    async def raw_page_before(
        self, session_id: str, *, before_sequence: int | None = None, before_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await self._on(
            session_id,
            lambda store: store.raw_page_before(
                session_id, before_sequence=before_sequence, before_id=before_id, limit=limit
            ),
            [],
        )

    async def snapshot_origins(self, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
        return await self._on(session_id, lambda store: store.snapshot_origins(session_id, versions), {})

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return await self._on(
            session_id,
            lambda store: store.request_system_rows(session_id, request_id, before_sequence=before_sequence),
            [],
        )

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        return await self._on(session_id, lambda store: store.raw_bounds(session_id), RawLogBounds(None, None, 0))

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        return await self._on(
            session_id, lambda store: store.text_size(session_id, through_sequence=through_sequence), 0
        )

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        return await self._on(
            session_id,
            lambda store: store.context_page(
                session_id,
                after_sequence=after_sequence,
                before_sequence=before_sequence,
                after_id=after_id,
                limit=limit,
            ),
            [],
        )

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        return await self._on(session_id, lambda store: store.snapshot_envelope(session_id, version), None)

    async def snapshot_versions(
        self, session_id: str, *, after_version: int | None = None, limit: int = 1_000
    ) -> list[SnapshotMeta]:
        return await self._on(
            session_id, lambda store: store.snapshot_versions(session_id, after_version=after_version, limit=limit), []
        )

    async def all_snapshot_versions(self, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
        return await self._on(session_id, lambda store: store.all_snapshot_versions(session_id, page=page), [])

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        return await self._on(
            session_id,
            lambda store: store.version_in_force(session_id, when, before_sequence=before_sequence),
            (None, 0),
        )

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        return await self._on(session_id, lambda store: store.snapshot_version(session_id, version), None)

    async def point_rows(self, session_id: str, at: int | None) -> PointRows:
        return await self._on(
            session_id, lambda store: store.point_rows(session_id, at), PointRows(1 if at is None else at)
        )

    async def ledger_facts(
        self, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
    ) -> list[LedgerFacts]:
        return await self._on(
            session_id,
            lambda store: store.ledger_facts(session_id, versions, previous_boundary=previous_boundary),
            [],
        )

    async def input_curve(self, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
        return await self._on(
            session_id, lambda store: store.input_curve(session_id, columns=columns, first=first, last=last), []
        )

    async def range_text(self, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
        where = await self._where(session_id)
        if where is None:
            raise LookupError(f"no open store holds session {session_id}")
        return await self.members[where].store.range_text(
            session_id, after_sequence=after_sequence, through_sequence=through_sequence
        )

    async def step_page(self, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
        return await self._on(session_id, lambda store: store.step_page(session_id, after_id=after_id, limit=limit), [])

    async def timing_page(
        self,
        session_id: str,
        *,
        after_id: str | None = None,
        before_id: str | None = None,
        from_end: bool = False,
        limit: int = 500,
    ) -> list[TimingRow]:
        return await self._on(
            session_id,
            lambda store: store.timing_page(
                session_id, after_id=after_id, before_id=before_id, from_end=from_end, limit=limit
            ),
            [],
        )

    # -- the whole -------------------------------------------------------------------------

    async def change_token(self) -> tuple[object, ...]:
        return tuple(await asyncio.gather(*(member.store.change_token() for member in self.members)))

    async def warm_up(self, *, page_size: int = 50, children_page: int = 200) -> None:
        await asyncio.gather(
            *(member.store.warm_up(page_size=page_size, children_page=children_page) for member in self.members)
        )

    async def close(self) -> None:
        for member in self.members:
            await member.store.close()


if TYPE_CHECKING:  # mypy checks the class against the protocol here

    def _check(store: MultiStore) -> BrowsingStore:
        return store

    def _grouped(store: MultiStore) -> GroupedStore:
        return store
