"""Provides the step-by-step alignment of two runs, streamed window by window.

The steps of each run (:mod:`.compare_steps`) are aligned on their keys with Myers'
shortest edit script (:func:`edit_script`: linear in the steps when the runs are alike,
which two runs of one task are), inside a window of each run: the script is committed up
to its last match that leaves a margin of both windows unread, the committed steps are
dropped, the windows are refilled and aligned again. Memory holds two windows, whatever
the runs' length; when the runs differ too much inside a window (more than ``max_d``
edits) difflib's matcher aligns that window instead.

Unmatched steps between two matches are paired by kind (a tool call with a tool call, a
model step with a model step) into :attr:`RowStatus.CHANGED` rows that say why they differ
(:func:`reason`): a different tool, different arguments, a different stop; the rest stay
on one side. Matched steps whose result or reply differs are CHANGED too. A step left on
one side after the other run's last step is that run having stopped.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .compare_steps import Step, StepKind

#: Steps of each run aligned at once, and the margin left unread at a window's end.
WINDOW = 1_000
FIRST_WINDOW = 64
#: Edits beyond which a window is aligned by difflib instead of the exact shortest script.
MAX_D = 256

EQUAL, DELETE, INSERT = 0, 1, 2
Op = tuple[int, int, int]  # (what, index in a, index in b); -1 for the side it lacks


class RowStatus(StrEnum):
    """How an aligned row's two sides relate."""

    SAME = "same"
    CHANGED = "changed"
    LEFT = "only A"
    RIGHT = "only B"


@dataclass(frozen=True, slots=True)
class Row:
    """One aligned row: a step of each run (or of one), and why they differ ("" when they don't)."""

    index: int
    left: Step | None
    right: Step | None
    status: RowStatus
    reason: str = ""

    @property
    def diverges(self) -> bool:
        """Whether the runs differ at this row."""
        return self.status is not RowStatus.SAME


def _backtrack(trace: list[list[int]], n: int, m: int) -> list[Op]:
    ops: list[Op] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        previous = k + 1 if k == -d or (k != d and v[k - 1] < v[k + 1]) else k - 1
        px = v[previous]
        py = px - previous
        while x > px and y > py:
            x, y = x - 1, y - 1
            ops.append((EQUAL, x, y))
        if d > 0:
            ops.append((INSERT, -1, py) if x == px else (DELETE, px, -1))
        x, y = px, py
    ops.reverse()
    return ops


def edit_script(a: Sequence[str], b: Sequence[str], max_d: int = MAX_D) -> list[Op]:
    """The shortest edit script from ``a`` to ``b`` (Myers); difflib's past ``max_d`` edits."""
    n, m = len(a), len(b)
    limit = min(max_d, n + m)
    v = [0] * (2 * limit + 3)
    trace: list[list[int]] = []
    for d in range(limit + 1):
        trace.append(v[:])
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
    return _difflib_script(a, b)


def _difflib_script(a: Sequence[str], b: Sequence[str]) -> list[Op]:
    ops: list[Op] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal":
            ops.extend((EQUAL, i1 + offset, j1 + offset) for offset in range(i2 - i1))
            continue
        ops.extend((DELETE, i, -1) for i in range(i1, i2))
        ops.extend((INSERT, -1, j) for j in range(j1, j2))
    return ops


def reason(left: Step, right: Step) -> str:
    """Why two paired steps differ ("" when they do not)."""
    if left.kind is StepKind.TOOL:
        if left.tool != right.tool:
            return "different tool"
        if left.arguments != right.arguments:
            return "different arguments"
        if (left.outcome is None) != (right.outcome is None):
            return "no result"
        return "different result" if left.detail != right.detail or left.outcome != right.outcome else ""
    if left.kind is StepKind.MODEL:
        if left.stop != right.stop:
            return "different stop"
        return "different reply" if left.detail != right.detail else ""
    return "different prompt" if left.key != right.key else ""


class Aligner:
    """Aligns two step streams; counts what it found and remembers the first divergence."""

    def __init__(self, *, window: int = WINDOW, first_window: int = FIRST_WINDOW, max_d: int = MAX_D) -> None:
        self.window = window
        self.first_window = first_window
        self.max_d = max_d
        self.rows = 0
        self.counts = {status: 0 for status in RowStatus}
        self.first: Row | None = None
        #: Rows where a stretch of differences starts (the first divergence included).
        self.divergences = 0
        #: The most steps held at once (both windows): bounded, whatever the runs' length.
        self.peak_held = 0
        self._previous_diverged = False

    def _row(self, left: Step | None, right: Step | None, status: RowStatus, why: str) -> Row:
        row = Row(self.rows, left, right, status, why)
        self.rows += 1
        self.counts[status] += 1
        if row.diverges and not self._previous_diverged:
            self.divergences += 1
            if self.first is None:
                self.first = row
        self._previous_diverged = row.diverges
        return row

    def _pair(self, lefts: list[Step], rights: list[Step], ended: tuple[bool, bool]) -> list[Row]:
        """Rows for a run of unmatched steps: paired by kind, the rest on one side."""
        if not lefts and not rights:
            return []
        rows = []
        ops = edit_script([s.kind.value for s in lefts], [s.kind.value for s in rights], self.max_d)
        # A step after the other run's last one: the other run stopped before it.
        last_left = max((number for number, op in enumerate(ops) if op[0] != INSERT), default=-1)
        last_right = max((number for number, op in enumerate(ops) if op[0] != DELETE), default=-1)
        for number, (what, i, j) in enumerate(ops):
            if what == EQUAL:
                rows.append(self._row(lefts[i], rights[j], RowStatus.CHANGED, reason(lefts[i], rights[j])))
            elif what == DELETE:
                why = "B stopped" if ended[1] and number > last_right else "only in A"
                rows.append(self._row(lefts[i], None, RowStatus.LEFT, why))
            else:
                why = "A stopped" if ended[0] and number > last_left else "only in B"
                rows.append(self._row(None, rights[j], RowStatus.RIGHT, why))
        return rows

    def _commit(self, ops: list[Op], a: list[Step], b: list[Step], ended: tuple[bool, bool]) -> list[Row]:
        rows: list[Row] = []
        lefts: list[Step] = []
        rights: list[Step] = []
        for what, i, j in ops:
            if what == EQUAL:
                rows += self._pair(lefts, rights, (False, False))
                lefts, rights = [], []
                why = reason(a[i], b[j])
                rows.append(self._row(a[i], b[j], RowStatus.CHANGED if why else RowStatus.SAME, why))
            elif what == DELETE:
                lefts.append(a[i])
            else:
                rights.append(b[j])
        # Steps after the other run's very last step: that run stopped there.
        rows += self._pair(lefts, rights, ended)
        return rows

    def _cut(self, ops: list[Op], sizes: tuple[int, int], done: tuple[bool, bool], margin: int) -> int:
        """How many ops to commit: through the last match that leaves ``margin`` of each window."""
        if done[0] and done[1]:
            return len(ops)
        limit_a = sizes[0] - (0 if done[0] else margin)
        limit_b = sizes[1] - (0 if done[1] else margin)
        used_a = used_b = 0
        last_equal = last_any = 0
        for number, (what, _, _) in enumerate(ops, 1):
            used_a += what != INSERT
            used_b += what != DELETE
            if used_a > limit_a or used_b > limit_b:
                break
            last_any = number
            if what == EQUAL:
                last_equal = number
        return last_equal or last_any or 1

    async def align(
        self, left: AsyncIterator[list[Step]], right: AsyncIterator[list[Step]]
    ) -> AsyncIterator[list[Row]]:
        """The aligned rows, in order, a window at a time."""
        a: list[Step] = []
        b: list[Step] = []
        done = [False, False]
        window = self.first_window
        while True:

            async def fill(side: int, steps: list[Step], source: AsyncIterator[list[Step]], size: int) -> None:
                while not done[side] and len(steps) < size:
                    try:
                        steps.extend(await anext(source))
                    except StopAsyncIteration:
                        done[side] = True

            # Both runs' pages are read at once (the store answers each on a connection of its own).
            await asyncio.gather(fill(0, a, left, window), fill(1, b, right, window))
            self.peak_held = max(self.peak_held, len(a) + len(b))
            if not a and not b:
                return
            ops = edit_script([s.key for s in a], [s.key for s in b], self.max_d)
            cut = self._cut(ops, (len(a), len(b)), (done[0], done[1]), window // 4)
            taken = ops[:cut]
            used_a = sum(what != INSERT for what, _, _ in taken)
            used_b = sum(what != DELETE for what, _, _ in taken)
            ended = (done[0] and used_a == len(a), done[1] and used_b == len(b))
            rows = self._commit(taken, a, b, ended)
            del a[:used_a]
            del b[:used_b]
            window = self.window
            yield rows


__all__ = ["FIRST_WINDOW", "MAX_D", "WINDOW", "Aligner", "Row", "RowStatus", "edit_script", "reason"]
