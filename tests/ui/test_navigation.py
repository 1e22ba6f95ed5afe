"""Issue 10's navigation defects, each seen through the app as a user drives it (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ui.helpers import EMPTY, LONG, PAGINATION, frozen_clock, sequences, settle, status, store_copy
from zett_browser.app import make_app
from zett_browser.screens.main import MainScreen
from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def rawlog_text(app: object) -> str:
    view = app.screen.query_one(RawLogView)  # type: ignore[attr-defined]
    return "\n".join(strip.text for strip in view.rendered_lines())


async def test_model_view_after_G_and_in_follow_mode_shows_only_what_the_model_sees(tmp_path: Path) -> None:
    """Item 1: the last-page path kept messages before the latest boundary (#10 here)."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, page_size=4, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("m", "G")
        await settle(pilot)
        assert sequences(app) and all(sequence > 10 for sequence in sequences(app)), sequences(app)
        await pilot.press("g", "f")
        await settle(pilot)
        assert sequences(app) and all(sequence > 10 for sequence in sequences(app)), sequences(app)


async def test_model_view_shows_the_latest_summary_first_in_the_pane(tmp_path: Path) -> None:
    """Item 1: the summary the model starts from is the pane's first item, not only a toast."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        assert screen.open.latest is not None
        summary = screen.open.latest.summary_text
        screen.query_one(RawLogView).focus()
        await pilot.press("m")
        await settle(pilot)
        text = rawlog_text(app)
        first_words = summary.split()[0]
        assert "summary v3" in text.lower() and first_words in text
        assert text.lower().index("summary v3") < text.index("#11"), "the summary comes before the tail"
        await pilot.press("m")
        await settle(pilot)
        assert "summary v3" not in rawlog_text(app).lower(), "the Raw Log shows no summary item"


async def write_delegations(path: Path) -> None:
    """A parent that delegated twice through ``task`` calls; results name the children."""
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    await storage.append("parent", "r", UserMessage(content="go"), title="Parent with two children")
    for index, child in enumerate(("child-a", "child-b")):
        call = ToolCall(f"task-{index}", "task", {"description": f"job {index}"})
        await storage.append("parent", "r", AssistantMessage(content="", tool_calls=(call,)))
        await storage.append(child, "r", UserMessage(content=f"job {index}"), parent_session_id="parent")
        result = json.dumps({"session_id": child, "content": "done"})
        await storage.append("parent", "r", ToolMessage(tool_call_id=call.id, name="task", content=result))
    for index in range(40):
        await storage.append("parent", "r", UserMessage(content=f"later {index}"))
    await storage.close()


async def test_o_on_a_task_call_opens_its_child_among_several(tmp_path: Path) -> None:
    """Item 4: the call finds its result and opens the session the result names."""
    path = tmp_path / "delegations.sqlite3"
    await write_delegations(path)
    app = make_app(str(path), session="parent", clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        view = screen.query_one(RawLogView)
        view.focus()
        for sequence, child in ((4, "child-b"), (2, "child-a"), (3, "child-a")):  # calls, then a result
            assert view.select_sequence(sequence)
            await pilot.press("o")
            await settle(pilot)
            assert screen.open.node.session_id == child, sequence
            await pilot.press("b")
            await settle(pilot)
            assert screen.open.node.session_id == "parent"


async def test_back_returns_to_the_page_and_message_the_reader_left(tmp_path: Path) -> None:
    """Item 7: ``b`` after ``o`` lands where the reader was, not on #1."""
    path = tmp_path / "delegations.sqlite3"
    await write_delegations(path)
    app = make_app(str(path), session="parent", page_size=4, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(RawLogView)
        view.focus()
        await pilot.press("n")
        await settle(pilot)
        assert sequences(app) == [5, 6, 7, 8]
        view.select_sequence(5)  # the second task's result
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(screen, MainScreen) and screen.open is not None
        assert screen.open.node.session_id == "child-b"
        await pilot.press("b")
        await settle(pilot)
        assert screen.open.node.session_id == "parent"
        assert sequences(app) == [5, 6, 7, 8]
        assert view.current is not None and view.current.sequence == 5


async def test_toggling_the_model_view_keeps_the_message_under_the_cursor(tmp_path: Path) -> None:
    """Item 7: ``m`` and ``m`` again keep the reader's message selected."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, page_size=4, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        await pilot.press("colon", *"12", "enter")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 12
        await pilot.press("m")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 12
        await pilot.press("m")
        await settle(pilot)
        assert "RAW LOG" in status(app)
        assert view.current is not None and view.current.sequence == 12


async def test_seq_at_start_puts_the_message_on_screen(tmp_path: Path) -> None:
    """Item 9: ``--seq N`` selects #N and scrolls it into view before the first look."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, seq=96, clock=frozen_clock)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 96
        start = view._layout.starts[view.cursor]
        height = view.scrollable_content_region.height
        assert view.scroll_y <= start < view.scroll_y + height, (view.scroll_y, start, height)


async def test_breadcrumb_never_cuts_the_open_session_and_shows_its_full_id(tmp_path: Path) -> None:
    """Item 5: at depth 3 the ancestors are cut, not the open session; the header shows its full id."""
    path = tmp_path / "deep.sqlite3"
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    titles = ["A root conversation with a rather long title", "The planner subagent with a long title"]
    await storage.append("root", "r", UserMessage(content="x"), title=titles[0])
    await storage.append("mid", "r", UserMessage(content="x"), title=titles[1], parent_session_id="root")
    leaf_id = "0196d3e0-0000-7000-8000-0000000000ff"
    leaf = "Leaf: read the ledger client code"
    await storage.append(leaf_id, "r", UserMessage(content="x"), title=leaf, parent_session_id="mid")
    await storage.close()
    app = make_app(str(path), session=leaf_id, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        crumb = app.screen.query_one("#breadcrumb")
        line = "".join(segment.text for segment in crumb.render_line(0))
        assert leaf in line, line
        header = str(app.screen.query_one("HeaderTitle").render())
        assert leaf_id in header, header


async def test_y_copies_the_open_sessions_full_id(tmp_path: Path) -> None:
    """Item 5: ``y`` copies the id (OSC 52 through Textual's clipboard)."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == LONG


async def test_short_ids_get_no_ellipsis(tmp_path: Path) -> None:
    """Item 12: an untitled session whose id is short is not shown as cut."""
    path = tmp_path / "short.sqlite3"
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    await storage.append("s1", "r", UserMessage(content="x"))
    await storage.close()
    app = make_app(str(path), session="s1", clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert "s1…" not in str(app.screen.query_one("#breadcrumb").render())


async def test_quick_bracket_presses_all_apply(tmp_path: Path) -> None:
    """Item 12: three ``]`` handled before a layout widen the tree three steps."""
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        app.screen.query_one(RawLogView).focus()
        before = tree.outer_size.width
        screen = app.screen
        assert isinstance(screen, MainScreen)
        for _ in range(3):  # as keys arriving faster than the screen lays out
            screen.action_resize_tree(4)
        await settle(pilot)
        assert tree.outer_size.width == before + 12
        screen.action_resize_tree(-4)
        screen.action_resize_tree(-4)
        await settle(pilot)
        assert tree.outer_size.width == before + 4


async def test_one_tab_stop_per_pane(tmp_path: Path) -> None:
    """Item 12: tab visits the tree, the Raw Log and the inspector, nothing invisible."""
    for session in (PAGINATION, LONG):  # without and with snapshots
        app = make_app(str(store_copy("storage_api", tmp_path)), session=session, clock=frozen_clock)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            panes = [widget.id for widget in app.screen.focus_chain]
            expected = ["tree", "rawlog"] + (["inspector-versions"] if session == LONG else [])
            assert panes == expected, panes


async def test_an_empty_session_says_so_in_the_status(tmp_path: Path) -> None:
    """Item 12: no "0 of 0" on an empty session."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=EMPTY, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        text = status(app)
        assert "0 of 0" not in text and "no messages" in text, text


async def test_the_command_palette_runs_the_raw_log_actions(tmp_path: Path) -> None:
    """Item 8: the palette offers every Raw Log action, and choosing one runs it."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        for title in ("Toggle reasoning", "Show the whole message", "Tool call ↔ result", "Open delegated session"):
            assert title in commands, sorted(commands)
        assert {"Toggle follow", "Narrower tree", "Wider tree", "Copy session id"} <= set(commands)
        view = app.screen.query_one(RawLogView)
        await commands["Toggle reasoning"].callback()
        assert view.current is not None and view.current.sequence in view.expanded
        await commands["Copy session id"].callback()
        assert app.clipboard == LONG


async def test_the_cursor_stays_on_screen_when_the_raw_log_is_wrapped_anew(tmp_path: Path) -> None:
    """Review case: opened at ``--seq 15`` the page was wrapped before the first layout at a
    guessed width; the layout's width wrapped it again and the view fell back to the top,
    the cursor off screen. A terminal resize did the same."""
    from tests.support import AGENT_RUN_ROOT

    app = make_app(str(store_copy("agent_run", tmp_path)), session=AGENT_RUN_ROOT, seq=15, clock=frozen_clock)

    def cursor_shown(view: RawLogView) -> bool:
        assert view.current is not None and view.current.sequence == 15
        start = view._layout.starts[view.cursor]  # noqa: SLF001
        return view.scroll_y <= start < view.scroll_y + view.scrollable_content_region.height

    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert cursor_shown(view)
        for size in ((100, 40), (80, 24), (160, 45)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert cursor_shown(view), size
