"""Own and subtree totals in the side index equal an independent computation over the store,
with delegation chains, orphans, bad values, incremental syncs and cycles."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support import (
    AGENT_RUN_CHILD,
    AGENT_RUN_ROOT,
    CHECKPOINTED,
    CHILD,
    DELEGATING_PARENT,
    FIXTURES,
    GRANDCHILD,
    KITCHEN_SINK,
    ORPHAN,
    PAGINATION,
)
from tests.usage import oracle
from tests.usage.stores import A1, A2, O2, priced_store, session_ids, sync, sync_now, table_rows
from zett_browser.index.totals import DAY_COUNTS, LARGEST
from zett_browser.index.usage import ordered_children, ordered_orphans, read_usage, report
from zett_browser.model.usage import Totals, TreeSort
from zett_browser.storage import (
    AssistantMessage,
    CompactedMessage,
    MessageTiming,
    ModelUsage,
    SQLiteSessionStorage,
    ToolMessage,
    UserMessage,
)


def assert_matches(got: Totals, want: oracle.Expected, label: str) -> None:
    """Every field of ``got`` against the independent computation."""
    pairs = {
        "messages": (got.messages, want.messages),
        "steps": (got.steps, want.steps),
        "tool_calls": (got.tool_calls, want.tool_calls),
        "failed_tool_results": (got.failed_tool_results, want.failed_tool_results),
        "refused_steps": (got.refused_steps, want.refused_steps),
        "cut_off_steps": (got.cut_off_steps, want.cut_off_steps),
        "compactions": (got.compactions, want.compactions),
        "children": (got.children, want.children),
        "tokens": (
            [got.tokens.input, got.tokens.output, got.tokens.cache_read, got.tokens.cache_write, got.tokens.reasoning],
            want.tokens,
        ),
        "measured_ns": (got.measured_ns, want.measured_ns),
        "unpriced_steps": (got.unpriced_steps, want.unpriced_steps),
        "problems": (got.problems, want.problems),
        "cost is None": (got.cost is None, want.priced_steps == 0),
    }
    for name, (mine, theirs) in pairs.items():
        assert mine == theirs, f"{label} {name}: index {mine!r} != independent {theirs!r}"
    if want.priced_steps:
        assert got.cost is not None
        # Each step is kept in whole picodollars: at most half a picodollar off per step.
        assert abs(got.cost - want.cost) <= Decimal("1e-12") * want.priced_steps, label
    for name, mine, theirs in (("first", got.first_time, want.first), ("last", got.last_time, want.last)):
        assert (mine is None) == (theirs is None), f"{label} {name}"
        if mine is not None and theirs is not None:
            assert abs((mine - theirs).total_seconds()) < 1e-3, f"{label} {name}: {mine} != {theirs}"


def _models_match_days(index_path: Path) -> None:
    """``usage_models`` holds exactly the per-(day, provider, model) sums of ``usage_days``."""
    columns = ", ".join(f"sum({column})" for column in DAY_COUNTS)
    db = sqlite3.connect(index_path)
    try:
        summed = db.execute(
            f"SELECT day, provider, model, {columns} FROM usage_days GROUP BY day, provider, model"
            " ORDER BY day, provider, model"
        ).fetchall()
        kept = db.execute(
            f"SELECT day, provider, model, {', '.join(DAY_COUNTS)} FROM usage_models ORDER BY day, provider, model"
        ).fetchall()
    finally:
        db.close()
    assert kept == summed and kept


def check_store(store: Path, index_path: Path) -> None:
    _models_match_days(index_path)
    ids = session_ids(store)
    found = read_usage(index_path, ids)
    assert set(found) == set(ids)
    for session_id in ids:
        assert_matches(found[session_id].own, oracle.own(store, session_id), f"own {session_id}")
        assert_matches(found[session_id].subtree, oracle.subtree(store, session_id), f"subtree {session_id}")


@pytest.mark.parametrize("name", ["agent_run", "storage_api"])
def test_totals_of_zett_agent_written_stores_equal_an_independent_computation(tmp_path: Path, name: str) -> None:
    store = tmp_path / f"{name}.sqlite3"
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", store)
    index = sync_now(store, tmp_path / "index")
    check_store(store, index.path)


def test_chains_orphans_priced_models_and_bad_values_equal_an_independent_computation(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    check_store(store, index.path)
    usage = read_usage(index.path, [DELEGATING_PARENT, ORPHAN, A2, AGENT_RUN_ROOT])
    assert AGENT_RUN_ROOT not in usage  # not in this store: left out
    # The chain 3 -> 4 -> 5 -> A1 -> A2: the root's subtree holds all four descendants.
    assert usage[DELEGATING_PARENT].subtree.children == 4 and usage[DELEGATING_PARENT].own.children == 1
    # The orphan is the root of its own subtree, with its child.
    assert usage[ORPHAN].subtree.messages == 1 + 12 and usage[ORPHAN].subtree.children == 1
    # Five rows of A2 have a bad or missing token/timing value: counted, never fatal.
    assert usage[A2].own.problems == 5 and usage[A2].own.messages == 12


def test_the_tree_levels_sort_by_subtree_totals(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    roots = ordered_children(index.path, None, TreeSort.COST, 0, 100)
    links = oracle.parents(store)
    assert set(roots) == {sid for sid, parent in links.items() if not parent}
    costs = [oracle.subtree(store, sid).cost for sid in roots]
    assert costs == sorted(costs, reverse=True) and costs[0] > 0
    tokens = [
        sum(oracle.subtree(store, sid).tokens[:2])
        for sid in ordered_children(index.path, None, TreeSort.TOKENS, 0, 100)
    ]
    assert tokens == sorted(tokens, reverse=True)
    times = [
        oracle.subtree(store, sid).measured_ns for sid in ordered_children(index.path, None, TreeSort.TIME, 0, 100)
    ]
    assert times == sorted(times, reverse=True)
    failing = ordered_children(index.path, None, TreeSort.FAILURES, 0, 100)
    assert failing[0] == KITCHEN_SINK  # a failed tool result, a refusal and a cut-off step
    assert ordered_children(index.path, None, TreeSort.COST, 1, 2) == roots[1:3]  # offset and limit
    assert ordered_children(index.path, GRANDCHILD, TreeSort.COST, 0, 10) == [A1]
    assert ordered_orphans(index.path, TreeSort.COST, 0, 10) == [ORPHAN]
    activity = ordered_children(index.path, None, TreeSort.ACTIVITY, 0, 100)
    assert activity[0] == PAGINATION or len(activity) == len(roots)


def _timing(start: datetime, seconds: float) -> MessageTiming:
    return MessageTiming(start, start + timedelta(seconds=seconds), int(seconds * 1e9))


async def _append_everything(store: Path) -> str:
    """Appends through the storage API: steps with usage, a failed tool result, a new child, a snapshot."""
    writer = SQLiteSessionStorage(store)
    start = datetime(2026, 2, 1, 12, tzinfo=UTC)
    try:
        step = AssistantMessage(content="more", provider="openai", model="gpt-4o")
        await writer.append(
            A2, "req-x", step, _timing(start, 2), parent_session_id=A1, usage=ModelUsage(3000, 120, 1000, 0, True, 30)
        )
        await writer.append(
            A2,
            "req-x",
            ToolMessage(tool_call_id="c", name="grep", content="no", success=False),
            _timing(start, 1),
            parent_session_id=A1,
        )
        child = await writer.create_session(parent_session_id=A2, agent_name="late")
        await writer.append(
            child.session_id, "req-y", UserMessage(content="go"), _timing(start, 0), parent_session_id=A2
        )
        late = AssistantMessage(content="done", provider="anthropic", model="claude-sonnet-4-5")
        await writer.append(
            child.session_id,
            "req-y",
            late,
            _timing(start + timedelta(days=1), 3),
            parent_session_id=A2,
            usage=ModelUsage(500, 50),
        )
        await writer.snapshot(CHECKPOINTED, CompactedMessage(content="summary"), 12, 3)
        return child.session_id
    finally:
        await writer.close()


def test_incremental_syncs_give_the_totals_of_a_full_rebuild(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    before = read_usage(index.path, [DELEGATING_PARENT])[DELEGATING_PARENT].subtree
    late_child = asyncio.run(_append_everything(store))
    sync_now(store, tmp_path / "index")
    after = read_usage(index.path, [DELEGATING_PARENT, late_child])
    assert after[DELEGATING_PARENT].subtree.children == before.children + 1
    assert after[DELEGATING_PARENT].subtree.messages == before.messages + 4
    assert after[DELEGATING_PARENT].subtree.failed_tool_results == before.failed_tool_results + 1
    assert after[late_child].own.cost is not None
    check_store(store, index.path)
    rebuilt = sync_now(store, tmp_path / "rebuilt")
    assert table_rows(index.path) == table_rows(rebuilt.path)


def test_a_child_indexed_before_its_parent_and_a_moved_session_match_a_rebuild(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    db = sqlite3.connect(store)
    parent_row = db.execute("SELECT * FROM agent_sessions WHERE id = ?", (CHILD,)).fetchone()
    db.execute("DELETE FROM agent_sessions WHERE id = ?", (CHILD,))  # GRANDCHILD is an orphan for now
    db.commit()
    index = sync_now(store, tmp_path / "index")
    assert read_usage(index.path, [DELEGATING_PARENT])[DELEGATING_PARENT].subtree.children == 0
    assert ordered_orphans(index.path, TreeSort.COST, 0, 10).count(GRANDCHILD) == 1
    later = (datetime.now(UTC) + timedelta(seconds=5)).strftime("%Y-%m-%d %H:%M:%S.%f")
    db.execute("INSERT INTO agent_sessions VALUES (?, ?, ?, ?, ?, ?, ?)", (*parent_row[:6], later))
    db.commit()
    sync_now(store, tmp_path / "index")
    assert read_usage(index.path, [DELEGATING_PARENT])[DELEGATING_PARENT].subtree.children == 4
    check_store(store, index.path)
    # A session moved under another parent leaves its old ancestors and joins the new ones.
    db.execute(
        "UPDATE agent_sessions SET parent_session_id = ?, updated_at = ? WHERE id = ?", (KITCHEN_SINK, later, A1)
    )
    db.commit()
    db.close()
    sync_now(store, tmp_path / "index")
    check_store(store, index.path)
    assert table_rows(index.path) == table_rows(sync_now(store, tmp_path / "rebuilt").path)


def test_a_parent_cycle_ends_every_walk_and_never_crashes(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    db = sqlite3.connect(store)
    db.execute("UPDATE agent_sessions SET parent_session_id = ? WHERE id = ?", (A2, DELEGATING_PARENT))
    db.execute("UPDATE agent_sessions SET parent_session_id = id WHERE id = ?", (O2,))
    db.commit()
    db.close()
    index = asyncio.run(asyncio.wait_for(sync(store, tmp_path / "index"), timeout=60))
    found = read_usage(index.path, [DELEGATING_PARENT, A2, O2])
    assert set(found) == {DELEGATING_PARENT, A2, O2}
    assert found[O2].subtree.messages == found[O2].own.messages == 12  # a self-parent is its own root
    assert DELEGATING_PARENT not in ordered_children(index.path, None, TreeSort.COST, 0, 100)
    assert O2 in ordered_orphans(index.path, TreeSort.COST, 0, 100)


def test_a_missing_or_foreign_index_reads_as_empty(tmp_path: Path) -> None:
    assert read_usage(tmp_path / "none.sqlite3", [AGENT_RUN_CHILD]) == {}
    assert ordered_children(tmp_path / "none.sqlite3", None, TreeSort.COST, 0, 10) == []
    foreign = tmp_path / "foreign.sqlite3"
    sqlite3.connect(foreign).execute("CREATE TABLE sessions (id TEXT)").connection.close()
    assert read_usage(foreign, [AGENT_RUN_CHILD]) == {}
    assert ordered_children(foreign, None, TreeSort.COST, 0, 10) == []


def test_the_reports_by_day_and_model_read_the_model_table_and_pass_over_a_saturated_one(tmp_path: Path) -> None:
    """By day and model the report reads ``usage_models``; where a sum there saturated it
    answers from the per-session rows instead (as before that table existed)."""
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    before = {by: report(index.path, by) for by in ("day", "model", "agent", "session")}
    assert all(before.values())
    db = sqlite3.connect(index.path)
    db.execute("UPDATE usage_models SET input = input + 7")
    db.commit()
    shifted = report(index.path, "model")
    assert [row.values["input"] for row in shifted] == [
        row.values["input"] + 7 * _days(db, row.key) for row in before["model"]
    ]
    db.execute("UPDATE usage_models SET input = ?", (LARGEST,))
    db.commit()
    db.close()
    assert {by: report(index.path, by) for by in ("day", "model", "agent", "session")} == before


def _days(db: sqlite3.Connection, key: str) -> int:
    return int(db.execute("SELECT count(*) FROM usage_models WHERE provider || '/' || model = ?", (key,)).fetchone()[0])


def test_an_index_without_the_model_table_still_reports_by_day_and_model(tmp_path: Path) -> None:
    """Review case: an index of the format before ``usage_models`` (its writer busy in another
    process, so not rebuilt yet) failed `usage --by day/model` with "no such table"."""
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    before = {by: report(index.path, by) for by in ("day", "model")}
    db = sqlite3.connect(index.path)
    db.execute("DROP TABLE usage_models")
    db.commit()
    db.close()
    assert {by: report(index.path, by) for by in ("day", "model")} == before and all(before.values())
