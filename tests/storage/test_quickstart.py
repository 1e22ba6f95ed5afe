"""The start-up reader answers the first screen's calls exactly as the storage does, or declines.

Stores: every zett-agent-written fixture, the demo store, small benchmark builds (a
compacted session with over 1,000 snapshot versions: two pages of version metadata).
All healthy: with the real fast decoder nothing is declined, and every result equals the
storage's (:func:`tests.storage.quickcheck.check` compares each one). Damaged stores,
where declining is allowed, are in tests/adversarial/test_damaged_quickstart.py.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.bigstore import BIG_SESSION, COMPACTED_SESSION, build, build_compacted
from tests.storage.quickcheck import Outcome, check, real_preflight_ok
from tests.support import EMPTY, FIXTURES, KITCHEN_SINK, ORPHAN, PAGINATION
from zett_browser.demo.store import build_demo_store
from zett_browser.storage import open_store, startgen
from zett_browser.storage.quickstart import DECLINED, QuickStart, key_of

REPO = Path(__file__).resolve().parents[2]
FIXTURE_STORES = sorted(path.stem for path in FIXTURES.glob("*.sqlite3"))
#: Stores the statements were not generated for: everything is declined.
FOREIGN_SCHEMA = {"legacy_no_session_type"}


def copy(name: str, directory: Path) -> Path:
    target = directory / f"{name}.sqlite3"
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", target)
    return target


def sessions_of(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM agent_sessions ORDER BY id")]
    connection.close()
    return ids


def assert_exact(outcome: Outcome, *, declines: bool = False) -> None:
    """Served results were compared in ``check``; here: the preflight, and nothing declined.

    A store the reader declines gets preflight False ("unknown": the storage decides);
    otherwise the preflight is True exactly when the storage's preflight lets the app start.
    """
    assert outcome.real_preflight or not outcome.preflight
    if not declines:
        assert outcome.preflight == outcome.real_preflight
        assert outcome.declined == [], outcome


def test_startsql_is_generated_from_the_storage() -> None:
    """A change to a first-screen query fails here until startsql.py is regenerated."""
    assert startgen.TARGET.read_text(encoding="utf-8") == startgen.render(), (
        "run: python -m zett_browser.storage.startgen"
    )


@pytest.mark.parametrize(
    "module", ["quickstart", "convert", "shaping", "sqlitefile", "startsql", "fastdecode", "errors", "sidecars"]
)
def test_import_loads_no_heavy_module(module: str) -> None:
    code = (
        f"import sys, zett_browser.storage.{module}\n"
        "from zett_browser.storage import StoreError, SessionNode\n"
        "print(sorted(m for m in ('sqlalchemy', 'aiosqlite', 'pydantic', 'textual') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_storage_names_still_load_sqlalchemy_without_its_orm() -> None:
    code = (
        "import sys\n"
        "from zett_browser.storage import open_store, SQLiteSessionStorage, SessionSummary\n"
        "print('sqlalchemy' in sys.modules, 'sqlalchemy.orm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_keys_are_the_store_protocols() -> None:
    """A call's key is the same however its arguments are passed (that the screen takes
    every promised result: ``tests/ui/test_start_and_poll.py``)."""
    assert key_of("raw_page", ("s",), {"limit": 3, "after_sequence": None}) == key_of(
        "raw_page", ("s",), {"after_sequence": None, "limit": 3}
    )
    assert key_of("get_node", ("s",), {}) == key_of("get_node", (), {"session_id": "s"})


@pytest.mark.parametrize("name", FIXTURE_STORES)
def test_fixture_stores_first_screen(name: str, tmp_path: Path) -> None:
    outcome = check(copy(name, tmp_path))
    assert_exact(outcome, declines=name in FOREIGN_SCHEMA)
    if name in FOREIGN_SCHEMA:
        assert outcome.served == [] and not outcome.preflight


@pytest.mark.parametrize("name", sorted(set(FIXTURE_STORES) - FOREIGN_SCHEMA))
def test_every_session_of_the_fixtures(name: str, tmp_path: Path) -> None:
    path = copy(name, tmp_path)
    for session in sessions_of(path):
        for page_size in (1, 50):
            assert_exact(check(path, session=session, page_size=page_size))


def test_limits_the_storage_refuses_are_declined(tmp_path: Path) -> None:
    """The storage raises ValueError on a limit below 1; the reader must not answer []."""
    path = copy("storage_api", tmp_path)
    assert check(path, session=PAGINATION, page_size=0).declined == ["raw_page"]
    assert check(path, roots_page=0).declined == ["list_roots"]


def test_a_short_roots_page_has_the_storages_cursor(tmp_path: Path) -> None:
    path = copy("storage_api", tmp_path)
    for roots_page in (1, 2, 6):
        assert_exact(check(path, roots_page=roots_page, page_size=7))


@pytest.mark.parametrize(
    ("session", "seq", "ready"),
    [
        (PAGINATION, 1, True),
        (PAGINATION, 120, True),
        (PAGINATION, 121, False),  # past the end
        (EMPTY, 1, False),  # no messages
        ("no-such-session", None, False),
        (KITCHEN_SINK, None, True),
    ],
)
def test_preflight_matches_the_storage(session: str, seq: int | None, ready: bool, tmp_path: Path) -> None:
    path = copy("storage_api", tmp_path)
    quick = QuickStart(path, session=session, seq=seq, page_size=50).start()
    assert quick.preflight(timeout=30) is ready
    quick.finish()
    assert real_preflight_ok(path, session, seq, quick.guard) is ready


def test_demo_store(tmp_path: Path) -> None:
    path = asyncio.run(build_demo_store(tmp_path / "demo.sqlite3"))
    assert_exact(check(path))
    for session in sessions_of(path):
        assert_exact(check(path, session=session, page_size=200))


def test_bigstore_and_a_long_compacted_session(tmp_path: Path) -> None:
    big = tmp_path / "big.sqlite3"
    build(big, messages=3_000, sessions=120, big=1_000, fanout=20)
    assert_exact(check(big))
    assert_exact(check(big, session=BIG_SESSION, page_size=100))
    assert_exact(check(big, session=BIG_SESSION, seq=999))
    compacted = tmp_path / "compacted.sqlite3"
    build_compacted(compacted, messages=40_080, every=40)  # 1,002 versions: two metadata pages
    outcome = check(compacted, session=COMPACTED_SESSION)
    assert_exact(outcome)
    assert "all_snapshot_versions" in outcome.served


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "not_sqlite", "foreign", "empty_file"])
def test_preflight_unknown_quickly_on_what_is_no_store(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "not_sqlite":
        path.write_bytes(b"hello, this is no database" * 10)
    elif kind == "empty_file":
        path.write_bytes(b"")
    elif kind == "foreign":
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE notes (id TEXT)")
        connection.close()
    started = time.monotonic()
    quick = QuickStart(path, session=None, seq=None, page_size=50).start()
    assert quick.preflight(timeout=10) is False
    quick.finish()
    assert time.monotonic() - started < 5
    assert real_preflight_ok(path, None, None) is False or kind == "empty_file"


def test_store_locked_by_a_writer_gives_unknown_after_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "rollback.sqlite3"
    shutil.copyfile(FIXTURES / "storage_api.sqlite3", path)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
    connection.close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        quick = QuickStart(path, session=None, seq=None, page_size=50).start()
        assert quick.preflight(timeout=10) is False
        quick.finish()
        assert time.monotonic() - started < 3  # one busy timeout (1 s), no retries
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_live_writer_is_read_as_committed(tmp_path: Path) -> None:
    """A writer (WAL) that committed rows and holds more uncommitted: the committed ones are read."""
    path = copy("storage_api", tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    row = writer.execute(
        "SELECT id, session_id, request_id, sequence, role, content, tool_name, message_json, metadata_json,"
        " tags_json, started_at, completed_at, duration_ns, created_at, updated_at FROM raw_messages"
        " WHERE session_id = ? ORDER BY sequence DESC LIMIT 1",
        (KITCHEN_SINK,),
    ).fetchone()
    columns = "id, session_id, request_id, sequence, role, content, tool_name, message_json, metadata_json, tags_json,"
    columns += " started_at, completed_at, duration_ns, created_at, updated_at"

    def append(number: int) -> None:
        values = (f"live-{number}", row[1], row[2], row[3] + number, *row[4:])
        writer.execute(f"INSERT INTO raw_messages ({columns}) VALUES ({', '.join('?' * 15)})", values)

    try:
        for number in range(1, 4):
            append(number)  # committed (autocommit)
        writer.execute("BEGIN IMMEDIATE")
        append(10)  # not committed while we read
        outcome = check(path, session=KITCHEN_SINK, page_size=500)
        assert_exact(outcome)
        quick = QuickStart(path, session=KITCHEN_SINK, seq=None, page_size=500).start()
        page = quick.take(key_of("raw_page", (KITCHEN_SINK,), {"after_sequence": None, "limit": 500}))
        assert page is not None
        ids = [record.id for record in page.result(30)]
        quick.finish()
        assert ids[-3:] == ["live-1", "live-2", "live-3"]
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_writer_appending_from_another_process(tmp_path: Path) -> None:
    """Reads while another process appends stay exact or declined, never fail or hang."""
    path = copy("storage_api", tmp_path)
    script = (
        "import sqlite3, sys, time\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)\n"
        "db.execute('PRAGMA busy_timeout=5000')\n"
        "for n in range(400):\n"
        "    db.execute(\"UPDATE agent_sessions SET title = 'tick ' || ? WHERE id = ?\", (n, sys.argv[2]))\n"
        "    time.sleep(0.002)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script, str(path), ORPHAN])
    try:
        for _ in range(5):
            quick = QuickStart(path, session=PAGINATION, seq=None, page_size=50).start()
            assert quick.preflight(timeout=10)
            future = quick.take(key_of("get_node", (PAGINATION,), {}))
            assert future is not None and future.result(10) is not DECLINED
            quick.finish()
    finally:
        process.wait(timeout=60)
    assert_exact(check(path, session=PAGINATION))


def listing(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir())


def test_store_and_directory_unchanged_with_the_guard(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    path = copy("storage_api", directory)
    before, names = startgen_sha(path), listing(directory)
    check(path)  # QuickStart, then the storage opened with its guard, then closed
    assert (startgen_sha(path), listing(directory)) == (before, names)


@pytest.mark.parametrize("last", ["storage", "start-up reader"])
def test_two_guards_of_one_process_share_a_record_and_the_last_one_out_removes(tmp_path: Path, last: str) -> None:
    """A storage opened without the reader's guard records its own while the reader's
    -wal/-shm exist. The record is the process's, not the guard's: those files are still
    the process's own, and whichever guard lets go last removes them. (A record per guard
    left them when the one that saw them "already there" closed last: the flaky empty
    -wal/-shm after quitting during an index build, whose freshness check opens the store
    beside the storage.)"""
    directory = tmp_path / "store"
    directory.mkdir()
    path = copy("storage_api", directory)
    names = listing(directory)
    quick = QuickStart(path, session=None, seq=None, page_size=50).start()
    quick.preflight(timeout=30)
    storage = open_store(path)  # records while the reader's -wal/-shm exist
    quick.finish()

    async def browse() -> None:
        await storage.list_roots(limit=1)
        if last == "storage":
            quick.guard.release()  # the reader lets go first: the storage's connection is open
            assert listing(directory) != names
        await storage.close()  # on the loop that opened its connections: they really close

    asyncio.run(browse())
    if last == "start-up reader":
        assert listing(directory) != names  # the reader's guard still holds the store
        quick.guard.release()
    assert listing(directory) == names


def startgen_sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_finish_closes_the_connection_and_close_stops_serving(tmp_path: Path) -> None:
    path = copy("storage_api", tmp_path)
    quick = QuickStart(path, session=PAGINATION, seq=None, page_size=50).start()
    quick.preflight(timeout=30)
    quick.close()
    assert quick.take(key_of("get_node", (PAGINATION,), {})) is None
    quick.finish()
    assert not quick.thread.is_alive()
    real = path.resolve()
    opened = []
    for entry in os.listdir("/proc/self/fd"):
        try:
            opened.append(Path(os.readlink(f"/proc/self/fd/{entry}")))
        except OSError:
            continue
    assert real not in opened


def test_futures_never_stay_pending(tmp_path: Path) -> None:
    """Whatever stops the reader, every promised future gets a result (DECLINED at worst)."""
    path = copy("storage_api", tmp_path)
    quick = QuickStart(path, session=PAGINATION, seq=None, page_size=50)
    futures = [quick.take(key) for key in list(quick._promised_keys)]
    quick.close()  # before it even starts
    quick.finish()  # never started: settles them all the same
    assert not quick.thread.is_alive()
    assert all(future is not None and future.result(5) is DECLINED for future in futures)
    assert quick.preflight(timeout=1) is False
