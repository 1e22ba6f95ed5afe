"""Background subagents (issue 24, census cases 1 and 2) on the store the real runtime wrote.

The Raw Log text of every task row, the delegation cards of ``task_start`` children and of
completion notices (read or unread), ``o``'s choice among several children, what ``o``
and the cards say of a child in another store, and where a subtree export puts the
children.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.realstore.stores import RealStores
from tests.realstore.tasks_helpers import TASKS, child_ids, home_with_children, merged
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.model import ToolMessage
from zett_browser.storage import open_store
from zett_browser.views.formatting import format_record, join
from zett_browser.views.tasks import lifecycle, parse_notice, parse_result
from zett_browser.widgets.rawlog import RawLogView


async def _texts(path: Path, session: str = TASKS) -> dict[int, str]:
    store = open_store(path)
    try:
        page = await store.raw_page(session, after_sequence=None, limit=100)
    finally:
        await store.close()
    return {record.sequence: join(format_record(record)) for record in page}


async def test_raw_log_reads_each_task_row_like_a_card(real_stores: RealStores) -> None:
    text = await _texts(real_stores.main)
    ids = child_ids(real_stores.main)
    assert "⧉ start explore · Audit auth\n  prompt: [brief] List auth entry points." in text[4]
    assert '"subagent_type"' not in text[4]  # no raw JSON for the calls
    starts = {5: "task-1 · explore · Audit auth", 6: "task-2 · explore · Slow survey"}
    starts |= {7: "task-3 · reasoning · Weigh caching", 8: "task-4 · reasoning · Check index"}
    for sequence, head in starts.items():
        assert f"⧉ {head} · ◌ running · 0.0 s" in text[sequence]
        assert "  Still running; call task_output with wait_seconds to wait" in text[sequence]
        assert "  child 01a2" in text[sequence] and '"task_id"' not in text[sequence]
    assert f"  child {ids[0]}" in text[5]
    assert "⧉ task-1 · explore · Audit auth · ✓ completed · 1." in text[10]
    assert "  report:\nReport: [brief] List auth entry points. -> 3 findings in src/app.py:12" in text[10]
    assert "Background task task-4 (reasoning: Check index) failed" in text[11]
    assert "⧉ task-3 · reasoning · Weigh caching · ◌ running" in text[13]
    assert "⧉ task-2 · explore · Slow survey · ⊘ cancelled" in text[15]
    listing = text[17]
    assert "4 background tasks" in listing
    for line in ("task-1 · explore · Audit auth · ✓ completed", "task-2 · explore · Slow survey · ⊘ cancelled"):
        assert line in listing
    assert "task-3 · reasoning · Weigh caching · ◌ running" in listing
    assert "task-4 · reasoning · Check index · ✗ failed" in listing
    assert "  error: RuntimeError: scripted child failure: the index is corrupt" in listing
    assert "Call task_output to read its report." in text[21]
    assert "← result ✗ failed task_output" in text[34]
    assert "Unknown task 'task-9'; this session has: task-1, task-2, task-3, task-4" in text[34]
    assert "⧉" not in text[34]  # a plain-text error keeps the generic rendering


async def test_lifecycle_ties_a_task_together(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        page = await store.raw_page(TASKS, after_sequence=None, limit=100)
    finally:
        await store.close()
    lives = lifecycle(page)
    assert sorted(lives) == ["task-1", "task-2", "task-3", "task-4"]
    assert (lives["task-1"].started, lives["task-1"].reads, lives["task-1"].status) == (5, [10], "completed")
    assert lives["task-2"].status == "cancelled" and lives["task-4"].status == "failed"
    assert lives["task-3"].status == "completed" and lives["task-3"].notices == {21: "completed"}
    assert lives["task-3"].unread(21)
    assert lives["task-4"].notices == {11: "failed"} and not lives["task-4"].unread(11)
    assert lives["task-2"].history() == "start #6 → cancel #15"  # task_list (#17) is no event of its own


def test_odd_shapes_read_as_nothing() -> None:
    info = {"task_id": "task-1", "subagent_type": "x", "description": "d", "status": "running", "session_id": "s"}
    assert parse_result(json.dumps(info)) is not None
    for odd in (
        {**info, "status": "paused"},  # a status this version does not know
        {**info, "task_id": 7},
        {**info, "elapsed_seconds": "soon"},
        {**info, "stop": "no"},
        [info, 5],
        "not json",
        "[" * 100_000,
        json.dumps([info] * 1000),
    ):
        assert parse_result(odd if isinstance(odd, str) else json.dumps(odd)) is None
    assert parse_result("x" * 300_000) is None
    assert parse_notice("Background task task-1 (explore: Audit) finished. Call task_output to read its report.")
    assert parse_notice("Background task done") is None


def test_hostile_task_text_is_cleaned() -> None:
    from zett_browser.views.task_blocks import result

    hostile = "[bold red]x[/] \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J"
    info = {"task_id": hostile, "subagent_type": hostile, "description": hostile, "status": "failed"}
    info |= {"session_id": hostile, "error": hostile, "note": hostile, "content": hostile}
    message = ToolMessage(tool_call_id="c", name="task_output", content=json.dumps(info), success=True)
    from zett_browser.views.blocks import FormatOptions

    blocks = result(message, FormatOptions())
    assert blocks is not None
    text = join(blocks)
    assert "[bold red]x[/]" in text and "✗ failed" in text
    assert "\x1b" not in text and "\x07" not in text


def _shown(app: Any) -> str:
    view = app.screen.query_one(RawLogView)
    return "\n".join(strip.text for strip in view.rendered_lines())


async def test_cards_for_background_children_in_another_store(
    real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The children are in the default store: the cards say so and how to open them, never "o opens it"."""
    home = home_with_children(real_stores, tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    store = tmp_path / "main.sqlite3"
    store.write_bytes(real_stores.main.read_bytes())
    ids = child_ids(real_stores.main)
    app = make_app(str(store), session=TASKS, seq=4, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(320, 80)) as pilot:
        await settle(pilot)
        text = _shown(app)
        assert "⧉ background task-1 · explore: Audit auth" in text
        assert "⧉ background task-2 · explore: Slow survey" in text
        assert "⊘ cancelled" in text and "✗ failed" in text and "error: RuntimeError: scripted child failure" in text
        assert "child not in this store; child is in ~/.zett-agent/sessions.sqlite3 — open it with:" in text
        assert f"zett-browser ~/.zett-agent/sessions.sqlite3 --session {ids[0]}" in text
        assert "o opens it" not in text
        view = app.screen.query_one(RawLogView)
        view.focus()
        await pilot.press("o")
        await settle(pilot)
        from zett_browser.screens.choose_child import ChildChooser

        assert isinstance(app.screen, ChildChooser)
        assert [child.label.split(" · ")[0] for child in app.screen.children_shown] == [
            "task-1",
            "task-2",
            "task-3",
            "task-4",
        ]
        await pilot.press("2")
        await settle(pilot)
        notes = [str(note.message) for note in app._notifications]
        assert any(
            f"child is in ~/.zett-agent/sessions.sqlite3 — open it with: zett-browser "
            f"~/.zett-agent/sessions.sqlite3 --session {ids[1]}" in note
            for note in notes
        ), notes
        assert app.screen.open.node.session_id == TASKS  # type: ignore[attr-defined]
    assert not (tmp_path / "home" / ".zett-agent" / "sessions.sqlite3-wal").exists()


async def test_without_the_default_store_the_card_only_says_not_here(
    real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    store = tmp_path / "main.sqlite3"
    store.write_bytes(real_stores.main.read_bytes())
    app = make_app(str(store), session=TASKS, seq=28, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(220, 80)) as pilot:
        await settle(pilot)
        text = _shown(app)
        assert "↳ delegated to reasoning" in text  # the foreground task (case 2)
        assert "child not in this store" in text and "child is in" not in text and "o opens it" not in text
        app.screen.query_one(RawLogView).focus()
        await pilot.press("o")
        await settle(pilot)
        notes = [str(note.message) for note in app._notifications]
        assert any("is not in this store" in note for note in notes), notes
    assert not (tmp_path / "empty-home").exists()  # nothing created where the default store would be


async def test_unread_notice_and_o_chooses_a_child_in_the_same_store(
    real_stores: RealStores, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    store = merged(real_stores, tmp_path / "merged.sqlite3")
    ids = child_ids(real_stores.main)
    app = make_app(str(store), session=TASKS, seq=4, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(220, 120)) as pilot:
        await settle(pilot)
        text = _shown(app)
        assert "o opens it" in text and "child not in this store" not in text
        assert "⧉ task-3 · ✓ completed · started at #7 · ● unread — no later" in text
        assert "⧉ task-4 · ✗ failed · started at #8" in text
        assert text.count("● unread") == 1
        assert "⧉ task-1: start #5 → output #10 · now ✓ completed" in text  # under #10
        assert "⧉ task-2: start #6 → cancel #15 · now ⊘ cancelled" in text  # under #15
        assert "⧉ task-3: start #7 → status #13 → notice #21 · now ✓ completed" in text  # under #13
        app.screen.query_one(RawLogView).focus()
        await pilot.press("o")
        await settle(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.screen.open.node.session_id == ids[2]  # type: ignore[attr-defined]


class _Order:
    def __init__(self) -> None:
        self.rows: list[tuple[str, int]] = []

    def start_session(self, head: Any) -> None:
        pass

    def message(self, row: Mapping[str, Any], head: Any) -> None:
        self.rows.append((str(row["session_id"]), int(row["sequence"])))

    def end_session(self, head: Any) -> None:
        pass


async def test_subtree_export_puts_background_children_after_their_start(
    real_stores: RealStores, tmp_path: Path
) -> None:
    from zett_browser.export.walk import Walk

    store = open_store(merged(real_stores, tmp_path / "merged.sqlite3"))
    order = _Order()
    try:
        await Walk(store, order, subtree=True).run(TASKS)
    finally:
        await store.close()
    ids = child_ids(real_stores.main)
    sessions = [session for session, _ in order.rows]
    after_call = sessions.index(ids[0])
    assert order.rows[after_call - 1] == (TASKS, 4)  # right after the message with the task_start calls
    firsts = [sessions.index(child) for child in ids[:4]]
    assert firsts == sorted(firsts)  # in the order of the calls
    assert order.rows[sessions.index(ids[4]) - 1] == (TASKS, 27)  # the foreground task keeps its place


async def test_o_finds_every_child_a_record_names(real_stores: RealStores, tmp_path: Path) -> None:
    """The message with four task_start calls, the task_list, a task_output, a notice, the foreground task."""
    from zett_browser.screens.calls import children_of

    ids = child_ids(real_stores.main)
    store = open_store(merged(real_stores, tmp_path / "merged.sqlite3"))
    try:
        page = {record.sequence: record for record in await store.raw_page(TASKS, after_sequence=None, limit=100)}
        found = {sequence: await children_of(store, page[sequence]) for sequence in (4, 10, 17, 21, 27, 28, 34)}
    finally:
        await store.close()
    assert [child.session_id for child in found[4]] == ids[:4]
    assert found[4][1].label == "task-2 · explore: Slow survey"
    assert [child.session_id for child in found[17]] == ids[:4]
    assert found[17][1].label.endswith("· cancelled")
    assert [child.session_id for child in found[10]] == [ids[0]]
    assert [child.session_id for child in found[21]] == [ids[2]]
    assert found[21][0].label == "task-3 · reasoning: Weigh caching · completed"
    assert [child.session_id for child in found[27]] == [child.session_id for child in found[28]] == [ids[4]]
    assert found[34] == []  # an unknown task id names nothing (and the session has several children)


async def test_hostile_task_store_shows_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Markup, ANSI and OSC in a task's type, description, prompt, error and notice show as text, never act."""
    from zett_browser.storage import AgentMessage, AssistantMessage, SQLiteSessionStorage, ToolCall, UserMessage

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    hostile = "[bold red]x[/] \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J [@click=app.quit]q[/]"
    path = tmp_path / "hostile.sqlite3"
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    await storage.append("boss", "r", UserMessage(content="go"), title="boss")
    arguments = {"description": hostile, "prompt": hostile, "subagent_type": hostile}
    call = ToolCall("c1", "task_start", arguments)
    await storage.append("boss", "r", AssistantMessage(content="", tool_calls=(call,)))
    info: dict[str, Any] = {"task_id": "task-1", "subagent_type": hostile, "description": hostile, "status": "failed"}
    info |= {"session_id": "kid", "elapsed_seconds": 0.5, "error": hostile, "note": hostile}
    await storage.append("kid", "r2", UserMessage(content=hostile), parent_session_id="boss")
    await storage.append("boss", "r", ToolMessage(tool_call_id="c1", name="task_start", content=json.dumps(info)))
    notice = "Background task task-1 (x: [bold]d[/]) failed: \x1b[2J boom."
    await storage.append("boss", "r", AgentMessage(content=notice))
    await storage.close()
    app = make_app(str(path), session="boss", clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(400, 80)) as pilot:
        await settle(pilot)
        text = _shown(app)
        assert "⧉ background task-1 · [bold red]x[/]" in text and "✗ failed · 0.5 s · o opens it" in text
        assert "⧉ task-1 · ✗ failed · started at #3" in text
        assert "[@click=app.quit]q[/]" in text
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
