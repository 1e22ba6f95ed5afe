"""The subcommands' fast path (issue 29): an index a sync would leave unchanged is searched
without loading the SQL storage, and any change to the store sends the command down the
full path (sync first). Stores written by real zett-agent; every answer compared with the
full path's."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.index.helpers import PARENT, S2, agent_append, build, copy_fixture
from tests.realstore.stores import RealStores
from tests.support import PAGINATION
from zett_browser.index.fresh import fresh_index

#: Runs the CLI in this interpreter and says whether it synced (the sync's module loaded)
#: and whether it loaded the SQL storage at all.
PROBE = textwrap.dedent(
    """
    import sys
    from zett_browser.__main__ import main
    code = main(sys.argv[1:])
    print("SYNCED" if "zett_browser.index.sync" in sys.modules else "NOT SYNCED", file=sys.stderr)
    print("STORAGE" if "sqlalchemy" in sys.modules else "NO STORAGE", file=sys.stderr)
    raise SystemExit(code)
    """
)


#: PROBE with the stdlib labels turned off: untitled sessions are named through the storage.
STORAGE_LABELS = "import zett_browser.cli.index as c; c._quick_labelled = lambda *a: None\n" + PROBE


def _search(
    store: Path, index_dir: Path, query: str, *, storage: bool = False, storage_labels: bool = False
) -> tuple[str, bool]:
    """The CLI's hits for ``query`` and whether it synced (``storage``: whether it loaded the
    SQL storage at all; ``storage_labels``: name untitled sessions through the storage)."""
    probe = STORAGE_LABELS if storage_labels else PROBE
    result = subprocess.run(
        [sys.executable, "-c", probe, "search", str(store), query, "--index-dir", str(index_dir), "--limit", "500"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout, ("NO STORAGE" not in result.stderr) if storage else ("NOT SYNCED" not in result.stderr)


def _sidecars(store: Path) -> list[str]:
    return sorted(path.name for path in store.parent.glob(f"{store.name}-*"))


async def test_an_unchanged_store_is_searched_without_the_storage_and_finds_the_same(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    sidecars = _sidecars(store)
    index = await build(store, tmp_path / "index")
    assert fresh_index(store, tmp_path / "index") == index.path
    fast, loaded = _search(store, tmp_path / "index", "the")
    assert not loaded and fast.count("\n") > 3
    full_dir = tmp_path / "full"
    full, loaded = _search(store, full_dir, "the")  # no index there yet: built by the full path
    assert loaded and full == fast
    assert _sidecars(store) == sidecars  # the fast path left no -wal/-shm behind


async def test_an_append_by_zett_agent_sends_the_search_down_the_full_path(tmp_path: Path, zett_agent_py: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    await build(store, tmp_path / "index")
    assert agent_append(zett_agent_py, store, 1, PARENT).wait(timeout=120) == 0
    assert fresh_index(store, tmp_path / "index") is None
    hits, loaded = _search(store, tmp_path / "index", "zebra0")
    assert loaded and "zebra0" in hits
    hits, loaded = _search(store, tmp_path / "index", "zebra0")  # synced now: fast again
    assert not loaded and "zebra0" in hits


async def test_a_new_session_title_or_snapshot_is_a_change(tmp_path: Path) -> None:
    from zett_browser.storage import CompactedMessage, SQLiteSessionStorage

    store = copy_fixture("storage_api", tmp_path / "store")
    await build(store, tmp_path / "index")
    assert fresh_index(store, tmp_path / "index") is not None
    writer = SQLiteSessionStorage(store)
    try:
        await writer.update_session(S2, title="Flamingo questions")
        assert fresh_index(store, tmp_path / "index") is None
        await build(store, tmp_path / "index")
        assert fresh_index(store, tmp_path / "index") is not None
        await writer.snapshot(PAGINATION, CompactedMessage(content="Pelican summary"), 50, 0)
    finally:
        await writer.close()
    assert fresh_index(store, tmp_path / "index") is None


@pytest.mark.parametrize("damage", ["older copy", "other file", "rows gone"])
async def test_a_replaced_or_rewritten_store_is_never_taken_as_unchanged(tmp_path: Path, damage: str) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(store, backup)
    await build(store, tmp_path / "index")
    if damage == "older copy":
        connection = sqlite3.connect(backup)  # a copy whose rows differ, put over the store
        connection.execute("DELETE FROM raw_messages WHERE id = (SELECT max(id) FROM raw_messages)")
        connection.commit()
        connection.execute("PRAGMA journal_mode=DELETE")  # the change in the file itself, not a -wal
        connection.close()
        with open(store, "r+b") as target:
            target.write(backup.read_bytes())
            target.truncate()
    elif damage == "other file":
        store.rename(tmp_path / "kept.sqlite3")  # kept, so its inode cannot be reused
        shutil.copyfile(backup, store)  # same bytes, another inode
    else:
        with sqlite3.connect(store) as connection:
            connection.execute("DELETE FROM raw_messages WHERE id = (SELECT min(id) FROM raw_messages)")
    assert fresh_index(store, tmp_path / "index") is None


async def test_no_index_a_building_index_or_a_foreign_file_is_not_fresh(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    assert fresh_index(store, tmp_path / "index") is None
    index = await build(store, tmp_path / "index")
    with sqlite3.connect(index.path) as connection:
        connection.execute("UPDATE meta SET value = 'building' WHERE key = 'state'")
    assert fresh_index(store, tmp_path / "index") is None
    index.path.write_bytes(b"not an index at all")
    assert fresh_index(store, tmp_path / "index") is None
    assert fresh_index(tmp_path / "missing.sqlite3", tmp_path / "index") is None


async def test_a_store_written_by_the_real_runtime_is_searched_the_same_both_ways(
    tmp_path: Path, real_stores: RealStores
) -> None:
    main = tmp_path / "main.sqlite3"
    shutil.copyfile(real_stores.main, main)
    await build(main, tmp_path / "index")
    fast, loaded = _search(main, tmp_path / "index", "steering")
    assert not loaded
    full, loaded = _search(main, tmp_path / "other", "steering")
    assert loaded and fast == full and fast


async def test_usage_reads_an_unchanged_index_without_the_storage(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    await build(store, tmp_path / "index")
    fast = subprocess.run(
        [sys.executable, "-c", PROBE, "usage", str(store), "--by", "model", "--index-dir", str(tmp_path / "index")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    full = subprocess.run(
        [sys.executable, "-c", PROBE, "usage", str(store), "--by", "model", "--index-dir", str(tmp_path / "full")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "NO STORAGE" in fast.stderr and "NO STORAGE" not in full.stderr
    assert fast.stdout == full.stdout and "model" in fast.stdout


async def test_hits_in_titled_sessions_need_no_storage_at_all(tmp_path: Path) -> None:
    """Labels of titled sessions come from the index."""
    store = copy_fixture("storage_api", tmp_path / "store")
    await build(store, tmp_path / "index")
    hits, loaded = _search(store, tmp_path / "index", "session:0193a5c0-0000-7000-8000-000000000004", storage=True)
    assert not loaded and hits


async def test_hits_in_untitled_sessions_are_named_through_the_stdlib_driver_as_the_storage_names_them(
    tmp_path: Path, real_stores: RealStores
) -> None:
    """Untitled sessions (the runtime writes no title) are named by what their parent asked or
    their first prompt, read through the stdlib driver: no SQL storage loaded, the same
    lines as when the storage names them, and nothing left beside the store."""
    agent_run = copy_fixture("agent_run", tmp_path / "store")
    main = tmp_path / "real" / "main.sqlite3"
    children = tmp_path / "real" / "children.sqlite3"
    main.parent.mkdir()
    shutil.copyfile(real_stores.main, main)
    shutil.copyfile(real_stores.children, children)
    for store, query in ((agent_run, "the"), (main, "the"), (children, "the")):
        index_dir = tmp_path / f"index-{store.name}"
        await build(store, index_dir)
        before = _sidecars(store)
        quick, loaded = _search(store, index_dir, query, storage=True)
        assert not loaded and quick, store.name
        named, loaded = _search(store, index_dir, query, storage=True, storage_labels=True)
        assert loaded and named == quick, store.name
        assert _sidecars(store) == before


#: Modules the fast path has no use for (each costs 15-150 ms of a fresh process's start).
HEAVY = ("sqlalchemy", "aiosqlite", "pydantic", "asyncio", "importlib.metadata", "textual", "rich")
LOADED = textwrap.dedent(
    """
    import sys
    from zett_browser.__main__ import main
    code = main(sys.argv[1:])
    heavy = sorted(name for name in sys.modules if name in HEAVY)
    if {"zett_browser.model.records", "zett_browser.model.messages"} & set(sys.modules):
        print("RECORDS", file=sys.stderr)
    print("STDLIB " + " ".join(n for n in ("typing", "decimal", "dataclasses") if n in sys.modules), file=sys.stderr)
    print("LOADED " + " ".join(heavy), file=sys.stderr)
    raise SystemExit(code)
    """
).replace("HEAVY", repr(HEAVY))


async def test_search_and_usage_on_an_unchanged_index_load_no_heavy_module(
    tmp_path: Path, real_stores: RealStores
) -> None:
    """On a real-runtime store (no titles: every hit is named from the store), ``search`` and
    ``usage`` answer without the SQL storage, an event loop, pydantic or importlib.metadata."""
    main = tmp_path / "main.sqlite3"
    shutil.copyfile(real_stores.main, main)
    await build(main, tmp_path / "index")
    for argv in (["search", str(main), "the"], ["usage", str(main), "--by", "day"], ["usage", str(main)]):
        result = subprocess.run(
            [sys.executable, "-c", LOADED, *argv, "--index-dir", str(tmp_path / "index")],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout
        assert result.stderr.strip().splitlines()[-1] == "LOADED", (argv, result.stderr)
        # no record or message class is defined: `search` names its hits from session nodes alone
        assert "RECORDS" not in result.stderr, (argv, result.stderr)
        # neither typing (5 ms) nor dataclasses (8 ms) is imported; search has no use for decimal (3 ms)
        stdlib = result.stderr.strip().splitlines()[-2].split()[1:]
        assert stdlib == ([] if argv[0] == "search" else ["decimal"]), result.stderr
