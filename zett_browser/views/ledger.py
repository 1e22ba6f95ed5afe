"""Provides the compaction ledger's rows and the context curve, as pure functions.

No toolkit and no store: the storage reads the facts (:class:`LedgerFacts` for the rows
on screen, :class:`CurveColumn` aggregated per plot column in SQL) and these functions
turn them into what the ledger view shows. ``tests/unit/test_ledger.py`` checks them
against hand-computed values.

Token estimates use 4 characters a token, as the inspector does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from ..model.compaction import CurveColumn, LedgerFacts, SnapshotMeta

#: Characters a token, for estimates from text.
CHARS_PER_TOKEN = 4
#: Block characters of a plot cell, from empty to full (eighths).
BLOCKS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One version as the ledger shows it."""

    version: int
    boundary: int
    #: Time since the previous version was written (the session's first: None).
    since_previous: timedelta | None
    covered_rows: int
    covered_tokens: int
    summary_tokens: int | None
    #: Covered characters per summary character (None without a readable, non-empty summary).
    ratio: float | None
    #: The first recorded input_tokens after the snapshot.
    input_after: int | None
    #: cache_read_tokens of the step before minus the step after (the cache cost of compacting).
    cache_drop: int | None


def ledger_row(meta: SnapshotMeta, previous: SnapshotMeta | None, facts: LedgerFacts) -> LedgerRow:
    """The ledger's row of ``meta`` (``previous``: the version before it, if any)."""
    since = None
    if previous is not None and previous.created_at is not None and meta.created_at is not None:
        since = meta.created_at - previous.created_at
    summary = facts.summary_chars
    ratio = facts.covered_chars / summary if summary else None
    drop = None
    after, before = facts.after, facts.before
    if after is not None and before is not None and None not in (after.cache_read_tokens, before.cache_read_tokens):
        drop = int(before.cache_read_tokens or 0) - int(after.cache_read_tokens or 0)
    return LedgerRow(
        version=meta.version,
        boundary=meta.compacted_through_sequence,
        since_previous=since,
        covered_rows=facts.covered_rows,
        covered_tokens=facts.covered_chars // CHARS_PER_TOKEN,
        summary_tokens=summary // CHARS_PER_TOKEN if summary is not None else None,
        ratio=ratio,
        input_after=after.input_tokens if after is not None else None,
        cache_drop=drop,
    )


def ledger_rows(
    versions: Sequence[SnapshotMeta], facts: Sequence[LedgerFacts], previous: SnapshotMeta | None = None
) -> list[LedgerRow]:
    """Rows of consecutive ``versions`` with their ``facts`` (``previous``: the version before the first)."""
    rows = []
    for meta, fact in zip(versions, facts, strict=True):
        rows.append(ledger_row(meta, previous, fact))
        previous = meta
    return rows


def duration_text(value: timedelta | None) -> str:
    """A short duration: ``45s``, ``12m 05s``, ``3h 02m``, ``2d 04h``; ``–`` when unknown."""
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{sign}{seconds}s"
    if seconds < 3600:
        return f"{sign}{seconds // 60}m {seconds % 60:02d}s"
    if seconds < 86400:
        return f"{sign}{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    return f"{sign}{seconds // 86400}d {seconds % 86400 // 3600:02d}h"


#: The ledger's columns: header and width (the first is left-aligned); 78 characters in
#: all, so a row fits an 80-column terminal.
COLUMNS = (
    ("ver", 6),
    ("through", 8),
    ("since", 7),
    ("msgs", 6),
    ("≈tokens", 8),
    ("summary", 8),
    ("ratio", 6),
    ("input after", 11),
    ("cache drop", 10),
)


def _number(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def row_cells(row: LedgerRow) -> list[str]:
    """The ledger row's cells, in :data:`COLUMNS` order."""
    return [
        f"v{row.version}",
        f"#{row.boundary:,}",
        duration_text(row.since_previous),
        _number(row.covered_rows),
        _number(row.covered_tokens),
        _number(row.summary_tokens),
        "–" if row.ratio is None else f"{row.ratio:.1f}×",
        _number(row.input_after),
        _number(row.cache_drop),
    ]


def layout(cells: Sequence[str]) -> str:
    """Cells padded to :data:`COLUMNS`' widths: the first left-aligned, the rest right."""
    parts = []
    for number, (cell, (_, width)) in enumerate(zip(cells, COLUMNS, strict=True)):
        parts.append(cell.ljust(width) if number == 0 else cell.rjust(width))
    return " ".join(parts)


def header() -> str:
    """The ledger's header line."""
    return layout([name for name, _ in COLUMNS])


# ---------------------------------------------------------------------------------------
# The context curve


@dataclass(frozen=True, slots=True)
class Curve:
    """A plot of recorded input_tokens: ``height`` text rows, top first, plus a marks row.

    ``peaks[c]`` is the largest input_tokens of column ``c`` (None: no recorded step);
    ``marks[c]`` how many boundaries fall in column ``c``.
    """

    rows: list[str]
    marks: str
    peaks: list[int | None]
    boundary_counts: list[int]
    top: int
    #: The value the bottom row stands for: 0, or just under the lowest peak when every
    #: peak lies in the upper half (a 1,640–2,306 sawtooth drawn from 0 looks flat).
    base: int = 0


def column_of(sequence: int, first: int, last: int, width: int) -> int:
    """The plot column of ``sequence`` (the same arithmetic as the storage's SQL)."""
    return (sequence - first) * width // (last - first + 1)


def plot_columns(width: int, first: int, last: int) -> tuple[int, int]:
    """Columns to aggregate and characters per column: a short log gets one column a
    message, drawn wider, instead of one-character bars with gaps between them."""
    columns = max(1, min(width, last - first + 1))
    return columns, max(1, width // columns)


def baseline(peaks: Sequence[int]) -> int:
    """Where the curve's axis starts: 0, unless every peak is above half the highest; then a
    round number a little under the lowest, so the swings fill the plot."""
    if not peaks:
        return 0
    low, top = min(peaks), max(peaks)
    if low * 2 <= top or low == top:
        return 0
    swing = top - low
    step = 10 ** max(0, len(str(swing)) - 1)  # 666 -> 100
    return max(0, int((low - swing / 10) // step * step))


def plot(
    columns: Sequence[CurveColumn],
    boundaries: Sequence[int],
    *,
    width: int,
    height: int,
    first: int,
    last: int,
    repeat: int = 1,
) -> Curve:
    """The curve of ``columns`` (from :meth:`input_curve` with the same width/first/last).

    Each column's bar is its peak input_tokens above the :func:`baseline`, scaled to the
    largest peak, in eighths of a cell (a peak at the baseline still shows one); the marks
    row has ``│`` under each column holding a boundary (``┃`` for more
    than one). ``repeat`` draws every column that many characters wide.
    """
    peaks: list[int | None] = [None] * width
    for column in columns:
        if 0 <= column.column < width:
            peaks[column.column] = column.peak
    top = max((peak for peak in peaks if peak is not None), default=0)
    base = baseline([peak for peak in peaks if peak])
    counts = [0] * width
    for boundary in boundaries:
        if first <= boundary <= last:
            counts[column_of(boundary, first, last, width)] += 1
    rows = []
    for level in range(height, 0, -1):
        line = []
        for peak in peaks:
            if not peak or not top:
                line.append(" ")
                continue
            eighths = max(1, round((peak - base) * height * 8 / (top - base)))
            filled = eighths - (level - 1) * 8
            line.append(BLOCKS[max(0, min(8, filled))])
        rows.append("".join(cell * repeat for cell in line))
    marks = "".join(("┃" if count > 1 else "│" if count else " ").ljust(repeat) for count in counts)
    return Curve(rows=rows, marks=marks, peaks=peaks, boundary_counts=counts, top=top, base=base)
