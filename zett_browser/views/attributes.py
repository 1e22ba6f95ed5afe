"""Provides what a message's ``attributes`` say, as lines of a record: nothing is dropped.

zett-agent's extensions put their facts about a request into ``attributes``:
``model_request_trace`` (the tools and server tools offered with a model step, ~1.3 KB of
JSON schema a row), ``goal_extension`` (goal mode: what the user typed, the iteration),
``resume`` (the runtime's own resume notice), ``tool_guidelines`` and
``tool_search_catalog`` (which system row is which). Each known key reads as one short
line; the schemas only with ``show_all`` (the detail view), bounded. Any other key, or a
known key in a shape this version does not recognise, shows as one compact, bounded
``attributes {...}`` line.

Pure and toolkit-free; every string from the store goes through :func:`clean`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import AnyMessage, AssistantMessage
from ..text import clean
from .blocks import Block, FormatOptions, Span, block

#: Characters of the compact JSON line of unknown attributes (whole with ``show_all``, up to LONG).
COMPACT = 240
LONG = 4_000
#: Tools listed one per line with ``show_all``, and characters of each description.
LISTED_TOOLS = 200
DESCRIPTION = 160
#: Tool names a change line ("+todo_write −bash") names before "…".
CHANGES = 8
#: Keys shown by their own line or badge, not in the generic line.
KNOWN = frozenset({"model_request_trace", "goal_extension", "resume", "tool_guidelines", "tool_search_catalog"})


def one_line(value: str, limit: int) -> str:
    """``value`` cleaned, on one line (whitespace runs become one space), cut at ``limit``."""
    text = clean(" ".join(value[: limit * 4].split()))  # cleaned first: a control becomes up to 6 characters
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact_json(value: Any, limit: int) -> str:
    """``value`` as compact JSON, cleaned and cut at ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr, separators=(",", ":"))
    except (ValueError, RecursionError):  # a cycle or a tower of nesting: say so, never raise
        text = "<unprintable>"
    text = clean(text[: limit * 2])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def offered_tools(message: AnyMessage) -> tuple[str, ...] | None:
    """The tool names of an assistant row's ``model_request_trace``; None when it has none."""
    trace = _trace(message)
    return None if trace is None else trace[0]


def _trace(message: AnyMessage) -> tuple[tuple[str, ...], tuple[str, ...], list[Mapping[str, Any]]] | None:
    """(tool names, server tool names, tool entries) of a recognised trace, else None."""
    if not isinstance(message, AssistantMessage):
        return None
    trace = message.attributes.get("model_request_trace")
    if not isinstance(trace, Mapping):
        return None
    tools, servers = trace.get("tools", []), trace.get("server_tools", [])
    if not isinstance(tools, list) or not isinstance(servers, list):
        return None
    entries = [tool for tool in tools if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)]
    if len(entries) != len(tools) or not all(isinstance(server, Mapping) for server in servers):
        return None
    names = tuple(str(tool["name"]) for tool in entries)
    return names, tuple(_server_name(server) for server in servers), entries


def _server_name(server: Mapping[str, Any]) -> str:
    configuration = server.get("configuration")
    name = configuration.get("name") if isinstance(configuration, Mapping) else None
    return str(name if isinstance(name, str) else server.get("type", "?"))


def _changes(names: Sequence[str], previous: Sequence[str]) -> str:
    added = [f"+{name}" for name in names if name not in previous]
    removed = [f"−{name}" for name in previous if name not in names]
    changed = added + removed
    if not changed:
        return "unchanged"
    more = f" …{len(changed) - CHANGES} more" if len(changed) > CHANGES else ""
    return " ".join(changed[:CHANGES]) + more


def trace_blocks(message: AssistantMessage, options: FormatOptions, previous: Sequence[str] | None) -> list[Block]:
    """``offered 7 tools + 2 server tools (web_search, web_fetch)`` and what changed since
    the previous step; the tools with descriptions with ``show_all``; a call of a tool that
    was not offered."""
    trace = _trace(message)
    if trace is None:
        return []
    names, servers, entries = trace
    deferred = sum(1 for tool in entries if tool.get("deferred") is True)
    count = {0: "no tools", 1: "1 tool"}.get(len(names), f"{len(names)} tools")
    line = f"offered {count}"
    if deferred:
        line += f" ({deferred} deferred)"
    if servers:
        line += f" + {len(servers)} server tool{'' if len(servers) == 1 else 's'} ({', '.join(servers)})"
    spans = [Span(one_line(line, 400), "attribute")]
    if previous is not None:
        spans.append(Span(" · " + one_line(_changes(names, previous), 400), "attribute.change"))
    blocks = [Block(tuple(spans))]
    if options.show_all:
        for tool in entries[:LISTED_TOOLS]:
            description = tool.get("description")
            about = f" — {description}" if isinstance(description, str) and description else ""
            mark = " (deferred)" if tool.get("deferred") is True else ""
            blocks.append(block("  " + one_line(f"{tool['name']}{mark}{about}", DESCRIPTION), "attribute"))
        if len(entries) > LISTED_TOOLS:
            blocks.append(block(f"  … {len(entries) - LISTED_TOOLS} more tools", "attribute"))
        blocks.extend(
            block("  " + one_line(f"⌁ {server} (server tool)", DESCRIPTION), "attribute") for server in servers
        )
    offered = set(names)
    for call in message.tool_calls:
        if call.name not in offered:
            blocks.append(block(one_line(f"⚠ called {call.name}, which was not offered", 300), "problem"))
    return blocks


def badges(attributes: Mapping[str, Any]) -> list[Span]:
    """Header badges: ``tool guidelines`` for the runtime's tool-guidelines system row."""
    if isinstance(attributes, Mapping) and attributes.get("tool_guidelines") is True:
        return [Span("  [tool guidelines]", "attribute.badge")]
    return []


def _goal(value: Any, options: FormatOptions) -> list[Block] | None:
    if not isinstance(value, Mapping):
        return None
    head = "goal mode"
    iteration, most = value.get("iteration"), value.get("max_iterations")
    if isinstance(iteration, int):
        head += f" · iteration {iteration}" + (f"/{most}" if isinstance(most, int) else "")
    blocks = [block(head, "attribute.badge")]
    raw = value.get("raw_content")
    if isinstance(raw, str) and iteration is None:  # the user row the runtime rewrote
        limit = LONG if options.show_all else COMPACT
        blocks.append(Block((Span("typed: ", "attribute"), Span(one_line(raw, limit), "attribute.typed"))))
    return blocks


def _resume(value: Any) -> list[Block] | None:
    if not isinstance(value, str):
        return None
    return [block(one_line(f"↻ runtime resume: {value}", 200), "attribute.badge")]


def attribute_blocks(message: AnyMessage, options: FormatOptions) -> list[Block]:
    """Lines for ``goal_extension``, ``resume``, ``tool_search_catalog`` and unknown keys.

    (``model_request_trace`` is :func:`trace_blocks`, ``tool_guidelines`` a badge.)
    """
    attributes = message.attributes
    if not isinstance(attributes, Mapping) or not attributes:
        return []
    blocks: list[Block] = []
    rest: dict[str, Any] = {}
    for key, value in attributes.items():
        shown: list[Block] | None = None
        if key == "goal_extension":
            shown = _goal(value, options)
        elif key == "resume":
            shown = _resume(value)
        elif key == "tool_search_catalog" and value is True:
            shown = [block("searchable tool catalog (tool_search)", "attribute.badge")]
        elif key == "tool_guidelines" and value is True:
            shown = []
        elif key == "model_request_trace" and _trace(message) is not None:
            shown = []
        if shown is None:
            rest[str(key)] = value
        else:
            blocks.extend(shown)
    if rest:
        limit = LONG if options.show_all else COMPACT
        blocks.append(block("attributes " + compact_json(rest, limit), "attribute"))
    return blocks
