"""Provides ``zett-browser index`` and ``zett-browser search``.

``index [STORE] [--rebuild] [--index-dir DIR]`` builds or updates the store's side
index, with a progress line on stderr, and prints what it holds. ``search [STORE] QUERY
[--json] [--limit N]`` syncs the index, then prints hits: one line each, or JSON lines
(session_id, sequence, kind, time, snippet, spans) with ``--json``. Errors are one line
on stderr and exit status 2, like the rest of the command line.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from ..index.files import index_stats
from ..index.notes_filter import needs_notes, resolve
from ..index.query import HELP, QueryError, parse
from ..index.search import Hit, Searcher
from ..startup.lifecycle import drive, run_async
from ..storage.errors import StoreError
from ..storage.sqlitefile import sqlite_path
from ..text import clean, one_line, safe_json
from .args import STORE_HELP, OneLineParser, add_index_dir, add_notes_file, add_store, closed_pipe, names_a_store
from .synced import sync_with_progress, synced_index


def _size(path: Path | None) -> str:
    if path is None or not path.exists():
        return "server"
    return f"{path.stat().st_size / 1e6:,.1f} MB"


def main_index(argv: list[str]) -> int:
    """Build or update the side index of a store and print what it holds."""
    parser = OneLineParser(prog="zett-browser index", description=main_index.__doc__)
    add_store(parser)
    parser.add_argument("--rebuild", action="store_true", help="throw the index away and build it again")
    add_index_dir(parser)
    args = parser.parse_args(argv)
    from ..index.sync import SideIndex
    from ..storage import SQLSessionStorage

    try:
        storage = SQLSessionStorage.open_for_browsing(args.store)
        index = SideIndex(storage, args.index_dir)
        report = run_async(sync_with_progress(index, rebuild=args.rebuild, show=True))
    except (StoreError, OSError, sqlite3.Error) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2
    if report.skipped:
        print("zett-browser: another process is updating this index; try again", file=sys.stderr)
        return 2
    stats = index_stats(index.path)
    how = f"rebuilt ({report.reason})" if report.rebuilt else "updated"
    print(f"index {clean(index.path)} {how} in {report.seconds:.1f} s: +{report.messages:,} messages")
    print(
        f"holds {stats['sessions']:,} sessions, {stats['messages']:,} messages, {stats['snapshots']:,} snapshots; "
        f"{stats['problems']:,} unreadable values; {stats['bytes'] / 1e6:,.1f} MB "
        f"(store: {_size(storage.path)})"
    )
    return 0


def _labelled(store: str | None, hits: list[Hit]) -> list[Hit]:
    """``hits`` named by the labelling rule. Sessions with a title are named by the index
    alone; an untitled one (zett-agent's runtime writes none) needs the store (what its
    parent asked, its first prompt): a SQLite store is read through the stdlib driver
    (:mod:`..storage.quicklabels`), any other store, or any doubt, opens the SQL storage."""
    if all(hit.titled for hit in hits):
        return hits
    local = sqlite_path(store)
    if local is not None and (named := _quick_labelled(local, hits)) is not None:
        return named
    from ..index.hit_labels import labelled_hits
    from ..storage import SQLSessionStorage

    async def read() -> list[Hit]:
        storage = SQLSessionStorage.open_for_browsing(store)
        try:
            return await labelled_hits(storage, hits)
        finally:
            await storage.close()

    return run_async(read())


def _quick_labelled(path: Path, hits: list[Hit]) -> list[Hit] | None:
    """``hits`` named through the stdlib driver, or None: the storage names them."""
    from ..index.hit_labels import MAX_SESSIONS, named_nodes, relabelled
    from ..storage.quicklabels import QuickLabels
    from ..storage.quickread import QuickReader

    wanted = list(dict.fromkeys(hit.session_id for hit in hits))[:MAX_SESSIONS]
    try:
        with QuickReader(path) as context:
            reads = QuickLabels(context)
            nodes = drive(reads.get_nodes(wanted))
            labels = drive(named_nodes(reads, nodes))
    except Exception:  # noqa: BLE001 - any doubt or error: the storage answers (or keeps the index's names)
        return None
    return relabelled(hits, labels)


def _print_hits(
    store: str | None, searcher: Searcher, query_text: str, limit: int, as_json: bool, notes_file: Path | None = None
) -> int:
    """Print up to ``limit`` hits, each with its session's label; returns how many were printed."""
    query = parse(query_text)
    if needs_notes(query):  # pinned:, label:, note: are answered by the notes file
        from ..notes.db import default_file
        from ..notes.identity import of_argument

        identity, local = of_argument(store)
        query = resolve(query, notes_file or default_file(), identity, local)
    page = searcher.search_now(query, limit=limit)
    hits = _labelled(store, page.hits)
    for hit in hits:
        if as_json:
            record = {
                "session_id": hit.session_id,
                "label": hit.label,
                "sequence": hit.sequence,
                "kind": hit.kind,
                "time": hit.time.isoformat() if hit.time else None,
                "snippet": hit.snippet,
                "spans": [list(span) for span in hit.spans],
            }
            print(safe_json(record))  # no raw C1/bidi from store text
        else:
            when = hit.time.strftime("%Y-%m-%d %H:%M") if hit.time else "?"
            label = one_line(hit.label, 60)
            print(f"{clean(hit.session_id)} #{hit.sequence} {hit.kind} {when}  {label}  {hit.snippet}")
    if page.partial:
        print("zett-browser: the index is not complete; some hits may be missing", file=sys.stderr)
    return len(page.hits)


def main_search(argv: list[str]) -> int:
    """Search a store's side index (updating it first) and print the hits."""
    parser = OneLineParser(
        prog="zett-browser search",
        description=main_search.__doc__,
        epilog=f"Query syntax: {HELP}\nOptions come first; a query starting with '-' goes after '--'.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("args", nargs="+", metavar="[STORE] QUERY", help=STORE_HELP + "; then the query")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--limit", type=int, default=20, help="hits to print (default 20)")
    add_index_dir(parser)
    add_notes_file(parser)
    args = parser.parse_args(argv)
    if len(args.args) > 2:
        print("zett-browser: give the query as one argument (quote it)", file=sys.stderr)
        return 2
    store, query_text = (args.args[0], args.args[1]) if len(args.args) == 2 else (None, args.args[0])
    if store is None and names_a_store(query_text):
        shown = one_line(query_text, 300)
        print(f"zett-browser: {shown} is a store: give a query after it (search STORE QUERY)", file=sys.stderr)
        return 2
    if args.limit < 1:
        print("zett-browser: --limit must be a positive number", file=sys.stderr)
        return 2
    try:
        parse(query_text)
        searcher = Searcher(synced_index(store, args.index_dir)[0])
        found = _print_hits(store, searcher, query_text, args.limit, args.json, args.notes_file)
    except BrokenPipeError:
        return closed_pipe()
    except (StoreError, QueryError, OSError, sqlite3.Error) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2
    if not found:
        print("zett-browser: 0 hits", file=sys.stderr)
        return 1  # like grep: scripts can test for "nothing found"
    return 0
