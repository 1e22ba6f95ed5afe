"""todo_write reads as a checklist with its progress; odd shapes fall back to JSON (views/tool_todos.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.tool_helpers import CONTROLS, HOSTILE, call_text, generic_call, result_text
from zett_browser.views.blocks import FormatOptions


def todos(*statuses: str) -> list[dict[str, str]]:
    return [{"content": f"task {index}", "status": status} for index, status in enumerate(statuses, 1)]


def written(items: list[dict[str, str]]) -> str:
    """A TodoWriteResult as zett-agent 0.2.1 serializes it."""
    index = next((i for i, todo in enumerate(items) if todo["status"] == "in_progress"), None)
    return json.dumps(
        {
            "todos": items,
            "in_progress_index": index,
            "in_progress": None if index is None else items[index],
            "completed": index is None,
        }
    )


def test_the_call_is_a_checklist_with_progress() -> None:
    items = todos("completed", "completed", "in_progress", "pending", "pending")
    assert call_text("todo_write", {"todos": items}) == (
        "→ call todo_write  c1\ntodo list: 2 of 5 done\n☑ task 1\n☑ task 2\n◐ task 3\n☐ task 4\n☐ task 5"
    )


def test_the_result_is_the_accepted_checklist() -> None:
    assert result_text("todo_write", written(todos("completed", "in_progress"))) == (
        "todo list: 1 of 2 done\n☑ task 1\n◐ task 2"
    )
    assert result_text("todo_write", written(todos("completed", "completed"))).startswith("todo list: all done\n")


def test_a_rejected_update_shows_why() -> None:
    why = "Exactly one task must be in_progress, but the first unfinished task (index 0) is 'pending'."
    assert result_text("todo_write", why, success=False) == "update rejected: " + why


def test_a_skipped_or_cancelled_update_is_not_called_rejected() -> None:
    for text in ("Superseded by a steering message", "Request cancelled before tool completion"):
        assert result_text("todo_write", text, success=False) == text


@pytest.mark.parametrize(
    "arguments",
    [
        {"todos": "x"},
        {"todos": [{"content": "a", "status": "blocked"}]},
        {"todos": [{"content": 1, "status": "pending"}]},
        {"todos": [{"content": "a", "status": "pending", "owner": "me"}]},
        {"todos": [], "merge": True},
        {},
    ],
)
def test_a_call_of_another_shape_shows_as_json(arguments: dict[str, Any]) -> None:
    assert call_text("todo_write", arguments) == generic_call("todo_write", arguments)


@pytest.mark.parametrize(
    "content",
    [
        '{"todos": []}',
        '{"todos": [{"content": "a"}], "in_progress_index": 0, "in_progress": null, "completed": false}',
        "[]",
        "done",
    ],
)
def test_a_result_of_another_shape_shows_as_stored(content: str) -> None:
    assert result_text("todo_write", content) == content


def test_hostile_and_multiline_items_stay_one_clean_line() -> None:
    items = [{"content": HOSTILE + "\nsecond line", "status": "in_progress"}]
    for text in (call_text("todo_write", {"todos": items}), result_text("todo_write", written(items))):
        assert not any(c in text for c in CONTROLS)
        assert text.count("\n") == text.count("◐") + (1 if text.startswith("→") else 0)
        assert "[bold red]x[/]" in text and " ⏎ second line" in text


def test_huge_lists_and_items_are_bounded_unless_shown_whole() -> None:
    items = [{"content": "x" * 5000, "status": "pending"} for _ in range(250)]
    items[0]["status"] = "in_progress"
    text = call_text("todo_write", {"todos": items})
    assert text.count("☐") == 99 and "… 150 more — press enter to show all" in text and "x" * 501 not in text
    whole = call_text("todo_write", {"todos": items}, FormatOptions(show_all=True))
    assert whole.count("☐") == 249 and "x" * 5000 in whole
