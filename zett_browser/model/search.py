"""Provides the search interface the UI uses: index progress, pages of hits, hits in a session.

The app is handed an object of this shape (``zett_browser.index.search_service.IndexSearch`` wraps
the side index); screens see only this Protocol and never import the index or the
storage. A bad query raises ``ValueError`` whose message is one line naming the bad token.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Protocol


class BuildProgress(Protocol):
    """How far a sync of the index is (``finished`` on the last item)."""

    @property
    def done(self) -> int: ...

    @property
    def total(self) -> int: ...

    @property
    def rate(self) -> float: ...

    @property
    def eta(self) -> float | None: ...

    @property
    def finished(self) -> bool: ...


class SearchHit(Protocol):
    """One match: where it is and a one-line cleaned snippet with the matches' spans."""

    @property
    def session_id(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def agent(self) -> str | None: ...

    @property
    def sequence(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def time(self) -> datetime | None: ...

    @property
    def snippet(self) -> str: ...

    @property
    def spans(self) -> tuple[tuple[int, int], ...]: ...

    @property
    def store(self) -> str | None:
        """The open store the hit comes from, when several are open (its short name)."""
        ...


class HitPage(Protocol):
    """A page of hits; ``next_cursor`` continues it; ``partial`` while the index is incomplete."""

    @property
    def hits(self) -> Sequence[SearchHit]: ...

    @property
    def next_cursor(self) -> int | None: ...

    @property
    def partial(self) -> bool: ...


class SessionMatches(Protocol):
    """What a tree filter shows: the matching sessions and their ancestors."""

    @property
    def matching(self) -> frozenset[str]: ...

    @property
    def visible(self) -> frozenset[str]: ...

    @property
    def partial(self) -> bool: ...


class SearchService(Protocol):
    """Full-text search over a store's side index."""

    @property
    def syntax(self) -> str:
        """The query language in a few lines (for help)."""
        ...

    def check(self, text: str) -> None:
        """Raise ``ValueError`` (one line) when ``text`` is not a valid query."""
        ...

    def steps(self) -> AsyncIterator[BuildProgress]:
        """Bring the index up to date, yielding progress; the last item is ``finished``."""
        ...

    async def search(
        self, text: str, *, after: int | None = None, session: str | None = None, limit: int = 100
    ) -> HitPage:
        """One page of hits of ``text`` (``session``: the open session, for ``in:``)."""
        ...

    async def sequences_in(self, text: str, session_id: str) -> list[int]:
        """The sequences of the messages of one session that match ``text``, ascending."""
        ...

    async def sessions_matching(self, text: str, session: str | None = None) -> SessionMatches:
        """The sessions ``text`` matches, those plus their ancestors (for the tree filter)."""
        ...

    def hold_background(self, held: bool) -> None:
        """Keys are coming (``held``) or have paused: a first build running in a child
        process stops at once until they pause (nothing else changes)."""
        ...

    async def close(self) -> None:
        """Stop syncing (before the store is closed); waits for the batch in flight."""
        ...
