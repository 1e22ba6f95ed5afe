"""Provides how one Raw Log record looks: a header line and a body, as plain Text.

Everything from the store goes through :mod:`.safe`; nothing here parses markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from ..model import (
    AgentMessage,
    AssistantMessage,
    ImageBytesSource,
    ImageContent,
    RawMessageRecord,
    SystemMessage,
    TextContent,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from .safe import clean, plain

#: A message body of this many characters or more shows a preview in the Raw Log and
#: offers "show all" (enter); a page of 50 large tool outputs then stays one screenful
#: of reading per message, and costs what its previews cost.
HUGE = 10_000
PREVIEW = 2_000

KIND_STYLE = {
    "user": "bold cyan",
    "assistant": "bold green",
    "tool": "bold yellow",
    "system": "bold magenta",
    "agent": "bold blue",
    "unreadable": "bold red",
}


def kind_name(record: RawMessageRecord) -> str:
    """A short name for the record's message kind."""
    message = record.message
    for cls, name in (
        (UnreadableMessage, "unreadable"),
        (SystemMessage, "system"),
        (AgentMessage, "agent"),
        (AssistantMessage, "assistant"),
        (ToolMessage, "tool"),
        (UserMessage, "user"),
    ):
        if isinstance(message, cls):
            return name
    return "unknown"


def human_duration(ns: int | None) -> str:
    """``840 ms``, ``3.2 s``, ``2 m 05 s``."""
    if not ns:
        return ""
    seconds = ns / 1e9
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def human_size(size: int) -> str:
    """``512 B``, ``1.4 KB``, ``2.0 MB``."""
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    return f"{size / 1_000_000:.1f} MB"


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
    return " · ".join(parts)


def _parts(content: Any) -> list[str | Text]:
    """A message body as its text parts (still raw strings) and image placeholders."""
    if isinstance(content, str):
        return [content]
    out: list[str | Text] = []
    for part in content:
        if isinstance(part, TextContent):
            out.append(part.text)
        elif isinstance(part, ImageContent):
            source = part.source
            if isinstance(source, ImageBytesSource):
                what = f"{clean(source.media_type)}, {human_size(len(source.data))}"
            else:
                what = clean(source.url if len(source.url) < 120 else source.url[:117] + "…")
            alt = f' — "{clean(part.alt_text)}"' if part.alt_text else ""
            out.append(Text(f"[image: {what}{alt}]", style="italic magenta"))
    return out


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """Per-record display choices made by the view."""

    show_reasoning: bool = False
    show_all: bool = False
    compacted_through: int = 0
    markdown: bool = True


_MARKDOWN_HINTS = ("```", "\n#", "\n- ", "\n* ", "\n1. ", "**", "`", "\n> ")


def _prose(text: Text, options: RenderOptions) -> RenderableType:
    """Model or user prose: Markdown with highlighted code when it looks like Markdown.

    Rich's Markdown parses Markdown, never console markup; links are printed as text
    (``hyperlinks=False``, so no OSC 8 sequence is emitted) and the input was cleaned of
    control characters first.
    """
    source = text.plain
    if not options.markdown or len(source) > HUGE or not any(hint in "\n" + source for hint in _MARKDOWN_HINTS):
        return text
    from rich.markdown import Markdown  # imported with the first Markdown message, not at start

    return Markdown(source, hyperlinks=False, code_theme="monokai", inline_code_lexer="text")


def body_size(record: RawMessageRecord) -> int:
    """Characters of the record's text, to decide whether it is huge."""
    message = record.message
    if isinstance(message, UnreadableMessage):
        return len(message.raw_json)
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return len(content)
    return sum(len(part.text) for part in content if isinstance(part, TextContent))


def _bounded(value: str, options: RenderOptions, style: str = "") -> list[Text]:
    """``value`` as Text; past :data:`HUGE` characters only a :data:`PREVIEW` and a note.

    The cut happens before cleaning and wrapping, so a 100 KB tool output costs what its
    preview costs; ``enter`` shows the whole message.
    """
    if options.show_all or len(value) < HUGE:
        return [plain(value, style)]
    rest = len(value) - PREVIEW
    return [
        plain(value[:PREVIEW], style),
        Text(f"… {human_size(rest)} more — press enter to show all", style="bold reverse"),
    ]


def render_record(record: RawMessageRecord, options: RenderOptions) -> list[RenderableType]:
    """Header, body and details of one record, as lines of Text to be wrapped."""
    kind = kind_name(record)
    header = Text()
    header.append(f"#{record.sequence} ", style="bold")
    header.append(kind, style=KIND_STYLE.get(kind, "bold"))
    header.append(f"  {record.started_at:%Y-%m-%d %H:%M:%S}", style="dim")
    usage = usage_line(record)
    if usage:
        header.append(f"  {usage}", style="dim")
    if record.sequence <= options.compacted_through:
        header.append("  [compacted]", style="italic dim yellow")
    lines: list[RenderableType] = [header]
    message = record.message
    if isinstance(message, UnreadableMessage) or record.problems:
        for problem in record.problems:
            lines.append(Text("✗ " + clean(problem), style="bold red"))
        if isinstance(message, UnreadableMessage):
            lines.extend(_bounded(message.raw_json, options, "red"))
            return lines
    if isinstance(message, SystemMessage):
        lines.extend(_bounded(message.content, options, "italic magenta"))
    elif isinstance(message, AgentMessage):
        lines.extend(_bounded(message.content, options, "italic blue"))
    elif isinstance(message, AssistantMessage):
        if message.reasoning:
            if options.show_reasoning:
                lines.append(Text("▾ reasoning", style="dim italic"))
                lines.extend(_bounded(message.reasoning, options, "dim italic"))
            else:
                count = len(message.reasoning)
                lines.append(Text(f"▸ reasoning ({count:,} chars, press r)", style="dim italic"))
        if message.content:
            lines.extend(_prose(part, options) for part in _bounded(message.content, options))
        for call in message.tool_calls:
            lines.append(
                Text.assemble(("→ call ", "yellow"), (clean(call.name), "bold yellow"), (f"  {clean(call.id)}", "dim"))
            )
            arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False, default=repr)
            lines.extend(_bounded(arguments, options, "yellow"))
            if call.error:
                lines.append(plain("arguments could not be decoded: " + call.error, "red"))
        if message.stop is not None and not message.stop.ok:
            lines.append(plain("⚠ stopped: " + message.stop.describe(), "bold red"))
        if message.provider or message.model:
            lines.append(plain(f"{message.provider or ''} {message.model or ''}".strip(), "dim"))
    elif isinstance(message, ToolMessage):
        mark, style = ("✓", "green") if message.success else ("✗ failed", "bold red")
        lines.append(
            Text.assemble(
                ("← result ", style),
                (mark + " ", style),
                (clean(message.name), "bold"),
                (f"  {clean(message.tool_call_id)}", "dim"),
            )
        )
        for part in _parts(message.content):
            lines.extend(_bounded(part, options) if isinstance(part, str) else [part])
    elif isinstance(message, UserMessage):
        for part in _parts(message.content):
            pieces = _bounded(part, options) if isinstance(part, str) else [part]
            lines.extend(_prose(piece, options) for piece in pieces)
    if record.metadata:
        lines.append(plain("metadata " + json.dumps(record.metadata, ensure_ascii=False, sort_keys=True), "dim"))
    if record.tags:
        lines.append(plain("tags " + json.dumps(record.tags, ensure_ascii=False, sort_keys=True), "dim cyan"))
    return lines


def full_text(record: RawMessageRecord) -> str:
    """Everything of a record as one plain string, for the detail screen."""
    options = RenderOptions(show_reasoning=True, show_all=True, markdown=False)
    return "\n".join(line.plain for line in render_record(record, options) if isinstance(line, Text))
