"""Provides the records of the time-travel context: a Raw Log row with its stored envelope.

The context view and ``zett-browser context`` export exactly what zett-agent stores, so
the storage hands the envelope text (``message_json``) back beside the decoded record;
re-encoding a decoded message could only lose what a newer writer added.
"""

from __future__ import annotations

from .record import record
from .records import RawMessageRecord, SnapshotInfo


@record(frozen=True)
class ContextRow:
    """One Raw Log row of a context: the decoded record and its envelope as stored."""

    record: RawMessageRecord
    #: ``message_json`` exactly as stored (a JSON list holding one envelope), or None
    #: when the column could not be read as text.
    envelope: str | None


@record(frozen=True)
class PointRows:
    """What placing time travel at message N reads, in one read of the store.

    Attributes:
        at: N (asked for None: one past the last row, the next step).
        last: The session's last Raw Log row (None: no rows).
        row: Row N, or (a gap in a damaged store) the first row after it; None past the
            last row, or when N is outside 1 … last + 1 (then nothing more is read).
        snapshot: The snapshot ``load()`` returned at N's step, its summary decoded (None:
            none then).
        undated: Undated versions newer than it, left out.
        system: The system rows of the step's request written before it (the next step:
            all of the last request's); None when they could not be read.
    """

    at: int
    last: RawMessageRecord | None = None
    row: RawMessageRecord | None = None
    snapshot: SnapshotInfo | None = None
    undated: int = 0
    system: tuple[RawMessageRecord, ...] | None = ()

    @property
    def last_sequence(self) -> int:
        """The last row's sequence (0: no rows)."""
        return self.last.sequence if self.last is not None else 0

    @property
    def in_range(self) -> bool:
        """Whether N is one of 1 … last + 1."""
        return 1 <= self.at <= self.last_sequence + 1

    @property
    def step(self) -> RawMessageRecord | None:
        """The row whose request N's step was: row N, or for the next step the last row."""
        if self.row is not None and self.row.sequence == self.at:
            return self.row
        if self.at > self.last_sequence and self.last is not None and self.last_sequence:
            return self.last
        return None


__all__ = ["ContextRow", "PointRows"]
