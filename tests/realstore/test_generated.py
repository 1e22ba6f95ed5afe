"""The real-runtime stores hold every case of issue 24, and zett-browser's storage reads them all.

Plain sqlite3 on the generated stores (``stores.py``): each case left the rows the runtime
writes for it. Then ``zett_browser.storage.open_store`` lists every session of both stores and
pages every message without a problem (rendering is checked elsewhere; see CENSUS.md).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.realstore.stores import RealStores
from zett_browser.model.documented import SessionSummary
from zett_browser.storage import open_store
from zett_browser.views import time_travel as context
from zett_browser.views.formatting import full_text

SYSTEM, USER, ASSISTANT, TOOL, AGENT = 1, 2, 3, 4, 6


@dataclass(frozen=True)
class Row:
    sequence: int
    role: int
    tool_name: str | None
    content: str
    data: dict[str, Any]

    @property
    def attributes(self) -> dict[str, Any]:
        value = self.data.get("attributes") or {}
        assert isinstance(value, dict)
        return value


def rows(path: Path, session_id: str) -> list[Row]:
    with closing(sqlite3.connect(path)) as connection:
        found = connection.execute(
            "SELECT sequence, role, tool_name, content, message_json FROM raw_messages"
            " WHERE session_id = ? ORDER BY sequence",
            (session_id,),
        ).fetchall()
    result = []
    for sequence, role, tool_name, content, message_json in found:
        envelope = json.loads(message_json)
        assert len(envelope) == 1
        result.append(Row(sequence, role, tool_name, content or "", envelope[0]["data"]))
    return result


def children_of(path: Path, parent: str) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        found = connection.execute(
            "SELECT id FROM agent_sessions WHERE parent_session_id = ? ORDER BY id", (parent,)
        ).fetchall()
    return [row[0] for row in found]


def tool_rows(found: list[Row], name: str) -> list[Row]:
    return [row for row in found if row.role == TOOL and row.tool_name == name]


def calls(found: list[Row]) -> Iterator[dict[str, Any]]:
    for row in found:
        if row.role == ASSISTANT:
            yield from row.data.get("tool_calls") or []


def test_every_case_ran(real_stores: RealStores) -> None:
    cases = real_stores.report["cases"]
    assert len(cases) == 15
    assert all(case["ok"] for case in cases.values())
    with closing(sqlite3.connect(real_stores.main)) as connection:
        titled = dict(connection.execute("SELECT id, title FROM agent_sessions WHERE title IS NOT NULL"))
    assert {case["session_id"] for case in cases.values()} <= set(titled)
    # The default profiles wrote under the temp HOME; the generator moved that store aside.
    assert real_stores.children.exists()
    assert not (real_stores.directory / "home" / ".zett-agent" / "sessions.sqlite3").exists()


def test_async_tasks_and_children_in_another_store(real_stores: RealStores) -> None:
    session = real_stores.session("async_tasks")
    found = rows(real_stores.main, session)
    starts = [row for row in found if row.role == ASSISTANT and len(row.data["tool_calls"]) == 4]
    assert [call["name"] for call in starts[0].data["tool_calls"]] == ["task_start"] * 4
    infos = {
        name: [json.loads(row.content) for row in tool_rows(found, name) if row.data["success"]]
        for name in ("task_start", "task_status", "task_output", "task_cancel", "task_list")
    }
    assert {info["status"] for info in infos["task_start"]} == {"running"}
    assert infos["task_status"][0]["status"] == "running" and infos["task_status"][0]["content"] is None
    assert infos["task_output"][0]["content"].startswith("Report: ")
    assert infos["task_cancel"][0]["status"] == "cancelled"
    listed = [(info["task_id"], info["status"]) for info in infos["task_list"][0]]
    assert listed == [("task-1", "completed"), ("task-2", "cancelled"), ("task-3", "running"), ("task-4", "failed")]
    assert {"task_id", "subagent_type", "description", "status", "session_id", "elapsed_seconds", "note"} <= set(
        infos["task_start"][0]
    )
    notices = [row.content for row in found if row.role == AGENT]
    assert any("task-3" in text and "finished. Call task_output" in text for text in notices)  # never read
    assert any("task-4" in text and "failed: RuntimeError" in text for text in notices)
    failed = [row for row in tool_rows(found, "task_output") if not row.data["success"]]
    assert "Unknown task 'task-9'" in failed[0].content
    foreground = json.loads(tool_rows(found, "task")[0].content)
    assert foreground["parent_session_id"] == session and foreground["content"].startswith("Report: ")
    # The default profiles wrote their sessions to ~/.zett-agent/sessions.sqlite3 = children.sqlite3.
    assert children_of(real_stores.main, session) == []
    children = children_of(real_stores.children, session)
    task_sessions = {info["session_id"] for info in infos["task_start"]} | {foreground["session_id"]}
    assert set(children) == task_sessions and len(children) == 5


def test_model_request_trace_attribute(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("async_tasks"))
    traced = [row for row in found if row.role == ASSISTANT]
    assert traced and all("model_request_trace" in row.attributes for row in traced)
    trace = traced[0].attributes["model_request_trace"]
    assert trace["schema_version"] == 1 and trace["server_tools"] == []
    assert {"task_start", "task_list", "task_status", "task_output", "task_cancel", "task"} <= {
        tool["name"] for tool in trace["tools"]
    }


def test_server_tool_replay_blocks(real_stores: RealStores) -> None:
    answer, continued = [
        row for row in rows(real_stores.main, real_stores.session("server_tools")) if row.role == ASSISTANT
    ]
    blocks = answer.data["replay_blocks"]
    types = [block["type"] for block in blocks]
    assert {"server_tool_use", "web_search_tool_result", "web_fetch_tool_result"} <= set(types)
    results = next(block for block in blocks if block["type"] == "web_search_tool_result")["content"]
    assert [result["url"] for result in results] == [
        "https://docs.python.org/3/library/sqlite3.html",
        "https://sqlite.org/wal.html",
    ]
    assert all(result["title"] for result in results)
    assert answer.data["provider"] == "anthropic"
    # pause_turn: the runtime sent the turn again; the paused step keeps no stop.
    assert answer.data["stop"] is None and continued.data["stop"] is None
    server_tools = answer.attributes["model_request_trace"]["server_tools"]
    assert [tool["type"] for tool in server_tools] == ["web_search_20260318", "web_fetch_20260318"]


def test_compaction_in_request_and_by_compact(real_stores: RealStores) -> None:
    session = real_stores.session("compaction")
    with closing(sqlite3.connect(real_stores.main)) as connection:
        snapshots = connection.execute(
            "SELECT version, compacted_through_sequence, message_json FROM session_snapshots"
            " WHERE session_id = ? ORDER BY version",
            (session,),
        ).fetchall()
    assert len(snapshots) >= 4
    kinds = {json.loads(message_json)[0]["kind"] for _, _, message_json in snapshots}
    assert kinds == {5}
    last_user = max(row.sequence for row in rows(real_stores.main, session) if row.role == USER)
    assert snapshots[-1][1] < last_user  # the manual pass, then one more request


def test_ask_user_text_and_image_answers(real_stores: RealStores) -> None:
    answers = tool_rows(rows(real_stores.main, real_stores.session("ask_user")), "ask_user")
    text = json.loads(answers[0].content)
    assert text["payload"]["answer"] == "Markdown"
    parts = answers[1].data["content"]
    assert parts[0] == {"text": "Here is the screenshot:"}
    assert parts[1]["source"]["url"].startswith("data:image/png;base64,") and parts[1]["alt_text"] == "error.png"


def test_plan_mode_declined_and_approved(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("plan_mode"))
    entered = [json.loads(row.content)["entered"] for row in tool_rows(found, "enter_plan_mode")]
    exited = [json.loads(row.content)["exited"] for row in tool_rows(found, "exit_plan_mode")]
    assert entered == [False, True] and exited == [False, True]
    assert any(row.role == SYSTEM and row.content.startswith("You are in Plan Mode") for row in found)


def test_todo_write(real_stores: RealStores) -> None:
    results = tool_rows(rows(real_stores.main, real_stores.session("todo")), "todo_write")
    good = [json.loads(row.content) for row in results if row.data["success"]]
    assert [item["in_progress_index"] for item in good] == [0, 1, 2, None]
    assert good[-1]["completed"] is True
    assert [row for row in results if not row.data["success"]]


def test_steering_and_internal_messages(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("steering"))
    superseded = [row for row in found if row.content == "Superseded by a steering message"]
    assert len(superseded) == 2 and not any(row.data["success"] for row in superseded)
    steering = found[found.index(superseded[-1]) + 1]
    assert steering.role == USER and steering.content.startswith("Stop editing")
    internal = [row.content for row in found if row.role == AGENT]
    assert internal == [
        "Internal: also list the file sizes.",
        "Reminder from the host: run the linter before answering.",
    ]


def test_goal_mode_and_evaluator_children(real_stores: RealStores) -> None:
    session = real_stores.session("goal")
    found = rows(real_stores.main, session)
    goal_user = next(row for row in found if row.role == USER)
    assert goal_user.attributes["goal_extension"]["target"].startswith("Implement the feature")
    assert goal_user.content.startswith("You are operating in Goal Mode.")
    continuation = next(row for row in found if row.role == AGENT)
    assert continuation.attributes["goal_extension"]["iteration"] == 1
    evaluators = children_of(real_stores.main, session)
    assert len(evaluators) == 2
    decisions = [
        json.loads(tool_rows(rows(real_stores.main, child), "report_goal_evaluation")[0].content)
        for child in evaluators
    ]
    assert [decision["achieved"] for decision in decisions] == [False, True]


def test_refusal_withholds_calls(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("refusal"))
    refused = next(row for row in found if row.role == ASSISTANT)
    assert refused.data["tool_calls"] == []
    assert refused.data["stop"]["reason"] == "refusal"
    assert refused.data["stop"]["detail"]["withheld_tool_calls"] == ["delete_everything"]
    assert not tool_rows(found, "delete_everything")
    assert [block["type"] for block in refused.data["replay_blocks"]] == ["text"]  # the tool_use block went too


@pytest.mark.parametrize(
    ("case", "reason", "kind"),
    [("max_output", "max_output", "continue_response"), ("interrupted", "interrupted", "retry_response")],
)
def test_stopped_then_resumed(real_stores: RealStores, case: str, reason: str, kind: str) -> None:
    found = rows(real_stores.main, real_stores.session(case))
    stopped = next(row for row in found if row.role == ASSISTANT)
    assert stopped.data["stop"]["reason"] == reason
    resume = next(row for row in found if row.role == AGENT)
    assert resume.attributes == {"resume": kind} and resume.sequence > stopped.sequence
    assert found[-1].role == ASSISTANT and found[-1].data.get("stop") is None


def test_killed_during_tool_then_resumed(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("killed"))
    interrupted = [row for row in found if row.content.startswith("The process stopped while this tool was running")]
    assert [row.tool_name for row in interrupted] == ["migrate_database", "shout"]
    assert not any(row.data["success"] for row in interrupted)
    assert found[-1].role == ASSISTANT


def test_cancelled_request(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("cancelled"))
    (cancelled,) = [row for row in found if row.content == "Request cancelled before tool completion"]
    assert cancelled.tool_name == "long_build" and cancelled.data["success"] is False
    assert tool_rows(found, "shout")[0].data["success"] is True


def test_mcp_over_stdio(real_stores: RealStores) -> None:
    found = rows(real_stores.main, real_stores.session("mcp"))
    (lookup,) = tool_rows(found, "inventory__lookup")
    assert "42 in stock" in lookup.content and lookup.data["success"] is True
    (broken,) = tool_rows(found, "inventory__broken")
    assert broken.data["success"] is False
    assert any(row.role == SYSTEM and row.content.startswith("# MCP servers") for row in found)


def test_shell_approval_abort(real_stores: RealStores) -> None:
    (aborted,) = tool_rows(rows(real_stores.main, real_stores.session("shell_abort")), "bash")
    assert aborted.content == "Shell command aborted by user: rm -rf build/ && make release"
    assert aborted.data["success"] is False


@pytest.mark.parametrize("which", ["main", "children"])
async def test_zett_browser_storage_reads_everything(real_stores: RealStores, which: str) -> None:
    path: Path = getattr(real_stores, which)
    with closing(sqlite3.connect(path)) as connection:
        expected = dict(connection.execute("SELECT session_id, count(*) FROM raw_messages GROUP BY session_id"))
        sessions_in_file = {row[0] for row in connection.execute("SELECT id FROM agent_sessions")}
    store = open_store(path)
    try:
        listed: list[SessionSummary] = []
        while page := await store.list_sessions(limit=7, offset=len(listed)):
            listed.extend(page)
        assert {summary.session_id for summary in listed} == sessions_in_file
        for summary in listed:
            assert summary.message_count == expected.get(summary.session_id, 0)
            seen: list[int] = []
            while page_rows := await store.list_raw_messages(
                summary.session_id, after_sequence=seen[-1] if seen else 0, limit=9
            ):
                assert not [record.problems for record in page_rows if record.problems]
                seen.extend(record.sequence for record in page_rows)
            assert seen == list(range(1, expected.get(summary.session_id, 0) + 1))
            await store.load(summary.session_id)
    finally:
        await store.close()


@pytest.mark.parametrize("which", ["main", "children"])
async def test_every_record_formats(real_stores: RealStores, which: str) -> None:
    """The toolkit-free formatting turns every real row into blocks without an error (today's state)."""
    store = open_store(getattr(real_stores, which))
    try:
        for summary in await store.list_sessions(limit=100):
            for record in await store.list_raw_messages(summary.session_id):
                assert full_text(record).startswith(f"#{record.sequence} ")
    finally:
        await store.close()


@pytest.mark.parametrize("which", ["main", "children"])
async def test_model_context_equals_zett_agent_load(real_stores: RealStores, which: str) -> None:
    """zett-browser's model context of every session is exactly what zett-agent's load() returned."""
    loads = json.loads((real_stores.directory / "loads.json").read_text(encoding="utf-8"))[which]
    store = open_store(getattr(real_stores, which))
    try:
        assert loads
        for session_id, expected in loads.items():
            point = await context.locate(store, session_id, None)
            assert json.loads(await context.export_json(store, point)) == expected, session_id
    finally:
        await store.close()
