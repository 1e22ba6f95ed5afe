"""Provides the Raw Log's page arithmetic and the back history, as pure functions.

No toolkit and no store: a screen asks these functions which window to read next and
where the reader was, then runs the read. ``tests/unit/test_paging.py`` covers them
without a database or an app.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import RawMessageRecord, SnapshotInfo
from ..model.compaction import SnapshotMeta

#: Places kept for ``b`` (a longer trail is not useful and would only grow).
HISTORY_LIMIT = 100
#: A ``select`` past every sequence: the cursor goes to the page's last row (``G``).
END = 2**63 - 1


@dataclass(frozen=True, slots=True)
class PageRequest:
    """Which window of a Raw Log to read.

    ``start``: from the very first row. Else ``after`` set: the records after it (after
    the row ``after_id`` exactly, when given: duplicate sequences in a damaged store are
    neither skipped nor repeated). Else ``before`` set: the records just before it (and
    before the row ``before_id``). Neither: the last page. ``select`` puts the cursor on
    that sequence.
    """

    after: int | None = None
    before: int | None = None
    select: int | None = None
    start: bool = False
    after_id: str | None = None
    before_id: str | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """Where a reader was: session, page start, cursor and view (what ``b`` returns to)."""

    session_id: str
    page_after: int | None = None
    cursor: int | None = None
    model_view: bool = False


def model_floor(snapshots: Sequence[SnapshotInfo | SnapshotMeta]) -> int:
    """The last sequence the model no longer sees (the latest boundary; 0 without one)."""
    return snapshots[-1].compacted_through_sequence if snapshots else 0


def page_start_for(sequence: int, size: int) -> int:
    """The ``after`` of the numbered page holding ``sequence`` (pages of ``size``)."""
    return max(0, ((max(1, sequence) - 1) // size) * size)


def first_page(floor: int = 0) -> PageRequest:
    """The first page (of the model's tail when ``floor`` is its boundary)."""
    return PageRequest(after=floor) if floor else PageRequest(start=True)


def last_page(*, select: int | None = None) -> PageRequest:
    """The page ending at the last row."""
    return PageRequest(select=select)


def next_page(shown: Sequence[RawMessageRecord], last: int) -> PageRequest | None:
    """The page after the shown one; None when the shown one reaches the end."""
    if shown and shown[-1].sequence < last:
        return PageRequest(after=shown[-1].sequence, after_id=shown[-1].id)
    return None


def prev_page(shown: Sequence[RawMessageRecord], first: int) -> PageRequest | None:
    """The page before the shown one; None when the shown one starts the log."""
    if shown and shown[0].sequence > first:
        return PageRequest(before=shown[0].sequence, before_id=shown[0].id)
    return None


def page_for(sequence: int, size: int) -> PageRequest:
    """The numbered page holding ``sequence``, with the cursor on it."""
    return PageRequest(after=page_start_for(sequence, size), select=sequence)


def jump_page(sequence: int, size: int, first: int, last: int) -> PageRequest:
    """The page a jump to ``sequence`` reads (``:N``, ``--seq``, a search hit), with the
    cursor on it: a quarter of a page before it and the rest after, so the message can show
    in the view's upper part with what follows below it. Near the end, the last page; near
    the start, the first. ``first`` and ``last`` are the session's bounds.
    """
    after = min(sequence - 1 - size // 4, last - size)
    if after < first:
        return PageRequest(start=True, select=sequence)
    return PageRequest(after=after, select=sequence)


def in_model_view(records: Sequence[RawMessageRecord], floor: int = 0) -> list[RawMessageRecord]:
    """The records the model is sent: after the latest boundary, and meant for the model.

    Every read path filters here (the last page and follow read *before* a sequence and
    would otherwise keep messages the summary replaced).
    """
    return [record for record in records if record.sequence > floor and record.message.include_in_messages]


def reaches_tail_start(request: PageRequest, raw: Sequence[RawMessageRecord], floor: int, size: int) -> bool:
    """True when a page read for the model view starts where the model's tail starts.

    That page shows the summary first. ``raw`` is the page as read, before filtering.
    """
    if request.start:
        return True
    if request.after is not None:
        return request.after <= floor
    return len(raw) < size or any(record.sequence <= floor for record in raw)


def toggle_view(shown_first: int | None, cursor: int | None, floor: int, *, to_model: bool, size: int) -> PageRequest:
    """The page to read when ``m`` switches views, keeping the cursor's message.

    Into the model view a message the model no longer sees cannot stay selected: the
    view opens on the tail's first page. Back in the Raw Log the same messages show.
    """
    if cursor is None or shown_first is None:
        return first_page(floor if to_model else 0)
    if to_model:
        if cursor <= floor:
            return first_page(floor)
        return PageRequest(after=max(floor, shown_first - 1), select=cursor)
    if cursor - shown_first >= size:
        return page_for(cursor, size)
    return PageRequest(after=max(0, shown_first - 1), select=cursor)


def clamp_to_floor(request: PageRequest, floor: int) -> PageRequest:
    """A request that starts no lower than the model view's boundary."""
    if floor and (request.start or (request.after is not None and request.after < floor)):
        return replace(request, start=False, after=floor, after_id=None)
    return request


def push_place(history: tuple[Place, ...], place: Place) -> tuple[Place, ...]:
    """The history with ``place`` added last (the oldest dropped past the limit)."""
    return (*history, place)[-HISTORY_LIMIT:]


def pop_place(history: tuple[Place, ...]) -> tuple[Place | None, tuple[Place, ...]]:
    """The last place and the history without it (None when empty)."""
    if not history:
        return None, history
    return history[-1], history[:-1]


def parse_sequence(typed: str) -> int | None:
    """A sequence typed into the jump field (``151``, ``#151``, ``1,151``), or None."""
    try:
        return int(typed.strip().lstrip("#").replace(",", ""))
    except ValueError:
        return None
