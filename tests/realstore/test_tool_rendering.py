"""ask_user, plan mode, todo_write and MCP rows the real runtime wrote read as a person wants (CENSUS 6, 7, 8, 17).

What the Raw Log and the detail view show is ``format_record`` / ``full_text``; the Markdown
and HTML exports take their words from the same blocks; the JSON export keeps the stored
rows as they are.
"""

from __future__ import annotations

import json

from tests.export.helpers import export_text
from tests.realstore.stores import RealStores
from zett_browser.storage import open_store
from zett_browser.views.formatting import format_record, full_text, join

ASK, PLAN, TODO, MCP = (f"0193a5c0-0000-7000-8000-0000000e00{n}" for n in ("04", "05", "06", "14"))


async def shown(real_stores: RealStores, session: str) -> dict[int, str]:
    """Each row's Raw Log text (default options, as the Raw Log shows it) without its header line."""
    store = open_store(real_stores.main)
    try:
        records = await store.list_raw_messages(session)
    finally:
        await store.close()
    return {record.sequence: join(format_record(record)[1:]) for record in records}


def body(row: str) -> str:
    """A result's text after its ``← result`` head (the head's outcome words are not this test's)."""
    return row.split("\n", 1)[1]


async def test_ask_user_reads_as_question_and_answer(real_stores: RealStores) -> None:
    rows = await shown(real_stores, ASK)
    assert "→ call ask_user  call_ask_1_0\n? Which format?\noptions:\n  • Markdown\n  • Plain text\n" in rows[4]
    assert body(rows[5]) == "answer: Markdown"
    assert body(rows[11]) == 'Here is the screenshot:\n[image: image/png, 70 B — "error.png"]'

    assert "base64" not in "\n".join(rows.values())


async def test_plan_mode_reads_as_its_decisions_and_the_plan(real_stores: RealStores) -> None:
    rows = await shown(real_stores, PLAN)
    assert body(rows[5]) == "✗ plan mode declined by the user"
    assert body(rows[11]) == "▶ plan mode entered"
    plan = "→ call exit_plan_mode  call_plan_4_0\nplan for the user to approve:\n# Plan\n\n1. Update storage.\n"
    assert plan in rows[13]
    assert body(rows[14]) == "✗ plan sent back: The user requested more planning"
    assert body(rows[17]) == "✓ plan approved — plan mode left"
    assert "\\n" not in rows[13] and '"plan"' not in rows[13]


async def test_the_plan_is_a_prose_block(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        (record,) = [r for r in await store.list_raw_messages(PLAN) if r.sequence == 16]
    finally:
        await store.close()
    prose = [block for block in format_record(record) if block.prose]
    assert [block.text for block in prose] == ["# Plan\n\n1. Update storage.\n2. Add tests.\n3. Ship."]


async def test_todo_write_reads_as_a_checklist(real_stores: RealStores) -> None:
    rows = await shown(real_stores, TODO)
    first = (
        "→ call todo_write  call_todo_1_0\ntodo list: 0 of 3 done\n◐ Read the code\n☐ Write the fix\n☐ Run the tests\n"
    )
    assert first in rows[4] + "\n"
    assert body(rows[7]) == "todo list: 1 of 3 done\n☑ Read the code\n◐ Write the fix\n☐ Run the tests"
    assert body(rows[11]).startswith("todo list: all done\n")
    # The rejected update: the attempted list on the call, the reason on the result.
    assert "todo list: 0 of 1 done\n☐ Changed" in rows[12]
    assert body(rows[13]).startswith("update rejected: Exactly one task must be in_progress")


async def test_mcp_results_read_decoded_with_their_server(real_stores: RealStores) -> None:
    rows = await shown(real_stores, MCP)
    assert "→ call inventory__lookup  call_mcp_1_0\nMCP inventory › lookup\n{" in rows[4]
    assert "→ call inventory__broken  call_mcp_1_1\nMCP inventory › broken\n{" in rows[4]
    assert body(rows[5]) == "MCP inventory › lookup\nSKU A-100: 42 in stock (warehouse B, shelf 7)"
    assert body(rows[6]) == "MCP inventory › broken\nError executing tool broken"


async def test_the_detail_view_text_carries_the_rendering(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        texts = [full_text(record) for record in await store.list_raw_messages(PLAN)]
    finally:
        await store.close()
    assert any(text.endswith("\n✓ plan approved — plan mode left") for text in texts)


async def test_markdown_and_html_exports_carry_the_rendering(real_stores: RealStores) -> None:
    for session, expected in (
        (ASK, ["? Which format?", "answer: Markdown", "[image: image/png, 70 B"]),
        (PLAN, ["✗ plan mode declined by the user", "# Plan", "✓ plan approved — plan mode left"]),
        (TODO, ["todo list: 1 of 3 done", "◐ Write the fix", "update rejected: "]),
        (MCP, ["MCP inventory › lookup", "SKU A-100: 42 in stock"]),
    ):
        markdown, _ = await export_text(real_stores.main, session, format="md")
        html, _ = await export_text(real_stores.main, session, format="html")
        for text in expected:
            assert text in markdown.replace("\\", ""), text  # Markdown escapes its own marks (\#, \[)
            assert text.replace('"', "&quot;") in html, text
        assert "iVBOR" not in markdown + html  # the image's base64 never reaches a document


async def test_the_json_export_keeps_the_stored_rows(real_stores: RealStores) -> None:
    document, _ = await export_text(real_stores.main, ASK, format="json")
    rows = {row["sequence"]: row for row in json.loads(document)["session"]["messages"]}
    stored = json.loads(rows[11]["message_json"])[0]["data"]["content"][1]["source"]["url"]
    assert stored.startswith("data:image/png;base64,iVBOR")  # lossless: restore writes it back as it was
    answer = json.loads(json.loads(rows[5]["message_json"])[0]["data"]["content"])
    assert answer == {"name": "ask_user_response", "payload": {"tool_call_id": "call_ask_1_0", "answer": "Markdown"}}
