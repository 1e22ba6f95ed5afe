"""The context view shows and sizes the system prompt and the offered tools (issue 24, "Compaction").

zett-agent 0.2.1 appends the system rows at every request (``include_in_messages`` false) and,
with the ``ModelRequestTraceExtension``, records the offered tools on each assistant row: the
context view reads both for step N. The messages stay exactly what ``load()`` gives
(``test_generated.test_model_context_equals_zett_agent_load``; checked here too for N).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.realstore.stores import RealStores
from tests.ui.helpers import settle
from zett_browser.app import make_app
from zett_browser.screens.context import ContextScreen
from zett_browser.storage import open_store
from zett_browser.views import time_travel as context
from zett_browser.views.time_travel_text import measured_line, offered_line, report
from zett_browser.widgets.context import ContextHead
from zett_browser.widgets.rawlog import RawLogView

COMPACTED = "0193a5c0-0000-7000-8000-0000000e0003"
MCP = "0193a5c0-0000-7000-8000-0000000e0014"


def stored(path: Path, session_id: str, sequence: int) -> tuple[str, dict[str, object]]:
    with closing(sqlite3.connect(path)) as db:
        content, message_json = db.execute(
            "SELECT content, message_json FROM raw_messages WHERE session_id = ? AND sequence = ?",
            (session_id, sequence),
        ).fetchone()
    return content, json.loads(message_json)[0]["data"]


async def test_step_with_system_prompt_and_tools_sized(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        point = await context.locate(store, COMPACTED, 32)
        size = await context.estimate(store, point)
        messages = json.loads(await context.export_json(store, point))
    finally:
        await store.close()
    assert point.offered is not None
    # The request of #32 began with the system rows #29–#30 (after compact()'s #27–#28).
    assert [sequence for sequence, _ in point.offered.system] == [29, 30]
    prompt = stored(real_stores.main, COMPACTED, 29)[0] + stored(real_stores.main, COMPACTED, 30)[0]
    assert size.chars["system prompt"] == len(prompt) and size.messages["system prompt"] == 2
    trace = stored(real_stores.main, COMPACTED, 32)[1]["attributes"]["model_request_trace"]  # type: ignore[index]
    assert [tool.name for tool in point.offered.tools] == [tool["name"] for tool in trace["tools"]]
    assert size.chars["tools offered"] == sum(len(json.dumps(tool, ensure_ascii=False)) for tool in trace["tools"])
    assert size.total_chars > size.chars["system prompt"] + size.chars["tools offered"] > 0
    # Messages: unchanged, the summary then #25, #26, #31 (what load() gave).
    assert size.rows == len(messages) == 4
    assert "(system prompt and tools included)" in measured_line(point, size)
    assert offered_line(point) == (
        "Offered: system prompt: this request's system rows #29–#30 · 1 tool (model_request_trace of #32): shout"
    )
    assert any(line.startswith("system prompt        2") for line in report(point, size))


async def test_mcp_session_next_step_and_a_row_without_trace(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        after = await context.locate(store, MCP)
        user = await context.locate(store, MCP, 3)
        size = await context.estimate(store, user)
    finally:
        await store.close()
    assert after.offered is not None and after.offered.from_last_request
    assert [tool.name for tool in after.offered.tools] == ["inventory__lookup", "inventory__broken"]
    assert any("# MCP servers" in text for _, text in after.offered.system)
    assert user.offered is not None and not user.offered.traced  # #3 is the user row
    assert "tools: not recorded" in offered_line(user)
    assert measured_line(user, size).startswith("Measured: none (#3 is a user row")
    assert size.chars["tools offered"] == 0 and size.chars["system prompt"] > 0


async def test_context_screen_shows_them(real_stores: RealStores) -> None:
    app = make_app(str(real_stores.main), session=COMPACTED, seq=32, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        head = str(app.screen.query_one(ContextHead).render())
        assert "Offered: system prompt: this request's system rows #29–#30" in head
        assert " prompt  tools system" in head and " result " in head
        preface = [str(line) for line in app.screen.query_one(RawLogView).preface]
        assert preface[0].startswith("System prompt #29")
        assert any(line.startswith("Tools offered: 1 (model_request_trace of #32)\nshout") for line in preface)
        assert any("v4" in line for line in preface)  # the summary still comes with the messages
