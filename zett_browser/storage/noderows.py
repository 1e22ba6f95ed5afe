"""Provides the session row to tree node conversion and the column readers it shares with
:mod:`.convert` (which re-exports them), importable without any message type: naming
search hits on the command line reads nodes and nothing else.

As every converter: what cannot be read goes into ``problems``; nothing raises.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from datetime import UTC, datetime

from ..model.nodes import SessionNode
from .values import BadText

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any


def text_problems(row: Mapping[Any, Any], names: tuple[str, ...]) -> list[str]:
    """A problem for each of ``names`` whose value was not valid UTF-8."""
    return [f"{name} is not valid UTF-8" for name in names if isinstance(row[name], BadText)]


#: Stand-in for a timestamp that could not be read (the record says so in ``problems``).
UNREADABLE_TIME = datetime(1970, 1, 1, tzinfo=UTC)


def time_field(row: Mapping[Any, Any], name: str, problems: list[str], *, optional: bool = False) -> datetime | None:
    value = row[name]
    if isinstance(value, datetime):
        return value
    if value is None and optional:
        return None
    problems.append(f"{name} is not a timestamp: {value!r:.80}")
    return None if optional else UNREADABLE_TIME


def int_field(row: Mapping[Any, Any], name: str, problems: list[str], *, optional: bool = False) -> int | None:
    value = row[name]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is None and optional:
        return None
    problems.append(f"{name} is not an integer: {value!r:.80}")
    return None if optional else 0


def _count(value: Any) -> int:
    """A correlated count or last sequence; anything odd (a text sequence's max) is 0."""
    if type(value) is int:
        return value
    if (isinstance(value, (int, float)) or _is_decimal(value)) and not isinstance(value, bool) and math.isfinite(value):
        return int(value)
    return 0


def _is_decimal(value: object) -> bool:
    """Whether ``value`` is a ``Decimal`` (a server driver's count), without importing
    :mod:`decimal` (3 ms of ``search``'s start): a Decimal exists only once it is loaded."""
    module = sys.modules.get("decimal")
    return module is not None and isinstance(value, module.Decimal)


def node_from_row(row: Mapping[Any, Any]) -> SessionNode:
    """Build a tree node from a session row with its correlated counts.

    Written for speed (a page of children holds up to 1,000 nodes): each value is read
    once and checked by exact type, the slow path only for a damaged value.
    """
    session_id, parent, title, agent = row["id"], row["parent_session_id"], row["title"], row["agent_name"]
    problems = [
        f"{name} is not valid UTF-8"
        for name, value in (("id", session_id), ("parent_session_id", parent), ("title", title), ("agent_name", agent))
        if type(value) is BadText
    ]
    created, updated, session_type, last = (
        row["created_at"],
        row["updated_at"],
        row["session_type"],
        row["message_count"],
    )
    if type(created) is not datetime:
        created = time_field(row, "created_at", problems) or UNREADABLE_TIME
    if type(updated) is not datetime:
        updated = time_field(row, "updated_at", problems) or UNREADABLE_TIME
    if type(session_type) is not int:
        session_type = int_field(row, "session_type", problems) or 0
    if type(last) is not int:
        problems.append(f"the last sequence is not an integer: {last!r:.40}")
        last = _count(last)
    if parent is not None and parent == session_id:
        problems.append("parent cycle: it is its own parent")
    return SessionNode(
        session_id=session_id if isinstance(session_id, str) else str(session_id),  # BadText stays findable
        parent_session_id=parent,
        session_type=session_type,
        title=title,
        agent_name=agent,
        created_at=created,
        updated_at=updated,
        message_count=last,
        child_count=_count(row["child_count"]),
        snapshot_count=_count(row["snapshot_count"]),
        problems=tuple(problems),
    )


__all__ = ["UNREADABLE_TIME", "int_field", "node_from_row", "text_problems", "time_field"]
