"""Provides what a delegation card says: a ``task`` call's request, and its result's child and answer.

Toolkit-free and pure over records: the screen adds what only the store and the index
know (a result on a later page, the child's usage). A ``task`` call's arguments are
zett-agent's ``subagent_type``, ``description`` and ``prompt``; its result is a small JSON
object naming the child ``session_id`` and what it returned (``content``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..model import AssistantMessage, RawMessageRecord, ToolMessage

#: The tool that delegates to a subagent.
TASK = "task"
#: Longest result parsed (a task result is a small JSON object; never parse megabytes).
MAX_RESULT_JSON = 64_000


@dataclass(frozen=True, slots=True)
class Delegation:
    """One ``task`` call and, once known, its result."""

    sequence: int
    call_id: str
    subagent: str | None
    description: str | None
    prompt: str | None
    child_id: str | None = None
    success: bool | None = None  # None: no result found (still running, or on a page too far)
    returned: str | None = None


def _text(arguments: Mapping[str, Any], name: str) -> str | None:
    value = arguments.get(name)
    return value if isinstance(value, str) and value else None


def task_calls(records: Iterable[RawMessageRecord]) -> list[Delegation]:
    """Every ``task`` call on these records, in order."""
    found = []
    for record in records:
        message = record.message
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            if call.name != TASK:
                continue
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            found.append(
                Delegation(
                    sequence=record.sequence,
                    call_id=call.id,
                    subagent=_text(arguments, "subagent_type"),
                    description=_text(arguments, "description"),
                    prompt=_text(arguments, "prompt"),
                )
            )
    return found


def task_result(message: ToolMessage) -> tuple[str | None, str | None]:
    """The child session a task result names, and what the child returned."""
    content = message.content
    if not isinstance(content, str) or len(content) > MAX_RESULT_JSON:
        return None, None
    try:
        value: Any = json.loads(content)
    except (ValueError, RecursionError):
        return None, content or None  # an error text instead of JSON: that is what came back
    if not isinstance(value, dict):
        return None, None
    child = value.get("session_id")
    returned = value.get("content")
    return (child if isinstance(child, str) else None), (returned if isinstance(returned, str) else None)


def with_result(delegation: Delegation, record: RawMessageRecord) -> Delegation:
    """``delegation`` completed by its result record (a tool message answering its call)."""
    message = record.message
    if not isinstance(message, ToolMessage) or message.tool_call_id != delegation.call_id:
        return delegation
    child, returned = task_result(message)
    return replace(delegation, child_id=child, success=message.success, returned=returned)


def match_results(delegations: list[Delegation], records: Iterable[RawMessageRecord]) -> list[Delegation]:
    """Complete each delegation whose result is among ``records``."""
    results = {record.message.tool_call_id: record for record in records if isinstance(record.message, ToolMessage)}
    return [with_result(item, results[item.call_id]) if item.call_id in results else item for item in delegations]
