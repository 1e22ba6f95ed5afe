"""The side index carries what the real zett-agent 0.2.1 runtime writes (issue 24).

On the ``real_stores`` fixture: server-tool queries, URLs and titles and the goal-mode raw
input are searchable; ``outcome:``, ``is:steering|resume|goal`` and ``has:server_tools``
find exactly the rows the census names, in ``/`` search, the ``search`` CLI and the tree
filter; skipped, cancelled, interrupted and aborted tool results are counted under their
own outcome and never as failures (usage totals, sort by failures); the two extraction
paths agree on every real row; an index of the previous version is rebuilt, never read.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.realstore.stores import RealStores
from zett_browser.index import Searcher, SideIndex, extract, parse, sync
from zett_browser.index.db import SCHEMA_VERSION
from zett_browser.index.extract import doc_from_row
from zett_browser.index.search_service import IndexSearch
from zett_browser.index.sessions import matching_sessions
from zett_browser.index.usage import ordered_children, read_usage
from zett_browser.model.usage import TreeSort
from zett_browser.storage import SQLSessionStorage, scan

CASE = "0193a5c0-0000-7000-8000-0000000e00{:02d}".format


def _build(store: Path, directory: Path) -> Path:
    async def run() -> Path:
        index = SideIndex(SQLSessionStorage.open_for_browsing(store), directory)
        try:
            await index.sync()
        finally:
            await index.storage.close()
        return index.path

    return asyncio.run(run())


@pytest.fixture(scope="module")
def main_index(real_stores: RealStores, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The index of the real main store (built once for this module)."""
    return _build(real_stores.main, tmp_path_factory.mktemp("real-index"))


def found(index: Path, text: str) -> set[tuple[str, int, str]]:
    page = Searcher(index).search_now(parse(text), limit=500)
    assert not page.partial
    return {(hit.session_id, hit.sequence, hit.kind) for hit in page.hits}


def cli(*args: str, index_dir: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ZETT_BROWSER_INDEX_DIR=str(index_dir))
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", *args], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def test_cli_index_and_search_find_server_tool_urls_titles_and_the_new_qualifiers(
    real_stores: RealStores, tmp_path: Path
) -> None:
    built = cli("index", str(real_stores.main), index_dir=tmp_path)
    assert built.returncode == 0, built.stderr
    expected = {
        "sqlite.org": {(CASE(2), 3)},
        "Write-Ahead": {(CASE(2), 3)},
        "url_not_accessible": {(CASE(2), 3)},  # the web_fetch result's error code
        "example.invalid": {(CASE(2), 3)},  # the web_fetch url
        "has:server_tools": {(CASE(2), 3)},
        "outcome:skipped": {(CASE(7), 6), (CASE(7), 7)},
        "outcome:aborted": {(CASE(15), 5)},
        "is:steering": {(CASE(7), 8)},
    }
    for query, wanted in expected.items():
        result = cli("search", str(real_stores.main), query, "--json", index_dir=tmp_path)
        assert result.returncode == 0, (query, result.stderr)
        hits = {(record["session_id"], record["sequence"]) for record in map(json.loads, result.stdout.splitlines())}
        assert hits == wanted, query
    bad = cli("search", str(real_stores.main), "is:paused", index_dir=tmp_path)
    assert bad.returncode == 2 and "is:paused" in bad.stderr and "steering|resume|goal" in bad.stderr
    bad = cli("search", str(real_stores.main), "outcome:crashed", index_dir=tmp_path)
    assert bad.returncode == 2 and "ok|failed|skipped|cancelled|interrupted|aborted" in bad.stderr


def test_each_outcome_and_mark_finds_exactly_its_rows(main_index: Path) -> None:
    assert found(main_index, "outcome:skipped") == {(CASE(7), 6, "tool"), (CASE(7), 7, "tool")}
    assert found(main_index, "outcome:cancelled") == {(CASE(13), 6, "tool")}
    assert found(main_index, "outcome:interrupted") == {(CASE(12), 9, "tool"), (CASE(12), 10, "tool")}
    assert found(main_index, "outcome:aborted") == {(CASE(15), 5, "tool")}
    failed = found(main_index, "outcome:failed")
    assert failed == found(main_index, "error:true kind:tool")
    assert {(CASE(1), 34, "tool"), (CASE(6), 13, "tool"), (CASE(14), 6, "tool")} <= failed
    assert not {session for session, _, _ in failed} & {CASE(7), CASE(12), CASE(13), CASE(15)}
    assert (CASE(7), 5, "tool") in found(main_index, "outcome:ok")
    assert found(main_index, "is:steering") == {(CASE(7), 8, "user")}
    assert found(main_index, "is:resume") == {(CASE(10), 6, "agent"), (CASE(11), 7, "agent")}
    assert found(main_index, "is:goal") == {(CASE(8), 2, "user"), (CASE(8), 4, "agent")}
    assert found(main_index, "has:server_tools") == {(CASE(2), 3, "assistant")}
    assert found(main_index, "tool:web_search") == {(CASE(2), 3, "assistant")}
    users = found(main_index, f"kind:user session:{CASE(7)}")
    assert found(main_index, f"kind:user -is:steering session:{CASE(7)}") == users - {(CASE(7), 8, "user")}
    starts = found(main_index, "tool:task_start kind:tool")
    assert {(CASE(1), sequence, "tool") for sequence in (5, 6, 7, 8)} == starts


def test_server_tool_text_and_goal_raw_content_are_searchable(main_index: Path) -> None:
    assert found(main_index, '"Write-Ahead Logging"') == {(CASE(2), 3, "assistant")}
    assert found(main_index, '"sqlite wal mode" kind:assistant') == {(CASE(2), 3, "assistant")}
    assert (CASE(8), 2, "user") in found(main_index, '"make the tests pass" is:goal')
    # ask_user answers are in the tool result's content already (text and image alt text).
    assert (CASE(4), 5, "tool") in found(main_index, "Markdown tool:ask_user")
    assert (CASE(4), 11, "tool") in found(main_index, '"error.png"')
    # The offered tools' schemas are not indexed: a word only they hold finds nothing.
    assert found(main_index, "schema_version") == set()


async def test_the_search_service_and_the_tree_filter_take_the_new_qualifiers(
    real_stores: RealStores, tmp_path: Path
) -> None:
    storage = SQLSessionStorage.open_for_browsing(real_stores.main)
    service = IndexSearch(storage, tmp_path)
    try:
        async for _ in service.steps():
            pass
        page = await service.search("sqlite.org")
        assert [(hit.session_id, hit.sequence) for hit in page.hits] == [(CASE(2), 3)]
        assert await service.sequences_in("outcome:skipped", CASE(7)) == [6, 7]
        assert await service.sequences_in("is:steering", CASE(7)) == [8]
        goal = await service.sessions_matching("is:goal")
        assert goal.matching == {CASE(8)}
        with pytest.raises(ValueError, match="steering"):
            await service.sessions_matching("is:steered")
    finally:
        await service.close()
        await storage.close()
    stopped = matching_sessions(service.path, parse("outcome:interrupted"))
    assert stopped.matching == {CASE(12)}
    resumed = matching_sessions(service.path, parse("is:resume"))
    assert resumed.matching == {CASE(10), CASE(11)}


def test_usage_counts_each_outcome_and_none_as_a_failure(main_index: Path) -> None:
    usage = read_usage(main_index, [CASE(n) for n in (7, 13, 12, 15, 1, 14)])
    counts = {
        7: ("skipped_tool_results", 2),
        13: ("cancelled_tool_results", 1),
        12: ("interrupted_tool_results", 2),
        15: ("aborted_tool_results", 1),
    }
    for number, (name, count) in counts.items():
        own = usage[CASE(number)].own
        assert getattr(own, name) == count, number
        assert own.failed_tool_results == 0, number
        assert not usage[CASE(number)].failed, number
    assert usage[CASE(1)].own.failed_tool_results == 1  # task_output of an unknown task
    assert usage[CASE(14)].own.failed_tool_results == 1  # the MCP tool that failed
    assert usage[CASE(1)].own.skipped_tool_results == 0


def test_sort_by_failures_puts_only_real_failures_first(main_index: Path) -> None:
    order = ordered_children(main_index, None, TreeSort.FAILURES, 0, 100)
    usage = read_usage(main_index, order)

    def score(session_id: str) -> int:
        tree = usage[session_id].subtree
        return int(usage[session_id].failed) + tree.failed_tool_results + tree.refused_steps + tree.cut_off_steps

    scores = [score(session_id) for session_id in order]
    assert scores == sorted(scores, reverse=True)
    failing = {session_id for session_id in order if score(session_id)}
    assert {CASE(1), CASE(6), CASE(14), CASE(9)} <= failing
    assert not failing & {CASE(7), CASE(12), CASE(13), CASE(15)}
    assert order.index(CASE(14)) < order.index(CASE(7))


def test_goal_evaluators_roll_up_and_background_children_are_not_failed(
    main_index: Path, real_stores: RealStores, tmp_path: Path
) -> None:
    goal = read_usage(main_index, [CASE(8)])[CASE(8)]
    assert goal.own.children == 2 and goal.subtree.steps > goal.own.steps
    children = _build(real_stores.children, tmp_path)
    db = sqlite3.connect(children)
    ids = [row[0] for row in db.execute("SELECT id FROM sessions")]
    db.close()
    assert len(ids) == 5
    # Their parent is in main.sqlite3: in this store each is an orphan, the root of its totals.
    usage = read_usage(children, ids)
    assert all(not item.failed and item.own.failed_tool_results == 0 for item in usage.values())


async def _rows(store: Path) -> list[Mapping[str, Any]]:
    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        return await scan.raw_scan(storage.reader, None, 100_000)
    finally:
        await storage.close()


@pytest.mark.parametrize("which", ["main", "children"])
async def test_both_extraction_paths_agree_on_every_real_row(
    real_stores: RealStores, which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = await _rows(real_stores.main if which == "main" else real_stores.children)
    assert sum(map(_fast, rows)) > len(rows) // 2  # the comparison covers the fast path too
    flagged = 0
    for row in rows:
        quick = doc_from_row(row)
        with monkeypatch.context() as patch:
            patch.setattr(extract, "_fast_texts", lambda payload, doc: None)
            slow = doc_from_row(row)
        assert quick == slow, (row["session_id"], row["sequence"])
        flagged += bool(quick.flags or (quick.outcome not in (None, "ok", "failed")))
    assert flagged >= (9 if which == "main" else 0)


def _fast(row: Mapping[str, Any]) -> bool:
    return extract._fast_texts(row["message_json"], extract.Doc("s", 1, "k", "")) is not None


async def test_steering_is_found_when_the_skipped_result_is_in_an_earlier_batch(
    real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sync, "BATCH", 1)  # every row its own batch and transaction
    index = SideIndex(SQLSessionStorage.open_for_browsing(real_stores.main), tmp_path)
    try:
        await index.sync()
    finally:
        await index.storage.close()
    assert found(index.path, "is:steering") == {(CASE(7), 8, "user")}


def test_an_index_of_the_previous_version_is_rebuilt_never_misread(real_stores: RealStores, tmp_path: Path) -> None:
    path = _build(real_stores.main, tmp_path)
    db = sqlite3.connect(path)  # what version 2 held: no outcome, no flags (nor version 4's usage_models)
    db.execute("DROP TABLE usage_models")
    db.execute("ALTER TABLE docs DROP COLUMN outcome")
    db.execute("ALTER TABLE docs DROP COLUMN flags")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    db.commit()
    db.close()
    stale = Searcher(path).search_now(parse("outcome:skipped"))
    assert stale.partial and stale.hits == []
    assert matching_sessions(path, parse("is:goal")).matching == frozenset()
    rebuilt = cli("index", str(real_stores.main), "--index-dir", str(tmp_path), index_dir=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert f"rebuilt (the index format changed: version 2, now {SCHEMA_VERSION})" in rebuilt.stdout, rebuilt.stdout
    assert found(path, "outcome:skipped") == {(CASE(7), 6, "tool"), (CASE(7), 7, "tool")}


async def test_f_in_the_app_keeps_the_sessions_of_each_new_qualifier(
    real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app
    from zett_browser.index import ENV_DIR
    from zett_browser.model import SessionNode
    from zett_browser.screens.main import MainScreen
    from zett_browser.widgets.session_tree import SessionTree

    def shown(tree: SessionTree) -> set[str]:
        found, stack = set(), [tree.root]
        while stack:
            node = stack.pop()
            if isinstance(node.data, SessionNode):
                found.add(node.data.session_id)
            stack.extend(node.children)
        return found

    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    app = make_app(str(real_stores.main), clock=frozen_clock, index=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.query_one(SessionTree)
        for query, sessions in (
            ("is:goal", {CASE(8)}),
            ("is:steering", {CASE(7)}),
            ("outcome:aborted", {CASE(15)}),
            ("has:server_tools", {CASE(2)}),
            ("is:resume", {CASE(10), CASE(11)}),
        ):
            screen.parts.search.apply_filter(query)
            await settle(pilot)
            assert shown(tree) == sessions, query
        screen.parts.search.apply_filter("is:paused")
        await settle(pilot)
        assert any("steering|resume|goal" in note.message for note in app._notifications)


def test_usage_cli_names_each_outcome_apart_from_the_failures(real_stores: RealStores, tmp_path: Path) -> None:
    text = cli("usage", str(real_stores.main), "--session", CASE(7), index_dir=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "own: 4 tool calls (0 failed, 2 skipped)" in text.stdout
    assert "ended in a failure" not in text.stdout
    document = cli("usage", str(real_stores.main), "--session", CASE(12), "--json", index_dir=tmp_path)
    own = json.loads(document.stdout)["own"]
    assert (own["failed_tool_results"], own["interrupted_tool_results"], own["skipped_tool_results"]) == (0, 2, 0)
