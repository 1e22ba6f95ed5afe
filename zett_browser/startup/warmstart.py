"""Provides the store as the first screen sees it: the start-up reader's results first.

The start-up reader (:class:`~zett_browser.storage.quickstart.QuickStart`) reads a SQLite
store's first screen on a thread while Textual starts. :class:`WarmStore` answers a call
whose exact arguments it read (or is reading) with that result, once; anything else, and
everything after the first change poll, goes to the store itself. Results are the
storage's own records, so the screen cannot tell the difference except in time; a failed
warm read fails the screen's call the same way. This module imports neither Textual nor
the storage's SQL.

(A second warm start, the same reads through the SQL storage on a thread for the stores
the start-up reader does not read, measured no gain, also on PostgreSQL 20 ms away, and
was removed: benchmarks/README.md.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from ..model.store import BrowsingStore
from ..storage.handout import DECLINED as DECLINED  # re-exported: where callers found it
from ..storage.handout import Warm as Warm
from ..storage.handout import key_of as key_of

if TYPE_CHECKING:
    from datetime import datetime

    from ..model.compaction import CurveColumn, LedgerFacts, RangeText, SnapshotMeta
    from ..model.context import ContextRow, PointRows
    from ..model.origins import Origin
    from ..model.records import Page, RawLogBounds, RawMessageRecord, SessionCursor, SessionNode, SnapshotInfo
    from ..model.steps import StepRow
    from ..model.timing import ChildSpan, TimingRow

P = ParamSpec("P")
T = TypeVar("T")


class WarmStore:
    """The store for the first screen: warm results first, the store itself otherwise.

    A :class:`BrowsingStore` written out call by call (mypy checks it against the
    protocol below): the first screen's calls are answered from ``warm`` when it read (or is
    reading) that exact call, once; every call goes to the store otherwise.
    """

    def __init__(self, store: BrowsingStore, warm: Warm) -> None:
        self._store = store
        self._warm = warm
        self._tokens = 0

    async def _served(self, name: str, read: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """The warm result of this call if there is one, else ``read``'s (the store's method ``name``)."""
        future = self._warm.take(key_of(name, args, kwargs))
        if future is not None:
            result = await asyncio.wrap_future(future)
            if result is not DECLINED:
                warm: T = result  # the result of the same call of the same store method
                return warm
        return await read(*args, **kwargs)

    @property
    def display_name(self) -> str:
        return self._store.display_name

    # ------------------------------------------------------------------ served warm

    async def change_token(self) -> tuple[object, ...]:
        self._tokens += 1
        if self._tokens > 1:
            self._warm.close()  # the first poll: from now on the store as it is
        return await self._served("change_token", self._store.change_token)

    async def list_roots(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        return await self._served("list_roots", self._store.list_roots, limit=limit, cursor=cursor)

    async def get_node(self, session_id: str) -> SessionNode | None:
        return await self._served("get_node", self._store.get_node, session_id)

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        return await self._served("raw_bounds", self._store.raw_bounds, session_id)

    async def all_snapshot_versions(self, session_id: str, *, page: int = 1_000) -> list[SnapshotMeta]:
        return await self._served("all_snapshot_versions", self._store.all_snapshot_versions, session_id, page=page)

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        return await self._served("snapshot_version", self._store.snapshot_version, session_id, version)

    async def ancestors(self, session_id: str) -> list[SessionNode]:
        return await self._served("ancestors", self._store.ancestors, session_id)

    async def raw_page(
        self, session_id: str, *, after_sequence: int | None = 0, after_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await self._served(
            "raw_page", self._store.raw_page, session_id, after_sequence=after_sequence, after_id=after_id, limit=limit
        )

    # ------------------------------------------------------------------ the store's own

    async def list_children(
        self, session_id: str, *, limit: int = 100, cursor: SessionCursor | None = None
    ) -> Page[SessionNode]:
        return await self._store.list_children(session_id, limit=limit, cursor=cursor)

    async def tree_refresh(
        self, session_ids: Sequence[str], *, roots_limit: int = 100, children_limit: int = 100
    ) -> tuple[Page[SessionNode], dict[str, Page[SessionNode]]]:
        return await self._store.tree_refresh(session_ids, roots_limit=roots_limit, children_limit=children_limit)

    async def list_orphans(self, *, limit: int = 100, cursor: SessionCursor | None = None) -> Page[SessionNode]:
        return await self._store.list_orphans(limit=limit, cursor=cursor)

    async def snapshot_mark(self, session_id: str) -> tuple[int, str | None]:
        return await self._store.snapshot_mark(session_id)

    async def raw_page_before(
        self, session_id: str, *, before_sequence: int | None = None, before_id: str | None = None, limit: int = 50
    ) -> list[RawMessageRecord]:
        return await self._store.raw_page_before(
            session_id, before_sequence=before_sequence, before_id=before_id, limit=limit
        )

    async def snapshot_origins(self, session_id: str, versions: Sequence[SnapshotMeta]) -> dict[int, Origin]:
        return await self._store.snapshot_origins(session_id, versions)

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return await self._store.request_system_rows(session_id, request_id, before_sequence=before_sequence)

    async def last_rows(self, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
        return await self._store.last_rows(session_ids)

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        return await self._store.child_labels(parent_id, nodes)

    async def text_size(self, session_id: str, *, through_sequence: int | None = None) -> int:
        return await self._store.text_size(session_id, through_sequence=through_sequence)

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        return await self._store.context_page(
            session_id, after_sequence=after_sequence, before_sequence=before_sequence, after_id=after_id, limit=limit
        )

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        return await self._store.snapshot_envelope(session_id, version)

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        return await self._store.version_in_force(session_id, when, before_sequence=before_sequence)

    async def point_rows(self, session_id: str, at: int | None) -> PointRows:
        return await self._store.point_rows(session_id, at)

    async def snapshot_versions(
        self, session_id: str, *, after_version: int | None = None, limit: int = 1_000
    ) -> list[SnapshotMeta]:
        return await self._store.snapshot_versions(session_id, after_version=after_version, limit=limit)

    async def ledger_facts(
        self, session_id: str, versions: Sequence[SnapshotMeta], *, previous_boundary: int = 0
    ) -> list[LedgerFacts]:
        return await self._store.ledger_facts(session_id, versions, previous_boundary=previous_boundary)

    async def input_curve(self, session_id: str, *, columns: int, first: int, last: int) -> list[CurveColumn]:
        return await self._store.input_curve(session_id, columns=columns, first=first, last=last)

    async def range_text(self, session_id: str, *, after_sequence: int, through_sequence: int) -> RangeText:
        return await self._store.range_text(
            session_id, after_sequence=after_sequence, through_sequence=through_sequence
        )

    async def step_page(self, session_id: str, *, after_id: str | None = None, limit: int = 500) -> list[StepRow]:
        return await self._store.step_page(session_id, after_id=after_id, limit=limit)

    async def timing_page(
        self,
        session_id: str,
        *,
        after_id: str | None = None,
        before_id: str | None = None,
        from_end: bool = False,
        limit: int = 500,
    ) -> list[TimingRow]:
        return await self._store.timing_page(
            session_id, after_id=after_id, before_id=before_id, from_end=from_end, limit=limit
        )

    async def child_spans(
        self, session_id: str, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[ChildSpan]:
        return await self._store.child_spans(session_id, since=since, until=until)

    async def warm_up(self, *, page_size: int = 50, children_page: int = 200) -> None:
        await self._store.warm_up(page_size=page_size, children_page=children_page)

    async def close(self) -> None:
        await self._store.close()


if TYPE_CHECKING:
    # mypy checks the stand-in against the protocol: a query added there fails here until written above.
    def _conforms(store: WarmStore) -> BrowsingStore:
        return store
