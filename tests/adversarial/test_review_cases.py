"""Cases a review of the issue 12-14 work found, kept as permanent tests.

JSON printed to a terminal keeps 8-bit C1 controls and bidi overrides from the store escaped;
a tool call whose arguments hold bytes does not stop the context's size estimate; a task
result nested too deep for the JSON parser does not take the page's delegation cards down.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.damage import copy_fixture, execute, sha256
from tests.support import AGENT_RUN_ROOT
from zett_browser.__main__ import main
from zett_browser.model import AssistantMessage, ToolCall, ToolMessage
from zett_browser.views.delegation import task_result
from zett_browser.views.time_travel import Estimate

#: 8-bit CSI and a right-to-left override: both act on a terminal when printed raw.
HOSTILE = "\u009b31m\u202e"


def hostile_store(tmp_path: Path) -> Path:
    path = copy_fixture("agent_run", tmp_path)
    execute(
        path,
        "update raw_messages set message_json = replace(message_json, 'quick', ?) where session_id = ?",
        HOSTILE,
        AGENT_RUN_ROOT,
    )
    execute(path, "update agent_sessions set title = ? where id = ?", f"title {HOSTILE}", AGENT_RUN_ROOT)
    return path


def test_context_json_on_stdout_escapes_c1_and_bidi(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile_store(tmp_path)
    before = sha256(path)
    assert main(["context", str(path), "--session", AGENT_RUN_ROOT, "--at", "4", "--json"]) == 0
    out = capsys.readouterr().out
    assert "\u009b" not in out and "\u202e" not in out and "\x1b" not in out
    assert HOSTILE in json.dumps(json.loads(out), ensure_ascii=False), "the text itself is kept, escaped"
    assert sha256(path) == before


def test_usage_json_on_stdout_escapes_c1_and_bidi(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile_store(tmp_path)
    index = tmp_path / "index"
    assert main(["usage", str(path), "--by", "session", "--json", "--index-dir", str(index)]) == 0
    out = capsys.readouterr().out
    assert "\u009b" not in out and "\u202e" not in out
    assert HOSTILE in json.dumps(json.loads(out), ensure_ascii=False)


def test_the_context_estimate_counts_a_tool_call_with_bytes_arguments() -> None:
    estimate = Estimate()
    message = AssistantMessage(content="x", tool_calls=(ToolCall(id="c1", name="upload", arguments={"data": b"hi"}),))
    estimate.add_message(message)  # json.dumps of bytes raised TypeError and lost the whole estimate
    assert sum(estimate.chars.values()) > 1


def test_a_task_result_nested_too_deep_is_text_not_a_crash() -> None:
    deep = "[" * 5000 + "]" * 5000
    message = ToolMessage(tool_call_id="c1", name="task", content=deep)
    child, returned = task_result(message)  # RecursionError took every card of the page down
    assert child is None and returned == deep


async def test_time_travel_decodes_only_the_summary_in_force(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review case: ``x`` decoded every snapshot version (2,500 on a long compacted session).
    Now, at the next step and at a past one (where the newest candidate, written after
    the step began, is passed over undecoded), one summary is decoded: the one in force."""
    from zett_browser.storage import SQLSessionStorage, compaction
    from zett_browser.views.time_travel import locate

    path = copy_fixture("agent_run", tmp_path)
    storage = SQLSessionStorage.open_for_browsing(path)
    decoded: list[object] = []
    real = compaction.snapshot_info_from_row  # type: ignore[attr-defined]  # what it decodes with

    def counting(row: Any) -> Any:
        decoded.append(row["version"])
        return real(row)

    monkeypatch.setattr(compaction, "snapshot_info_from_row", counting)
    try:
        storage.list_snapshots = None  # type: ignore[assignment,method-assign]  # never called now
        point = await locate(storage, AGENT_RUN_ROOT)
        assert point.snapshot is not None and point.snapshot.version == 3
        assert decoded == [3], "one summary decoded: the one in force"
        decoded.clear()
        point = await locate(storage, AGENT_RUN_ROOT, 19)  # v3 was written after #19 began
        assert point.snapshot is not None and point.snapshot.version == 2
        assert decoded == [2]
    finally:
        await storage.close()


@pytest.mark.parametrize("damage", ["version", "compacted_through_sequence"])
async def test_a_snapshot_with_a_text_version_or_boundary_is_passed_over_everywhere(
    tmp_path: Path, damage: str
) -> None:
    """Review case: on a damaged store a version or boundary stored as text read as 0 in the
    Raw Log's dimming and the OTel export, while the SQL of ``locate`` passed it over: they
    could name different versions. Now all three name the same one at every message."""
    from zett_browser.export.otlp_model import nanoseconds
    from zett_browser.export.otlp_rows import Compactions
    from zett_browser.export.walk import SessionHead
    from zett_browser.storage import SQLSessionStorage
    from zett_browser.views.time_travel import in_force, locate

    path = copy_fixture("agent_run", tmp_path)
    damaged = 1 if damage == "version" else 2  # v1: in force alone at the steps before v2
    sql = f"update session_snapshots set {damage} = 'two' where session_id = ? and version = ?"
    assert execute(path, sql, AGENT_RUN_ROOT, damaged) == 1
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        metas = await storage.all_snapshot_versions(AGENT_RUN_ROOT)
        assert any(problem.startswith(damage) for meta in metas for problem in meta.problems)
        rows = await storage.raw_page(AGENT_RUN_ROOT, after_sequence=None, limit=1_000)
        snapshot_rows = [dict(row) for row in await _snapshot_rows(path)]
        compactions = Compactions.of(SessionHead(row={}, snapshots=snapshot_rows))
        named = []
        for row in rows:
            point = await locate(storage, AGENT_RUN_ROOT, row.sequence)
            by_sql = point.snapshot.version if point.snapshot is not None else None
            dimmed = in_force(metas, row.started_at, row.sequence)
            by_view = dimmed.version if dimmed is not None else None
            by_otel = compactions.in_force(nanoseconds(row.started_at), row.sequence)
            assert by_sql == by_view, f"#{row.sequence}"
            if by_sql is not None:
                assert by_otel == by_sql, f"#{row.sequence}"
            named.append(by_sql)
        assert damaged not in named and 0 not in named and any(named), named
    finally:
        await storage.close()


async def _snapshot_rows(path: Path) -> list[Any]:
    import sqlite3

    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return db.execute(
            "select * from session_snapshots where session_id = ? order by version", (AGENT_RUN_ROOT,)
        ).fetchall()
    finally:
        db.close()
