"""Stores and waits the usage UI tests share: the agent-run store with a priced parent model."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

from textual.pilot import Pilot

from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT
from tests.ui.helpers import settle, store_copy
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

ROOT, CHILD = AGENT_RUN_ROOT, AGENT_RUN_CHILD
#: A model genai-prices knows (the parent's steps get a cost; the child's stay unpriced).
PRICED = '"provider": "anthropic", "model": "claude-sonnet-4-20250514"'


def priced_store(directory: Path) -> Path:
    """The zett-agent-written agent_run store, its parent's steps moved to a priced model."""
    path = store_copy("agent_run", directory)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "update raw_messages set message_json = replace(message_json, ?, ?) where session_id = ?",
            ('"provider": "scripted", "model": "parent-1"', PRICED, ROOT),
        )
    connection.close()
    return path


def fresh_index(directory: Path) -> Path:
    shutil.rmtree(directory, ignore_errors=True)
    return directory


async def usage_shown(pilot: Pilot[None]) -> None:
    """Wait until the index is built and the tree's labels carry usage."""
    deadline = time.monotonic() + 60
    while True:
        main = next((s for s in pilot.app.screen_stack if isinstance(s, MainScreen)), None)
        if main is not None and main.index_state.built and main.query_one(SessionTree).usage:
            break
        assert time.monotonic() < deadline, "the usage never reached the tree"
        await pilot.pause(0.05)
    # Then until nothing changes any more: the build's last sync relabels the tree and re-lays
    # the Raw Log's cards in workers of its own.
    shown = None
    while True:
        await settle(pilot)
        main = next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))
        tree = main.query_one(SessionTree)
        now = (dict(tree.usage), dict(main.query_one(RawLogView).cards), main.index_state.building)
        if now == shown:
            return
        assert time.monotonic() < deadline, "the usage UI never settled"
        shown = now
        await pilot.pause(0.1)
