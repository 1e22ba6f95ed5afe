"""Provides what a record says, as plain structured text: produced once, styled by a view.

A record becomes a list of :class:`Block` (one line of the Raw Log before wrapping), each a
sequence of :class:`Span` (cleaned text, semantic role). The Raw Log maps roles to styles
(``widgets/render.py``), the detail view and an exporter join the text. No UI toolkit is
imported here, so the same words reach every view; every string from the store has gone
through :func:`zett_browser.text.clean` once a span holds it.

Roles are names, not styles: ``sequence``, ``kind.<kind>``, ``timestamp``, ``usage``,
``compacted``, ``problem``, ``body`` (plain text), ``body.system``, ``body.agent``,
``body.unreadable``, ``reasoning.marker``, ``reasoning``, ``tool.call``, ``tool.name``,
``tool.arguments``, ``tool.result.<outcome>`` (``ok``, ``failed``, ``skipped``, ``cancelled``,
``interrupted``, ``aborted``: see :mod:`zett_browser.model.outcomes`), ``tool.result.name``,
``id``, ``error``, ``model``, ``image``, ``metadata``, ``tags``, ``note``,
``summary.title``; what the runtime writes about a request: ``request``, ``repeat``,
``pass``, ``steering``, ``stop.detail``, ``attribute``, ``attribute.badge``,
``attribute.change``, ``attribute.typed`` (:mod:`.attributes`), ``server.call``,
``server.name``, ``server.result``, ``server.item``, ``server.other`` (:mod:`.servertools`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from ..model import (
    AgentMessage,
    AssistantMessage,
    ImageBytesSource,
    ImageContent,
    RawMessageRecord,
    SnapshotInfo,
    StopInfo,
    SystemMessage,
    TextContent,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from ..model.outcomes import tool_outcome
from ..text import clean
from .attributes import attribute_blocks, badges, compact_json, one_line, trace_blocks
from .blocks import HUGE, PREVIEW, Block, FormatOptions, Span, block, bounded, human_duration, human_size
from .kinds import KINDS as KINDS
from .kinds import kind_name
from .requests import RequestContext
from .servertools import server_tool_blocks
from .tools import call_blocks, result_blocks

__all__ = [
    "HUGE",
    "KINDS",
    "PREVIEW",
    "Block",
    "RequestContext",
    "FormatOptions",
    "Span",
    "body_size",
    "bounded",
    "format_record",
    "full_text",
    "header",
    "human_duration",
    "human_size",
    "join",
    "kind_name",
    "looks_like_markdown",
    "relative_time",
    "short_request",
    "summary_blocks",
    "usage_line",
]


def relative_time(moment: datetime, now: datetime) -> str:
    """``just now``, ``5m ago``, ``3h ago``, ``2d ago``, or a date."""
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 86400 * 30:
        return f"{int(seconds // 86400)}d ago"
    return moment.strftime("%Y-%m-%d")


def usage_line(record: RawMessageRecord) -> str:
    """Timing and token usage in one compact line."""
    parts = []
    if record.duration_ns:
        parts.append(human_duration(record.duration_ns))
    if record.reasoning_duration_ns:
        parts.append(f"thinking {human_duration(record.reasoning_duration_ns)}")
    if record.content_duration_ns:
        parts.append(f"writing {human_duration(record.content_duration_ns)}")
    if record.input_tokens is not None:
        tokens = f"in {record.input_tokens:,} out {record.output_tokens or 0:,}"
        if record.reasoning_tokens:
            tokens += f" (reasoning {record.reasoning_tokens:,})"
        if record.cache_hit_rate is not None:
            tokens += f" cache {record.cache_hit_rate:.0%}"
        parts.append(tokens)
    return " · ".join(p for p in parts if p)


_MARKDOWN_HINTS = ("```", "\n#", "\n- ", "\n* ", "\n1. ", "**", "`", "\n> ")


def looks_like_markdown(text: str) -> bool:
    """Whether a prose body is worth rendering as Markdown (small, with Markdown marks)."""
    return len(text) <= HUGE and any(hint in "\n" + text for hint in _MARKDOWN_HINTS)


def body_size(record: RawMessageRecord) -> int:
    """Characters of the record's text, to decide whether it is huge."""
    message = record.message
    if isinstance(message, UnreadableMessage):
        return len(message.raw_json)
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return len(content)
    return sum(len(part.text) for part in content if isinstance(part, TextContent))


def _image(part: ImageContent) -> Block:
    source = part.source
    if isinstance(source, ImageBytesSource):
        what = f"{clean(source.media_type)}, {human_size(len(source.data))}"
    elif source.url.startswith("data:") and "," in source.url[:300]:
        # A data URL reads like bytes: its media type and size, counted from the text's
        # length (never decoded, never shown: it may be megabytes of base64).
        head, payload_at = source.url[5:300].split(",", 1)[0], source.url.index(",") + 1
        media = head.split(";")[0] or "text/plain"
        size = len(source.url) - payload_at
        if head.endswith(";base64"):
            size = size // 4 * 3 - (2 if source.url.endswith("==") else 1 if source.url.endswith("=") else 0)
        what = f"{clean(media[:100])}, {human_size(max(size, 0))}"
    else:
        what = clean(source.url if len(source.url) < 120 else source.url[:117] + "…")
    alt = f' — "{clean(part.alt_text)}"' if part.alt_text else ""
    return block(f"[image: {what}{alt}]", "image")


def _content(content: Any, options: FormatOptions, *, prose: bool) -> list[Block]:
    """A user or tool body: its text parts (bounded) and image placeholders."""
    if isinstance(content, str):
        return bounded(content, options, prose=prose)
    blocks: list[Block] = []
    for part in content:
        if isinstance(part, TextContent):
            blocks.extend(bounded(part.text, options, prose=prose))
        elif isinstance(part, ImageContent):
            blocks.append(_image(part))
    return blocks


def header(record: RawMessageRecord, options: FormatOptions, context: RequestContext | None = None) -> Block:
    """``#12 assistant  2026-01-02 03:04:05  840 ms · in 1,200 out 80``.

    With a ``context``: ``same as #2 · repeat 4`` on a repeated system row, ``req …3b4f0a1c``
    where a request starts.
    """
    kind = kind_name(record)
    spans = [Span(f"#{record.sequence} ", "sequence"), Span(kind, f"kind.{kind}")]
    spans.append(Span(f"  {record.started_at:%Y-%m-%d %H:%M:%S}", "timestamp"))
    usage = usage_line(record)
    if usage:
        spans.append(Span(f"  {usage}", "usage"))
    if record.sequence <= options.compacted_through:
        spans.append(Span("  [compacted]", "compacted"))
    if not record.message.include_in_messages and not isinstance(record.message, UnreadableMessage):
        spans.append(Span("  [not replayed]", "compacted"))  # include_in_messages false: load() skips it
    if context is not None and context.same_as is not None:
        repeat = f" · repeat {context.repeat}" if context.repeat else ""
        spans.append(Span(f"  same as #{context.same_as}{repeat}", "repeat"))
    if context is not None and context.request_start and record.request_id:
        spans.append(Span(f"  req {short_request(record.request_id)}", "request"))
    if not isinstance(record.message, UnreadableMessage):
        spans.extend(badges(record.message.attributes))
    return Block(tuple(spans))


def short_request(request_id: str) -> str:
    """A request id to tell requests apart: a UUID's last 8 digits (UUIDv7s share their
    first 8 for about a minute), any other id as it is (cut at 16 characters)."""
    if len(request_id) == 36 and request_id.count("-") == 4:
        return "…" + clean(request_id[-8:])
    return one_line(request_id, 16)


def _system(message: SystemMessage, options: FormatOptions) -> list[Block]:
    return bounded(message.content, options, "body.system")


def _agent(message: AgentMessage, options: FormatOptions) -> list[Block]:
    return bounded(message.content, options, "body.agent")


def _stop(stop: StopInfo) -> list[Block]:
    """``⚠ stopped: refusal (cyber): …`` and what else the stop holds: withheld calls, the
    recommended model, the provider's raw reason, an error (bounded)."""
    described = stop.describe()
    blocks = [block(one_line("⚠ stopped: " + described, 600), "problem")]
    details: list[str] = []
    detail = stop.detail if isinstance(stop.detail, Mapping) else {}
    withheld = detail.get("withheld_tool_calls")
    if isinstance(withheld, list) and withheld:
        details.append("withheld calls: " + ", ".join(str(name) for name in withheld[:20]))
    if stop.recommended_model:
        details.append(f"recommended model: {stop.recommended_model}")
    if stop.raw and stop.raw not in described:
        details.append(f"raw stop reason: {stop.raw}")
    if "error" in detail:
        error = detail["error"]
        details.append("error: " + (error if isinstance(error, str) else compact_json(error, 300)))
    rest = {key: value for key, value in detail.items() if key not in ("withheld_tool_calls", "error")}
    if rest:
        details.append("detail " + compact_json(rest, 300))
    blocks.extend(block("  " + one_line(line, 400), "stop.detail") for line in details)
    return blocks


def _assistant(message: AssistantMessage, options: FormatOptions) -> list[Block]:
    blocks: list[Block] = []
    if message.reasoning:
        if options.show_reasoning:
            blocks.append(block("▾ reasoning", "reasoning.marker"))
            blocks.extend(bounded(message.reasoning, options, "reasoning"))
        else:
            count = len(message.reasoning)
            blocks.append(block(f"▸ reasoning ({count:,} chars, press r)", "reasoning.marker"))
    blocks.extend(server_tool_blocks(message.replay_blocks, options))
    if message.content:
        blocks.extend(bounded(message.content, options, prose=True))
    for call in message.tool_calls:
        spans = (Span("→ call ", "tool.call"), Span(clean(call.name), "tool.name"), Span(f"  {clean(call.id)}", "id"))
        blocks.append(Block(spans))
        custom = call_blocks(call, options)
        if custom is not None:
            blocks.extend(custom)
        else:
            arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False, default=repr)
            blocks.extend(bounded(arguments, options, "tool.arguments"))
        if call.error:
            blocks.append(block(clean("arguments could not be decoded: " + call.error), "error"))
    if message.stop is not None and not message.stop.ok:
        blocks.extend(_stop(message.stop))
    return blocks


def _tool(message: ToolMessage, options: FormatOptions) -> list[Block]:
    outcome = tool_outcome(message.success, message.content)
    role = f"tool.result.{outcome.value}"
    mark = outcome.label
    spans = (
        Span("← result ", role),
        Span(mark + " ", role),
        Span(clean(message.name), "tool.result.name"),
        Span(f"  {clean(message.tool_call_id)}", "id"),
    )
    custom = result_blocks(message, options)
    if custom is not None:
        return [Block(spans), *custom]
    return [Block(spans), *_content(message.content, options, prose=False)]


def _user(message: UserMessage, options: FormatOptions) -> list[Block]:
    return _content(message.content, options, prose=True)


_BODIES: tuple[tuple[type, Callable[[Any, FormatOptions], list[Block]]], ...] = (
    (SystemMessage, _system),
    (AgentMessage, _agent),
    (AssistantMessage, _assistant),
    (ToolMessage, _tool),
    (UserMessage, _user),
)


def _json_line(label: str, value: Any, role: str, options: FormatOptions) -> list[Block]:
    """Metadata or tags as one JSON line, bounded like a body (a store may hold megabytes)."""
    return bounded(label + " " + json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr), options, role)


def format_record(
    record: RawMessageRecord, options: FormatOptions | None = None, context: RequestContext | None = None
) -> list[Block]:
    """Header, problems, body and details of one record.

    ``context`` (from :class:`~zett_browser.views.requests.RequestTracker`) adds what the
    rows around it tell: the request start, a steering message, a pass without input, what
    changed in the offered tools, and it collapses a repeated system row to its header
    (unless ``show_all`` or ``show_reasoning``).
    """
    options = options or FormatOptions()
    blocks = [header(record, options, context)]
    message = record.message
    blocks.extend(block("✗ " + clean(problem), "problem") for problem in record.problems)
    if isinstance(message, UnreadableMessage):
        blocks.extend(bounded(message.raw_json, options, "body.unreadable"))
        return blocks
    if context is not None and context.pass_without_input:
        blocks.append(block("pass without input: resume check / compact()", "pass"))
    if context is not None and context.steering:
        blocks.append(block("↪ steering: interrupts the turn", "steering"))
    collapsed = context is not None and context.same_as is not None
    if collapsed and not (options.show_all or options.show_reasoning):
        return blocks
    blocks.extend(attribute_blocks(message, options))
    for cls, body in _BODIES:
        if isinstance(message, cls):
            blocks.extend(body(message, options))
            break
    if isinstance(message, AssistantMessage):
        previous = context.previous_tools if context is not None else None
        blocks.extend(trace_blocks(message, options, previous))
        if message.provider or message.model:
            blocks.append(block(clean(f"{message.provider or ''} {message.model or ''}".strip()), "model"))
    if record.metadata:
        blocks.extend(_json_line("metadata", record.metadata, "metadata", options))
    if record.tags:
        blocks.extend(_json_line("tags", record.tags, "tags", options))
    return blocks


def full_text(record: RawMessageRecord) -> str:
    """Everything of a record as one plain (cleaned) string (the detail view), with its request."""
    blocks = format_record(record, FormatOptions(show_reasoning=True, show_all=True))
    if record.request_id:
        blocks.insert(1, block("request " + one_line(record.request_id, 200), "request"))
    return join(blocks)


def join(blocks: Iterable[Block]) -> str:
    """Blocks as plain text, one line each."""
    return "\n".join(block.text for block in blocks)


def summary_blocks(snapshot: SnapshotInfo, *, limit: int | None = PREVIEW) -> list[Block]:
    """A snapshot's summary: title, problems, and its text (a preview past ``limit``)."""
    blocks = [block(f"v{snapshot.version} summary", "summary.title")]
    blocks.extend(block("✗ " + clean(problem), "problem") for problem in snapshot.problems)
    text = snapshot.summary_text
    if limit is not None and len(text) > limit:
        blocks.append(block(clean(text[:limit]), "body"))
        more = human_size(len(text) - limit)
        blocks.append(block(f"… {more} more — s in the version list reads it whole", "note"))
    else:
        blocks.append(block(clean(text), "body"))
    return blocks
