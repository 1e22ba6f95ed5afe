"""Structured tools (ask_user, plan mode, todo_write, MCP) keep hostile strings inert in Markdown and HTML exports.

The store is written through our storage API with the shapes zett-agent 0.2.1 writes, every
string hostile; the exports carry the tools' readable rendering (the words of
``views/formatting.format_record``), and HTML/Markdown build no element from store text.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.export.helpers import export_text
from tests.export.hostile_helpers import (
    ESCAPES,
    EVIL,
    MARKDOWN,
    MD_OWN_ATTRIBUTES,
    MD_OWN_TAGS,
    OWN_ATTRIBUTES,
    OWN_TAGS,
    Elements,
    own_links,
)
from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage

SESSION = "hostile-tools"
HOSTILE = EVIL + ESCAPES + "[bold red]x[/]"


async def _store(path: Path) -> Path:
    todos = [{"content": HOSTILE, "status": "in_progress"}, {"content": MARKDOWN, "status": "pending"}]
    calls = (
        ToolCall("c1", "ask_user", {"question": HOSTILE, "options": [EVIL, MARKDOWN]}),
        ToolCall("c2", "exit_plan_mode", {"plan": MARKDOWN + "\n" + HOSTILE}),
        ToolCall("c3", "todo_write", {"todos": todos}),
        ToolCall("c4", "srv__look<up>", {"q": HOSTILE}),
    )
    result = {"todos": todos, "in_progress_index": 0, "in_progress": todos[0], "completed": False}
    results = (
        (
            "c1",
            "ask_user",
            json.dumps({"name": "ask_user_response", "payload": {"tool_call_id": "c1", "answer": HOSTILE}}),
        ),
        ("c2", "exit_plan_mode", json.dumps({"exited": False, "message": HOSTILE})),
        ("c3", "todo_write", json.dumps(result)),
        ("c4", "srv__look<up>", json.dumps([{"type": "text", "text": HOSTILE + "\n" + MARKDOWN}])),
    )
    storage = SQLiteSessionStorage(path)
    try:
        await storage.create_session(session_id=SESSION)
        await storage.append(SESSION, "r1", AssistantMessage(tool_calls=calls))
        for call_id, name, content in results:
            await storage.append(SESSION, "r1", ToolMessage(tool_call_id=call_id, name=name, content=content))
    finally:
        await storage.close()
    return path


async def test_html_carries_the_rendering_and_builds_nothing_from_the_store(tmp_path: Path) -> None:
    text, _ = await export_text(await _store(tmp_path / "tools.sqlite3"), SESSION, format="html")
    parser = Elements()
    parser.feed(text)
    assert parser.tags <= OWN_TAGS and parser.attributes <= OWN_ATTRIBUTES and own_links(parser.links)
    shown = "".join(parser.text)
    for expected in ("? <script>alert(1)</script>", "answer: <script>", "✗ plan sent back: <script>"):
        assert expected in shown, expected
    assert "todo list: 0 of 2 done" in shown and "◐ <script>" in shown and "MCP srv › look<up>" in shown
    assert "\x1b" not in text and "␛]0;PWN" in shown and "[bold red]x[/]" in shown


async def test_markdown_carries_the_rendering_and_builds_nothing_from_the_store(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    text, report = await export_text(await _store(tmp_path / "tools.sqlite3"), SESSION, format="md")
    assert "\x1b" not in text
    rendered = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)
    parser = Elements()
    parser.feed(rendered)
    assert parser.tags <= MD_OWN_TAGS, parser.tags - MD_OWN_TAGS
    assert parser.attributes <= MD_OWN_ATTRIBUTES and own_links(parser.links)
    assert rendered.count("<table>") == 1  # the totals, none from the store
    assert rendered.count("<h3>") == report.messages
    shown = "".join(parser.text)
    for expected in ("? <script>alert(1)</script>", "plan for the user to approve:", "# Fake heading", "☐ # Fake"):
        assert expected in shown, expected
    assert "answer: <script>" in shown and "MCP srv › look<up>" in shown
