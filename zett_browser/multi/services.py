"""Provides search and usage over several open stores, each with its own side index.

Every member store keeps its own side index (as when it is opened alone). :class:`MultiSearch`
syncs them one after the other (one progress for all), asks each for a page of hits and merges
them newest first, each hit naming its store; the tree filter is the union of the stores'
matches. :class:`MultiUsage` sends each session to its store's totals and merges a tree level
in the chosen order. (Exports: :class:`zett_browser.export.service.JoinedExporter`.) Nothing
here imports the index or the storage: the members are the services' protocols, built by the
app's factory.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from ..model.search import BuildProgress, SearchHit, SearchService
from ..model.usage import SessionUsage, TreeSort
from ..model.usage_service import GroupedUsage, UsageService
from .store import MultiStore

#: Far in the past: a hit without a time sorts after every dated one.
_UNDATED = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Progress:
    """The sync of all stores as one (see :class:`BuildProgress`)."""

    done: int
    total: int
    rate: float
    eta: float | None
    finished: bool


@dataclass(frozen=True, slots=True)
class StoreHit:
    """A hit and the open store it comes from (a :class:`SearchHit`)."""

    session_id: str
    label: str
    agent: str | None
    sequence: int
    kind: str
    time: datetime | None
    snippet: str
    spans: tuple[tuple[int, int], ...]
    store: str | None


@dataclass(frozen=True, slots=True)
class MergedPage:
    """A page of hits from every store (a :class:`HitPage`)."""

    hits: Sequence[StoreHit]
    next_cursor: int | None
    partial: bool


@dataclass(frozen=True, slots=True)
class Matches:
    """The union of the stores' tree-filter matches (a :class:`SessionMatches`)."""

    matching: frozenset[str]
    visible: frozenset[str]
    partial: bool


@dataclass
class _Walk:
    """Where a merged hit list stands: per store, its next cursor (None: done) and the hits
    read but not shown yet."""

    cursors: list[int | None]
    started: list[bool]
    waiting: list[list[StoreHit]]
    partial: bool = False


async def aclose(steps: AsyncIterator[BuildProgress]) -> None:
    """Close an async generator of progress (a plain iterator has nothing to close)."""
    close = getattr(steps, "aclose", None)
    if close is not None:
        await close()


def _when(hit: StoreHit) -> datetime:
    moment = hit.time or _UNDATED
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class MultiSearch:
    """Search over every open store's side index (a :class:`SearchService`).

    Args:
        store: The joined stores (hits name their member).
        services: One search service per member, in the members' order.
    """

    #: Merged hit lists kept to continue (the oldest are dropped).
    KEEP = 64

    def __init__(self, store: MultiStore, services: Sequence[SearchService]) -> None:
        self._store = store
        self._services = list(services)
        self._walks: dict[int, tuple[str, str | None, _Walk]] = {}
        self._tokens = itertools.count(1)

    @property
    def syntax(self) -> str:
        return self._services[0].syntax

    def check(self, text: str) -> None:
        self._services[0].check(text)

    async def steps(self) -> AsyncIterator[BuildProgress]:
        """Sync each store's index in turn; progress counts all of them."""
        totals = [0] * len(self._services)
        done = [0] * len(self._services)
        for index, service in enumerate(self._services):
            steps = service.steps()
            try:
                async for step in steps:
                    totals[index], done[index] = step.total, step.done
                    last = index == len(self._services) - 1
                    yield Progress(sum(done), sum(totals), step.rate, step.eta, step.finished and last)
            finally:
                # Closed with this one (the app quits mid-build): a store's sync lets its
                # connections go now, before the stores close, not whenever it is collected
                # (its -wal/-shm files stayed beside the store).
                await aclose(steps)

    async def search(
        self, text: str, *, after: int | None = None, session: str | None = None, limit: int = 100
    ) -> MergedPage:
        walk = self._walks.pop(after)[2] if after is not None and after in self._walks else None
        if walk is None:
            count = len(self._services)
            walk = _Walk(cursors=[None] * count, started=[False] * count, waiting=[[] for _ in range(count)])
        for index, service in enumerate(self._services):
            while (not walk.started[index] or walk.cursors[index] is not None) and len(walk.waiting[index]) < limit:
                page = await service.search(text, after=walk.cursors[index], session=session, limit=limit)
                walk.started[index] = True
                walk.cursors[index] = page.next_cursor
                walk.partial = walk.partial or page.partial
                name = self._store.members[index].name
                walk.waiting[index].extend(_tagged(hit, name) for hit in page.hits)
        merged = sorted(
            ((hit, index, place) for index, hits in enumerate(walk.waiting) for place, hit in enumerate(hits)),
            key=lambda item: (_when(item[0]), -item[1], -item[2]),
            reverse=True,
        )[:limit]
        for hit, index, _place in merged:
            walk.waiting[index].remove(hit)
        more = any(walk.waiting) or any(cursor is not None for cursor in walk.cursors)
        token = None
        if more:
            token = next(self._tokens)
            self._walks[token] = (text, session, walk)
            while len(self._walks) > self.KEEP:
                self._walks.pop(next(iter(self._walks)))
        return MergedPage(hits=[hit for hit, _index, _place in merged], next_cursor=token, partial=walk.partial)

    async def sessions_matching(self, text: str, session: str | None = None) -> Matches:
        found = [await service.sessions_matching(text, session) for service in self._services]
        matching = frozenset().union(*(match.matching for match in found))
        visible = set().union(*(match.visible for match in found))
        for session_id in matching:  # a child in another store shows under its parent's chain
            if any(session_id in match.matching and session_id not in match.visible for match in found):
                continue
            visible.update(node.session_id for node in await self._store.ancestors(session_id))
        return Matches(matching, frozenset(visible | matching), any(match.partial for match in found))

    async def sequences_in(self, text: str, session_id: str) -> list[int]:
        where = await self._store.home_of(session_id)
        return [] if where is None else await self._services[where].sequences_in(text, session_id)

    def hold_background(self, held: bool) -> None:
        for service in self._services:
            service.hold_background(held)

    async def close(self) -> None:
        for service in self._services:
            await service.close()


def _tagged(hit: SearchHit, store: str) -> StoreHit:
    return StoreHit(
        hit.session_id, hit.label, hit.agent, hit.sequence, hit.kind, hit.time, hit.snippet, hit.spans, store
    )


def _measure(order: TreeSort) -> Callable[[SessionUsage], tuple[float, float]]:
    """A tree level's order over usage totals (largest first, then latest activity)."""

    def latest(usage: SessionUsage) -> float:
        last = usage.own.last_time
        return last.timestamp() if last is not None else 0.0

    def key(usage: SessionUsage) -> tuple[float, float]:
        totals = usage.subtree
        if order is TreeSort.COST:
            value = float(totals.cost or Decimal(0))
        elif order is TreeSort.TOKENS:
            value = float(totals.tokens.total)
        elif order is TreeSort.TIME:
            value = float(totals.measured_ns)
        elif order is TreeSort.FAILURES:
            value = float(totals.failed_tool_results + totals.refused_steps + totals.cut_off_steps + usage.failed)
        else:
            value = latest(usage)
        return value, latest(usage)

    return key


class MultiUsage:
    """Usage totals from the index of the store holding each session (a :class:`UsageService`)."""

    def __init__(self, store: MultiStore, services: Sequence[UsageService]) -> None:
        self._store = store
        self._services = list(services)

    @property
    def prices_date(self) -> str:
        return self._services[0].prices_date

    async def usage(self, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
        by_store: dict[int, list[str]] = {}
        for session_id in session_ids:
            if (where := await self._store.home_of(session_id)) is not None:
                by_store.setdefault(where, []).append(session_id)
        found: dict[str, SessionUsage] = {}
        for where, group in by_store.items():
            found.update(await self._services[where].usage(group))
        return found

    async def _merged(self, levels: Sequence[list[str]], order: TreeSort, offset: int, limit: int) -> list[str]:
        ids = [session_id for level in levels for session_id in level]
        usage = await self.usage(ids)
        measure = _measure(order)
        ranked = sorted(ids, key=lambda session_id: measure(usage[session_id]) if session_id in usage else (0.0, 0.0))
        return list(reversed(ranked))[offset : offset + limit]

    async def ordered_children(self, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
        levels = [await service.ordered_children(parent_id, order, 0, offset + limit) for service in self._services]
        return await self._merged(levels, order, offset, limit)

    async def ordered_roots_in(self, index: int, order: TreeSort, offset: int, limit: int) -> list[str]:
        """One member's roots in ``order`` (the tree grouped by store)."""
        return await self._services[index].ordered_children(None, order, offset, limit)

    async def ordered_orphans(self, order: TreeSort, offset: int, limit: int) -> list[str]:
        levels = [await service.ordered_orphans(order, 0, offset + limit) for service in self._services]
        orphans: list[list[str]] = []
        for level in levels:  # a parent in another open store: under it, no orphan
            kept = []
            for session_id in level:
                node = await self._store.get_node(session_id)
                parent = node.parent_session_id if node is not None else None
                if not parent or parent == session_id or await self._store.home_of(parent) is None:
                    kept.append(session_id)
            orphans.append(kept)
        return await self._merged(orphans, order, offset, limit)

    async def complete(self) -> bool:
        return all([await service.complete() for service in self._services])


if TYPE_CHECKING:  # mypy checks each class against its protocol here

    def _search(service: MultiSearch) -> SearchService:
        return service

    def _usage(service: MultiUsage) -> UsageService:
        return service

    def _grouped(service: MultiUsage) -> GroupedUsage:
        return service
