"""The time-travel context equals what REAL zett-agent 0.2.1's ``load()`` returned, step by step.

``drive_agent.py`` ran an Agent (scripted offline model, a tool, compaction with a tiny
budget: five snapshots) and recorded ``encode_messages(load().messages)`` before and after
every model call, with the sequence the next row got. Here zett-browser reads the
finished store (read-only, later: every snapshot exists by now) and must rebuild each of
those contexts from N alone: the snapshot in force is chosen by time, not by boundary.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from zett_browser.storage import SQLSessionStorage
from zett_browser.views import time_travel as context


def _copy(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / "agent.sqlite3"
    shutil.copy(store, target)
    return target


async def _export(storage: SQLSessionStorage, session_id: str, at: int | None) -> list[Any]:
    point = await context.locate(storage, session_id, at)
    items: list[Any] = json.loads(await context.export_json(storage, point))
    return items


async def test_every_recorded_step_matches_load(agent_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        checked = 0
        for step in record["records"]:
            assert await _export(storage, record["session_id"], step["at"]) == step["messages"], step
            checked += 1
        assert checked >= 20
        # The default N is one past the last message: load() as it is now.
        assert await _export(storage, record["session_id"], None) == record["records"][-1]["messages"]
    finally:
        await storage.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


async def test_time_not_boundary_picks_the_snapshot(agent_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """At some recorded step a later snapshot's boundary was already behind N, yet that
    snapshot did not exist yet: choosing by boundary would give a different context."""
    store, record = agent_run
    storage = SQLSessionStorage.open_for_browsing(_copy(store, tmp_path))
    try:
        snapshots = await storage.list_snapshots(record["session_id"])
        discriminating = []
        for step in record["records"]:
            point = await context.locate(storage, record["session_id"], step["at"])
            by_boundary = max(
                (s for s in snapshots if s.compacted_through_sequence < step["at"]),
                key=lambda s: s.version,
                default=None,
            )
            if point.snapshot is not None and by_boundary is not None and by_boundary.version != point.snapshot.version:
                discriminating.append(step["at"])
            assert (point.snapshot.version if point.snapshot else 0) == step["snapshot_version"]
        assert discriminating, "the run should have a step where time and boundary disagree"
    finally:
        await storage.close()


async def test_rows_not_replayed_are_left_out(agent_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """The system rows, the note and the user message sent with include_in_messages false
    are in the Raw Log but in no context; the estimate counts them apart."""
    store, record = agent_run
    storage = SQLSessionStorage.open_for_browsing(_copy(store, tmp_path))
    session = record["session_id"]
    try:
        rows = await storage.raw_page(session, after_sequence=0, limit=500)
        hidden = [row.sequence for row in rows if not row.message.include_in_messages]
        kinds = {type(row.message).__name__ for row in rows if row.sequence in hidden}
        assert kinds == {"SystemMessage", "AgentMessage", "UserMessage"}
        last = rows[-1].sequence
        for at in range(1, last + 2):
            point = await context.locate(storage, session, at)
            included = [row.record.sequence async for page in context.context_pages(storage, point) for row in page]
            assert not set(included) & set(hidden)
            assert included == [
                row.sequence for row in rows if point.floor < row.sequence < at and row.sequence not in hidden
            ]
            size = await context.estimate(storage, point)
            assert size.skipped == sum(1 for seq in hidden if point.floor < seq < at)
    finally:
        await storage.close()


@pytest.mark.parametrize("at", [0, -1, 10_000])
async def test_an_n_outside_the_log_is_a_clear_error(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, at: int
) -> None:
    store, record = agent_run
    storage = SQLSessionStorage.open_for_browsing(_copy(store, tmp_path))
    try:
        with pytest.raises(context.ContextError, match="from 1 to"):
            await context.locate(storage, record["session_id"], at)
    finally:
        await storage.close()
