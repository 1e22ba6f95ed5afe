"""Every indexed field of a zett-agent-written store is findable; snippets stay literal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.index.helpers import CHILD, PARENT, S1, S2, S3, build, copy_fixture, find, where
from zett_browser.index import SideIndex
from zett_browser.storage import SQLiteSessionStorage, UserMessage


@pytest.fixture
async def api_index(tmp_path: Path) -> SideIndex:
    return await build(copy_fixture("storage_api", tmp_path / "store"), tmp_path / "index")


@pytest.fixture
async def run_index(tmp_path: Path) -> SideIndex:
    return await build(copy_fixture("agent_run", tmp_path / "store"), tmp_path / "index")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Who are you", {(S1, 2, "user")}),  # message text
        ('"look something up"', {(S1, 4, "assistant")}),  # reasoning
        ("describe_image", {(S1, 4, "assistant"), (S1, 5, "tool")}),  # tool name (call and result)
        ('"small red square"', {(S1, 5, "tool"), (S1, 9, "assistant")}),  # tool result text
        ("delimiter", {(S1, 4, "assistant"), (S1, 6, "tool")}),  # call error, failed result
        ('"Output limit reached"', {(S1, 10, "assistant")}),  # stop message
        ('"help with that request"', {(S1, 11, "assistant")}),  # refusal message
        ('"Questions 1-4 answered"', {(S2, 8, "snapshot")}),  # snapshot summary (parts)
        ('"Kitchen sink"', {(S1, 0, "session")}),  # title
        ("planner", {(S3, 0, "session")}),  # agent name
        (
            "127.0.0.1",
            {(S1, n, k) for n, k in [(1, "system"), (2, "user"), (3, "user"), (4, "assistant")]}
            | {(S1, 5, "tool"), (S1, 9, "assistant")},
        ),  # metadata value
        (
            "héllo",
            {(S1, n, k) for n, k in [(1, "system"), (2, "user"), (3, "user"), (4, "assistant")]}
            | {(S1, 5, "tool"), (S1, 9, "assistant")},
        ),  # non-ASCII metadata
        ("goal", {(S1, 8, "agent")}),  # tag value
    ],
)
async def test_each_field_of_storage_api_is_findable(api_index: SideIndex, query: str, expected: set[object]) -> None:
    assert where(find(api_index, query)) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"Verify the word count"', {(PARENT, 7, "assistant")}),  # tool call arguments
        ("fixture-script", 11),  # metadata of request 1 and 2 (17 rows) are counted below
        ("essay", 4),  # tag topic=essay on request 3 (plus the text)
    ],
)
async def test_agent_run_arguments_and_context(run_index: SideIndex, query: str, expected: set[object] | int) -> None:
    hits = where(find(run_index, query))
    if isinstance(expected, set):
        assert hits == expected
    else:
        assert len(hits) >= expected


async def test_identifiers_are_found_whole_by_parts_and_by_prefix(run_index: SideIndex) -> None:
    whole = where(find(run_index, "count_words"))
    assert (PARENT, 4, "assistant") in whole and (CHILD, 4, "tool") in whole
    assert whole <= where(find(run_index, "count"))
    assert whole <= where(find(run_index, "coun*"))
    assert where(find(run_index, '"count_words returned"')) == {(CHILD, 5, "assistant"), (PARENT, 8, "tool")}


async def test_phrases_or_and_negation(api_index: SideIndex) -> None:
    red = where(find(api_index, "red"))
    assert where(find(api_index, "red -square")) == red - where(find(api_index, "square"))
    assert where(find(api_index, "Thanks OR trains")) == where(find(api_index, "Thanks")) | where(
        find(api_index, "trains")
    )
    assert where(find(api_index, '"square small"')) == set()


async def test_hostile_strings_in_snippets_stay_literal(tmp_path: Path) -> None:
    store = tmp_path / "store" / "hostile.sqlite3"
    store.parent.mkdir()
    hostile = "\x1b]8;;https://evil.example\x07click here\x1b]8;;\x07 [bold red]markup[/] \x1b[2J\x9b31m done"
    writer = SQLiteSessionStorage(store)
    await writer.append("s-hostile", "r1", UserMessage(content=hostile))
    await writer.close()
    index = await build(store, tmp_path / "index")
    (hit,) = find(index, "click")
    assert "\x1b" not in hit.snippet and "\x9b" not in hit.snippet and "\x07" not in hit.snippet
    assert "[bold red]markup[/]" in hit.snippet
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["click"]


async def test_spans_mark_every_match_in_the_snippet(api_index: SideIndex) -> None:
    (hit,) = find(api_index, "square kind:assistant")
    assert [hit.snippet[a:b].lower() for a, b in hit.spans] == ["square"]
    assert hit.label == "Kitchen sink (renamed)" and hit.agent == "assistant"
