"""Provides the session tree: roots newest first, delegated sessions nested, loaded lazily.

The tree holds typed ``SessionNode`` records; it asks its screen for children and for the
next page of roots with messages, and says which session the user selected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rich.cells import cell_len
from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ..model import SessionCursor, SessionNode
from .render import relative_time
from .safe import clean
from .textual_compat import tree_toggle


@dataclass
class More:
    """A "more…" entry: the next page of a list, from ``cursor``."""

    parent: str | None
    cursor: SessionCursor
    orphans: bool = False


@dataclass
class Group:
    """A grouping node (the orphans)."""

    name: str


NodeData = SessionNode | More | Group


def node_label(node: SessionNode, now: datetime) -> Text:
    """The label of a session: title or short id, agent, counts, type, activity, markers."""
    label = Text()
    if node.title:
        label.append(clean(node.title))
    else:
        label.append(node.session_id[:8] + "…", style="italic")
    if node.agent_name:
        label.append(" · ").append(clean(node.agent_name), style="cyan")
    label.append(" · ").append(f"{node.message_count:,} msg", style="dim")
    if node.child_count:
        label.append(" · ").append(f"↳{node.child_count}", style="magenta")
    if node.snapshot_count:
        label.append(" · ").append(f"◆{node.snapshot_count}", style="yellow")
    if node.session_type:
        label.append(" · ").append(f"type {node.session_type}", style="blue")
    label.append(" · ").append(relative_time(node.updated_at, now), style="dim")
    return label


class SessionTree(Tree[NodeData]):
    """Sessions as a lazily loaded tree."""

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
        self._loaded: set[int] = set()
        #: Nodes the user opened before their children were read: expanded on arrival.
        self._expand_on_arrival: set[int] = set()
        self.orphans: TreeNode[NodeData] | None = None

    def add_sessions(
        self,
        parent: TreeNode[NodeData],
        nodes: Sequence[SessionNode],
        cursor: SessionCursor | None,
        *,
        orphans: bool = False,
    ) -> None:
        """Append a page of sessions under ``parent`` (and a "more…" node when there are more)."""
        now = self.clock()
        for child in list(parent.children):
            if isinstance(child.data, More):
                child.remove()
        before = self.orphans if parent is self.root and self.orphans is not None else None
        for node in nodes:
            label = node_label(node, now)
            if node.child_count:
                parent.add(label, data=node, before=before)
            else:
                parent.add_leaf(label, data=node, before=before)
        if cursor is not None:
            parent_id = parent.data.session_id if isinstance(parent.data, SessionNode) else None
            parent.add_leaf(Text("more…", style="italic dim"), data=More(parent_id, cursor, orphans), before=before)
        self._loaded.add(parent.id)
        if parent.id in self._expand_on_arrival:
            self._expand_on_arrival.discard(parent.id)
            parent.expand()

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
        found = []
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            if isinstance(node.data, SessionNode) and node.is_expanded and node.id in self._loaded:
                found.append(node)
            stack.extend(node.children)
        return found

    def merge_sessions(self, parent: TreeNode[NodeData], nodes: Sequence[SessionNode], *, newest_first: bool) -> None:
        """Refresh labels of known sessions and add new ones, keeping the cursor where it is."""
        now = self.clock()
        known = {child.data.session_id: child for child in parent.children if isinstance(child.data, SessionNode)}
        cursor = self.cursor_node
        for node in nodes:
            existing = known.get(node.session_id)
            if existing is not None:
                existing.data = node
                existing.set_label(node_label(node, now))
                if node.child_count and not existing.allow_expand:
                    existing.allow_expand = True
                continue
            label = node_label(node, now)
            first = next((c for c in parent.children if isinstance(c.data, SessionNode)), None)
            before = first if newest_first and first is not None else None
            if before is None and not newest_first:
                before = next((c for c in parent.children if isinstance(c.data, More)), None)
            if node.child_count:
                parent.add(label, data=node, before=before)
            else:
                parent.add_leaf(label, data=node, before=before)
        if cursor is not None:
            # Line numbers change when nodes are added above: move after the tree re-lays out.
            self.call_after_refresh(self.move_cursor, cursor)

    def add_orphan_group(self) -> None:
        """Add the (collapsed) group that lists sessions whose parent is missing."""
        self.orphans = self.root.add(Text("Orphaned delegated sessions", style="italic red"), data=Group("orphans"))

    def find(self, session_id: str) -> TreeNode[NodeData] | None:
        """The loaded node of a session, if any."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node.data, SessionNode) and node.data.session_id == session_id:
                return node
            stack.extend(node.children)
        return None

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
