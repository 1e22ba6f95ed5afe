"""Provides the pins, labels and notes an export carries (``--notes``; the dialog's ``notes``).

:func:`read_review` reads what was written on the exported store from the notes file
(keyed by the store's identity); the writers put a "Review" section under the exported
session's heading (every mark on the sessions exported) and each mark beside its message
or delegated session. The lines are the person's own words, cleaned like store text and
written in each format's literal form (``markdown.literal``, ``html.escape``, JSON strings).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.notes import Annotation
from ..text import clean
from .source import Source

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage
    from .plan import PlanNode


@dataclass(frozen=True)
class Review:
    """What was written on the exported store's sessions and messages."""

    marks: dict[tuple[str, int | None], Annotation] = field(default_factory=dict)

    def of(self, session_id: str, seq: int | None) -> Annotation | None:
        """The mark on one session (``seq`` None) or message, if any."""
        found = self.marks.get((session_id, seq))
        return found if found is not None and not found.empty else None

    def within(self, session_ids: Iterable[str]) -> list[Annotation]:
        """Every mark on these sessions and their messages, session by session, in order."""
        wanted = list(dict.fromkeys(session_ids))
        order = {session_id: index for index, session_id in enumerate(wanted)}
        found = [item for (session_id, _), item in self.marks.items() if session_id in order and not item.empty]
        return sorted(found, key=lambda item: (order[item.session_id], item.seq is not None, item.seq or 0))


def lines(item: Annotation) -> list[str]:
    """A mark as cleaned lines: pin and labels, then the note's lines."""
    head = []
    if item.pinned:
        head.append("★ pinned")
    if item.labels:
        head.append("labels: " + ", ".join(" ".join(clean(label).split()) for label in item.labels))
    found = [" · ".join(head)] if head else []
    if item.note:
        note = clean(item.note).splitlines() or [""]
        found += ["✎ " + note[0], *note[1:]]
    return found


def where(item: Annotation) -> str:
    """Where a mark is, in the Review section's words."""
    return f"session {item.session_id}" if item.seq is None else f"#{item.seq} of session {item.session_id}"


def plan_ids(plan: PlanNode | None, root: str) -> list[str]:
    """The exported sessions, the root first (its plan when the subtree is exported)."""
    if plan is None:
        return [root]
    found: list[str] = []
    stack = [plan]
    while stack:
        node = stack.pop(0)
        found.append(node.session_id)
        stack[:0] = node.children
    return found


def read_review(path: Path, storage: SQLSessionStorage | Source) -> Review:
    """What the notes file at ``path`` holds on ``storage``'s store, or on each store of a
    :class:`~.source.Source` (several stores exported together); blocking: run on a thread."""
    from ..notes import db as notes_db
    from ..notes.identity import of_storage

    marks: dict[tuple[str, int | None], Annotation] = {}
    for one in storage.storages if isinstance(storage, Source) else [storage]:
        identity, store = of_storage(one)
        db = notes_db.open_file(path, store, create=False)
        if db is None:
            continue
        try:
            marks.update(((item.session_id, item.seq), item) for item in notes_db.every(db, identity))
        finally:
            db.close()
    return Review(marks)


__all__ = ["Review", "lines", "plan_ids", "read_review", "where"]
