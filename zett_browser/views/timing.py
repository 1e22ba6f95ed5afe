"""Provides the timing view's layout: steps, nested children and stalls from timing rows.

Toolkit-free and pure, so it is tested against hand-computed values. What a bar means:

* A **step** is one assistant row. Its model time is the row's ``duration_ns``, split
  into *thinking* (``reasoning_duration_ns``), *writing* (``content_duration_ns``) and
  *waiting* (the rest: the request until the first token, and anything not measured).
* Its **tool time** is the wall span of the tool results that follow it before the next
  step: from the earliest result's start to the latest one's end. Parallel calls
  overlap, so the span, not the sum, is the time the agent waited for its tools; a
  ``task`` result's span is the delegated child's run.
* A tool result the runtime answered **without running the tool** (skipped by a steering
  message, or interrupted: answered on resume after the process died; see
  ``TimingRow.outcome``) is counted and labelled by outcome but takes no part in the tool
  span: it is written instantly, an interrupted one maybe hours later, which would make the
  dead time look like tool time. That time shows as the idle gap (a stall) instead. A
  cancelled result (the wait until the cancel was real) and an aborted one (the wait for
  the user's decision) count like any result.
* The **idle gap** before a step is the time from the previous step's end (its tools'
  end when it had tools) to this step's start. A gap of at least ``stall_ns`` is
  flagged as a stall: the agent waited for a person, a rate limit or a crash.
* A **child** (delegated session) is nested under the step that was running when it was
  created: the last step that started at or before the child's creation.

Bars use a logarithmic scale (a full bar is :data:`FULL_SCALE_NS`), so a 20 ms step and a
10-minute step share one screen without a global maximum (which would need a scan of
the whole session); the parts of a bar are in proportion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..model.timing import ChildSpan, TimingRow

ASSISTANT, TOOL = 3, 4
#: Gaps at least this long are stalls (one minute).
STALL_NS = 60 * 1_000_000_000
#: What a full-width bar stands for on the log scale (ten minutes).
FULL_SCALE_NS = 600 * 1_000_000_000
_MS = 1_000_000


@dataclass(frozen=True, slots=True)
class Step:
    """One assistant step with its measured parts (nanoseconds)."""

    row_id: str
    sequence: int | None
    started_at: datetime | None
    think_ns: int
    write_ns: int
    wait_ns: int
    tool_ns: int
    tools: int
    tool_names: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    #: Results the runtime answered itself, by outcome, e.g. ``(("skipped", 2),)``.
    outcomes: tuple[tuple[str, int], ...] = ()

    @property
    def total_ns(self) -> int:
        return self.think_ns + self.write_ns + self.wait_ns + self.tool_ns


@dataclass(frozen=True, slots=True)
class Stall:
    """An idle gap of at least the threshold before a step."""

    gap_ns: int
    before_sequence: int | None


@dataclass(frozen=True, slots=True)
class Child:
    """A delegated session nested under the step that started it."""

    span: ChildSpan

    @property
    def wall_ns(self) -> int:
        start, end = self.span.created_at, self.span.updated_at
        if start is None or end is None or end < start:
            return 0
        return int((end - start).total_seconds() * 1e9)


Line = Step | Stall | Child


@dataclass(slots=True)
class _Open:
    row: TimingRow
    tool_start: datetime | None = None
    tool_end: datetime | None = None
    tools: int = 0
    names: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)


#: Outcomes whose result row says nothing about how long a tool ran (it never ran in this process).
NOT_RUN = ("skipped", "interrupted")


def _step(current: _Open) -> Step:
    row = current.row
    duration = max(0, row.duration_ns or 0)
    think = max(0, row.reasoning_ns or 0)
    write = max(0, row.content_ns or 0)
    # A row whose parts exceed its total (clock skew, a bad value): the parts win.
    wait = max(0, duration - think - write)
    tool = 0
    if current.tool_start is not None and current.tool_end is not None and current.tool_end > current.tool_start:
        tool = int((current.tool_end - current.tool_start).total_seconds() * 1e9)
    return Step(
        row_id=row.id,
        sequence=row.sequence,
        started_at=row.started_at,
        think_ns=think,
        write_ns=write,
        wait_ns=wait,
        tool_ns=tool,
        tools=current.tools,
        tool_names=tuple(dict.fromkeys(current.names)),
        problems=row.problems,
        outcomes=tuple(current.outcomes.items()),
    )


def _end(current: _Open) -> datetime | None:
    """When a step's work ended: its tools' end, else its own completion."""
    ends = [time for time in (current.row.completed_at, current.tool_end) if time is not None]
    return max(ends) if ends else None


def _add_tool(current: _Open, row: TimingRow) -> None:
    current.tools += 1
    if row.tool_name:
        current.names.append(row.tool_name)
    if row.outcome is not None:
        current.outcomes[row.outcome] = current.outcomes.get(row.outcome, 0) + 1
        if row.outcome in NOT_RUN:
            return
    if row.started_at is not None and (current.tool_start is None or row.started_at < current.tool_start):
        current.tool_start = row.started_at
    if row.completed_at is not None and (current.tool_end is None or row.completed_at > current.tool_end):
        current.tool_end = row.completed_at


def steps_of(rows: list[TimingRow], *, stall_ns: int = STALL_NS) -> list[Step | Stall]:
    """Steps (and the stalls before them) of ascending rows.

    Rows before the first assistant row are the end of an earlier step (another page):
    they count only as the end the first gap is measured from.
    """
    out: list[Step | Stall] = []
    current: _Open | None = None
    last_end: datetime | None = None
    for row in rows:
        if row.kind == ASSISTANT:
            if current is not None:
                out.append(_step(current))
                last_end = _end(current) or last_end
            if last_end is not None and row.started_at is not None:
                gap = int((row.started_at - last_end).total_seconds() * 1e9)
                if gap >= stall_ns:
                    out.append(Stall(gap, row.sequence))
            current = _Open(row)
        elif current is not None and row.kind == TOOL:
            _add_tool(current, row)
        elif current is None and row.completed_at is not None:
            last_end = row.completed_at if last_end is None else max(last_end, row.completed_at)
    if current is not None:
        out.append(_step(current))
    return out


def layout(
    rows: list[TimingRow],
    children: list[ChildSpan],
    *,
    context: list[TimingRow] | None = None,
    stall_ns: int = STALL_NS,
) -> list[Line]:
    """Steps, stalls and children in order: each child right after the step it ran under.

    ``context`` are the rows just before ``rows`` (the page before): they are not shown,
    but the gap before the first step is measured from their last step's end.
    """
    lines: list[Line] = []
    pending = list(children)  # oldest first, as read
    index = 0
    items = steps_of([*(context or []), *rows], stall_ns=stall_ns)
    if context:
        items = _without(items, {row.id for row in context})
    # Children created before the page's first step come first.
    first = next((item.started_at for item in items if isinstance(item, Step) and item.started_at), None)
    while index < len(pending) and first is not None and _created(pending[index]) < first:
        lines.append(Child(pending[index]))
        index += 1
    starts = [item.started_at for item in items if isinstance(item, Step)]
    step_number = 0
    for item in items:
        lines.append(item)
        if not isinstance(item, Step):
            continue
        step_number += 1
        following = next((start for start in starts[step_number:] if start is not None), None)
        while index < len(pending) and (following is None or _created(pending[index]) < following):
            lines.append(Child(pending[index]))
            index += 1
    return lines


def _without(items: list[Step | Stall], hidden: set[str]) -> list[Step | Stall]:
    """``items`` less the steps of hidden rows and the stalls before them."""
    kept: list[Step | Stall] = []
    stall: Stall | None = None
    for item in items:
        if isinstance(item, Stall):
            stall = item
            continue
        if item.row_id not in hidden:
            kept.extend([stall, item] if stall is not None else [item])
        stall = None
    return kept


def _created(span: ChildSpan) -> datetime:
    return span.created_at or datetime.max.replace(tzinfo=UTC)


def bar_cells(total_ns: int, width: int, *, full_ns: int = FULL_SCALE_NS) -> int:
    """Cells a duration's bar takes on the log scale of milliseconds (``full_ns`` fills ``width``;
    anything measured gets at least one cell)."""
    if total_ns <= 0 or width <= 0:
        return 0
    full = math.log10(1 + full_ns / _MS)
    cells = round(width * math.log10(1 + total_ns / _MS) / full)
    return max(1, min(width, cells))


def split_cells(parts: list[int], cells: int) -> list[int]:
    """``cells`` shared among ``parts`` in proportion (largest remainders); every part > 0 gets
    at least one cell when there are cells enough."""
    total = sum(parts)
    if total <= 0 or cells <= 0:
        return [0 for _ in parts]
    exact = [cells * part / total for part in parts]
    shares = [int(value) for value in exact]
    order = sorted(range(len(parts)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in order[: cells - sum(shares)]:
        shares[i] += 1
    for i, part in enumerate(parts):
        if part > 0 and shares[i] == 0:
            donor = max(range(len(parts)), key=lambda j: shares[j])
            if shares[donor] > 1:
                shares[donor] -= 1
                shares[i] = 1
    return shares
