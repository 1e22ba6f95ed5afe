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

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import LargeBinary, and_, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import SessionNode
from . import schema
from .asked import (
    ASSISTANT,
    CALL_WINDOW,
    FIRST_USER_WITHIN,
    LABEL_CHARS,
    MAX_JSON_CHARS,
    PREVIEW_CHARS,
    TOOL,
    USER,
    add_arguments,
    add_link,
    asked_labels,
    first_prompts,
    requests,
    result_link,
)
from .reader import Reader

if TYPE_CHECKING:
    from .asked import Arguments, Links

T = TypeVar("T")

raw_t = schema.raw_messages


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
    return asked_labels(wanted, asked, prompts)


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
            raw_t.c.role == USER,
        )
        .order_by(raw_t.c.session_id, raw_t.c.sequence)
    )
    return first_prompts((await connection.execute(statement)).all())


async def _task_requests(
    connection: AsyncConnection, parent_id: str, session_ids: list[str]
) -> dict[str, tuple[str, str, int | None, int | None]]:
    """(description, subagent type, the call's sequence, its place among the message's calls)
    of the parent's ``task`` calls that delegated to ``session_ids``."""
    results = (
        select(raw_t.c.sequence, raw_t.c.message_json)
        .where(
            raw_t.c.session_id == parent_id,
            raw_t.c.role == TOOL,
            raw_t.c.tool_name == "task",
            or_(*(raw_t.c.content.contains(session_id, autoescape=True) for session_id in session_ids)),
            func.length(raw_t.c.message_json) <= MAX_JSON_CHARS,
        )
        .order_by(raw_t.c.sequence)
    )
    wanted = set(session_ids)
    links: Links = {}
    for sequence, message_json in (await connection.execute(results)).all():
        add_link(links, wanted, sequence, message_json)
    if not links:
        return {}
    # One range per result, each with the session in it: SQLite then searches the
    # (session_id, sequence) index once per range (MULTI-INDEX OR) instead of every row.
    windows = [
        and_(
            raw_t.c.session_id == parent_id,
            raw_t.c.role == ASSISTANT,
            raw_t.c.sequence.between(sequence - CALL_WINDOW, sequence - 1),
        )
        for _child, _type, sequence in links.values()
    ]
    # No ORDER BY: it would make SQLite walk the whole session in sequence order instead.
    calls = select(raw_t.c.sequence, raw_t.c.message_json).where(
        or_(*windows), func.length(raw_t.c.message_json) <= MAX_JSON_CHARS
    )
    arguments: Arguments = {}
    for call_sequence, message_json in (await connection.execute(calls)).all():
        add_arguments(arguments, links, call_sequence, message_json)
    return requests(links, arguments)


__all__ = [
    "CALL_WINDOW",
    "FIRST_USER_WITHIN",
    "LABEL_CHARS",
    "MAX_JSON_CHARS",
    "PREVIEW_CHARS",
    "child_labels",
    "result_link",
]
