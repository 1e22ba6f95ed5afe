"""The timing view's layout against hand-computed values (steps, tool spans, stalls, children, bars)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zett_browser.model.timing import ChildSpan, TimingRow
from zett_browser.views.timing import FULL_SCALE_NS, Child, Stall, Step, bar_cells, layout, split_cells, steps_of

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
MS = 1_000_000


def at(ms: float) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def row(
    row_id: str,
    sequence: int,
    kind: int,
    start_ms: float,
    end_ms: float,
    think: int | None = None,
    write: int | None = None,
) -> TimingRow:
    return TimingRow(
        id=row_id,
        sequence=sequence,
        kind=kind,
        tool_name="task" if kind == 4 else None,
        started_at=at(start_ms),
        completed_at=at(end_ms),
        duration_ns=int((end_ms - start_ms) * MS),
        reasoning_ns=think,
        content_ns=write,
    )


#: A user prompt; step A (100 ms: 30 thinking, 50 writing, so 20 waiting) calling two tools
#: in parallel (110-310 ms and 120-200 ms: a 200 ms span); step B 100 s after A started
#: (an idle gap of 100,000 - 310 = 99,690 ms: a stall); step C right after B.
ROWS = [
    row("u", 1, 2, 0, 0),
    row("a", 2, 3, 0, 100, 30 * MS, 50 * MS),
    row("t1", 3, 4, 110, 310),
    row("t2", 4, 4, 120, 200),
    row("b", 5, 3, 100_000, 100_040, None, 40 * MS),
    row("c", 6, 3, 100_050, 100_060),
]


def test_steps_split_into_thinking_writing_waiting_and_the_tools_span() -> None:
    items = steps_of(ROWS)
    assert [type(item) for item in items] == [Step, Stall, Step, Step]
    a, stall, b, c = items
    assert isinstance(a, Step) and isinstance(stall, Stall) and isinstance(b, Step) and isinstance(c, Step)
    assert (a.think_ns, a.write_ns, a.wait_ns, a.tool_ns, a.tools) == (30 * MS, 50 * MS, 20 * MS, 200 * MS, 2)
    assert a.total_ns == 300 * MS
    assert stall.gap_ns == 99_690 * MS and stall.before_sequence == 5
    assert (b.think_ns, b.write_ns, b.wait_ns, b.tool_ns) == (0, 40 * MS, 0, 0)
    # C starts 10 ms after B ended: no stall at the default threshold, one at 5 ms.
    assert (c.sequence, c.wait_ns) == (6, 10 * MS)
    assert sum(isinstance(item, Stall) for item in steps_of(ROWS, stall_ns=5 * MS)) == 2


def test_a_child_is_nested_under_the_step_running_when_it_was_created() -> None:
    child = ChildSpan("kid", None, "researcher", at(150), at(290))
    early = ChildSpan("early", None, None, at(-5), at(-1))
    lines = layout(ROWS, [early, child])
    kinds = [(type(line).__name__, getattr(line, "sequence", None)) for line in lines]
    assert kinds == [("Child", None), ("Step", 2), ("Child", None), ("Stall", None), ("Step", 5), ("Step", 6)]
    nested = lines[2]
    assert isinstance(nested, Child) and nested.span.session_id == "kid" and nested.wall_ns == 140 * MS


def test_context_rows_measure_the_first_gap_but_are_not_shown() -> None:
    """A page starting at B: A and its tools are the page before, yet B's stall is found."""
    lines = layout(ROWS[4:], [], context=ROWS[:4])
    assert [type(line) for line in lines] == [Stall, Step, Step]
    assert isinstance(lines[0], Stall) and lines[0].gap_ns == 99_690 * MS


def test_rows_before_the_first_step_are_an_earlier_steps_end() -> None:
    """A page starting with tool results: no step made of them, the gap measured from their end."""
    lines = steps_of([row("t", 1, 4, 0, 1_000), row("b", 2, 3, 71_000, 71_010)])
    assert [type(line) for line in lines] == [Stall, Step]
    assert isinstance(lines[0], Stall) and lines[0].gap_ns == 70_000 * MS


def test_bad_values_make_no_negative_parts() -> None:
    """Parts larger than the total (a bad row) give no negative waiting; a missing time no gap."""
    bad = TimingRow("x", 1, 3, None, None, None, 10 * MS, 30 * MS, 20 * MS, problems=("started_at is not a timestamp",))
    (step,) = steps_of([bad, row("t", 2, 4, 0, 0)])
    assert isinstance(step, Step)
    assert (step.think_ns, step.write_ns, step.wait_ns, step.tool_ns) == (30 * MS, 20 * MS, 0, 0)
    assert step.problems == ("started_at is not a timestamp",)


def test_bar_cells_on_the_log_scale() -> None:
    assert bar_cells(0, 40) == 0
    assert bar_cells(1, 40) == 1  # anything measured shows
    assert bar_cells(FULL_SCALE_NS, 40) == 40
    assert bar_cells(10 * FULL_SCALE_NS, 40) == 40
    # log10(1 + 1000 ms) / log10(1 + 600,000 ms) of 40 cells: 3.0004 / 5.7782 * 40 = 20.77
    assert bar_cells(1000 * MS, 40) == 21
    widths = [bar_cells(ns, 40) for ns in (MS, 10 * MS, 100 * MS, 10_000 * MS)]
    assert widths == sorted(widths) and len(set(widths)) == 4


def test_split_cells_in_proportion_and_every_part_shows() -> None:
    assert split_cells([30, 50, 20, 0], 10) == [3, 5, 2, 0]
    assert split_cells([1, 1000], 5) == [1, 4]  # the tiny part still gets a cell
    assert split_cells([0, 0], 5) == [0, 0]
    assert sum(split_cells([7, 11, 13], 9)) == 9


def test_results_the_runtime_answered_itself_are_labelled_and_leave_the_tool_span() -> None:
    """Skipped and interrupted results are instant (interrupted ones written on resume, maybe
    hours later): they are counted by outcome, and the dead time is a stall, not tool time."""
    from dataclasses import replace

    rows = [
        row("a", 1, 3, 0, 100),
        row("ok", 2, 4, 110, 310),
        replace(row("s", 3, 4, 390, 390), outcome="skipped"),
        replace(row("c", 4, 4, 330, 330), outcome="cancelled"),  # the wait until the cancel was real
        row("b", 5, 3, 400, 450),
        replace(row("i", 6, 4, 7_200_000, 7_200_000), outcome="interrupted"),
        replace(row("j", 7, 4, 7_200_001, 7_200_001), outcome="interrupted"),
        row("d", 8, 3, 7_200_010, 7_200_020),
    ]
    a, b, stall, d = steps_of(rows)
    assert isinstance(a, Step) and a.tool_ns == 220 * MS and a.tools == 3
    assert a.outcomes == (("skipped", 1), ("cancelled", 1))
    assert isinstance(b, Step) and b.outcomes == (("interrupted", 2),) and b.tools == 2 and b.tool_ns == 0
    assert isinstance(stall, Stall) and stall.gap_ns == (7_200_010 - 450) * MS
    assert isinstance(d, Step) and d.outcomes == ()
