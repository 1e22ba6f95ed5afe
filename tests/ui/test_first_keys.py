"""The first keys after start-up (issue 16: page turns in tmux pressed back to back).

In a real terminal the first page turns after start-up took 1.5–5× a later one: they
waited behind the side index's first sync (its import alone holds the loop ~50 ms), the
usage labels and the orphan check, and behind the rest of the first page's layout, which
a widget ran in one go. Timed figures live in ``benchmarks/app_bench.py``; these tests
check the behaviour that keeps the keys first.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from textual import events

from tests.support import PAGINATION
from tests.ui.helpers import frozen_clock, sequences, settle, store_copy
from zett_browser.app import make_app
from zett_browser.screens import quiet
from zett_browser.screens.main import MainScreen
from zett_browser.screens.watch import ROOTS_PAGE
from zett_browser.startup.warmstart import key_of
from zett_browser.storage import open_store
from zett_browser.widgets import pagefinish
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def count_calls(storage: Any, name: str) -> list[tuple[Any, ...]]:
    """Record each call of ``storage.name`` (the real method still runs)."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(storage, name)

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return await real(*args, **kwargs)

    setattr(storage, name, counted)
    return calls


async def until(condition: Any, seconds: float = 10.0) -> None:
    """Let the loop run until ``condition()`` holds (fails after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_start_up_background_work_waits_for_a_pause_in_the_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Far above the 0.2 s between keys and the first paint, even on a loaded machine (at 2 s
    # a first paint slowed by a load of 6 on 2 cores let the work start before the keys).
    monkeypatch.setattr(quiet, "QUIET_S", 8.0)
    monkeypatch.setattr(quiet, "QUIET_MAX_S", 60.0)
    storage = open_store(store_copy("storage_api", tmp_path))
    orphan_reads = count_calls(storage, "list_orphans")
    app = make_app(storage, clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0)
    search: Any = app.options.search
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await until(lambda: bool(sequences(app)))
        screen.query_one(RawLogView).focus()
        # A reader pages at once, a key every 0.2 s for 1.6 s (j/k: no read of their own).
        for key in ("j", "k") * 4:
            await pilot.press(key)
            await asyncio.sleep(0.2)
            assert search._real is None, "the side index is not even imported while keys come"  # noqa: SLF001
            assert orphan_reads == [], "nor is the orphan check run"
            assert not screen.index_state.building and screen.index_state.syncs == 0
        # The reader pauses: the work starts.
        await until(lambda: screen.index_state.syncs >= 1 and bool(orphan_reads), 40.0)
        # What the first page asked for later waits its own quiet time, then nothing waits.
        await until(lambda: screen.quiet.pending == 0, 40.0)
        await settle(pilot)


async def test_a_key_is_answered_between_the_steps_that_finish_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rest of a page is wrapped in short steps that let the loop run: before, a widget
    ran every queued step at once, and a key pressed right after a page turn waited for all."""
    monkeypatch.setattr(pagefinish, "FINISH_STEP_S", 0.0)  # one record a step
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 16)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        steps: list[int] = []
        finisher = view._finisher  # noqa: SLF001 - its steps counted, then run as they are
        finish = finisher.step

        def counted(generation: int, **kwargs: Any) -> None:
            steps.append(generation)
            finish(generation, **kwargs)

        monkeypatch.setattr(finisher, "step", counted)
        answered: list[tuple[int, int]] = []
        cursor = view.action_cursor

        def moved(step: int) -> None:
            answered.append((view._layout.next, len(view.records)))  # noqa: SLF001
            cursor(step)

        monkeypatch.setattr(view, "action_cursor", moved)
        # Keys posted as the terminal driver posts them (Pilot's press waits until the app is idle).
        app.post_message(events.Key("n", "n"))
        # Wait for the new page's first step, then press a key while the rest is being wrapped.
        await until(lambda: bool(steps) and sequences(app)[:1] == [51] and view._layout.next < len(view.records))  # noqa: SLF001
        app.post_message(events.Key("j", "j"))
        await until(lambda: bool(answered))
        await settle(pilot)
        assert answered and answered[0][0] < answered[0][1], f"the key waited for the whole page: {answered}"
        assert view._layout.next == len(view.records), "the page is finished after all"  # noqa: SLF001


async def test_a_session_opened_at_start_gets_the_roots_from_the_warm_start(tmp_path: Path) -> None:
    """With --session the start-up reader reads the tree's roots too: read on the loop behind
    Textual's mount, they arrived during the first page turns and the tree was painted then."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock, poll_interval=0)
    warm: Any = app.warm
    assert warm is not None
    warm.thread.join()
    assert key_of("list_roots", (), {"limit": ROOTS_PAGE}) in warm._promised_keys, "read by the start-up reader"  # noqa: SLF001
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert sequences(app)[:1] == [1]
        assert bool(app.screen.query_one(SessionTree).root.children), "the tree shows the roots"
        left = list(warm._results)  # noqa: SLF001 - read ahead and not taken
        assert left == [], left


async def test_the_cards_worker_is_not_described_by_a_repr_of_the_page(tmp_path: Path) -> None:
    """Textual describes a worker by the repr of its arguments unless told otherwise: for a page
    of 50 × 100 KB outputs that repr took ~19 ms of every page turn."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        records = screen.query_one(RawLogView).records
        worker = screen.parts.cards.cards_for(records)
        usage = screen.parts.usage.usage_for([])
        assert worker.description == "delegation cards"
        assert usage.description == "usage labels"
        await settle(pilot)


async def test_a_key_on_any_screen_counts_as_activity_for_the_background_build(tmp_path: Path) -> None:
    """Review case: only the main screen's keys reset the quiet gate, so the side index's
    first build ran at full speed under time travel, search and help, and under keys a
    widget stopped. The app now counts every key and wheel turn, on any screen."""
    storage = open_store(store_copy("storage_api", tmp_path))
    app = make_app(storage, clock=frozen_clock, index=False, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await until(lambda: bool(sequences(app)))
        await pilot.press("question_mark")  # the help screen, over the main one
        await until(lambda: app.screen is not main)
        main.quiet.last_activity = 0.0
        await pilot.press("down")
        assert main.quiet.last_activity > 0.0, "a key on the help screen counts"
        main.quiet.last_activity = 0.0
        await pilot.press("escape")
        await until(lambda: app.screen is main)
        main.query_one(RawLogView).focus()
        main.quiet.last_activity = 0.0
        await pilot.press("j")
        assert main.quiet.last_activity > 0.0
        main.quiet.last_activity = 0.0
        app.post_message(events.MouseScrollDown(main, 10, 10, 0, 0, 0, False, False, False))
        await pilot.pause()
        assert main.quiet.last_activity > 0.0, "a wheel turn counts"
        await settle(pilot)
