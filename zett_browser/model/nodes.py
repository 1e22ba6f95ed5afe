"""Provides the session tree's node record and the asked-for label, defined apart from the
other records (:mod:`.records` re-exports them): naming search hits on the command line
(``zett-browser search``) needs these two and no message type.
"""

from __future__ import annotations

from datetime import datetime

from .frozen import field, frozen


@frozen
class SessionNode:
    """A session as the tree shows it: identity, counts and activity.

    ``message_count`` is the last Raw Log sequence (the row count in any store zett-agent
    wrote: sequences run 1, 2, 3 ... without gaps); ``child_count`` counts delegated sessions
    whose parent is this one; ``snapshot_count`` counts compaction checkpoints.
    """

    session_id: str
    parent_session_id: str | None
    session_type: int
    title: str | None
    agent_name: str | None
    created_at: datetime
    updated_at: datetime
    message_count: int
    child_count: int
    snapshot_count: int
    #: What could not be read (a timestamp, non-UTF-8 text) or is wrong with the row
    #: ("parent cycle"); empty for a healthy session.
    problems: tuple[str, ...] = field(default=(), compare=False)
    #: What the tree shows for an untitled session (the parent's task request), if known.
    label_hint: str | None = None
    #: The open store holding the session (its short name), when several are open and
    #: its parent is not in the same one (roots, orphans, a child written elsewhere).
    store: str | None = field(default=None, compare=False)

    @property
    def is_root(self) -> bool:
        """Whether the session has no parent."""
        return self.parent_session_id is None


class AskedLabel(str):
    """A delegated session's label (what its parent asked) that also knows the ``#seq`` of
    the parent's call that made it: siblings asked the same are then told apart by it.

    It is the label itself wherever a string is expected (``child_labels`` returns these).
    """

    asked_at: int | None
    #: The call's place among its message's tool calls (1: the first), for parallel calls.
    call_number: int | None

    def __new__(cls, text: str, asked_at: int | None = None, call_number: int | None = None) -> AskedLabel:
        label = super().__new__(cls, text)
        label.asked_at = asked_at
        label.call_number = call_number
        return label


def asked_at(label: object) -> tuple[int, int | None] | None:
    """The ``#seq`` of the call a label was asked by and the call's place in its message
    (None: a plain label)."""
    if isinstance(label, AskedLabel) and label.asked_at is not None:
        return label.asked_at, label.call_number
    return None


__all__ = ["AskedLabel", "SessionNode", "asked_at"]
