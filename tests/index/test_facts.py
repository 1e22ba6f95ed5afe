"""What the index reads of attributes, server-tool blocks and outcomes: both paths, bounded, hostile-safe."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from zett_browser.index import extract, facts
from zett_browser.index.extract import Doc, doc_from_row
from zett_browser.index.row_usage import row_usage
from zett_browser.index.search import snippet
from zett_browser.model.usage import Totals
from zett_browser.views.usage_text import totals_rows

HOSTILE = "[bold red]x[/] \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J"
SEARCH = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "wal mode"}}
RESULTS = {
    "type": "web_search_tool_result",
    "tool_use_id": "s1",
    "content": [
        {"type": "web_search_result", "url": "https://sqlite.org/wal.html", "title": "Write-Ahead Logging"},
        {"type": "web_search_result", "url": "https://x.invalid", "title": HOSTILE, "encrypted_content": "SECRETBLOB"},
    ],
}
FETCH_ERROR = {"type": "web_fetch_tool_result", "tool_use_id": "s2", "content": {"error_code": "url_not_accessible"}}
ASSISTANT = {"content": "answer", "tool_calls": [], "model": "m", "replay_blocks": [SEARCH, RESULTS, FETCH_ERROR]}


def _row(item: object, role: int = 3) -> dict[str, Any]:
    return {
        "session_id": "s",
        "sequence": 1,
        "role": role,
        "message_json": json.dumps([item]),
        "metadata_json": "{}",
        "tags_json": "{}",
        "started_at": datetime(2026, 1, 1, tzinfo=UTC),
        "duration_ns": 5,
    }


def _both(row: Mapping[str, Any], monkeypatch: pytest.MonkeyPatch) -> Doc:
    """The document of ``row``; asserts the record path makes the same one."""
    fast = doc_from_row(row)
    with monkeypatch.context() as patch:
        patch.setattr(extract, "_fast_texts", lambda payload, doc: None)
        assert doc_from_row(row) == fast
    return fast


ROWS: list[dict[str, Any]] = [
    {"kind": 3, "data": ASSISTANT},
    {"kind": 3, "data": {**ASSISTANT, "stop": {"reason": "refusal", "message": "no"}}},  # record path only
    {"kind": 3, "data": {**ASSISTANT, "replay_blocks": [{"type": "server_tool_use", "name": 7, "input": [1]}]}},
    {"kind": 3, "data": {**ASSISTANT, "replay_blocks": [{"type": "x_tool_result", "content": "not a list"}]}},
    {"kind": 3, "data": {**ASSISTANT, "replay_blocks": [{"type": "thinking", "thinking": "t", "signature": "S"}]}},
    {"kind": 3, "data": {**ASSISTANT, "attributes": {"model_request_trace": {"tools": [{"name": "secret_tool"}]}}}},
    {"kind": 2, "data": {"content": "rewritten", "attributes": {"goal_extension": {"raw_content": "typed by me"}}}},
    {"kind": 2, "data": {"content": "x", "attributes": {"goal_extension": "not an object"}}},
    {"kind": 6, "data": {"content": "go on", "attributes": {"resume": "continue_response"}}},
    {
        "kind": 4,
        "data": {"tool_call_id": "c", "name": "t", "content": "Superseded by a steering message", "success": False},
    },
    {"kind": 4, "data": {"tool_call_id": "c", "name": "t", "content": [{"text": "Shell command aborted by user: x"}]}},
    {
        "kind": 4,
        "data": {
            "tool_call_id": "c",
            "name": "t",
            "content": [{"text": "Request cancelled before tool completion"}],
            "success": False,
        },
    },
]


@pytest.mark.parametrize("item", ROWS, ids=range(len(ROWS)))
def test_both_paths_agree_on_attributes_blocks_and_outcomes(
    item: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _both(_row(item, role=item["kind"]), monkeypatch)


def test_server_blocks_are_searchable_text_but_not_their_encrypted_content(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _both(_row({"kind": 3, "data": ASSISTANT}), monkeypatch)
    for text in ("web_search", "wal mode", "https://sqlite.org/wal.html", "Write-Ahead Logging", "url_not_accessible"):
        assert text in doc.body
    assert "SECRETBLOB" not in doc.body and doc.flags == "server_tools" and doc.tools == "web_search"
    assert doc.calls == 0  # a server tool is no tool call of the agent
    text, _ = snippet(doc.body, None)
    assert "\x1b" not in text and "\x07" not in text


def test_attributes_give_goal_resume_and_nothing_of_the_request_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    goal = _both(_row(ROWS[6], role=2), monkeypatch)
    assert goal.flags == "goal" and goal.body.splitlines() == ["rewritten", "typed by me"]
    assert _both(_row(ROWS[8], role=6), monkeypatch).flags == "resume"
    trace = _both(_row(ROWS[5]), monkeypatch)
    assert "secret_tool" not in trace.body and trace.flags == "server_tools"  # its blocks, not its trace


def test_outcomes_decide_error_and_usage_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    for item, outcome in ((ROWS[9], "skipped"), (ROWS[11], "cancelled")):
        doc = _both(_row(item, role=4), monkeypatch)
        assert (doc.outcome, doc.error) == (outcome, False)
        usage = row_usage(_row(item, role=4), "tool", {"error": doc.error, "outcome": doc.outcome})
        assert usage.failed is None  # the session's failure state stays what it was
        assert usage.delta.counts[3] == 0 and sum(usage.delta.counts[-4:]) == 1
    ok = _both(_row(ROWS[10], role=4), monkeypatch)  # success defaults to true: ok whatever it says
    assert (ok.outcome, ok.error) == ("ok", False)
    failed = _both(
        _row({"kind": 4, "data": {"tool_call_id": "c", "name": "t", "content": "boom", "success": False}}, 4),
        monkeypatch,
    )
    assert (failed.outcome, failed.error) == ("failed", True)


def test_blocks_and_values_are_bounded() -> None:
    many = [SEARCH] * (facts.MAX_BLOCKS * 10)
    doc = Doc("s", 1, "assistant", "")
    texts = facts.server_texts(many, doc)
    assert len(texts) == 2 * facts.MAX_BLOCKS  # name and query of each block read
    huge = {"type": "web_search_tool_result", "content": [{"title": "t" * 10**6}] * 1000}
    texts = facts.server_texts([huge], Doc("s", 1, "assistant", ""))
    assert len(texts) == facts.MAX_RESULTS and all(len(text) == facts.MAX_VALUE for text in texts)


def test_the_details_table_names_outcomes_only_when_counted() -> None:
    plain = [row[0] for row in totals_rows(Totals(), Totals())]
    assert not any("skipped" in name for name in plain)
    rows = totals_rows(Totals(skipped_tool_results=2), Totals(skipped_tool_results=2, aborted_tool_results=1))
    named = {row[0]: row[1:] for row in rows}
    assert named["skipped tool results"] == ("2", "2") and named["aborted tool results"] == ("0", "1")
    assert named["failed tool results"] == ("0", "0")
    assert [name for name in named if "tool results" in name] == [
        "failed tool results",
        "skipped tool results",
        "aborted tool results",
    ]
