"""The index follows its store: appends by a real zett-agent, replaced or rewritten stores,
damaged index files, concurrent syncs; and the store itself is never touched."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

import pytest

from tests.index.helpers import PARENT, S1, S2, agent_append, build, copy_fixture, find, sha256, where
from tests.support import PAGINATION, listing
from zett_browser.index import ENV_DIR, Searcher, SideIndex, index_stats, parse
from zett_browser.storage import SQLSessionStorage


async def _sync(store: Path, index_dir: Path, *, rebuild: bool = False) -> tuple[SideIndex, object]:
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir)
    try:
        report = await index.sync(rebuild=rebuild)
    finally:
        await index.storage.close()
    return index, report


async def test_incremental_sync_follows_a_zett_agent_writing_in_another_process(
    tmp_path: Path, zett_agent_py: Path
) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    index = await build(store, tmp_path / "index")
    before = index_stats(index.path)
    writer = agent_append(zett_agent_py, store, 40, PARENT)
    seen = 0
    while writer.poll() is None:  # sync and search while the writer appends
        _, report = await _sync(store, tmp_path / "index")
        assert not report.rebuilt  # type: ignore[attr-defined]
        seen = max(seen, len(find(index, "zebra*")))
        await asyncio.sleep(0.05)
    assert writer.wait() == 0
    _, report = await _sync(store, tmp_path / "index")
    assert not report.rebuilt  # type: ignore[attr-defined]
    assert index_stats(index.path)["messages"] == before["messages"] + 40
    hits = where(find(index, "zebra*"))
    assert hits == {(PARENT, 21 + n, "user") for n in range(1, 41)}
    assert where(find(index, "zebra39")) == {(PARENT, 61, "user")}
    writer = agent_append(zett_agent_py, store, 1, "brand-new-session")
    assert writer.wait() == 0
    _, report = await _sync(store, tmp_path / "index")
    assert report.messages == 1 and report.sessions == 1  # type: ignore[attr-defined]
    assert where(find(index, "zebra0 session:brand-new-session")) == {("brand-new-session", 1, "user")}


async def test_a_full_build_keeps_fts5_merge_settings_that_later_syncs_use(tmp_path: Path, zett_agent_py: Path) -> None:
    """Issue 29: a build with SQLite's default merge settings spent most of a 5M build in
    FTS5 merges; the index keeps the fewer-merges settings, and the syncs after it find new rows."""
    store = copy_fixture("agent_run", tmp_path / "store")
    index = await build(store, tmp_path / "index")

    def settings() -> dict[str, int]:
        db = sqlite3.connect(f"file:{index.path}?mode=ro", uri=True)
        try:
            return dict(db.execute("SELECT k, v FROM fts_config WHERE k IN ('automerge', 'crisismerge')").fetchall())
        finally:
            db.close()

    assert settings() == {"automerge": 16, "crisismerge": 64}
    for round_ in range(3):  # new segments on top of the build's, found at once
        assert agent_append(zett_agent_py, store, 5, PARENT).wait() == 0
        _, report = await _sync(store, tmp_path / "index")
        assert not report.rebuilt and report.messages == 5  # type: ignore[attr-defined]
        assert len(find(index, "zebra*")) == 5 * (round_ + 1)
    assert settings() == {"automerge": 16, "crisismerge": 64}
    check = sqlite3.connect(tmp_path / "check.sqlite3")  # a copy: the check writes nothing, but needs write access
    source = sqlite3.connect(f"file:{index.path}?mode=ro", uri=True)
    try:
        source.backup(check)
        check.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")  # raises on a damaged FTS index
    finally:
        source.close()
        check.close()


async def test_an_empty_sync_reads_nothing_new(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    await build(store, tmp_path / "index")
    _, report = await _sync(store, tmp_path / "index")
    assert (report.rebuilt, report.messages, report.snapshots) == (False, 0, 0)  # type: ignore[attr-defined]


async def test_a_replaced_store_file_is_detected_and_the_index_rebuilt(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    index = await build(store, tmp_path / "index")
    assert find(index, '"Kitchen sink"')
    other = copy_fixture("agent_run", tmp_path / "other")
    os.replace(other, store)
    _, report = await _sync(store, tmp_path / "index")
    assert report.rebuilt and "replaced" in report.reason  # type: ignore[attr-defined]
    assert find(index, '"Kitchen sink"') == []
    assert find(index, "count_words")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (f"DELETE FROM agent_sessions WHERE id = '{S2}'", "vanished"),
        (f"DELETE FROM raw_messages WHERE session_id = '{S1}' AND sequence > 10", "lost messages"),
    ],
)
async def test_a_store_rewritten_in_place_is_detected(tmp_path: Path, damage: str, reason: str) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    index = await build(store, tmp_path / "index")
    db = sqlite3.connect(store)
    db.execute(damage)
    db.execute(f"UPDATE agent_sessions SET updated_at = '2030-01-01 00:00:00.000000' WHERE id = '{S1}'")
    db.commit()
    db.close()
    _, report = await _sync(store, tmp_path / "index")
    assert report.rebuilt and reason in report.reason  # type: ignore[attr-defined]
    assert where(find(index, "Thanks")) == ({(S1, 16, "user")} if "vanished" in reason else set())


@pytest.mark.parametrize("damage", ["garbage", "old-version", "other-store", "empty"])
async def test_a_corrupt_or_foreign_index_is_rebuilt_never_a_crash(tmp_path: Path, damage: str) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    index = await build(store, tmp_path / "index")
    expected = index_stats(index.path)
    if damage == "garbage":
        index.path.write_bytes(b"not a database at all" * 500)
        for suffix in ("-wal", "-shm"):
            Path(f"{index.path}{suffix}").unlink(missing_ok=True)
    elif damage == "empty":
        index.path.write_bytes(b"")
    else:
        db = sqlite3.connect(index.path)
        key, value = ("schema", "0") if damage == "old-version" else ("identity", "/elsewhere.sqlite3")
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        db.commit()
        db.close()
    page = Searcher(index.path).search_now(parse("square"))
    # An index of another version is never read (its columns may differ) until it is rebuilt.
    assert page.partial == (damage in ("garbage", "empty", "old-version")) and (page.hits == []) == page.partial
    _, report = await _sync(store, tmp_path / "index")
    assert report.rebuilt  # type: ignore[attr-defined]
    assert {**index_stats(index.path), "bytes": 0} == {**expected, "bytes": 0}


async def test_two_syncs_at_once_never_duplicate_and_one_waits_its_turn(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    first = SideIndex(SQLSessionStorage.open_for_browsing(store), tmp_path / "index")
    second = SideIndex(SQLSessionStorage.open_for_browsing(store), tmp_path / "index")
    reports = await asyncio.gather(first.sync(), second.sync())
    await first.storage.close()
    await second.storage.close()
    assert sorted(report.skipped for report in reports) == [False, True]
    _, again = await _sync(store, tmp_path / "index")
    assert not again.rebuilt  # type: ignore[attr-defined]
    db = sqlite3.connect(first.path)
    duplicates = db.execute(
        "SELECT count(*) FROM (SELECT 1 FROM docs GROUP BY session_id, sequence, kind HAVING count(*) > 1)"
    )
    assert duplicates.fetchone()[0] == 0
    db.close()


async def test_the_store_is_never_touched_and_the_index_lives_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    digest, files = sha256(store), listing(store.parent)
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "cache"))
    index = SideIndex(SQLSessionStorage.open_for_browsing(store))
    await index.sync()
    await Searcher(index.path).search(parse("red kind:assistant"))
    await index.sync(rebuild=True)
    await index.storage.close()
    assert sha256(store) == digest and listing(store.parent) == files
    assert index.path.parent == tmp_path / "cache" and index.path.name.startswith("storage_api.sqlite3-")


async def test_unreadable_rows_are_indexed_by_raw_text_and_counted(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    db = sqlite3.connect(store)
    db.execute(f"UPDATE raw_messages SET message_json = '{{broken platypus' WHERE session_id = '{S1}' AND sequence = 2")
    db.execute(f"UPDATE raw_messages SET tags_json = 'not json' WHERE session_id = '{S1}' AND sequence = 3")
    db.execute(f"UPDATE raw_messages SET started_at = 'never' WHERE session_id = '{S1}' AND sequence = 5")
    db.commit()
    db.close()
    index, report = await _sync(store, tmp_path / "index")
    assert report.problems == 3  # type: ignore[attr-defined]
    assert where(find(index, "platypus")) == {(S1, 2, "user")}
    assert (S1, 5, "tool") in where(find(index, "square"))


async def test_progress_is_reported_and_results_say_partial_while_building(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), tmp_path / "index")
    partial_seen = []
    steps = []
    async for progress in index.steps():
        steps.append(progress)
        if progress.report is None:
            partial_seen.append(Searcher(index.path).search_now(parse("message")).partial)
    await index.storage.close()
    assert steps[-1].report is not None and steps[-1].report.messages == index_stats(index.path)["messages"]
    assert partial_seen and all(partial_seen)
    assert steps[0].phase == "sessions" and steps[0].done == 0  # a step the app's quiet gate can hold
    middle = next(step for step in steps if step.phase == "messages")
    assert 0 < middle.done <= middle.total and middle.rate > 0 and middle.eta is not None
    assert Searcher(index.path).search_now(parse("message")).partial is False


async def test_a_new_title_and_a_new_snapshot_are_picked_up_incrementally(tmp_path: Path) -> None:
    from zett_browser.storage import CompactedMessage, SQLiteSessionStorage

    store = copy_fixture("storage_api", tmp_path / "store")
    index = await build(store, tmp_path / "index")
    nine = PAGINATION
    writer = SQLiteSessionStorage(store)
    try:
        await writer.update_session(S2, title="Flamingo questions")
        await writer.snapshot(nine, CompactedMessage(content="Pelican summary"), 50, 0)
    finally:
        await writer.close()
    _, report = await _sync(store, tmp_path / "index")
    assert not report.rebuilt and report.snapshots == 1  # type: ignore[attr-defined]
    assert where(find(index, "flamingo")) == {(S2, 0, "session")}
    assert where(find(index, '"Long conversation"')) == set()
    assert where(find(index, "pelican")) == {(nine, 50, "snapshot")}


def test_a_server_store_is_named_without_its_secrets(tmp_path: Path) -> None:
    from sqlalchemy.engine import make_url

    from zett_browser.index import index_file, store_identity

    url = make_url("postgresql+psycopg://reader:hunter2@db.example:5432/agents?sslpassword=s3cret&application_name=zb")
    identity = store_identity(None, url)
    name = index_file(identity, tmp_path).name
    for secret in ("hunter2", "s3cret"):
        assert secret not in identity and secret not in name
    assert name.startswith("agents-") and "db.example:5432/agents" in identity
