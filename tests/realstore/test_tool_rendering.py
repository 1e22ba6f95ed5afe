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


async def test_ask_user_reads_as_question_and_answer(real_stores: RealStores) -> None:
    rows = await shown(real_stores, ASK)
    assert rows[4].startswith("→ call ask_user  call_ask_1_0\n? Which format?\noptions:\n  • Markdown\n  • Plain text")
    assert rows[5] == "← result ✓ ask_user  call_ask_1_0\nanswer: Markdown"
    assert (
        rows[11] == '← result ✓ ask_user  call_ask_3_0\nHere is the screenshot:\n[image: image/png, 70 B — "error.png"]'
    )
    assert "base64" not in "\n".join(rows.values())


async def test_plan_mode_reads_as_its_decisions_and_the_plan(real_stores: RealStores) -> None:
    rows = await shown(real_stores, PLAN)
    assert rows[5].endswith("\n✗ plan mode declined by the user")
    assert rows[11].endswith("\n▶ plan mode entered")
    assert rows[13].startswith(
        "→ call exit_plan_mode  call_plan_4_0\nplan for the user to approve:\n# Plan\n\n1. Update storage.\n"
    )
    assert rows[14].endswith("\n✗ plan sent back: The user requested more planning")
    assert rows[17].endswith("\n✓ plan approved — plan mode left")
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
    assert rows[4].startswith(
        "→ call todo_write  call_todo_1_0\ntodo list: 0 of 3 done\n◐ Read the code\n☐ Write the fix\n☐ Run the tests"
    )
    assert rows[7] == (
        "← result ✓ todo_write  call_todo_2_0\n"
        "todo list: 1 of 3 done\n☑ Read the code\n◐ Write the fix\n☐ Run the tests"
    )
    assert rows[11].splitlines()[1] == "todo list: all done"
    # The rejected update: the attempted list on the call, the reason on the result.
    assert "todo list: 0 of 1 done\n☐ Changed" in rows[12]
    assert rows[13].splitlines()[1].startswith("update rejected: Exactly one task must be in_progress")


async def test_mcp_results_read_decoded_with_their_server(real_stores: RealStores) -> None:
    rows = await shown(real_stores, MCP)
    assert "→ call inventory__lookup  call_mcp_1_0\nMCP inventory › lookup\n{" in rows[4]
    assert "→ call inventory__broken  call_mcp_1_1\nMCP inventory › broken\n{" in rows[4]
    assert rows[5].splitlines()[1:] == ["MCP inventory › lookup", "SKU A-100: 42 in stock (warehouse B, shelf 7)"]
    assert rows[6].splitlines()[1:] == ["MCP inventory › broken", "Error executing tool broken"]


async def test_the_detail_view_text_carries_the_rendering(real_stores: RealStores) -> None:
    store = open_store(real_stores.main)
    try:
        texts = [full_text(record) for record in await store.list_raw_messages(PLAN)]
    finally:
        await store.close()
    assert any(text.endswith("✓ plan approved — plan mode left") for text in texts)


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
