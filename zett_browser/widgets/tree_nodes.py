"""Provides what the session tree holds: node data, the filter, a session's label, and
which nodes' children were asked for (:class:`ChildLoads`).

Labels are built from cleaned strings only (``one_line``/``clean``), styled from the theme's
role table; nothing from the store is parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.widgets.tree import TreeNode

from ..model import SessionCursor, SessionNode
from ..model.frozen import replace
from ..model.notes import Annotation
from ..model.session_state import SessionState
from ..model.usage import SessionUsage
from ..views.labels import UUID_PREFIX, Sibling, distinguish, node_name, sibling
from ..views.usage_text import compact
from .render import relative_time, style_of
from .review import PIN, review_marks
from .safe import clean, one_line

#: Characters of a UUID shown for a session nothing else names (see ``views.labels``).
ID_PREFIX = UUID_PREFIX
#: The mark in front of the session open in the Raw Log.
OPEN_MARK = "● "


@dataclass
class More:
    """A "more…" entry: the next page of a list, from ``cursor``."""

    parent: str | None
    cursor: SessionCursor
    orphans: bool = False


@dataclass
class Group:
    """A grouping node: the orphans, or one of several open stores (its roots under it)."""

    name: str
    #: The store's place among the open stores (None: the orphans).
    store: int | None = None


NodeData = SessionNode | More | Group


@dataclass(frozen=True)
class TreeFilter:
    """An active filter: the matching sessions, those plus their ancestors, and what was asked."""

    matching: frozenset[str]
    visible: frozenset[str]
    description: str

    def line(self) -> Text:
        """The first line of a filtered tree: ``N sessions match `query` (esc clears)``."""
        count = len(self.matching)
        verb = "session matches" if count == 1 else "sessions match"
        text = Text(f"{count:,} {verb} ", style="bold")
        text.append("`").append(one_line(self.description, 80), style=style_of("agent")).append("`")
        return text.append(" (esc clears)", style="dim")


def node_label(
    node: SessionNode,
    now: datetime,
    usage: SessionUsage | None = None,
    state: SessionState | None = None,
    *,
    tag: str | None = None,
    is_open: bool = False,
    review: Annotation | None = None,
) -> Text:
    """The label of a session: its name (``views.labels``: title, what its parent asked or
    its first prompt, agent, short id) after the ``tag`` that tells colliding siblings apart,
    agent, counts, type, activity, markers; with ``usage`` its subtree tokens and cost and a
    failure mark, and with ``state`` how its last request ended (only when that is not a
    plain ending: the tree stays calm). ``is_open``: the session shown in the Raw Log.
    ``review``: the session's pin (first), labels and note mark (after its name)."""
    label = Text()
    if review is not None and review.pinned:
        label.append(PIN + " ", style=style_of("review.pin"))
    if is_open:
        label.append(OPEN_MARK, style="bold " + style_of("agent"))
    if state is not None and state.badge:
        # First, where a narrow tree still shows it (a prompt as label is long).
        label.append(state.badge, style="dim" if state.quiet else style_of("problem")).append(" ")
    name = node_name(node)
    if tag and tag.rstrip("…") and name.rstrip("…") and tag.rstrip("…").startswith(name.rstrip("…")):
        name, tag = tag, None  # the name is a short id: the longer prefix replaces it
    if tag:
        label.append(tag, style="bold").append(" ")
    label.append(name, style="" if node.title else "italic")
    if review is not None:
        review_marks(label, review)
    if usage is not None and usage.failed:
        label.append(" ✗", style=style_of("problem"))
    if usage is not None and (usage.subtree.tokens.total or usage.subtree.cost or usage.subtree.unpriced_steps):
        # Next to the name, where a narrow tree still shows it.
        label.append(" · ").append(compact(usage), style=style_of("usage.tree"))
    if node.agent_name and name != one_line(node.agent_name.strip(), 120):
        label.append(" · ").append(clean(node.agent_name), style=style_of("agent"))
    label.append(" · ").append(f"{node.message_count:,} msg", style="dim")
    if node.child_count:
        label.append(" · ").append(f"↳{node.child_count}", style=style_of("children"))
    if node.snapshot_count:
        label.append(" · ").append(f"◆{node.snapshot_count}", style=style_of("snapshots"))
    if node.store:  # several stores open: the one holding it, when not its parent's
        label.append(" · ").append(f"@{clean(node.store)}", style=style_of("store"))
    if node.session_type:
        label.append(" · ").append(f"type {node.session_type}", style=style_of("session.type"))
    label.append(" · ").append(relative_time(node.updated_at, now), style="dim")
    if node.problems:  # a damaged row is shown, never hidden: say what is wrong with it
        label.append(" · ").append(f"⚠ {clean(node.problems[0])[:60]}", style=style_of("problem"))
    return label


def relabel(node: TreeNode[NodeData], label: Text) -> bool:
    """Give ``node`` ``label`` unless it already reads so (same text, same styles); True when
    it changed. ``TreeNode.set_label`` repaints the node's line and every line under it even
    for the label it has, and a follow poll re-labels the sessions it touched (their states
    read again, their usage) whether anything changed or not."""
    old = node.label
    if isinstance(old, Text) and old.plain == label.plain and old.spans == label.spans and old.style == label.style:
        return False
    node.set_label(label)
    return True


def walk(root: TreeNode[NodeData]) -> Iterator[TreeNode[NodeData]]:
    """Every node under ``root`` (not ``root`` itself), depth first, last child first."""
    stack = list(root.children)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


class ChildLoads:
    """Which nodes' children were asked for, and which nodes open once they arrive.

    ``ask`` asks for a node's first page of children (the tree posts its message) and says
    False when the node has none to ask for.
    """

    def __init__(self, ask: Callable[[TreeNode[NodeData]], bool]) -> None:
        self.ask = ask
        #: Nodes whose children were asked for (node ids start again after a reload).
        self.loaded: set[int] = set()
        #: Nodes the user opened before their children were read: expanded on arrival.
        self.expand_on_arrival: set[int] = set()

    def request(self, node: TreeNode[NodeData]) -> bool:
        """Ask for a node's first page of children; False when it has none to ask for."""
        if self.ask(node):
            self.loaded.add(node.id)
            return True
        return False

    def toggle(self, node: TreeNode[NodeData]) -> bool:
        """``node`` is toggled: whether it folds or unfolds now (not when its children are
        asked for first, nor when it is closed again before they came)."""
        if node.id in self.expand_on_arrival:
            self.expand_on_arrival.discard(node.id)  # opened and closed before the children came
            return False
        if node.allow_expand and not node.is_expanded and node.id not in self.loaded:
            if self.request(node):
                self.expand_on_arrival.add(node.id)
                return False
        return True

    def open_level(self, node: TreeNode[NodeData]) -> bool:
        """Expand ``node`` for a reveal; False while its children are still being read."""
        if node.id in self.loaded:
            if not node.is_expanded:
                node.expand()
            return node.id not in self.expand_on_arrival
        if not node.allow_expand:
            node.allow_expand = True
        if self.request(node):
            self.expand_on_arrival.add(node.id)
            return False
        return True

    def arrived(self, parent: TreeNode[NodeData]) -> None:
        """A page of ``parent``'s children arrived: open it if the user asked to."""
        self.loaded.add(parent.id)
        if parent.id in self.expand_on_arrival:
            self.expand_on_arrival.discard(parent.id)
            parent.expand()

    def forget(self, node: TreeNode[NodeData]) -> None:
        """A read of ``node``'s children failed: ask again the next time it is opened."""
        self.loaded.discard(node.id)
        self.expand_on_arrival.discard(node.id)

    def clear(self) -> None:
        """The tree is read again: nothing is loaded."""
        self.loaded.clear()
        self.expand_on_arrival.clear()


def attached(root: TreeNode[NodeData], node: TreeNode[NodeData]) -> bool:
    """Whether ``node`` is under ``root`` as it is now (node ids start again after a reload)."""
    while node.parent is not None:
        node = node.parent
    return node is root


def find_session(root: TreeNode[NodeData], session_id: str) -> TreeNode[NodeData] | None:
    """The loaded node of a session under ``root``, if any."""
    return next((n for n in walk(root) if isinstance(n.data, SessionNode) and n.data.session_id == session_id), None)


def child_session(parent: TreeNode[NodeData], session_id: str) -> TreeNode[NodeData] | None:
    """The child of ``parent`` that holds a session, if any."""
    return next(
        (c for c in parent.children if isinstance(c.data, SessionNode) and c.data.session_id == session_id), None
    )


def mark_nodes(
    root: TreeNode[NodeData],
    states: Mapping[str, SessionState],
    hints: Mapping[str, str],
    label_of: Callable[[SessionNode], Text],
) -> bool:
    """Relabel the loaded nodes under ``root`` that ``states`` or ``hints`` name; an untitled
    node without a label hint takes its hint (a hint never replaces one: labels stay stable).
    True when a node's label changed."""
    relabelled = False
    for node in walk(root):
        data = node.data
        if not isinstance(data, SessionNode) or (data.session_id not in states and data.session_id not in hints):
            continue
        hint = hints.get(data.session_id)
        if hint and not data.title and data.label_hint is None:
            node.data = data = replace(data, label_hint=hint)
        relabelled = relabel(node, label_of(data)) or relabelled
    return relabelled


#: The tag book's key of the roots' level and of the orphans' group.
ROOTS, ORPHANS = "", "\0orphans"


class TagBook:
    """The tags that tell colliding siblings apart, kept for every level the tree has shown.

    What was seen of a level is remembered across re-reads of the tree (a filter, a sort,
    ``esc``), so a filter that shows fewer siblings never changes a label; names (label
    hints) are remembered too, so a re-read never flashes short ids.
    """

    def __init__(self) -> None:
        self.tags: dict[str, str] = {}
        #: The ``#seq`` of the parent's call that made a session and its place in its message.
        self.asked: dict[str, tuple[int, int | None]] = {}
        #: The label hints seen (what a parent asked, a first prompt), by session.
        self.hints: dict[str, str] = {}
        self._seen: dict[str, dict[str, Sibling]] = {}

    def known(self, node: SessionNode) -> SessionNode:
        """``node`` with the label hint it had before, when a re-read brought none."""
        hint = self.hints.get(node.session_id)
        if node.label_hint is None and hint is not None and not node.title:
            return replace(node, label_hint=hint)
        return node

    def update(self, level: str, nodes: Iterable[SessionNode]) -> set[str]:
        """Note ``nodes`` as siblings of ``level``; the ids whose tag changed."""
        seen = self._seen.setdefault(level, {})
        for node in nodes:
            if node.label_hint:
                self.hints[node.session_id] = node.label_hint
            seen[node.session_id] = sibling(node, self.asked.get(node.session_id))
        tags = distinguish(list(seen.values()))
        changed = {session_id for session_id in seen if tags.get(session_id) != self.tags.get(session_id)}
        for session_id in changed:
            if session_id in tags:
                self.tags[session_id] = tags[session_id]
            else:
                self.tags.pop(session_id, None)
        return changed


def level_of(node: TreeNode[NodeData]) -> str:
    """The tag book's key of the level ``node``'s children form."""
    data = node.data
    if isinstance(data, SessionNode):
        return data.session_id
    return ORPHANS if isinstance(data, Group) else ROOTS
