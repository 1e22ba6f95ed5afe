"""Records as plain (text, role) blocks, toolkit-free: what every view and an exporter share."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.records import AT, raw_record
from zett_browser.model import (
    AssistantMessage,
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    SnapshotInfo,
    StopInfo,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from zett_browser.views.formatting import (
    HUGE,
    PREVIEW,
    FormatOptions,
    format_record,
    full_text,
    human_duration,
    human_size,
    kind_name,
    relative_time,
    summary_blocks,
    usage_line,
)

record = raw_record


def roles(blocks: list[Any]) -> list[list[str]]:
    return [[span.role for span in block.spans] for block in blocks]


@pytest.mark.parametrize(
    ("ns", "shown"),
    [(None, ""), (0, ""), (1, "<1 ms"), (999_999, "<1 ms"), (840_000_000, "840 ms"), (3_200_000_000, "3.2 s")]
    + [(125_000_000_000, "2 m 05 s")],
)
def test_human_duration(ns: int | None, shown: str) -> None:
    assert human_duration(ns) == shown


def test_sub_millisecond_usage_never_says_zero() -> None:
    line = usage_line(record(AssistantMessage(content="x"), duration_ns=300_000, content_duration_ns=10))
    assert line == "<1 ms · writing <1 ms"


def test_sizes_and_relative_times() -> None:
    assert [human_size(n) for n in (512, 1400, 2_000_000)] == ["512 B", "1.4 KB", "2.0 MB"]
    now = AT + timedelta(hours=3)
    assert relative_time(AT, now) == "3h ago"
    assert relative_time(AT, AT + timedelta(seconds=5)) == "just now"
    assert relative_time(AT, AT + timedelta(days=40)) == "2026-01-02"


def test_header_spans() -> None:
    rec = record(AssistantMessage(content="hi"), input_tokens=1200, output_tokens=80, duration_ns=840_000_000)
    head = format_record(rec, FormatOptions(compacted_through=9))[0]
    assert head.text == "#7 assistant  2026-01-02 03:04:05  840 ms · in 1,200 out 80  [compacted]"
    assert roles([head]) == [["sequence", "kind.assistant", "timestamp", "usage", "compacted"]]


def test_assistant_with_reasoning_calls_and_stop() -> None:
    message = AssistantMessage(
        content="**done**",
        reasoning="think",
        tool_calls=(ToolCall(id="c1", name="sh\x1b]0;x\x07", arguments={"cmd": "ls"}),),
        stop=StopInfo(reason=StopReason.REFUSAL, message="no"),
        provider="p",
        model="m",
    )
    blocks = format_record(record(message))
    assert [b.text for b in blocks[1:3]] == ["▸ reasoning (5 chars, press r)", "**done**"]
    assert blocks[2].prose
    assert blocks[3].text == "→ call sh␛]0;x␇  c1"
    assert roles(blocks)[3] == ["tool.call", "tool.name", "id"]
    assert blocks[4].text == '{\n  "cmd": "ls"\n}'
    assert roles(blocks)[5] == ["problem"]
    assert blocks[-1].text == "p m"
    shown = format_record(record(message), FormatOptions(show_reasoning=True))
    assert [b.text for b in shown[1:3]] == ["▾ reasoning", "think"]


def test_tool_results_ok_and_failed_and_images() -> None:
    ok = ToolMessage(tool_call_id="c1", name="read", content="file")
    failed = ToolMessage(
        tool_call_id="c2",
        name="read",
        content=[
            TextContent(text="boom"),
            ImageContent(source=ImageBytesSource(data=b"x" * 2000, media_type="image/png")),
        ],
        success=False,
    )
    assert format_record(record(ok))[1].text == "← result ✓ read  c1"
    assert roles(format_record(record(ok)))[1][0] == "tool.result.ok"
    blocks = format_record(record(failed))
    assert roles(blocks)[1][0] == "tool.result.failed"
    assert [b.text for b in blocks[2:]] == ["boom", "[image: image/png, 2.0 KB]"]
    assert not blocks[2].prose


def test_huge_bodies_are_cut_before_cleaning_unless_shown_whole() -> None:
    body = "\x1b" * (HUGE + 5)
    blocks = format_record(record(UserMessage(content=body)))
    assert blocks[1].text == "␛" * PREVIEW
    assert blocks[2].text.startswith("… 8.0 KB more") and roles(blocks)[2] == ["note"]
    assert len(format_record(record(UserMessage(content=body)), FormatOptions(show_all=True))) == 2


def test_unreadable_problems_metadata_tags() -> None:
    rec = record(UnreadableMessage(kind=9, error="bad", raw_json="{\x1b"), problems=("bad\x9b",))
    assert [b.text for b in format_record(rec)[1:]] == ["✗ bad\\u009b", "{␛"]
    rec = record(SystemMessage(content="sys"), metadata={"b": 1, "a": "\x1b"}, tags={"t": 1})
    blocks = format_record(rec)
    assert roles(blocks)[1:] == [["body.system"], ["metadata"], ["tags"]]
    assert blocks[2].text == 'metadata {"a": "\\u001b", "b": 1}'


def test_kind_names_and_full_text() -> None:
    assert kind_name(record(CompactedMessage(content="s"))) == "user"
    assert kind_name(record(SystemMessage(content="s"))) == "system"
    rec = record(AssistantMessage(content="a" * (HUGE + 1), reasoning="r"))
    text = full_text(rec)
    assert "a" * (HUGE + 1) in text and "▾ reasoning\nr" in text


def snapshot(text: str, problems: tuple[str, ...] = ()) -> SnapshotInfo:
    return SnapshotInfo(
        id="x",
        session_id="s",
        version=2,
        compacted_through_sequence=10,
        message=CompactedMessage(content=text),
        created_at=AT,
        updated_at=AT,
        problems=problems,
    )


def test_summary_is_a_preview_past_the_limit() -> None:
    blocks = summary_blocks(snapshot("s" * 10_000_000, ("odd\x1b",)))
    assert [b.text for b in blocks[:2]] == ["v2 summary", "✗ odd␛"]
    assert len(blocks[2].text) == PREVIEW
    assert "s in the version list reads it whole" in blocks[3].text
    assert len(summary_blocks(snapshot("short"), limit=None)) == 2


def test_every_role_has_one_style_in_the_table() -> None:
    from zett_browser.widgets.render import ROLE_STYLE

    message = AssistantMessage(
        content="x",
        reasoning="r",
        tool_calls=(ToolCall(id="c", name="n", arguments={}, error="bad"),),
        stop=StopInfo(reason=StopReason.REFUSAL),
        model="m",
    )
    records = [
        record(message, input_tokens=1, output_tokens=1, duration_ns=5, metadata={"a": 1}, tags={"b": 2}),
        record(ToolMessage(tool_call_id="c", name="n", content="x", success=False), problems=("p",)),
        record(ToolMessage(tool_call_id="c", name="n", content="x" * HUGE)),
        record(UnreadableMessage(kind=1, error="e", raw_json="{")),
        record(SystemMessage(content="s")),
        record(UserMessage(content=[ImageContent(source=ImageBytesSource(data=b"x", media_type="image/png"))])),
    ]
    blocks = [b for r in records for b in format_record(r, FormatOptions(show_reasoning=True, compacted_through=99))]
    blocks += summary_blocks(snapshot("s" * (PREVIEW + 1)))
    used = {span.role for block in blocks for span in block.spans}
    assert used - set(ROLE_STYLE) == set()


def test_huge_metadata_is_bounded_like_a_body() -> None:
    rec = record(SystemMessage(content="s"), metadata={"blob": "x" * (2 * HUGE)})
    blocks = format_record(rec)
    assert [b.spans[0].role for b in blocks[2:]] == ["metadata", "note"]
    assert len(blocks[2].text) == PREVIEW
    assert len(format_record(rec, FormatOptions(show_all=True))) == 3
