"""Provides the members of a joined store: each open store with its short name, and the
children a page of sessions has in the other stores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath

from ..model import SessionNode
from ..model.frozen import replace
from ..model.store import BrowsingStore

#: Children counted per session in each other store (a session with more shows this many).
FOREIGN_CHILDREN = 100


def short_names(names: Sequence[str]) -> list[str]:
    """Names people tell the stores apart by: the file name, with as many parent folders as
    it takes to make them differ (a URL keeps its masked display name)."""
    parts = [PurePath(name).parts if "://" not in name else (name,) for name in names]
    depth = 1
    while True:
        shown = ["/".join(part[-depth:]) or name for part, name in zip(parts, names, strict=True)]
        if len(set(shown)) == len(shown) or depth >= max((len(part) for part in parts), default=1):
            return shown
        depth += 1


class Member:
    """One open store and the short name it is shown by."""

    def __init__(self, name: str, store: BrowsingStore) -> None:
        self.name = name
        self.store = store

    def tag(self, node: SessionNode) -> SessionNode:
        return node if node.store == self.name else replace(node, store=self.name)


async def counted(
    members: Sequence[Member], home: Mapping[str, int], nodes: Sequence[SessionNode]
) -> list[SessionNode]:
    """``nodes`` with their children in the other open stores counted too (a parent whose
    children zett-agent wrote to another store would otherwise show none, and could not be
    expanded): one read per other store for the whole page. ``home``: where each lives."""
    nodes = list(nodes)
    if not nodes:
        return nodes
    extra = [0] * len(nodes)
    for index, member in enumerate(members):
        ids = [node.session_id for node in nodes if home.get(node.session_id) != index]
        if not ids:
            continue
        _, kids = await member.store.tree_refresh(ids, roots_limit=1, children_limit=FOREIGN_CHILDREN)
        for position, node in enumerate(nodes):
            if node.session_id in ids and node.session_id in kids:
                extra[position] += len(kids[node.session_id].items)
    return [
        replace(node, child_count=node.child_count + more) if more else node
        for node, more in zip(nodes, extra, strict=True)
    ]
