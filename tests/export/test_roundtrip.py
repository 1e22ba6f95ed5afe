"""JSON exports hold the stored rows unchanged: written back through the storage API they
reproduce the original tables exactly, and real zett-agent 0.2.1 reads the result as it
reads the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compat.compare import differences, dump_with
from tests.export.helpers import copy_fixture, export_text, roots_and_orphans, table_rows
from tests.support import DELEGATING_PARENT, GRANDCHILD
from zett_browser.demo.store import build_demo_store
from zett_browser.export.restore import RestoreError, restore


async def _round_trip(original: Path, target: Path) -> None:
    for session in roots_and_orphans(original):
        text, _report = await export_text(original, session, format="json", subtree=True)
        await restore(json.loads(text), str(target))


@pytest.mark.parametrize("name", ["agent_run", "storage_api"])
async def test_json_round_trip_reproduces_every_table(tmp_path: Path, name: str) -> None:
    original = copy_fixture(name, tmp_path)
    target = tmp_path / "restored.sqlite3"
    await _round_trip(original, target)
    assert table_rows(target) == table_rows(original)


async def test_a_store_older_than_session_type_round_trips_with_type_0(tmp_path: Path) -> None:
    """The storage API writes today's schema: every stored column equal, session_type 0 added."""
    original = copy_fixture("legacy_no_session_type", tmp_path)
    target = tmp_path / "restored.sqlite3"
    await _round_trip(original, target)
    assert table_rows(target, like=original) == table_rows(original)
    assert {row[2] for row in table_rows(target)["agent_sessions"]} == {0}


async def test_json_round_trip_of_the_demo_store(tmp_path: Path) -> None:
    original = await build_demo_store(tmp_path / "demo.sqlite3")
    target = tmp_path / "restored.sqlite3"
    await _round_trip(original, target)
    assert table_rows(target) == table_rows(original)


@pytest.mark.parametrize("name", ["agent_run", "storage_api"])
async def test_real_zett_agent_reads_the_restored_store_as_the_original(
    tmp_path: Path, name: str, zett_agent_py: Path
) -> None:
    original = copy_fixture(name, tmp_path)
    target = tmp_path / "restored.sqlite3"
    await _round_trip(original, target)
    expected = dump_with(zett_agent_py, "zett_agent", original)
    actual = dump_with(zett_agent_py, "zett_agent", target)
    assert differences(expected, actual) == []


async def test_a_subtree_export_restores_only_that_subtree(tmp_path: Path) -> None:
    original = copy_fixture("storage_api", tmp_path)
    text, report = await export_text(original, DELEGATING_PARENT, format="json", subtree=True)
    assert report.sessions == 3
    target = tmp_path / "restored.sqlite3"
    assert await restore(json.loads(text), str(target)) == 3
    sessions = [DELEGATING_PARENT, DELEGATING_PARENT[:-1] + "4", GRANDCHILD]
    assert table_rows(target) == table_rows(original, sessions)


async def test_restore_refuses_what_is_not_an_export(tmp_path: Path) -> None:
    with pytest.raises(RestoreError, match="not a zett-browser JSON export"):
        await restore({"session": {}}, str(tmp_path / "x.sqlite3"))
