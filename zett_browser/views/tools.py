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

from ..model import ToolCall, ToolMessage
from .blocks import Block, FormatOptions

CallRenderer = Callable[[ToolCall, FormatOptions], "list[Block] | None"]
ResultRenderer = Callable[[ToolMessage, FormatOptions], "list[Block] | None"]

#: Renderers of a call's arguments, by tool name.
CALLS: dict[str, CallRenderer] = {}
#: Renderers of a result's content (the line after the ``← result`` head), by tool name.
RESULTS: dict[str, ResultRenderer] = {}


def call_blocks(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """What a known tool's arguments read as; None: show them as JSON."""
    renderer = CALLS.get(call.name)
    if renderer is None:
        return None
    try:
        return renderer(call, options)
    except Exception:  # noqa: BLE001 - a renderer's bug must not take the row down; JSON still shows it
        return None


def result_blocks(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """What a known tool's result reads as; None: show its content as stored."""
    renderer = RESULTS.get(message.name)
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
