"""Shared helpers of the UI tests: store copies at fixed paths, a frozen clock, fixture ids."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from tests.support import FIXTURES

FROZEN = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
SNAP_DIR = Path(tempfile.gettempdir()) / "zett-browser-ui-tests"


def frozen_clock() -> datetime:
    return FROZEN


def store_copy(name: str, directory: Path | None = None) -> Path:
    """A copy of a fixture store (the fixtures themselves are never opened)."""
    target_dir = directory or SNAP_DIR
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / f"{name}.sqlite3"
    for leftover in target_dir.glob(f"{name}.sqlite3*"):
        leftover.unlink()
    shutil.copy(FIXTURES / f"{name}.sqlite3", target)
    return target


async def settle(pilot: Pilot[None]) -> None:
    """Let workers finish and the screen repaint."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


#: Session ids of ``tests/fixtures/storage_api.sqlite3``.
ROOT = "0193a5c0-0000-7000-8000-00000000000"
PAGINATION, LONG, KITCHEN, PARENT, CHILD = ROOT + "9", ROOT + "2", ROOT + "1", ROOT + "3", ROOT + "4"
EMPTY = ROOT + "8"


def status(app: object) -> str:
    """The page status line as the user reads it."""
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#page-status").render())


def sequences(app: object) -> list[int]:
    """The sequences of the records on the shown Raw Log page."""
    from zett_browser.widgets.rawlog import RawLogView

    view = app.screen.query_one(RawLogView)  # type: ignore[attr-defined]
    return [record.sequence for record in view.records]
