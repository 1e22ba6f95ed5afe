"""Provides ``zett-browser compare``: two sessions aligned step by step, and which run did better.

``compare [STORE] A B [--json] [--limit N] [--width N]`` reads both sessions (ids, or
prefixes naming one session each, as ``--session`` takes them) a page at a time, aligns
their user turns, model steps and tool calls (:mod:`zett_browser.views.compare`), then
prints where the runs first diverge and why, the counts of matched and unmatched steps,
the deltas (steps, tool calls, failures, tokens by type, cost, measured time, compactions,
peak context) and the aligned rows side by side from just before the first divergence
(``--limit`` rows). ``--json`` prints the same as one JSON object whose ``rows`` are written
as they are aligned (``--limit 0``: every row). Errors are one line on stderr and exit
status 2. Nothing is written to the store.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections import deque
from pathlib import Path

from ..model.notes import Annotation
from ..startup.lifecycle import run_async
from ..storage import SQLSessionStorage, StoreError
from ..text import clean, one_line, safe_json
from ..views.compare import Comparison
from ..views.compare_align import Row
from ..views.compare_json import row_json, totals_json
from ..views.compare_text import delta_lines, describe, row_line, side_text
from ..views.labels import node_name
from .args import OneLineParser, add_notes_file, add_store, bounded, closed_pipe
from .notes import as_json
from .notes import line as notes_line
from .sessions import SessionChoiceError, resolve_session

#: Marks listed per session under ``--notes`` (``zett-browser notes`` lists them all).
REVIEW_LINES = 10
#: Rows printed by default, and rows shown before the first divergence.
LIMIT = 60
LEAD = 3


async def _resolve(storage: SQLSessionStorage, name: str, typed: str) -> str:
    """The session ``typed`` names; an error names the argument (``A``/``B``), not ``--session``."""
    try:
        return await resolve_session(storage, typed)
    except SessionChoiceError as error:
        raise SessionChoiceError(str(error).replace("--session ", f"{name} ", 1)) from None


async def _label(storage: SQLSessionStorage, session_id: str) -> str:
    node = await storage.get_node(session_id)
    if node is None:
        raise SessionChoiceError(f"no session {one_line(repr(session_id), 80)} in this store")
    return node_name(node)


def review(storage: SQLSessionStorage, left: str, right: str, notes_file: Path | None) -> dict[str, list[Annotation]]:
    """What is written on each session and its messages (``--notes``), from the notes file."""
    from ..notes import db as notes_db
    from ..notes.identity import of_storage

    identity, store = of_storage(storage)
    db = notes_db.open_file(notes_file or notes_db.default_file(), store, create=False)
    if db is None:
        return {"a": [], "b": []}
    try:
        return {side: notes_db.of_session(db, identity, sid) for side, sid in (("a", left), ("b", right))}
    finally:
        db.close()


def _review_text(marks: dict[str, list[Annotation]]) -> None:
    print()
    print("Review (your pins, labels and notes):")
    for side in ("a", "b"):
        items = marks[side]
        print(f"  {side.upper()}: " + ("nothing written" if not items else f"{len(items)} marked"))
        for item in items[:REVIEW_LINES]:
            print(f"    {notes_line(item)}")
        if len(items) > REVIEW_LINES:
            print(f"    … {len(items) - REVIEW_LINES} more (zett-browser notes)")


async def _json(
    comparison: Comparison, labels: tuple[str, str], limit: int, marks: dict[str, list[Annotation]] | None = None
) -> None:
    write = sys.stdout.write
    head = {"a": {"session_id": comparison.left_id, "label": labels[0]}}
    head["b"] = {"session_id": comparison.right_id, "label": labels[1]}
    write(safe_json(head)[:-1] + ', "rows": [')
    shown = 0
    async for rows in comparison.pages():
        for row in rows:
            if limit and shown >= limit:
                break
            write(("\n " if not shown else ",\n ") + safe_json(row_json(row)))
            shown += 1
    comparison.price()
    aligner = comparison.aligner
    tail = {
        "rows_total": aligner.rows,
        "rows_shown": shown,
        "counts": {status.value: count for status, count in aligner.counts.items()},
        "divergences": aligner.divergences,
        "first_divergence": row_json(aligner.first) if aligner.first is not None else None,
        "totals": {"a": totals_json(comparison.left.totals), "b": totals_json(comparison.right.totals)},
    }
    if marks is not None:
        tail["review"] = {side: [as_json(item) for item in items] for side, items in marks.items()}
    write("\n], " + safe_json(tail)[1:] + "\n")


async def _text(comparison: Comparison, labels: tuple[str, str], limit: int, width: int) -> None:
    before: deque[Row] = deque(maxlen=LEAD)  # the rows just before the first divergence
    head: list[Row] = []  # the first rows, shown when the runs never diverge
    shown: list[Row] = []
    diverged = False
    async for rows in comparison.pages():
        for row in rows:
            if not limit or len(head) < limit:
                head.append(row)
            diverged = diverged or row.diverges
            if not diverged:
                before.append(row)
            elif not limit or len(shown) < limit:
                shown.append(row)
    comparison.price()
    aligner = comparison.aligner
    first = aligner.first
    print(f"A  {comparison.left_id}  {one_line(labels[0], 80)}")
    print(f"B  {comparison.right_id}  {one_line(labels[1], 80)}")
    print(describe(first))
    if first is not None:
        print(f"  A: {side_text(first.left) or '— (no step)'}")
        print(f"  B: {side_text(first.right) or '— (no step)'}")
    counts = ", ".join(f"{count:,} {status.value}" for status, count in aligner.counts.items())
    stretches = "stretch" if aligner.divergences == 1 else "stretches"
    print(f"{aligner.rows:,} aligned rows: {counts}; {aligner.divergences:,} {stretches} of differences")
    print()
    for line in delta_lines(comparison.deltas()):
        print(line)
    print()
    chosen = [*before, *shown] if first is not None else head
    if not chosen:
        print("(no steps)")
        return
    print(f"rows {chosen[0].index + 1}–{chosen[-1].index + 1} of {aligner.rows:,} (A | B):")
    for row in chosen:
        print(row_line(row, width))
    rest = aligner.rows - chosen[-1].index - 1
    if rest:
        print(f"… {rest:,} more rows (--limit)")


def main_compare(argv: list[str]) -> int:
    """Compare two sessions step by step: where they first diverge, and the deltas."""
    parser = OneLineParser(prog="zett-browser compare", description=main_compare.__doc__)
    add_store(parser)
    parser.add_argument("a", metavar="A", help="the first session (its id, or a prefix naming one)")
    parser.add_argument("b", metavar="B", help="the second session (its id, or a prefix naming one)")
    parser.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    parser.add_argument(
        "--limit",
        type=bounded(0, 10**9),
        default=None,
        metavar="N",
        help=f"aligned rows to print (default {LIMIT}; with --json every row; 0: every row)",
    )
    parser.add_argument(
        "--width", type=bounded(40, 1000), default=None, metavar="N", help="columns of a row (default: the terminal's)"
    )
    parser.add_argument(
        "--notes", action="store_true", help="carry your pins, labels and notes on both sessions and their messages"
    )
    add_notes_file(parser)
    args = parser.parse_args(argv)
    width = args.width or shutil.get_terminal_size((160, 40)).columns
    try:
        storage = SQLSessionStorage.open_for_browsing(args.store)
    except (StoreError, OSError, sqlite3.Error, ValueError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2

    async def run() -> None:
        try:
            left = await _resolve(storage, "A", args.a)
            right = await _resolve(storage, "B", args.b)
            labels = (await _label(storage, left), await _label(storage, right))
            marks = review(storage, left, right, args.notes_file) if args.notes else None
            comparison = Comparison(storage, left, right)
            if args.json:
                await _json(comparison, labels, args.limit or 0, marks)
            else:
                await _text(comparison, labels, LIMIT if args.limit is None else args.limit, width)
                if marks is not None:
                    _review_text(marks)
        finally:
            await storage.close()

    try:
        run_async(run())
    except BrokenPipeError:
        return closed_pipe()
    except (StoreError, OSError, sqlite3.Error, SessionChoiceError) as error:
        print(f"zett-browser: {clean(one_line(error, 300))}", file=sys.stderr)
        return 2
    return 0
