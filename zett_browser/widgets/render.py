"""Provides how formatted text looks: the one role-to-style table, and Rich renderables.

What a record says is decided once, toolkit-free, in :mod:`zett_browser.views.formatting`;
this module only styles its spans. The spans hold cleaned text and are wrapped in
``Text`` built from plain strings, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rich.console import RenderableType
from rich.text import Text

from ..model import RawMessageRecord
from ..views.formatting import (
    HUGE,
    PREVIEW,
    Block,
    FormatOptions,
    RequestContext,
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
    "use_theme",
]

#: The one place a role gets its look. ``{name}`` is a colour of the app's Textual theme
#: (``$text-primary`` is ``{text-primary}``: the theme's colours made legible as text), so
#: every theme restyles the whole app. Kind colours follow
#: the message roles; dim is for details, the error colour for what went wrong, the warning
#: colour for tools and compaction.
ROLE_STYLE: dict[str, str] = {
    "sequence": "bold",
    "kind.user": "bold {text-primary}",
    "kind.assistant": "bold {text-success}",
    "kind.tool": "bold {text-warning}",
    "kind.system": "bold {text-secondary}",
    "kind.agent": "bold {text-accent}",
    "kind.unreadable": "bold {text-error}",
    "kind.unknown": "bold",
    "timestamp": "dim",
    "usage": "dim",
    "usage.tree": "{text-success}",
    "compacted": "italic dim {text-warning}",
    "problem": "bold {text-error}",
    "body": "",
    "body.system": "italic {text-secondary}",
    "body.agent": "italic {text-accent}",
    "body.unreadable": "{text-error}",
    "reasoning.marker": "dim italic",
    "reasoning": "dim italic",
    "tool.call": "{text-warning}",
    "tool.name": "bold {text-warning}",
    "tool.arguments": "{text-warning}",
    "tool.result.ok": "{text-success}",
    "tool.result.failed": "bold {text-error}",
    # Not failures (model/outcomes.py): decisions and accidents around a call, never the error red.
    "tool.result.skipped": "italic {text-secondary}",
    "tool.result.cancelled": "italic {text-warning}",
    "tool.result.interrupted": "bold {text-warning}",
    "tool.result.aborted": "bold {text-accent}",
    "tool.result.name": "bold",
    "id": "dim",
    "error": "{text-error}",
    "model": "dim",
    "image": "italic {text-secondary}",
    "metadata": "dim",
    "tags": "dim {text-accent}",
    "note": "bold reverse",
    "summary.title": "bold",
    "request": "dim {text-secondary}",
    "repeat": "italic dim",
    "pass": "italic {text-warning}",
    "steering": "bold {text-accent}",
    "stop.detail": "{text-error}",
    "attribute": "dim",
    "attribute.badge": "italic {text-accent}",
    "attribute.change": "dim {text-accent}",
    "attribute.typed": "{text-primary}",
    "server.call": "{text-warning}",
    "server.name": "bold {text-warning}",
    "server.result": "{text-success}",
    "server.item": "dim",
    "server.other": "dim italic",
    "boundary": "bold {text-warning}",
    "agent": "{text-accent}",
    "children": "{text-secondary}",
    "snapshots": "{text-warning}",
    "session.type": "{text-primary}",
    "store": "italic {text-secondary}",
    "mode.model": "bold reverse {text-success}",
    "unseen": "bold reverse {text-secondary}",
    "following": "bold {text-success}",
    "task.mark": "bold {text-accent}",
    "task.id": "bold",
    "task.type": "{text-accent}",
    "task.description": "",
    "task.note": "dim italic",
    "task.running": "italic {text-primary}",
    "task.completed": "{text-success}",
    "task.failed": "bold {text-error}",
    "task.cancelled": "{text-warning}",
    "review.pin": "bold {text-warning}",
    "review.label": "{text-primary}",
    "review.note": "italic",
}

#: Colours used before an app has applied its theme (tests, exports): plain ANSI names.
ANSI_DEFAULTS: dict[str, str] = {
    "text-primary": "cyan",
    "text-success": "green",
    "text-warning": "yellow",
    "text-secondary": "magenta",
    "text-accent": "blue",
    "text-error": "red",
}

_resolved: dict[str, str] = {}


def use_theme(variables: Mapping[str, str]) -> None:
    """Resolve every role's style with a theme's colours (Textual's ``get_css_variables()``).

    Called when the app starts and whenever its theme changes; a colour the theme lacks
    keeps its ANSI default.
    """
    colours = {name: variables.get(name) or default for name, default in ANSI_DEFAULTS.items()}
    _resolved.clear()
    _resolved.update({role: template.format_map(colours) for role, template in ROLE_STYLE.items()})


use_theme({})


def style_of(role: str) -> str:
    """The style of a role in the current theme; unknown roles are unstyled."""
    return _resolved.get(role, "")


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


def render_record(
    record: RawMessageRecord, options: RenderOptions, context: RequestContext | None = None
) -> list[RenderableType]:
    """Header, body and details of one record, as lines of Text (or Markdown) to wrap."""
    return render_blocks(format_record(record, options, context), markdown=options.markdown)
