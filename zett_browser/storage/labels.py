"""Provides the labels of untitled delegated sessions, read in batches for a page of nodes.

zett-agent gives a subagent session no title and no agent name, and its UUIDv7 id changes
only after the first eight characters within a minute, so six children of one parent look
the same in the tree. What tells them apart is what the parent asked: the parent's
assistant message calls the ``task`` tool with ``description``, ``prompt`` and
``subagent_type`` arguments, and the tool result (a JSON string) names the child's
``session_id``. When that link is missing (another runtime, a damaged row), the child's
first user message (the prompt it was given) is the next best thing.

Every lookup is batched for a page of nodes (a few queries per page, never one per node)
and read-only. Labels are decoration: a row that cannot be decoded gives no label, never
an error, and the tree falls back to the short id.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import LargeBinary, and_, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import AskedLabel, SessionNode
from ..text import one_line
from . import schema
from .reader import Reader

T = TypeVar("T")

raw_t = schema.raw_messages

#: Role codes of the ``raw_messages.role`` column (zett-agent's message kinds).
_USER, _ASSISTANT, _TOOL = 2, 3, 4
#: A child's first user message sits after its system prompt rows (two per request in
#: zett-agent 0.2.1); rows past this sequence are not searched.
FIRST_USER_WITHIN = 8
#: The assistant message holding a ``task`` call precedes its result by at most this many
#: rows (the other results of the same batch of parallel calls).
CALL_WINDOW = 64
#: Rows larger than this are not decoded for a label (a label must never freeze the UI).
MAX_JSON_CHARS = 1_000_000
#: Longest label returned (the tree cuts again to its width).
LABEL_CHARS = 120
#: Characters of a first user message read from the store.
PREVIEW_CHARS = 300


async def child_labels(reader: Reader, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
    """Labels for the untitled sessions among ``nodes`` (children of ``parent_id``).

    The label is ``subagent type: description`` from the parent's ``task`` call; the
    child's first user message stands in for a missing description. Sessions with a title, or with nothing found,
    are left out of the result. Every label is cleaned and one line.

    Cost: three queries whatever the page size. The first user messages and the task
    calls are index range look-ups, O(page). The task results are found by walking the
    parent's rows on its session index, filtered in SQL without decoding (6.5 ms for a
    parent of 20,000 rows of 4 KB each on SQLite); only matching rows are decoded.
    """
    wanted = [node.session_id for node in nodes if not node.title]
    if not wanted:
        return {}

    asked: dict[str, tuple[str, str, int | None, int | None]] = {}
    if parent_id is not None:
        asked = await _best_effort(reader, lambda connection: _task_requests(connection, parent_id, wanted))
    # A call found gives the description; without one, the prompt tells more than a type.
    missing = [session_id for session_id in wanted if not asked.get(session_id, ("", "", None, None))[0]]
    prompts: dict[str, str] = {}
    if missing:
        prompts = await _best_effort(reader, lambda connection: _first_user_messages(connection, missing))
    labels: dict[str, str] = {}
    for session_id in wanted:
        description, subagent_type, call, number = asked.get(session_id, ("", "", None, None))
        text = description or prompts.get(session_id, "")
        if text and subagent_type:
            labels[session_id] = AskedLabel(one_line(f"{subagent_type}: {text}", LABEL_CHARS), call, number)
        elif text or subagent_type:
            labels[session_id] = AskedLabel(one_line(text or subagent_type, LABEL_CHARS), call, number)
    return labels


async def _best_effort(reader: Reader, work: Callable[[AsyncConnection], Awaitable[dict[str, T]]]) -> dict[str, T]:
    """``work``'s result, or nothing when it fails: a label is decoration, the id still shows."""
    try:
        return await reader.run(work)
    except Exception:  # noqa: BLE001
        return {}


async def _first_user_messages(connection: AsyncConnection, session_ids: list[str]) -> dict[str, str]:
    """Each session's first user message (within its first rows), one line, cut."""
    preview: Any = func.substr(raw_t.c.content, 1, PREVIEW_CHARS)
    if connection.dialect.name == "sqlite":
        # SQLite returns a TEXT value that is not UTF-8 as stored, and the driver fails on
        # the whole result: read bytes and decode them here, so one bad row spoils nothing.
        preview = cast(preview, LargeBinary)
    statement = (
        select(raw_t.c.session_id, preview)
        .where(
            raw_t.c.session_id.in_(session_ids),
            raw_t.c.sequence <= FIRST_USER_WITHIN,
            raw_t.c.role == _USER,
        )
        .order_by(raw_t.c.session_id, raw_t.c.sequence)
    )
    found: dict[str, str] = {}
    for session_id, value in (await connection.execute(statement)).all():
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if session_id not in found and isinstance(text, str) and text.strip():
            found[session_id] = one_line(text.strip(), LABEL_CHARS)
    return found


async def _task_requests(
    connection: AsyncConnection, parent_id: str, session_ids: list[str]
) -> dict[str, tuple[str, str, int | None, int | None]]:
    """(description, subagent type, the call's sequence, its place among the message's calls)
    of the parent's ``task`` calls that delegated to ``session_ids``."""
    results = (
        select(raw_t.c.sequence, raw_t.c.message_json)
        .where(
            raw_t.c.session_id == parent_id,
            raw_t.c.role == _TOOL,
            raw_t.c.tool_name == "task",
            or_(*(raw_t.c.content.contains(session_id, autoescape=True) for session_id in session_ids)),
            func.length(raw_t.c.message_json) <= MAX_JSON_CHARS,
        )
        .order_by(raw_t.c.sequence)
    )
    wanted = set(session_ids)
    #: tool_call_id -> (child session id, subagent type named by the result, result sequence)
    links: dict[str, tuple[str, str | None, int]] = {}
    for sequence, message_json in (await connection.execute(results)).all():
        link = result_link(message_json)
        if link is not None and link[1] in wanted:
            links[link[0]] = (link[1], link[2], int(sequence))
    if not links:
        return {}
    # One range per result, each with the session in it: SQLite then searches the
    # (session_id, sequence) index once per range (MULTI-INDEX OR) instead of every row.
    windows = [
        and_(
            raw_t.c.session_id == parent_id,
            raw_t.c.role == _ASSISTANT,
            raw_t.c.sequence.between(sequence - CALL_WINDOW, sequence - 1),
        )
        for _child, _type, sequence in links.values()
    ]
    # No ORDER BY: it would make SQLite walk the whole session in sequence order instead.
    calls = select(raw_t.c.sequence, raw_t.c.message_json).where(
        or_(*windows), func.length(raw_t.c.message_json) <= MAX_JSON_CHARS
    )
    arguments: dict[str, tuple[dict[str, Any], int, int]] = {}
    for call_sequence, message_json in (await connection.execute(calls)).all():
        for call_id, args, number in _task_calls(message_json):
            if call_id in links:
                arguments[call_id] = (args, int(call_sequence), number)
    found: dict[str, tuple[str, str, int | None, int | None]] = {}
    for call_id, (child, result_type, _) in links.items():
        if call_id in arguments:
            args, call_sequence, number = arguments[call_id]
            found[child] = (*_request(args, result_type), call_sequence, number)
        else:
            found[child] = (*_request({}, result_type), None, None)
    return found


def _data(message_json: object) -> dict[str, Any] | None:
    """The ``data`` object of a stored message envelope, or None when unreadable."""
    if not isinstance(message_json, str):
        return None
    try:
        value = json.loads(message_json)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list) and value:
        value = value[0]
    data = value.get("data") if isinstance(value, dict) else None
    return data if isinstance(data, dict) else None


def result_link(message_json: object) -> tuple[str, str, str | None] | None:
    """(tool_call_id, child session id, subagent type) of a ``task`` result, if it names one."""
    data = _data(message_json)
    if data is None or not isinstance(data.get("tool_call_id"), str) or not isinstance(data.get("content"), str):
        return None
    try:
        result = json.loads(data["content"])
    except (ValueError, RecursionError):
        return None
    if not isinstance(result, dict) or not isinstance(result.get("session_id"), str):
        return None
    subagent_type = result.get("subagent_type")
    return data["tool_call_id"], result["session_id"], subagent_type if isinstance(subagent_type, str) else None


def _task_calls(message_json: object) -> list[tuple[str, dict[str, Any], int]]:
    """(call id, arguments, place among the message's tool calls from 1) of each ``task``
    call in an assistant message."""
    data = _data(message_json)
    calls = data.get("tool_calls") if data is not None else None
    if not isinstance(calls, list):
        return []
    found = []
    for number, call in enumerate(calls, 1):
        if (
            isinstance(call, dict)
            and call.get("name") == "task"
            and isinstance(call.get("id"), str)
            and isinstance(call.get("arguments"), dict)
        ):
            found.append((call["id"], call["arguments"], number))
    return found


def _request(arguments: dict[str, Any], result_type: str | None) -> tuple[str, str]:
    """The call's description and subagent type (the result's type when the call lacks one)."""
    description = arguments.get("description")
    subagent_type = arguments.get("subagent_type")
    if not (isinstance(subagent_type, str) and subagent_type.strip()):
        subagent_type = result_type
    return (
        description.strip() if isinstance(description, str) else "",
        subagent_type.strip() if isinstance(subagent_type, str) else "",
    )


__all__ = [
    "CALL_WINDOW",
    "FIRST_USER_WITHIN",
    "LABEL_CHARS",
    "MAX_JSON_CHARS",
    "PREVIEW_CHARS",
    "child_labels",
    "result_link",
]
