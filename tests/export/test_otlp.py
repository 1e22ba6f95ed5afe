"""The OTLP export's spans against the store they come from (a store real zett-agent wrote).

Expected values are read from the store with ``sqlite3`` directly, not through the export:
one ``chat`` span per assistant row with that row's times and token columns, one
``execute_tool`` span per tool result row, one ``invoke_agent`` span per session, the
delegated session's under the ``task`` call, ``gen_ai.conversation.compacted`` exactly
where a snapshot was made before the step began.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.export.otlp_helpers import (
    CHILD,
    PARENT,
    attributes,
    by_name,
    json_attributes,
    otlp_json,
    parse_otlp_json,
    spans_of,
)
from tests.support import private_fixture
from zett_browser.export.otlp_model import span_id, trace_id
from zett_browser.export.otlp_wire import spans_proto

STORE = private_fixture("agent_run.sqlite3")


def _ns(text: str) -> int:
    moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def _rows(session: str, role: int) -> list[sqlite3.Row]:
    connection = sqlite3.connect(STORE)
    connection.row_factory = sqlite3.Row
    try:
        query = "select * from raw_messages where session_id = ? and role = ? order by sequence"
        return connection.execute(query, (session, role)).fetchall()
    finally:
        connection.close()


def _snapshot_times(session: str) -> list[int]:
    connection = sqlite3.connect(STORE)
    try:
        query = "select created_at from session_snapshots where session_id = ?"
        return [_ns(row[0]) for row in connection.execute(query, (session,))]
    finally:
        connection.close()


async def test_spans_follow_the_store() -> None:
    spans = await spans_of(STORE, PARENT)
    assert {span.trace_id for span in spans} == {trace_id(PARENT)}
    assert len({span.span_id for span in spans}) == len(spans)
    agents = {str(attributes(span)["gen_ai.conversation.id"]): span for span in by_name(spans, "invoke_agent")}
    assert set(agents) == {PARENT, CHILD}
    root, child = agents[PARENT], agents[CHILD]
    assert root.parent_id is None and root.name == "invoke_agent counter"
    assert attributes(root)["gen_ai.agent.name"] == "counter" and attributes(root)["openinference.span.kind"] == "AGENT"
    for session, agent in agents.items():
        chats = [span for span in by_name(spans, "chat") if attributes(span)["gen_ai.conversation.id"] == session]
        rows = _rows(session, 3)
        assert len(chats) == len(rows) > 0
        made = _snapshot_times(session)
        for span, row in zip(chats, rows, strict=True):
            found = attributes(span)
            assert span.parent_id == agent.span_id
            assert (span.start_ns, span.end_ns) == (_ns(row["started_at"]), _ns(row["completed_at"]))
            assert found["gen_ai.usage.input_tokens"] == found["llm.token_count.prompt"] == row["input_tokens"]
            assert found["gen_ai.usage.output_tokens"] == found["llm.token_count.completion"] == row["output_tokens"]
            assert found["gen_ai.usage.cache_read.input_tokens"] == row["cache_read_tokens"]
            assert found["gen_ai.usage.cache_creation.input_tokens"] == row["cache_write_tokens"]
            assert found["gen_ai.usage.reasoning.output_tokens"] == row["reasoning_tokens"]
            assert found["session.id"] == PARENT and found["gen_ai.provider.name"] == "scripted"
            assert span.name == f"chat {found['gen_ai.request.model']}"
            compacted = any(at < _ns(row["started_at"]) for at in made)
            assert found["gen_ai.conversation.compacted"] is compacted
        tools = [
            span for span in by_name(spans, "execute_tool") if attributes(span)["gen_ai.conversation.id"] == session
        ]
        results = _rows(session, 4)
        assert sorted(attributes(span)["gen_ai.tool.call.id"] for span in tools) == sorted(
            json.loads(row["message_json"])[0]["data"]["tool_call_id"] for row in results
        )
        assert all(span.parent_id == agent.span_id for span in tools)
        assert agent.start_ns <= min(span.start_ns for span in chats) and agent.end_ns >= max(s.end_ns for s in tools)
    # Compaction is there and not everywhere: the fixture's later steps ran on a snapshot.
    flags = [attributes(span)["gen_ai.conversation.compacted"] for span in by_name(spans, "chat")]
    assert True in flags and False in flags
    # The delegated session lies under the task call that created it (an agent as a tool).
    (task,) = [span for span in spans if span.name == "execute_tool task"]
    assert child.parent_id == task.span_id and task.parent_id == root.span_id
    assert root.end_ns >= child.end_ns and task.end_ns >= child.start_ns
    failed = [span for span in by_name(spans, "execute_tool") if attributes(span)["zett.tool.outcome"] == "failed"]
    assert len(failed) == 1 and failed[0].error == "tool failed"


async def test_ids_are_derived_so_a_reexport_is_the_same(tmp_path: Path) -> None:
    first = await spans_of(STORE, PARENT)
    assert first == await spans_of(STORE, PARENT)
    assert await otlp_json(STORE, PARENT, subtree=True) == await otlp_json(STORE, PARENT, subtree=True)
    # From the session and the row: another copy of the store gives the same ids.
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(STORE, copy)
    assert [span.span_id for span in await spans_of(copy, PARENT)] == [span.span_id for span in first]
    assert by_name(first, "invoke_agent counter")[0].span_id == span_id(PARENT, 0, "session")


async def test_without_subtree_only_the_session() -> None:
    spans = await spans_of(STORE, PARENT, subtree=False)
    assert {attributes(span)["gen_ai.conversation.id"] for span in spans} == {PARENT}
    assert len(by_name(spans, "invoke_agent")) == 1
    alone = await spans_of(STORE, CHILD, subtree=False)
    assert by_name(alone, "invoke_agent")[0].parent_id is None  # its own trace, its own root
    assert {span.trace_id for span in alone} == {trace_id(CHILD)}


async def test_otlp_json_is_the_protobuf_request() -> None:
    """The JSON document read back with protobuf's own JSON parser equals the protobuf request."""
    document = await otlp_json(STORE, PARENT, subtree=True)
    expected = spans_proto(await spans_of(STORE, PARENT))
    assert parse_otlp_json(document) == expected
    (span,) = [s for s in document["resourceSpans"][0]["scopeSpans"][0]["spans"] if s["name"] == "execute_tool task"]
    assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16  # hex, as OTLP/JSON wants
    assert isinstance(span["kind"], int) and isinstance(span["startTimeUnixNano"], str)


def _texts(spans: list[Any]) -> str:
    return json.dumps([attributes(span) for span in spans])


async def test_content_is_opt_in() -> None:
    without = await spans_of(STORE, PARENT)
    words = "the quick brown fox"
    assert words not in _texts(without)
    assert not any(
        key.startswith(("gen_ai.input", "gen_ai.output", "input.", "output.")) for s in without for key in attributes(s)
    )
    spans = await spans_of(STORE, PARENT, content=True)
    first_chat = by_name(spans, "chat")[0]
    found = attributes(first_chat)
    inputs = json.loads(str(found["gen_ai.input.messages"]))
    assert inputs[0]["role"] == "user" and words in inputs[0]["parts"][0]["content"]
    output = json.loads(str(found["gen_ai.output.messages"]))[0]
    assert [part["type"] for part in output["parts"]] == ["reasoning", "text", "tool_call", "tool_call"]
    tool = [s for s in by_name(spans, "execute_tool count_words") if attributes(s)["zett.tool.outcome"] == "ok"][0]
    assert attributes(tool)["gen_ai.tool.call.result"] == "4"
    assert json.loads(str(attributes(tool)["gen_ai.tool.call.arguments"])) == {"text": words}
    root = by_name(spans, "invoke_agent counter")[0]
    assert words in str(attributes(root)["input.value"])


def test_an_otlp_file_through_the_command(tmp_path: Path) -> None:
    import asyncio

    from zett_browser.cli.export import main_export

    output = tmp_path / "trace.json"
    assert (
        main_export([str(STORE), "--session", PARENT[:8], "--subtree", "--format", "otlp", "--output", str(output)])
        == 0
    )
    document = json.loads(output.read_text())
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len(spans) == len(asyncio.run(spans_of(STORE, PARENT)))
    assert {json_attributes(span)["session.id"] for span in spans} == {PARENT}


async def test_calls_without_results_results_without_calls_and_damaged_rows(tmp_path: Path) -> None:
    from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

    path = tmp_path / "edges.sqlite3"
    storage = SQLiteSessionStorage(path)
    try:
        await storage.create_session(session_id="e")
        await storage.append("e", "r1", UserMessage(content="go"))
        calls = (ToolCall("a", "x"), ToolCall("b", "y"))
        await storage.append("e", "r1", AssistantMessage(content="", tool_calls=calls, model="m"))
        await storage.append("e", "r1", ToolMessage(tool_call_id="a", name="x", content="ok"))
        await storage.append(
            "e", "r2", AssistantMessage(content="", tool_calls=(ToolCall("a", "x"), ToolCall("c", "z")))
        )
        await storage.append("e", "r2", ToolMessage(tool_call_id="zzz", name="w", content="nobody asked"))
        await storage.append("e", "r2", AssistantMessage(content="done", model="m"))
    finally:
        await storage.close()
    connection = sqlite3.connect(path)
    with connection:  # a row zett-agent could not have written, and a time that is no time
        connection.execute("update raw_messages set message_json = 'not json' where sequence = 1")
        connection.execute("update raw_messages set completed_at = 'garbage' where sequence = 6")
    connection.close()
    spans = await spans_of(path, "e")
    (agent,) = by_name(spans, "invoke_agent")
    tools = [
        (attributes(s)["gen_ai.tool.call.id"], attributes(s)["zett.tool.outcome"])
        for s in by_name(spans, "execute_tool")
    ]
    assert sorted(tools) == [("a", "no result"), ("a", "ok"), ("b", "no result"), ("c", "no result"), ("zzz", "ok")]
    assert len(by_name(spans, "chat")) == 3 and len({s.span_id for s in spans}) == len(spans) == 9
    assert all(s.parent_id == agent.span_id for s in spans if s is not agent)
    last = by_name(spans, "chat m")[-1]
    assert last.end_ns == last.start_ns > 0  # no readable end: a span of no length, not a failure
    document = await otlp_json(path, "e")
    assert parse_otlp_json(document) == spans_proto(spans)


def test_the_snapshot_in_force_is_the_highest_version_made_before_the_step() -> None:
    from zett_browser.export.otlp_rows import Compactions

    # Made at 10 (v1), 20 (v3), 20 (v2), 30 (v4): by time, not by version order.
    found = Compactions((10, 20, 20, 30), (1, 3, 3, 4))
    made = [(10, 1), (20, 3), (20, 2), (30, 4)]
    for at in (None, 0, 10, 11, 20, 21, 30, 31):
        brute = max((version for time, version in made if at is not None and time < at), default=None)
        assert found.in_force(at) == brute, at
    assert Compactions().in_force(5) is None


def test_a_snapshot_summarising_the_step_is_not_in_force_at_it_whatever_its_clock() -> None:
    """As the context view decides (issue 29): a version whose boundary reaches the step's
    message was made after it, even when its time says otherwise."""
    from zett_browser.export.otlp_rows import Compactions

    made = ((10, 1, 5), (20, 2, 40), (30, 3, 12))  # v2's clock is behind: it summarises #40
    found = Compactions((10, 20, 30), (1, 2, 3), made)
    assert found.in_force(25, 41) == 2 and found.in_force(25, 30) == 1 and found.in_force(25, 5) is None
    assert found.in_force(35, 13) == 3 and found.in_force(35, 12) == 1 and found.in_force(35) == 3
    for at in (None, 0, 10, 11, 20, 21, 30, 31):
        for sequence in (None, 1, 5, 6, 12, 13, 40, 41):
            brute = max(
                (v for t, v, b in made if at is not None and t < at and (sequence is None or b < sequence)),
                default=None,
            )
            assert found.in_force(at, sequence) == brute, (at, sequence)
