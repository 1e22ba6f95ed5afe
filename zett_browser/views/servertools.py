"""Provides what a provider's server tools did in a model step, from ``replay_blocks``.

Anthropic's server tools (``web_search``, ``web_fetch``…) run at the provider; zett-agent
keeps their blocks only in ``AssistantMessage.replay_blocks``: ``server_tool_use`` (the
call and its input) and ``*_tool_result`` (search results with titles, URLs and page ages,
a fetched page, or an error code). They read here as
``⌁ web_search(query: sqlite wal mode)`` / ``→ 2 results`` / ``title — url (2 days ago)``.
Thinking and text blocks are shown elsewhere (reasoning, content) and are not repeated;
any other block type is one compact line. URLs are plain text, never links; every value
is cleaned and bounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .attributes import compact_json, one_line
from .blocks import Block, FormatOptions, Span, block

#: Blocks shown elsewhere (reasoning and answer text) or holding nothing to read (signatures).
SHOWN_ELSEWHERE = frozenset({"thinking", "text"})
#: Result lines per search (all of them with ``show_all``), and characters per line.
RESULTS = 10
LINE = 200


def _value(value: Any) -> str:
    return value if isinstance(value, str) else compact_json(value, LINE)


def _call(item: Mapping[str, Any]) -> Block:
    arguments = item.get("input")
    if isinstance(arguments, Mapping):
        inner = ", ".join(f"{key}: {_value(value)}" for key, value in arguments.items())
    else:
        inner = _value(arguments)
    name = item.get("name")
    return Block(
        (
            Span("⌁ ", "server.call"),
            Span(one_line(str(name) if isinstance(name, str) else "server tool", 80), "server.name"),
            Span(one_line(f"({inner})", LINE), "server.call"),
        )
    )


def _error(content: Mapping[str, Any]) -> Block:
    code = content.get("error_code")
    what = _value(code) if code is not None else compact_json(content, LINE)
    return block(one_line(f"→ error: {what}", LINE), "problem")


def _search(content: Any, options: FormatOptions) -> list[Block]:
    if isinstance(content, Mapping):
        return [_error(content)]
    if not isinstance(content, Sequence) or isinstance(content, str):
        return [block(one_line("→ " + compact_json(content, LINE), LINE), "server.result")]
    results = [item for item in content if isinstance(item, Mapping)]
    blocks = [block(f"→ {len(results)} result{'' if len(results) == 1 else 's'}", "server.result")]
    shown = results if options.show_all else results[:RESULTS]
    for item in shown:
        title, url, age = item.get("title"), item.get("url"), item.get("page_age")
        # Each part bounded on its own: a long title never hides the URL.
        line = one_line(_value(title) if title is not None else "(untitled)", 100)
        line += " — " + one_line(_value(url) if url is not None else "?", 160)
        if age:
            line += f" ({one_line(_value(age), 40)})"
        blocks.append(block("  " + line, "server.item"))
    if len(shown) < len(results):
        blocks.append(block(f"  … {len(results) - len(shown)} more (enter shows all)", "server.item"))
    return blocks


def _fetch(content: Any) -> list[Block]:
    if not isinstance(content, Mapping):
        return [block(one_line("→ " + compact_json(content, LINE), LINE), "server.result")]
    if "error_code" in content or str(content.get("type", "")).endswith("_error"):
        return [_error(content)]
    url = content.get("url")
    line = f"→ fetched {_value(url) if url is not None else 'a page'}"
    document = content.get("content")
    if isinstance(document, Mapping):
        title = document.get("title")
        if title:
            line += f" · {_value(title)}"
        source = document.get("source")
        data = source.get("data") if isinstance(source, Mapping) else None
        if isinstance(data, str):
            line += f" · {len(data):,} chars"
    if content.get("retrieved_at"):
        line += f" · retrieved {_value(content['retrieved_at'])}"
    return [block(one_line(line, LINE), "server.result")]


def server_tool_blocks(replay_blocks: Sequence[Any], options: FormatOptions) -> list[Block]:
    """The server-tool calls and results of a step, in their order; [] when there are none."""
    blocks: list[Block] = []
    for item in replay_blocks:
        kind = item.get("type") if isinstance(item, Mapping) else None
        if kind in SHOWN_ELSEWHERE:
            continue
        if not isinstance(item, Mapping):
            blocks.append(block("replay block " + compact_json(item, LINE), "server.other"))
        elif kind == "server_tool_use":
            blocks.append(_call(item))
        elif kind == "web_search_tool_result":
            blocks.extend(_search(item.get("content"), options))
        elif kind == "web_fetch_tool_result":
            blocks.extend(_fetch(item.get("content")))
        elif kind == "redacted_thinking":
            data = item.get("data")
            size = f" ({len(data):,} chars)" if isinstance(data, str) else ""
            blocks.append(block(f"redacted thinking{size}", "server.other"))
        else:
            shown = {key: value for key, value in item.items() if key not in ("signature", "encrypted_content")}
            blocks.append(block(one_line(f"replay block {compact_json(shown, LINE)}", LINE), "server.other"))
    return blocks
