"""Provides the app's search service: the side index of the browsed store, behind a Protocol.

:class:`IndexSearch` implements :class:`zett_browser.model.search.SearchService` with
:class:`~zett_browser.index.SideIndex` (sync, in worker threads and small batches) and
:class:`~zett_browser.index.Searcher` (read-only pages of hits). The app builds it; the
screens see only the Protocol, so they never import the index or the storage.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..model.frozen import replace
from ..storage import SQLSessionStorage
from . import Progress, Searcher, SearchPage, SideIndex, parse
from .child import ChildBuild, child_command
from .hit_labels import labelled_hits
from .notes_filter import needs_notes, resolve
from .query import HELP, Filter, Query
from .sessions import SessionMatch, find_sessions

#: Hits of one session read for next/previous hit; more are not stepped through.
MAX_SESSION_HITS = 5000
#: Documents that are not messages of the Raw Log (no sequence to jump to).
NOT_MESSAGES = ("snapshot", "session")


#: Rows per batch of a sync run in the background of the app or the MCP server (the command
#: line's ``index`` and ``search`` take :data:`.sync.BATCH`): while a batch is read and
#: prepared, its worker thread holds the GIL most of the time, and a key pressed then waits
#: for it at every hand-over (issue 29).
BACKGROUND_BATCH = 500


@dataclass(frozen=True, slots=True)
class Step:
    """One progress report of a sync (see :class:`zett_browser.model.search.BuildProgress`)."""

    done: int
    total: int
    rate: float
    eta: float | None
    finished: bool


class IndexSearch:
    """Search over the side index of ``storage`` (kept in ``directory``, default the cache)."""

    def __init__(
        self, storage: SQLSessionStorage, directory: Path | None = None, notes_file: Path | None = None
    ) -> None:
        self.index = SideIndex(storage, directory, batch=BACKGROUND_BATCH)
        #: Where ``pinned:``, ``label:`` and ``note:`` look (None: the default notes file).
        self.notes_file = notes_file
        self.searcher = Searcher(self.index.path)
        self._closed = False
        self._step: asyncio.Future[Progress] | None = None
        self._child: ChildBuild | None = None
        #: Whether the last first build ran to its end in a child process.
        self.built_in_child = False
        self._synced_once = False

    @property
    def path(self) -> Path:
        """The index file."""
        return self.index.path

    @property
    def syntax(self) -> str:
        return HELP

    def check(self, text: str) -> None:
        parse(text)

    async def steps(self) -> AsyncIterator[Step]:
        """Sync, yielding progress; safe to cancel at any time.

        Each step of the index's own sync runs as a shielded task: a batch being written in
        a worker thread must finish before the index file is closed (closing it under the
        thread crashes SQLite), so a cancelled consumer waits for the batch in flight, then
        closes the sync at its next yield, where no thread uses the file.

        The first build of a large SQLite store runs in a child process (:mod:`.child`);
        the sync in process then only picks up what arrived meanwhile (or, if the child
        failed, does the build itself and raises what went wrong).
        """
        first = not self._synced_once
        self._synced_once = True
        command = None
        if first and not self._closed:  # later syncs follow a built index: no child to look for
            command = await asyncio.to_thread(child_command, self.index.storage.path, self.path)
        if command is not None:
            async for step in self._child_steps(command):
                yield step
        steps = cast(AsyncGenerator[Progress, None], self.index.steps())
        try:
            while not self._closed:
                self._step = asyncio.ensure_future(anext(steps))
                try:
                    progress = await asyncio.shield(self._step)
                except StopAsyncIteration:
                    break
                except asyncio.CancelledError:
                    await self._settle()
                    raise
                yield Step(progress.done, progress.total, progress.rate, progress.eta, progress.report is not None)
        finally:
            self._step = None
            await steps.aclose()

    async def _child_steps(self, command: list[str]) -> AsyncIterator[Step]:
        """Progress of a build in a child process (nothing if it cannot be started)."""
        child = self._child = ChildBuild(command)
        try:
            async for done, total, started in child.steps():
                if self._closed:
                    break
                rate = done / max(time.monotonic() - started, 1e-6)
                yield Step(done, total, rate, (total - done) / rate if done else None, False)
        except OSError:
            pass  # no child: the sync in process builds
        finally:
            await child.stop()
            self._child = None
            self.built_in_child = child.finished

    def hold_background(self, held: bool) -> None:
        """Keys are coming (``held``) or have paused: a child build stops at once, not only
        when it next reports (a commit of its batches can take a second or more)."""
        if self._child is not None:
            self._child.hold_for_keys(held)

    async def _settle(self) -> None:
        """Wait for the step in flight (its outcome no longer matters)."""
        step = self._step
        if step is not None and not step.done():
            await asyncio.wait([step])

    async def close(self) -> None:
        """Stop syncing: no new step starts; the one in flight ends first (a child is stopped)."""
        self._closed = True
        if self._child is not None:
            await self._child.stop()
        await self._settle()

    async def _parse(self, text: str) -> Query:
        """``text`` parsed, its notes qualifiers resolved from the notes file (on a thread)."""
        query = parse(text)
        if not needs_notes(query):
            return query
        from ..notes.db import default_file

        notes_file = self.notes_file or default_file()
        storage = self.index.storage
        return await asyncio.to_thread(resolve, query, notes_file, self.index.identity, storage.path)

    async def search(
        self, text: str, *, after: int | None = None, session: str | None = None, limit: int = 100
    ) -> SearchPage:
        page = await self.searcher.search(await self._parse(text), limit=limit, after=after, session=session)
        return replace(page, hits=await labelled_hits(self.index.storage, page.hits))

    async def sessions_matching(self, text: str, session: str | None = None) -> SessionMatch:
        return await find_sessions(self.index.path, await self._parse(text), session=session)

    async def sequences_in(self, text: str, session_id: str) -> list[int]:
        query = await self._parse(text)
        query = replace(query, filters=(*query.filters, Filter("session", session_id)))
        found: set[int] = set()
        after: int | None = None
        while len(found) < MAX_SESSION_HITS:
            page = await self.searcher.search(query, limit=500, after=after, session=session_id)
            found.update(hit.sequence for hit in page.hits if hit.kind not in NOT_MESSAGES)
            after = page.next_cursor
            if after is None:
                break
        return sorted(found)
