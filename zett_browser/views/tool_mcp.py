"""Provides how MCP tools read: ``MCP server › tool`` and their results decoded to text.

zett-agent 0.2.1's ``McpExtension`` (``extensions/mcp.py``) names remote tools
``<server>__<tool>`` (a server name cannot contain ``__``) and returns, serialized to a JSON
string: the server's structured output when it has one (MCP servers wrap a plain return
value as ``{"result": …}``), else the content parts ``[{"type": "text", "text": …},
{"type": "image", "data": base64, "mimeType": …}, …]``. A failed call is plain text.

The renderer goes by name only, so it takes a ``server__tool`` result only when it has one
of these shapes (or failed, as text); anything else returns ``None`` and shows as stored.
"""

from __future__ import annotations

from typing import Any

from ..model import ToolCall, ToolMessage
from ..model.outcomes import Outcome, tool_outcome
from .blocks import Block, FormatOptions, block, bounded, human_size
from .tool_common import compact_json, decoded, item, pretty_json, text_of


def split_name(name: str) -> tuple[str, str] | None:
    """``("inventory", "lookup")`` for ``inventory__lookup``; None for a name without both parts."""
    server, separator, tool = name.partition("__")
    if not separator or not server or not tool:
        return None
    return server, tool


def _label(name: str, options: FormatOptions, role: str) -> Block | None:
    parts = split_name(name)
    if parts is None:
        return None
    return block(f"MCP {item(parts[0], options)} › {item(parts[1], options)}", role)


def base64_size(data: str) -> int:
    """Bytes a base64 text decodes to, from its length (no decoding)."""
    padding = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return max(len(data) // 4 * 3 - padding, 0)


def mcp_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """``MCP server › tool`` above the arguments as JSON."""
    label = _label(call.name, options, "tool.arguments")
    if label is None:
        return None
    return [label, *bounded(pretty_json(call.arguments), options, "tool.arguments")]


def _binary(kind: str, part: dict[str, Any], options: FormatOptions) -> Block | None:
    data, media = text_of(part.get("data")), text_of(part.get("mimeType"))
    if data is None or media is None:
        return None
    return block(f"[{kind}: {item(media, options)}, {human_size(base64_size(data))}]", "image")


def _resource(resource: Any, options: FormatOptions) -> list[Block] | None:
    """An embedded resource: its text, or a placeholder for a blob."""
    if not isinstance(resource, dict) or text_of(resource.get("uri")) is None:
        return None
    uri = item(resource["uri"], options)
    text, blob = text_of(resource.get("text")), text_of(resource.get("blob"))
    if text is not None:
        return [block(f"resource {uri}:", "body"), *bounded(text, options)]
    if blob is not None:
        media = text_of(resource.get("mimeType")) or "binary"
        return [block(f"[resource: {uri}, {item(media, options)}, {human_size(base64_size(blob))}]", "image")]
    return None


def _part(part: dict[str, Any], options: FormatOptions) -> list[Block] | None:
    kind = part["type"]
    if kind == "text" and isinstance(part.get("text"), str):
        return bounded(part["text"], options)
    if kind in ("image", "audio"):
        found = _binary(kind, part, options)
        return None if found is None else [found]
    if kind == "resource_link" and isinstance(part.get("uri"), str):
        name = text_of(part.get("title")) or text_of(part.get("name")) or ""
        what = f"{item(name, options)} — " if name else ""
        return [block(f"[link: {what}{item(part['uri'], options)}]", "body")]
    if kind == "resource":
        return _resource(part.get("resource"), options)
    return None


def _parts(value: list[Any], options: FormatOptions) -> list[Block] | None:
    if not all(isinstance(part, dict) and isinstance(part.get("type"), str) for part in value):
        return None
    blocks: list[Block] = []
    for part in value:
        found = _part(part, options)
        # A part this version does not know still shows, compactly, never dropped.
        blocks.extend(found if found is not None else bounded(compact_json(part), options))
    return blocks


def mcp_result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """Structured output or content parts as text; a failure as its text."""
    label = _label(message.name, options, "body")
    if label is None or not isinstance(message.content, str):
        return None
    if not message.success:
        if tool_outcome(False, message.content) is not Outcome.FAILED:
            return None  # skipped, cancelled, interrupted: not the server's answer
        return [label, *bounded(message.content, options)]
    value = decoded(message.content)
    if isinstance(value, dict):
        inner = value["result"] if set(value) == {"result"} else value
        text = text_of(inner)
        return [label, *bounded(text if text is not None else pretty_json(inner), options)]
    if isinstance(value, list):
        blocks = _parts(value, options)
        if blocks is None:
            return None
        return [label, *(blocks or [block("(no content)", "body")])]
    return None
