"""Provides how a known tool's call and result read: the one place per-tool renderers register.

zett-agent's structured tools (``ask_user``, plan mode, ``todo_write``, background tasks, MCP
tools…) store JSON a person should not have to read raw. A renderer for a tool name returns
the blocks to show instead of the generic JSON, or ``None`` to fall back to it (a shape it
does not recognise, e.g. from a newer zett-agent). :mod:`zett_browser.views.formatting`
asks here for every call and result, so the Raw Log, the detail view and the exports agree.

Renderers are pure and toolkit-free, never raise on odd input (the caller keeps the generic
rendering when one does), and put only cleaned text in spans.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..model import ToolCall, ToolMessage
from . import tool_asks, tool_mcp, tool_todos
from .blocks import Block, FormatOptions

CallRenderer = Callable[[ToolCall, FormatOptions], "list[Block] | None"]
ResultRenderer = Callable[[ToolMessage, FormatOptions], "list[Block] | None"]
Renderer = TypeVar("Renderer")

#: Renderers of a call's arguments, by tool name.
CALLS: dict[str, CallRenderer] = {
    "ask_user": tool_asks.ask_user_call,
    "enter_plan_mode": tool_asks.enter_plan_mode_call,
    "exit_plan_mode": tool_asks.exit_plan_mode_call,
    "todo_write": tool_todos.todo_call,
}
#: Renderers of a result's content (the line after the ``← result`` head), by tool name.
RESULTS: dict[str, ResultRenderer] = {
    "ask_user": tool_asks.ask_user_result,
    "enter_plan_mode": tool_asks.enter_plan_mode_result,
    "exit_plan_mode": tool_asks.exit_plan_mode_result,
    "todo_write": tool_todos.todo_result,
}

#: Renderers for names with no exact entry, tried by :func:`matching`: ``(matches(name),
#: renderer)`` pairs, e.g. MCP's namespaced ``server__tool`` (the renderer still returns
#: None for a shape that is not its own).
CALL_PATTERNS: list[tuple[Callable[[str], bool], CallRenderer]] = [
    (lambda name: tool_mcp.split_name(name) is not None, tool_mcp.mcp_call),
]
RESULT_PATTERNS: list[tuple[Callable[[str], bool], ResultRenderer]] = [
    (lambda name: tool_mcp.split_name(name) is not None, tool_mcp.mcp_result),
]


def matching(
    name: str, exact: dict[str, Renderer], patterns: list[tuple[Callable[[str], bool], Renderer]]
) -> Renderer | None:
    """The renderer registered for ``name``: its exact entry, else the first matching pattern's."""
    found = exact.get(name)
    if found is not None:
        return found
    return next((renderer for matches, renderer in patterns if matches(name)), None)


def call_blocks(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """What a known tool's arguments read as; None: show them as JSON."""
    renderer = matching(call.name, CALLS, CALL_PATTERNS)
    if renderer is None:
        return None
    try:
        return renderer(call, options)
    except Exception:  # noqa: BLE001 - a renderer's bug must not take the row down; JSON still shows it
        return None


def result_blocks(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """What a known tool's result reads as; None: show its content as stored."""
    renderer = matching(message.name, RESULTS, RESULT_PATTERNS)
    if renderer is None:
        return None
    try:
        return renderer(message, options)
    except Exception:  # noqa: BLE001 - as above
        return None


# Registrations (one line per family of tools; imported last, the renderers import this module's types).
from .task_blocks import TASK_CALLS, TASK_RESULTS  # noqa: E402 - background tasks (AsyncSubAgentExtension)

CALLS.update(TASK_CALLS)
RESULTS.update(TASK_RESULTS)
