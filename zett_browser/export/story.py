"""Provides what Markdown and HTML exports tell besides the messages: summaries, totals, anchors.

- :class:`SummaryNote`: a compaction snapshot version as the export shows it at its
  boundary: version, boundary, when and by what it was made (the inspector's words,
  :attr:`~zett_browser.model.origins.Origin.how`) and the summary's text (untrusted: the
  writers escape it like any store text).
- :class:`SummaryQueue` (one session) and :class:`OpenSummaries` (every open one): hand
  out the notes due before a row, so each lands right after the row it compacted through.
- :func:`anchor`: a stable anchor for a session, made only of ASCII letters, digits and
  ``-`` whatever the stored id holds.
- :func:`totals_table` and :func:`brief`: the totals in the words of the app's usage details.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..model.compaction import SnapshotMeta
from ..model.origins import Origin
from ..model.records import SnapshotInfo
from ..model.usage import Totals
from ..text import clean
from ..views.formatting import human_duration
from ..views.usage_text import money, totals_rows

_PLAIN_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


@dataclass(frozen=True, slots=True)
class SummaryNote:
    """One snapshot version at its boundary (texts cleaned, not yet escaped)."""

    version: int
    boundary: int
    made: str
    how: str
    summary: str
    problems: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """``compaction summary v2 · through #12 · made 2026-12-05 11:34:19 · by Agent.compact() (after #12)``."""
        parts = [f"compaction summary v{self.version}", f"through #{self.boundary:,}", self.made, self.how]
        return " · ".join(part for part in parts if part)


def meta_of(info: SnapshotInfo, row: Mapping[str, Any]) -> SnapshotMeta:
    """The version's metadata, as the origin query takes it."""
    stored = row.get("message_json")
    size = len(stored) if isinstance(stored, str) else 0
    return SnapshotMeta(info.id, info.session_id, info.version, info.compacted_through_sequence, info.created_at, size)


def note_of(info: SnapshotInfo, origin: Origin | None) -> SummaryNote:
    """The note of one version (``origin`` None: older than the versions whose origin is read)."""
    made = f"made {info.created_at:%Y-%m-%d %H:%M:%S}" if info.created_at is not None else "made: time unknown"
    how = origin.how if origin is not None else "by: not known"
    return SummaryNote(
        info.version,
        info.compacted_through_sequence,
        made,
        how,
        clean(info.summary_text),
        tuple(clean(problem) for problem in info.problems),
    )


class SummaryQueue:
    """The notes of one session, handed out in boundary order as the rows pass them."""

    def __init__(self, notes: list[SummaryNote]) -> None:
        self._notes = sorted(notes, key=lambda note: (note.boundary, note.version))

    def before(self, sequence: int) -> list[SummaryNote]:
        """The notes whose boundary lies before row ``sequence`` (not handed out yet)."""
        count = 0
        while count < len(self._notes) and self._notes[count].boundary < sequence:
            count += 1
        due, self._notes = self._notes[:count], self._notes[count:]
        return due

    def rest(self) -> list[SummaryNote]:
        """The notes not handed out (boundaries at or past the last row)."""
        rest, self._notes = self._notes, []
        return rest


class OpenSummaries:
    """The summaries of the sessions being written (nested sessions are open at once)."""

    def __init__(self) -> None:
        self._queues: dict[str, SummaryQueue] = {}

    def open(self, session_id: str, notes: Iterable[SummaryNote]) -> None:
        """A session starts: its notes wait for their boundaries."""
        self._queues[session_id] = SummaryQueue(list(notes))

    def before(self, session_id: str, sequence: int) -> list[SummaryNote]:
        """The session's notes whose boundary lies before row ``sequence``."""
        queue = self._queues.get(session_id)
        return queue.before(sequence) if queue is not None else []

    def close(self, session_id: str) -> list[SummaryNote]:
        """The session ends: its notes not handed out yet."""
        queue = self._queues.pop(session_id, None)
        return queue.rest() if queue is not None else []


def session_name(row: Mapping[str, Any], label: str | None) -> str:
    """What a session is called in an export: its title, what its parent asked, its agent, its id (cleaned)."""
    return " ".join(clean(row.get("title") or label or row.get("agent_name") or row["id"]).split())


def anchor(session_id: object) -> str:
    """A stable anchor for a session: ``session-<id>`` for a plain id, else ``session-<hash>``."""
    text = str(session_id)
    if _PLAIN_ID.fullmatch(text):
        return f"session-{text}"
    return "session-x" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:20]


def totals_table(own: Totals, subtree: Totals | None) -> list[tuple[str, ...]]:
    """The header's rows, as the app's usage details: (what, this session[, with delegated sessions])."""
    rows = totals_rows(own, subtree if subtree is not None else own)
    return [(what, mine, theirs) if subtree is not None else (what, mine) for what, mine, theirs in rows]


def brief(totals: Totals) -> str:
    """One line of a session's own totals: ``14 messages · 3,210 tokens · $0.01 · 4.2 s measured · 1 failed``."""
    parts = [
        f"{totals.messages:,} messages",
        f"{totals.tokens.total:,} tokens",
        money(totals.cost, totals.unpriced_steps),
    ]
    measured = human_duration(totals.measured_ns)
    if measured:
        parts.append(f"{measured} measured")
    if totals.failed_tool_results:
        parts.append(f"{totals.failed_tool_results:,} failed")
    return " · ".join(parts)


__all__ = ["SummaryNote", "SummaryQueue", "anchor", "brief", "meta_of", "note_of", "session_name", "totals_table"]
