"""Provides the records of the compaction views: version metadata, ledger facts, the curve.

A session compacted every 40 messages for 100,000 messages holds 2,500 snapshot versions;
decoding every summary to list them cost most of opening it. :class:`SnapshotMeta` is a
version without its summary (the storage reads it without touching ``message_json``
beyond its length), so the version list costs what its metadata costs and a summary is
decoded only when it is shown. The ledger's per-version facts and the context curve's
columns are aggregated by the storage in SQL and cross the boundary as these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class SnapshotMeta:
    """One snapshot version without its summary decoded.

    ``stored_chars`` is the length of the stored envelope (``message_json``), a size
    known without decoding it; ``problems`` says what could not be read.
    """

    id: str
    session_id: str
    version: int
    compacted_through_sequence: int
    created_at: datetime | None
    stored_chars: int
    problems: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class UsageStep:
    """One recorded assistant step: where it is and what it measured."""

    sequence: int
    input_tokens: int
    cache_read_tokens: int | None
    started_at: datetime | None


@dataclass(frozen=True, slots=True)
class LedgerFacts:
    """What the store says about one version, read in SQL for the rows on screen.

    ``covered_rows`` and ``covered_chars`` are the Raw Log rows after the previous
    version's boundary through this one's (the plain-text ``content`` column's
    characters); ``summary_chars`` is the decoded summary's text length (None when it is
    unreadable); ``after`` is the first recorded step made after the snapshot was
    written, ``before`` the recorded step just before that one.
    """

    version: int
    covered_rows: int
    covered_chars: int
    summary_chars: int | None
    after: UsageStep | None
    before: UsageStep | None


@dataclass(frozen=True, slots=True)
class CurveColumn:
    """One column of the context curve: the recorded steps whose sequence falls in it.

    ``first_sequence``/``last_sequence`` bound the steps aggregated; ``peak`` and
    ``low`` are their largest and smallest ``input_tokens``.
    """

    column: int
    first_sequence: int
    last_sequence: int
    steps: int
    peak: int
    low: int


@dataclass(frozen=True, slots=True)
class RangeText:
    """The plain text of a Raw Log range (bounded): what a snapshot absorbed."""

    after_sequence: int
    through_sequence: int
    rows: int
    text: str
    truncated: bool
