"""Provides how a comparison reads as text: each side of a row, the first divergence, the deltas.

Toolkit-free: ``zett-browser compare`` prints these lines and the compare screen paints
them. Every string from the store is already one cleaned line (:mod:`.compare_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .compare import Delta
from .compare_align import Row, RowStatus
from .compare_steps import Step, StepKind

#: How a row's status reads between its two sides.
MARKS = {"same": "=", "changed": "≠", "only A": "<", "only B": ">"}
#: Characters of each side a shown row keeps (half of a 200-column terminal).
SIDE_CHARS = 100


@dataclass(frozen=True, slots=True)
class ShownRow:
    """An aligned row as the compare view keeps it: its two sides' text ("" for no step), not
    its steps: about 0.5 KB a row (100,000 rows: ~50 MB), the messages never."""

    index: int
    status: RowStatus
    reason: str
    left: str
    right: str
    #: The sessions each side's call delegated to (``task``/``task_start``), when it names one.
    children: tuple[str | None, str | None] = (None, None)

    @property
    def diverges(self) -> bool:
        """Whether the runs differ at this row."""
        return self.status is not RowStatus.SAME


def shown(row: Row) -> ShownRow:
    """What the compare view keeps of ``row``."""
    left, right = side_text(row.left)[:SIDE_CHARS], side_text(row.right)[:SIDE_CHARS]
    children = (row.left.child if row.left else None, row.right.child if row.right else None)
    return ShownRow(row.index, row.status, row.reason, left, right, children)


def side_text(step: Step | None) -> str:
    """One side of an aligned row: what the step was (empty when the run has no step there)."""
    if step is None:
        return ""
    mark = "◆ " + ",".join(f"v{version}" for version in step.compactions) + " " if step.compactions else ""
    if step.kind is StepKind.USER:
        return f"{mark}#{step.sequence} user: {step.preview}"
    if step.kind is StepKind.MODEL:
        stop = f" [{step.stop}]" if step.stop else ""
        return f"{mark}#{step.sequence} model ctx {step.context:,}{stop}: {step.preview}"
    outcome = step.outcome.label if step.outcome is not None else "… no result"
    result = f" {step.result}" if step.result else ""
    return f"{mark}  ↳ {step.preview} → {outcome}{result}"


def where(row: Row) -> str:
    """Where a row is in each run: ``A #12 / B #14`` (sequences of the rows' messages)."""
    left = f"A #{row.left.sequence}" if row.left is not None else "A —"
    right = f"B #{row.right.sequence}" if row.right is not None else "B —"
    return f"{left} / {right}"


def describe(row: Row | None, *, complete: bool = True) -> str:
    """The first divergence in one line: where, and why."""
    if row is None:
        return "no divergence: the runs made the same steps" if complete else "no divergence yet"
    step = row.left or row.right
    what = step.tool or step.kind.value if step is not None else "step"
    return f"first divergence at row {row.index + 1} ({where(row)}): {row.reason} ({what})"


def delta_lines(deltas: list[Delta]) -> list[str]:
    """The deltas as a table: what, A, B, change, which run did better."""
    width = max(len(delta.what) for delta in deltas)
    left = max(len(delta.left) for delta in deltas)
    right = max(len(delta.right) for delta in deltas)
    lines = [f"{'':<{width}}  {'A':>{left}}  {'B':>{right}}  change"]
    for delta in deltas:
        better = f"  {delta.better} better" if delta.better else ""
        lines.append(f"{delta.what:<{width}}  {delta.left:>{left}}  {delta.right:>{right}}  {delta.change}{better}")
    return lines


def row_line(row: Row, width: int) -> str:
    """A row side by side in ``width`` columns: A's step, the mark, B's step."""
    half = max(10, (width - 3) // 2)
    left = _fit(side_text(row.left), half)
    right = _fit(side_text(row.right), half)
    return f"{left} {MARKS[row.status.value]} {right}".rstrip()


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


__all__ = ["MARKS", "SIDE_CHARS", "ShownRow", "delta_lines", "describe", "row_line", "shown", "side_text", "where"]
