"""SVG snapshots of what the user sees (fixed terminal size, frozen clock, fixed store paths)."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.ui.helpers import CHILD, LONG, PAGINATION, SNAP_DIR, frozen_clock, run_keys, store_copy, write_hostile_store
from zett_browser.app import make_app

SIZE = (140, 40)


def test_main_screen(snap_compare: Any) -> None:
    """The newest session open, the tree with counts and markers, the inspector."""
    app = make_app(str(store_copy("storage_api")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys())


def test_delegated_child_with_breadcrumb(snap_compare: Any) -> None:
    """A subagent session opened from the tree shows the parent chain."""
    app = make_app(str(store_copy("storage_api")), session=CHILD, clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys())


def test_compacted_session_with_boundaries(snap_compare: Any) -> None:
    """Boundary markers after each snapshot's last sequence; compacted messages marked."""
    app = make_app(str(store_copy("storage_api")), session=LONG, page_size=12, clock=frozen_clock)
    assert snap_compare(app, terminal_size=(140, 60), run_before=run_keys())


def test_inspector_with_versions_on_the_real_agent_run(snap_compare: Any) -> None:
    """The agent-run store: three snapshot versions written by zett-agent's compaction."""
    app = make_app(str(store_copy("agent_run")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys())


def test_model_view_toggle(snap_compare: Any) -> None:
    """The model's context: the tail after the latest boundary."""
    app = make_app(str(store_copy("storage_api")), session=LONG, clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys("m"))


def test_hostile_strings(snap_compare: Any) -> None:
    """Markup, ANSI and OSC sequences in every field show as literal text."""
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    path = SNAP_DIR / "hostile.sqlite3"
    for leftover in SNAP_DIR.glob("hostile.sqlite3*"):
        leftover.unlink()
    asyncio.run(write_hostile_store(path))
    app = make_app(str(path), clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys("r"))


def test_corrupt_row(snap_compare: Any) -> None:
    """A row that is not JSON is an error row; the rest of the page renders."""
    import sqlite3

    path = store_copy("storage_api")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "update raw_messages set message_json = '{not json' where session_id = ? and sequence = 2",
            (PAGINATION,),
        )
    app = make_app(str(path), clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys())


def test_empty_store(snap_compare: Any) -> None:
    """A store with zett-agent's tables and no sessions."""
    app = make_app(str(store_copy("empty")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_keys())


def test_small_terminal(snap_compare: Any) -> None:
    """80×24 still shows tree, page status and messages."""
    app = make_app(str(store_copy("storage_api")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_keys())
