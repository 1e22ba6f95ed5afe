"""Provides when a compaction snapshot was made and by what: during a request or by ``Agent.compact()``.

zett-agent 0.2.1 writes no row for a compaction and the two ways look the same in
``session_snapshots`` (see docs/compaction.md). What tells them apart is time: the
snapshot's ``created_at`` against the ``created_at`` of the Raw Log rows after its
boundary (the same clock writes both).

- The rows just before and just after the snapshot belong to one request: the
  ``CompactionExtension`` compacted inside that request (before a model call).
- The request that wrote the rows just before it wrote only system rows and nothing of
  it follows: a pass with no input, which is what ``Agent.compact()`` writes (it appends
  the system prompt, then compacts).
- Otherwise it was made between requests (after a request's last row): by what, the
  store does not say.

Pure and toolkit-free; the storage reads the rows (:mod:`..storage.origins`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

#: The role code of a system row (zett-agent's message kind 1).
SYSTEM_ROLE = 1


class OriginKind(StrEnum):
    """What made a snapshot."""

    IN_REQUEST = "in_request"  # the CompactionExtension, during a request
    COMPACT_CALL = "compact_call"  # Agent.compact(): a pass that wrote only system rows
    BETWEEN = "between"  # after a request's last row, by something the store does not name
    UNKNOWN = "unknown"  # no times, or the rows read do not reach the moment


@dataclass(frozen=True, slots=True)
class OriginRow:
    """The few columns of a Raw Log row the rule reads."""

    sequence: int
    role: int
    request_id: str
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class Origin:
    """When a snapshot was made: after row ``after_sequence``, by ``kind``."""

    kind: OriginKind
    after_sequence: int | None = None
    request_id: str | None = None

    @property
    def label(self) -> str:
        """A few words for the inspector: ``in request (after #9)``, ``compact() (after #28)``."""
        words = {
            OriginKind.IN_REQUEST: "in request",
            OriginKind.COMPACT_CALL: "compact()",
            OriginKind.BETWEEN: "between requests",
            OriginKind.UNKNOWN: "",
        }[self.kind]
        if words and self.after_sequence is not None:
            return f"{words} (after #{self.after_sequence:,})"
        return words

    @property
    def how(self) -> str:
        """What made it, as the inspector and the exports say it: ``auto, in a request (after #9)``,
        ``by Agent.compact() (after #28)``, ``by: not known``."""
        words = {
            OriginKind.IN_REQUEST: "auto, in a request",
            OriginKind.COMPACT_CALL: "by Agent.compact()",
            OriginKind.BETWEEN: "between requests",
            OriginKind.UNKNOWN: "by: not known",
        }[self.kind]
        if self.after_sequence is not None:
            words += f" (after #{self.after_sequence:,})"
        return words


def origin(made_at: datetime | None, rows: Sequence[OriginRow], *, complete: bool) -> Origin:
    """What made a snapshot written at ``made_at``, from the rows from its boundary on.

    ``rows`` start at the snapshot's boundary row, in sequence order; ``complete`` says
    they reach the session's end (else a moment past the last row read is unknown).
    """
    if made_at is None or not rows or any(row.created_at is None for row in rows):
        return Origin(OriginKind.UNKNOWN)
    if any(row.created_at == made_at for row in rows):
        # A row written at the same instant, as the clock (or a column without fractions of a
        # second: MySQL's DATETIME) records it: which came first is not known.
        return Origin(OriginKind.UNKNOWN)
    before_index = None
    for index, row in enumerate(rows):
        assert row.created_at is not None
        if row.created_at <= made_at:
            before_index = index
        else:
            break
    if before_index is None:
        return Origin(OriginKind.UNKNOWN)  # made before its own boundary row: clocks disagree
    before = rows[before_index]
    after = rows[before_index + 1] if before_index + 1 < len(rows) else None
    if after is None and not complete:
        return Origin(OriginKind.UNKNOWN)
    if after is not None and after.request_id == before.request_id:
        return Origin(OriginKind.IN_REQUEST, before.sequence, before.request_id)
    # The request of the row before it had ended: was it a pass with no input?
    request_rows = [row for row in rows[: before_index + 1] if row.request_id == before.request_id]
    # The boundary row is the previous request's: a request that differs from it started
    # after the boundary, so all of its rows are among those read.
    whole = rows[0].request_id != before.request_id
    if whole and all(row.role == SYSTEM_ROLE for row in request_rows):
        return Origin(OriginKind.COMPACT_CALL, before.sequence, before.request_id)
    return Origin(OriginKind.BETWEEN, before.sequence, before.request_id)


__all__ = ["SYSTEM_ROLE", "Origin", "OriginKind", "OriginRow", "origin"]
