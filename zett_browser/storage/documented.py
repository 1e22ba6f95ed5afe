"""Provides zett-agent 0.2.1's documented storage API on the storage facade.

``list_sessions``, ``get_session``, ``count_messages``, ``list_raw_messages``, ``load``,
``create_session``, ``update_session``, ``delete_session``, ``append`` and ``snapshot``
keep zett-agent's names, arguments, records and ``ValueError`` messages. Each method is
one call: the reads into :mod:`.api` (functions of the store's reader), the writes into
a :class:`~.writes.SessionWriter` (the reader, the clock and the id source).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..model.messages import CompactedMessage
from ..model.records import MessageTiming, ModelUsage, RawMessageRecord
from . import api
from .core import SessionStorageCore
from .writes import SessionWriter

if TYPE_CHECKING:  # pydantic: loaded by the calls that build these
    from ..model.documented import ContextSnapshot, SessionSummary, SessionView


class DocumentedAPI(SessionStorageCore):
    """zett-agent's documented read and write methods."""

    @cached_property
    def _writer(self) -> SessionWriter:
        """The write methods' bodies over this store."""
        return SessionWriter(self.reader, clock=self._clock, new_id=self._new_id)

    async def list_raw_messages(
        self,
        session_id: str,
        *,
        after_sequence: int = 0,
        through_sequence: int | None = None,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[RawMessageRecord]:
        """Return one chronological page from a session's immutable Raw Log.

        Snapshots are ignored: this is the original history. ``after_sequence`` is an
        exclusive lower bound, ``through_sequence`` an inclusive upper bound; ``offset``
        and ``limit`` paginate the filtered range. A row that cannot be decoded comes
        back as a record whose ``problems`` say why.

        Raises:
            ValueError: A bound or pagination argument is out of range.
        """
        return await api.list_raw_messages(
            self.reader,
            session_id,
            after_sequence=after_sequence,
            through_sequence=through_sequence,
            limit=limit,
            offset=offset,
        )

    async def list_sessions(
        self,
        *,
        session_types: Sequence[int] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[SessionSummary]:
        """Return one page of root and delegated sessions by latest activity.

        Ordered by ``updated_at`` then id, newest first. Message counts are computed
        for the page's sessions only, not by grouping every message of the store.

        Raises:
            ValueError: ``limit`` is not positive, ``offset`` negative, or a type code invalid.
        """
        return await api.list_sessions(self.reader, session_types=session_types, limit=limit, offset=offset)

    async def count_messages(self, session_id: str) -> int:
        """Count a session's Raw Log messages without decoding them."""
        return await api.count_messages(self.reader, session_id)

    async def get_session(self, session_id: str) -> SessionSummary | None:
        """Return one session's stored fields and message count, or None."""
        return await api.get_session(self.reader, session_id)

    async def load(self, session_id: str) -> SessionView:
        """Restore the latest checkpoint and the original messages after its boundary.

        An unknown session gives an empty view and creates nothing.

        Raises:
            ValueError: The latest snapshot does not hold exactly one CompactedMessage.
        """
        return await api.load(self.reader, session_id)

    async def create_session(
        self,
        *,
        session_id: str | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        session_type: int = 0,
    ) -> SessionSummary:
        """Create an empty session before its first Raw Log message is appended.

        Raises:
            ValueError: An id is empty, the session is its own parent, a display value
                is empty or too long, the type code is invalid, or the id exists.
        """
        return await self._writer.create_session(
            session_id=session_id,
            parent_session_id=parent_session_id,
            title=title,
            agent_name=agent_name,
            session_type=session_type,
        )

    async def update_session(
        self, session_id: str, *, title: str | None = None, agent_name: str | None = None
    ) -> SessionSummary | None:
        """Update a session's title and/or agent name; None leaves a field unchanged.

        Returns:
            The refreshed summary, or None for an unknown session.

        Raises:
            ValueError: Neither field is given, or a value is empty or too long.
        """
        return await self._writer.update_session(session_id, title=title, agent_name=agent_name)

    async def delete_session(self, session_id: str) -> bool:
        """Delete one session's raw messages, snapshots and row; True if anything was deleted."""
        return await self._writer.delete_session(session_id)

    async def append(
        self,
        session_id: str,
        request_id: str,
        message: Any,
        timing: MessageTiming | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tags: Mapping[str, Any] | None = None,
        usage: ModelUsage | None = None,
    ) -> int:
        """Append one original message and return its new per-session sequence.

        The first append creates the session (with the parent, title and agent name
        given); later appends may update title and agent name, never the parent.

        Raises:
            ValueError: Metadata or tags are not JSON objects, a display value is empty
                or too long, the parent differs from the stored one, usage is given for
                a non-assistant message, or the message is a checkpoint.
        """
        return await self._writer.append(
            session_id, request_id, message, timing, parent_session_id, title, agent_name, metadata, tags, usage
        )

    async def snapshot(
        self,
        session_id: str,
        compacted_message: CompactedMessage,
        compacted_through_sequence: int,
        expected_version: int,
    ) -> ContextSnapshot:
        """Create an immutable compaction checkpoint with optimistic version checking.

        The Raw Log is never changed.

        Raises:
            ValueError: The version is stale, the boundary is outside the Raw Log, or it
                does not advance beyond the previous snapshot.
        """
        return await self._writer.snapshot(session_id, compacted_message, compacted_through_sequence, expected_version)


__all__ = ["DocumentedAPI"]
