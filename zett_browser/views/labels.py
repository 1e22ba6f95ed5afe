"""Provides the one rule that names a session, wherever it is shown (pure, toolkit-free).

A session is named by, in order: its title; what its parent asked it (the ``task`` call's
description, read by the storage into ``SessionNode.label_hint``) or, without such a call,
its first prompt (also in ``label_hint``); its agent's name; its short id. zett-agent's
runtime writes no title and no agent name, and children of one parent are often given the
same brief, so siblings' names collide: :func:`distinguish` then gives each colliding
sibling a *tag* that tells it apart, the ``#seq`` of the parent's call that made it when
known, else the shortest id prefix that is unique among them, else its start time.

Every string returned is cleaned (:func:`zett_browser.text.clean`, one line): store text is
hostile. Tags depend only on the sessions compared, never on a filter: a caller keeps the
tags it assigned (see ``SessionTree``) so a label never changes when fewer siblings show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from ..model.frozen import frozen
from ..text import one_line

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from ..model.records import SessionNode

#: A UUID as zett-agent writes session ids (``uuid7()``: the first 12 hex digits are the time).
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
#: Characters of a UUID shown when nothing else tells it apart (its time to the minute).
UUID_PREFIX = 8
#: Characters of any other id shown whole before it is cut.
ID_ROOM = 40
#: Characters compared when deciding whether two names collide: beyond this a narrow pane
#: never shows the difference anyway.
COLLIDE_CHARS = 40
#: Longest name returned (views cut again to their width).
LABEL_CHARS = 120


def short_id(session_id: str, room: int = ID_ROOM) -> str:
    """A session id short enough for a line: a UUID's first eight characters and ``…``;
    any other id whole when it fits ``room``, else cut with ``…`` (cleaned)."""
    if UUID.match(session_id):
        return session_id[:UUID_PREFIX] + "…"
    return one_line(session_id, max(room, UUID_PREFIX + 1))


def unique_prefixes(session_ids: Iterable[str], minimum: int = UUID_PREFIX) -> dict[str, str]:
    """For each id, its shortest prefix (at least ``minimum`` characters, never ending on a
    dash) that no other id of the set starts with; ``…`` marks a prefix that is not the whole
    id. Typed back to ``--session``, a prefix names that session (among these)."""
    ids = sorted(set(session_ids))
    found: dict[str, str] = {}
    for index, session_id in enumerate(ids):
        shared = 0
        for other in (ids[index - 1] if index else None, ids[index + 1] if index + 1 < len(ids) else None):
            if other is not None:
                shared = max(shared, _common(session_id, other))
        length = min(len(session_id), max(minimum, shared + 1))
        while length < len(session_id) and session_id[length - 1] == "-":
            length += 1
        prefix = session_id[:length]
        cut = length < len(session_id)
        found[session_id] = one_line(prefix, length + 1) + ("…" if cut else "")
    return found


def _common(one: str, other: str) -> int:
    count = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        count += 1
    return count


def base_label(
    session_id: str, title: str | None, hint: str | None = None, agent: str | None = None, width: int = LABEL_CHARS
) -> str:
    """The session's name before siblings are compared: the title, else ``hint`` (what the
    parent asked, else the first prompt), else the agent's name, else the short id."""
    for value in (title, hint, agent):
        if value and value.strip():
            return one_line(value.strip(), width)
    return short_id(session_id, min(width, ID_ROOM))


def node_name(node: SessionNode, width: int = LABEL_CHARS) -> str:
    """:func:`base_label` of a tree node."""
    return base_label(node.session_id, node.title, node.label_hint, node.agent_name, width)


@frozen
class Sibling:
    """What :func:`distinguish` compares of one session.

    Attributes:
        session_id: The session's id.
        name: Its :func:`base_label`.
        asked_at: The ``#seq`` of the parent's call that made it, when known.
        started: When it started, when known.
        call_number: The call's place among its message's tool calls (parallel calls).
    """

    session_id: str
    name: str
    asked_at: int | None = None
    started: datetime | None = None
    call_number: int | None = None


def sibling(node: SessionNode, asked: tuple[int, int | None] | None = None) -> Sibling:
    """A tree node as :func:`distinguish` compares it (``asked``: the call's ``#seq`` and
    its place in its message)."""
    seq, number = asked if asked is not None else (None, None)
    return Sibling(node.session_id, node_name(node), seq, node.created_at, number)


def collide_key(name: str) -> str:
    """What two names must share to collide (their start, case and spacing ignored)."""
    return " ".join(name.casefold().split())[:COLLIDE_CHARS]


def distinguish(siblings: Sequence[Sibling]) -> dict[str, str]:
    """Tags for the siblings whose names collide (others get none).

    Within a group of colliding names: ``#seq`` of the parent's call when every member has a
    different one; ``#seq.n`` (the n-th call of that message) when parallel calls of one
    message made them; else each id's shortest unique prefix when that is shorter than the id
    (UUIDs: always); else the start time (``HH:MM:SS``).
    """
    groups: dict[str, list[Sibling]] = {}
    for item in siblings:
        groups.setdefault(collide_key(item.name), []).append(item)
    tags: dict[str, str] = {}
    for group in groups.values():
        ids = {item.session_id for item in group}
        if len(ids) < 2:
            continue
        seqs = [item.asked_at for item in group]
        if all(seq is not None for seq in seqs) and len(set(seqs)) == len(group):
            tags.update({item.session_id: f"#{item.asked_at}" for item in group})
            continue
        calls = [(item.asked_at, item.call_number) for item in group]
        if all(None not in call for call in calls) and len(set(calls)) == len(group):
            shared = {seq for seq in seqs if seqs.count(seq) > 1}
            tags.update(
                {
                    item.session_id: f"#{item.asked_at}.{item.call_number}"
                    if item.asked_at in shared
                    else f"#{item.asked_at}"
                    for item in group
                }
            )
            continue
        prefixes = unique_prefixes(ids)
        if all(len(prefixes[i].rstrip("…")) < ID_ROOM for i in ids):
            tags.update({item.session_id: prefixes[item.session_id] for item in group})
            continue
        for item in group:
            tags[item.session_id] = item.started.strftime("%H:%M:%S") if item.started else prefixes[item.session_id]
    return tags


def tagged(name: str, tag: str | None) -> str:
    """A name with its tag in front (where a narrow pane still shows it)."""
    if not tag:
        return name
    bare_name, bare_tag = name.rstrip("…"), tag.rstrip("…")
    if bare_tag.startswith(bare_name) or bare_name.startswith(bare_tag):
        return tag if len(bare_tag) >= len(bare_name) else name  # a short id's name: one id is enough
    return f"{tag} {name}"


def label_all(nodes: Sequence[SessionNode], width: int = LABEL_CHARS) -> dict[str, str]:
    """Every node's full label (name, and a tag in front when siblings collide), for lists
    that show a set of sessions at once (CLI tables, search hits of one page)."""
    tags = distinguish([sibling(node) for node in nodes])
    return {node.session_id: tagged(node_name(node, width), tags.get(node.session_id)) for node in nodes}


__all__ = [
    "COLLIDE_CHARS",
    "ID_ROOM",
    "LABEL_CHARS",
    "UUID_PREFIX",
    "Sibling",
    "base_label",
    "collide_key",
    "distinguish",
    "label_all",
    "node_name",
    "short_id",
    "sibling",
    "tagged",
    "unique_prefixes",
]
