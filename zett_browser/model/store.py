"""Provides the read-only store interface the UI browses through.

Screens are given an object of this shape (the storage's ``SQLSessionStorage`` is one)
and never import the storage package: the interface is typed with the model's records
only, so a screen, a test or a future exporter can be handed any store that answers
these queries. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from .compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta
from .context import ContextRow, PointRows
from .origins import Origin
from .records import Page, RawLogBounds, RawMessageRecord, SessionCursor, SessionNode, SnapshotInfo
from .steps import StepRow
from .timing import ChildSpan, TimingRow


class BrowsingStore(Protocol):
    """The browsing queries of a zett-agent store (all reads)."""

    @property
    def display_name(self) -> str:
        """The store for people: its path, or its URL with any password masked."""
        ...

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Root sessions, newest activity first, one keyset page."""
        ...

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        """Sessions delegated by ``session_id``, in creation order."""
        ...

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        """The first page of roots and of each session's children, in one read."""
        ...

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """Delegated sessions whose parent row is missing."""
        ...

    async def get_node(self, session_id: str) -> SessionNode | None:
        """One session, or None."""
        ...

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        """The parent chain of a session, root first."""
        ...

    async def snapshot_mark(self, session_id: str) -> tuple[int, str | None]:
        """The number of snapshot versions and the newest id (changes when one is added)."""
        ...

    async def raw_page(
        self, session_id: str, *, after_sequence: int | None = 0, after_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        """Up to ``limit`` records after a row, ascending by (sequence, id).

        ``after_sequence=None`` starts at the very first row (sequences <= 0 included);
        with ``after_id`` the page continues after that exact row, so duplicate sequences
        at a page edge are neither skipped nor repeated.
        """
        ...

    async def raw_page_before(
        self, session_id: str, *, before_sequence: int | None = None, before_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        """Up to ``limit`` records just before ``before_sequence`` (the last page when None), ascending."""
        ...

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """Labels of the untitled sessions among ``nodes`` (what the parent's task call asked)."""
        ...

    async def snapshot_origins(self, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
        """When and by what ``versions`` were made (the newest 200 of them; version -> origin)."""
        ...

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        """The system rows one request appended (its system prompt), in sequence order."""
        ...

    async def last_rows(self, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
        """The rows that tell how each session's last request ended (a session left out: they do not tell)."""
        ...

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        """First and last sequence and the row count of a Raw Log."""
        ...

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        """Characters of plain text in a Raw Log prefix."""
        ...

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        """Rows strictly between two sequences, ascending, each with its stored envelope."""
        ...

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        """One snapshot version's stored ``message_json``, or None."""
        ...

    async def snapshot_versions(
        self, session_id: str, *, after_version: int | None = None, limit: int = 1_000
    ) -> list[SnapshotMeta]:
        """One keyset page of version metadata (no summary decoded), by version."""
        ...

    async def all_snapshot_versions(self, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
        """Every version's metadata, read in keyset pages."""
        ...

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        """The version ``load()`` returned at ``when`` (None: now), the step of message
        ``before_sequence``, and how many undated versions newer than it were left out
        (:mod:`zett_browser.model.in_force`)."""
        ...

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        """One version decoded (None: the latest), or None."""
        ...

    async def point_rows(self, session_id: str, at: int | None) -> PointRows:
        """What placing time travel at message ``at`` reads (None: the next step), in one read."""
        ...

    async def ledger_facts(
        self, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
    ) -> list[LedgerFacts]:
        """The compaction ledger's facts of consecutive versions (the rows on screen)."""
        ...

    async def input_curve(self, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
        """Recorded input_tokens aggregated per plot column, in SQL."""
        ...

    async def range_text(self, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
        """The plain text of a Raw Log range, bounded."""

    async def step_page(self, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
        """Up to ``limit`` rows' decoded message, tokens and duration after a row (None: the first), ascending."""
        ...

    async def timing_page(
        self,
        session_id: str,
        *,
        after_id: str | None = None,
        before_id: str | None = None,
        from_end: bool = False,
        limit: int = 500,
    ) -> list[TimingRow]:
        """The timing columns of up to ``limit`` rows, ascending (first, after, before a row, or last)."""
        ...

    async def child_spans(
        self, session_id: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[ChildSpan]:
        """Delegated sessions created in a time window, oldest first."""
        ...

    async def change_token(self) -> tuple[object, ...]:
        """A cheap value that changes whenever anything is committed."""
        ...

    async def warm_up(self, *, page_size: int = 50, children_page: int = 200) -> None:
        """Prepare the queries a first key press makes (reads nothing that exists)."""
        ...

    async def close(self) -> None:
        """Release the connections."""
        ...


@runtime_checkable
class GroupedStore(Protocol):
    """A store that joins several (``zett-browser A B …``): the tree can group by member."""

    @property
    def store_names(self) -> Sequence[str]:
        """The members' short names, in the order given."""
        ...

    async def roots_in(self, index: int, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        """One member's root sessions, newest activity first, one keyset page."""
        ...
