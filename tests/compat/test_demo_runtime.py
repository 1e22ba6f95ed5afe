"""The demo's runtime sessions (issue 24): what zett-agent 0.2.1's extensions write, readable by the runtime itself.

The demo writes them with zett-browser's own writer; these tests hold it to the real shapes:
zett-agent's ``SQLiteSessionStorage`` loads every session, and re-encoding each stored
envelope with zett-agent's own codec gives back the stored bytes.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.compat.compare import run_zett_agent_script
from zett_browser.demo.runtime_sessions import AUDIT, IMPLEMENT, PLAN, RESEARCH, RUNBOOK, TASKS
from zett_browser.demo.store import build_demo_store

ROOTS = (AUDIT, RESEARCH, PLAN, IMPLEMENT, RUNBOOK)
CHILDREN = tuple(task[4] for task in TASKS)

_LOAD_EVERY_SESSION = """
import asyncio, json, sys
from zett_agent.storage import SQLiteSessionStorage, decode_messages, encode_messages

async def main(path, ids):
    storage = SQLiteSessionStorage(path)
    out = {}
    try:
        for session_id in ids:
            summary = await storage.get_session(session_id)
            view = await storage.load(session_id)
            rows = await storage.list_raw_messages(session_id)
            out[session_id] = {
                "title": summary.title, "agent_name": summary.agent_name,
                "parent": summary.parent_session_id, "rows": len(rows),
                "context": len(view.messages), "kinds": sorted({type(m).__name__ for m in view.messages}),
            }
    finally:
        await storage.close()
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2].split(",")))
"""

_REENCODE = """
import json, sqlite3, sys
from zett_agent.storage import decode_messages, encode_messages

connection = sqlite3.connect(sys.argv[1])
differ = []
count = 0
for session_id, sequence, payload in connection.execute(
    "SELECT session_id, sequence, message_json FROM raw_messages ORDER BY session_id, sequence"
):
    count += 1
    if encode_messages(decode_messages(payload)) != payload:
        differ.append(f"{session_id} #{sequence}")
print(json.dumps({"rows": count, "differ": differ}))
"""


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    now = datetime(2026, 12, 3, 12, tzinfo=UTC)
    return asyncio.run(build_demo_store(tmp_path_factory.mktemp("demo") / "demo.sqlite3", now=now))


def _copy(store: Path, directory: Path) -> Path:
    """zett-agent's first call may add indexes to the file it opens: give it a copy."""
    target = directory / "copy.sqlite3"
    shutil.copy(store, target)
    return target


def test_zett_agent_loads_every_runtime_session(demo_store: Path, zett_agent_py: Path, tmp_path: Path) -> None:
    ids = ",".join((*ROOTS, *CHILDREN))
    loaded: dict[str, Any] = json.loads(
        run_zett_agent_script(zett_agent_py, _LOAD_EVERY_SESSION, str(_copy(demo_store, tmp_path)), ids)
    )
    assert set(loaded) == {*ROOTS, *CHILDREN}
    for session_id in ROOTS:
        session = loaded[session_id]
        assert (session["title"], session["agent_name"], session["parent"]) == (None, None, None), session_id
        assert session["rows"] > session["context"] > 0, "system rows are recorded, not restored"
        assert {"UserMessage", "AssistantMessage"} <= set(session["kinds"])
    for session_id in CHILDREN:
        assert loaded[session_id]["parent"] == AUDIT
    assert loaded[IMPLEMENT]["kinds"] == ["AssistantMessage", "ToolMessage", "UserMessage"]
    assert "AgentMessage" in loaded[RUNBOOK]["kinds"], "the resume notice goes back to the model"


def test_every_demo_row_is_byte_for_byte_what_zett_agent_encodes(demo_store: Path, zett_agent_py: Path) -> None:
    result = json.loads(run_zett_agent_script(zett_agent_py, _REENCODE, str(demo_store)))
    assert result["differ"] == []
    with sqlite3.connect(demo_store) as connection:
        (rows,) = connection.execute("SELECT count(*) FROM raw_messages").fetchone()
    assert result["rows"] == rows > 150


def _rows(store: Path, session_id: str) -> list[tuple[int, str | None, dict[str, Any]]]:
    with sqlite3.connect(store) as connection:
        found = connection.execute(
            "SELECT role, tool_name, message_json FROM raw_messages WHERE session_id = ? ORDER BY sequence",
            (session_id,),
        ).fetchall()
    return [(role, tool, json.loads(payload)[0]["data"]) for role, tool, payload in found]


def test_the_runtime_sessions_hold_every_extension_of_issue_24(demo_store: Path) -> None:
    roots = {session_id: _rows(demo_store, session_id) for session_id in ROOTS}
    for session_id, rows in roots.items():
        steps = [data for role, _, data in rows if role == 3]
        assert steps and all(data["attributes"]["model_request_trace"]["schema_version"] == 1 for data in steps)
        requests = [data for role, _, data in rows if role == 1 and not data["attributes"]]
        assert len(requests) >= 2 or session_id == RESEARCH, "the system prompt again at every request"
    audit = roots[AUDIT]
    infos = [json.loads(data["content"]) for _, tool, data in audit if tool in {"task_output", "task_cancel"}]
    assert {(info["task_id"], info["status"]) for info in infos} == {("task-1", "completed"), ("task-2", "cancelled")}
    (listing,) = [json.loads(data["content"]) for _, tool, data in audit if tool == "task_list"]
    assert [(info["session_id"], info["status"]) for info in listing] == [
        (CHILDREN[0], "completed"),
        (CHILDREN[1], "cancelled"),
        (CHILDREN[2], "running"),
        (CHILDREN[3], "failed"),
    ]
    notices = [data["content"] for role, _, data in audit if role == 6]
    assert notices[0].startswith("Background task task-4") and "failed:" in notices[0]
    assert notices[1].endswith("Call task_output to read its report.") and "task-3" in notices[1]
    assert not any(tool == "task_output" and "task-3" in json.dumps(data) for _, tool, data in audit)

    blocks = [block["type"] for _, _, data in roots[RESEARCH] for block in data.get("replay_blocks", ())]
    assert {"thinking", "server_tool_use", "web_search_tool_result", "text", "tool_use"} <= set(blocks)
    (answer,) = [json.loads(data["content"]) for _, tool, data in roots[RESEARCH] if tool == "ask_user"]
    assert answer["name"] == "ask_user_response" and answer["payload"]["answer"].startswith("24 hours")

    plan = [json.loads(data["content"]) for _, tool, data in roots[PLAN] if tool and tool.endswith("plan_mode")]
    assert [p.get("entered", p.get("exited")) for p in plan] == [False, True, False, True]
    assert sum(data["content"].startswith("You are in Plan Mode.") for role, _, data in roots[PLAN] if role == 1) == 2

    work = roots[IMPLEMENT]
    todo = [json.loads(data["content"]) for _, tool, data in work if tool == "todo_write"]
    assert [t["in_progress_index"] for t in todo] == [0, 1, 2, None] and todo[-1]["completed"]
    skipped = [data["content"] for _, _, data in work if data.get("success") is False]
    assert skipped == [
        "Superseded by a steering message",
        "Superseded by a steering message",
        "Shell command aborted by user: rm -rf build/ dist/ && make release",
        "Request cancelled before tool completion",
    ]

    runbook = roots[RUNBOOK]
    stops = [data["stop"] for role, _, data in runbook if role == 3 and data["stop"]]
    assert [(s["reason"], s["raw"]) for s in stops] == [("max_output", "max_tokens")]
    assert [data["attributes"] for role, _, data in runbook if role == 6] == [{"resume": "continue_response"}]
    assert any(tool == "inventory__stock" for _, tool, _ in runbook)


def test_the_cancelled_and_failed_children_end_without_an_answer(demo_store: Path) -> None:
    report, cancelled, finished, failed = (_rows(demo_store, child) for child in CHILDREN)
    assert report[-1][0] == 3 and "entry points" in report[-1][2]["content"]
    assert cancelled[-1][0] == 4, "cancelled while its model step ran"
    assert finished[-1][0] == 3 and failed[-1][0] == 2, "failed on its first model call"
    assert all("model_request_trace" not in data["attributes"] for rows in (report, finished) for _, _, data in rows)
