"""Generates :mod:`.startsql`: the SQL the storage runs for the first screen, as SQLite runs it.

The start-up reader (:mod:`.quickstart`) reads the first screen through the stdlib
``sqlite3`` driver before SQLAlchemy is imported; it must run exactly the statements the
storage would. They are not written by hand: this generator builds a small store with the
storage's own schema, runs the storage's real methods on it with sentinel arguments (a
session id, page sizes and a version no store holds), and records every statement SQLite
receives (a ``after_cursor_execute`` listener), its parameters (each sentinel becomes the
name of the argument it stands for, anything else a constant), the result columns the
storage converts (its lenient timestamps) and their names. Any other result conversion,
or a method that now runs a different sequence of statements, stops the generator: the
reader would no longer be exact, so :mod:`.quickstart` must be adapted first.

Run ``python -m zett_browser.storage.startgen`` after changing a first-screen query;
``--check`` exits 1 when the checked-in module is stale (a test runs the same check).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import sqlite3
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event

from . import schema
from .browse import SQLiteSessionStorage, SQLSessionStorage
from .rows import StoredDateTime

TARGET = Path(__file__).with_name("startsql.py")
#: Sentinel arguments: no value the storage itself adds can be mistaken for one.
SESSION = "startgen:session"
PARENT = "startgen:parent"
INTS = {"roots_page": 700_001, "page_size": 700_101, "versions_page": 700_201, "after_version": 700_301}
#: How far a bound parameter may lie above its sentinel (``limit + 1`` reads one row more).
MAX_OFFSET = 4

Spec = tuple[str, Any, int]
Template = tuple[str, tuple[Spec, ...], tuple[str, ...], tuple[int, ...]]


def _spec(value: Any) -> Spec:
    """A bound value as ("arg", name, offset) for a sentinel, else ("value", value, 0)."""
    if value in (SESSION, PARENT) and isinstance(value, str):
        return ("arg", "session", 0)
    if type(value) is int:
        for name, sentinel in INTS.items():
            if 0 <= value - sentinel <= MAX_OFFSET:
                return ("arg", name, value - sentinel)
    if type(value) not in (int, str, float) and value is not None:
        raise SystemExit(f"startgen: a bound value of type {type(value).__name__} cannot be generated")
    return ("value", value, 0)


def template(
    statement: str, parameters: Any, context: Any, description: Any, spec: Callable[[Any], Spec] = _spec
) -> Template:
    """One recorded statement as a template (``spec`` turns each bound value into its spec)."""
    if SESSION in statement or PARENT in statement:
        raise SystemExit("startgen: a sentinel argument was rendered into the SQL text")
    specs = tuple(spec(value) for value in (parameters or ()))
    names = tuple(column[0] for column in description or ())
    compiled = getattr(context, "compiled", None)
    entries = list(getattr(compiled, "_result_columns", None) or ())
    times: list[int] = []
    if entries:
        if tuple(entry[0] for entry in entries) != names:
            raise SystemExit(f"startgen: result keys {[e[0] for e in entries]} differ from the cursor's {names}")
        dialect = context.dialect
        for index, entry in enumerate(entries):
            kind = entry[3]
            if isinstance(kind, StoredDateTime):
                times.append(index)
            elif kind._cached_result_processor(dialect, None) is not None:
                raise SystemExit(f"startgen: column {entry[0]} is converted by {kind!r}; the reader cannot")
    return (statement, specs, names, tuple(times))


def build_store(path: Path) -> None:
    """A store with the storage's own schema, a session and its parent."""

    async def create() -> None:
        storage = SQLiteSessionStorage(path)
        try:
            await storage.reader.ensure_ready()
        finally:
            await storage.close()

    asyncio.run(create())
    with sqlite3.connect(path) as connection:
        for session, parent in ((PARENT, None), (SESSION, PARENT)):
            connection.execute(
                "INSERT INTO agent_sessions (id, parent_session_id, session_type, title, agent_name, created_at,"
                " updated_at) VALUES (?, ?, 0, 't', 'a', '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
                (session, parent),
            )
    connection.close()


async def _capture(path: Path) -> tuple[dict[str, list[Template]], list[tuple[str, str]]]:
    """Each call's statements, and the columns whose nullability chose them (all NOT NULL here)."""
    storage = SQLSessionStorage(path, read_only=True)
    captured: list[Template] = []
    asked: list[tuple[str, str]] = []
    may_be_null = storage.reader.may_be_null

    def recorded_may_be_null(table: str, column: str) -> bool:
        if (table, column) not in asked:
            asked.append((table, column))
        return may_be_null(table, column)

    storage.reader.may_be_null = recorded_may_be_null  # type: ignore[method-assign]
    calls: dict[str, Callable[[], Awaitable[Any]]] = {
        "change_token": lambda: storage.change_token(),
        "list_roots": lambda: storage.list_roots(limit=INTS["roots_page"]),
        "get_node": lambda: storage.get_node(SESSION),
        "raw_bounds": lambda: storage.raw_bounds(SESSION),
        "versions_first": lambda: storage.snapshot_versions(SESSION, limit=INTS["versions_page"]),
        "versions_after": lambda: storage.snapshot_versions(
            SESSION, after_version=INTS["after_version"], limit=INTS["versions_page"]
        ),
        "snapshot_latest": lambda: storage.snapshot_version(SESSION),
        "ancestors": lambda: storage.ancestors(SESSION),
        "raw_page": lambda: storage.raw_page(SESSION, after_sequence=None, limit=INTS["page_size"]),
    }

    def listen(_conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, _many: bool) -> None:
        captured.append(template(statement, parameters, context, cursor.description))

    try:
        await storage.change_token()  # the schema check runs once, before anything is recorded
        if not storage.reader.has_session_type or any(storage.reader.may_be_null(*pair) for pair in asked):
            raise SystemExit("startgen: the storage's own schema is not the one the reader expects")
        event.listen(storage.reader.engine().sync_engine, "after_cursor_execute", listen)
        recorded: dict[str, list[Template]] = {}
        for name, call in calls.items():
            captured.clear()
            await call()
            recorded[name] = list(captured)
        if any(may_be_null(*pair) for pair in asked):
            raise SystemExit("startgen: a sort key of the storage's own schema is nullable")
        return recorded, asked
    finally:
        await storage.close()


def _expect(recorded: dict[str, list[Template]]) -> dict[str, Template]:
    """One statement per call; the ancestors' consistent read: BEGIN, parent, node."""
    statements: dict[str, Template] = {}
    for name, templates in recorded.items():
        if name == "ancestors":
            continue
        if len(templates) != 1:
            raise SystemExit(f"startgen: {name} now runs {len(templates)} statements; adapt quickstart.py")
        statements[name] = templates[0]
    walk = recorded["ancestors"]
    if len(walk) != 3 or walk[0][0] != "BEGIN DEFERRED" or walk[2] != statements["get_node"]:
        raise SystemExit("startgen: ancestors no longer runs BEGIN, parent, node; adapt quickstart.py")
    statements["ancestors_parent"] = walk[1]
    return statements


def render() -> str:
    """The text of :mod:`.startsql` for the storage as it is now."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "startgen.sqlite3"
        build_store(path)
        recorded, not_null = asyncio.run(_capture(path))
        statements = _expect(recorded)
    page = inspect.signature(SQLSessionStorage.all_snapshot_versions).parameters["page"].default
    lines = [
        '"""The first screen\'s SQL as the storage runs it on SQLite: generated, do not edit.',
        "",
        "Written by ``python -m zett_browser.storage.startgen`` from the storage's own queries;",
        "tests/storage/test_quickstart.py fails when it is stale. Each statement: SQL text,",
        'parameters (("arg", name, offset) or ("value", constant, 0)), result column names, and',
        "the indexes of the columns read as lenient timestamps.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "#: The page size of ``all_snapshot_versions``.",
        f"VERSIONS_PAGE = {page!r}",
        "#: Tables and columns the storage requires (its schema check), columns these statements",
        "#: need besides, and sort keys they were generated NOT NULL for (a nullable one adds a",
        "#: NULL band: other SQL).",
        f"REQUIRED_TABLES = {tuple(schema.REQUIRED_TABLES)!r}",
        f"REQUIRED_COLUMNS = {schema.REQUIRED_COLUMNS!r}",
        f"NEEDS_COLUMNS = {(('agent_sessions', 'session_type'),)!r}",
        f"NOT_NULL = {tuple(not_null)!r}",
        "",
        "STATEMENTS: dict[str, tuple[str, tuple[tuple[str, Any, int], ...], tuple[str, ...], tuple[int, ...]]] = {",
    ]
    for name, (sql, specs, names, times) in statements.items():
        lines.append(f"    {name!r}: (")
        lines.append(f"        {sql!r},")
        lines.append(f"        {specs!r},")
        lines.append(f"        {names!r},")
        lines.append(f"        {times!r},")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_generator(
    prog: str, description: str | None, render: Callable[[], str], target: Path, argv: list[str] | None
) -> int:
    """A generator's command line: write ``render()`` to ``target``, or with ``--check`` exit 1
    when the checked-in module differs (``startgen`` and ``contextgen`` share it)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the checked-in module is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        stale = not target.exists() or target.read_text(encoding="utf-8") != text
        print(f"{target.name} is {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_generator("python -m zett_browser.storage.startgen", __doc__, render, TARGET, argv)


if __name__ == "__main__":
    sys.exit(main())
