"""A sync in the background of the app gives way between small steps (issue 29).

While a batch is read, prepared and written, its worker threads hold the GIL much of the
time, and a key pressed in the app waits at each hand-over. The app's sync therefore
takes smaller batches than the command line, and a full build reports progress after each
chunk of sessions too (its first phase), so the app's quiet gate can hold it there as well.
"""

from __future__ import annotations

from pathlib import Path

from tests.adversarial import damage as d
from zett_browser.index import SideIndex, search_service
from zett_browser.index.sync import BATCH, SESSION_BATCH
from zett_browser.startup.lazysearch import LazySearch
from zett_browser.storage import open_store


async def test_a_full_build_reports_each_chunk_of_sessions_and_each_batch(tmp_path: Path) -> None:
    path = d.copy_fixture("storage_api", tmp_path)
    sessions = len(d.session_ids(path))
    messages = d.query(path, "select count(*) from raw_messages")[0][0]
    storage = open_store(path)
    try:
        index = SideIndex(storage, tmp_path / "index", batch=2)
        phases = [progress.phase async for progress in index.steps()]
    finally:
        await storage.close()
    assert phases.count("sessions") == -(-sessions // 2) > 1
    assert phases.count("messages") == -(-messages // 2)
    assert phases[-1] == "done" and phases.index("messages") > max(
        number for number, phase in enumerate(phases) if phase == "sessions"
    )


async def test_the_app_and_mcp_sync_take_smaller_batches_than_the_command_line(tmp_path: Path) -> None:
    assert search_service.BACKGROUND_BATCH < BATCH and SESSION_BATCH <= BATCH
    path = d.copy_fixture("agent_run", tmp_path)
    messages = d.query(path, "select count(*) from raw_messages")[0][0]
    storage = open_store(path)
    try:
        service = LazySearch(storage, tmp_path / "index").service()  # what the app's screens use
        assert service.index.batch == search_service.BACKGROUND_BATCH
        steps = [step async for step in service.steps()]
        assert steps[-1].finished and steps[-1].done == messages
    finally:
        await storage.close()
