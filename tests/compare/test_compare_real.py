"""``compare`` on pairs of sessions the real zett-agent 0.2.1 runtime wrote (tests/compare/drive_pairs.py).

Each pair runs one script twice; the expected alignment is worked out by hand from the
script (the steps are listed in the driver), and the first divergence is asserted exactly.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from zett_browser.__main__ import run_command
from zett_browser.storage import open_store
from zett_browser.views.compare import Comparison
from zett_browser.views.compare_align import FIRST_WINDOW, WINDOW, Row
from zett_browser.views.compare_steps import PAGE, StepKind

from .pairs import Pairs


def compared(store: Path, pair: tuple[str, str], options: dict[str, int]) -> tuple[Comparison, list[Row]]:
    async def run() -> tuple[Comparison, list[Row]]:
        storage = open_store(str(store))
        try:
            comparison = Comparison(
                storage,
                *pair,
                page=options.get("page", PAGE),
                window=options.get("window", WINDOW),
                first_window=options.get("first_window", FIRST_WINDOW),
            )
            rows = [row async for page in comparison.pages() for row in page]
            return comparison, rows
        finally:
            await storage.close()

    return asyncio.run(run())


def side(row: Row, which: str) -> str:
    """A side as ``kind#sequence`` (``tool:name#sequence``), ``-`` when the run has no step there."""
    step = row.left if which == "a" else row.right
    if step is None:
        return "-"
    what = f"tool:{step.tool}" if step.kind is StepKind.TOOL else step.kind.value
    return f"{what}#{step.sequence}"


def table(rows: list[Row]) -> list[tuple[str, str, str, str]]:
    return [(side(row, "a"), row.status.value, row.reason, side(row, "b")) for row in rows]


SMALL_WINDOWS = {"page": 2, "window": 4, "first_window": 2}


@pytest.mark.parametrize("options", [{}, SMALL_WINDOWS], ids=["one-window", "pages-of-two"])
def test_one_changed_tool_result(compare_pairs: Pairs, options: dict[str, int]) -> None:
    """Same script, ``lookup('beta')`` answers otherwise in B: the fifth row, nothing else."""
    comparison, rows = compared(compare_pairs.store, compare_pairs.ids["result"], options)
    assert table(rows) == [
        ("user#2", "same", "", "user#2"),
        ("model#3", "same", "", "model#3"),
        ("tool:lookup#3", "same", "", "tool:lookup#3"),
        ("model#5", "same", "", "model#5"),
        ("tool:lookup#5", "changed", "different result", "tool:lookup#5"),
        ("model#7", "same", "", "model#7"),
        ("user#9", "same", "", "user#9"),
        ("model#10", "same", "", "model#10"),
        ("tool:lookup#10", "same", "", "tool:lookup#10"),
        ("model#12", "same", "", "model#12"),
    ]
    first = comparison.first
    assert first is rows[4] and first.index == 4
    assert first.left is not None and first.right is not None
    assert (first.left.result, first.right.result) == ("beta = 2", "beta = 20 (changed upstream)")
    assert comparison.aligner.divergences == 1
    a, b = comparison.left.totals, comparison.right.totals
    assert (a.user_turns, a.steps, a.tool_calls, a.failures) == (b.user_turns, b.steps, b.tool_calls, b.failures)
    assert (a.steps, a.tool_calls, a.compactions) == (5, 3, 0)
    # The longer result is in B's context from the next step on: a measured difference, not a divergence.
    assert rows[5].right is not None and rows[5].left is not None
    assert rows[5].right.context > rows[5].left.context


@pytest.mark.parametrize("options", [{}, SMALL_WINDOWS], ids=["one-window", "pages-of-two"])
def test_with_and_without_compaction(compare_pairs: Pairs, options: dict[str, int]) -> None:
    """A compacted twice (``Agent.compact()``, then in a request), B never: the same steps, row by
    row; the compacted stretches count as the rows they replaced, the boundaries are marked."""
    comparison, rows = compared(compare_pairs.store, compare_pairs.ids["compaction"], options)
    expected = [
        ("user#2", "user#2"), ("model#3", "model#3"), ("tool:lookup#3", "tool:lookup#3"), ("model#5", "model#5"),
        ("user#7", "user#7"), ("model#8", "model#8"),
        ("user#11", "user#10"), ("model#12", "model#11"),
        ("user#14", "user#13"), ("model#15", "model#14"),
    ]  # fmt: skip
    assert [(side(row, "a"), side(row, "b")) for row in rows] == expected
    assert all(row.status.value == "same" for row in rows)
    assert comparison.first is None
    # v1 (compact() after the second request, through #8) and v2 (in the fourth request, through #12).
    marks = {side(row, "a"): row.left.compactions for row in rows if row.left is not None and row.left.compactions}
    assert marks == {"user#11": (1,), "user#14": (2,)}
    a, b = comparison.left.totals, comparison.right.totals
    assert (a.compactions, b.compactions) == (2, 0)
    assert a.peak_context < b.peak_context  # what compaction saved, measured by the runtime


@pytest.mark.parametrize("options", [{}, SMALL_WINDOWS], ids=["one-window", "pages-of-two"])
def test_different_subagent_fan_out(compare_pairs: Pairs, options: dict[str, int]) -> None:
    """A delegates three briefs in one step, B two of them: aligned by brief, the middle one A's alone."""
    comparison, rows = compared(compare_pairs.store, compare_pairs.ids["fanout"], options)
    assert table(rows) == [
        ("user#2", "same", "", "user#2"),
        ("model#3", "same", "", "model#3"),
        ("tool:task#3", "same", "", "tool:task#3"),
        ("tool:task#3", "only A", "only in A", "-"),
        ("tool:task#3", "same", "", "tool:task#3"),
        ("model#7", "same", "", "model#6"),
    ]
    assert comparison.first is rows[3]
    assert rows[3].left is not None and '"Survey caches"' in rows[3].left.preview
    # Each delegated child is its own session (random UUIDv7 ids): named, different, yet the rows match.
    children = [(row.left.child, row.right.child) for row in rows if row.left and row.right and row.left.tool]
    assert len(children) == 2 and all(a and b and a != b for a, b in children)
    assert (comparison.left.totals.tool_calls, comparison.right.totals.tool_calls) == (3, 2)


@pytest.mark.parametrize("options", [{}, SMALL_WINDOWS], ids=["one-window", "pages-of-two"])
def test_a_run_cut_off(compare_pairs: Pairs, options: dict[str, int]) -> None:
    """B's model is cut off (max_tokens) where A's calls ``lookup('gamma')``: a different stop,
    then A's last steps alone, B having stopped."""
    comparison, rows = compared(compare_pairs.store, compare_pairs.ids["stop"], options)
    assert table(rows) == [
        ("user#2", "same", "", "user#2"),
        ("model#3", "same", "", "model#3"),
        ("tool:lookup#3", "same", "", "tool:lookup#3"),
        ("model#5", "same", "", "model#5"),
        ("tool:lookup#5", "same", "", "tool:lookup#5"),
        ("model#7", "same", "", "model#7"),
        ("user#9", "same", "", "user#9"),
        ("model#10", "changed", "different stop", "model#10"),
        ("tool:lookup#10", "only A", "B stopped", "-"),
        ("model#12", "only A", "B stopped", "-"),
    ]
    assert comparison.first is rows[7]
    assert rows[7].right is not None and rows[7].right.stop == "max_output" and rows[7].left is not None
    assert rows[7].left.stop is None
    assert (comparison.left.totals.stops, comparison.right.totals.stops) == (0, 1)


def test_the_command_line_names_the_first_divergence(compare_pairs: Pairs, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = compare_pairs.ids["result"]
    assert run_command(["compare", str(compare_pairs.store), a, b, "--width", "120"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "first divergence at row 5 (A #5 / B #5): different result (lookup)"
    assert out[3].endswith("beta = 2") and out[4].endswith("beta = 20 (changed upstream)")
    assert "10 aligned rows: 9 same, 1 changed, 0 only A, 0 only B; 1 stretch of differences" in out
    assert any(line.startswith("tool calls") and line.split()[-1] == "=" for line in out)
    assert all(len(line) <= 120 for line in out[out.index("rows 2–10 of 10 (A | B):") :])


def test_the_json_is_complete_and_streams_its_rows(compare_pairs: Pairs, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = compare_pairs.ids["fanout"]
    assert run_command(["compare", str(compare_pairs.store), a, b, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows_total"] == data["rows_shown"] == len(data["rows"]) == 6
    assert data["first_divergence"]["row"] == 4 and data["first_divergence"]["reason"] == "only in A"
    assert data["counts"] == {"same": 5, "changed": 0, "only A": 1, "only B": 0}
    assert data["totals"]["a"]["tool_calls"] == 3 and data["totals"]["b"]["tool_calls"] == 2
    assert data["rows"][3]["b"] is None and data["rows"][3]["a"]["tool"] == "task"
    assert run_command(["compare", str(compare_pairs.store), a, b, "--json", "--limit", "2"]) == 0
    limited = json.loads(capsys.readouterr().out)
    assert limited["rows_shown"] == 2 and limited["rows_total"] == 6


def test_bad_sessions_are_one_line_and_exit_2(compare_pairs: Pairs, capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = compare_pairs.ids["result"]
    store = str(compare_pairs.store)
    assert run_command(["compare", store, "0193a5c0", a]) == 2  # every pair shares it
    error = capsys.readouterr().err
    assert "A '0193a5c0' is ambiguous" in error and error.count("\n") == 1
    assert run_command(["compare", store, a, "ffffffff\x1b[2J"]) == 2
    error = capsys.readouterr().err
    assert "no session" in error and "\x1b" not in error and error.count("\n") == 1
