"""Provides the main screen's usage controllers: tree labels, sort (``S``), details (``u``), cards.

The usage numbers come from :class:`~zett_browser.model.usage.UsageService` (the side
index) in the options; without it (``--no-index``) the tree looks as it always did, ``S``
and ``u`` say why they cannot help, and the timing view (which reads the store) works.
Usage is decoration: a failed read leaves the labels as they are, never an error row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from rich.text import Text
from textual.widgets.tree import TreeNode
from textual.worker import Worker

from ..model import AgentMessage, Page, RawMessageRecord, SessionCursor, SessionNode, ToolMessage
from ..model.store import GroupedStore
from ..model.usage import SessionUsage, TreeSort
from ..model.usage_service import GroupedUsage, UsageService
from ..views.delegation import match_results, task_calls, with_life, with_result
from ..views.labels import Sibling, distinguish
from ..views.tasks import lifecycle, parse_notice, result_infos
from ..views.usage_text import SORT_NAMES, next_sort
from ..widgets.cardlayers import CardLayers
from ..widgets.cards import card, life_card, notice_card
from ..widgets.rawlog import RawLogView
from ..widgets.session_tree import NodeData, SessionTree
from ..widgets.tree_nodes import relabel
from .calls import find_partner
from .reads import Services
from .task_cards import is_task_row, later_task_records, placed

#: ``task``/``task_start`` calls per page whose result is looked for past the page (each a bounded walk).
MAX_RESULT_LOOKUPS = 8
#: The task results that get a line with their task's events (a ``task_start`` has its call's card).
LIFE_CARDS = frozenset({"task_status", "task_output", "task_cancel"})


@dataclass(frozen=True)
class SortedAt:
    """Where a sorted level's next page starts (kept in the "more…" cursor's opaque key)."""

    order: TreeSort
    offset: int


class UsageLabels:
    """The usage on the tree's labels, the tree's order (``S``) and the details view (``u``).

    Args:
        services: The store (the activity order's pages), the read helper, workers, notices, screens.
        service: The side index's usage numbers (None: ``--no-index``).
        tree: The session tree.
    """

    def __init__(
        self,
        services: Services,
        service: UsageService | None,
        tree: SessionTree,
    ) -> None:
        self._store = services.store
        self._service = service
        self._reader = services.reader
        self._tree = tree
        self._run = services.run_worker
        self._notify = services.notify
        self._push_screen = services.push_screen
        self.tree_sort = TreeSort.ACTIVITY

    def sort_tree(self) -> None:
        """``S``: the next order of the tree's levels (the title line says which)."""
        if self._service is None:
            self._notify("Sorting by usage needs the side index (browsing with --no-index)", markup=False)
            return
        self.tree_sort = next_sort(self.tree_sort)
        tree = self._tree
        if tree.filter is not None:
            tree.reload(tree.filter.line())
        elif self.tree_sort is TreeSort.ACTIVITY:
            tree.reload(None)
        else:
            tree.reload(Text(f"Sorted by {SORT_NAMES[self.tree_sort]} (S: next order)", style="bold"))

    async def read_level(
        self, parent_id: str | None, cursor: SessionCursor | None, limit: int, group: int | None = None
    ) -> Page[SessionNode]:
        """One page of a tree level: by activity from the store, else in the index's order.

        ``group``: the roots of one of several joined stores (the tree grouped by store).
        """
        service, store = self._service, self._store
        sorted_at = cursor.key if cursor is not None and isinstance(cursor.key, SortedAt) else None
        order = sorted_at.order if sorted_at is not None else self.tree_sort

        async def by_activity(at: SessionCursor | None) -> Page[SessionNode]:
            if group is not None and isinstance(store, GroupedStore):
                return await store.roots_in(group, limit=limit, cursor=at)
            if parent_id is None:
                return await store.list_roots(limit=limit, cursor=at)
            return await store.list_children(parent_id, limit=limit, cursor=at)

        if service is None or order is TreeSort.ACTIVITY or (cursor is not None and sorted_at is None):
            return await by_activity(cursor)
        offset = sorted_at.offset if sorted_at is not None else 0
        if group is not None and isinstance(service, GroupedUsage):
            ids = await service.ordered_roots_in(group, order, offset, limit + 1)
        else:
            ids = await service.ordered_children(parent_id, order, offset, limit + 1)
        if not ids and offset == 0:  # not indexed yet: the store's order rather than nothing
            return await by_activity(None)
        found = await asyncio.gather(*(store.get_node(session_id) for session_id in ids[:limit]))
        nodes = [node for node in found if node is not None]
        more = None
        if len(ids) > limit and nodes:
            more = SessionCursor(nodes[-1].updated_at, nodes[-1].session_id, key=SortedAt(order, offset + limit))
        return Page(nodes, more)

    def usage_for(self, nodes: Sequence[SessionNode]) -> Worker[None]:
        """Read the usage of these sessions and put it on their tree labels."""
        # A fixed description: by default Textual describes a worker by the repr of its
        # arguments, which for a page of records (50 × 100 KB outputs) took ~19 ms a turn.
        return self._run(
            partial(self._usage_for, nodes),
            name="usage_for",
            group="usage",
            description="usage labels",
            exit_on_error=False,
        )

    async def _usage_for(self, nodes: Sequence[SessionNode]) -> None:
        service = self._service
        if service is None or not nodes:
            return
        found = await self._reader.quietly(service.usage([node.session_id for node in nodes]), None, "usage read")
        if found is not None:
            self._label_usage(found)

    def _label_usage(self, found: dict[str, SessionUsage]) -> None:
        tree = self._tree
        # Only what changed is relabelled (a live store syncs every second).
        found = {key: value for key, value in found.items() if tree.usage.get(key) != value}
        if not found:
            return
        tree.usage.update(found)
        now = tree.clock()
        relabelled = False
        for node in _session_nodes(tree):
            data = node.data
            if isinstance(data, SessionNode) and data.session_id in found:
                relabelled = relabel(node, tree.label_of(data, now)) or relabelled
        if relabelled:
            tree.refit()  # a longer or shorter total changes what the tree scrolls over

    def relabel_shown(self) -> None:
        """The index grew: the shown sessions' totals may have too."""
        self.usage_for([node.data for node in _session_nodes(self._tree) if isinstance(node.data, SessionNode)])

    def details(self, open_node: SessionNode | None) -> None:
        """``u``: the usage details of the session under the tree's cursor (else ``open_node``)."""
        service = self._service
        if service is None:
            self._notify("Usage details need the side index (browsing with --no-index)", markup=False)
            return
        cursor = self._tree.cursor_node
        node = cursor.data if cursor is not None and isinstance(cursor.data, SessionNode) else None
        if node is None:
            node = open_node
        if node is None:
            self._notify("Select a session in the tree first", markup=False)
            return
        from .usage_details import UsageDetails

        self._push_screen(UsageDetails(node, service, self._reader))


class DelegationCards:
    """A card under each ``task``/``task_start`` call of the shown page (the child's end and
    totals, whether it is in this store) and under each background task's completion notice.

    Args:
        services: The store (a call's result may lie past the page), the read helper, workers.
        service: The side index's usage numbers (None: cards without totals).
        view: The Raw Log the cards show in.
    """

    def __init__(self, services: Services, service: UsageService | None, view: RawLogView, layers: CardLayers) -> None:
        self._layers = layers
        self._store = services.store
        self._service = service
        self._reader = services.reader
        self._view = view
        self._run = services.run_worker
        self._elsewhere = services.elsewhere

    def cards_for(self, records: Sequence[RawMessageRecord]) -> Worker[None]:
        """Put a card under each ``task`` call of ``records`` (decoration: a failed read gives none)."""
        return self._run(
            partial(self._cards_for, records),
            name="cards_for",
            group="cards",
            exclusive=True,
            description="delegation cards",
            exit_on_error=False,
        )

    async def _cards_for(self, records: Sequence[RawMessageRecord]) -> None:
        calls = match_results(task_calls(records), records)
        tasks = [record for record in records if is_task_row(record)]
        if not calls and not tasks:
            return
        by_sequence = {record.sequence: record for record in records}
        for index, item in enumerate(calls[:MAX_RESULT_LOOKUPS]):
            if item.success is None and item.sequence in by_sequence:
                partner = await self._reader.fetch(find_partner(self._store, by_sequence[item.sequence]))
                if isinstance(partner, RawMessageRecord):
                    calls[index] = with_result(item, partner)
        lives, to_end = {}, True
        if tasks:
            later, to_end = await self._reader.quietly(
                later_task_records(self._store, records[-1].session_id, records[-1].sequence),
                ([], False),
                "task events",
            )
            lives = lifecycle([*tasks, *later])
            calls = [with_life(item, lives) for item in calls]
        calls = await self._reader.quietly(placed(self._store, calls, self._elsewhere), calls, "child lookup")
        usage: dict[str, SessionUsage] = {}
        service = self._service
        children = [item.child_id for item in calls if item.child_id]
        if service is not None and children:
            usage = await self._reader.quietly(service.usage(children), usage, "usage read")  # cards without totals
        view = self._view
        if [record.id for record in view.records] != [record.id for record in records]:
            return  # another page is shown now
        cards: dict[int, list[Text]] = {}
        # Children asked the same read the same: the tree's rule tells them apart.
        tags = distinguish([Sibling(i.child_id, f"{i.subagent}: {i.description}") for i in calls if i.child_id])
        for item in calls:
            tag = tags.get(item.child_id or "")
            cards.setdefault(item.sequence, []).extend(card(item, usage.get(item.child_id or ""), tag))
        for record in tasks:
            if isinstance(record.message, ToolMessage) and record.message.name in LIFE_CARDS:
                infos = result_infos(record.message)
                if len(infos) == 1 and infos[0].task_id in lives:
                    cards.setdefault(record.sequence, []).extend(life_card(lives[infos[0].task_id]))
            notice = parse_notice(getattr(record.message, "content", None))
            if isinstance(record.message, AgentMessage) and notice is not None and notice.task_id in lives:
                cards.setdefault(record.sequence, []).extend(
                    notice_card(lives[notice.task_id], record.sequence, to_end)
                )
        self._layers.show("delegation", records[-1].session_id, cards)


def _session_nodes(tree: SessionTree) -> list[TreeNode[NodeData]]:
    found = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found
