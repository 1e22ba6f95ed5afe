"""Provides the session tree: roots newest first, delegated sessions nested, loaded lazily.

The tree holds typed ``SessionNode`` records; it asks its screen for children and for the
next page of roots with messages, and says which session the user selected.

Keys follow file managers and lazygit: ``→`` expands a node (loading its children) or, when
it is open, moves to its first child; ``←`` collapses it or moves to its parent; ``space``
toggles; ``enter`` opens the session and never folds anything. Without these bindings the
arrows would scroll the tree sideways (Textual's scrollable containers bind them so).

A filter (:meth:`SessionTree.apply_filter`, from the side index's session query) shows
only the matching sessions and their ancestors: the tree is read again from its roots,
every page is followed to its end, sessions outside the filter are left out, and
ancestors open by themselves. A first line says how many matched; ``esc`` or
:meth:`SessionTree.clear_filter` reads the normal tree again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial

from rich.cells import cell_len
from rich.text import Text
from textual.actions import SkipAction
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ..model import SessionCursor, SessionNode
from ..model.session_state import SessionState
from ..model.usage import SessionUsage
from .render import style_of
from .textual_compat import tree_build_lines, tree_toggle
from .tree_nodes import (
    ID_PREFIX,
    Group,
    More,
    NodeData,
    TagBook,
    TreeFilter,
    level_of,
    mark_nodes,
    node_label,
    walk,
)

__all__ = ["ID_PREFIX", "Group", "More", "NodeData", "SessionTree", "TreeFilter", "node_label"]


class SessionTree(Tree[NodeData]):
    """Sessions as a lazily loaded tree."""

    BINDINGS = [
        Binding("right", "expand_or_child", "Expand", show=False),
        Binding("left", "collapse_or_parent", "Collapse", show=False),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    class ChildrenWanted(Message):
        """A node was expanded for the first time, or a "more…" node chosen."""

        def __init__(self, node: TreeNode[NodeData], parent_id: str | None, cursor: SessionCursor | None) -> None:
            super().__init__()
            self.node = node
            self.parent_id = parent_id
            self.cursor = cursor

    class OrphansWanted(Message):
        """The orphans group was expanded, or its "more…" chosen."""

        def __init__(self, node: TreeNode[NodeData], cursor: SessionCursor | None) -> None:
            super().__init__()
            self.node = node
            self.cursor = cursor

    class SessionChosen(Message):
        """The user selected a session."""

        def __init__(self, session: SessionNode) -> None:
            super().__init__()
            self.session = session

    def __init__(self, *, clock: Callable[[], datetime] | None = None, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("Sessions"), id=id)
        self.clock = clock or (lambda: datetime.now(UTC))
        self.show_root = False
        self.guide_depth = 3
        #: ``enter`` opens a session; folding is for the arrows and space.
        self.auto_expand = False
        #: Session ids still to reveal, root first (see :meth:`reveal`).
        self._reveal: list[str] = []
        self._reveal_nodes: dict[str, SessionNode] = {}
        self._loaded: set[int] = set()
        #: Nodes the user opened before their children were read: expanded on arrival.
        self._expand_on_arrival: set[int] = set()
        self.orphans: TreeNode[NodeData] | None = None
        #: The active filter (None: the normal tree).
        self.filter: TreeFilter | None = None
        #: Whether the store has orphans (the group comes back when the tree is read again).
        self._has_orphans = False
        #: A move back to the cursor's node is scheduled (after nodes were added above it).
        self._cursor_kept = False
        #: Usage of the sessions shown (side index), put on their labels.
        self.usage: dict[str, SessionUsage] = {}
        #: How the shown sessions' last requests ended, put on their labels.
        self.states: dict[str, SessionState] = {}
        #: Tags that tell colliding siblings apart (kept across re-reads: labels stay stable).
        self.tag_book = TagBook()
        #: The session open in the Raw Log (marked in front of its label).
        self.open_id: str | None = None
        #: Told when tags or names changed (the breadcrumb names sessions the same way).
        self.names_changed: Callable[[], object] | None = None

    def add_sessions(
        self,
        parent: TreeNode[NodeData],
        nodes: Sequence[SessionNode],
        cursor: SessionCursor | None,
        *,
        orphans: bool = False,
        hints: Mapping[str, str] | None = None,
    ) -> None:
        """Append a page of sessions under ``parent`` (and a "more…" node when there are more).

        ``hints`` labels untitled sessions (session id -> what their parent asked for).
        A session already under ``parent`` (placed there by :meth:`reveal`) is not repeated.
        """
        if not self._attached(parent):
            return  # a page asked for before the tree was read again (filter applied or cleared)
        now = self.clock()
        for child in list(parent.children):
            if isinstance(child.data, More):
                child.remove()
        present = {child.data.session_id for child in parent.children if isinstance(child.data, SessionNode)}
        before = self.orphans if parent is self.root and self.orphans is not None else None
        for node in nodes:
            if node.session_id in present or not self._shown(node):
                continue
            node = self.tag_book.known(node)
            if hints and node.session_id in hints:
                node = replace(node, label_hint=hints[node.session_id])
            added = self._add_session(parent, node, now, before)
            if self.filter is not None and node.child_count and node.session_id not in self.filter.matching:
                added.expand()  # an ancestor of a match: open it (on_tree_node_expanded reads it)
        self.retag(parent)
        parent_id = parent.data.session_id if isinstance(parent.data, SessionNode) else None
        if cursor is not None and self.filter is not None:
            # Filtered: follow every page, so each match shows without a "more…" per page.
            if orphans:
                self.post_message(self.OrphansWanted(parent, cursor))
            else:
                self.post_message(self.ChildrenWanted(parent, parent_id, cursor))
        elif cursor is not None:
            parent.add_leaf(Text("more…", style="italic dim"), data=More(parent_id, cursor, orphans), before=before)
        elif orphans and self.filter is not None and parent is self.orphans and not parent.children:
            parent.remove()  # no orphan matches
            self.orphans = None
        self._loaded.add(parent.id)
        if parent.id in self._expand_on_arrival:
            self._expand_on_arrival.discard(parent.id)
            parent.expand()
        if self._reveal:
            self._advance_reveal()

    def _add_session(
        self, parent: TreeNode[NodeData], node: SessionNode, now: datetime, before: TreeNode[NodeData] | None
    ) -> TreeNode[NodeData]:
        label = self.label_of(node, now)
        if node.child_count:
            return parent.add(label, data=node, before=before)
        return parent.add_leaf(label, data=node, before=before)

    def label_of(self, node: SessionNode, now: datetime) -> Text:
        """A session's label with what the tree knows of it (usage, state)."""
        session_id = node.session_id
        return node_label(
            node,
            now,
            self.usage.get(session_id),
            self.states.get(session_id),
            tag=self.tag_book.tags.get(session_id),
            is_open=session_id == self.open_id,
        )

    def retag(self, parent: TreeNode[NodeData]) -> None:
        """Tell ``parent``'s children apart again (after some arrived or were renamed)."""
        children = [child for child in parent.children if isinstance(child.data, SessionNode)]
        nodes = [child.data for child in children if isinstance(child.data, SessionNode)]
        changed = self.tag_book.update(level_of(parent), nodes)
        now = self.clock()
        for child in children:
            if isinstance(child.data, SessionNode) and child.data.session_id in changed:
                child.set_label(self.label_of(child.data, now))
        if changed and self.names_changed is not None:
            self.names_changed()

    def set_open(self, session_id: str | None) -> None:
        """Mark ``session_id`` as the session open in the Raw Log (and unmark the one before)."""
        before, self.open_id = self.open_id, session_id
        now = self.clock()
        for changed in {before, session_id} - {None}:
            found = self.find(changed) if changed is not None else None
            if found is not None and isinstance(found.data, SessionNode):
                found.set_label(self.label_of(found.data, now))

    def mark(self, states: Mapping[str, SessionState], hints: Mapping[str, str]) -> None:
        """Put states and labels (of untitled sessions) on the loaded nodes that have them."""
        self.states.update(states)
        mark_nodes(self.root, states, hints, partial(self.label_of, now=self.clock()))
        parents = {id(n.parent): n.parent for n in walk(self.root) if n.parent is not None and _names(n, hints)}
        for parent in parents.values():
            self.retag(parent)
        if hints and self.names_changed is not None:
            self.names_changed()

    def get_label_width(self, node: TreeNode[NodeData]) -> int:
        """A label's width without rendering it (the tree measures every line on each layout)."""
        icon = cell_len(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else 0
        label = node.label
        return icon + (label.cell_len if isinstance(label, Text) else cell_len(str(label)))

    def _toggle_node(self, node: TreeNode[NodeData]) -> None:
        """Open a node whose children are not read yet only once they arrive.

        Expanding first and adding the children later would lay the whole tree out twice
        (with thousands of roots loaded, that is most of the cost of opening a node).
        """
        if node.id in self._expand_on_arrival:
            self._expand_on_arrival.discard(node.id)  # opened and closed before the children came
            return
        if node.allow_expand and not node.is_expanded and node.id not in self._loaded:
            if self._request_children(node):
                self._expand_on_arrival.add(node.id)
                return
        tree_toggle(self, node)

    def forget(self, node: TreeNode[NodeData]) -> None:
        """A read of ``node``'s children failed: ask again the next time it is opened."""
        self._loaded.discard(node.id)
        self._expand_on_arrival.discard(node.id)

    def _request_children(self, node: TreeNode[NodeData]) -> bool:
        """Ask for a node's first page of children; False when it has none to ask for."""
        if isinstance(node.data, SessionNode):
            self._loaded.add(node.id)
            self.post_message(self.ChildrenWanted(node, node.data.session_id, None))
            return True
        if isinstance(node.data, Group):
            self._loaded.add(node.id)
            self.post_message(self.OrphansWanted(node, None))
            return True
        return False

    def expanded_session_nodes(self) -> list[TreeNode[NodeData]]:
        """Loaded, expanded session nodes (their children are worth refreshing)."""
        return [
            n for n in walk(self.root) if isinstance(n.data, SessionNode) and n.is_expanded and n.id in self._loaded
        ]

    def merge_sessions(
        self, parent: TreeNode[NodeData], nodes: Sequence[SessionNode], *, newest_first: bool
    ) -> list[SessionNode]:
        """Refresh labels of known sessions and add new ones, keeping the cursor where it is.

        Returns the sessions added or changed (their state may have changed too)."""
        now = self.clock()
        changed: list[SessionNode] = []
        known = {child.data.session_id: child for child in parent.children if isinstance(child.data, SessionNode)}
        cursor = self.cursor_node
        added = False
        for node in nodes:
            if not self._shown(node):
                continue
            existing = known.get(node.session_id)
            if existing is not None:
                if isinstance(existing.data, SessionNode) and node.label_hint is None:
                    node = replace(node, label_hint=existing.data.label_hint)  # a re-read has no hints
                if existing.data == node:
                    continue  # unchanged: no new label (a poll re-reads every expanded node)
                changed.append(node)
                existing.data = node
                existing.set_label(self.label_of(node, now))
                if node.child_count and not existing.allow_expand:
                    existing.allow_expand = True
                continue
            label = self.label_of(node, now)
            first = next((c for c in parent.children if isinstance(c.data, SessionNode)), None)
            before = first if newest_first and first is not None else None
            if before is None and not newest_first:
                before = next((c for c in parent.children if isinstance(c.data, More)), None)
            if node.child_count:
                parent.add(label, data=node, before=before)
            else:
                parent.add_leaf(label, data=node, before=before)
            added = True
            changed.append(node)
        if changed:
            self.retag(parent)
        if cursor is not None and added and not self._cursor_kept:
            # Line numbers change when nodes are added above: move after the tree re-lays
            # out, once however many parents a poll merged into (it merges every expanded one).
            self._cursor_kept = True
            self.call_after_refresh(self._keep_cursor, cursor)
        return changed

    def _keep_cursor(self, cursor: TreeNode[NodeData]) -> None:
        self._cursor_kept = False
        self.move_cursor(cursor)

    def _attached(self, node: TreeNode[NodeData]) -> bool:
        """Whether ``node`` is in the tree as it is now (node ids start again after a reload)."""
        while node.parent is not None:
            node = node.parent
        return node is self.root

    def _shown(self, node: SessionNode) -> bool:
        return self.filter is None or node.session_id in self.filter.visible

    def apply_filter(
        self, matching: set[str] | frozenset[str], visible: set[str] | frozenset[str], description: str
    ) -> None:
        """Show only ``visible`` sessions (the ``matching`` ones and their ancestors).

        The tree is read again from its roots; the screen answers the ``ChildrenWanted``
        and ``OrphansWanted`` messages as for the normal tree. ``description`` (the query)
        is shown, cleaned, on the first line with the number of matches.
        """
        self.filter = TreeFilter(frozenset(matching), frozenset(visible) | frozenset(matching), description)
        self._reload(self.filter.line())

    def clear_filter(self) -> None:
        """Leave filter mode: read the normal tree again (no-op when not filtered)."""
        if self.filter is None:
            return
        self.filter = None
        self._reload(None)

    def action_clear_filter(self) -> None:
        """``esc`` clears a filter; otherwise the key goes on to the screen."""
        if self.filter is None:
            raise SkipAction()
        self.clear_filter()

    def reload(self, line: Text | None) -> None:
        """Read the tree again from its roots, with ``line`` on top (the sort or the filter)."""
        self._reload(line)

    def _reload(self, line: Text | None) -> None:
        """Empty the tree and ask for its roots (and orphans, if the store has any)."""
        self.clear()
        self._loaded.clear()
        self._expand_on_arrival.clear()
        self._reveal = []
        self.orphans = None
        # The filter's line is the root's label: shown on top, never a session.
        self.show_root = line is not None
        self.root.set_label(line if line is not None else Text("Sessions"))
        self.post_message(self.ChildrenWanted(self.root, None, None))
        if self._has_orphans:
            self.add_orphan_group()
            if self.filter is not None and self.orphans is not None:
                self.orphans.expand()
        self.root.expand()

    def add_orphan_group(self) -> None:
        """Add the (collapsed) group that lists sessions whose parent is missing."""
        if self.orphans is not None:  # a reveal of an orphan may have added it first
            return
        self._has_orphans = True
        label = Text("Orphaned delegated sessions", style="italic " + style_of("error"))
        self.orphans = self.root.add(label, data=Group("orphans"))

    def find(self, session_id: str) -> TreeNode[NodeData] | None:
        """The loaded node of a session, if any."""
        return next(
            (n for n in walk(self.root) if isinstance(n.data, SessionNode) and n.data.session_id == session_id), None
        )

    def action_expand_or_child(self) -> None:
        """``→``: open the node (reading its children), or go to its first child when open."""
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if node.is_expanded:
            if node.children:
                self.move_cursor(node.children[0])
        elif node.id not in self._expand_on_arrival:
            self._toggle_node(node)

    def action_collapse_or_parent(self) -> None:
        """``←``: close the node, or go to its parent when it is closed (or a leaf)."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and (node.is_expanded or node.id in self._expand_on_arrival):
            self._toggle_node(node)
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)

    def reveal(self, ancestors: Sequence[SessionNode], session: SessionNode) -> None:
        """Show ``session`` in the tree: open its ancestors (root first) and put the cursor on it.

        Levels whose children are not read yet are asked for (``ChildrenWanted`` or
        ``OrphansWanted``) and the walk goes on as each page arrives (:meth:`add_sessions`).
        A session on a later page than the one loaded is added under its parent, so it
        is shown at once; the page that holds it does not repeat it.
        """
        self.set_open(session.session_id)
        self._reveal = [node.session_id for node in ancestors] + [session.session_id]
        self._reveal_nodes = {node.session_id: node for node in [*ancestors, session]}
        self._advance_reveal()

    def _advance_reveal(self) -> None:
        """Walk the pending reveal as far as the loaded nodes allow."""
        chain = self._reveal
        first = self._reveal_nodes.get(chain[0]) if chain else None
        if first is None:
            self._reveal = []
            return
        parent: TreeNode[NodeData] = self.root
        if first.parent_session_id:  # the top of the chain lost its parent: an orphan
            if self.orphans is None:
                self.add_orphan_group()
            parent = self.orphans  # type: ignore[assignment]
        for depth, session_id in enumerate(chain):
            if parent is not self.root and not self._open_level(parent):
                return  # waiting for its children; add_sessions comes back here
            found = next(
                (c for c in parent.children if isinstance(c.data, SessionNode) and c.data.session_id == session_id),
                None,
            )
            if found is None:
                if parent is self.root and self.root.id not in self._loaded:
                    return  # the first page of roots is still on its way
                found = self._place(parent, self._reveal_nodes[session_id])
            if depth == len(chain) - 1:
                self._reveal = []
                # Land now, so the next frame paints the tree where it ends up (a frame of
                # the top of the tree, then one scrolled to the session, painted it twice
                # while the first keys waited); again once laid out, in case the scroll was clamped.
                tree_build_lines(self)
                self._land(found)
                self.call_after_refresh(self._land, found)
                return
            parent = found

    def _open_level(self, node: TreeNode[NodeData]) -> bool:
        """Expand ``node`` for a reveal; False while its children are still being read."""
        if node.id in self._loaded:
            if not node.is_expanded:
                node.expand()
            return node.id not in self._expand_on_arrival
        if not node.allow_expand:
            node.allow_expand = True
        if self._request_children(node):
            self._expand_on_arrival.add(node.id)
            return False
        return True

    def _place(self, parent: TreeNode[NodeData], node: SessionNode) -> TreeNode[NodeData]:
        """Put a session that is on a page not loaded yet under ``parent``, before "more…"."""
        before = next((c for c in parent.children if isinstance(c.data, (More, Group))), None)
        added = self._add_session(parent, self.tag_book.known(node), self.clock(), before)
        self.retag(parent)
        return added

    def _land(self, node: TreeNode[NodeData]) -> None:
        if node.tree is self and (node.parent is None or node.parent.is_expanded):
            self.move_cursor(node)
            self.scroll_to_node(node, animate=False)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        """A node expanded by code (not by the user's toggle) still loads its children."""
        if event.node.id not in self._loaded:
            self._request_children(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        node = event.node
        data = node.data
        if isinstance(data, More):
            parent = node.parent or self.root
            if data.orphans:
                self.post_message(self.OrphansWanted(parent, data.cursor))
            else:
                self.post_message(self.ChildrenWanted(parent, data.parent, data.cursor))
        elif isinstance(data, SessionNode):
            self.post_message(self.SessionChosen(data))


def _names(node: TreeNode[NodeData], hints: Mapping[str, str]) -> bool:
    """Whether ``hints`` names ``node``'s session (its level must be told apart again)."""
    return isinstance(node.data, SessionNode) and node.data.session_id in hints
