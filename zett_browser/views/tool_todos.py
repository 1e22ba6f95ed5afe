"""Provides how ``todo_write`` reads: a checklist with its progress.

zett-agent 0.2.1 (``extensions/todo.py``): the call is ``{"todos": [{"content", "status"}…]}``
with status ``pending`` / ``in_progress`` / ``completed``; a successful result is
``TodoWriteResult`` JSON ``{"todos", "in_progress_index", "in_progress", "completed"}``; a
rejected update is a failed result whose text says why (the attempted list is the call's).

Both read as ``☐ / ◐ / ☑ content`` under ``todo list: 2 of 5 done``. Any other shape
returns ``None`` (the JSON shows).
"""

from __future__ import annotations

from typing import Any

from ..model import ToolCall, ToolMessage
from ..model.outcomes import Outcome, tool_outcome
from .blocks import Block, FormatOptions, block, bounded
from .tool_common import decoded, item, listed

MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
_RESULT_KEYS = {"todos", "in_progress_index", "in_progress", "completed"}


def _items(todos: Any) -> list[tuple[str, str]] | None:
    """``(status, content)`` pairs of a todo list, or None when it is not one."""
    if not isinstance(todos, list):
        return None
    items = []
    for todo in todos:
        if not isinstance(todo, dict) or set(todo) != {"content", "status"}:
            return None
        content, status = todo["content"], todo["status"]
        if not isinstance(content, str) or status not in MARKS:
            return None
        items.append((status, content))
    return items


def checklist(items: list[tuple[str, str]], options: FormatOptions, role: str, title: str) -> list[Block]:
    """``title: N of M done`` and one line per item."""
    done = sum(status == "completed" for status, _ in items)
    progress = "all done" if items and done == len(items) else f"{done} of {len(items)} done"
    lines = [block(f"{MARKS[status]} {item(content, options)}", role) for status, content in items]
    return [block(f"{title}: {progress}", role), *listed(lines, options, role)]


def todo_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """The list the model sent, as a checklist."""
    if set(call.arguments) != {"todos"}:
        return None
    items = _items(call.arguments["todos"])
    if items is None:
        return None
    return checklist(items, options, "tool.arguments", "todo list")


def todo_result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """The accepted list as a checklist; a rejected update as its reason."""
    if not message.success:
        if tool_outcome(False, message.content) is not Outcome.FAILED or not isinstance(message.content, str):
            return None  # skipped, cancelled...: the head says so, the text shows as stored
        return bounded("update rejected: " + message.content, options)
    value = decoded(message.content)
    if not isinstance(value, dict) or set(value) != _RESULT_KEYS:
        return None
    items = _items(value["todos"])
    if items is None:
        return None
    return checklist(items, options, "body", "todo list")
