"""Shared helpers of the UI tests: store copies at fixed paths, a frozen clock, fixture ids."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from tests.support import CHILD, EMPTY, FIXTURES, KITCHEN, LONG, PAGINATION, PARENT, ROOT

__all__ = ["CHILD", "EMPTY", "KITCHEN", "LONG", "PAGINATION", "PARENT", "ROOT"]  # fixture ids, re-exported

FROZEN = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
#: The name the store paths in the accepted snapshots carry (the header shows a store's path).
SNAPSHOT_DIR_NAME = "zett-browser-ui-tests"
#: This run's own directory for store copies, so two runs at once never share a store. Its name
#: is as long as SNAPSHOT_DIR_NAME (``mkdtemp`` adds 8 characters to the prefix), so a screen
#: lays out the same; tests/ui/conftest.py writes it as SNAPSHOT_DIR_NAME in snapshots.
SNAP_DIR = Path(tempfile.mkdtemp(prefix="zett-browser-"))
assert len(SNAP_DIR.name) == len(SNAPSHOT_DIR_NAME), SNAP_DIR
atexit.register(shutil.rmtree, SNAP_DIR, ignore_errors=True)


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


def status(app: object) -> str:
    """The page status line as the user reads it."""
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#page-status").render())


def sequences(app: object) -> list[int]:
    """The sequences of the records on the shown Raw Log page."""
    from zett_browser.widgets.rawlog import RawLogView

    view = app.screen.query_one(RawLogView)  # type: ignore[attr-defined]
    return [record.sequence for record in view.records]


def run_keys(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A snapshot ``run_before``: settle, then press ``keys`` in the Raw Log."""
    from zett_browser.widgets.rawlog import RawLogView

    async def run_before(pilot: Pilot[None]) -> None:
        from zett_browser.screens.quiet import QUIET_S

        await settle(pilot)
        if keys:
            pilot.app.screen.query_one(RawLogView).focus()
            await pilot.press(*keys)
        # What waits for a pause in the keys (tree states, labels) lands before the picture,
        # also without keys: the start-up's own pause is a timer, not yet a worker to wait
        # for, and on a loaded machine it fired after the settle (a flaky snapshot in CI).
        await pilot.pause(QUIET_S + 0.2)
        await settle(pilot)

    return run_before


#: Markup, escape sequences and links that must show literally (the hostile-store tests).
HOSTILE = [
    "[bold red]styled?[/]",
    "[@click=app.quit]click me[/]",
    "[link=https://evil.example]a link[/link]",
    "[/]",
    "\x1b[2Jclear screen",
    "\x1b]52;c;aGk=\x07clipboard",
    "\x1b]8;;https://evil.example\x1b\\osc link\x1b]8;;\x1b\\",
    "\x9b31m8-bit csi",
]


async def write_hostile_store(path: Path) -> None:
    """A store whose every string tries markup, escapes or actions (written through our storage)."""
    from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    joined = " | ".join(HOSTILE)
    await storage.append(
        "hostile",
        "r",
        UserMessage(content=joined),
        title="[bold]title[/] \x1b]0;pwned\x07",
        agent_name="[@click=app.quit]",
    )
    call = ToolCall("[red]id", "[@click=app.bell]tool", {"[b]": "\x1b[31m", "x": "[link=https://e]y"})
    await storage.append("hostile", "r", AssistantMessage(content=joined, reasoning=joined, tool_calls=(call,)))
    await storage.append(
        "hostile",
        "r",
        ToolMessage(tool_call_id="[red]id", name="[@click=app.quit]", content=joined, success=False),
        metadata={"[b]x": "\x1b]52;c;aGk=\x07"},
        tags={"[@click=app.quit]": "[/]"},
    )
    await storage.close()
