"""What the Raw Log, the detail view and the exports say about the real runtime's rows (issue 24).

Every record of a case session is formatted the way the Raw Log pages it
(:class:`~zett_browser.views.requests.RequestTracker` over the page, then
:func:`~zett_browser.views.formatting.format_record`), and the text is asserted against what
the real zett-agent 0.2.1 runtime wrote (CENSUS.md cases 3, 4, 5, 9–16, 18). Hostile values are
put into real rows' attributes and replay blocks (``dataclasses.replace``) to check cleaning
and bounds.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.export.helpers import export_text
from tests.realstore.stores import RealStores
from zett_browser.export.segments import RESULT_HEADS, ExportChoices, RecordContexts
from zett_browser.export.segments import render_record as export_record
from zett_browser.model import AgentMessage, AssistantMessage, RawMessageRecord, StopInfo, StopReason, SystemMessage
from zett_browser.storage import open_store
from zett_browser.views import requests
from zett_browser.views.formatting import FormatOptions, format_record, full_text, join
from zett_browser.views.requests import RequestTracker

HOSTILE = "[bold red]x[/] \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J \x9b31m"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


async def records_of(real_stores: RealStores, case: str) -> list[RawMessageRecord]:
    store = open_store(real_stores.main)
    try:
        return list(await store.raw_page(real_stores.session(case), after_sequence=0, limit=200))
    finally:
        await store.close()


async def page(real_stores: RealStores, case: str, **options: Any) -> dict[int, str]:
    """Each record's text as the Raw Log shows it on a page from the session's start."""
    records = await records_of(real_stores, case)
    contexts = RequestTracker().contexts(records)
    shown = FormatOptions(**options)
    return {
        record.sequence: join(format_record(record, shown, context))
        for record, context in zip(records, contexts, strict=True)
    }


def lines(text: str) -> list[str]:
    return text.splitlines()


async def test_tool_outcomes_read_apart_from_failures(real_stores: RealStores) -> None:
    """Skipped, cancelled, interrupted and aborted results have their own heads and roles."""
    steering = await page(real_stores, "steering")
    assert lines(steering[5])[1].startswith("← result ✓ step_one")
    for sequence in (6, 7):
        assert lines(steering[sequence])[1].startswith("← result ⊘ skipped step_one")
    killed = await page(real_stores, "killed")
    assert lines(killed[9])[1].startswith("← result ⚡ interrupted migrate_database")
    assert lines((await page(real_stores, "cancelled"))[6])[1].startswith("← result ⊘ cancelled long_build")
    assert lines((await page(real_stores, "shell_abort"))[5])[1].startswith("← result ⊘ aborted by user bash")
    assert lines((await page(real_stores, "todo"))[13])[1].startswith("← result ✗ failed todo_write")
    roles = {
        block.spans[0].role
        for case in ("steering", "killed", "cancelled", "shell_abort", "todo")
        for record in await records_of(real_stores, case)
        for block in format_record(record)
        if block.spans[0].role.startswith("tool.result.") and block.spans[0].role != "tool.result.name"
    }
    assert roles == {
        "tool.result.ok",
        "tool.result.skipped",
        "tool.result.interrupted",
        "tool.result.cancelled",
        "tool.result.aborted",
        "tool.result.failed",
    }
    assert roles <= RESULT_HEADS


async def test_export_groups_every_result_head(real_stores: RealStores) -> None:
    """Markdown/HTML fold a skipped result with its output like any other result."""
    contexts: RecordContexts[None] = RecordContexts()
    for record in await records_of(real_stores, "steering"):
        _parts, segments = export_record(record, ExportChoices(), 0, lambda text: text, contexts.next(record))
        if record.sequence == 6:
            (result,) = [segment for segment in segments if segment.kind == "result"]
            assert result.role == "tool.result.skipped"
            assert result.lines == ["Superseded by a steering message"]
        if record.sequence == 8:
            assert [segment.lines for segment in segments][0] == ["↪ steering: interrupts the turn"]


async def test_model_request_trace_is_one_line_with_changes(real_stores: RealStores) -> None:
    server = await page(real_stores, "server_tools")
    assert "offered no tools + 2 server tools (web_search, web_fetch)" in lines(server[3])
    assert "offered no tools + 2 server tools (web_search, web_fetch) · unchanged" in lines(server[4])
    steering = await page(real_stores, "steering")
    assert "offered 2 tools" in lines(steering[4])
    assert "offered 2 tools · unchanged" in lines(steering[9])
    plan = await page(real_stores, "plan_mode")
    changed = [line for text in plan.values() for line in lines(text) if line.startswith("offered 1 tool · +")]
    assert changed == [
        "offered 1 tool · +enter_plan_mode −read_file −view_image −glob −grep −write_file −edit −delete_file …2 more"
    ]
    added = [line for text in plan.values() for line in lines(text) if line.startswith("offered 9 tools · +")]
    assert added, "leaving plan mode offers the file tools again"


async def test_trace_lists_tools_only_when_shown_whole(real_stores: RealStores) -> None:
    records = await records_of(real_stores, "todo")
    step = next(record for record in records if isinstance(record.message, AssistantMessage))
    short = join(format_record(step))
    assert "todo_write —" not in short and "additionalProperties" not in short
    whole = full_text(step)
    assert "  todo_write — Create or advance the ordered todo list" in whole
    assert "additionalProperties" not in whole and '"parameters"' not in whole, "no JSON schema dump"
    listed = [line for line in lines(whole) if line.startswith("  todo_write — ")]
    assert len(listed) == 1 and len(listed[0]) <= 162


async def test_a_call_of_a_tool_not_offered_is_flagged(real_stores: RealStores) -> None:
    records = await records_of(real_stores, "steering")
    step = next(r for r in records if isinstance(r.message, AssistantMessage) and r.message.tool_calls)
    assert isinstance(step.message, AssistantMessage)
    trace = dict(step.message.attributes["model_request_trace"])
    trace["tools"] = [tool for tool in trace["tools"] if tool["name"] != "step_one"]
    message = dataclasses.replace(step.message, attributes={"model_request_trace": trace})
    text = join(format_record(dataclasses.replace(step, message=message)))
    assert text.count("⚠ called step_one, which was not offered") == 3


async def test_goal_mode_shows_what_the_user_typed(real_stores: RealStores) -> None:
    goal = await page(real_stores, "goal")
    assert lines(goal[2])[1:3] == ["goal mode", "typed: Implement the feature and make the tests pass."]
    assert lines(goal[2])[3] == "You are operating in Goal Mode."
    assert lines(goal[4])[1] == "goal mode · iteration 1/36"
    assert "typed:" not in goal[4]


async def test_resume_and_badges(real_stores: RealStores) -> None:
    assert lines((await page(real_stores, "max_output"))[6])[1] == "↻ runtime resume: continue_response"
    assert lines((await page(real_stores, "interrupted"))[7])[1] == "↻ runtime resume: retry_response"
    steering = await page(real_stores, "steering")
    assert lines(steering[2])[0].endswith("[not replayed]  [tool guidelines]")
    assert "attributes {" not in "\n".join(steering.values()), "every real key is known"


async def test_unknown_attributes_show_as_one_bounded_line(real_stores: RealStores) -> None:
    record = (await records_of(real_stores, "steering"))[9]  # #10, an agent row from an extension
    assert isinstance(record.message, AgentMessage)
    message = dataclasses.replace(
        record.message, attributes={"x-app": {"note": HOSTILE * 50, "n": 1}, "tool_search_catalog": True}
    )
    text = join(format_record(dataclasses.replace(record, message=message)))
    (line,) = [line for line in lines(text) if line.startswith("attributes ")]
    assert line.startswith('attributes {"x-app":{"n":1,"note":"[bold red]x[/] ') and len(line) <= 251
    assert "searchable tool catalog (tool_search)" in text
    assert not CONTROL.search(text)
    assert "attributes {" in full_text(dataclasses.replace(record, message=message))


async def test_server_tools_from_replay_blocks(real_stores: RealStores) -> None:
    text = (await page(real_stores, "server_tools"))[3]
    assert lines(text)[2:9] == [
        "⌁ web_search(query: sqlite wal mode)",
        "→ 2 results",
        "  sqlite3 — DB-API 2.0 interface for SQLite databases — https://docs.python.org/3/library/sqlite3.html"
        " (2 days ago)",
        "  Write-Ahead Logging — https://sqlite.org/wal.html",
        "⌁ web_fetch(url: https://example.invalid/wal)",
        "→ error: url_not_accessible",
        "WAL lets readers and a writer work at once.",
    ]
    assert "EqQB" not in full_text((await records_of(real_stores, "server_tools"))[2]), "no signatures"
    assert text.count("WAL lets readers") == 1, "text blocks are not repeated"


async def test_hostile_replay_blocks_are_cleaned_and_bounded(real_stores: RealStores) -> None:
    record = (await records_of(real_stores, "server_tools"))[2]
    assert isinstance(record.message, AssistantMessage)
    results = [{"type": "web_search_result", "url": "https://x/" + HOSTILE, "title": HOSTILE * 30} for _ in range(40)]
    blocks: tuple[Any, ...] = (
        {"type": "server_tool_use", "name": HOSTILE, "input": {"query": HOSTILE * 100}},
        {"type": "web_search_tool_result", "content": results},
        {"type": "web_fetch_tool_result", "content": {"type": "web_fetch_result", "url": HOSTILE, "content": 3}},
        {"type": "code_execution_tool_result", "content": {"stdout": HOSTILE * 1000}},
        "not a block",
        {"type": "web_search_tool_result", "content": {"type": "error", "error_code": HOSTILE}},
    )
    message = dataclasses.replace(record.message, replay_blocks=blocks)
    text = join(format_record(dataclasses.replace(record, message=message)))
    assert not CONTROL.search(text) and "\x1b" not in text
    assert max(len(line) for line in lines(text)) <= 400
    assert "→ 40 results" in text and "… 30 more (enter shows all)" in text
    assert "replay block " in text and "→ error: [bold red]x[/]" in text
    assert text.count("https://x/") == 10
    assert full_text(dataclasses.replace(record, message=message)).count("https://x/") == 40


async def test_request_ids_and_steering(real_stores: RealStores) -> None:
    records = await records_of(real_stores, "steering")
    steering = await page(real_stores, "steering")
    first = records[0].request_id
    assert lines(steering[1])[0].endswith(f"req …{first[-8:]}")
    assert "req …" not in lines(steering[3])[0], "the same request"
    assert lines(steering[12])[0].endswith(f"req …{records[11].request_id[-8:]}")
    assert f"request {first}" in lines(full_text(records[0]))
    assert lines(steering[8])[1:3] == ["↪ steering: interrupts the turn", "Stop editing; explain what you found first."]
    assert [sequence for sequence, text in steering.items() if "↪ steering" in text] == [8]


async def test_stop_details(real_stores: RealStores) -> None:
    refusal = await page(real_stores, "refusal")
    assert (
        "⚠ stopped: refusal (cyber): This request could damage systems.\n  withheld calls: delete_everything"
        in (refusal[4])
    )
    interrupted = (await page(real_stores, "interrupted"))[4]
    assert '  withheld calls: shout\n  error: {"message":"reset"}' in interrupted
    record = (await records_of(real_stores, "refusal"))[3]
    assert isinstance(record.message, AssistantMessage)
    stop = StopInfo(StopReason.REFUSAL, raw=HOSTILE, recommended_model="claude-x" + HOSTILE, detail={"k": HOSTILE})
    text = join(format_record(dataclasses.replace(record, message=dataclasses.replace(record.message, stop=stop))))
    assert "  recommended model: claude-x[bold red]x[/]" in text
    assert "raw stop reason" not in text, "the raw reason is in the stop line already"
    assert '  detail {"k":"[bold red]x[/]' in text and not CONTROL.search(text)
    other = StopInfo(StopReason.REFUSAL, raw="content_filter", category="cyber")
    text = join(format_record(dataclasses.replace(record, message=dataclasses.replace(record.message, stop=other))))
    assert "⚠ stopped: refusal (cyber)\n  raw stop reason: content_filter" in text


async def test_repeated_system_rows_collapse(real_stores: RealStores) -> None:
    compaction = await page(real_stores, "compaction")
    assert len(lines(compaction[1])) == 2, "the first prompt whole"
    assert re.fullmatch(
        r"#27 system  \S+ \S+  \[not replayed\]  same as #1 · repeat 6  req …\w{8}", lines(compaction[27])[0]
    )
    assert re.fullmatch(
        r"#28 system  \S+ \S+  \[not replayed\]  same as #2 · repeat 6  \[tool guidelines\]", lines(compaction[28])[0]
    )
    assert len(lines(compaction[28])) == 1
    whole = await page(real_stores, "compaction", show_all=True)
    assert "You are the zett-browser store generator's scripted agent." in whole[27]
    assert "# Tool guidelines" in (await page(real_stores, "compaction", show_reasoning=True))[28]
    plan = await page(real_stores, "plan_mode")
    assert lines(plan[15])[0].endswith("[not replayed]  same as #12 · repeat 1")


async def test_passes_without_input_are_labelled(real_stores: RealStores) -> None:
    label = "pass without input: resume check / compact()"
    compaction = await page(real_stores, "compaction")
    assert [sequence for sequence, text in compaction.items() if label in text] == [27]
    assert [sequence for sequence, text in (await page(real_stores, "max_output")).items() if label in text] == [4]
    assert [sequence for sequence, text in (await page(real_stores, "killed")).items() if label in text] == [5]


async def test_repeat_counts_only_when_known_from_the_start(real_stores: RealStores) -> None:
    """A page read first from the end knows an identical earlier row but not how many: no count."""
    records = await records_of(real_stores, "compaction")
    tracker = RequestTracker()
    tail = tracker.contexts(records[20:])
    assert (tail[6].same_as, tail[6].repeat) == (23, None)  # #27 is like #23, the first seen
    head = tracker.contexts(records[:20])
    assert head[10].same_as == 1 and head[10].repeat == 2  # #11
    again = tracker.contexts(records[20:])
    assert (again[6].same_as, again[6].repeat) == (1, 6)
    filtered = RequestTracker()
    filtered.contexts([record for record in records if not isinstance(record.message, SystemMessage)], contiguous=False)
    assert filtered.contexts(records[20:])[6].repeat is None


async def test_repeat_memory_is_bounded(real_stores: RealStores, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the per-session limit a repeat still names the first identical row, without a count."""
    monkeypatch.setattr(requests, "SEQUENCES", 4)
    records = await records_of(real_stores, "compaction")
    contexts = RequestTracker().contexts(records)
    assert (contexts[6].same_as, contexts[6].repeat) == (1, None)  # #7
    assert (contexts[26].same_as, contexts[26].repeat) == (1, None)  # #27
    assert [context.same_as for context in RequestTracker().contexts(records[:8])][6:8] == [1, 2]


async def test_html_and_markdown_exports_carry_the_request_structure(real_stores: RealStores, tmp_path: Path) -> None:
    """The exports use the same words: a class per outcome in HTML, steering, repeats, the trace."""
    path = tmp_path / "main.sqlite3"
    shutil.copy(real_stores.main, path)
    page_html, _report = await export_text(path, real_stores.session("steering"), format="html")
    assert page_html.count('<details class="skipped"><summary>← result ⊘ skipped step_one') == 2
    assert 'class="failed"' not in page_html
    assert "↪ steering: interrupts the turn" in page_html
    assert "same as #1 · repeat 1" in page_html and "offered 2 tools · unchanged" in page_html
    killed, _report = await export_text(path, real_stores.session("killed"), format="html")
    assert killed.count('<details class="interrupted">') == 2
    markdown, _report = await export_text(path, real_stores.session("server_tools"), format="md")
    assert "⌁ web\\_search(query: sqlite wal mode)" in markdown and "→ error: url\\_not\\_accessible" in markdown
