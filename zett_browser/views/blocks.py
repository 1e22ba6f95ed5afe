"""Provides the building blocks of rendered text: spans, blocks, options and bounded bodies.

The primitives :mod:`zett_browser.views.formatting` and the per-tool renderers of
:mod:`zett_browser.views.tools` share. Toolkit-free; every string put into a span has been
through :func:`zett_browser.text.clean`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text import clean

#: A message body of this many characters or more shows a preview in the Raw Log and
#: offers "show all" (enter); a page of 50 large tool outputs then stays one screenful
#: of reading per message, and costs what its previews cost.
HUGE = 10_000
PREVIEW = 2_000


@dataclass(frozen=True, slots=True)
class Span:
    """Cleaned text and what it is."""

    text: str
    role: str


@dataclass(frozen=True, slots=True)
class Block:
    """One line before wrapping; ``prose`` bodies may be shown as Markdown by a view."""

    spans: tuple[Span, ...]
    prose: bool = False

    @property
    def text(self) -> str:
        return "".join(span.text for span in self.spans)


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """Per-record choices made by the view."""

    show_reasoning: bool = False
    show_all: bool = False
    compacted_through: int = 0


def block(text: str, role: str, *, prose: bool = False) -> Block:
    return Block((Span(text, role),), prose)


def human_duration(ns: int | None) -> str:
    """``<1 ms``, ``840 ms``, ``3.2 s``, ``2 m 05 s``; empty when nothing was measured."""
    if not ns or ns < 0:
        return ""
    if ns < 1_000_000:
        return "<1 ms"
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


def bounded(value: str, options: FormatOptions, role: str = "body", *, prose: bool = False) -> list[Block]:
    """``value`` whole; past :data:`HUGE` characters only a :data:`PREVIEW` and a note.

    The cut happens before cleaning and wrapping, so a 100 KB tool output costs what its
    preview costs; ``enter`` shows the whole message.
    """
    if options.show_all or len(value) < HUGE:
        return [block(clean(value), role, prose=prose)]
    rest = len(value) - PREVIEW
    return [
        block(clean(value[:PREVIEW]), role, prose=prose),
        block(f"… {human_size(rest)} more — press enter to show all", "note"),
    ]
