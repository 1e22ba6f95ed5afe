"""Provides the plan of an export: which sessions, in which order, with their totals.

Markdown and HTML open with the session's totals (and the subtree's) and, for a subtree,
a table of contents; both must be known before the first message is written. So the
export first reads the store once more, a keyset page at a time (:func:`..storage.scan.raw_after`,
the side index's own read), and keeps per session only its sums and its place:

- **totals**: each row's usage through the side index's own rules (:func:`..index.writer.prepare_raw`,
  :func:`..index.totals.row_usage`), so the figures are those of ``usage --session`` and the
  app's usage details: tokens by type, measured time, cost, failed tool results (skipped,
  cancelled, interrupted and aborted results are counted apart, never as failures);
- **order**: a delegated session goes right after the assistant row whose ``task`` or
  ``task_start`` call created it, in call order; sessions no call links to follow their
  parent's last row, in creation order; a parent cycle is planned once.

Memory holds one page of rows and one small node per planned session.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..index.totals import Delta
from ..index.usage import totals_from
from ..index.writer import prepare_raw
from ..model.frozen import replace
from ..model.records import SessionNode, asked_at
from ..model.usage import Totals
from ..storage import SQLSessionStorage
from ..storage.export_rows import stored_session, stored_snapshots, task_links
from ..storage.quickexport import EncodedRow
from ..storage.scan import raw_after
from ..views.labels import distinguish, node_name, sibling, tagged
from .source import Source, source_of

#: Raw Log rows read per query: big enough to amortise a query, small enough for flat memory.
PAGE = 200
#: Children read per query when listing a session's delegated sessions.
CHILD_PAGE = 500
_ASSISTANT = 3
#: The tools whose results name the child they created (foreground and background).
_DELEGATING = ("task", "task_start")
_CHILDREN = 7  # index of ``children`` in :data:`..index.totals.COUNTS`
_COMPACTIONS = 6  # index of ``compactions``


class ExportError(Exception):
    """The export cannot be made (unknown session, unwritable output); one line for a person."""


def task_call_ids(row: Mapping[str, Any] | EncodedRow) -> list[str]:
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


@dataclass(slots=True)
class PlanNode:
    """One session of the export: its stored row, place, label and own sums."""

    row: Mapping[str, Any]
    depth: int = 0
    call_id: str | None = None
    label: str | None = None
    own: Delta = field(default_factory=Delta)
    #: Delegated sessions in document order (placed at their call first, then the rest).
    children: list[PlanNode] = field(default_factory=list)
    #: Delegated sessions a call links to, by the call's id.
    by_call: dict[str, PlanNode] = field(default_factory=dict)
    #: Delegated sessions in creation order (those not placed at a call follow the last row).
    created: list[PlanNode] = field(default_factory=list)

    @property
    def session_id(self) -> str:
        """The session's id as text."""
        return str(self.row["id"])

    def own_totals(self) -> Totals:
        """The session's own totals."""
        return _totals(self.own)

    def subtree_totals(self) -> Totals:
        """The totals of the session and every delegated session in the export."""
        total = Delta()
        descendants = -1
        for node in self.walk():
            total.add(node.own)
            descendants += 1
        total.counts[_CHILDREN] = max(descendants, self.own.counts[_CHILDREN])
        return _totals(total)

    def walk(self) -> list[PlanNode]:
        """This node and every planned descendant, in document order."""
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found


def _totals(delta: Delta) -> Totals:
    return totals_from([*delta.counts, delta.first, delta.last])


class Planner:
    """Plans one export (read-only)."""

    def __init__(self, source: SQLSessionStorage | Source, *, subtree: bool, totals: bool) -> None:
        self.source = source_of(source)
        #: The browsing queries (several stores opened together: over all of them).
        self.storage = self.source.browse
        self.subtree = subtree
        self.totals = totals
        self.seen: set[str] = set()

    async def plan(self, session_id: str) -> PlanNode:
        """The plan of ``session_id`` (and, with ``subtree``, of every session it delegated to).

        Raises:
            ExportError: the session is not in the store.
        """
        row = await stored_session(await self.source.reader_for(session_id), session_id)
        if row is None:
            raise ExportError(f"no session {session_id!r} in {self.source.display_name}")
        node = PlanNode(row, label=await self._own_label(session_id))
        await self._plan(node)
        return node

    async def _own_label(self, session_id: str) -> str | None:
        """An untitled session's name as the tree gives it (what its parent asked, or its first prompt)."""
        found = await self.storage.get_node(session_id)
        if found is None or found.title:
            return None
        return (await self.storage.child_labels(found.parent_session_id, [found])).get(session_id)

    async def _children(self, session_id: str) -> tuple[list[str], dict[str, str]]:
        """The delegated sessions of ``session_id`` in creation order, and their labels."""
        ids: list[str] = []
        labels: dict[str, str] = {}
        nodes: list[SessionNode] = []
        cursor = None
        while True:
            page = await self.storage.list_children(session_id, limit=CHILD_PAGE, cursor=cursor)
            ids.extend(node.session_id for node in page.items)
            if self.subtree:
                labels.update(await self.storage.child_labels(session_id, list(page.items)))
                nodes.extend(page.items)
            if page.next_cursor is None:
                # Children asked the same read the same: a tag tells them apart, as in the tree.
                named = [replace(node, label_hint=labels.get(node.session_id)) for node in nodes]
                tags = distinguish([sibling(node, asked_at(labels.get(node.session_id))) for node in named])
                return ids, {n.session_id: tagged(node_name(n), tags.get(n.session_id)) for n in named if not n.title}
            cursor = page.next_cursor

    async def _plan(self, node: PlanNode) -> None:
        session_id = node.session_id
        self.seen.add(session_id)
        children: list[str] = []
        labels: dict[str, str] = {}
        links: dict[str, str] = {}
        if self.totals or self.subtree:
            children, labels = await self._children(session_id)
        if self.subtree:
            wanted = set(children)
            links = {
                call: child
                for call, child in (await task_links(await self.source.reader_for(session_id), session_id)).items()
            }
            links = {call: child for call, child in links.items() if child in wanted}
        if self.totals:
            node.own.counts[_CHILDREN] = len(children)
            node.own.counts[_COMPACTIONS] = len(
                await stored_snapshots(await self.source.reader_for(session_id), session_id)
            )
        if self.totals or links:
            await self._scan(node, links, labels)
        for child in children if self.subtree else ():
            if child not in self.seen:
                planned = await self._child(node, child, None, labels.get(child))
                if planned is not None:
                    node.created.append(planned)
        order = {child: number for number, child in enumerate(children)}
        node.created.sort(key=lambda child: order.get(child.session_id, len(order)))

    async def _scan(self, node: PlanNode, links: dict[str, str], labels: dict[str, str]) -> None:
        after = 0
        reader = await self.source.reader_for(node.session_id)
        while True:
            rows = await raw_after(reader, node.session_id, after, PAGE)
            if self.totals:
                for doc in prepare_raw(rows, None):
                    if doc.usage is not None:
                        node.own.add(doc.usage.delta)
            for row in rows:
                for call in task_call_ids(row) if links else ():
                    child = links.get(call)
                    if child is not None and child not in self.seen:
                        planned = await self._child(node, child, call, labels.get(child))
                        if planned is not None:
                            node.by_call[call] = planned
                            node.created.append(planned)
            if len(rows) < PAGE:
                return
            last = rows[-1]["sequence"]
            if not isinstance(last, int):
                return
            after = last

    async def _child(self, parent: PlanNode, session_id: str, call: str | None, label: str | None) -> PlanNode | None:
        row = await stored_session(await self.source.reader_for(session_id), session_id)
        if row is None:
            return None
        node = PlanNode(row, parent.depth + 1, call, label)
        parent.children.append(node)
        await self._plan(node)
        return node


__all__ = ["PAGE", "ExportError", "PlanNode", "Planner", "task_call_ids"]
