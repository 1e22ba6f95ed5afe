"""Provides the start-up reader: the first screen of a SQLite store, read before SQLAlchemy loads.

Python runs one thread at a time; only work that releases the GIL overlaps Textual's own
import and start, and SQLite's C code does. :class:`QuickStart` therefore reads the first
screen (the change token, the roots, the opened session's node, bounds, snapshot
versions, latest summary, ancestors and first Raw Log page) through the stdlib ``sqlite3``
driver on a thread started before Textual is imported, importing neither SQLAlchemy nor
aiosqlite nor pydantic. It is the app's :class:`~.handout.Warm` for a SQLite path:
:meth:`QuickStart.take` hands out a future per call, keyed by
:func:`~.handout.key_of` (the same calls with the same arguments).

Exactness: the statements are the storage's own, generated from it (:mod:`.startsql`,
see :mod:`.startgen`); the connection is opened like the storage's (the ``mode=ro`` URI
of the quoted path, the same busy timeout, ``query_only``, the same lenient text
decoding, only regular files); rows become records through the storage's own
conversions (:mod:`.convert`, :mod:`.shaping`). Where the reader cannot be sure, a
future's result is :data:`DECLINED` and the caller asks the storage itself: a message
the strict decoder (:mod:`.fastdecode`) will not vouch for, a schema other than the one
the statements were generated for (a missing column too: the storage's schema check then
names it), text that was not UTF-8 as an argument, any SQLite
error (a locked store: the storage retries, this reader does not).

:meth:`QuickStart.preflight` answers early (before the page reads) whether the store is
a readable zett-agent store holding the session (and ``--seq``); False means "unknown":
the caller then runs the storage's preflight, which words the error.

Sidecars: :attr:`QuickStart.guard` is recorded before the reader opens anything; the
storage opened afterwards must get it (``open_store(path, sidecar_guard=quick.guard)``), or it
would take the reader's ``-wal``/``-shm`` for pre-existing files and leave them behind.
If no storage is opened, call ``quick.guard.release()`` after :meth:`QuickStart.finish`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.records import Page, RawLogBounds, RawMessageRecord, SessionNode, SnapshotInfo
from .convert import BadText, lenient_text, node_from_row, record_from_row, snapshot_info_from_row, stored_time
from .fastdecode import decode_fast
from .handout import DECLINED, Handout, Key, Warm, key_of  # the warm store tests ``result is DECLINED``
from .shaping import bounds_from_row, meta_from_row, node_page, walk_ancestors
from .sidecars import SidecarGuard
from .sqlitefile import READER_BUSY_TIMEOUT_MS, browse_mode, check_sqlite_file, sqlite_uri
from .startsql import NEEDS_COLUMNS, NOT_NULL, REQUIRED_COLUMNS, REQUIRED_TABLES, STATEMENTS, VERSIONS_PAGE

if TYPE_CHECKING:
    from ..model.compaction import SnapshotMeta
    from ..model.messages import AnyMessage, CompactedMessage

__all__ = ["DECLINED", "QuickStart", "key_of"]


class _Unsure(Exception):
    """This call cannot be answered exactly (the others may)."""


class _Stop(Exception):
    """Closed: read nothing more."""


def _decode(payload: object) -> AnyMessage | CompactedMessage:
    message = decode_fast(payload)
    if message is None:
        raise _Unsure("the fast decoder is not sure")
    return message


def _bound(value: Any, offset: int) -> Any:
    """An argument bound as the storage binds it; anything it would bind differently is unsure."""
    if isinstance(value, BadText) or type(value) not in (str, int):
        raise _Unsure("an argument the storage binds in another form")
    return value + offset if offset else value


class QuickStart(Handout):
    """The first screen's reads on a thread of their own, through the stdlib driver."""

    def __init__(
        self, path: str | Path, *, session: str | None, seq: int | None, page_size: int, roots_page: int = 100
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.session = session
        self.seq = seq
        self.page_size = page_size
        self.roots_page = roots_page
        #: The sidecars beside the store before this reader opened it: hand it to the storage.
        self.guard = SidecarGuard.record(self.path)
        self._promised: dict[Key, Future[Any]] = {}  # every future, taken or not
        self._connection: sqlite3.Connection | None = None
        self._preflight: Future[bool] = Future()
        self._promise("change_token")
        self._promise("list_roots", limit=roots_page)  # with --session too: the tree shows them
        if session is not None:
            self._promise_session(session)
        self.thread = threading.Thread(target=self._run, name="zett-browser quick start", daemon=True)

    # ------------------------------------------------------------------ the Warm API

    def _on_close(self) -> None:
        """A read under way is interrupted (its future says DECLINED)."""
        if self._connection is not None:
            self._connection.interrupt()

    def finish(self) -> None:
        """Serve nothing more and wait until the thread has closed its connection.

        Never started: every future handed out is settled (DECLINED) all the same.
        """
        self.close()
        if self.thread.ident is None:
            self._run()  # closed: it only settles what was promised
        elif self.thread.is_alive():
            self.thread.join()

    def preflight(self, timeout: float | None = None) -> bool:
        """True when the store is readable and holds the session (and ``seq``); False: unknown.

        Blocks until the reader knows (after the session's node, before any page), at most
        ``timeout`` seconds (then False). Call :meth:`start` first.
        """
        try:
            return self._preflight.result(timeout)
        except TimeoutError:
            return False

    # ------------------------------------------------------------------ futures

    @property
    def _promised_keys(self) -> list[Key]:
        """The calls promised so far (for tests: they must be the first screen's)."""
        with self._lock:
            return list(self._promised)

    def _promise(self, name: str, *args: Any, **kwargs: Any) -> None:
        future: Future[Any] = Future()
        with self._lock:
            key = key_of(name, args, kwargs)
            if self._closed or key in self._promised:
                return  # one future per call: a second promise would orphan the first
            self._results[key] = future
            self._promised[key] = future

    def _promise_session(self, session: str) -> None:
        for name in ("get_node", "raw_bounds", "all_snapshot_versions", "snapshot_version", "ancestors"):
            self._promise(name, session)
        if self.seq is None:
            self._promise("raw_page", session, after_sequence=None, limit=self.page_size)

    def _future(self, name: str, *args: Any, **kwargs: Any) -> Future[Any] | None:
        with self._lock:
            if self._closed:
                raise _Stop
            return self._promised.get(key_of(name, args, kwargs))

    def _settle(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], read: Callable[[], Any]) -> Any:
        """Run one call's reads and publish the result; unsure: DECLINED; any error stops."""
        future = self._future(name, *args, **kwargs)
        try:
            value = read()
        except _Unsure:
            value = DECLINED
        if future is not None and not future.done():
            future.set_result(value)
        return value

    def _answer(self, ready: bool) -> None:
        if not self._preflight.done():
            self._preflight.set_result(ready)

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        try:
            self._read()
        except Exception:  # noqa: BLE001 - any failure: the caller asks the storage
            pass
        finally:
            with self._lock:
                connection, self._connection = self._connection, None
                pending = list(self._promised.values())
            if connection is not None:
                connection.close()
            for future in pending:
                if not future.done():
                    future.set_result(DECLINED)
            self._answer(False)

    def _open(self) -> sqlite3.Connection:
        if self._closed:
            raise _Stop
        check_sqlite_file(self.path)
        connection = sqlite3.connect(
            sqlite_uri(self.path, browse_mode(self.path)),
            uri=True,
            timeout=READER_BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,  # only close() touches it from elsewhere: interrupt()
        )
        with self._lock:
            self._connection = connection
            if self._closed:
                raise _Stop
        connection.text_factory = lenient_text
        connection.execute(f"PRAGMA busy_timeout={READER_BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA query_only=ON")
        return connection

    def _check_schema(self, connection: sqlite3.Connection) -> None:
        """Refuse (stop) unless the store has the schema the statements were generated for."""
        tables = {row[0] for row in connection.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
        if not set(REQUIRED_TABLES) <= tables:
            raise _Stop
        for table in {table for table, _ in (*REQUIRED_COLUMNS, *NOT_NULL, *NEEDS_COLUMNS)}:
            columns = {row[1]: row[3] for row in connection.execute(f'PRAGMA main.table_info("{table}")')}
            if any(t == table and c not in columns for t, c in REQUIRED_COLUMNS):
                raise _Stop  # the storage's preflight names the missing column
            if any(t == table and columns.get(c) != 1 for t, c in NOT_NULL):
                raise _Stop
            if any(t == table and c not in columns for t, c in NEEDS_COLUMNS):
                raise _Stop

    def _read(self) -> None:
        connection = self._open()
        self._check_schema(connection)
        self._settle("change_token", (), {}, lambda: tuple(self._rows(connection, "change_token")[0]))
        session = self.session
        if session is None:
            roots = self._settle("list_roots", (), {"limit": self.roots_page}, lambda: self._roots(connection))
            if roots is DECLINED:
                return
            self._answer(True)
            session = roots.items[0].session_id if roots.items else None
            if session is None or isinstance(session, BadText):
                return
        node = self._settle("get_node", (session,), {}, lambda: self._node(connection, session))
        if self.seq is None or not isinstance(node, SessionNode):
            self._answer(self._ready(node, None))  # the bounds are not needed to know
        bounds = self._settle("raw_bounds", (session,), {}, lambda: self._bounds(connection, session))
        self._answer(self._ready(node, bounds))
        self._settle("all_snapshot_versions", (session,), {}, lambda: self._versions(connection, session))
        self._settle("snapshot_version", (session,), {}, lambda: self._latest(connection, session))
        self._settle("ancestors", (session,), {}, lambda: self._ancestors(connection, session))
        if self.seq is None:
            kwargs = {"after_sequence": None, "limit": self.page_size}
            self._settle("raw_page", (session,), kwargs, lambda: self._page(connection, session))
        if self.session is not None:  # the session's page first, then the tree's roots
            self._settle("list_roots", (), {"limit": self.roots_page}, lambda: self._roots(connection))

    def _ready(self, node: Any, bounds: Any) -> bool:
        """The storage's preflight, on what was read: the session exists, ``seq`` is in its log."""
        if not isinstance(node, SessionNode):
            return False
        if self.seq is None:
            return True
        last = None if bounds is None or bounds is DECLINED else bounds.last_sequence
        return last is not None and self.seq <= last

    # ------------------------------------------------------------------ the calls

    def _rows(self, connection: sqlite3.Connection, name: str, **args: Any) -> list[list[Any]]:
        """Run one generated statement; timestamp columns read as the storage reads them."""
        sql, specs, names, times = STATEMENTS[name]
        params = tuple(_bound(args[v], offset) if kind == "arg" else v for kind, v, offset in specs)
        cursor = connection.execute(sql, params)
        if tuple(column[0] for column in cursor.description or ()) != names:
            raise _Unsure("the result columns differ from the generated ones")
        rows = [list(row) for row in cursor.fetchall()]
        for row in rows:
            for index in times:
                row[index] = stored_time(row[index])
        return rows

    def _mappings(self, connection: sqlite3.Connection, name: str, **args: Any) -> list[dict[str, Any]]:
        names = STATEMENTS[name][2]
        return [dict(zip(names, row, strict=True)) for row in self._rows(connection, name, **args)]

    def _roots(self, connection: sqlite3.Connection) -> Page[SessionNode]:
        if self.roots_page < 1:
            raise _Unsure("the storage refuses this limit")
        rows = self._mappings(connection, "list_roots", roots_page=self.roots_page)
        nodes, after = node_page(rows, self.roots_page, "updated_at")
        if self.session is None and nodes and not isinstance(nodes[0].session_id, BadText):
            # Promised before the roots are published: whoever reads them asks for these next.
            self._promise_session(nodes[0].session_id)
        return Page(items=nodes, next_cursor=after)

    def _node(self, connection: sqlite3.Connection, session: str) -> SessionNode | None:
        rows = self._mappings(connection, "get_node", session=session)
        return node_from_row(rows[0]) if rows else None

    def _bounds(self, connection: sqlite3.Connection, session: str) -> RawLogBounds:
        return bounds_from_row(self._rows(connection, "raw_bounds", session=session)[0])

    def _versions(self, connection: sqlite3.Connection, session: str) -> list[SnapshotMeta]:
        """``all_snapshot_versions``: keyset pages of metadata until a short one."""
        versions: list[SnapshotMeta] = []
        after: int | None = None
        while True:
            if after is None:
                rows = self._mappings(connection, "versions_first", session=session, versions_page=VERSIONS_PAGE)
            else:
                rows = self._mappings(
                    connection, "versions_after", session=session, after_version=after, versions_page=VERSIONS_PAGE
                )
            chunk = [meta_from_row(row) for row in rows]
            versions.extend(chunk)
            if len(chunk) < VERSIONS_PAGE:
                return versions
            after = chunk[-1].version

    def _latest(self, connection: sqlite3.Connection, session: str) -> SnapshotInfo | None:
        rows = self._mappings(connection, "snapshot_latest", session=session)
        return snapshot_info_from_row(rows[0], _decode) if rows else None

    def _ancestors(self, connection: sqlite3.Connection, session: str) -> list[SessionNode]:
        """The storage's consistent read: one transaction, the parent walk fed with node rows."""
        connection.execute("BEGIN DEFERRED")
        try:
            found = self._rows(connection, "ancestors_parent", session=session)
            walk = walk_ancestors(session, found[0][0] if found else None)
            try:
                parent = next(walk)
                while True:
                    rows = self._mappings(connection, "get_node", session=parent)
                    parent = walk.send(rows[0] if rows else None)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        finally:
            connection.rollback()

    def _page(self, connection: sqlite3.Connection, session: str) -> list[RawMessageRecord]:
        if self.page_size < 1:
            raise _Unsure("the storage refuses this limit")
        rows = self._mappings(connection, "raw_page", session=session, page_size=self.page_size)
        return [record_from_row(row, _decode) for row in rows]


if TYPE_CHECKING:
    # mypy checks the reader against what the warm store takes.
    def _warm(quick: QuickStart) -> Warm:
        return quick
