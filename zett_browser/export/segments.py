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

from ..model import AssistantMessage, RawMessageRecord
from ..model.outcomes import Outcome
from ..views.attributes import offered_tools
from ..views.formatting import Block, FormatOptions, format_record
from ..views.requests import RequestContext, RequestTracker

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


class RecordContexts:
    """The request context of each record of an export's walk, in walk order, per session:
    request starts, steering, repeats of a system row (counted: the walk starts at #1), what
    changed in the offered tools. One last record per session is kept."""

    def __init__(self) -> None:
        self._tracker = RequestTracker()
        self._last: dict[str, tuple[RawMessageRecord, tuple[str, ...] | None]] = {}

    def next(self, record: RawMessageRecord) -> RequestContext:
        """The context of ``record``, the walk's next row."""
        previous, tools = self._last.get(record.session_id, (None, None))
        follows = record.sequence == 1 if previous is None else record.sequence == previous.sequence + 1
        context = self._tracker.contexts([record], contiguous=follows, previous=previous, previous_tools=tools)[0]
        if isinstance(record.message, AssistantMessage):
            offered = offered_tools(record.message)
            tools = tools if offered is None else offered
        self._last[record.session_id] = (record, tools)
        return context


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
