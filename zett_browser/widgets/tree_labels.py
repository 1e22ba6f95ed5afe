"""Provides what the session tree writes on its sessions' labels, and keeps those labels current.

A :class:`TreeLabels` belongs to one session tree, which calls it (composition): it holds
what the tree knows of the sessions shown beyond their rows (usage, how their last request
ended, the tags that tell colliding siblings apart, the session open in the Raw Log) and
relabels the nodes that change. Session rows go in through it too (a page, a poll's merge,
a revealed session), labelled and retagged. Labels themselves are built by
``tree_nodes.node_label`` from cleaned strings only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from functools import partial

from rich.cells import cell_len
from rich.text import Text
from textual.widgets.tree import TreeNode

from ..model import SessionNode
from ..model.frozen import replace
from ..model.notes import Annotation
from ..model.records import asked_at
from ..model.session_state import SessionState
from ..model.usage import SessionUsage
from .textual_compat import tree_relabelled
from .tree_nodes import (
    Group,
    More,
    NodeData,
    TagBook,
    find_session,
    level_of,
    mark_nodes,
    node_label,
    relabel,
    walk,
)


class TreeLabels:
    """The labels of a session tree's rows: what they show, when they change, how rows go in."""

    def __init__(self, clock: Callable[[], datetime]) -> None:
        #: The tree's clock (labels say how long ago a session was active).
        self.clock = clock
        #: Usage of the sessions shown (side index), put on their labels.
        self.usage: dict[str, SessionUsage] = {}
        #: How the shown sessions' last requests ended, put on their labels.
        self.states: dict[str, SessionState] = {}
        #: Tags that tell colliding siblings apart (kept across re-reads: labels stay stable).
        self.tag_book = TagBook()
        #: The session open in the Raw Log (marked in front of its label).
        self.open_id: str | None = None
        #: Pins, labels and notes on the sessions themselves (the notes file), by session id.
        self.review: dict[str, Annotation] = {}
        #: Told when tags or names changed (the breadcrumb names sessions the same way).
        self.names_changed: Callable[[], object] | None = None

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
            review=self.review.get(session_id),
        )

    def add(
        self, parent: TreeNode[NodeData], node: SessionNode, now: datetime, before: TreeNode[NodeData] | None
    ) -> TreeNode[NodeData]:
        """Add ``node``, labelled, under ``parent`` (a leaf when it has no children)."""
        label = self.label_of(node, now)
        if node.child_count:
            return parent.add(label, data=node, before=before)
        return parent.add_leaf(label, data=node, before=before)

    def add_page(
        self,
        parent: TreeNode[NodeData],
        nodes: Iterable[SessionNode],
        hints: Mapping[str, str] | None,
        before: TreeNode[NodeData] | None,
        opens: Callable[[SessionNode], bool],
    ) -> None:
        """Add a page of sessions under ``parent`` (before ``before``), expanding those ``opens``
        names; ``hints`` labels untitled ones. A session already under ``parent`` is not repeated."""
        now = self.clock()
        present = {child.data.session_id for child in parent.children if isinstance(child.data, SessionNode)}
        for node in nodes:
            if node.session_id in present:
                continue
            node = self.tag_book.known(node)
            if hints and node.session_id in hints:
                node = replace(node, label_hint=hints[node.session_id])
                self._note_call(node.session_id, hints[node.session_id])
            added = self.add(parent, node, now, before)
            if opens(node):
                added.expand()
        self.retag(parent)

    def _note_call(self, session_id: str, hint: str) -> None:
        """Remember the ``#seq`` of the parent's call a label came from (it tells siblings apart)."""
        call = asked_at(hint)
        if call is not None:
            self.tag_book.asked[session_id] = call

    def place(self, parent: TreeNode[NodeData], node: SessionNode) -> TreeNode[NodeData]:
        """Put a session that is on a page not loaded yet under ``parent``, before "more…"."""
        before = next((c for c in parent.children if isinstance(c.data, (More, Group))), None)
        added = self.add(parent, self.tag_book.known(node), self.clock(), before)
        self.retag(parent)
        return added

    def merge(
        self, parent: TreeNode[NodeData], nodes: Iterable[SessionNode], *, newest_first: bool
    ) -> tuple[list[SessionNode], bool]:
        """Relabel the known sessions of ``nodes`` that changed and add the new ones (first when
        ``newest_first``, else before "more…"); the sessions added or changed, and whether any was added."""
        now = self.clock()
        changed: list[SessionNode] = []
        known = {child.data.session_id: child for child in parent.children if isinstance(child.data, SessionNode)}
        added = relabelled = False
        for node in nodes:
            existing = known.get(node.session_id)
            if existing is not None:
                if isinstance(existing.data, SessionNode) and node.label_hint is None:
                    node = replace(node, label_hint=existing.data.label_hint)  # a re-read has no hints
                if existing.data == node:
                    continue  # unchanged: no new label (a poll re-reads every expanded node)
                changed.append(node)
                existing.data = node
                relabelled = relabel(existing, self.label_of(node, now)) or relabelled
                if node.child_count and not existing.allow_expand:
                    existing.allow_expand = True
                continue
            first = next((c for c in parent.children if isinstance(c.data, SessionNode)), None)
            before = first if newest_first and first is not None else None
            if before is None and not newest_first:
                before = next((c for c in parent.children if isinstance(c.data, More)), None)
            self.add(parent, node, now, before)
            added = True
            changed.append(node)
        if changed:
            self.retag(parent)
        if relabelled and not added:  # a node added lays the tree out anyway
            tree_relabelled(parent.tree)  # a label that changed width changes the scroll range
        return changed, added

    def retag(self, parent: TreeNode[NodeData]) -> None:
        """Tell ``parent``'s children apart again (after some arrived or were renamed)."""
        children = [child for child in parent.children if isinstance(child.data, SessionNode)]
        nodes = [child.data for child in children if isinstance(child.data, SessionNode)]
        changed = self.tag_book.update(level_of(parent), nodes)
        now = self.clock()
        relabelled = False
        for child in children:
            if isinstance(child.data, SessionNode) and child.data.session_id in changed:
                relabelled = relabel(child, self.label_of(child.data, now)) or relabelled
        if relabelled:
            tree_relabelled(parent.tree)
        if changed and self.names_changed is not None:
            self.names_changed()

    def set_open(self, root: TreeNode[NodeData], session_id: str | None) -> None:
        """Mark ``session_id`` as the session open in the Raw Log (and unmark the one before)."""
        before, self.open_id = self.open_id, session_id
        now = self.clock()
        for changed in {before, session_id} - {None}:
            found = find_session(root, changed) if changed is not None else None
            if (
                found is not None
                and isinstance(found.data, SessionNode)
                and relabel(found, self.label_of(found.data, now))
            ):
                tree_relabelled(root.tree)

    def set_review(self, root: TreeNode[NodeData], review: Mapping[str, Annotation]) -> None:
        """Show these pins, labels and notes (all of them) on the loaded sessions that changed."""
        before, self.review = self.review, dict(review)
        changed = {key for key in before.keys() | self.review.keys() if before.get(key) != self.review.get(key)}
        if not changed:
            return
        now = self.clock()
        relabelled = False
        for node in walk(root):
            if isinstance(node.data, SessionNode) and node.data.session_id in changed:
                relabelled = relabel(node, self.label_of(node.data, now)) or relabelled
        if relabelled:
            tree_relabelled(root.tree)  # a longer label widens what the tree scrolls over

    def mark(self, root: TreeNode[NodeData], states: Mapping[str, SessionState], hints: Mapping[str, str]) -> None:
        """Put states and labels (of untitled sessions) on the loaded nodes that have them."""
        self.states.update(states)
        for session_id, hint in hints.items():
            self._note_call(session_id, hint)
        if mark_nodes(root, states, hints, partial(self.label_of, now=self.clock())):
            tree_relabelled(root.tree)  # a state badge or a hint changes the label's width
        parents = {id(n.parent): n.parent for n in walk(root) if n.parent is not None and _names(n, hints)}
        for parent in parents.values():
            self.retag(parent)
        if hints and self.names_changed is not None:
            self.names_changed()


def label_width(node: TreeNode[NodeData], icon: str) -> int:
    """A node's width without rendering its label: ``icon`` (when it can expand) and the label."""
    icon_width = cell_len(icon) if node.allow_expand else 0
    label = node.label
    return icon_width + (label.cell_len if isinstance(label, Text) else cell_len(str(label)))


def _names(node: TreeNode[NodeData], hints: Mapping[str, str]) -> bool:
    """Whether ``hints`` names ``node``'s session (its level must be told apart again)."""
    return isinstance(node.data, SessionNode) and node.data.session_id in hints
