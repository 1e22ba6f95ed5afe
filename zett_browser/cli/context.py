"""Provides ``zett-browser context``: the model's context at message N of a session.

``context [STORE] --session ID [--at N] [--json]`` prints where the context is taken (the
snapshot in force when message N's step began), its size per category with the step's
measured ``input_tokens``, then one line per message (summary first). ``--json`` prints
instead the context as a JSON list of zett-agent message envelopes, exactly as stored
(what ``encode_messages(load().messages)`` gave then: replay it, diff it). N defaults to
one past the last message: what the next step would get. Errors are one line on stderr
and exit status 2. Nothing is written.

A SQLite store is read first through the stdlib driver (:mod:`..storage.quickcontext`:
the storage's own statements, no SQLAlchemy), the output gathered and printed only once
the whole context was read; any doubt (a row the fast decoder will not vouch for, another
schema, an error, a session the prefix does not name alone) sends the command down the
full path, which prints the same bytes or words the error (issue 29).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..model import RawMessageRecord
from ..startup.lifecycle import drive
from ..storage.errors import StoreError
from ..storage.sqlitefile import sqlite_path
from ..text import clean, one_line
from ..views import time_travel as context
from ..views import time_travel_text as context_text
from ..views.kinds import kind_name
from .args import OneLineParser, add_store, bounded, closed_pipe

if TYPE_CHECKING:
    from ..model.store import BrowsingStore


#: Characters of each message's text the listing shows.
PREVIEW = 100


def _line(record: RawMessageRecord) -> str:
    message = record.message
    text = getattr(message, "text", None) or getattr(message, "content", "") or ""
    calls = getattr(message, "tool_calls", ())
    if calls:
        text = (text + " " if text else "") + ", ".join(f"→ {call.name}()" for call in calls)
    return f"#{record.sequence} {kind_name(record)}  {one_line(text, PREVIEW)}"


async def _print(
    storage: BrowsingStore, session_id: str, at: int | None, as_json: bool, out: Callable[[str], object] = print
) -> None:
    """Write the context's lines with ``out`` (the full path prints; the fast path gathers)."""
    if await storage.get_node(session_id) is None:
        raise context.ContextError(f"no session {session_id} in this store")
    point = await context.locate(storage, session_id, at)
    if as_json:
        # ASCII on a terminal: 8-bit C1 controls and bidi marks in store text stay escaped.
        out(json.dumps(json.loads(await context.export_json(storage, point)), ensure_ascii=True, indent=1))
        return
    size = await context.estimate(storage, point)
    for line in context_text.report(point, size):
        out(line)
    out("")
    if point.snapshot is not None:
        out(f"summary v{point.snapshot.version}  {one_line(point.snapshot.summary_text, PREVIEW)}")
    async for rows in context.context_pages(storage, point):
        for row in rows:
            out(_line(row.record))


def _fast(path: Path, typed: str, at: int | None, as_json: bool) -> list[str] | None:
    """The lines of the context read through the stdlib driver, or None: take the full path."""
    from ..storage.quickcontext import QuickContext

    lines: list[str] = []

    async def run(store: QuickContext) -> None:
        session_id = await store.session_with_prefix(typed)
        await _print(cast("BrowsingStore", store), session_id, at, as_json, lines.append)

    try:
        with QuickContext(path) as store:
            drive(run(store))
    except Exception:  # noqa: BLE001 - any doubt or error: the full path answers, or words it
        return None
    return lines


def _write(lines: list[str]) -> None:
    """Print gathered lines as ``print`` would have, one by one, in bounded writes."""
    for start in range(0, len(lines), 1_000):
        sys.stdout.write("".join(line + "\n" for line in lines[start : start + 1_000]))
    sys.stdout.flush()


def main_context(argv: list[str]) -> int:
    """Print the model's context when it produced message N (or what the next step gets)."""
    parser = OneLineParser(prog="zett-browser context", description=main_context.__doc__)
    add_store(parser)
    parser.add_argument("--session", required=True, metavar="ID", help="the session (its id, or a prefix naming one)")
    parser.add_argument(
        "--at",
        type=bounded(1, 2**62),
        default=None,
        metavar="N",
        help="the message whose context to show (default: one past the last: what the next step gets)",
    )
    parser.add_argument("--json", action="store_true", help="print the context as a JSON list of message envelopes")
    args = parser.parse_args(argv)
    local = sqlite_path(args.store)
    if local is not None and (lines := _fast(local, args.session, args.at, args.json)) is not None:
        try:
            _write(lines)
        except BrokenPipeError:
            return closed_pipe()
        return 0
    return _full(args.store, args.session, args.at, args.json)


def _full(store: str | None, typed: str, at: int | None, as_json: bool) -> int:
    """The context through the SQL storage: any store, and every error worded."""
    from ..startup.lifecycle import run_async
    from ..storage import SQLSessionStorage
    from .sessions import SessionChoiceError, resolve_session

    try:
        storage = SQLSessionStorage.open_for_browsing(store)
    except (StoreError, OSError, sqlite3.Error, ValueError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2

    async def run() -> None:
        try:
            await _print(storage, await resolve_session(storage, typed), at, as_json)
        finally:
            await storage.close()

    try:
        run_async(run())
    except BrokenPipeError:
        return closed_pipe()
    except (StoreError, OSError, sqlite3.Error, context.ContextError, SessionChoiceError) as error:
        print(f"zett-browser: {clean(one_line(error, 300))}", file=sys.stderr)
        return 2
    return 0
