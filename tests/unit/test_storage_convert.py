"""Rows to records (zett_browser.storage.convert): what can be read is read, the rest is a problem.

The rows are mappings as a driver returns them, their envelopes written by the storage's own
encoder and read by its own lenient decoder (the ones a page of a real store goes through).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from zett_browser.model import AssistantMessage, CompactedMessage, ToolCall, UnreadableMessage, UserMessage
from zett_browser.storage.codec import decode_message_leniently, encode_messages
from zett_browser.storage.convert import (
    UNREADABLE_TIME,
    BadText,
    lenient_text,
    node_from_row,
    record_from_row,
    snapshot_info_from_row,
    stored_time,
    text_problems,
)

NAIVE = datetime(2026, 1, 2, 3, 4, 5, 600_000)  # as zett-agent stores it: naive UTC
AT = NAIVE.replace(tzinfo=UTC)


def raw_row(message: Any, **values: Any) -> dict[str, Any]:
    """A healthy ``raw_messages`` row of ``message``; ``values`` override any column."""
    row: dict[str, Any] = {
        "id": "r1",
        "session_id": "s1",
        "request_id": "q1",
        "sequence": 4,
        "message_json": encode_messages([message]),
        "metadata_json": '{"model": "m"}',
        "tags_json": "{}",
        "started_at": AT,
        "completed_at": AT + timedelta(seconds=2),
        "duration_ns": 2_000_000_000,
        "tool_name": None,
    }
    for name in ("reasoning", "content"):
        row |= {f"{name}_started_at": None, f"{name}_completed_at": None, f"{name}_duration_ns": None}
    for name in ("input", "output", "cache_read", "cache_write", "reasoning"):
        row[f"{name}_tokens"] = None
    row |= {"created_at": AT, "updated_at": AT}
    row.update(values)
    return row


def node_row(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "s1",
        "parent_session_id": None,
        "title": "a title",
        "agent_name": "coder",
        "session_type": 1,
        "created_at": AT,
        "updated_at": AT,
        "message_count": 12,
        "child_count": 2,
        "snapshot_count": 1,
    }
    row.update(values)
    return row


def test_lenient_text_keeps_utf8_and_the_bytes_of_anything_else() -> None:
    assert lenient_text("héllo".encode()) == "héllo" and type(lenient_text(b"ok")) is str
    bad = lenient_text(b"ab\xffcd")
    assert isinstance(bad, BadText) and bad == "ab\ufffdcd" and bad.raw == b"ab\xffcd"
    assert text_problems({"id": bad, "title": "fine"}, ("id", "title")) == ["id is not valid UTF-8"]


@pytest.mark.parametrize(
    ("stored", "read"),
    [
        (NAIVE, AT),
        (datetime(2026, 1, 2, 5, 4, 5, 600_000, tzinfo=timezone(timedelta(hours=2))), AT),
        ("2026-01-02 03:04:05.600000", AT),
        ("2026-01-02T05:04:05.6+02:00", AT),
        ("yesterday", "yesterday"),
        ("0001-01-01T00:00:00+05:00", "0001-01-01T00:00:00+05:00"),  # before year 1 in UTC
        (1767323045, 1767323045),
        (None, None),
    ],
)
def test_stored_time_is_aware_utc_or_the_value_unchanged(stored: Any, read: Any) -> None:
    value = stored_time(stored)
    assert value == read and type(value) is type(read)
    if isinstance(value, datetime):
        assert value.utcoffset() == timedelta(0)


def test_a_healthy_row_is_a_record_without_problems() -> None:
    message = AssistantMessage(content="done", tool_calls=(ToolCall(id="c1", name="sh", arguments={"cmd": "ls"}),))
    record = record_from_row(raw_row(message, input_tokens=10, reasoning_duration_ns=5), decode_message_leniently)
    assert record.problems == ()
    assert record.message == message
    assert (record.id, record.session_id, record.sequence, record.duration_ns) == ("r1", "s1", 4, 2_000_000_000)
    assert (record.metadata, record.tags, record.input_tokens, record.reasoning_duration_ns) == (
        {"model": "m"},
        {},
        10,
        5,
    )
    assert record.completed_at == AT + timedelta(seconds=2) and record.reasoning_started_at is None


def test_every_damaged_column_is_a_problem_and_a_stand_in() -> None:
    row = raw_row(
        UserMessage(content="hi"),
        id=lenient_text(b"r\xff"),
        sequence="7",
        metadata_json="[1, 2]",
        tags_json="{not json",
        started_at="garbage",
        duration_ns=True,
        output_tokens=1.5,
        content_started_at="later",
    )
    record = record_from_row(row, decode_message_leniently)
    assert record.problems == (
        "id is not valid UTF-8",
        "sequence is not an integer: '7'",
        "metadata_json is not a JSON object: '[1, 2]'",
        "tags_json is not valid JSON: '{not json'",
        "started_at is not a timestamp: 'garbage'",
        "duration_ns is not an integer: True",
        "content_started_at is not a timestamp: 'later'",
        "output_tokens is not an integer: 1.5",
    )
    assert isinstance(record.id, BadText) and record.id.raw == b"r\xff", "the stored bytes find the row again"
    assert (record.sequence, record.metadata, record.tags, record.started_at) == (0, {}, {}, UNREADABLE_TIME)
    assert (record.duration_ns, record.output_tokens, record.content_started_at) == (0, None, None)
    assert record.message == UserMessage(content="hi"), "a damaged column never costs the message"


def test_an_unreadable_envelope_a_checkpoint_and_deep_json_are_problems() -> None:
    unreadable = record_from_row(
        raw_row(UserMessage(content="x"), message_json='[{"kind": 99, "data": {}}]'), decode_message_leniently
    )
    assert isinstance(unreadable.message, UnreadableMessage)
    assert unreadable.problems == (unreadable.message.error,)
    checkpoint = record_from_row(raw_row(CompactedMessage(content="sum")), decode_message_leniently)
    assert checkpoint.problems == ("a checkpoint (kind 5) is stored in the Raw Log",)
    deep = record_from_row(raw_row(UserMessage(content="x"), metadata_json="[" * 100_000), decode_message_leniently)
    assert deep.problems == ("metadata_json is nested too deeply to read",) and deep.metadata == {}


def test_a_node_row_reads_fast_and_reports_each_damaged_value() -> None:
    node = node_from_row(node_row())
    assert (node.session_id, node.title, node.message_count, node.child_count, node.snapshot_count) == (
        "s1",
        "a title",
        12,
        2,
        1,
    )
    assert node.problems == () and node.created_at == AT
    damaged = node_from_row(
        node_row(
            id="s1",
            parent_session_id="s1",
            title=lenient_text(b"t\xfe"),
            created_at="2026-01-02 03:04:05.600000",  # text: still no datetime, so a problem
            session_type="x",
            message_count="12",
            child_count=Decimal(3),
            snapshot_count=float("nan"),
        )
    )
    assert damaged.problems == (
        "title is not valid UTF-8",
        "created_at is not a timestamp: '2026-01-02 03:04:05.600000'",
        "session_type is not an integer: 'x'",
        "the last sequence is not an integer: '12'",
        "parent cycle: it is its own parent",
    )
    assert (damaged.created_at, damaged.session_type, damaged.message_count) == (UNREADABLE_TIME, 0, 0)
    assert (damaged.child_count, damaged.snapshot_count) == (3, 0)
    assert node_from_row(node_row(message_count=9.0)).message_count == 9


def test_a_snapshot_row_keeps_its_summary_or_says_what_it_holds_instead() -> None:
    def snapshot_row(message: Any, **values: Any) -> dict[str, Any]:
        row = {"id": "v1", "session_id": "s1", "version": 2, "compacted_through_sequence": 9}
        row |= {"message_json": encode_messages([message]), "created_at": AT, "updated_at": None}
        return row | values

    info = snapshot_info_from_row(snapshot_row(CompactedMessage(content="the summary")), decode_message_leniently)
    assert (info.version, info.compacted_through_sequence, info.summary_text, info.problems) == (
        2,
        9,
        "the summary",
        (),
    )
    assert info.updated_at is None

    wrong = snapshot_info_from_row(snapshot_row(UserMessage(content="hi"), version="2"), decode_message_leniently)
    holds = "snapshot holds a UserMessage, not a CompactedMessage"
    assert wrong.problems == (holds, "version is not an integer: '2'") and wrong.version == 0
    assert isinstance(wrong.message, UnreadableMessage) and wrong.message.error == holds
    assert json.loads(wrong.summary_text)[0]["data"]["content"] == "hi", "the stored text is kept to be read"
