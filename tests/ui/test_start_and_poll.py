"""Start-up and the change poll (issue 16): the start-up reader and the batched tree refresh.

The start-up reader reads the first screen on a thread while Textual starts; the screen
must show exactly what it shows without it, the screen takes every result it read, and a
warm result must never answer a later read (the first poll sees the store as it is). The
poll re-reads the roots and every expanded node with one ``tree_refresh``, never one
``list_children`` per node.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT
from tests.ui.helpers import frozen_clock, sequences, settle, store_copy
from zett_browser.app import make_app
from zett_browser.startup.warmstart import WarmStore, key_of
from zett_browser.storage import open_store
from zett_browser.storage.quickstart import QuickStart
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


async def test_the_warm_start_shows_the_same_first_screen(tmp_path: Path) -> None:
    path = store_copy("storage_api", tmp_path)
    shown = []
    for warm in (True, False):
        app = make_app(str(path), clock=frozen_clock, poll_interval=0)
        if not warm:
            assert app.warm is not None
            app.warm.finish()  # nothing served: every read on the loop, as before
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            tree = app.screen.query_one(SessionTree)
            shown.append(([str(node.label) for node in tree.root.children], sequences(app), app.screen.title))
            if warm:
                assert isinstance(app.screen.store, WarmStore)  # type: ignore[attr-defined]
    assert shown[0] == shown[1]
    assert shown[0][1], "a first page is shown"


async def test_a_warm_result_never_answers_after_the_first_poll(tmp_path: Path) -> None:
    path = store_copy("agent_run", tmp_path)
    warm = QuickStart(path, session=None, seq=None, page_size=50).start()
    warm.thread.join()
    storage = open_store(path, sidecar_guard=warm.guard)
    store = WarmStore(storage, warm)
    first = await store.change_token()
    with sqlite3.connect(path) as connection:  # another process commits
        connection.execute(
            "update agent_sessions set updated_at = '2026-12-03 11:59:00.000000' where id = ?", (AGENT_RUN_CHILD,)
        )
    second = await store.change_token()
    assert second != first, "the poll's token is read from the store"
    assert warm.take(key_of("list_roots", (), {"limit": 100})) is None, "nothing warm is left to serve"
    warm.finish()
    await storage.close()


async def test_the_poll_refreshes_expanded_nodes_in_one_read(tmp_path: Path) -> None:
    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    single = count_calls(app.storage, "list_children")
    batched = count_calls(app.storage, "tree_refresh")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        root = tree.find(AGENT_RUN_ROOT)
        assert root is not None
        root.expand()
        await settle(pilot)
        single.clear()
        with sqlite3.connect(path) as connection:
            connection.execute(
                "update agent_sessions set updated_at = '2026-12-03 11:59:00.000000' where id = ?", (AGENT_RUN_CHILD,)
            )
        for _ in range(40):
            await pilot.pause(0.05)
            child = tree.find(AGENT_RUN_CHILD)
            if child is not None and "1m ago" in str(child.label):
                break
        child = tree.find(AGENT_RUN_CHILD)
        assert child is not None and "1m ago" in str(child.label), "the poll refreshed the expanded node"
        assert single == [], "no read per expanded node"
        assert any(AGENT_RUN_ROOT in call[0] for call in batched), "the expanded node was in the batched read"


async def test_appends_do_not_decode_the_snapshots_again(tmp_path: Path) -> None:
    """A poll after an append re-reads the bounds and a snapshot mark, not every version;
    a new version is still read and shown, and only it is read (not the known ones again)."""
    from zett_browser.storage import CompactedMessage, SQLiteSessionStorage, UserMessage
    from zett_browser.widgets.inspector import Inspector

    path = tmp_path / "live.sqlite3"
    writer = SQLiteSessionStorage(path)
    for index in range(4):
        await writer.append("live", "r", UserMessage(content=f"early {index}"), title="Live session")
    await writer.snapshot("live", CompactedMessage(content="summary one"), 2, 0)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    decoded = count_calls(app.storage, "all_snapshot_versions")
    added = count_calls(app.storage, "snapshot_versions")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await writer.append("live", "r", UserMessage(content="late 0"))
        await wait_until(pilot, lambda: sequences(app)[-1:] == [5])
        decoded.clear()
        for index in range(1, 4):
            await writer.append("live", "r", UserMessage(content=f"late {index}"))
            await wait_until(pilot, lambda index=index: sequences(app)[-1:] == [5 + index])
        assert decoded == [], "appends alone never re-read the snapshot versions"
        await writer.snapshot("live", CompactedMessage(content="summary two"), 6, 1)
        added.clear()
        await wait_until(pilot, lambda: len(app.screen.query_one(Inspector).snapshots) == 2)
        assert decoded == [], "a new version did not read the known ones again"
        assert added and all(call[0] == "live" for call in added), added
    await writer.close()


async def growing_store(tmp_path: Path, count: int = 60) -> tuple[Path, Any]:
    """A store holding one session ("live") of ``count`` messages, and its writer (left open)."""
    from zett_browser.storage import SQLiteSessionStorage, UserMessage

    path = tmp_path / "live.sqlite3"
    writer = SQLiteSessionStorage(path)
    for index in range(count):
        await writer.append("live", "r", UserMessage(content=f"early {index}"), title="Live session")
    return path, writer


def count_layouts(screen: Any) -> list[int]:
    """Record each layout of ``screen`` from now on (the real one still runs)."""
    layouts: list[int] = []
    real = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> Any:
        layouts.append(1)
        return real(*args, **kwargs)

    screen._refresh_layout = counted
    return layouts


async def wait_until(pilot: Any, condition: Any, seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.05)):
        await pilot.pause(0.05)
        if condition():
            return
    raise AssertionError("not seen in time")


async def test_following_a_growing_session_lays_nothing_out(tmp_path: Path) -> None:
    """Each new row repaints the Raw Log, the status and the inspector's count; none of them
    needs the whole screen laid out again (a layout per poll blocked the UI)."""
    from zett_browser.storage import UserMessage

    path, writer = await growing_store(tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.follow = True  # type: ignore[attr-defined]
        await writer.append("live", "r", UserMessage(content="late 0"))
        await wait_until(pilot, lambda: sequences(app)[-1:] == [61])
        await settle(pilot)
        layouts = count_layouts(app.screen)
        for index in range(1, 4):
            await writer.append("live", "r", UserMessage(content=f"late {index}"))
            await wait_until(pilot, lambda index=index: sequences(app)[-1:] == [61 + index])
        await settle(pilot)
        context = app.screen.query_one("#inspector-context")
        assert "64 messages" in str(context.render()), "the count is current"
        assert layouts == []
    await writer.close()


async def test_every_warm_read_is_one_the_first_screen_uses(tmp_path: Path) -> None:
    """Review case: after the versions list became metadata, the warm start still decoded every
    snapshot (``list_snapshots``) that nothing read; each warm result must be taken."""
    path = store_copy("agent_run", tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0)
    warm: Any = app.warm
    assert warm is not None
    warm.thread.join()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert sequences(app), "a first page is shown"
        left = list(warm._results)  # noqa: SLF001 - what the warm start read and nobody took
    assert left == [], left


async def test_following_wraps_only_the_new_rows(tmp_path: Path, monkeypatch: Any) -> None:
    """A followed page shown again at each new row re-wrapped all of its 100 records
    (14-27 ms of the loop per poll on the busy follow run): now only the new ones."""
    from zett_browser.storage import UserMessage
    from zett_browser.widgets import pagelayout, render
    from zett_browser.widgets.rawlog import RawLogView

    path, writer = await growing_store(tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.follow = True  # type: ignore[attr-defined]
        view = app.screen.query_one(RawLogView)
        await writer.append("live", "r", UserMessage(content="on the last page"))
        await wait_until(pilot, lambda: sequences(app)[-1:] == [61])
        await settle(pilot)
        view.rendered_lines()
        wrapped: list[int] = []
        real = render.render_record

        def counted(record: Any, options: Any, context: Any = None) -> Any:
            wrapped.append(record.sequence)
            return real(record, options, context)

        monkeypatch.setattr(pagelayout, "render_record", counted)
        for index in range(3):
            await writer.append("live", "r", UserMessage(content=f"late {index}"))
            await wait_until(pilot, lambda index=index: sequences(app)[-1:] == [62 + index])
        await settle(pilot)
        view.rendered_lines()
        assert sorted(set(wrapped)) == [62, 63, 64]
        text = "\n".join(strip.text for strip in view.rendered_lines())
        assert "early 14" in text and "late 2" in text
    await writer.close()


async def test_a_session_compacted_as_it_grows_is_laid_out_only_when_heights_change(tmp_path: Path) -> None:
    """Each new snapshot version shows a new context and summary in the inspector: of the
    same height they repaint (a screen layout per version took ~20 ms of the loop); a
    taller summary still gets its height."""
    from textual.widgets import Static

    from zett_browser.storage import CompactedMessage, UserMessage

    path, writer = await growing_store(tmp_path, 40)
    for version in range(30):  # more versions than the list shows: it scrolls, never grows
        await writer.snapshot("live", CompactedMessage(content=f"summary through {version + 1}"), version + 1, version)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.follow = True  # type: ignore[attr-defined]
        summary = app.screen.query_one("#inspector-summary", Static)
        layouts: list[int] = []
        for version in range(30, 34):
            if version == 31:  # the first new version measured the panes (sized before any layout)
                await settle(pilot)
                layouts = count_layouts(app.screen)
            await writer.append("live", "r", UserMessage(content=f"late {version}"))
            boundary = version + 1
            await writer.snapshot("live", CompactedMessage(content=f"summary through {boundary}"), boundary, version)
            await wait_until(pilot, lambda boundary=boundary: f"through {boundary}\n" in f"{summary.content}\n")
        await settle(pilot)
        assert layouts == []
        height = summary.size.height
        await writer.snapshot("live", CompactedMessage(content="\n".join(["a taller summary"] * 6)), 40, 34)
        await wait_until(pilot, lambda: "a taller summary" in str(summary.content))
        await settle(pilot)
        assert layouts, "a taller summary lays the screen out"
        assert summary.size.height >= height + 5
    await writer.close()


async def test_a_poll_moves_the_tree_cursor_only_when_nodes_were_added(tmp_path: Path) -> None:
    """Each merged parent scheduled a move back to the cursor's node: with 100 expanded
    nodes, 100 scrolls after every poll (~10 ms of the loop). Now: none when only labels
    change, one when nodes are added, and the cursor stays on the user's node."""
    from zett_browser.storage import SQLiteSessionStorage, UserMessage

    path = tmp_path / "tree.sqlite3"
    writer = SQLiteSessionStorage(path)
    for index in range(5):
        await writer.append(f"root-{index}", "r", UserMessage(content="go"), title=f"Root {index}")
        await writer.append(f"child-{index}", "r", UserMessage(content="sub"), parent_session_id=f"root-{index}")
    app = make_app(str(path), clock=frozen_clock, poll_interval=0.05)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        for index in range(5):
            node = tree.find(f"root-{index}")
            assert node is not None
            node.expand()
        await settle(pilot)
        mine = tree.find("child-2")
        assert mine is not None
        tree.move_cursor(mine)
        await settle(pilot)
        moves: list[object] = []
        real = tree.move_cursor

        def counted(node: Any, *args: Any, **kwargs: Any) -> Any:
            moves.append(node)
            return real(node, *args, **kwargs)

        tree.move_cursor = counted  # type: ignore[method-assign]
        await writer.append("child-3", "r", UserMessage(content="more"), parent_session_id="root-3")  # a label changes
        await wait_until(pilot, lambda: "2 msg" in str(getattr(tree.find("child-3"), "label", "")))
        await settle(pilot)
        assert moves == []
        await writer.append("new-root", "r", UserMessage(content="new"), title="Newest root")
        await writer.append("child-2b", "r", UserMessage(content="sub"), parent_session_id="root-2")
        await wait_until(pilot, lambda: tree.find("new-root") is not None and tree.find("child-2b") is not None)
        await settle(pilot)
        assert moves == [mine], "one move back to the user's node"
        assert tree.cursor_node is mine
    await writer.close()
