"""Long compacted sessions of the benchmark's store generator, against real ``load()``.

``benchmarks/bigstore.py`` writes stores in zett-agent's exact format, with some sessions
compacted every 40 messages. At the end of such a session the context must equal what real
zett-agent 0.2.1's ``load()`` returns. For a past N the oracle is the store as it was then:
a copy without the rows from N on and without the snapshots made after N's step began,
handed to real ``load()``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bigstore import build
from zett_browser.storage import SQLSessionStorage
from zett_browser.views import time_travel as context

LOAD_NOW = Path(__file__).parent / "load_now.py"


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("bench") / "big.sqlite3"
    build(path, messages=3_000, sessions=12, big=2_000, fanout=2)
    connection = sqlite3.connect(path)
    compacted = [
        row[0]
        for row in connection.execute(
            "SELECT session_id FROM session_snapshots GROUP BY session_id HAVING count(*) >= 3 ORDER BY count(*) DESC"
        )
    ]
    connection.close()
    assert compacted, "the generator compacts every tenth session"
    return path, compacted


def _real_load(zett_agent_py: Path, path: Path, session_id: str) -> list[Any]:
    result = subprocess.run(
        [str(zett_agent_py), str(LOAD_NOW), str(path), session_id], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    items: list[Any] = json.loads(result.stdout)
    return items


async def _ours(path: Path, session_id: str, at: int | None) -> list[Any]:
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        point = await context.locate(storage, session_id, at)
        items: list[Any] = json.loads(await context.export_json(storage, point))
        return items
    finally:
        await storage.close()


def _as_it_was(path: Path, target: Path, session_id: str, at: int) -> None:
    """The store when message ``at``'s step began: later rows and snapshots removed."""
    shutil.copy(path, target)
    connection = sqlite3.connect(target)
    with connection:
        started = connection.execute(
            "SELECT started_at FROM raw_messages WHERE session_id = ? AND sequence = ?", (session_id, at)
        ).fetchone()[0]
        connection.execute("DELETE FROM raw_messages WHERE session_id = ? AND sequence >= ?", (session_id, at))
        connection.execute(
            "DELETE FROM session_snapshots WHERE session_id = ? AND created_at > ?", (session_id, started)
        )
    connection.close()


async def test_the_end_of_long_compacted_sessions(big_store: tuple[Path, list[str]], zett_agent_py: Path) -> None:
    path, compacted = big_store
    for session_id in compacted[:2]:
        ours = await _ours(path, session_id, None)
        assert ours == _real_load(zett_agent_py, path, session_id)
        assert ours[0]["kind"] == 5


async def test_past_steps_of_a_long_compacted_session(
    big_store: tuple[Path, list[str]], zett_agent_py: Path, tmp_path: Path
) -> None:
    path, compacted = big_store
    session_id = compacted[0]
    connection = sqlite3.connect(path)
    last = connection.execute("SELECT max(sequence) FROM raw_messages WHERE session_id = ?", (session_id,)).fetchone()[
        0
    ]
    connection.close()
    assert last > 120
    # Before the first snapshot, right at and after a boundary, mid-window, the last message.
    for at in (3, 40, 41, 42, 81, 100, last):
        then = tmp_path / f"at-{at}.sqlite3"
        _as_it_was(path, then, session_id, at)
        assert await _ours(path, session_id, at) == _real_load(zett_agent_py, then, session_id), at


@pytest.mark.parametrize("damage", ["none", "garbage"])
async def test_the_version_in_force_is_the_highest_dated_by_then_read_without_any_summary(
    big_store: tuple[Path, list[str]], tmp_path: Path, damage: str
) -> None:
    """``version_in_force`` (two columns, newest first) picks what ``in_force`` picks over every
    version's metadata, for every message's step and for now; a version whose time is
    unreadable (the column is NOT NULL) counts only for now, and is counted as undated when
    it is newer than the one chosen and summarises only rows before the step (issue 29)."""
    path = tmp_path / "store.sqlite3"
    shutil.copyfile(big_store[0], path)
    session = big_store[1][0]
    if damage != "none":
        with sqlite3.connect(path) as connection:
            connection.execute(
                "UPDATE session_snapshots SET created_at = 'yesterday-ish' WHERE session_id = ? AND version = 2",
                (session,),
            )
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        versions = await storage.all_snapshot_versions(session)
        records = await storage.raw_page(session, after_sequence=0, limit=5_000)
        steps: list[tuple[datetime | None, int | None]] = [(None, None)]
        for when, sequence in [*steps, *((record.started_at, record.sequence) for record in records)]:
            chosen = context.in_force(versions, when, sequence)
            floor = chosen.version if chosen is not None else 0
            possible = [v for v in versions if sequence is None or v.compacted_through_sequence < sequence]
            undated = sum(1 for v in possible if v.created_at is None and v.version > floor) if when else 0
            expected = (chosen.version if chosen is not None else None, undated)
            assert await storage.version_in_force(session, when, before_sequence=sequence) == expected, when
    finally:
        await storage.close()
