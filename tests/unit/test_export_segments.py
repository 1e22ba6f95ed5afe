"""How an export groups a record's formatted blocks: calls, results, reasoning, prose and code."""

from __future__ import annotations

from tests.records import raw_record
from zett_browser.export.segments import ExportChoices, Segment, render_record
from zett_browser.model import (
    AssistantMessage,
    ImageBytesSource,
    ImageContent,
    StopInfo,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
)

ALL = ExportChoices()


def keep(text: str) -> str:
    return text


def assistant() -> AssistantMessage:
    return AssistantMessage(
        content="hello **x**",
        reasoning="think\nmore",
        tool_calls=(
            ToolCall(id="c1", name="sh", arguments={"cmd": "ls"}),
            ToolCall(id="c2", name="read", arguments={}, error="bad arguments"),
        ),
    )


def failed_result() -> ToolMessage:
    return ToolMessage(
        tool_call_id="c1",
        name="sh",
        content=[TextContent(text="out"), ImageContent(source=ImageBytesSource(data=b"x", media_type="image/png"))],
        success=False,
    )


def test_an_assistant_record_groups_reasoning_prose_and_each_call_with_its_arguments() -> None:
    heading, parts = render_record(raw_record(assistant(), 3, input_tokens=10, output_tokens=5), ALL, 0, keep)
    assert heading == [
        ("#3", "sequence"),
        ("assistant", "kind.assistant"),
        ("2026-01-02 03:04:05", "timestamp"),
        ("in 10 out 5", "usage"),
    ]
    assert [(p.kind, p.role, p.summary, p.lines, p.omitted) for p in parts] == [
        ("reasoning", "reasoning.marker", "reasoning", ["think\nmore"], False),
        ("prose", "body", "", ["hello **x**"], False),
        ("call", "tool.call", "→ call sh  c1", ['{\n  "cmd": "ls"\n}'], False),
        # A call's error stays in its group.
        ("call", "tool.call", "→ call read  c2", ["{}", "arguments could not be decoded: bad arguments"], False),
    ]


def test_a_tool_result_keeps_its_output_and_images_in_its_group() -> None:
    _, parts = render_record(raw_record(failed_result(), 4), ALL, 0, keep)
    assert [(p.kind, p.role, p.summary, p.lines) for p in parts] == [
        ("result", "tool.result.failed", "← result ✗ failed sh  c1", ["out", "[image: image/png, 1 B]"])
    ]


def test_left_out_parts_usage_results_and_reasoning() -> None:
    choices = ExportChoices(reasoning=False, tool_results=False, usage=False)
    heading, parts = render_record(raw_record(assistant(), 3, input_tokens=10), choices, 0, keep)
    assert [role for _, role in heading] == ["sequence", "kind.assistant", "timestamp"]
    assert [p.kind for p in parts] == ["prose", "call", "call"], "left-out reasoning is dropped whole"
    _, results = render_record(raw_record(failed_result(), 4), choices, 0, keep)
    assert results == [Segment("result", "tool.result.failed", summary="← result ✗ failed sh  c1", omitted=True)]


def test_code_and_lines_outside_groups_and_the_scrub_applied_to_every_text() -> None:
    record = raw_record(SystemMessage(content="secret sys"), 1, metadata={"key": "secret"})
    heading, parts = render_record(record, ALL, 0, lambda text: text.replace("secret", "[redacted]"))
    assert ("[not replayed]", "compacted") in heading
    assert [(p.kind, p.role, p.lines) for p in parts] == [
        ("code", "body.system", ["[redacted] sys"]),
        ("line", "metadata", ['metadata {"key": "[redacted]"}']),
    ]
    stopped = AssistantMessage(
        content="", tool_calls=(ToolCall(id="c", name="sh"),), stop=StopInfo(reason=StopReason.REFUSAL)
    )
    _, parts = render_record(raw_record(stopped, 2), ALL, 0, keep)
    assert [(p.kind, p.role, p.lines) for p in parts] == [
        ("call", "tool.call", ["{}"]),
        ("line", "problem", ["⚠ stopped: refusal"]),  # what follows a call's group is outside it
    ]
