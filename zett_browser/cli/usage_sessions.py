"""Provides the rows of ``usage --by session``: sessions named as the tree names them, nested.

Each row is a session's own usage. A delegated session is shown under its parent
(indented, ``↳``) when the parent has a row too, else where its activity puts it; the
first column holds the id's shortest unique prefix (what ``--session`` takes) and the
session's label by the one rule (``views.labels``). Labels are read from the store in
batches on one event loop, every session's, for at most :data:`LABEL_BUDGET_S` seconds (a
store of hundreds of thousands of sessions then shows the rest by the index's name): a
label is decoration.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..index.hit_labels import MAX_SESSIONS, session_labels
from ..index.usage import ReportRow, session_parents
from ..startup.lifecycle import run_async
from ..text import one_line
from ..views.labels import UUID_PREFIX, tagged, unique_prefixes

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage

#: Seconds the labels are read for at most (those not read by then show the index's name).
LABEL_BUDGET_S = 5.0
#: Deepest indentation shown (deeper sessions stay at this depth).
MAX_DEPTH = 8


def nested(rows: Sequence[ReportRow], parents: dict[str, str | None]) -> list[tuple[int, ReportRow]]:
    """``rows`` with children placed after their parent (depth first), each with its depth.

    A row whose parent has no row is a top-level row, in the order given; a parent cycle
    (a damaged store) cannot loop: every row is placed once.
    """
    present = {row.key for row in rows}
    children: dict[str, list[ReportRow]] = {}
    tops: list[ReportRow] = []
    for row in rows:
        parent = parents.get(row.key)
        if parent is not None and parent in present and parent != row.key:
            children.setdefault(parent, []).append(row)
        else:
            tops.append(row)
    placed: list[tuple[int, ReportRow]] = []
    seen: set[str] = set()

    def place(row: ReportRow, depth: int) -> None:
        stack = [(row, depth)]
        while stack:
            current, level = stack.pop()
            if current.key in seen:
                continue
            seen.add(current.key)
            placed.append((level, current))
            stack.extend((child, level + 1) for child in reversed(children.get(current.key, [])))

    for row in tops:
        place(row, 0)
    for row in rows:  # rows only reachable through a cycle
        place(row, 0)
    return placed


def session_labels_of(
    storage: SQLSessionStorage, session_ids: Sequence[str], budget: float = LABEL_BUDGET_S
) -> dict[str, str]:
    """Labels of the sessions, read in batches on one loop for at most ``budget`` seconds
    (those read by then; none when the store cannot be read)."""
    wanted = list(session_ids)
    labels: dict[str, str] = {}

    async def read() -> None:
        deadline = time.monotonic() + budget
        try:
            for start in range(0, len(wanted), MAX_SESSIONS):
                if time.monotonic() > deadline:
                    return
                labels.update(await session_labels(storage, wanted[start : start + MAX_SESSIONS]))
        finally:
            await storage.close()  # what the reads opened (-wal/-shm files) goes

    try:
        run_async(read())
    except Exception:  # noqa: BLE001 - decoration: the id still shows
        return labels
    return labels


def session_lines(storage: SQLSessionStorage, path: Path, rows: Sequence[ReportRow]) -> list[tuple[str, ReportRow]]:
    """The first column of each row (indent, id prefix, label) in nested order."""
    ids = [row.key for row in rows]
    labels = session_labels_of(storage, ids)
    prefixes = unique_prefixes(ids)
    lines = []
    for depth, row in nested(rows, session_parents(path, ids)):
        indent = "  " * min(depth, MAX_DEPTH) + ("↳ " if depth else "")
        prefix = prefixes.get(row.key, one_line(row.key, 40))
        label = labels.get(row.key) or one_line(row.label, 80)
        head = label.split(" ", 1)[0].rstrip("…")
        if len(head) >= UUID_PREFIX and row.key.startswith(head):
            prefix = ""  # the label starts with an id prefix already (an untitled sibling's tag)
        lines.append((f"{indent}{tagged(label, prefix)}" if label else f"{indent}{prefix}", row))
    return lines


__all__ = ["LABEL_BUDGET_S", "nested", "session_labels_of", "session_lines"]
