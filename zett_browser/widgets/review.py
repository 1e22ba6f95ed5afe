"""Provides how pins, labels and notes show: marks on a tree label, lines under a message.

The labels and notes are the person's own text, but they may have been pasted from
anywhere: they are cleaned (``safe``) and appended to ``Text`` as plain strings, never
parsed as markup.
"""

from __future__ import annotations

from rich.text import Text

from ..model.notes import Annotation
from .cards import BAR
from .render import style_of
from .safe import clean, one_line

#: A pinned session or message.
PIN = "★"
#: Something carries a note.
NOTE = "✎"
#: Lines of a note shown under its message (``enter`` shows the message; ``a`` the whole note).
NOTE_LINES = 12


def labels_text(labels: tuple[str, ...]) -> str:
    """The labels as shown: ``[good, regression]`` (each cleaned, on one line)."""
    return "[" + ", ".join(one_line(label, 40) for label in labels) + "]"


def review_marks(label: Text, review: Annotation) -> Text:
    """Append a session's labels and note mark (after its name in the tree; the pin goes first)."""
    if review.labels:
        label.append(" ").append(labels_text(review.labels), style=style_of("review.label"))
    if review.note:
        label.append(" " + NOTE, style=style_of("review.note"))
    return label


def review_lines(review: Annotation, *, bar: bool = True) -> list[Text]:
    """The card lines under a message (``bar``) or in the details pane: pin and labels on one
    line, then the note."""

    def _bar() -> Text:
        return Text(BAR if bar else "", style=style_of("review.pin"))

    lines: list[Text] = []
    head = _bar()
    if review.pinned:
        head.append(PIN + " pinned", style=style_of("review.pin"))
    if review.labels:
        if review.pinned:
            head.append(" · ")
        head.append(labels_text(review.labels), style=style_of("review.label"))
    if review.pinned or review.labels:
        lines.append(head)
    if review.note:
        note_lines = clean(review.note).splitlines() or [""]
        for number, line in enumerate(note_lines[:NOTE_LINES]):
            text = _bar().append(NOTE + " " if number == 0 else "  ", style=style_of("review.note"))
            lines.append(text.append(line, style=style_of("review.note")))
        if len(note_lines) > NOTE_LINES:
            lines.append(
                _bar().append(f"  … {len(note_lines) - NOTE_LINES} more lines (a shows the note)", style="dim")
            )
    return lines


__all__ = ["NOTE", "PIN", "labels_text", "review_lines", "review_marks"]
