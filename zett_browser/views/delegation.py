"""Provides what a delegation card says: a ``task`` or ``task_start`` call's request, its child and end.

Toolkit-free and pure over records: the screen adds what only the store and the index
know (a result on a later page, later task events, the child's usage, whether the child is
in this store at all). A call's arguments are zett-agent's ``subagent_type``,
``description`` and ``prompt``; a ``task`` result is a small JSON object naming the child
``session_id`` and what it returned (``content``); a ``task_start`` result is a
``SubAgentTaskInfo`` (task id, status), whose later status comes from the session's other
task events (:func:`zett_browser.views.tasks.lifecycle`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..model import AssistantMessage, RawMessageRecord, ToolMessage
from .tasks import START, TaskInfo, TaskLife, parse_result

#: The tool that delegates to a subagent (in the foreground).
TASK = "task"
#: The tools whose calls get a card.
DELEGATING = frozenset({TASK, START})
#: Longest result parsed (a task result is a small JSON object; never parse megabytes).
MAX_RESULT_JSON = 64_000


@dataclass(frozen=True, slots=True)
class Delegation:
    """One ``task`` (or background ``task_start``) call and, once known, its result."""

    sequence: int
    call_id: str
    subagent: str | None
    description: str | None
    prompt: str | None
    child_id: str | None = None
    success: bool | None = None  # None: no result found (still running, or on a page too far)
    returned: str | None = None
    tool: str = TASK
    task_id: str | None = None  # a background task's id (task-1…)
    status: str | None = None  # its latest known status: running, completed, failed, cancelled
    error: str | None = None
    elapsed: float | None = None
    in_store: bool | None = None  # None: not checked
    elsewhere: str | None = None  # the other store that holds the child (as shown to people)

    @property
    def background(self) -> bool:
        return self.tool == START

    @property
    def failed(self) -> bool:
        """A failure: the call failed, or the background task failed (cancelled is not one)."""
        return self.success is False or self.status == "failed"


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
            if call.name not in DELEGATING:
                continue
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            found.append(
                Delegation(
                    sequence=record.sequence,
                    call_id=call.id,
                    subagent=_text(arguments, "subagent_type"),
                    description=_text(arguments, "description"),
                    prompt=_text(arguments, "prompt"),
                    tool=call.name,
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
    if delegation.background:
        info = parse_result(message.content)
        if not isinstance(info, TaskInfo):
            failure = message.content if isinstance(message.content, str) and not message.success else None
            return replace(delegation, success=message.success, error=failure[:2_000] if failure else None)
        return replace(
            delegation,
            child_id=info.session_id,
            success=message.success,
            task_id=info.task_id,
            status=info.status,
            error=info.error,
            elapsed=info.elapsed,
        )
    child, returned = task_result(message)
    return replace(delegation, child_id=child, success=message.success, returned=returned)


def with_life(delegation: Delegation, lives: Mapping[str, TaskLife]) -> Delegation:
    """``delegation`` with its background task's latest known status (from later task events)."""
    life = lives.get(delegation.task_id or "")
    if life is None or life.status is None:
        return delegation
    elapsed = life.elapsed if life.elapsed is not None else delegation.elapsed
    return replace(delegation, status=life.status, error=life.error or delegation.error, elapsed=elapsed)


def match_results(delegations: list[Delegation], records: Iterable[RawMessageRecord]) -> list[Delegation]:
    """Complete each delegation whose result is among ``records``."""
    results = {record.message.tool_call_id: record for record in records if isinstance(record.message, ToolMessage)}
    return [with_result(item, results[item.call_id]) if item.call_id in results else item for item in delegations]
