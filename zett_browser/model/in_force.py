"""Provides the rule for which snapshot version was in force at a past step, in one place.

zett-agent's ``load()`` restores the latest snapshot; at a past step that is the highest
version that existed then: created at or before the step began (message N's
``started_at``), and summarising only rows before N (a snapshot whose boundary is N or
later was made after row N was written, whatever its clock says). A version whose time
cannot be read cannot be said to have existed then: it is left out and counted, when it
is newer than the one chosen (an older one would not have been in force anyway).

The storage and the command line's stdlib reader walk the candidates newest first
(:func:`newest_dated_by`) and stop at the first one dated by then; the views apply the
same rule to versions they hold (:func:`zett_browser.views.time_travel.in_force`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any


def newest_dated_by(candidates: Iterable[tuple[Any, Any]], when: datetime) -> tuple[Any, int]:
    """The first of ``candidates`` (``(version, created_at)``, newest first) created by
    ``when``, or None, and how many undated ones came before it. A version that is not an
    integer (a damaged row) names no snapshot that could be read back: it is passed over."""
    undated = 0
    for version, created in candidates:
        if type(version) is not int:
            continue
        if not isinstance(created, datetime):
            undated += 1
        elif created <= when:
            return version, undated
    return None, undated


#: What the row conversions record for a version or boundary that is not an integer
#: (``storage.noderows.int_field``): such a snapshot reads as version or boundary 0.
VERSION_UNREADABLE = "version is not an integer"
BOUNDARY_UNREADABLE = "compacted_through_sequence is not an integer"


def passed_over(problems: Iterable[str], before_sequence: int | None) -> bool:
    """Whether a converted snapshot is left out as the SQL leaves it out: a version that is not
    an integer names no snapshot (now or at a past step); a boundary that is not one cannot
    be said to lie before message ``before_sequence`` (in SQL, text sorts after numbers)."""
    for problem in problems:
        if problem.startswith(VERSION_UNREADABLE):
            return True
        if before_sequence is not None and problem.startswith(BOUNDARY_UNREADABLE):
            return True
    return False


def may_be_in_force(boundary: int, before_sequence: int | None) -> bool:
    """Whether a snapshot summarising rows up to ``boundary`` can have been in force at the
    step of message ``before_sequence`` (None: any step)."""
    return before_sequence is None or boundary < before_sequence


__all__ = ["BOUNDARY_UNREADABLE", "VERSION_UNREADABLE", "may_be_in_force", "newest_dated_by", "passed_over"]
