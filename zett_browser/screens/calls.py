"""Provides the lookups behind ``c`` (call ↔ result) and ``o`` (open a delegated session).

Plain async functions over a :class:`BrowsingStore`: they read the Raw Log a page at a
time outward from a record (a call and its result sit close together) and return a
sequence, a session id or the children a record names (:func:`children_of`: every
``task``/``task_start`` call of a message, every task of a ``task_list``, the task of a
completion notice); the screen runs them and reports failures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..model import AgentMessage, AssistantMessage, RawMessageRecord, ToolMessage
from ..model.store import BrowsingStore
from ..views.delegation import DELEGATING
from ..views.tasks import START, TaskInfo, parse_notice, parse_result, result_infos

#: Records read per step, and steps at most, when walking outward from a record.
STEP = 50
MAX_STEPS = 20


class NotACall(ValueError):
    """The record is neither a tool call nor a tool result (the message says which)."""


def call_ids(record: RawMessageRecord) -> tuple[set[str], bool]:
    """The tool-call ids a record calls (True: look for results) or answers (False).

    Raises:
        NotACall: The record has nothing to pair.
    """
    message = record.message
    if isinstance(message, AssistantMessage):
        ids = {call.id for call in message.tool_calls}
        if not ids:
            raise NotACall("This message calls no tools")
        return ids, True
    if isinstance(message, ToolMessage):
        return {message.tool_call_id}, False
    raise NotACall("This message is neither a tool call nor a result")


async def find_partner(store: BrowsingStore, record: RawMessageRecord) -> RawMessageRecord | None:
    """The result of a call record, or the call of a result record; None when not found.

    Raises:
        NotACall: The record has nothing to pair.
    """
    targets, forward = call_ids(record)
    session_id = record.session_id
    sequence = record.sequence
    for _ in range(MAX_STEPS):
        if forward:
            page = await store.raw_page(session_id, after_sequence=sequence, limit=STEP)
        else:
            page = list(reversed(await store.raw_page_before(session_id, before_sequence=sequence, limit=STEP)))
        if not page:
            return None
        for candidate in page:
            found = candidate.message
            if forward and isinstance(found, ToolMessage) and found.tool_call_id in targets:
                return candidate
            if not forward and isinstance(found, AssistantMessage):
                if any(call.id in targets for call in found.tool_calls):
                    return candidate
        sequence = page[-1].sequence
    return None


#: Longest tool result parsed for the child session it names (task results are tiny).
MAX_RESULT_JSON = 64_000


def named_child(record: RawMessageRecord) -> str | None:
    """The child session a delegation names: a task result's JSON ``session_id``."""
    message = record.message
    return named_child_of(message) if isinstance(message, ToolMessage) else None


async def child_of(store: BrowsingStore, record: RawMessageRecord) -> str | None:
    """The delegated session a record leads to, or None.

    A ``task`` result names its child in its JSON; a ``task`` call leads to its result
    (found by the call's id), which names it. A session with exactly one child falls
    back to that child.
    """
    child = named_child(record)
    if child is None and isinstance(record.message, AssistantMessage) and record.message.tool_calls:
        result = await find_partner(store, record)
        child = named_child(result) if result is not None else None
    if child is None:
        children = (await store.list_children(record.session_id, limit=2)).items
        if len(children) == 1:
            child = children[0].session_id
    return child


@dataclass(frozen=True, slots=True)
class Child:
    """A delegated session a record names, and how to tell it from its siblings."""

    session_id: str
    label: str


def _info_label(info: TaskInfo, *, status: bool = True) -> str:
    label = f"{info.task_id} · {info.subagent}: {info.description}"
    return f"{label} · {info.status}" if status else label  # a task_start's status is always "running"


async def _results_of(store: BrowsingStore, record: RawMessageRecord, wanted: set[str]) -> dict[str, ToolMessage]:
    """The results of the calls ``wanted`` after ``record``, by call id (a bounded walk)."""
    found: dict[str, ToolMessage] = {}
    sequence = record.sequence
    for _ in range(MAX_STEPS):
        page = await store.raw_page(record.session_id, after_sequence=sequence, limit=STEP)
        for candidate in page:
            message = candidate.message
            if isinstance(message, ToolMessage) and message.tool_call_id in wanted:
                found.setdefault(message.tool_call_id, message)
        if not page or len(found) == len(wanted):
            return found
        sequence = page[-1].sequence
    return found


async def _started(store: BrowsingStore, record: RawMessageRecord, task_id: str) -> TaskInfo | None:
    """The ``task_start`` result of ``task_id`` before ``record`` (a notice's task)."""
    sequence = record.sequence
    for _ in range(MAX_STEPS):
        page = await store.raw_page_before(record.session_id, before_sequence=sequence, limit=STEP)
        for candidate in reversed(page):
            message = candidate.message
            if isinstance(message, ToolMessage) and message.name == START:
                for info in result_infos(message):
                    if info.task_id == task_id:
                        return info
        if not page:
            return None
        sequence = page[0].sequence
    return None


def _call_child(name: str, arguments: Any, result: ToolMessage | None) -> Child | None:
    if result is None:
        return None
    label = name
    if isinstance(arguments, dict):
        words = [arguments.get(key) for key in ("subagent_type", "description")]
        label = ": ".join(word for word in words if isinstance(word, str) and word) or name
    info = parse_result(result.content) if name == START else None
    if isinstance(info, TaskInfo):
        return Child(info.session_id, _info_label(info, status=False))
    child = named_child_of(result)
    return Child(child, label) if child is not None else None


def named_child_of(message: ToolMessage) -> str | None:
    """:func:`named_child` of a message rather than a record."""
    content = message.content
    if not isinstance(content, str) or len(content) > MAX_RESULT_JSON:
        return None  # a task result is a small JSON object; never parse megabytes on the UI loop
    try:
        value: Any = json.loads(content)
    except ValueError:
        return None
    return str(value["session_id"]) if isinstance(value, dict) and isinstance(value.get("session_id"), str) else None


async def children_of(store: BrowsingStore, record: RawMessageRecord) -> list[Child]:
    """Every delegated session ``record`` names, in order (empty: none).

    A message's ``task``/``task_start`` calls lead to their results, which name the
    children; a task tool's result names its task (``task_list``: all of them); a
    completion notice names its task, whose ``task_start`` result names the child. A
    session with exactly one child falls back to that child.
    """
    message = record.message
    children: list[Child] = []
    if isinstance(message, ToolMessage):
        infos = result_infos(message)
        children = [Child(info.session_id, _info_label(info)) for info in infos]
        named = named_child(record) if not infos else None
        if named is not None:
            children = [Child(named, message.name)]
    elif isinstance(message, AssistantMessage) and message.tool_calls:
        calls = [call for call in message.tool_calls if call.name in DELEGATING] or list(message.tool_calls[:1])
        results = await _results_of(store, record, {call.id for call in calls})
        found = (_call_child(call.name, call.arguments, results.get(call.id)) for call in calls)
        children = [child for child in found if child is not None]
    elif isinstance(message, AgentMessage):
        notice = parse_notice(message.content)
        info = await _started(store, record, notice.task_id) if notice is not None else None
        if notice is not None and info is not None:
            children = [
                Child(info.session_id, f"{info.task_id} · {info.subagent}: {info.description} · {notice.status}")
            ]
    if not children:
        siblings = (await store.list_children(record.session_id, limit=2)).items
        if len(siblings) == 1:
            children = [Child(siblings[0].session_id, "the only delegated session")]
    unique: dict[str, Child] = {}
    for child in children:
        unique.setdefault(child.session_id, child)
    return list(unique.values())
