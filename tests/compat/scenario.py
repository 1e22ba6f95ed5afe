"""One rich store, written through the storage API of EITHER implementation.

``populate_rich_store(storage, api, ...)`` only uses the public async storage API and the message
classes found on ``api``: for zett-browser that is the ``zett_browser.storage`` module itself, for
zett-agent the namespace returned by ``zett_agent_api()`` (its classes live in several modules).
The same calls therefore write the committed ``storage_api.sqlite3`` fixture (zett-agent), the
reverse-direction store (zett-browser) and the two byte-comparison stores.

This module imports neither implementation at import time and must stay standalone: the
zett-agent venv imports it by path.

Contents (session ids are fixed; ``sid(n)``):

1. ``sid(1)`` "Kitchen sink (renamed)": every message kind; a SystemMessage with the default
   include_in_messages=False and one with True; UserMessage text, and parts with an image from
   bytes (a tiny PNG, detail high) and from a URL with alt_text; AssistantMessage with reasoning,
   two tool calls (one with ``error``), provider/model, replay_blocks; ToolMessage success True /
   False / with image parts; AgentMessage; assistant messages stopped by MAX_OUTPUT and by
   REFUSAL; timing with reasoning and content spans; ModelUsage; metadata and tags;
   ``update_session``; optionally one append without timing ("now").
2. ``sid(2)`` three snapshot versions (boundaries 4, 8, 10 of 12 messages), plus rejected ones.
3. ``sid(3)`` parent -> ``sid(4)`` child (create_session) -> ``sid(5)`` grandchild (first append).
4. ``sid(6)`` orphan whose parent ``sid(99)`` never existed.
5. ``sid(7)`` session_type=3; ``sid(8)`` no messages; an untitled session created by append.
6. ``sid(9)`` 120 messages for pagination.
"""

from __future__ import annotations

import json
import struct
import zlib
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

UTC = UTC
BASE = datetime(2025, 1, 15, 9, 30, 0, 125000, tzinfo=UTC)
#: Exported by ``zett_browser.storage`` with the same names as zett-agent's classes.
API_NAMES = (
    "SQLiteSessionStorage",
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolMessage",
    "AgentMessage",
    "CompactedMessage",
    "ToolCall",
    "TextContent",
    "ImageContent",
    "ImageBytesSource",
    "ImageUrlSource",
    "ImageDetail",
    "StopInfo",
    "StopReason",
    "MessageTiming",
    "ModelUsage",
)


def sid(n: int) -> str:
    """Fixed, UUIDv7-shaped session ids, so stores and dumps stay readable."""
    return f"0193a5c0-0000-7000-8000-{n:012d}"


S_SINK, S_COMPACT, S_PARENT, S_CHILD, S_GRANDCHILD, S_ORPHAN, S_TYPE3, S_EMPTY, S_LONG = (sid(n) for n in range(1, 10))
S_UNTITLED = sid(10)
MISSING_PARENT = sid(99)


def zett_agent_api() -> SimpleNamespace:
    """The API names, gathered from zett-agent's modules (only importable in its venv)."""
    from zett_agent import messages, model, stop, storage
    from zett_agent.extensions.compaction import CompactedMessage
    from zett_agent.extensions.events import MessageTiming

    names: dict[str, Any] = {name: getattr(messages, name) for name in API_NAMES if hasattr(messages, name)}
    names.update(
        SQLiteSessionStorage=storage.SQLiteSessionStorage,
        CompactedMessage=CompactedMessage,
        MessageTiming=MessageTiming,
        ModelUsage=model.ModelUsage,
        StopInfo=stop.StopInfo,
        StopReason=stop.StopReason,
    )
    missing = [name for name in API_NAMES if name not in names]
    assert not missing, missing
    return SimpleNamespace(**names)


def tiny_png() -> bytes:
    """A valid 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def at(seconds: float) -> datetime:
    return BASE + timedelta(seconds=seconds)


#: Longest duration written, in seconds (None: as scripted). zett-agent 0.2.1 keeps
#: ``*_duration_ns`` in INTEGER columns and binds them as INTEGER on PostgreSQL and
#: MySQL, so it cannot store a span over 2.147 s there; server scenarios cap spans at 2 s.
DURATION_CAP: float | None = None


def _cap(seconds: float) -> float:
    return seconds if DURATION_CAP is None else min(seconds, DURATION_CAP)


def timing(
    api: Any,
    start: float,
    duration: float = 0.0,
    reasoning: tuple[float, float] | None = None,
    content: tuple[float, float] | None = None,
) -> Any:
    """MessageTiming with fixed datetimes; spans are (offset from start, length) in seconds."""
    duration = _cap(duration)
    reasoning = (reasoning[0], _cap(reasoning[1])) if reasoning is not None else None
    content = (content[0], _cap(content[1])) if content is not None else None
    values: dict[str, Any] = {
        "started_at": at(start),
        "completed_at": at(start + duration),
        "duration_ns": int(round(duration * 1e9)),
    }
    if reasoning is not None:
        values.update(
            reasoning_started_at=at(start + reasoning[0]),
            reasoning_completed_at=at(start + reasoning[0] + reasoning[1]),
            reasoning_duration_ns=int(round(reasoning[1] * 1e9)),
        )
    if content is not None:
        values.update(
            content_started_at=at(start + content[0]),
            content_completed_at=at(start + content[0] + content[1]),
            content_duration_ns=int(round(content[1] * 1e9)),
        )
    return api.MessageTiming(**values)


async def _expect_value_error(awaitable: Any, what: str) -> None:
    try:
        await awaitable
    except ValueError:
        return
    raise AssertionError(f"{what} should raise ValueError")


async def populate_rich_store(
    storage: Any,
    api: Any,
    *,
    untitled_session_id: str = S_UNTITLED,
    timeless_append: bool = False,
) -> None:
    """Write the rich scenario through ``storage``; ``api`` provides the message classes.

    Args:
        untitled_session_id: Id of the session created by a bare append (a fresh UUIDv7 for the
            committed fixture; the fixed ``S_UNTITLED`` where stores are compared column by column).
        timeless_append: Also append one message without timing, which records "now".
    """
    png = tiny_png()
    usage = api.ModelUsage

    # ---- 1. kitchen sink.
    await storage.create_session(session_id=S_SINK, title="  Kitchen sink  ", agent_name="assistant")
    request = "0193a5c0-1111-7000-8000-000000000001"
    meta = {
        "client": "tui",
        "request": {"ip": "127.0.0.1", "values": [1, 2.5, None, True, "x"]},
        "note": "héllo ✓ 日本",
    }
    tags = {"env": "test", "priority": 2, "labels": ["a", "b"], "flag": False}
    rows: list[tuple[Any, Any, Any, Any, Any]] = [
        (api.SystemMessage(content="You are a careful assistant."), timing(api, 0), None, meta, tags),
        (
            api.UserMessage(content="Hello! Who are you?", attributes={"client_message_id": "m-1"}),
            timing(api, 1),
            None,
            meta,
            tags,
        ),
        (
            api.UserMessage(
                content=[
                    api.TextContent("What is in these pictures?"),
                    api.ImageContent(api.ImageBytesSource(png, "image/png"), detail=api.ImageDetail.HIGH),
                    api.ImageContent(api.ImageUrlSource("https://example.com/cat.png"), alt_text="A cat on a mat"),
                    api.TextContent("Second line of text."),
                ]
            ),
            timing(api, 2),
            None,
            meta,
            {},
        ),
        (
            api.AssistantMessage(
                content="",
                reasoning="I should describe the image, and look something up.",
                tool_calls=(
                    api.ToolCall("call_1", "describe_image", {"index": 0, "detail": "high"}),
                    api.ToolCall("call_2", "lookup", {}, error="Invalid JSON in arguments: Expecting ',' delimiter"),
                ),
                provider="anthropic",
                model="claude-example-4",
                replay_blocks=(
                    {"type": "thinking", "thinking": "describe then look up", "signature": "c2lnbmVkLWJsb2Nr"},
                    {"type": "redacted_thinking", "data": "b3BhcXVl"},
                ),
            ),
            timing(api, 3, 2.5, reasoning=(0.2, 1.1), content=(1.3, 1.0)),
            usage(
                input_tokens=1200,
                output_tokens=340,
                cache_read_tokens=800,
                cache_write_tokens=100,
                reasoning_tokens=120,
            ),
            meta,
            tags,
        ),
        (
            api.ToolMessage(tool_call_id="call_1", name="describe_image", content="A small red square.", success=True),
            timing(api, 6, 0.75),
            None,
            meta,
            tags,
        ),
        (
            api.ToolMessage(
                tool_call_id="call_2",
                name="lookup",
                content="Invalid JSON in arguments: Expecting ',' delimiter",
                success=False,
            ),
            timing(api, 6.8),
            None,
            {},
            {},
        ),
        (
            api.ToolMessage(
                tool_call_id="call_3",
                name="view_image",
                content=[
                    api.TextContent("Here is the image:"),
                    api.ImageContent(
                        api.ImageBytesSource(png, "image/png"), detail=api.ImageDetail.LOW, alt_text="red"
                    ),
                ],
            ),
            timing(api, 7, 0.01),
            None,
            None,
            None,
        ),
        # Starts on a whole second: the stored text still carries ".000000".
        (
            api.AgentMessage(content="Continue and summarize the picture for the user."),
            timing(api, 7.875),
            None,
            None,
            {"origin": "goal"},
        ),
        (
            api.AssistantMessage(
                content="It is a small red square.",
                reasoning="Simple.",
                provider="openai",
                model="gpt-example",
                attributes={"answer": True},
            ),
            timing(api, 9, 1.2, reasoning=(0.1, 0.3), content=(0.4, 0.8)),
            usage(input_tokens=1500, output_tokens=12, cache_read_tokens=1500, reasoning_tokens=4),
            meta,
            tags,
        ),
        (
            api.AssistantMessage(
                content="Here is a very long answer that was cut",
                provider="openai",
                model="gpt-example",
                stop=api.StopInfo(
                    reason=api.StopReason.MAX_OUTPUT,
                    raw="max_tokens",
                    message="Output limit reached",
                    detail={"limit": 64},
                ),
            ),
            timing(api, 11, 3.0, content=(0.5, 2.5)),
            usage(input_tokens=1600, output_tokens=64),
            None,
            None,
        ),
        (
            api.AssistantMessage(
                content="",
                provider="anthropic",
                model="claude-example-4",
                stop=api.StopInfo(
                    reason=api.StopReason.REFUSAL,
                    raw="refusal",
                    category="cyber",
                    message="I can't help with that request.",
                    recommended_model="claude-other",
                    detail={"withheld_tool_calls": ["bash"], "code": 7},
                ),
            ),
            timing(api, 15, 0.4),
            usage(input_tokens=900, output_tokens=0, cache_read_tokens=0),
            None,
            None,
        ),
        (
            api.SystemMessage(
                content="Replay this instruction.", include_in_messages=True, attributes={"pinned": True}
            ),
            timing(api, 16),
            None,
            None,
            None,
        ),
        (
            api.UserMessage(content="(hidden from context)", include_in_messages=False),
            timing(api, 17),
            None,
            None,
            None,
        ),
        (
            api.AssistantMessage(content="Zero usage answer.", provider="ollama", model="llama-example"),
            timing(api, 18, 0.5, content=(0.0, 0.5)),
            usage(),
            None,
            None,
        ),
        (api.AssistantMessage(content="No usage recorded at all."), timing(api, 19), None, None, None),
    ]
    for message, message_timing, message_usage, message_meta, message_tags in rows:
        await storage.append(
            S_SINK, request, message, message_timing, metadata=message_meta, tags=message_tags, usage=message_usage
        )
    await _expect_value_error(
        storage.append(S_SINK, request, api.UserMessage(content="x"), usage=usage(input_tokens=1)),
        "usage on a user message",
    )
    await _expect_value_error(
        storage.append(S_SINK, request, api.UserMessage(content="x"), tags={" ": 1}),
        "an empty tag key",
    )
    if timeless_append:
        await storage.append(S_SINK, "0193a5c0-1111-7000-8000-000000000002", api.UserMessage(content="Thanks!"))
    else:
        await storage.append(
            S_SINK, "0193a5c0-1111-7000-8000-000000000002", api.UserMessage(content="Thanks!"), timing(api, 20)
        )
    await storage.update_session(S_SINK, title="Kitchen sink (renamed)")

    # ---- 2. three snapshot versions at increasing boundaries.
    await storage.create_session(
        session_id=S_COMPACT, title="Long conversation with checkpoints", agent_name="assistant"
    )
    for turn in range(6):
        await storage.append(
            S_COMPACT, "req-compact", api.UserMessage(content=f"Question {turn + 1}?"), timing(api, 100 + turn * 10)
        )
        await storage.append(
            S_COMPACT,
            "req-compact",
            api.AssistantMessage(content=f"Answer {turn + 1}.", provider="scripted", model="m"),
            timing(api, 101 + turn * 10, 2.0, content=(0.5, 1.5)),
            usage=usage(input_tokens=100 + turn, output_tokens=10),
        )
    snapshot = await storage.snapshot(
        S_COMPACT, api.CompactedMessage(content="[Conversation checkpoint]\nQuestions 1-2 answered."), 4, 0
    )
    assert snapshot.version == 1, snapshot
    snapshot = await storage.snapshot(
        S_COMPACT,
        api.CompactedMessage(
            content=[api.TextContent("[Conversation checkpoint]"), api.TextContent("Questions 1-4 answered.")],
            attributes={"summary_model": "m"},
        ),
        8,
        1,
    )
    assert snapshot.version == 2, snapshot
    for boundary, version, why in (
        (8, 2, "a boundary that does not advance"),
        (13, 2, "a boundary past the Raw Log"),
        (0, 2, "boundary 0"),
        (10, 1, "a stale version"),
    ):
        await _expect_value_error(
            storage.snapshot(S_COMPACT, api.CompactedMessage(content="bad"), boundary, version), why
        )
    snapshot = await storage.snapshot(
        S_COMPACT, api.CompactedMessage(content="[Conversation checkpoint]\nQuestions 1-5 answered."), 10, 2
    )
    assert snapshot.version == 3, snapshot

    # ---- 3. delegation: parent, child (create_session), grandchild (created by its first append).
    await storage.create_session(session_id=S_PARENT, title="Delegating parent", agent_name="planner")
    await storage.append(S_PARENT, "req-parent", api.UserMessage(content="Plan the trip."), timing(api, 200))
    await storage.append(
        S_PARENT,
        "req-parent",
        api.AssistantMessage(
            tool_calls=(
                api.ToolCall(
                    "call_task",
                    "task",
                    {"description": "Find trains", "prompt": "Find trains.", "subagent_type": "explore"},
                ),
            ),
            provider="scripted",
            model="m",
        ),
        timing(api, 201, 1.0),
        usage=usage(input_tokens=50, output_tokens=20),
    )
    await storage.create_session(
        session_id=S_CHILD, parent_session_id=S_PARENT, title="Find trains", agent_name="explore"
    )
    await storage.append(
        S_CHILD, "req-child", api.UserMessage(content="Find trains."), timing(api, 202), parent_session_id=S_PARENT
    )
    await storage.append(
        S_GRANDCHILD,
        "req-grandchild",
        api.UserMessage(content="Check the timetable."),
        timing(api, 203),
        parent_session_id=S_CHILD,
        title="Timetable check",
        agent_name="reasoning",
    )
    await storage.append(
        S_GRANDCHILD,
        "req-grandchild",
        api.AssistantMessage(content="The 9:15 train runs daily."),
        timing(api, 204, 0.5),
        parent_session_id=S_CHILD,
    )
    await storage.append(
        S_CHILD,
        "req-child",
        api.AssistantMessage(content="Trains leave at 9:15."),
        timing(api, 205, 0.5),
        parent_session_id=S_PARENT,
    )
    await _expect_value_error(
        storage.append(S_CHILD, "req-child", api.UserMessage(content="x"), parent_session_id=None),
        "changing a session's parent",
    )
    await storage.append(
        S_PARENT,
        "req-parent",
        api.ToolMessage(
            tool_call_id="call_task",
            name="task",
            content=json.dumps({"session_id": S_CHILD, "content": "Trains leave at 9:15."}),
        ),
        timing(api, 206, 4.0),
    )

    # ---- 4. orphan: a parent id that was never created.
    await storage.append(
        S_ORPHAN,
        "req-orphan",
        api.UserMessage(content="My parent session is gone."),
        timing(api, 300),
        parent_session_id=MISSING_PARENT,
        title="Orphaned child",
    )

    # ---- 5. application-defined session type 3, an empty session, an untitled one.
    await storage.create_session(session_id=S_TYPE3, title="Nightly automation", agent_name="cron", session_type=3)
    await storage.append(S_TYPE3, "req-cron", api.AgentMessage(content="Run the nightly report."), timing(api, 400))
    await storage.create_session(session_id=S_EMPTY, title="Empty session")
    await storage.append(
        untitled_session_id, "req-untitled", api.UserMessage(content="No title, no agent name."), timing(api, 500)
    )

    # ---- 6. 120 messages for pagination.
    await storage.create_session(session_id=S_LONG, title="Pagination (120 messages)", agent_name="assistant")
    for index in range(60):
        await storage.append(
            S_LONG,
            f"req-long-{index // 10}",
            api.UserMessage(content=f"Message {2 * index + 1}"),
            timing(api, 600 + 2 * index),
        )
        await storage.append(
            S_LONG,
            f"req-long-{index // 10}",
            api.AssistantMessage(content=f"Message {2 * index + 2}", provider="scripted", model="m"),
            timing(api, 601 + 2 * index, 0.25),
            usage=usage(input_tokens=10 + index, output_tokens=5, cache_read_tokens=index % 10),
        )
    assert await storage.count_messages(S_LONG) == 120
