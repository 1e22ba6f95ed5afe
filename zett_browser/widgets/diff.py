"""Provides the diff view's renderables: two summaries side by side, the absorbed range, the drops.

Everything here is built from text the caller already cleaned (``text.clean``): the
summaries and the Raw Log range are untrusted, so they reach Rich only as plain ``Text``
(never markup), with styles applied by character spans.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..model.compaction import RangeText, SnapshotMeta
from ..views.snapdiff import DiffLine, Dropped
from .render import style_of

#: Styles of the two sides' changed lines and words.
_OLD = "{text-error}"
_NEW = "{text-success}"


def _side(line: str | None, spans: Sequence[tuple[int, int]], tag: str, *, old: bool) -> Text:
    if line is None:
        return Text("")
    text = Text(line)
    if tag in ("delete", "insert") or (tag == "replace" and not spans):
        text.stylize(style_of("tool.result.failed") if old else style_of("tool.result.ok"))
    for start, end in spans:
        text.stylize(f"bold reverse {style_of('error') if old else style_of('tool.result.ok')}".strip(), start, end)
    if tag != "equal":
        marker = "- " if old else "+ "
        return Text(marker, style="bold") + text
    return Text("  ") + text


def diff_table(lines: Sequence[DiffLine], older: SnapshotMeta, newer: SnapshotMeta) -> Table:
    """The two summaries side by side: removed/changed on the left, added/changed on the right."""
    table = Table(expand=True, show_edge=False, pad_edge=False, box=None, padding=(0, 1))
    table.add_column(Text(f"v{older.version} (through #{older.compacted_through_sequence:,})"), ratio=1)
    table.add_column(Text(f"v{newer.version} (through #{newer.compacted_through_sequence:,})"), ratio=1)
    for line in lines:
        table.add_row(
            _side(line.left, line.left_changed, line.tag, old=True),
            _side(line.right, line.right_changed, line.tag, old=False),
        )
    return table


def absorbed_text(older: SnapshotMeta, newer: SnapshotMeta, absorbed: RangeText) -> Text:
    """Which Raw Log range the newer summary absorbed."""
    low, high = older.compacted_through_sequence, newer.compacted_through_sequence
    text = Text("Absorbed by the newer summary: ", style="bold")
    if high <= low:
        text.append(f"nothing new (its boundary #{high:,} is not after #{low:,})")
        return text
    text.append(f"Raw Log #{low + 1:,}–#{high:,} ({absorbed.rows:,} rows")
    text.append(", read in part)" if absorbed.truncated else ")")
    return text


def dropped_text(dropped: Dropped) -> Text:
    """What compaction dropped: terms of the range or the older summary missing from the newer."""
    text = Text("What compaction dropped", style="bold")
    text.append(
        "  identifiers, numbers and paths in the absorbed range or the older summary, not in the newer\n",
        style="dim",
    )
    if not dropped.total:
        text.append("nothing: every identifier, number and path is still in the newer summary", style="dim")
        return text
    for name, found in (("paths", dropped.paths), ("identifiers", dropped.identifiers), ("numbers", dropped.numbers)):
        if not found:
            continue
        text.append(f"{name} ({len(found):,}): ", style=style_of("boundary"))
        text.append(", ".join(found))
        text.append("\n")
    text.rstrip()
    return text


def diff_view(
    lines: Sequence[DiffLine], older: SnapshotMeta, newer: SnapshotMeta, absorbed: RangeText, dropped: Dropped
) -> RenderableType:
    """The whole diff body."""
    return Group(
        absorbed_text(older, newer, absorbed),
        Text(""),
        diff_table(lines, older, newer),
        Text(""),
        dropped_text(dropped),
    )
