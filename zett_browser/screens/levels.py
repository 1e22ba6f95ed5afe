"""Provides the session tree's controller: the roots at start, the levels the user expands.

:class:`TreeLevels` reads the roots (with the first change token, so a change committed
meanwhile is seen at the next poll), the children and the orphaned sessions a node asks
for (:class:`~zett_browser.widgets.session_tree.SessionTree.ChildrenWanted`), and hands
them to the tree; their usage labels follow.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from textual.worker import Worker

from ..model import Page, SessionCursor, SessionNode
from ..model.session_state import SessionState, classify
from ..widgets.rawlog import RawLogView
from ..widgets.session_tree import Group, SessionTree
from .reads import Failed, Services
from .watch import CHILDREN_PAGE, ROOTS_PAGE


class TreeLevels:
    """Reads the tree's levels into it.

    Args:
        services: The store the sessions are listed from, the read helper, workers.
        tree: The session tree.
        view: The Raw Log (it says so when the store has no sessions).
        later: Runs a callback once the keys pause (start-up's background work).
        read_level: One page of a level in the tree's order.
        child_labels: Labels of untitled children.
        usage_for: Puts the usage on these sessions' labels.
        roots_read: Called once the roots answered, with the change token (None: failed).
        first_wanted: True when the newest root is to open (nothing open, none asked for).
        open_session: Opens a session.
        roots_page: Sessions per page of the roots.
        children_page: Sessions per page of a session's children (and of the orphans).
    """

    def __init__(
        self,
        services: Services,
        tree: SessionTree,
        view: RawLogView,
        *,
        later: Callable[[Callable[[], object]], object],
        read_level: Callable[[str | None, SessionCursor | None, int, int | None], Awaitable[Page[SessionNode]]],
        child_labels: Callable[[str | None, Sequence[SessionNode]], Awaitable[dict[str, str]]],
        usage_for: Callable[[Sequence[SessionNode]], object],
        roots_read: Callable[[tuple[object, ...] | None], object],
        first_wanted: Callable[[], bool],
        open_session: Callable[[str], object],
        roots_page: int = ROOTS_PAGE,
        children_page: int = CHILDREN_PAGE,
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._tree = tree
        self._view = view
        self._run = services.run_worker
        self._later = later
        self._read_level = read_level
        self._child_labels = child_labels
        self._usage_for = usage_for
        self._roots_read = roots_read
        self._first_wanted = first_wanted
        self._open_session = open_session
        self._roots_page = roots_page
        self._children_page = children_page
        #: Told of each page of states read (the open session's header shows its own).
        self.states_read: Callable[[dict[str, SessionState]], object] | None = None

    def _tree_worker(self, name: str, call: Callable[[], Awaitable[None]]) -> Worker[None]:
        return self._run(call, name=name, group="tree", description=name, exit_on_error=False)

    def load_roots(self) -> Worker[None]:
        """Read the roots (and whether there are orphans) into the tree; open the newest."""
        return self._tree_worker("load_roots", self._load_roots)

    async def _load_roots(self) -> None:
        tree = self._tree
        store = self._store

        async def read() -> tuple[Any, Any, Any]:
            # The token is taken before reading, so a change committed meanwhile is seen at the next poll.
            token = await store.change_token()
            page = await store.list_roots(limit=self._roots_page)
            # The orphan check grows with delegated sessions: with roots to show it runs after them.
            orphans = None if page.items else await store.list_orphans(limit=1)
            return token, page, orphans

        result = await self._reader.fetch(read(), "Could not list sessions")
        if isinstance(result, Failed):
            self._roots_read(None)
            return
        token, page, orphans = result
        self._roots_read(token)
        if orphans is not None and not page.items and not orphans.items:
            self._view.show_page([], empty_text="This store has no sessions yet.")
        if tree.grouped and tree.store_groups:
            tree.reload(None)  # a group per store, each reading its own roots
        else:
            tree.add_sessions(tree.root, page.items, page.next_cursor)
        # Labels and the orphan check wait for a pause in the keys (the usage labels import the index).
        self._later(partial(self._usage_for, page.items))
        self._later(partial(self.marks_for, page.items))
        if orphans is None:
            self._later(self.check_orphans)
        elif orphans.items:
            tree.add_orphan_group()
        tree.root.expand()
        if page.items and self._first_wanted():
            tree.move_cursor(tree.root.children[0] if tree.root.children else None)
            self._open_session(page.items[0].session_id)

    def check_orphans(self) -> Worker[None]:
        """Add the orphaned sessions' group when the store has any (after the first screen)."""
        return self._tree_worker("_check_orphans", self._check_orphans)

    async def _check_orphans(self) -> None:
        orphans = await self._reader.fetch(self._store.list_orphans(limit=1))
        if not isinstance(orphans, Failed) and orphans.items:
            self._tree.add_orphan_group()

    def children_wanted(self, event: SessionTree.ChildrenWanted) -> Worker[None]:
        """Read the next page of a level the user expanded (or asked "more…" of)."""
        return self._tree_worker("on_session_tree_children_wanted", partial(self._children, event))

    async def _children(self, event: SessionTree.ChildrenWanted) -> None:
        tree = self._tree
        limit = self._roots_page if event.parent_id is None else self._children_page
        data = event.node.data
        group = data.store if isinstance(data, Group) else None  # one store's roots (grouped by store)
        page = await self._reader.fetch(
            self._read_level(event.parent_id, event.cursor, limit, group), "Could not load sessions"
        )
        hints = {} if isinstance(page, Failed) else await self._child_labels(event.parent_id, page.items)
        if isinstance(page, Failed):
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, hints=hints)
        self._usage_for(page.items)
        self.marks_for(page.items, label=False)

    def orphans_wanted(self, event: SessionTree.OrphansWanted) -> Worker[None]:
        """Read the next page of the orphaned sessions' group."""
        return self._tree_worker("on_session_tree_orphans_wanted", partial(self._orphans, event))

    async def _orphans(self, event: SessionTree.OrphansWanted) -> None:
        tree = self._tree
        page = await self._reader.fetch(
            self._store.list_orphans(limit=self._children_page, cursor=event.cursor), "Could not load orphaned sessions"
        )
        if isinstance(page, Failed):
            tree.forget(event.node)
            return
        tree.add_sessions(event.node, page.items, page.next_cursor, orphans=True)
        self._usage_for(page.items)
        self.marks_for(page.items, orphans=True)

    def marks_for(
        self, nodes: Sequence[SessionNode], *, label: bool = True, orphans: bool = False
    ) -> Worker[None] | None:
        """Put on these sessions' nodes how their last request ended and, with ``label``, a
        label from the first prompt on the untitled ones (roots and orphans: no parent call
        names them). Two reads for the whole page; decoration, so a failure changes nothing."""
        if not nodes:
            return None
        return self._run(
            partial(self._marks, list(nodes), label, orphans),
            name="marks_for",
            group="marks",
            description="session states",
            exit_on_error=False,
        )

    async def _marks(self, nodes: list[SessionNode], label: bool, orphans: bool) -> None:
        rows = await self._reader.quietly(self._store.last_rows([n.session_id for n in nodes]), {}, "session states")
        states = {session_id: classify(records) for session_id, records in rows.items()}
        hints: dict[str, str] = {}
        untitled = [node for node in nodes if not node.title and node.label_hint is None]
        if label and untitled:
            # A parent's task call names a child; a root or an orphan is named by its first prompt.
            by_parent: dict[str | None, list[SessionNode]] = {}
            for node in untitled:  # orphans: their parents are not in this store, one read for all
                by_parent.setdefault(None if orphans else node.parent_session_id, []).append(node)
            for parent_id, group in by_parent.items():
                hints.update(await self._child_labels(parent_id, group))
        self._tree.mark(states, hints)
        if self.states_read is not None and states:
            self.states_read(states)

    def warm_up(self, page_size: int) -> Worker[None]:
        """Let the storage prepare what the first page turn, expand or open will run: a
        moment of the loop now, in a pause, instead of inside the first key press."""
        return self._run(
            partial(self._warm_up, page_size),
            name="_warm_up",
            group="warm-up",
            description="warm up the first keys' queries",
            exit_on_error=False,
        )

    async def _warm_up(self, page_size: int) -> None:
        # Only a speed-up: if it fails, the key presses read as usual.
        warm = self._store.warm_up(page_size=page_size, children_page=self._children_page)
        await self._reader.quietly(warm, None, "warm-up")
