"""Provides the structure an export gives a record's formatted blocks.

The words come from :func:`zett_browser.views.formatting.format_record` (the one renderer the
Raw Log and the detail view use); this module only groups its blocks by their roles, so
that Markdown and HTML can fold a tool call with its arguments, a tool result with its
output and the reasoning into collapsible parts, and leave out what the user asked to
leave out. It knows roles, never message kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..model import AssistantMessage, RawMessageRecord, SystemMessage
from ..model.outcomes import Outcome
from ..views.attributes import offered_tools
from ..views.formatting import Block, FormatOptions, format_record
from ..views.requests import RequestContext, RequestTracker

T = TypeVar("T")
#: Roles that continue a tool call's group, a tool result's group and the reasoning.
_CALL_PARTS = frozenset({"tool.arguments", "error"})
_RESULT_PARTS = frozenset({"body", "image", "note"})
#: Every result head: ``tool.result.ok``, ``.failed``, ``.skipped``, ``.cancelled``…
RESULT_HEADS = frozenset(f"tool.result.{outcome.value}" for outcome in Outcome)
#: Bodies shown preformatted (their line structure matters; they are not prose).
CODE_ROLES = frozenset({"body", "body.system", "body.agent", "body.unreadable", "tool.arguments", "reasoning"})


@dataclass(frozen=True, slots=True)
class ExportChoices:
    """What an export includes."""

    reasoning: bool = True
    tool_results: bool = True
    usage: bool = True


@dataclass(slots=True)
class Segment:
    """A part of a message: ``kind`` is ``call``, ``result``, ``reasoning``, ``prose``, ``code`` or ``line``.

    ``summary`` is the one-line title of a collapsible part; ``lines`` are its blocks'
    texts (already cleaned, and redacted by the caller's ``scrub``); ``omitted`` says a
    part was left out on request.
    """

    kind: str
    role: str
    summary: str = ""
    lines: list[str] = field(default_factory=list)
    omitted: bool = False


def heading(blocks: list[Block], choices: ExportChoices) -> list[tuple[str, str]]:
    """The header block's parts as (text, role), without usage when it is left out."""
    return [
        (span.text.strip(), span.role)
        for span in blocks[0].spans
        if span.text.strip() and (choices.usage or span.role != "usage")
    ]


def _kind(block: Block) -> str:
    if block.prose:
        return "prose"
    return "code" if block.spans[0].role in CODE_ROLES else "line"


def segments(blocks: list[Block], choices: ExportChoices, scrub: Callable[[str], str]) -> list[Segment]:
    """The blocks after the header, grouped (see :class:`Segment`)."""
    found: list[Segment] = []
    current: Segment | None = None
    for block in blocks[1:]:
        role = block.spans[0].role
        text = scrub(block.text)
        if current is not None and (
            current.kind == "call"
            and role in _CALL_PARTS
            or current.kind == "result"
            and role in _RESULT_PARTS
            or current.kind == "reasoning"
            and role == "reasoning"
        ):
            if not current.omitted:
                current.lines.append(text)
            continue
        if role == "tool.call":
            current = Segment("call", role, summary=text)
        elif role in RESULT_HEADS:
            current = Segment("result", role, summary=text, omitted=not choices.tool_results)
        elif role == "reasoning.marker":
            current = Segment("reasoning", role, summary="reasoning", omitted=not choices.reasoning)
        else:
            current = None
            found.append(Segment(_kind(block), role, lines=[text]))
            continue
        found.append(current)
    return [segment for segment in found if not (segment.kind == "reasoning" and segment.omitted)]


#: System rows held back at most while a request made only of them is judged (a pass
#: without input: a resume check, ``Agent.compact()``); past it the request is not judged.
PENDING = 64


class RecordContexts(Generic[T]):
    """The request context of each record of an export's walk, in walk order, per session:
    request starts, steering, repeats of a system row (counted: the walk starts at #1), what
    changed in the offered tools, passes without input. One last record per session is kept.

    A pass without input is told by the rows after its start (only system rows, then the
    next request), so :meth:`push` holds back the system rows that start a request (at most
    :data:`PENDING`) until a row decides, and hands each record back with its context and
    the item pushed with it, in order; :meth:`flush` hands back what is held at a session's end
    (not judged, as the Raw Log leaves a request its page cuts)."""

    def __init__(self) -> None:
        self._tracker = RequestTracker()
        self._last: dict[str, tuple[RawMessageRecord, tuple[str, ...] | None]] = {}
        self._pending: list[tuple[RawMessageRecord, T]] = []

    def _contexts(self, records: list[RawMessageRecord]) -> list[RequestContext]:
        first = records[0]
        previous, tools = self._last.get(first.session_id, (None, None))
        follows = first.sequence == 1 if previous is None else first.sequence == previous.sequence + 1
        follows = follows and all(b.sequence == a.sequence + 1 for a, b in zip(records, records[1:], strict=False))
        return self._tracker.contexts(records, contiguous=follows, previous=previous, previous_tools=tools)

    def _emitted(self, record: RawMessageRecord) -> None:
        _previous, tools = self._last.get(record.session_id, (None, None))
        if isinstance(record.message, AssistantMessage):
            offered = offered_tools(record.message)
            tools = tools if offered is None else offered
        self._last[record.session_id] = (record, tools)

    def _candidate(self, record: RawMessageRecord) -> bool:
        """A system row that starts a request: it may start a pass without input."""
        last = self._last.get(record.session_id)
        starts = last is None or last[0].request_id != record.request_id
        return starts and isinstance(record.message, SystemMessage)

    def _decide(self, records: list[tuple[RawMessageRecord, T]]) -> list[tuple[RawMessageRecord, RequestContext, T]]:
        contexts = self._contexts([record for record, _item in records])
        out = []
        for (record, item), context in zip(records, contexts, strict=True):
            self._emitted(record)
            out.append((record, context, item))
        return out

    def push(self, record: RawMessageRecord, item: T) -> list[tuple[RawMessageRecord, RequestContext, T]]:
        """The records now decided, with their contexts (none while a possible pass is held)."""
        out: list[tuple[RawMessageRecord, RequestContext, T]] = []
        if self._pending:
            head = self._pending[0][0]
            if record.session_id != head.session_id:
                out = self.flush()
            elif (
                record.request_id == head.request_id
                and isinstance(record.message, SystemMessage)
                and len(self._pending) < PENDING
            ):
                self._pending.append((record, item))
                return []
            else:
                # The row after the held ones decides; it is judged again below when it may
                # start a pass itself (the tracker's bookkeeping takes a row twice unchanged).
                starts = self._pending[-1][0].request_id != record.request_id
                decided = self._decide([*self._pending, (record, item)])
                self._pending = []
                out = decided[:-1]
                if not (starts and isinstance(record.message, SystemMessage)):
                    return [*out, decided[-1]]
                self._last[record.session_id] = self._last_before(decided)
                self._pending = [(record, item)]
                return out
        if self._candidate(record):
            self._pending = [(record, item)]
            return out
        return [*out, *self._decide([(record, item)])]

    def _last_before(
        self, decided: list[tuple[RawMessageRecord, RequestContext, T]]
    ) -> tuple[RawMessageRecord, tuple[str, ...] | None]:
        """What the session's last record was before the deciding row (which is held now)."""
        record = decided[-2][0]
        return record, self._last[record.session_id][1]

    def next(self, record: RawMessageRecord) -> RequestContext:
        """The context of ``record`` judged alone, at once (no pass without input is told)."""
        context = self._contexts([record])[0]
        self._emitted(record)
        return context

    def flush(self) -> list[tuple[RawMessageRecord, RequestContext, T]]:
        """The held records, decided as the end of their session (no pass)."""
        pending, self._pending = self._pending, []
        return self._decide(pending) if pending else []


def render_record(
    record: RawMessageRecord,
    choices: ExportChoices,
    compacted_through: int,
    scrub: Callable[[str], str],
    context: RequestContext | None = None,
) -> tuple[list[tuple[str, str]], list[Segment]]:
    """A record's heading parts and segments, from the one formatter (whole, untruncated)."""
    blocks = format_record(
        record, FormatOptions(show_reasoning=True, show_all=True, compacted_through=compacted_through), context
    )
    return [(scrub(text), role) for text, role in heading(blocks, choices)], segments(blocks, choices, scrub)
