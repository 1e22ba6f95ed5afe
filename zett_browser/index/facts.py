"""Provides what the index reads of zett-agent 0.2.1's extras: attributes, server tools, steering.

Both extraction paths of :mod:`.extract` (model records and decoded JSON) call these
with plain mappings, so they agree by construction:

- :func:`attribute_texts`: ``attributes.goal_extension`` marks a row ``goal`` and its
  ``raw_content`` (what the user typed in goal mode; the row's content is the runtime's
  rewrite) is searchable; ``attributes.resume`` marks a row ``resume``. Nothing else of the
  attributes is indexed: ``model_request_trace`` (the tools offered with every request,
  about half of a real store's bytes) would bury every word under the same tool schemas.
- :func:`server_texts`: provider ``replay_blocks`` of server tools (``server_tool_use``:
  its name and input, e.g. the web_search query or the web_fetch url; ``*_tool_result``:
  the URLs, titles and error codes of its results, never ``encrypted_content``). The row
  is marked ``server_tools`` and the tool names join its ``tools``.
- :func:`mark_steering`: a user row right after a tool result skipped by steering is
  the steering message (``steering``); the row before may be in an earlier batch, so the
  writer asks the index for it.

Flags are words in ``Doc.flags``; the writer stores them space-delimited for ``is:`` and
``has:``. Everything is bounded: at most :data:`MAX_BLOCKS` blocks and
:data:`MAX_RESULTS` results a block are read, each value cut at ``MAX_VALUE``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


class Doc(Protocol):
    """What these functions read and set of an :class:`.extract.Doc` (no import: extract imports this)."""

    session_id: str
    sequence: int
    kind: str
    tools: str
    outcome: str | None
    flags: str


#: Replay blocks read of one row, and results read of one server-tool result block.
MAX_BLOCKS = 64
MAX_RESULTS = 50
MAX_VALUE = 20_000
#: Keys of a server-tool result item that are worth finding (never encrypted content).
_RESULT_KEYS = ("url", "title", "error_code")
#: The flags :func:`attribute_texts`, :func:`server_texts` and :func:`mark_steering` set.
FLAGS = ("goal", "resume", "server_tools", "steering")
SKIPPED = "skipped"


def add_flag(doc: Doc, flag: str) -> None:
    """Mark ``doc`` with ``flag`` (kept sorted, so both extraction paths give equal docs)."""
    if flag not in doc.flags.split():
        doc.flags = " ".join(sorted([*doc.flags.split(), flag]))


def attribute_texts(attributes: object, doc: Doc) -> list[str]:
    """The searchable texts of a row's ``attributes``; sets the ``goal``/``resume`` flags."""
    if not isinstance(attributes, Mapping) or ("goal_extension" not in attributes and "resume" not in attributes):
        return []  # most rows: no attributes, or only the request trace (checked first: it runs per row)
    texts: list[str] = []
    goal = attributes.get("goal_extension")
    if isinstance(goal, Mapping):
        add_flag(doc, "goal")
        raw = goal.get("raw_content")
        if isinstance(raw, str):
            texts.append(raw[:MAX_VALUE])
    if attributes.get("resume") is not None:
        add_flag(doc, "resume")
    return texts


def _strings(value: Any) -> Iterable[str]:
    """The string values of a server tool's input (the query, the url), bounded."""
    if isinstance(value, str):
        yield value[:MAX_VALUE]
    elif isinstance(value, Mapping):
        for item in list(value.values())[:MAX_RESULTS]:
            if isinstance(item, str):
                yield item[:MAX_VALUE]


def server_texts(blocks: Iterable[object], doc: Doc) -> list[str]:
    """The searchable texts of server-tool replay blocks; sets ``server_tools``, adds names to ``tools``."""
    texts: list[str] = []
    names: list[str] = []
    for number, block in enumerate(blocks):
        if number >= MAX_BLOCKS:
            break
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("server_tool_use", "mcp_tool_use"):
            name = block.get("name")
            if isinstance(name, str) and name:
                names.append(name[:200])
                texts.append(name[:200])
            texts.extend(_strings(block.get("input")))
        elif isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
            content = block.get("content")
            items = content[:MAX_RESULTS] if isinstance(content, list) else [content]
            for item in items:
                if isinstance(item, Mapping):
                    texts.extend(item[key][:MAX_VALUE] for key in _RESULT_KEYS if isinstance(item.get(key), str))
        else:
            continue
        add_flag(doc, "server_tools")
    if names:
        doc.tools = " ".join(filter(None, [doc.tools, *names]))
    return texts


def mark_steering(db: sqlite3.Connection, docs: Iterable[Doc]) -> None:
    """Flag each user row that directly follows (system rows aside) a result skipped by steering.

    ``docs`` are a batch in (session, sequence) order; the row before a session's first one
    in the batch is read from the index (one indexed lookup, only for a user row).
    """
    before: dict[str, str | None] = {}
    for doc in docs:
        if doc.kind == "system":
            continue
        if doc.kind == "user":
            if doc.session_id not in before:
                row = db.execute(
                    "SELECT outcome FROM docs WHERE session_id = ? AND sequence < ? AND sequence > 0"
                    " AND kind NOT IN ('system', 'snapshot', 'session') ORDER BY sequence DESC LIMIT 1",
                    (doc.session_id, doc.sequence),
                ).fetchone()
                before[doc.session_id] = row[0] if row else None
            if before[doc.session_id] == SKIPPED:
                add_flag(doc, "steering")
        before[doc.session_id] = doc.outcome
