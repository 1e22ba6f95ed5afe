"""Provides the review marks a person puts on sessions and messages, and the service the UI uses.

A session or a message can be pinned, carry labels (``good``, ``regression``, free text)
and one note. They are kept apart from the store (``zett_browser.notes``, a small SQLite
file in the user's data directory) and keyed by the store's identity, the session id and
the message's sequence (None: the session itself). Screens see only :class:`NotesService`;
the text in an :class:`Annotation` is the person's own but still shown as plain text.
Other views take them from the same service: a comparison of two sessions (``compare``)
can show each side's marks with :meth:`NotesService.sessions` and :meth:`NotesService.messages`,
and an export carries them through ``zett_browser.export.review``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

#: The labels offered first (any other text is a label too).
SUGGESTED_LABELS = ("good", "regression")


@dataclass(frozen=True, slots=True)
class Annotation:
    """What was written on one session (``seq`` None) or one message of it."""

    session_id: str
    seq: int | None
    pinned: bool = False
    labels: tuple[str, ...] = ()
    note: str | None = None
    #: When it last changed (ISO 8601, UTC).
    updated_at: str = ""

    @property
    def empty(self) -> bool:
        """Nothing is written on it (no pin, no label, no note)."""
        return not (self.pinned or self.labels or self.note)


def split_labels(text: str) -> tuple[str, ...]:
    """Labels typed in one line, separated by commas: trimmed, without repeats or empties."""
    seen: dict[str, None] = {}
    for part in text.split(","):
        label = " ".join(part.split())[:80]
        if label and label.lower() not in {known.lower() for known in seen}:
            seen[label] = None
    return tuple(seen)


class NotesService(Protocol):
    """Pins, labels and notes of the browsed store (reads and the person's explicit writes)."""

    @property
    def location(self) -> str:
        """Where the notes are kept (the notes file), for people."""
        ...

    async def sessions(self, session_ids: Sequence[str]) -> dict[str, Annotation]:
        """What is written on these sessions themselves (not their messages), by session id."""
        ...

    async def messages(self, session_id: str) -> dict[int, Annotation]:
        """What is written on the messages of one session, by sequence."""
        ...

    async def marked_sessions(self) -> frozenset[str]:
        """Every session that has something written on it or on one of its messages."""
        ...

    async def toggle_pin(self, session_id: str, seq: int | None) -> Annotation:
        """Pin or unpin a session (``seq`` None) or a message; what it carries now."""
        ...

    async def set_labels(self, session_id: str, seq: int | None, labels: Sequence[str]) -> Annotation:
        """Replace the labels of a session or message (none: remove them); what it carries now."""
        ...

    async def set_note(self, session_id: str, seq: int | None, text: str) -> Annotation:
        """Replace the note of a session or message (blank: remove it); what it carries now."""
        ...

    async def every(self) -> list[Annotation]:
        """Everything written on this store, sessions first by session, then by sequence."""
        ...
