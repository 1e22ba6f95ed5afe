"""Provides the JSON shapes of the MCP server's answers: typed records become plain dicts.

Every string taken from the store is cleaned (:func:`zett_browser.text.clean`, through
:mod:`.bounds`) and bounded; what a model reads is data in named fields, never markup.
A message's text, reasoning, tool-call arguments, metadata and tags share one character
budget (``max_chars``), spent in that order; ``truncated`` says whether any was cut.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..model import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    RawMessageRecord,
    SessionNode,
    SnapshotInfo,
    SystemMessage,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from ..model.compaction import SnapshotMeta
from ..model.outcomes import tool_outcome
from ..model.session_state import SessionState
from ..views.formatting import kind_name
from .bounds import Budget, line, optional_line, reference


def when(moment: datetime | None) -> str | None:
    """A time as ISO 8601 text (None stays None)."""
    return moment.isoformat() if moment is not None else None


def _images(content: Any) -> int:
    if isinstance(content, str):
        return 0
    return sum(1 for part in content if isinstance(part, ImageContent))


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def _body(message: object) -> str:
    """The message's own text: content, a tool result's text, an unreadable row's raw JSON."""
    if isinstance(message, UnreadableMessage):
        return message.raw_json
    if isinstance(message, UserMessage | ToolMessage):
        return message.text
    if isinstance(message, SystemMessage | AgentMessage | AssistantMessage):
        return message.content
    return ""


def tokens(record: RawMessageRecord) -> dict[str, int | None] | None:
    """The step's recorded token counts, or None when the row records none."""
    values = {
        "input": record.input_tokens,
        "output": record.output_tokens,
        "cache_read": record.cache_read_tokens,
        "cache_write": record.cache_write_tokens,
        "reasoning": record.reasoning_tokens,
    }
    return values if any(value is not None for value in values.values()) else None


def message(record: RawMessageRecord, max_chars: int) -> dict[str, Any]:
    """One Raw Log row: where and when, what kind, its text within ``max_chars``, its calls."""
    budget = Budget(max_chars)
    msg = record.message
    shaped: dict[str, Any] = {
        "sequence": record.sequence,
        "id": line(record.id),
        "kind": kind_name(record),
        "request_id": line(record.request_id),
        "started_at": when(record.started_at),
        "completed_at": when(record.completed_at),
        "duration_ms": round(record.duration_ns / 1e6, 3),
        "tokens": tokens(record),
        "sent_to_model": bool(getattr(msg, "include_in_messages", False)),
        "text": budget.take(_body(msg)),
    }
    if isinstance(msg, UserMessage | ToolMessage) and (images := _images(msg.content)):
        shaped["images"] = images
    if isinstance(msg, AssistantMessage):
        if msg.reasoning:
            shaped["reasoning"] = budget.take(msg.reasoning)
        if msg.tool_calls:
            shaped["tool_calls"] = [
                {"id": line(call.id), "name": line(call.name), "arguments": budget.take(_json_text(call.arguments))}
                for call in msg.tool_calls
            ]
        if msg.provider or msg.model:
            shaped["model"] = line("/".join(part for part in (msg.provider, msg.model) if part))
        if msg.stop is not None:
            shaped["stop"] = line(msg.stop.describe())
    if isinstance(msg, ToolMessage):
        shaped["tool_result"] = {
            "tool_call_id": line(msg.tool_call_id),
            "name": line(msg.name),
            "success": msg.success,
            "outcome": tool_outcome(msg.success, msg.content).value,
        }
    if isinstance(msg, UnreadableMessage):
        shaped["unreadable"] = line(msg.error)
    if record.metadata:
        shaped["metadata"] = budget.take(_json_text(record.metadata))
    if record.tags:
        shaped["tags"] = budget.take(_json_text(record.tags))
    if record.problems:
        shaped["problems"] = [line(problem) for problem in record.problems[:20]]
    shaped["truncated"] = budget.truncated
    return shaped


def node(session: SessionNode, label: str | None = None) -> dict[str, Any]:
    """One session as the tree knows it: identity, label, activity and counts."""
    shaped: dict[str, Any] = {
        "session_id": line(session.session_id),
        "label": label if label is not None else None,
        "title": optional_line(session.title),
        "agent_name": optional_line(session.agent_name),
        "parent_session_id": optional_line(session.parent_session_id),
        "created_at": when(session.created_at),
        "updated_at": when(session.updated_at),
        "messages": session.message_count,
        "children": session.child_count,
        "snapshots": session.snapshot_count,
    }
    if (ref := reference(session.session_id)) is not None:
        shaped["session_ref"] = ref
    if session.problems:
        shaped["problems"] = [line(problem) for problem in session.problems[:20]]
    return shaped


def state(value: SessionState) -> dict[str, Any]:
    """How the session's last request ended (``model.session_state``)."""
    return {
        "kind": value.kind.value,
        "description": line(value.sentence),
        "sequence": value.sequence,
        "may_still_be_running": value.quiet,
    }


def snapshot_meta(meta: SnapshotMeta) -> dict[str, Any]:
    """One snapshot version without its summary."""
    shaped: dict[str, Any] = {
        "version": meta.version,
        "compacted_through_sequence": meta.compacted_through_sequence,
        "created_at": when(meta.created_at),
        "stored_chars": meta.stored_chars,
    }
    if meta.problems:
        shaped["problems"] = [line(problem) for problem in meta.problems[:20]]
    return shaped


def snapshot(info: SnapshotInfo, max_chars: int) -> dict[str, Any]:
    """One snapshot version with its summary text within ``max_chars``."""
    budget = Budget(max_chars)
    shaped: dict[str, Any] = {
        "version": info.version,
        "compacted_through_sequence": info.compacted_through_sequence,
        "created_at": when(info.created_at),
        "summary": budget.take(info.summary_text),
    }
    if info.problems:
        shaped["problems"] = [line(problem) for problem in info.problems[:20]]
    shaped["truncated"] = budget.truncated
    return shaped


__all__ = ["message", "node", "snapshot", "snapshot_meta", "state", "tokens", "when"]
