"""Search in the app: the side index built in the background, the search view, hits in a session.

Real parts: copies of the zett-agent-written fixtures, the real app through ``make_app``
and Pilot, the index in ``tmp_path`` (never the user's cache).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from pathlib import Path

import pytest
from textual import events

from tests.index.helpers import PARENT, S1, copy_fixture, sha256
from tests.ui.search_helpers import app_on, built, main_screen, note, rendered, search, until, where
from zett_browser.__main__ import main
from zett_browser.app import make_app
from zett_browser.screens.indexing import IndexLine
from zett_browser.screens.main import MainScreen
from zett_browser.screens.search import SearchScreen
from zett_browser.storage import SQLiteSessionStorage, UserMessage
from zett_browser.widgets.hits import HitList
from zett_browser.widgets.rawlog import RawLogView

HOSTILE = "\x1b]8;;https://evil.example\x07click here\x1b]8;;\x07 [@click=app.quit]quit[/] \x1b[2J\x9b31m done"


async def test_a_tool_argument_is_found_and_enter_opens_its_message(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        main = await built(pilot)
        view = await search(pilot, '"Verify the word count"')  # only in the tool call's arguments
        assert where(view) == [(PARENT, 7, "assistant")]
        assert "Verify the word count" in rendered(view.query_one(HitList))
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert pilot.app.screen is main
        assert main.open is not None and main.open.node.session_id == PARENT
        current = main.query_one(RawLogView).current
        assert current is not None and current.sequence == 7


async def test_a_reasoning_word_is_found_and_dot_comma_step_through_hits(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        main = await built(pilot)
        view = await search(pilot, '"look something up"')  # only in the reasoning
        assert where(view) == [(S1, 4, "assistant")]
        view = await search(pilot, "describe_image")
        assert sorted(where(view)) == [(S1, 4, "assistant"), (S1, 5, "tool")]
        view.query_one(HitList).focus()
        await pilot.press("end", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        rawlog = main.query_one(RawLogView)
        first = rawlog.current
        assert main.open is not None and main.open.node.session_id == S1 and first is not None
        assert first.sequence in (4, 5)
        rawlog.focus()
        other = 9 - first.sequence
        await pilot.press("full_stop" if other > first.sequence else "comma")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert rawlog.current is not None and rawlog.current.sequence == other
        await pilot.press("comma" if other > first.sequence else "full_stop")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert rawlog.current is not None and rawlog.current.sequence == first.sequence
        await pilot.press("g")  # first page, cursor on #1: the next hit is #4
        await pilot.app.workers.wait_for_complete()
        await pilot.press("full_stop")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert rawlog.current is not None and rawlog.current.sequence == 4


async def test_a_hostile_snippet_stays_literal(tmp_path: Path) -> None:
    store = tmp_path / "store" / "hostile.sqlite3"
    store.parent.mkdir()
    writer = SQLiteSessionStorage(store)
    await writer.append("s-hostile", "r1", UserMessage(content=HOSTILE))
    await writer.close()
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        await built(pilot)
        view = await search(pilot, "click")
        hits = view.query_one(HitList)
        assert len(hits.hits) == 1
        text = rendered(hits)
        assert "[@click=app.quit]quit[/]" in text
        assert not any(ch in text for ch in "\x1b\x9b\x07")
        await pilot.click(HitList, offset=(20, 1))  # a link or action would quit here
        await pilot.pause()
        assert pilot.app.is_running


async def test_a_bad_query_shows_its_one_line_message(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        await built(pilot)
        view = await search(pilot, "kind:nope")
        assert "kind:nope" in note(view) and "\n" not in note(view)
        assert where(view) == []
        view = await search(pilot, "in:session red")  # needs an open session: there is one
        assert "red" in rendered(view.query_one(HitList)).lower() or where(view) == []
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, MainScreen)


async def test_search_option_opens_on_the_results(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    app = app_on(store, tmp_path / "index", search="describe_image")
    async with app.run_test(size=(160, 45)) as pilot:
        await built(pilot)
        await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen) and bool(where(pilot.app.screen)))
        view = pilot.app.screen
        assert isinstance(view, SearchScreen)
        assert sorted(where(view)) == [(S1, 4, "assistant"), (S1, 5, "tool")]
        assert "2 hits" in note(view) and "missing" not in note(view)


def test_no_index_creates_no_index_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    monkeypatch.setenv("ZETT_BROWSER_INDEX_DIR", str(tmp_path / "index"))
    app = make_app(str(store), index=False, poll_interval=0)
    assert app.options.search is None

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            await pilot.press("slash")  # says search is off
            await pilot.pause()
            assert isinstance(pilot.app.screen, MainScreen)

    asyncio.run(run())
    assert not (tmp_path / "index").exists()
    assert sorted(os.listdir(store.parent)) == ["storage_api.sqlite3"]


def test_cli_bad_search_query_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    assert main([str(store), "--search", 'kind:nope "x', "--index-dir", str(tmp_path / "index")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zett-browser: --search: ") and err.count("\n") == 1
    with pytest.raises(SystemExit) as stopped:
        main([str(store), "--search", "x", "--no-index"])
    assert stopped.value.code == 2
    assert "--no-index" in capsys.readouterr().err
    assert not (tmp_path / "index").exists()


async def test_indexing_leaves_the_store_unchanged(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    before, listing = sha256(store), sorted(os.listdir(store.parent))
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(120, 40)) as pilot:
        await built(pilot)
        await search(pilot, "count_words")
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
    assert sha256(store) == before
    assert sorted(os.listdir(store.parent)) == listing
    assert any(name.endswith(".sqlite3") for name in os.listdir(tmp_path / "index"))


def big_store(directory: Path, copies: int) -> Path:
    """storage_api's 158 rows ``copies`` times over, as new sessions (ids renumbered)."""
    store = copy_fixture("storage_api", directory)
    with sqlite3.connect(store) as db:
        sessions = db.execute("SELECT * FROM agent_sessions").fetchall()
        rows = db.execute("SELECT * FROM raw_messages").fetchall()
        for copy in range(1, copies):

            def renumber(value: object, copy: int = copy) -> object:
                return f"{copy:08x}{value[8:]}" if isinstance(value, str) and len(value) == 36 else value

            db.executemany(
                f"INSERT INTO agent_sessions VALUES ({','.join('?' * len(sessions[0]))})",
                [(renumber(r[0]), renumber(r[1]), *r[2:]) for r in sessions],
            )
            db.executemany(
                f"INSERT INTO raw_messages VALUES ({','.join('?' * len(rows[0]))})",
                [(renumber(r[0]), renumber(r[1]), *r[2:]) for r in rows],
            )
    return store


async def test_keys_are_answered_and_progress_shown_while_a_big_store_is_indexed(tmp_path: Path) -> None:
    store = big_store(tmp_path / "store", 1000)  # 158,000 messages
    app = app_on(store, tmp_path / "index", session=S1)
    stalls: list[float] = []
    latencies: list[float] = []
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: any(isinstance(s, MainScreen) for s in app.screen_stack))
        main = main_screen(app)
        await until(pilot, lambda: getattr(main, "index_state", None) is not None and main.index_state.building)

        async def watch_loop() -> None:
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.005)
                now = time.monotonic()
                stalls.append(now - last - 0.005)
                last = now

        watcher = asyncio.create_task(watch_loop())
        line = main.query_one(IndexLine)
        await until(pilot, lambda: not line.has_class("hidden"))
        assert "index" in str(line.render())
        # Keys pressed during the build are handled during the build. (Pilot.press waits
        # for an idle process, up to a second per key while a build keeps it busy, so the
        # keys are sent as the terminal driver would, and their effect is timed.)
        rawlog = main.query_one(RawLogView)
        await until(pilot, lambda: rawlog.current is not None)
        rawlog.focus()
        await pilot.pause()
        for _ in range(5):
            before = rawlog.cursor
            sent = time.monotonic()
            driver = app._driver
            assert driver is not None
            driver.send_message(events.Key("j", "j"))
            await until(pilot, lambda before=before: rawlog.cursor != before, 10)  # type: ignore[misc]
            latencies.append(time.monotonic() - sent)
            assert main.index_state.building  # handled while the build runs
            await asyncio.sleep(0.05)
        view = await search(pilot, "describe_image")
        if main.index_state.building:
            assert "% built: results may be missing" in note(view)
        await until(pilot, lambda: main.index_state.built, 120)
        await until(pilot, lambda: "missing" not in note(view))
        assert len(where(view)) >= 100  # the rerun after the build sees every copy's hits
        watcher.cancel()
    print(
        f"longest event-loop stall while indexing: {max(stalls) * 1000:.0f} ms;"
        f" key latencies: {', '.join(f'{x * 1000:.0f}' for x in latencies)} ms"
    )


async def test_the_index_follows_the_store_on_the_change_poll(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    app = make_app(str(store), index=True, index_dir=tmp_path / "index", poll_interval=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await built(pilot)
        syncs = main.index_state.syncs
        writer = SQLiteSessionStorage(store)
        try:
            await writer.append("s-new", "r1", UserMessage(content="a zanzibarian marmot appears"))
        finally:
            await writer.close()
        await until(pilot, lambda: main.index_state.syncs > syncs and not main.index_state.building)
        view = await search(pilot, "zanzibarian")
        assert where(view) == [("s-new", 1, "user")]


async def test_quitting_during_a_build_is_clean_and_the_next_start_finishes_it(tmp_path: Path) -> None:
    store = big_store(tmp_path / "store", 300)
    before, listing = sha256(store), sorted(os.listdir(store.parent))
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: any(isinstance(s, MainScreen) for s in app.screen_stack))
        main = main_screen(app)
        await until(pilot, lambda: getattr(main, "index_state", None) is not None and main.index_state.done > 0)
        await pilot.press("q")
    assert app.return_code in (0, None)
    assert sha256(store) == before and sorted(os.listdir(store.parent)) == listing
    again = app_on(store, tmp_path / "index", search="describe_image")
    async with again.run_test(size=(120, 40)) as pilot:
        await built(pilot)
        await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen) and not pilot.app.screen.partial)
        view = pilot.app.screen
        assert isinstance(view, SearchScreen) and len(where(view)) == 100  # the first page of 600 hits


async def test_help_shows_the_query_syntax_and_the_search_keys(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        await built(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        from zett_browser.screens.help import HelpScreen

        assert isinstance(pilot.app.screen, HelpScreen)
        assert "kind:user" in (pilot.app.screen.syntax or "")
        await pilot.press("escape")
        view = await search(pilot, "red")
        view.query_one(HitList).focus()
        await pilot.press("question_mark")  # from the hits: the same help, with the syntax
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen) and "tool:NAME" in (pilot.app.screen.syntax or "")
    from rich.console import Console

    from zett_browser.index.query import HELP
    from zett_browser.screens.help import help_text

    console = Console(width=160, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(help_text(HELP))
    text = console.export_text()
    assert "Search syntax" in text and "since:2d|12h|2026-11-01" in text and "Search view" in text


def test_progress_line_and_partial_note() -> None:
    from zett_browser.index.search_service import Step
    from zett_browser.screens.indexing import IndexState, progress_text

    step = Step(done=12_000, total=30_000, rate=5_100.0, eta=3.5, finished=False)
    assert progress_text(step, 80).plain == "indexing 40% 12,000/30,000 · 5,100/s · 4 s left"
    assert progress_text(step, 40).plain == "indexing 40% 12,000/30,000 · 4 s left"
    assert progress_text(step, 24).plain == "indexing 40% · 4 s left"
    assert progress_text(step, 20).plain == "index 40% · 4 s left"
    assert IndexState(building=True, done=12_000, total=30_000).partial_note() == (
        "index 40% built: results may be missing"
    )
