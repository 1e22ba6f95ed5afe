"""One huge token count (2**63-1, or two of 2**62 that add up) is a problem on its row, never a broken store.

The index summed a row's input and output tokens into one Python int for its ``tokens:``
qualifier: past 2**63-1 it no longer fits an SQLite INTEGER, so writing that one row
failed the whole sync, and with it search and usage for every session of the store. The
row is now indexed with the count left out and named in its problem; everything else
indexes, searches and totals as on the undamaged store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from tests.index.helpers import find, where
from tests.usage import oracle
from tests.usage.stores import sync_now
from zett_browser.cli_usage import main_usage
from zett_browser.index.sync import index_stats
from zett_browser.index.usage import read_usage
from zett_browser.storage import SQLSessionStorage

HUGE = 2**63 - 1
#: (column -> value) written on one assistant step (#4 of the root, with usage, by zett-agent).
DAMAGE = {
    "max_input": {"input_tokens": HUGE},
    "max_output": {"output_tokens": HUGE},
    "max_cache_read": {"cache_read_tokens": HUGE},
    "two_that_add_up": {"input_tokens": 2**62, "output_tokens": 2**62},
    "max_both": {"input_tokens": HUGE, "output_tokens": HUGE},
}
QUERIES = ["the", "tokens:>0", "tokens:>10", "kind:assistant", "error:true"]


def _problems(index_path: Path) -> list[tuple[str, int, str]]:
    db = sqlite3.connect(index_path)
    try:
        rows = db.execute("SELECT session_id, sequence, problem FROM docs WHERE problem IS NOT NULL").fetchall()
    finally:
        db.close()
    return sorted((str(s), int(n), str(p)) for s, n, p in rows)


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_the_row_is_a_problem_and_the_rest_of_the_store_works(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "clean").mkdir()
    (tmp_path / "damaged").mkdir()
    clean_store = d.copy_fixture("agent_run", tmp_path / "clean")
    clean = sync_now(clean_store, tmp_path / "clean-index")
    store = d.copy_fixture("agent_run", tmp_path / "damaged")
    for column, value in DAMAGE[case].items():
        d.bad_message_value(store, d.AGENT_RUN_ROOT, 4, column, value)
    digest = d.sha256(store)

    index = sync_now(store, tmp_path / "index")

    # Indexed: every row, and the damaged one counted as one more problem, named on its row.
    stats, clean_stats = index_stats(index.path), index_stats(clean.path)
    assert stats["messages"] == clean_stats["messages"] and stats["sessions"] == clean_stats["sessions"]
    assert stats["problems"] == clean_stats["problems"] + 1
    added = sorted(set(_problems(index.path)) - set(_problems(clean.path)))
    assert [(s, n) for s, n, _ in added] == [(d.AGENT_RUN_ROOT, 4)]
    assert all(f"{column} is not a token count" in added[0][2] for column in DAMAGE[case])
    # Searched: the same hits as the undamaged store (the damaged row's count is left out).
    damaged_row = (d.AGENT_RUN_ROOT, 4)
    for query in QUERIES:
        hits, want = where(find(index, query)), where(find(clean, query))
        if query.startswith("tokens:"):
            hits = {hit for hit in hits if hit[:2] != damaged_row}
            want = {hit for hit in want if hit[:2] != damaged_row}
        assert hits == want, query
        assert hits or query == "error:true", query
    # Totalled: the bad row is one problem, its bad values count 0, the rest as the oracle says.
    found = read_usage(index.path, [d.AGENT_RUN_ROOT])[d.AGENT_RUN_ROOT]
    want_own = oracle.own(store, d.AGENT_RUN_ROOT)
    assert found.own.problems == want_own.problems == 1
    assert found.own.messages == want_own.messages == 21
    assert [found.own.tokens.input, found.own.tokens.output] == want_own.tokens[:2]
    assert main_usage([str(store), "--index-dir", str(tmp_path / "index")]) == 0
    printed = capsys.readouterr().out
    assert "total" in printed and "1 rows with missing or bad token/timing values" in printed
    assert d.sha256(store) == digest


def test_huge_counts_on_every_row_of_a_session_leave_the_others_searchable(tmp_path: Path) -> None:
    store = d.copy_fixture("storage_api", tmp_path)
    d.execute(
        store,
        "UPDATE raw_messages SET input_tokens = ?, output_tokens = ? WHERE session_id = ?",
        HUGE,
        2**62,
        d.PAGINATION,
    )
    index = sync_now(store, tmp_path / "index")
    rows = {(s, n) for s, n, _ in _problems(index.path) if s == d.PAGINATION}
    assert len(rows) == 120
    assert {hit.session_id for hit in find(index, "kind:assistant")} - {d.PAGINATION}
    assert read_usage(index.path, [d.PAGINATION])[d.PAGINATION].own.problems == 120


async def test_session_totals_of_the_storage_api_do_not_overflow(tmp_path: Path) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    d.bad_message_value(store, d.AGENT_RUN_ROOT, 4, "input_tokens", 2**62)
    d.bad_message_value(store, d.AGENT_RUN_ROOT, 6, "input_tokens", 2**62)  # SQLite's sum(): "integer overflow"
    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        totals = await storage.session_totals(d.AGENT_RUN_ROOT)
    finally:
        await storage.close()
    assert totals.messages == 21 and totals.input_tokens >= 2**63
    assert totals.cache_read_tokens == oracle.own(store, d.AGENT_RUN_ROOT).tokens[2]
