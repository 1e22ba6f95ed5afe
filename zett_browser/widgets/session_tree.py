"""Provides the session tree: roots newest first, delegated sessions nested, loaded lazily.

The tree holds typed ``SessionNode`` records; it asks its screen for children and for the
next page of roots with messages, and says which session the user selected. Its labels and
rows are kept by ``tree_labels.TreeLabels``, which children were asked for by ``tree_nodes.ChildLoads``.

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
from datetime import UTC, datetime

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
from .textual_compat import tree_build_lines, tree_relabelled, tree_toggle
from .tree_groups import add_groups, by_group, group_for, note_if_empty, unnamed
from .tree_labels import TreeLabels, label_width
from .tree_nodes import (
    ID_PREFIX,
    ChildLoads,
    Group,
    More,
    NodeData,
    TagBook,
    TreeFilter,
    attached,
    child_session,
    find_session,
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
        #: Which nodes' children were asked for, and which open when they arrive.
        self.loads = ChildLoads(self._ask)
        self.orphans: TreeNode[NodeData] | None = None
        #: The active filter (None: the normal tree).
        self.filter: TreeFilter | None = None
        #: Whether the store has orphans (the group comes back when the tree is read again).
        self._has_orphans = False
        #: A move back to the cursor's node is scheduled (after nodes were added above it).
        self._cursor_kept = False
        #: What the labels show besides the session (usage, states, tags, the open mark).
        self.labels = TreeLabels(lambda: self.clock())
        #: The open stores' names when several are open (the tree can group by store).
        self.store_groups: tuple[str, ...] = ()
        #: Grouped by store (else one list by activity); only with several stores.
        self.grouped = False

    @property
    def usage(self) -> dict[str, SessionUsage]:
        """Usage of the sessions shown (side index), put on their labels."""
        return self.labels.usage

    @property
    def tag_book(self) -> TagBook:
        """Tags that tell colliding siblings apart (kept across re-reads: labels stay stable)."""
        return self.labels.tag_book

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
        if not attached(self.root, parent):
            return  # a page asked for before the tree was read again (filter applied or cleared)
        for child in list(parent.children):
            if isinstance(child.data, More):
                child.remove()
        before = self.orphans if parent is self.root and self.orphans is not None else None
        shown = unnamed(parent, [node for node in nodes if self._shown(node)])
        self.labels.add_page(parent, shown, hints, before, self._opens)
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
        if cursor is None and parent.parent is self.root:
            note_if_empty(parent)
        self.loads.arrived(parent)
        if self._reveal:
            self._advance_reveal()

    def label_of(self, node: SessionNode, now: datetime) -> Text:
        """A session's label with what the tree knows of it (usage, state)."""
        return self.labels.label_of(node, now)

    def mark(self, states: Mapping[str, SessionState], hints: Mapping[str, str]) -> None:
        """Put states and labels (of untitled sessions) on the loaded nodes that have them."""
        self.labels.mark(self.root, states, hints)

    def refit(self) -> None:
        """Labels changed width: scroll over the widest one again (``set_label`` leaves the range)."""
        tree_relabelled(self)

    def get_label_width(self, node: TreeNode[NodeData]) -> int:
        """A label's width without rendering it (the tree measures every line on each layout)."""
        return label_width(node, self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE)

    def _toggle_node(self, node: TreeNode[NodeData]) -> None:
        """Open a node whose children are not read yet only once they arrive.

        Expanding first and adding the children later would lay the whole tree out twice
        (with thousands of roots loaded, that is most of the cost of opening a node).
        """
        if self.loads.toggle(node):
            tree_toggle(self, node)

    def forget(self, node: TreeNode[NodeData]) -> None:
        """A read of ``node``'s children failed: ask again the next time it is opened."""
        self.loads.forget(node)

    def _ask(self, node: TreeNode[NodeData]) -> bool:
        """Ask the screen for a node's first page of children; False when it has none to ask for."""
        if isinstance(node.data, SessionNode):
            self.post_message(self.ChildrenWanted(node, node.data.session_id, None))
            return True
        if isinstance(node.data, Group) and node.data.store is not None:  # a store's roots
            self.post_message(self.ChildrenWanted(node, None, None))
            return True
        if isinstance(node.data, Group):
            self.post_message(self.OrphansWanted(node, None))
            return True
        return False

    def expanded_session_nodes(self) -> list[TreeNode[NodeData]]:
        """Loaded, expanded session nodes (their children are worth refreshing)."""
        return [
            n
            for n in walk(self.root)
            if isinstance(n.data, SessionNode) and n.is_expanded and n.id in self.loads.loaded
        ]

    def merge_sessions(
        self, parent: TreeNode[NodeData], nodes: Sequence[SessionNode], *, newest_first: bool
    ) -> list[SessionNode]:
        """Refresh labels of known sessions and add new ones, keeping the cursor where it is.

        Returns the sessions added or changed (their state may have changed too)."""
        cursor = self.cursor_node
        shown = [node for node in nodes if self._shown(node)]
        changed, added = self.labels.merge(parent, shown, newest_first=newest_first)
        if cursor is not None and added and not self._cursor_kept:
            # Line numbers change when nodes are added above: move after the tree re-lays
            # out, once however many parents a poll merged into (it merges every expanded one).
            self._cursor_kept = True
            self.call_after_refresh(self._keep_cursor, cursor)
        return changed

    def merge_roots(self, nodes: Sequence[SessionNode]) -> list[SessionNode]:
        """:meth:`merge_sessions` for the roots: under their store's group when grouped."""
        if not (self.grouped and self.store_groups):
            return self.merge_sessions(self.root, nodes, newest_first=True)
        changed: list[SessionNode] = []
        for group, found in by_group(self.root, nodes):
            if group.id in self.loads.loaded:
                changed += self.merge_sessions(group, unnamed(group, found), newest_first=True)
        return changed

    def _keep_cursor(self, cursor: TreeNode[NodeData]) -> None:
        self._cursor_kept = False
        self.move_cursor(cursor)

    def _shown(self, node: SessionNode) -> bool:
        return self.filter is None or node.session_id in self.filter.visible

    def _opens(self, node: SessionNode) -> bool:
        """Whether an added node opens at once: an ancestor of a match (on_tree_node_expanded reads it)."""
        return self.filter is not None and bool(node.child_count) and node.session_id not in self.filter.matching

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
        self.loads.clear()
        self._reveal = []
        self.orphans = None
        # The filter's line is the root's label: shown on top, never a session.
        self.show_root = line is not None
        self.root.set_label(line if line is not None else Text("Sessions"))
        if self.grouped and self.store_groups:
            for group in add_groups(self.root, self.store_groups):
                group.expand()  # each reads its store's roots (on_tree_node_expanded)
        else:
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
        return find_session(self.root, session_id)

    def action_expand_or_child(self) -> None:
        """``→``: open the node (reading its children), or go to its first child when open."""
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if node.is_expanded:
            if node.children:
                self.move_cursor(node.children[0])
        elif node.id not in self.loads.expand_on_arrival:
            self._toggle_node(node)

    def action_collapse_or_parent(self) -> None:
        """``←``: close the node, or go to its parent when it is closed (or a leaf)."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and (node.is_expanded or node.id in self.loads.expand_on_arrival):
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
        self.labels.set_open(self.root, session.session_id)
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
        if self.grouped and not first.parent_session_id:  # a root: under its store's group
            parent = group_for(self.root, first) or self.root
        if first.parent_session_id:  # the top of the chain lost its parent: an orphan
            if self.orphans is None:
                self.add_orphan_group()
            parent = self.orphans  # type: ignore[assignment]
        for depth, session_id in enumerate(chain):
            if parent is not self.root and not self.loads.open_level(parent):
                return  # waiting for its children; add_sessions comes back here
            found = child_session(parent, session_id)
            if found is None:
                if parent is self.root and self.root.id not in self.loads.loaded:
                    return  # the first page of roots is still on its way
                found = self.labels.place(parent, unnamed(parent, [self._reveal_nodes[session_id]])[0])
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

    def _land(self, node: TreeNode[NodeData]) -> None:
        if node.tree is self and (node.parent is None or node.parent.is_expanded):
            self.move_cursor(node)
            self.scroll_to_node(node, animate=False)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        """A node expanded by code (not by the user's toggle) still loads its children."""
        if event.node.id not in self.loads.loaded:
            self.loads.request(event.node)

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
