"""One huge token count (2**63-1, or two of 2**62 that add up) is a problem on its row, never a broken store.

The index summed a row's input and output tokens into one Python int for its ``tokens:``
qualifier: past 2**63-1 it no longer fits an SQLite INTEGER, so writing that one row
failed the whole sync, and with it search and usage for every session of the store. The
row is now indexed with the count left out and named in its problem; everything else
indexes, searches and totals as on the undamaged store.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from tests.index.helpers import find, where
from tests.support import CHECKPOINTED, KITCHEN_SINK
from tests.ui.search_helpers import app_on, built, search
from tests.ui.search_helpers import where as hits_shown
from tests.usage import oracle
from tests.usage.stores import clone_session, priced_store, sync_now
from zett_browser.cli.usage import main_usage
from zett_browser.index.files import index_stats
from zett_browser.index.row_usage import MAX_TOKENS
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


def _expensive_store(directory: Path, clones: int) -> tuple[Path, str]:
    """The priced store plus a root with ``clones`` children, each step 10^10 tokens of gpt-4o.

    Every value is within the bounds a row may have, but each step costs ~1.25 * 10^17
    picodollars: the subtree, the model's and the day's sums pass 2**63-1.
    """
    store = priced_store(directory)
    db = sqlite3.connect(store)
    try:
        root = "0193a5c0-0000-7000-8000-0000ee000000"
        clone_session(db, CHECKPOINTED, root, None, "expensive")
        for number in range(clones):
            clone_session(db, CHECKPOINTED, f"0193a5c0-0000-7000-8000-0000dd{number:06d}", root, "expensive")
        db.execute(
            "UPDATE raw_messages SET input_tokens = ?, output_tokens = ?, cache_read_tokens = 0,"
            " cache_write_tokens = 0, reasoning_tokens = 0 WHERE role = 3 AND session_id IN"
            " (SELECT id FROM agent_sessions WHERE agent_name = 'expensive')",
            (MAX_TOKENS, MAX_TOKENS),
        )
        db.commit()
    finally:
        db.close()
    return store, root


def test_sums_past_sqlites_integers_saturate_and_the_rest_stays_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_store = priced_store(tmp_path / "clean")
    clean = sync_now(clean_store, tmp_path / "clean-index")
    store, root = _expensive_store(tmp_path / "store", clones=80)
    index = sync_now(store, tmp_path / "index")

    found = read_usage(index.path, [root, KITCHEN_SINK, CHECKPOINTED])
    cost = found[root].subtree.cost
    assert cost is not None and cost >= Decimal(9_000_000)  # saturated at 2**63-1 picodollars
    assert found[root].subtree.steps == 81 * found[CHECKPOINTED].own.steps
    assert found[root].subtree.tokens.input == 81 * found[CHECKPOINTED].own.steps * MAX_TOKENS
    # Untouched sessions: exactly what the undamaged store says.
    want = read_usage(clean.path, [KITCHEN_SINK, CHECKPOINTED])
    for session_id in (KITCHEN_SINK, CHECKPOINTED):
        assert found[session_id].own == want[session_id].own
        assert found[session_id].subtree == want[session_id].subtree
    for by in ("day", "model", "agent", "session"):
        assert main_usage([str(store), "--index-dir", str(tmp_path / "index"), "--by", by]) == 0, by
        printed = capsys.readouterr().out
        assert "total" in printed, by
    assert main_usage([str(store), "--index-dir", str(tmp_path / "index"), "--session", root]) == 0
    assert "$" in capsys.readouterr().out


async def test_the_app_indexes_and_searches_the_damaged_store(tmp_path: Path) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    d.bad_message_value(store, d.AGENT_RUN_ROOT, 4, "input_tokens", 2**62)
    d.bad_message_value(store, d.AGENT_RUN_ROOT, 4, "output_tokens", 2**62)
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        main = await built(pilot)
        assert main.index_state.built and not main.index_state.building
        view = await search(pilot, "kind:assistant")
        assert len(hits_shown(view)) == 9 and (d.AGENT_RUN_ROOT, 4, "assistant") in hits_shown(view)
