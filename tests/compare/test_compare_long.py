"""Two long runs (4,000 messages each, in zett-agent's format, ``benchmarks/compare_bench.py``'s
shape) compared with the default pages and windows: the exact divergences, in bounded memory."""

from __future__ import annotations

from pathlib import Path

from benchmarks.compare_bench import A, B, build, changes
from zett_browser.storage import open_store
from zett_browser.views.compare import Comparison
from zett_browser.views.compare_align import WINDOW, RowStatus
from zett_browser.views.compare_steps import PAGE

MESSAGES = 4_000


async def test_long_runs_diverge_exactly_where_they_were_changed(tmp_path: Path) -> None:
    store = tmp_path / "long.sqlite3"
    build(store, MESSAGES)
    changed, extra_at = changes(MESSAGES)
    storage = open_store(str(store))
    try:
        comparison = Comparison(storage, A, B)
        diverging = []
        rows = 0
        async for page in comparison.pages():
            rows += len(page)
            diverging += [row for row in page if row.diverges]
    finally:
        await storage.close()
    # One step per message (a call's result fills its call's step); B has two more.
    assert rows == MESSAGES + 2
    first = comparison.first
    assert first is not None and first.index == changed  # the call whose result B changed
    assert (first.status, first.reason) == (RowStatus.CHANGED, "different result")
    assert first.left is not None and first.left.tool == "read_file" and first.right is not None
    assert first.right.result == "the file was changed upstream"
    extra = diverging[1:]
    assert [(row.status, row.reason) for row in extra] == [(RowStatus.RIGHT, "only in B")] * 2
    assert {row.right.tool for row in extra if row.right is not None} >= {"grep"}
    assert extra_at <= extra[0].index <= extra_at + 1
    assert comparison.aligner.divergences == 2
    assert comparison.aligner.peak_held <= 2 * (WINDOW + PAGE)  # two windows, never the runs
    a, b = comparison.left.totals, comparison.right.totals
    assert (a.messages, b.messages) == (MESSAGES, MESSAGES + 2)
    assert (b.steps - a.steps, b.tool_calls - a.tool_calls) == (1, 1)
