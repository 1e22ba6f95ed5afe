"""Provides what the delegation cards need beyond the shown page: later task events, where children are.

A background task's latest status and whether a notice's report was read lie on later
pages: :func:`later_task_records` reads forward from the page (a bounded walk, keeping
only the task rows). A child may be missing from the open store (zett-agent's default
profiles write children to ``~/.zett-agent/sessions.sqlite3``): :func:`placed` checks
each child with the store and, for a missing one, asks where it is (read-only, on a
thread). Plain async functions over a :class:`BrowsingStore`; the screen runs them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..model import AgentMessage, AssistantMessage, RawMessageRecord, ToolMessage
from ..model.store import BrowsingStore
from ..views.delegation import Delegation
from ..views.tasks import START, TASK_TOOLS, parse_notice

#: Records read per step, and steps at most, when reading later task events.
STEP = 50
MAX_STEPS = 10
#: Children checked per page (each one ``get_node``; a missing one, one file read).
MAX_CHILD_CHECKS = 12


def is_task_row(record: RawMessageRecord) -> bool:
    """A row of the background-task lifecycle: a task_* call or result, or a completion notice."""
    message = record.message
    if isinstance(message, ToolMessage):
        return message.name in TASK_TOOLS
    if isinstance(message, AgentMessage):
        return parse_notice(message.content) is not None
    if isinstance(message, AssistantMessage):
        return any(call.name == START for call in message.tool_calls)
    return False


async def later_task_records(
    store: BrowsingStore, session_id: str, after_sequence: int
) -> tuple[list[RawMessageRecord], bool]:
    """The task rows after ``after_sequence``, and whether the walk reached the session's end."""
    found: list[RawMessageRecord] = []
    sequence = after_sequence
    for _ in range(MAX_STEPS):
        page = await store.raw_page(session_id, after_sequence=sequence, limit=STEP)
        found.extend(record for record in page if is_task_row(record))
        if len(page) < STEP:
            return found, True
        sequence = page[-1].sequence
    return found, False


async def placed(
    store: BrowsingStore, calls: Sequence[Delegation], elsewhere: Callable[[str], str | None] | None
) -> list[Delegation]:
    """``calls`` with whether each child is in this store, and where a missing one is."""
    where: dict[str, tuple[bool, str | None]] = {}
    for child in [item.child_id for item in calls if item.child_id][:MAX_CHILD_CHECKS]:
        if child in where:
            continue
        present = await store.get_node(child) is not None
        other = None
        if not present and elsewhere is not None:
            other = await asyncio.to_thread(elsewhere, child)
        where[child] = (present, other)
    return [
        replace(item, in_store=where[item.child_id][0], elsewhere=where[item.child_id][1])
        if item.child_id in where
        else item
        for item in calls
    ]
