"""Provides what the index keeps of one Raw Log row, snapshot or session.

A row becomes a :class:`Doc`: the searchable ``body`` (message text, reasoning, tool
names, call arguments, tool results, errors, stop messages, metadata and tags) and the
facts the qualifiers filter on. Rows are decoded with the lenient codec; a row that
cannot be decoded is indexed by its raw text and its ``problem`` says why. Nothing here
raises on stored values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..model.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from ..model.outcomes import tool_outcome
from ..storage import decode_message_leniently
from ..storage.codec import BYTES_KEY
from .facts import attribute_texts, server_texts
from .row_usage import MAX_TOKENS, TOKEN_COLUMNS

if TYPE_CHECKING:
    from .totals import RowUsage

KIND_NAMES = {1: "system", 2: "user", 3: "assistant", 4: "tool", 5: "snapshot", 6: "agent"}
#: Longest text kept of one scalar value inside arguments or metadata (huge blobs add nothing).
MAX_VALUE = 20_000


@dataclass
class Doc:
    """One searchable unit of the index, with the facts its qualifiers read."""

    session_id: str
    sequence: int
    kind: str
    body: str
    time: float | None = None
    model: str | None = None
    tools: str = ""
    tokens: int | None = None
    duration_s: float | None = None
    error: bool = False
    stop: str | None = None
    reasoning: bool = False
    image: bool = False
    meta: str = "{}"
    tags: str = "{}"
    problem: str | None = None
    provider: str | None = None  # assistant steps: for cost (issue 12)
    calls: int = 0  # assistant steps: tool calls made
    usage: RowUsage | None = None  # the row's usage facts, set by the writer
    outcome: str | None = None  # tool results: how the call ended (model.outcomes.Outcome)
    flags: str = ""  # sorted words: goal, resume, server_tools, steering (see .facts)


def flatten(value: Any) -> Iterator[str]:
    """Every key and scalar of a JSON-like value, as text."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from flatten(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from flatten(item)
    elif isinstance(value, bytes):
        return
    elif value is not None:
        yield str(value)[:MAX_VALUE]


def _epoch(value: object) -> float | None:
    return value.timestamp() if isinstance(value, datetime) else None


def _context(raw: object, name: str, problems: list[str]) -> tuple[str, list[str]]:
    """The stored JSON of a metadata/tags object (kept only when it is one), and its words."""
    if raw == "{}":
        return "{}", []
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(raw, str):
        problems.append(f"{name} is not a JSON object")
        return "{}", [str(raw)[:MAX_VALUE]] if raw else []
    return raw, list(flatten(value))


def _parts(content: object, doc: Doc) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for part in content if isinstance(content, (list, tuple)) else ():
        if isinstance(part, TextContent):
            texts.append(part.text)
        elif isinstance(part, ImageContent):
            doc.image = True
            if part.alt_text:
                texts.append(part.alt_text)
    return texts


def _assistant(message: AssistantMessage, doc: Doc) -> list[str]:
    texts = [message.content]
    if message.reasoning:
        doc.reasoning = True
        texts.append(message.reasoning)
    names = []
    for call in message.tool_calls:
        names.append(call.name)
        texts.append(call.name)
        texts.extend(flatten(call.arguments))
        if call.error:
            doc.error = True
            texts.append(call.error)
    doc.tools = " ".join(names)
    doc.model = message.model
    doc.provider, doc.calls = message.provider, len(names)
    if message.replay_blocks:
        texts.extend(server_texts(message.replay_blocks, doc))
    if message.stop is not None:
        doc.stop = message.stop.reason.value
        texts.append(message.stop.describe())
    return texts


def _message_texts(message: object, doc: Doc) -> list[str]:
    if isinstance(message, (AssistantMessage, ToolMessage, UserMessage, SystemMessage, AgentMessage)):
        extra = attribute_texts(message.attributes, doc) if message.attributes else []
        return [*_record_texts(message, doc), *extra]
    if isinstance(message, UnreadableMessage):
        doc.problem = message.error
        return [message.raw_json[: MAX_VALUE * 5]]
    return []


def _record_texts(message: object, doc: Doc) -> list[str]:
    if isinstance(message, AssistantMessage):
        return _assistant(message, doc)
    if isinstance(message, ToolMessage):
        doc.tools = message.name
        outcome = tool_outcome(message.success, message.content)
        doc.outcome, doc.error = outcome.value, outcome.is_failure
        return [message.name, *_parts(message.content, doc)]
    if isinstance(message, UserMessage):
        return _parts(message.content, doc)
    if isinstance(message, (SystemMessage, AgentMessage)):
        return [message.content]
    return []


def _token_total(row: Mapping[str, Any], problems: list[str]) -> int | None:
    """Input plus output tokens of a row (None: neither recorded); a bad count is a problem.

    A count that is not a whole number from 0 to :data:`~.row_usage.MAX_TOKENS` (text, a
    float, a negative, 2**63-1...) is left out and named in ``problems``: summed, two huge
    counts would not fit SQLite's 64-bit integers and the row could not be indexed.
    """
    total: int | None = None
    for column in TOKEN_COLUMNS:
        value = row.get(column)
        if value is None:
            continue
        if type(value) is not int or not 0 <= value <= MAX_TOKENS:
            problems.append(f"{column} is not a token count")
        elif column in ("input_tokens", "output_tokens"):
            total = (total or 0) + value
    return total


def doc_from_row(row: Mapping[str, Any]) -> Doc:
    """The document of one Raw Log row (see :data:`storage.scan.SCAN_COLUMNS`)."""
    role = row.get("role")
    doc = Doc(
        session_id=str(row["session_id"]),
        sequence=int(row["sequence"]),
        kind=KIND_NAMES.get(role, "unknown") if isinstance(role, int) else "unknown",
        body="",
        time=_epoch(row.get("started_at")),
    )
    problems: list[str] = []
    if doc.time is None:
        problems.append("started_at is not a timestamp")
    payload = row.get("message_json")
    texts = _fast_texts(payload, doc)
    if texts is None:
        texts = _message_texts(decode_message_leniently(payload), doc)
    doc.meta, meta_words = _context(row.get("metadata_json"), "metadata_json", problems)
    doc.tags, tag_words = _context(row.get("tags_json"), "tags_json", problems)
    duration = row.get("duration_ns")
    doc.duration_s = duration / 1e9 if isinstance(duration, int) and duration >= 0 else None
    doc.tokens = _token_total(row, problems)
    doc.body = "\n".join(text for text in [*texts, *meta_words, *tag_words] if text)
    if problems:
        doc.problem = "; ".join(filter(None, [doc.problem, *problems]))
    return doc


def doc_from_snapshot(row: Mapping[str, Any]) -> Doc:
    """The document of a snapshot: its summary text, at the sequence it compacts through."""
    boundary = row.get("compacted_through_sequence")
    doc = Doc(
        session_id=str(row["session_id"]),
        sequence=boundary if isinstance(boundary, int) else 0,
        kind="snapshot",
        body="",
        time=_epoch(row.get("created_at")),
    )
    payload = row.get("message_json")
    texts: list[str] = []
    try:
        items = json.loads(payload) if isinstance(payload, str) else None
    except ValueError:
        items = None
    if not isinstance(items, list):
        doc.problem = "snapshot message_json is not a JSON list"
        texts.append(str(payload)[: MAX_VALUE * 5])
    else:
        for item in items:
            message = decode_message_leniently(json.dumps([item]))
            texts.extend(_message_texts(message, doc))
    doc.body = "\n".join(text for text in texts if text)
    return doc


def doc_from_session(row: Mapping[str, Any]) -> Doc:
    """The document of a session itself: its title and agent name."""
    texts = [value for value in (row.get("title"), row.get("agent_name")) if isinstance(value, str)]
    return Doc(
        session_id=str(row["id"]),
        sequence=0,
        kind="session",
        body="\n".join(texts),
        time=_epoch(row.get("created_at")),
    )


# --- Fast path --------------------------------------------------------------------------
# Decoding through the codec (pydantic) costs about half of a build. Most rows are plain
# envelopes whose fields all have exactly the stored types; those are read straight from
# ``json.loads``. Anything else (another kind, an unknown or mistyped field, content
# parts, bytes, a stop record) goes through the codec, so what gets indexed and which
# rows count as problems is the same either way.
_COMMON = {"attributes": (dict,), "persist": (bool,), "include_in_messages": (bool,)}
_NONE = type(None)
# Exact types: ``json.loads`` makes no subclasses, and exact types never take 1 for True.
_FIELDS: dict[int, dict[str, tuple[type, ...]]] = {
    1: {**_COMMON, "content": (str,)},
    2: {**_COMMON, "content": (str,)},
    6: {**_COMMON, "content": (str,)},
    3: {
        **_COMMON,
        "content": (str,),
        "reasoning": (str, _NONE),
        "tool_calls": (list,),
        "provider": (str, _NONE),
        "model": (str, _NONE),
        "replay_blocks": (list,),
        "stop": (_NONE,),
    },
    4: {**_COMMON, "tool_call_id": (str,), "name": (str,), "content": (str,), "success": (bool,)},
}
_REQUIRED = {1: {"content"}, 2: {"content"}, 6: {"content"}, 3: set(), 4: {"tool_call_id", "name", "content"}}
_CALL: dict[str, tuple[type, ...]] = {"id": (str,), "name": (str,), "arguments": (dict,), "error": (str, _NONE)}
_CALL_REQUIRED = {"id", "name"}


def _plain_fields(data: object, fields: Mapping[str, tuple[type, ...]], required: set[str]) -> bool:
    """Whether ``data`` is an object with only known fields, each exactly of its type."""
    if type(data) is not dict or not data.keys() >= required:
        return False
    for key, value in data.items():
        if type(value) not in fields.get(key, ()):
            return False
    return True


def _fast_texts(payload: object, doc: Doc) -> list[str] | None:
    """The texts of a plain envelope, or None when the codec must decide."""
    if not isinstance(payload, str) or BYTES_KEY in payload:
        return None
    try:
        items = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(items, list) or len(items) != 1 or not isinstance(items[0], dict) or len(items[0]) != 2:
        return None
    kind, data = items[0].get("kind"), items[0].get("data")
    if type(kind) is not int or kind not in _FIELDS or not _plain_fields(data, _FIELDS[kind], _REQUIRED[kind]):
        return None
    assert isinstance(data, dict)
    attributes = data.get("attributes")
    extra = attribute_texts(attributes, doc) if attributes else []
    if kind == 4:
        doc.tools = data["name"]
        if data.get("success", True):
            doc.outcome = "ok"  # what tool_outcome says of any success, without the call
        else:
            outcome = tool_outcome(False, data["content"])
            doc.outcome, doc.error = outcome.value, outcome.is_failure
        return [data["name"], data["content"], *extra]
    if kind != 3:
        return [data["content"], *extra]
    calls = data.get("tool_calls", [])
    blocks = data.get("replay_blocks", [])
    for call in calls:
        if not _plain_fields(call, _CALL, _CALL_REQUIRED):
            return None
    for block in blocks:
        if not isinstance(block, dict):
            return None
    texts = [data.get("content", "")]
    if data.get("reasoning"):
        doc.reasoning = True
        texts.append(data["reasoning"])
    for call in calls:
        texts.append(call["name"])
        texts.extend(flatten(call.get("arguments", {})))
        if call.get("error"):
            doc.error = True
            texts.append(call["error"])
    doc.tools = " ".join(call["name"] for call in calls)
    doc.model = data.get("model")
    doc.provider, doc.calls = data.get("provider"), len(calls)
    if blocks:
        texts.extend(server_texts(blocks, doc))
    return [*texts, *extra]
