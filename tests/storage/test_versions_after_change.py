"""A poll re-reads only the snapshot versions added since the ones it knows (issue 16).

Following a session with 2,500 versions that is compacted as it grows, reading every
version's metadata again at each new version held the loop ~20 ms every few seconds. The
screen's helper reads the versions after the newest known one when that accounts for the
new snapshot mark, and everything otherwise; either way the result equals a full read.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import CHECKPOINTED, FIXTURES
from zett_browser.model.messages import CompactedMessage
from zett_browser.screens.watch import _versions_after_change
from zett_browser.storage import SQLiteSessionStorage, open_store


def copy_of(name: str, directory: Path) -> Path:
    target = directory / f"{name}.sqlite3"
    shutil.copy(FIXTURES / f"{name}.sqlite3", target)
    return target


async def test_only_new_versions_are_read_and_the_result_equals_a_full_read(tmp_path: Path) -> None:
    path = copy_of("storage_api", tmp_path)
    writer = SQLiteSessionStorage(path)
    browser = open_store(path)
    reads: list[str] = []
    inside_all: list[bool] = []
    real_all, real_page = browser.all_snapshot_versions, browser.snapshot_versions

    async def all_versions(session_id: str, **kwargs: object) -> object:
        reads.append("all")
        inside_all.append(True)
        try:
            return await real_all(session_id, **kwargs)  # type: ignore[arg-type]
        finally:
            inside_all.pop()

    async def page(session_id: str, **kwargs: object) -> object:
        if not inside_all:  # (a full read pages through this too)
            reads.append("after")
        return await real_page(session_id, **kwargs)  # type: ignore[arg-type]

    browser.all_snapshot_versions = all_versions  # type: ignore[method-assign, assignment]
    browser.snapshot_versions = page  # type: ignore[method-assign, assignment]
    try:
        known = await real_all(CHECKPOINTED)
        assert len(known) == 3
        bounds = await browser.raw_bounds(CHECKPOINTED)
        for added in range(2):
            boundary = (bounds.last_sequence or 0) - 1 + added
            await writer.snapshot(CHECKPOINTED, CompactedMessage(content=f"v{4 + added}"), boundary, len(known) + added)
        mark = await browser.snapshot_mark(CHECKPOINTED)
        reads.clear()
        versions = await _versions_after_change(browser, CHECKPOINTED, known, mark)
        assert reads == ["after"], "only the new versions were read"
        assert versions == await real_all(CHECKPOINTED)
        assert [meta.version for meta in versions] == [1, 2, 3, 4, 5]

        # Versions gone (a session cleared and compacted again): everything is read again.
        reads.clear()
        fewer = await _versions_after_change(browser, CHECKPOINTED, versions, (2, "x"))
        assert reads == ["all"] and fewer == await real_all(CHECKPOINTED)
        # A mark the new versions do not account for (another id is the newest): read all.
        reads.clear()
        await _versions_after_change(browser, CHECKPOINTED, known, (5, "not-an-id-of-these"))
        assert reads == ["after", "all"]
    finally:
        await browser.close()
        await writer.close()
