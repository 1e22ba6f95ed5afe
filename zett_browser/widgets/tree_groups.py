"""Provides the session tree's store groups: one node per open store, its roots under it.

With several stores open (``zett-browser A B …``) the tree shows each store as a group
(``w`` merges them into one list by activity and back). A group asks for its store's roots
like a session asks for its children; a delegated session stays under its parent whatever
store holds it, so a group lists only its store's roots. The orphans' group comes last.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets.tree import TreeNode

from ..model import SessionNode
from ..model.frozen import replace
from .render import style_of
from .tree_nodes import Group, NodeData


def group_label(name: str) -> Text:
    """A store group's label: the store's short name."""
    return Text.assemble(("⛁ ", "dim"), (name, "bold " + style_of("store")))


def add_groups(root: TreeNode[NodeData], names: Sequence[str]) -> list[TreeNode[NodeData]]:
    """One group per store under ``root`` (collapsed: expanding one reads its roots)."""
    return [root.add(group_label(name), data=Group(name, store=index)) for index, name in enumerate(names)]


def store_groups(root: TreeNode[NodeData]) -> list[TreeNode[NodeData]]:
    """The store groups under ``root``, in the stores' order."""
    return [node for node in root.children if isinstance(node.data, Group) and node.data.store is not None]


def group_for(root: TreeNode[NodeData], node: SessionNode) -> TreeNode[NodeData] | None:
    """The group a root session goes under (its store's), if the tree is grouped."""
    for group in store_groups(root):
        if isinstance(group.data, Group) and group.data.name == node.store:
            return group
    return None


def by_group(
    root: TreeNode[NodeData], nodes: Sequence[SessionNode]
) -> list[tuple[TreeNode[NodeData], list[SessionNode]]]:
    """``nodes`` (roots of several stores) split by the group each goes under."""
    groups = store_groups(root)
    split: dict[int, list[SessionNode]] = {}
    for node in nodes:
        for index, group in enumerate(groups):
            if isinstance(group.data, Group) and group.data.name == node.store:
                split.setdefault(index, []).append(node)
    return [(groups[index], found) for index, found in sorted(split.items())]


def note_if_empty(group: TreeNode[NodeData]) -> None:
    """Say why a store's group lists no roots: all its sessions are delegated ones, shown
    under their parents (zett-agent's default profiles write only children to theirs)."""
    if isinstance(group.data, Group) and group.data.store is not None and not group.children:
        group.add_leaf(Text("no root sessions here: its sessions show under their parents", style="dim italic"))


def unnamed(parent: TreeNode[NodeData], nodes: Sequence[SessionNode]) -> Sequence[SessionNode]:
    """``nodes`` as they go under ``parent``: under their store's group the store is not
    named again on each of them."""
    if isinstance(parent.data, Group) and parent.data.store is not None:
        return [replace(node, store=None) if node.store == parent.data.name else node for node in nodes]
    return nodes
