"""Provides the lookups behind ``c`` (call ↔ result) and ``o`` (open a delegated session).

Plain async functions over a :class:`BrowsingStore`: they read the Raw Log a page at a
time outward from a record (a call and its result sit close together) and return a
sequence or a session id; the screen runs them and reports failures.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import AssistantMessage, RawMessageRecord, ToolMessage
from ..model.store import BrowsingStore

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
    if not (isinstance(message, ToolMessage) and isinstance(message.content, str)):
        return None
    if len(message.content) > MAX_RESULT_JSON:
        return None  # a task result is a small JSON object; never parse megabytes on the UI loop
    try:
        value: Any = json.loads(message.content)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("session_id"), str):
        return str(value["session_id"])
    return None


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
