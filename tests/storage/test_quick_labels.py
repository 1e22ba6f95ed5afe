"""The command line's stdlib labels (``storage.quicklabels``) against the storage's (``storage.labels``).

Both read the same rows in two drivers and hand them to the same assembly, so every
label of every session must be the same string with the same ``#seq`` of its call, on
stores real zett-agent wrote, stores of the real runtime, the benchmark's realistic store,
hostile strings, broken rows, and ids that LIKE would read as wildcards.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from benchmarks.bigstore import build as build_big
from tests.realstore.stores import RealStores
from tests.support import FIXTURES
from tests.ui.helpers import write_hostile_store
from zett_browser.index.hit_labels import named_nodes, session_labels
from zett_browser.model.records import SessionNode, asked_at
from zett_browser.startup.lifecycle import drive
from zett_browser.storage import SQLSessionStorage
from zett_browser.storage.quickcontext import Declined, QuickContext
from zett_browser.storage.quicklabels import QuickLabels


def _sessions(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT id FROM agent_sessions ORDER BY id")]


async def _compare(path: Path) -> int:
    """Every session's label and every parent's ``child_labels`` both ways; how many labels were compared."""
    ids = _sessions(path)
    storage = SQLSessionStorage.open_for_browsing(str(path))
    try:
        nodes = [node for session_id in ids if (node := await storage.get_node(session_id)) is not None]
        by_parent: dict[str | None, list[SessionNode]] = {}
        for node in nodes:
            by_parent.setdefault(node.parent_session_id, []).append(node)
        expected = {parent: await storage.child_labels(parent, group) for parent, group in by_parent.items()}
        expected_names = await session_labels(storage, ids)
    finally:
        await storage.close()
    with QuickContext(path) as context:
        reads = QuickLabels(context)
        quick_nodes = [node for session_id in ids if (node := drive(reads.get_node(session_id))) is not None]
        assert quick_nodes == nodes
        got = {parent: drive(reads.child_labels(parent, group)) for parent, group in by_parent.items()}
        got_names = drive(named_nodes(reads, quick_nodes[:200]))
    assert got == expected
    for parent, labels in expected.items():
        for session_id, label in labels.items():
            assert asked_at(got[parent][session_id]) == asked_at(label), (parent, session_id)
    assert got_names == expected_names
    return sum(len(labels) for labels in expected.values())


@pytest.mark.parametrize("name", ["agent_run", "storage_api", "empty"])
async def test_fixture_stores_get_the_same_labels_both_ways(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.sqlite3"
    shutil.copyfile(FIXTURES / f"{name}.sqlite3", path)
    labelled = await _compare(path)
    if name == "agent_run":
        assert labelled >= 1  # its child is named by the parent's task call


def test_a_store_of_another_schema_is_declined_so_the_storage_names_its_hits(tmp_path: Path) -> None:
    path = tmp_path / "legacy.sqlite3"
    shutil.copyfile(FIXTURES / "legacy_no_session_type.sqlite3", path)
    with pytest.raises(Declined), QuickContext(path):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legacy.sqlite3"]


async def test_stores_of_the_real_runtime_get_the_same_labels_both_ways(
    tmp_path: Path, real_stores: RealStores
) -> None:
    for store in (real_stores.main, real_stores.children):
        path = tmp_path / store.name
        shutil.copyfile(store, path)
        assert await _compare(path) >= 1


async def test_the_realistic_benchmark_store_and_hostile_strings_get_the_same_labels(tmp_path: Path) -> None:
    big = tmp_path / "big.sqlite3"
    build_big(big, messages=3_000, sessions=120, big=400, fanout=30)
    assert await _compare(big) >= 1
    hostile = tmp_path / "hostile.sqlite3"
    await write_hostile_store(hostile)
    await _compare(hostile)


async def test_broken_rows_and_wildcard_ids_give_the_same_labels(tmp_path: Path) -> None:
    """A child whose id holds LIKE's wildcards and escape (``%``, ``_``, ``/``), a result row
    that is not JSON, and a child with no prompt: the same labels, or the same absence."""
    path = tmp_path / "agent_run.sqlite3"
    shutil.copyfile(FIXTURES / "agent_run.sqlite3", path)
    with sqlite3.connect(path) as db:
        parent, child = db.execute(
            "SELECT parent_session_id, id FROM agent_sessions WHERE parent_session_id IS NOT NULL LIMIT 1"
        ).fetchone()
        odd = "x%_/" + child[4:]
        db.execute("UPDATE agent_sessions SET id = ? WHERE id = ?", (odd, child))
        db.execute("UPDATE raw_messages SET session_id = ? WHERE session_id = ?", (odd, child))
        for row_id, content, envelope in db.execute(
            "SELECT id, content, message_json FROM raw_messages WHERE session_id = ? AND tool_name = 'task'", (parent,)
        ).fetchall():
            db.execute(
                "UPDATE raw_messages SET content = ?, message_json = ? WHERE id = ?",
                (content.replace(child, odd), envelope.replace(child, odd), row_id),
            )
        # A wildcard-free decoy: an id LIKE would match for "x%_/…" if the value were not escaped.
        decoy = "xAB" + child[3:]
        db.execute(
            "INSERT INTO agent_sessions SELECT ?, parent_session_id, session_type, title, agent_name, created_at,"
            " updated_at FROM agent_sessions WHERE id = ?",
            (decoy, odd),
        )
    assert await _compare(path) >= 1
    with sqlite3.connect(path) as db:
        db.execute("UPDATE raw_messages SET message_json = '{not json' WHERE tool_name = 'task'")
        db.execute("DELETE FROM raw_messages WHERE session_id = ? AND role = 2", (odd,))
        envelope = json.dumps([{"kind": "user", "data": {"content": "\x1b]8;;https://x\x07click\x1b]8;;\x07"}}])
        db.execute(
            "UPDATE raw_messages SET content = ?, message_json = ? WHERE role = 2", ("\x1b[31mred\xff", envelope)
        )
    await _compare(path)
