"""Provides the main screen's usage glue: the timing view (``T``), tree sort (``S``), details (``u``).

The usage numbers come from :class:`~zett_browser.model.usage.UsageService` (the side
index) in the options; without it (``--no-index``) the tree looks as it always did, ``S``
and ``u`` say why they cannot help, and the timing view (which reads the store) works.
Usage is decoration: a failed read leaves the labels as they are, never an error row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.widgets.tree import TreeNode

from ..delegation import match_results, task_calls, with_result
from ..model import Page, RawMessageRecord, SessionCursor, SessionNode
from ..model.usage import SessionUsage, TreeSort, UsageService
from ..usage_text import SORT_NAMES, next_sort
from ..widgets.cards import card
from ..widgets.rawlog import RawLogView
from ..widgets.session_tree import NodeData, SessionTree, node_label
from .calls import find_partner
from .indexing import IndexingScreen

if TYPE_CHECKING:
    from .timing import Chosen

#: ``task`` calls per page whose result is looked for past the page (each a bounded walk).
MAX_RESULT_LOOKUPS = 4


@dataclass(frozen=True)
class SortedAt:
    """Where a sorted level's next page starts (kept in the "more…" cursor's opaque key)."""

    order: TreeSort
    offset: int


class UsageScreen(IndexingScreen):
    """The usage actions of the main screen."""

    tree_sort = TreeSort.ACTIVITY

    @property
    def usage_service(self) -> UsageService | None:
        """The side index's usage numbers, or None (``--no-index``)."""
        return self.options.usage

    # ---------------------------------------------------------------- timing

    def action_timing(self) -> None:
        """Open the timing view of the open session."""
        if self.open is None:
            self.notify("Open a session first", markup=False)
            return
        from .timing import TimingScreen  # a screen's module loads when it first opens

        self.app.push_screen(TimingScreen(self.store, self.open.node, self.fetch), self._timing_closed)

    def _timing_closed(self, chosen: Chosen | None) -> None:
        if chosen is None:
            return
        if chosen.session_id is not None:
            self.show_hit(chosen.session_id, 1)
        elif chosen.sequence is not None:
            self.show_sequence(chosen.sequence)

    # ---------------------------------------------------------------- the tree's usage and order

    def action_sort_tree(self) -> None:
        """``S``: the next order of the tree's levels (the title line says which)."""
        if self.usage_service is None:
            self.notify("Sorting by usage needs the side index (browsing with --no-index)", markup=False)
            return
        self.tree_sort = next_sort(self.tree_sort)
        tree = self.query_one(SessionTree)
        if tree.filter is not None:
            tree.reload(tree.filter.line())
        elif self.tree_sort is TreeSort.ACTIVITY:
            tree.reload(None)
        else:
            tree.reload(Text(f"Sorted by {SORT_NAMES[self.tree_sort]} (S: next order)", style="bold"))

    async def read_level(self, parent_id: str | None, cursor: SessionCursor | None, limit: int) -> Page[SessionNode]:
        """One page of a tree level: by activity from the store, else in the index's order."""
        service = self.usage_service
        sorted_at = cursor.key if cursor is not None and isinstance(cursor.key, SortedAt) else None
        order = sorted_at.order if sorted_at is not None else self.tree_sort
        if service is None or order is TreeSort.ACTIVITY or (cursor is not None and sorted_at is None):
            if parent_id is None:
                return await self.store.list_roots(limit=limit, cursor=cursor)
            return await self.store.list_children(parent_id, limit=limit, cursor=cursor)
        offset = sorted_at.offset if sorted_at is not None else 0
        ids = await service.ordered_children(parent_id, order, offset, limit + 1)
        if not ids and offset == 0:  # not indexed yet: the store's order rather than nothing
            if parent_id is None:
                return await self.store.list_roots(limit=limit)
            return await self.store.list_children(parent_id, limit=limit)
        found = await asyncio.gather(*(self.store.get_node(session_id) for session_id in ids[:limit]))
        nodes = [node for node in found if node is not None]
        more = None
        if len(ids) > limit and nodes:
            more = SessionCursor(nodes[-1].updated_at, nodes[-1].session_id, key=SortedAt(order, offset + limit))
        return Page(nodes, more)

    # A fixed description: by default Textual describes a worker by the repr of its
    # arguments, which for a page of records (50 × 100 KB outputs) took ~19 ms a turn.
    @work(group="usage", exit_on_error=False, description="usage labels")
    async def usage_for(self, nodes: Sequence[SessionNode]) -> None:
        """Read the usage of these sessions and put it on their tree labels."""
        service = self.usage_service
        if service is None or not nodes:
            return
        try:
            found = await service.usage([node.session_id for node in nodes])
        except Exception as error:  # noqa: BLE001 - decoration: the labels stay as they are
            self.log.warning(f"usage read failed: {error!r}")
            return
        self._label_usage(found)

    def _label_usage(self, found: dict[str, SessionUsage]) -> None:
        tree = self.query_one(SessionTree)
        # Only what changed is relabelled (a live store syncs every second).
        found = {key: value for key, value in found.items() if tree.usage.get(key) != value}
        if not found:
            return
        tree.usage.update(found)
        now = tree.clock()
        for node in _session_nodes(tree):
            data = node.data
            if isinstance(data, SessionNode) and data.session_id in found:
                node.set_label(node_label(data, now, found[data.session_id]))

    def _index_synced(self) -> None:
        """The index grew: the shown sessions' totals may have too."""
        super()._index_synced()
        tree = self.query_one(SessionTree)
        shown = [node.data for node in _session_nodes(tree) if isinstance(node.data, SessionNode)]
        self.usage_for(shown)
        self.cards_for(self.query_one(RawLogView).records)  # the children's totals are known now

    # ---------------------------------------------------------------- delegation cards

    @work(exclusive=True, group="cards", exit_on_error=False, description="delegation cards")
    async def cards_for(self, records: Sequence[RawMessageRecord]) -> None:
        """Put a card under each ``task`` call of the shown page (decoration: a failed read gives none)."""
        calls = match_results(task_calls(records), records)
        if not calls:
            return
        by_sequence = {record.sequence: record for record in records}
        for index, item in enumerate(calls[:MAX_RESULT_LOOKUPS]):
            if item.success is None and item.sequence in by_sequence:
                partner = await self.fetch(find_partner(self.store, by_sequence[item.sequence]))
                if isinstance(partner, RawMessageRecord):
                    calls[index] = with_result(item, partner)
        usage: dict[str, SessionUsage] = {}
        service = self.usage_service
        children = [item.child_id for item in calls if item.child_id]
        if service is not None and children:
            try:
                usage = await service.usage(children)
            except Exception as error:  # noqa: BLE001 - cards without totals
                self.log.warning(f"usage read failed: {error!r}")
        view = self.query_one(RawLogView)
        if [record.id for record in view.records] != [record.id for record in records]:
            return  # another page is shown now
        cards: dict[int, list[Text]] = {}
        for item in calls:
            cards.setdefault(item.sequence, []).extend(card(item, usage.get(item.child_id or "")))
        if cards != view.cards:  # unchanged cards (the next sync of a live store) lay nothing out again
            view.show_cards(cards)

    # ---------------------------------------------------------------- details

    def action_usage_details(self) -> None:
        """``u``: the usage details of the session under the tree's cursor (else the open one)."""
        service = self.usage_service
        if service is None:
            self.notify("Usage details need the side index (browsing with --no-index)", markup=False)
            return
        cursor = self.query_one(SessionTree).cursor_node
        node = cursor.data if cursor is not None and isinstance(cursor.data, SessionNode) else None
        if node is None and self.open is not None:
            node = self.open.node
        if node is None:
            self.notify("Select a session in the tree first", markup=False)
            return
        from .usage_details import UsageDetails

        self.app.push_screen(UsageDetails(node, service))


def _session_nodes(tree: SessionTree) -> list[TreeNode[NodeData]]:
    found = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found
