"""Provides the context command's stdlib reader: the reads of a time-travel context without SQLAlchemy.

``zett-browser context`` used to pay ~400 ms of imports (SQLAlchemy, aiosqlite, pydantic)
and the storage's start for a few milliseconds of queries (issue 29). :class:`QuickContext`
answers the calls the context makes (:mod:`zett_browser.views.time_travel`: the last row,
row N, the snapshot in force, the request's system rows, the range's pages, the stored
envelopes; ``--session`` prefixes) through the stdlib ``sqlite3`` driver, and the
context's own code runs on it unchanged.

Exactness, as the start-up reader's (:mod:`.quickstart`): the statements are the storage's
own, generated from it (:mod:`.contextsql`, see :mod:`.contextgen`); the connection is
opened like the storage's (the ``mode=ro`` URI, the same busy timeout, ``query_only``,
lenient text, only regular files); rows become records through the storage's own
conversions (:mod:`.convert`). Where it cannot be sure it raises :class:`Declined` and the
caller takes the full path: a message the strict decoder (:mod:`.fastdecode`) will not
vouch for, a row with any problem (unreadable column, text that was not UTF-8), a sequence
that is not an integer, a schema other than the generated one, any SQLite error.

Sidecars: the guard is recorded before the store is opened; :meth:`QuickContext.close`
closes the connection and removes the ``-wal``/``-shm`` this read created.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..model.context import ContextRow
from ..model.in_force import newest_dated_by
from ..model.records import RawMessageRecord, SnapshotInfo
from .contextsql import SYSTEM_ROWS
from .convert import BadText, record_from_row, snapshot_info_from_row
from .fastdecode import decode_fast
from .pointparts import PointFromCalls
from .quickread import Declined as Declined  # where callers found it
from .quickread import QuickReader

if TYPE_CHECKING:
    from ..model.messages import AnyMessage, CompactedMessage


def _decode(payload: object) -> AnyMessage | CompactedMessage:
    message = decode_fast(payload)
    if message is None:
        raise Declined("the fast decoder is not sure")
    return message


def _record(row: dict[str, Any]) -> RawMessageRecord:
    if type(row["sequence"]) is not int:
        raise Declined("a sequence that is not an integer")
    record = record_from_row(row, _decode)
    if record.problems:
        raise Declined("a row with problems")
    return record


class QuickContext(PointFromCalls, QuickReader):
    """The time-travel context's reads of one SQLite store, through the stdlib driver.

    Its methods are coroutines of the storage's signatures (the context's code awaits
    them) that never suspend; opening, closing, the schema check and ``get_node`` are
    :class:`~.quickread.QuickReader`'s, the time-travel point composed from these calls
    :class:`~.pointparts.PointFromCalls`'.
    """

    DECLINES = (Declined,)

    async def session_with_prefix(self, prefix: str) -> str:
        """The one session ``prefix`` names (:meth:`~.facade.SessionStorage.sessions_with_prefix`);
        none or several declines (the full path words the error)."""
        from .idprefix import MAX_CANDIDATES, upper_bound

        upper = upper_bound(prefix)
        if not prefix or upper is None:
            raise Declined("a prefix the storage reads otherwise")
        if self._rows("prefix", 0, prefix=prefix):
            return prefix
        found = self._rows("prefix", 1, prefix=prefix, upper=upper, limit=MAX_CANDIDATES)
        if len(found) != 1 or not isinstance(found[0]["id"], str) or isinstance(found[0]["id"], BadText):
            raise Declined("no session, or several")
        return str(found[0]["id"])

    async def raw_page_before(self, session_id: str, *, limit: int = 50) -> list[RawMessageRecord]:
        if limit != 1:
            raise Declined("only the last row is generated")
        return [_record(row) for row in self._rows("last_row", session=session_id)]

    async def raw_page(
        self, session_id: str, *, after_sequence: int | None = 0, limit: int = 50
    ) -> list[RawMessageRecord]:
        if limit != 1 or after_sequence is None:
            raise Declined("only one row after a sequence is generated")
        return [_record(row) for row in self._rows("row_after", session=session_id, after_sequence=after_sequence)]

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        """As :func:`.compaction.version_in_force`, on the same rows."""
        if when is None:
            newest = [row["version"] for row in self._rows("version_now", session=session_id)]
            if newest and type(newest[0]) is not int:
                raise Declined("a version that is not an integer")
            return (newest[0] if newest else None), 0
        if before_sequence is None:
            raise Declined("only the candidates before a message are generated")
        head = self._candidates("versions", session_id, before_sequence)
        chosen, undated = newest_dated_by(head, when)
        if chosen is None and head:  # undated, or made after the step began: look further
            chosen, undated = newest_dated_by(self._candidates("versions_all", session_id, before_sequence), when)
        return chosen, undated

    def _candidates(self, call: str, session_id: str, before_sequence: int) -> list[tuple[Any, Any]]:
        return [
            (row["version"], row["created_at"])
            for row in self._rows(call, session=session_id, before_sequence=before_sequence)
        ]

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        if version is None:
            raise Declined("only a given version is generated")
        rows = self._rows("snapshot", session=session_id, version=version)
        if not rows:
            return None
        info = snapshot_info_from_row(rows[0], _decode)
        if info.problems:
            raise Declined("a snapshot with problems")
        return info

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        if before_sequence is None:
            rows = self._rows("system_rows", session=session_id, request_id=request_id)
        else:
            rows = self._rows(
                "system_rows_before", session=session_id, request_id=request_id, before_sequence=before_sequence
            )
        if len(rows) > SYSTEM_ROWS:
            raise Declined("more rows than the storage reads")
        return [_record(row) for row in rows]

    async def context_page(
        self,
        session_id: str,
        *,
        after_sequence: int,
        before_sequence: int,
        after_id: str | None = None,
        limit: int = 200,
    ) -> list[ContextRow]:
        """As :func:`.context.context_page`: the keyset page, cut before ``before_sequence``."""
        if limit < 1:
            raise Declined("the storage refuses this limit")
        if after_id is None:
            rows = self._rows("context_first", 0, session=session_id, after_sequence=after_sequence, limit=limit)
        else:
            found = self._rows("context_next", 0, session=session_id, row_id=after_id)
            key = found[0]["sequence"] if found else after_sequence
            if type(key) is not int:
                raise Declined("a page edge whose stored sequence is not an integer")
            rows = self._rows("context_next", 1, session=session_id, after_sequence=key, row_id=after_id, limit=limit)
        page = []
        for row in rows:
            record = _record(row)
            if record.sequence >= before_sequence:
                break
            envelope = row["message_json"]
            if not isinstance(envelope, str) or isinstance(envelope, BadText):
                raise Declined("an envelope that is not text")
            page.append(ContextRow(record=record, envelope=envelope))
        return page

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        rows = self._rows("snapshot_envelope", session=session_id, version=version)
        value = rows[0]["message_json"] if rows else None
        if not isinstance(value, str) or isinstance(value, BadText):
            raise Declined("an envelope that is not text")
        return value


__all__ = ["Declined", "QuickContext"]
