"""Provides how formatted text looks: the one role-to-style table, and Rich renderables.

What a record says is decided once, toolkit-free, in :mod:`zett_browser.formatting`;
this module only styles its spans. The spans hold cleaned text and are wrapped in
``Text`` built from plain strings, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import RenderableType
from rich.text import Text

from ..formatting import (
    HUGE,
    PREVIEW,
    Block,
    FormatOptions,
    body_size,
    format_record,
    full_text,
    human_duration,
    human_size,
    kind_name,
    looks_like_markdown,
    relative_time,
    usage_line,
)
from ..model import RawMessageRecord

__all__ = [
    "HUGE",
    "PREVIEW",
    "ROLE_STYLE",
    "RenderOptions",
    "block_text",
    "body_size",
    "full_text",
    "human_duration",
    "human_size",
    "kind_name",
    "relative_time",
    "render_blocks",
    "render_record",
    "style_of",
    "usage_line",
]

#: The one place a role gets its look. Kind colours follow the message roles; dim is
#: for details, red for what went wrong, yellow for tools and compaction.
ROLE_STYLE: dict[str, str] = {
    "sequence": "bold",
    "kind.user": "bold cyan",
    "kind.assistant": "bold green",
    "kind.tool": "bold yellow",
    "kind.system": "bold magenta",
    "kind.agent": "bold blue",
    "kind.unreadable": "bold red",
    "kind.unknown": "bold",
    "timestamp": "dim",
    "usage": "dim",
    "compacted": "italic dim yellow",
    "problem": "bold red",
    "body": "",
    "body.system": "italic magenta",
    "body.agent": "italic blue",
    "body.unreadable": "red",
    "reasoning.marker": "dim italic",
    "reasoning": "dim italic",
    "tool.call": "yellow",
    "tool.name": "bold yellow",
    "tool.arguments": "yellow",
    "tool.result.ok": "green",
    "tool.result.failed": "bold red",
    "tool.result.name": "bold",
    "id": "dim",
    "error": "red",
    "model": "dim",
    "image": "italic magenta",
    "metadata": "dim",
    "tags": "dim cyan",
    "note": "bold reverse",
    "summary.title": "bold",
}


def style_of(role: str) -> str:
    """The style of a role; unknown roles are unstyled."""
    return ROLE_STYLE.get(role, "")


@dataclass(frozen=True, slots=True)
class RenderOptions(FormatOptions):
    """Per-record display choices made by the view, plus whether prose may be Markdown."""

    markdown: bool = True


def block_text(block: Block) -> Text:
    """One block as Text: a single span styles the whole line, several are appended."""
    if len(block.spans) == 1:
        span = block.spans[0]
        return Text(span.text, style=style_of(span.role), no_wrap=False)
    text = Text()
    for span in block.spans:
        text.append(span.text, style=style_of(span.role))
    return text


def _prose(block: Block) -> RenderableType:
    """Model or user prose as Markdown with highlighted code when it looks like Markdown.

    Rich's Markdown parses Markdown, never console markup; links are printed as text
    (``hyperlinks=False``, so no OSC 8 sequence is emitted) and the spans were cleaned of
    control characters first.
    """
    source = block.text
    if not looks_like_markdown(source):
        return block_text(block)
    from rich.markdown import Markdown  # imported with the first Markdown message, not at start

    return Markdown(source, hyperlinks=False, code_theme="monokai", inline_code_lexer="text")


def render_blocks(blocks: Iterable[Block], *, markdown: bool = True) -> list[RenderableType]:
    """Blocks as renderables: Text, or Markdown for prose that looks like it."""
    return [_prose(block) if markdown and block.prose else block_text(block) for block in blocks]


def render_record(record: RawMessageRecord, options: RenderOptions) -> list[RenderableType]:
    """Header, body and details of one record, as lines of Text (or Markdown) to wrap."""
    return render_blocks(format_record(record, options), markdown=options.markdown)
