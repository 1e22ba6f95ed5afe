"""Provides what a step was offered besides its messages: the system prompt and the tools.

``load()`` gives back only messages, but zett-agent 0.2.1 stores the rest of a request too:
the system rows it appended at the start of each request (``include_in_messages`` false:
the system prompt, the tool guidelines, MCP servers, filesystem environment) and, with the
``ModelRequestTraceExtension``, on each assistant row ``attributes.model_request_trace``:
the tools (name, description, JSON schema) and server tools the model was offered for that
step. The time-travel view shows and sizes them; the messages part stays what ``load()`` gives.

Toolkit-free and storage-free: the rows come from :meth:`BrowsingStore.point_rows`. A trace of an unexpected
shape is reported as not recorded, never raised.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..model import AssistantMessage, RawMessageRecord, SystemMessage
from ..model.record import record

#: Characters of a tool's JSON counted at most (a schema of megabytes is not re-encoded whole).
MAX_TOOL_CHARS = 200_000


@record(frozen=True)
class OfferedTool:
    """One tool as offered: its name, description and size as JSON (what the request carried)."""

    name: str
    description: str
    chars: int
    server: bool = False


@record(frozen=True)
class Offered:
    """The step's system prompt rows and offered tools.

    Attributes:
        system: (sequence, text) of the request's system rows, in order.
        tools: The offered tools and server tools; empty with ``traced`` False when no trace.
        traced: Whether the step's assistant row carried a ``model_request_trace``.
        trace_sequence: The row the trace was read from.
        from_last_request: The next step's context: shown as the last request had them.
    """

    system: tuple[tuple[int, str], ...]
    tools: tuple[OfferedTool, ...]
    traced: bool
    trace_sequence: int | None = None
    from_last_request: bool = False

    @property
    def system_chars(self) -> int:
        """Characters of the system rows."""
        return sum(len(text) for _, text in self.system)

    @property
    def tools_chars(self) -> int:
        """Characters of the tools as JSON."""
        return sum(tool.chars for tool in self.tools)

    def names(self, limit: int = 8) -> str:
        """``shout, migrate_database, +2 server tools``: the tools by name, cut to ``limit``."""
        plain = [tool.name for tool in self.tools if not tool.server]
        servers = [tool.name for tool in self.tools if tool.server]
        words = ", ".join(plain[:limit]) + (f", +{len(plain) - limit}" if len(plain) > limit else "")
        if servers:
            words += ("; " if words else "") + "server: " + ", ".join(servers[:limit])
        return words


def trace_tools(message: object) -> tuple[tuple[OfferedTool, ...], bool]:
    """The tools of an assistant message's ``model_request_trace``, and whether it had one."""
    if not isinstance(message, AssistantMessage):
        return (), False
    trace = message.attributes.get("model_request_trace") if isinstance(message.attributes, dict) else None
    if not isinstance(trace, dict):
        return (), False
    found: list[OfferedTool] = []
    for key, server in (("tools", False), ("server_tools", True)):
        items = trace.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict):
                continue
            found.append(_tool(item, server))
    return tuple(found), True


def _tool(item: dict[str, Any], server: bool) -> OfferedTool:
    if server:
        configuration = item.get("configuration")
        name = configuration.get("name") if isinstance(configuration, dict) else None
        name = name if isinstance(name, str) else item.get("type")
    else:
        name = item.get("name")
    description = item.get("description")
    try:
        chars = len(json.dumps(item, ensure_ascii=False, default=repr)[:MAX_TOOL_CHARS])
    except (ValueError, RecursionError):
        chars = 0
    return OfferedTool(
        name=name if isinstance(name, str) else "?",
        description=description if isinstance(description, str) else "",
        chars=chars,
        server=server,
    )


def offered_from(
    step: RawMessageRecord | None, system_rows: Sequence[RawMessageRecord] | None, *, next_step: bool
) -> Offered | None:
    """What ``step`` (row N; with ``next_step``, the last row) was offered, given the system
    rows of its request written before it (:meth:`BrowsingStore.point_rows` reads them);
    None without a row or when those rows could not be read. The tools come from the step's
    trace (an assistant row).
    """
    if step is None or system_rows is None:
        return None
    system = tuple((row.sequence, row.message.content) for row in system_rows if isinstance(row.message, SystemMessage))
    tools, traced = trace_tools(step.message)
    return Offered(system, tools, traced, step.sequence if traced else None, next_step)


__all__ = ["MAX_TOOL_CHARS", "Offered", "OfferedTool", "offered_from", "trace_tools"]
