"""What a delegation card says, from records alone: the ``task`` calls and their results."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.records import raw_record
from zett_browser.model import AssistantMessage, RawMessageRecord, ToolCall, ToolMessage, UserMessage
from zett_browser.views.delegation import (
    MAX_RESULT_JSON,
    Delegation,
    match_results,
    task_calls,
    task_result,
    with_result,
)


def calls(sequence: int, *tool_calls: ToolCall) -> RawMessageRecord:
    return raw_record(AssistantMessage(content="", tool_calls=tool_calls), sequence)


def result(sequence: int, call_id: str, content: Any, *, success: bool = True) -> RawMessageRecord:
    return raw_record(ToolMessage(tool_call_id=call_id, name="task", content=content, success=success), sequence)


def task(call_id: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name="task", arguments=arguments)


def test_task_calls_are_every_task_call_in_order_with_its_request() -> None:
    records = [
        raw_record(UserMessage(content="go"), 1),
        calls(2, task("c1", subagent_type="researcher", description="look", prompt="find it")),
        calls(3, ToolCall(id="c2", name="shell", arguments={"cmd": "ls"}), task("c3", prompt="second")),
        result(4, "c1", "{}"),
    ]
    assert task_calls(records) == [
        Delegation(sequence=2, call_id="c1", subagent="researcher", description="look", prompt="find it"),
        Delegation(sequence=3, call_id="c3", subagent=None, description=None, prompt="second"),
    ]


def test_a_task_calls_odd_arguments_are_left_out_not_shown_wrong() -> None:
    odd = calls(5, task("c1", subagent_type=7, description="", prompt=["not", "text"]))
    assert task_calls([odd]) == [Delegation(5, "c1", None, None, None)]
    unparsed = calls(6, ToolCall(id="c2", name="task", arguments="raw text"))  # type: ignore[arg-type]
    assert task_calls([unparsed]) == [Delegation(6, "c2", None, None, None)]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (json.dumps({"session_id": "child-1", "content": "done"}), ("child-1", "done")),
        (json.dumps({"session_id": 5, "content": ["x"]}), (None, None)),
        (json.dumps(["session_id", "child-1"]), (None, None)),
        ("Error: the subagent failed", (None, "Error: the subagent failed")),
        ("", (None, None)),
        ("[" * 100_000, (None, None)),  # past the cap: never parsed
    ],
)
def test_task_result_names_the_child_and_what_it_returned(content: str, expected: tuple[Any, Any]) -> None:
    assert task_result(ToolMessage(tool_call_id="c", name="task", content=content)) == expected


def test_task_result_parses_up_to_the_cap_and_reads_no_parts_list() -> None:
    padded = json.dumps({"session_id": "child", "content": "x" * (MAX_RESULT_JSON - 40)})
    assert len(padded) <= MAX_RESULT_JSON
    assert task_result(ToolMessage(tool_call_id="c", name="task", content=padded))[0] == "child"
    too_long = json.dumps({"session_id": "child", "content": "x" * MAX_RESULT_JSON})
    assert task_result(ToolMessage(tool_call_id="c", name="task", content=too_long)) == (None, None)
    assert task_result(ToolMessage(tool_call_id="c", name="task", content=[])) == (None, None)


def test_with_result_completes_only_from_the_answer_to_its_own_call() -> None:
    asked = Delegation(2, "c1", "researcher", "look", "find it")
    answer = result(9, "c1", json.dumps({"session_id": "child-1", "content": "found"}), success=False)
    done = with_result(asked, answer)
    assert (done.child_id, done.success, done.returned) == ("child-1", False, "found")
    assert (done.sequence, done.prompt) == (2, "find it")
    assert with_result(asked, result(9, "other", "{}")) is asked
    assert with_result(asked, raw_record(UserMessage(content="c1"), 9)) is asked


def test_match_results_leaves_a_call_without_its_result_open() -> None:
    delegations = task_calls([calls(2, task("c1"), task("c2")), calls(3, task("c3"))])
    records = [
        result(4, "c2", json.dumps({"session_id": "child-2", "content": "two"})),
        result(5, "c1", "crashed", success=False),
        raw_record(UserMessage(content="later"), 6),
    ]
    matched = match_results(delegations, records)
    assert [(d.call_id, d.child_id, d.success, d.returned) for d in matched] == [
        ("c1", None, False, "crashed"),
        ("c2", "child-2", True, "two"),
        ("c3", None, None, None),
    ]
