"""Generates :mod:`.contextsql`: the SQL the storage runs for ``zett-browser context``, as SQLite runs it.

The context command's stdlib reader (:mod:`.quickcontext`) must run exactly the
statements the storage would, like the start-up reader (:mod:`.startgen` explains how they
are recorded). This generator runs the storage methods the time-travel context calls
(:mod:`zett_browser.views.time_travel`, ``--session`` prefixes, the offered system rows)
with sentinel arguments on a store of the storage's own schema and records each call's
statements. A call that now runs other statements (more, fewer, another shape) stops it:
:mod:`.quickcontext` must be adapted first.

Run ``python -m zett_browser.storage.contextgen`` after changing one of these queries;
``--check`` exits 1 when the checked-in module is stale (a test runs the same check).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event

from . import compaction, idprefix, prompts, schema
from .browse import SQLSessionStorage
from .startgen import MAX_OFFSET, SESSION, Spec, Template, build_store, run_generator, template

TARGET = Path(__file__).with_name("contextsql.py")
PREFIX, REQUEST, ROW = "contextgen:prefix", "contextgen:request", "contextgen:row"
#: String sentinels: no id a store holds (the prefix's upper bound is what the storage binds).
STRINGS = {
    SESSION: "session",
    REQUEST: "request_id",
    ROW: "row_id",
    PREFIX: "prefix",
    str(idprefix.upper_bound(PREFIX)): "upper",
}
#: A past time for the version in force (compared in Python, never bound).
PAST = datetime(2000, 1, 1, tzinfo=UTC)
#: Integer sentinels, far from any constant the storage binds.
INTS = {"after_sequence": 900_001, "before_sequence": 900_101, "version": 900_201, "limit": 900_301}


def _spec(value: Any) -> Spec:
    if isinstance(value, str) and value in STRINGS:
        return ("arg", STRINGS[value], 0)
    if type(value) is int:
        for name, sentinel in INTS.items():
            if 0 <= value - sentinel <= MAX_OFFSET:
                return ("arg", name, value - sentinel)
    if type(value) not in (int, str, float) and value is not None:
        raise SystemExit(f"contextgen: a bound value of type {type(value).__name__} cannot be generated")
    if isinstance(value, str) and value.startswith("contextgen:"):
        raise SystemExit(f"contextgen: a sentinel was changed before binding: {value!r}")
    return ("value", value, 0)


def _calls(storage: SQLSessionStorage) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Each recorded call: the statements of one storage method with sentinel arguments."""
    after, before, version, limit = (INTS[name] for name in ("after_sequence", "before_sequence", "version", "limit"))
    return {
        # sessions_with_prefix: the exact id, then the range (no session has the sentinel id)
        "prefix": lambda: storage.sessions_with_prefix(PREFIX, limit=limit),
        "get_node": lambda: storage.get_node(SESSION),
        # locate() (pointparts.compose_point): the last row, row N, the version in force, its summary
        "last_row": lambda: storage.raw_page_before(SESSION, limit=1),
        "row_after": lambda: storage.raw_page(SESSION, after_sequence=after, limit=1),
        "version_now": lambda: storage.version_in_force(SESSION, None),
        "versions": lambda: storage.version_in_force(SESSION, PAST, before_sequence=before),
        # the candidates all, when the newest did not decide
        "versions_all": lambda: compaction.version_candidates(storage.reader, SESSION, before_sequence=before),
        "snapshot": lambda: storage.snapshot_version(SESSION, version),
        # the request's system rows (before row N, or all for the next step)
        "system_rows_before": lambda: storage.request_system_rows(SESSION, REQUEST, before_sequence=before),
        "system_rows": lambda: storage.request_system_rows(SESSION, REQUEST, before_sequence=None),
        # range_pages(): the first page after the boundary, then pages after a row
        "context_first": lambda: storage.context_page(
            SESSION, after_sequence=after, before_sequence=before, limit=limit
        ),
        "context_next": lambda: storage.context_page(
            SESSION, after_sequence=after, after_id=ROW, before_sequence=before, limit=limit
        ),
        "snapshot_envelope": lambda: storage.snapshot_envelope(SESSION, version),
    }


#: How many statements each call runs (one each; a prefix that names nothing: two; a page
#: after a row: the row's position, then the page).
EXPECTED = {"prefix": 2, "context_next": 2}


async def _capture(path: Path) -> tuple[dict[str, list[Template]], list[tuple[str, str]]]:
    storage = SQLSessionStorage(path, read_only=True)
    captured: list[Template] = []
    asked: list[tuple[str, str]] = []
    may_be_null = storage.reader.may_be_null

    def recorded_may_be_null(table: str, column: str) -> bool:
        if (table, column) not in asked:
            asked.append((table, column))
        return may_be_null(table, column)

    storage.reader.may_be_null = recorded_may_be_null  # type: ignore[method-assign]

    def listen(_conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, _many: bool) -> None:
        captured.append(template(statement, parameters, context, cursor.description, _spec))

    try:
        await storage.change_token()  # the schema check runs once, before anything is recorded
        event.listen(storage.reader.engine().sync_engine, "after_cursor_execute", listen)
        recorded: dict[str, list[Template]] = {}
        for name, call in _calls(storage).items():
            captured.clear()
            await call()
            recorded[name] = list(captured)
            if len(recorded[name]) != EXPECTED.get(name, 1):
                raise SystemExit(f"contextgen: {name} now runs {len(recorded[name])} statements; adapt quickcontext.py")
        if any(may_be_null(*pair) for pair in asked):
            raise SystemExit("contextgen: a sort key of the storage's own schema is nullable")
        return recorded, asked
    finally:
        await storage.close()


def render() -> str:
    """The text of :mod:`.contextsql` for the storage as it is now."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "contextgen.sqlite3"
        build_store(path)
        recorded, not_null = asyncio.run(_capture(path))
    lines = [
        '"""The SQL of ``zett-browser context`` as the storage runs it on SQLite: generated, do not edit.',
        "",
        "Written by ``python -m zett_browser.storage.contextgen`` from the storage's own queries;",
        "tests/storage/test_quickcontext.py fails when it is stale. Each call: its statements, each",
        'as SQL text, parameters (("arg", name, offset) or ("value", constant, 0)), result column',
        "names, and the indexes of the columns read as lenient timestamps.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "from __future__ import annotations",
        "",
        "TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)",
        "",
        "if TYPE_CHECKING:",
        "    from typing import Any",
        "",
        "    Statement = tuple[str, tuple[tuple[str, Any, int], ...], tuple[str, ...], tuple[int, ...]]",
        "",
        "#: Tables and columns the storage requires (its schema check), and the sort keys these",
        "#: statements were generated NOT NULL for (a nullable one adds a NULL band: other SQL).",
        f"REQUIRED_TABLES = {tuple(schema.REQUIRED_TABLES)!r}",
        f"REQUIRED_COLUMNS = {schema.REQUIRED_COLUMNS!r}",
        f"NOT_NULL = {tuple(not_null)!r}",
        "#: Columns these statements need besides (without them the storage runs other SQL).",
        f"NEEDS_COLUMNS = {(('agent_sessions', 'session_type'),)!r}",
        "#: Rows of one request's system rows read at most (:data:`..prompts.LIMIT`).",
        f"SYSTEM_ROWS = {prompts.LIMIT!r}",
        "",
        "CALLS: dict[str, tuple[Statement, ...]] = {",
    ]
    for name, templates in recorded.items():
        lines.append(f"    {name!r}: (")
        for sql, specs, names, times in templates:
            lines.append(f"        ({sql!r}, {specs!r}, {names!r}, {times!r}),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return run_generator("python -m zett_browser.storage.contextgen", __doc__, render, TARGET, argv)


if __name__ == "__main__":
    sys.exit(main())
