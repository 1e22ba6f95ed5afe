"""Shared helpers of the UI tests: store copies at fixed paths and a frozen clock."""

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
