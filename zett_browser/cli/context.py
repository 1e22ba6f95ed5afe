"""Provides ``zett-browser context``: the model's context at message N of a session.

``context [STORE] --session ID [--at N] [--json]`` prints where the context is taken (the
snapshot in force when message N's step began), its size per category with the step's
measured ``input_tokens``, then one line per message (summary first). ``--json`` prints
instead the context as a JSON list of zett-agent message envelopes, exactly as stored
(what ``encode_messages(load().messages)`` gave then: replay it, diff it). N defaults to
one past the last message: what the next step would get. Errors are one line on stderr
and exit status 2. Nothing is written.
"""

from __future__ import annotations

import json
import sqlite3
import sys

from ..model import RawMessageRecord
from ..startup.lifecycle import run_async
from ..storage import SQLSessionStorage, StoreError
from ..text import clean, one_line
from ..views import time_travel as context
from ..views import time_travel_text as context_text
from ..views.formatting import kind_name
from .args import OneLineParser, add_store, bounded, closed_pipe
from .sessions import SessionChoiceError, resolve_session

#: Characters of each message's text the listing shows.
PREVIEW = 100


def _line(record: RawMessageRecord) -> str:
    message = record.message
    text = getattr(message, "text", None) or getattr(message, "content", "") or ""
    calls = getattr(message, "tool_calls", ())
    if calls:
        text = (text + " " if text else "") + ", ".join(f"→ {call.name}()" for call in calls)
    return f"#{record.sequence} {kind_name(record)}  {one_line(text, PREVIEW)}"


async def _print(storage: SQLSessionStorage, session_id: str, at: int | None, as_json: bool) -> None:
    if await storage.get_node(session_id) is None:
        raise context.ContextError(f"no session {session_id} in this store")
    point = await context.locate(storage, session_id, at)
    if as_json:
        # ASCII on a terminal: 8-bit C1 controls and bidi marks in store text stay escaped.
        print(json.dumps(json.loads(await context.export_json(storage, point)), ensure_ascii=True, indent=1))
        return
    size = await context.estimate(storage, point)
    for line in context_text.report(point, size):
        print(line)
    print()
    if point.snapshot is not None:
        print(f"summary v{point.snapshot.version}  {one_line(point.snapshot.summary_text, PREVIEW)}")
    async for rows in context.context_pages(storage, point):
        for row in rows:
            print(_line(row.record))


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
    try:
        storage = SQLSessionStorage.open_for_browsing(args.store)
    except (StoreError, OSError, sqlite3.Error, ValueError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2

    async def run() -> None:
        try:
            await _print(storage, await resolve_session(storage, args.session), args.at, args.json)
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
