"""Provides the browser's reads on the storage facade: each method one call into a query module.

The queries live by concern in :mod:`.rawlog` (a session's Raw Log and snapshots),
:mod:`.context` (the time-travel context), :mod:`.compaction` (versions, the ledger, the
curve), :mod:`.timing` (the timing view), :mod:`.labels` (untitled children) and :mod:`.tree`
(roots, children, orphans, ancestors: a :class:`~.tree.SessionTree` per store); each
takes the store's :class:`~.reader.Reader`. The methods here keep the names, arguments
and defaults the app and its tests call.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cached_property

from ..model.compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta
from ..model.context import ContextRow, PointRows
from ..model.origins import Origin
from ..model.records import (
    Page,
    RawLogBounds,
    RawMessageRecord,
    SessionCursor,
    SessionNode,
    SessionTotals,
    SnapshotInfo,
)
from ..model.steps import StepRow
from ..model.timing import ChildSpan, TimingRow
from . import compaction, context, labels, origins, point, prompts, rawlog, state, steps, timing
from . import prefix as prefixes
from .core import SessionStorageCore
from .tree import SessionTree


class BrowserQueries(SessionStorageCore):
    """The browser's tree, Raw Log, context, compaction, timing and label reads."""

    @cached_property
    def _tree(self) -> SessionTree:
        """The session tree's queries over this store (they keep their prepared statements)."""
        return SessionTree(self.reader)

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Root sessions (no parent), newest activity first, one keyset page.

        See :meth:`.tree.SessionTree.list_roots`.
        """
        return await self._tree.list_roots(limit=limit, cursor=cursor)

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        """Sessions delegated by ``session_id``, in the order they were created.

        See :meth:`.tree.SessionTree.list_children`.
        """
        return await self._tree.list_children(session_id, limit=limit, cursor=cursor)

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        """The first page of roots and of each session's children, in one pooled read.

        See :meth:`.tree.SessionTree.tree_refresh`.
        """
        return await self._tree.tree_refresh(session_ids, roots_limit=roots_limit, children_limit=children_limit)

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Delegated sessions whose parent row is missing, and one member of each parent
        cycle (marked "parent cycle"), newest activity first.

        See :meth:`.tree.SessionTree.list_orphans`.
        """
        return await self._tree.list_orphans(limit=limit, cursor=cursor)

    async def get_node(self, session_id: str) -> SessionNode | None:
        """One session as a tree node, or None.

        See :meth:`.tree.SessionTree.get_node`.
        """
        return await self._tree.get_node(session_id)

    async def get_nodes(self, session_ids: Sequence[str]) -> list[SessionNode]:
        """The sessions among ``session_ids`` that exist, as tree nodes, in the order given
        (one read; see :func:`.nodebatch.nodes_by_id`)."""
        return await self._tree.get_nodes(session_ids)

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        """The chain of parents of a session, root first (present rows only).

        See :meth:`.tree.SessionTree.ancestors`.
        """
        return await self._tree.ancestors(session_id)

    async def list_snapshots(self, session_id: str) -> list[SnapshotInfo]:
        """Every snapshot version of a session, oldest first; unreadable ones say why.

        See :func:`.rawlog.list_snapshots`.
        """
        return await rawlog.list_snapshots(self.reader, session_id)

    async def snapshot_mark(self, session_id: str) -> tuple[int, str | None]:
        """How many snapshot versions a session has and the newest id: a cheap change check.

        See :func:`.rawlog.snapshot_mark`.
        """
        return await rawlog.snapshot_mark(self.reader, session_id)

    async def raw_page(
        self,
        session_id: str,
        *,
        after_sequence: int | None = 0,
        after_id: str | None = None,
        limit: int = 50,
    ) -> list[RawMessageRecord]:
        """Up to ``limit`` Raw Log records after a position, in (sequence, id) order.

        See :func:`.rawlog.raw_page`.
        """
        return await rawlog.raw_page(
            self.reader, session_id, after_sequence=after_sequence, after_id=after_id, limit=limit
        )

    async def raw_page_before(
        self,
        session_id: str,
        *,
        before_sequence: int | None = None,
        before_id: str | None = None,
        limit: int = 50,
    ) -> list[RawMessageRecord]:
        """Up to ``limit`` records just before a position, ascending; None: the last page.

        See :func:`.rawlog.raw_page_before`.
        """
        return await rawlog.raw_page_before(
            self.reader, session_id, before_sequence=before_sequence, before_id=before_id, limit=limit
        )

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        """First and last integer sequence and the number of Raw Log rows of a session.

        See :func:`.rawlog.raw_bounds`.
        """
        return await rawlog.raw_bounds(self.reader, session_id)

    async def session_totals(self, session_id: str) -> SessionTotals:
        """Messages by kind, summed token counters and durations of one session.

        See :func:`.rawlog.session_totals`.
        """
        return await rawlog.session_totals(self.reader, session_id)

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        """Characters of plain text (the ``content`` column) in a Raw Log prefix.

        See :func:`.rawlog.text_size`.
        """
        return await rawlog.text_size(self.reader, session_id, through_sequence=through_sequence)

    async def change_token(self) -> tuple[object, ...]:
        """A cheap value that changes whenever a session, message or snapshot is committed.

        See :func:`.rawlog.change_token`.
        """
        return await rawlog.change_token(self.reader)

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        """Up to ``limit`` rows with ``after_sequence < sequence < before_sequence``, in
        (sequence, id) order, each with its stored envelope; ``after_id`` continues after
        that exact row (duplicate sequences in a damaged store are neither lost nor repeated).

        See :func:`.context.context_page`.
        """
        return await context.context_page(
            self.reader,
            session_id,
            after_sequence=after_sequence,
            before_sequence=before_sequence,
            after_id=after_id,
            limit=limit,
        )

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        """The stored ``message_json`` of one snapshot version, or None when absent.

        See :func:`.context.snapshot_envelope`.
        """
        return await context.snapshot_envelope(self.reader, session_id, version)

    async def snapshot_versions(
        self, session_id: str, *, after_version: int | None = None, limit: int = 1_000
    ) -> list[SnapshotMeta]:
        """Up to ``limit`` versions after ``after_version`` (from the first when None), by version.

        See :func:`.compaction.snapshot_versions`.
        """
        return await compaction.snapshot_versions(self.reader, session_id, after_version=after_version, limit=limit)

    async def all_snapshot_versions(self, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
        """Every version's metadata, read in keyset pages of ``page``.

        See :func:`.compaction.all_snapshot_versions`.
        """
        return await compaction.all_snapshot_versions(self.reader, session_id, page=page)

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        """The version in force at ``when`` (the step of message ``before_sequence``) and how
        many undated versions newer than it were left out.

        See :func:`.compaction.version_in_force`.
        """
        return await compaction.version_in_force(self.reader, session_id, when, before_sequence=before_sequence)

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        """One version with its summary decoded (None: the latest), or None when there is none.

        See :func:`.compaction.snapshot_version`.
        """
        return await compaction.snapshot_version(self.reader, session_id, version)

    async def point_rows(self, session_id: str, at: int | None) -> PointRows:
        """What placing time travel at message ``at`` reads, in one trip on one connection.

        See :func:`.point.point_rows`.
        """
        return await point.point_rows(self.reader, session_id, at)

    async def ledger_facts(
        self, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
    ) -> list[LedgerFacts]:
        """The ledger's facts for ``versions`` (consecutive, oldest first).

        See :func:`.compaction.ledger_facts`.
        """
        return await compaction.ledger_facts(self.reader, session_id, versions, previous_boundary=previous_boundary)

    async def input_curve(self, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
        """Recorded ``input_tokens`` of the steps in ``first..last``, aggregated into ``columns`` columns.

        See :func:`.compaction.input_curve`.
        """
        return await compaction.input_curve(self.reader, session_id, columns=columns, first=first, last=last)

    async def range_text(self, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
        """The plain text of the rows in ``(after_sequence, through_sequence]``, bounded.

        See :func:`.compaction.range_text`.
        """
        return await compaction.range_text(
            self.reader, session_id, after_sequence=after_sequence, through_sequence=through_sequence
        )

    async def step_page(self, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
        """Up to ``limit`` rows' message, tokens and duration after the row ``after_id``.

        See :func:`.steps.step_page`.
        """
        return await steps.step_page(self.reader, session_id, after_id=after_id, limit=limit)

    async def timing_page(
        self,
        session_id: str,
        *,
        after_id: str | None = None,
        before_id: str | None = None,
        from_end: bool = False,
        limit: int = 500,
    ) -> list[TimingRow]:
        """Up to ``limit`` rows' timing columns, ascending by (sequence, id).

        See :func:`.timing.timing_page`.
        """
        return await timing.timing_page(
            self.reader, session_id, after_id=after_id, before_id=before_id, from_end=from_end, limit=limit
        )

    async def child_spans(
        self, session_id: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[ChildSpan]:
        """Delegated sessions of ``session_id`` created in a time window, oldest first.

        See :func:`.timing.child_spans`.
        """
        return await timing.child_spans(self.reader, session_id, since=since, until=until)

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """Labels for the untitled sessions among ``nodes`` (children of ``parent_id``).

        See :func:`.labels.child_labels`.
        """
        return await labels.child_labels(self.reader, parent_id, nodes)

    async def snapshot_origins(self, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
        """When and by what the newest snapshot versions were made.

        See :func:`.origins.snapshot_origins`.
        """
        return await origins.snapshot_origins(self.reader, session_id, versions)

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        """The system rows one request appended (its system prompt).

        See :func:`.prompts.request_system_rows`.
        """
        return await prompts.request_system_rows(self.reader, session_id, request_id, before_sequence=before_sequence)

    async def last_rows(self, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
        """The rows that tell how each session's last request ended.

        See :func:`.state.last_rows`.
        """
        return await state.last_rows(self.reader, session_ids)

    async def sessions_with_prefix(self, prefix: str, limit: int = prefixes.MAX_CANDIDATES) -> prefixes.PrefixMatch:
        """The sessions whose id starts with ``prefix`` (an exact id names itself alone).

        See :func:`.prefix.sessions_with_prefix`.
        """
        return await prefixes.sessions_with_prefix(self.reader, prefix, limit)


__all__ = ["BrowserQueries"]
