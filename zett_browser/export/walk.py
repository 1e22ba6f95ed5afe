"""Provides the walk over a session (and its delegated sessions) that every format writes.

The walk reads the Raw Log a keyset page at a time (:mod:`zett_browser.storage.export_rows`)
and hands each stored row to a :class:`Writer`, which writes it out at once: memory holds
one page per open session, whatever the session's length.

With ``subtree``, a delegated session is written where it was delegated: right after the
assistant message whose ``task`` or background ``task_start`` call created it (the link is
the ``session_id`` the result names), in the order of the calls. A background child is
so placed after the call that started it, not after the parent's last row. Delegated sessions no call links to (another
runtime, a damaged row, a task still running) follow the parent's last message, in the
order they were created. A parent cycle is written once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..model.records import SessionNode
from ..storage import SQLSessionStorage
from ..storage.export_rows import after_row, stored_raw_page, stored_session, stored_snapshots, task_links
from ..views.labels import distinguish, node_name, sibling, tagged

#: Raw Log rows read per query: big enough to amortise a query, small enough for flat memory.
PAGE = 200
#: Messages written between two yields to the event loop: the app exports on its own loop,
#: and a page of 200 rendered at once would hold it for ~80 ms (keys must answer in 100).
YIELD_EVERY = 16
#: Children read per query when listing a session's delegated sessions.
CHILD_PAGE = 500
_ASSISTANT = 3
#: The tools whose results name the child they created (foreground and background).
_DELEGATING = ("task", "task_start")


class ExportError(Exception):
    """The export cannot be made (unknown session, unwritable output); one line for a person."""


@dataclass(frozen=True, slots=True)
class SessionHead:
    """A session as an export opens it: its stored row, snapshots and place in the subtree."""

    row: Mapping[str, Any]
    snapshots: list[dict[str, Any]]
    depth: int = 0
    #: The ``task`` call that delegated it, when a call links to it.
    call_id: str | None = None
    #: What the tree shows for an untitled delegated session (the parent's task request).
    label: str | None = None
    #: The boundary of the latest readable snapshot (messages up to it are compacted).
    compacted_through: int = 0


class Writer(Protocol):
    """A format: called in document order, writes as it goes."""

    def start_session(self, head: SessionHead) -> None: ...

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None: ...

    def end_session(self, head: SessionHead) -> None: ...


@dataclass
class WalkStats:
    """What a walk wrote."""

    sessions: int = 0
    messages: int = 0
    seen: set[str] = field(default_factory=set)


def _boundary(snapshots: list[dict[str, Any]]) -> int:
    through = [row["compacted_through_sequence"] for row in snapshots]
    numbers = [value for value in through if isinstance(value, int) and not isinstance(value, bool)]
    return max(numbers, default=0)


def _task_call_ids(row: Mapping[str, Any]) -> list[str]:
    """Ids of the ``task``/``task_start`` calls of an assistant row, in order (cheap test before decoding)."""
    text = row.get("message_json")
    if row.get("role") != _ASSISTANT or not isinstance(text, str) or not any(f'"{n}"' in text for n in _DELEGATING):
        return []
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    data = value[0].get("data") if isinstance(value, list) and value and isinstance(value[0], dict) else None
    calls = data.get("tool_calls") if isinstance(data, dict) else None
    if not isinstance(calls, list):
        return []
    return [
        c["id"] for c in calls if isinstance(c, dict) and c.get("name") in _DELEGATING and isinstance(c.get("id"), str)
    ]


class Walk:
    """One export's walk over a store (read-only)."""

    def __init__(self, storage: SQLSessionStorage, writer: Writer, *, subtree: bool) -> None:
        self.storage = storage
        self.writer = writer
        self.subtree = subtree
        self.stats = WalkStats()

    async def run(self, session_id: str) -> WalkStats:
        """Write ``session_id`` (and, with ``subtree``, every session it delegated to)."""
        row = await stored_session(self.storage.reader, session_id)
        if row is None:
            raise ExportError(f"no session {session_id!r} in {self.storage.display_name}")
        await self._session(row, depth=0, call_id=None, label=await self._own_label(session_id))
        return self.stats

    async def _own_label(self, session_id: str) -> str | None:
        """An untitled session's name as the tree gives it (what its parent asked, or its first prompt)."""
        node = await self.storage.get_node(session_id)
        if node is None or node.title:
            return None
        return (await self.storage.child_labels(node.parent_session_id, [node])).get(session_id)

    async def _children(self, session_id: str) -> tuple[list[str], dict[str, str]]:
        """The delegated sessions of ``session_id`` in creation order, and their labels."""
        ids: list[str] = []
        labels: dict[str, str] = {}
        nodes: list[SessionNode] = []
        cursor = None
        while True:
            page = await self.storage.list_children(session_id, limit=CHILD_PAGE, cursor=cursor)
            ids.extend(node.session_id for node in page.items)
            labels.update(await self.storage.child_labels(session_id, list(page.items)))
            nodes.extend(page.items)
            if page.next_cursor is None:
                # Children asked the same read the same: a tag tells them apart, as in the tree.
                named = [replace(node, label_hint=labels.get(node.session_id)) for node in nodes]
                tags = distinguish([sibling(node) for node in named])
                return ids, {n.session_id: tagged(node_name(n), tags.get(n.session_id)) for n in named if not n.title}
            cursor = page.next_cursor

    async def _session(self, row: Mapping[str, Any], *, depth: int, call_id: str | None, label: str | None) -> None:
        session_id = str(row["id"])
        self.stats.seen.add(session_id)
        self.stats.sessions += 1
        snapshots = await stored_snapshots(self.storage.reader, session_id)
        head = SessionHead(row, snapshots, depth, call_id, label, _boundary(snapshots))
        children: list[str] = []
        labels: dict[str, str] = {}
        by_call: dict[str, str] = {}
        if self.subtree:
            children, labels = await self._children(session_id)
            wanted = set(children)
            links = await task_links(self.storage.reader, session_id)
            by_call = {call: child for call, child in links.items() if child in wanted}
        self.writer.start_session(head)
        after = None
        while True:
            page = await stored_raw_page(self.storage.reader, session_id, after, PAGE)
            for number, message in enumerate(page, 1):
                self.writer.message(message, head)
                self.stats.messages += 1
                if number % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
                for call in _task_call_ids(message) if by_call else ():
                    child = by_call.get(call)
                    if child is not None and child not in self.stats.seen:
                        await self._child(child, depth + 1, call, labels.get(child))
            if len(page) < PAGE:
                break
            after = after_row(page[-1])
        for child in children:
            if child not in self.stats.seen:
                await self._child(child, depth + 1, None, labels.get(child))
        self.writer.end_session(head)

    async def _child(self, session_id: str, depth: int, call_id: str | None, label: str | None) -> None:
        row = await stored_session(self.storage.reader, session_id)
        if row is not None:
            await self._session(row, depth=depth, call_id=call_id, label=label)
