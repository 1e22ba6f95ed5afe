"""Provides what a record's neighbours say about it: the request structure of a page.

One row alone does not say that it starts a request, that a user row is a steering message
(it follows calls a steering message superseded), that a system row repeats the prompt an
earlier request already sent, that a request was a pass without input (a resume check, an
``Agent.compact()``: system rows only), or which tools the previous step was offered. A
:class:`RequestContext` holds those facts for one record; :class:`RequestTracker` computes
them for the records a view has in hand (a Raw Log page, an export's walk), remembering per
session only a bounded digest of each system row it saw, never reading the store.

Repeats are exact: "same as #2" names the first identical row the tracker has seen, and
the count ("repeat 4") shows only when every row from the session's start up to the record
has been seen (pages read from the start, an export), else it is left out.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..model import AssistantMessage, RawMessageRecord, SystemMessage, ToolMessage, UserMessage
from ..model.outcomes import Outcome, tool_outcome
from .attributes import offered_tools

#: Sessions whose system-row digests are remembered, digests per session, system-row
#: sequences per session (a long session sends its prompt once per request) and the last rows
#: summarised per session: at most 16 × (10,000 small ints + 2,000 small tuples). Past the
#: limit a session's repeats still name the first identical row, without a count.
SESSIONS = 16
DIGESTS = 256
SEQUENCES = 10_000
ROWS = 2_000


@dataclass(frozen=True, slots=True)
class RequestContext:
    """Facts about a record that come from the rows around it."""

    #: The record starts its request (as far as the rows in hand tell).
    request_start: bool = False
    #: The tools offered at the previous assistant step of the session, when known.
    previous_tools: tuple[str, ...] | None = None
    #: A user row right after results a steering message superseded.
    steering: bool = False
    #: A system row identical to this earlier one, and how many identical rows came before.
    same_as: int | None = None
    repeat: int | None = None
    #: The first row of a request made only of system rows (no user or agent input).
    pass_without_input: bool = False


@dataclass(slots=True)
class _Seen:
    """One session's system-row digests and the sequence ranges seen contiguously."""

    digests: dict[bytes, list[int]] = field(default_factory=dict)
    #: Ranges ``(first, last)`` of sequences known without holes, sorted, merged.
    ranges: list[tuple[int, int]] = field(default_factory=list)
    #: Sequences held (all digests), and whether one was left out at the limit.
    held: int = 0
    full: bool = False
    #: What the last rows seen say to their successors, by sequence (the newest ROWS kept):
    #: a page's first record learns whether it starts a request, follows skipped calls…
    rows: OrderedDict[int, _Row] = field(default_factory=OrderedDict)

    def remember(self, sequence: int, row: _Row) -> None:
        self.rows.pop(sequence, None)
        self.rows[sequence] = row
        while len(self.rows) > ROWS:
            self.rows.popitem(last=False)

    def cover(self, first: int, last: int) -> None:
        merged: list[tuple[int, int]] = []
        for low, high in sorted([*self.ranges, (first, last)]):
            if merged and low <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], high))
            else:
                merged.append((low, high))
        self.ranges = merged[-64:]

    def from_start(self, sequence: int) -> bool:
        """Every row from the session's start through ``sequence`` was counted."""
        return not self.full and bool(self.ranges) and self.ranges[0][0] <= 1 and sequence <= self.ranges[0][1]

    def add(self, digest: bytes, sequence: int) -> None:
        known = self.digests.get(digest)
        if known is None:
            if len(self.digests) >= DIGESTS:
                self.full = True
                return
            known = self.digests[digest] = []
        position = bisect.bisect_left(known, sequence)
        if position < len(known) and known[position] == sequence:
            return
        if self.held >= SEQUENCES:
            self.full = True
            return
        known.insert(position, sequence)
        self.held += 1


def _digest(message: SystemMessage) -> bytes:
    flags = f"{sorted(message.attributes.items())!r}{message.include_in_messages}"
    return hashlib.blake2b((message.content + "\x00" + flags).encode("utf-8", "replace"), digest_size=16).digest()


class RequestTracker:
    """Computes :class:`RequestContext` for the records a view shows; bounded memory."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, _Seen] = OrderedDict()

    def _seen(self, session_id: str) -> _Seen:
        seen = self._sessions.pop(session_id, None) or _Seen()
        self._sessions[session_id] = seen
        while len(self._sessions) > SESSIONS:
            self._sessions.popitem(last=False)
        return seen

    def contexts(
        self,
        records: Sequence[RawMessageRecord],
        *,
        contiguous: bool = True,
        previous: RawMessageRecord | None = None,
        previous_tools: tuple[str, ...] | None = None,
    ) -> list[RequestContext]:
        """The context of each record, in order.

        ``contiguous``: the records are every row of their range (a Raw Log page, not a
        filtered model view). ``previous``/``previous_tools``: what came right before the
        first record, when the caller knows it (an export's walk).
        """
        if not records:
            return []
        if contiguous:
            for session_id in {record.session_id for record in records}:
                mine = [record.sequence for record in records if record.session_id == session_id]
                self._seen(session_id).cover(min(mine), max(mine))
        for record in records:
            if isinstance(record.message, SystemMessage):
                self._seen(record.session_id).add(_digest(record.message), record.sequence)
        found: list[RequestContext] = []
        before = _row(previous, previous_tools) if previous is not None else None
        for index, record in enumerate(records):
            message = record.message
            seen = self._seen(record.session_id)
            if before is None or before.session_id != record.session_id:
                before = seen.rows.get(record.sequence - 1)  # the row just before, if a page held it
            start = before is None or before.request_id != record.request_id
            same_as = repeat = None
            if isinstance(message, SystemMessage):
                known = seen.digests.get(_digest(message), [])
                if known and known[0] < record.sequence:
                    same_as = known[0]
                    if seen.from_start(record.sequence):
                        repeat = bisect.bisect_left(known, record.sequence)
            found.append(
                RequestContext(
                    request_start=start,
                    previous_tools=before.tools
                    if before is not None and isinstance(message, AssistantMessage)
                    else None,
                    steering=isinstance(message, UserMessage) and before is not None and before.skipped,
                    same_as=same_as,
                    repeat=repeat,
                    pass_without_input=start and _system_only(records, index),
                )
            )
            before = _row(record, before.tools if before is not None else None)
            seen.remember(record.sequence, before)
        return found


@dataclass(frozen=True, slots=True)
class _Row:
    """What the next record needs to know of the one before it (kept instead of the record)."""

    session_id: str
    request_id: str
    #: A tool result a steering message superseded.
    skipped: bool
    #: The tools offered at the latest assistant step up to this row, when known.
    tools: tuple[str, ...] | None


def _row(record: RawMessageRecord, tools: tuple[str, ...] | None) -> _Row:
    message = record.message
    if isinstance(message, AssistantMessage):
        offered = offered_tools(message)
        tools = tools if offered is None else offered
    skipped = isinstance(message, ToolMessage) and tool_outcome(message.success, message.content) is Outcome.SKIPPED
    return _Row(record.session_id, record.request_id, skipped, tools)


def _system_only(records: Sequence[RawMessageRecord], index: int) -> bool:
    """Records ``index``… of one request are all system rows, and the next request follows
    on the page (a request cut by the page's end is not judged)."""
    request = records[index].request_id
    for record in records[index:]:
        if record.request_id != request or record.session_id != records[index].session_id:
            return True
        if not isinstance(record.message, SystemMessage):
            return False
    return False
