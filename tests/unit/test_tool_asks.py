"""ask_user and plan mode read as a Q&A and as decisions; odd shapes fall back to JSON (views/tool_asks.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.records import raw_record
from tests.unit.tool_helpers import CONTROLS, HOSTILE, call_text, generic_call, reply, result_text
from zett_browser.model import (
    AssistantMessage,
    ImageContent,
    ImageUrlSource,
    TextContent,
    ToolCall,
    ToolMessage,
)
from zett_browser.views.blocks import HUGE, PREVIEW, FormatOptions
from zett_browser.views.formatting import format_record, full_text


def test_question_and_options_as_a_q_and_a() -> None:
    text = call_text("ask_user", {"question": "Which format?", "options": ["Markdown", "Plain text"]})
    assert text == "→ call ask_user  c1\n? Which format?\noptions:\n  • Markdown\n  • Plain text"
    several = call_text("ask_user", {"question": "Which?", "options": ["a", "b"], "allow_multiple": True})
    assert "options (several may be chosen):" in several
    assert call_text("ask_user", {"question": "Why?"}) == "→ call ask_user  c1\n? Why?"


@pytest.mark.parametrize(
    "arguments",
    [
        {"question": 3},
        {"options": ["a"]},
        {"question": "q", "options": "a"},
        {"question": "q", "options": [1]},
        {"question": "q", "allow_multiple": "yes"},
        {"question": "q", "from_a_newer_version": 1},
    ],
)
def test_a_question_of_another_shape_shows_as_json(arguments: dict[str, Any]) -> None:
    assert call_text("ask_user", arguments) == generic_call("ask_user", arguments)


def test_the_answer_reads_as_answer() -> None:
    assert result_text("ask_user", reply({"tool_call_id": "c1", "answer": "Markdown"})) == "answer: Markdown"
    assert result_text("ask_user", reply({"tool_call_id": "c1", "answer": ["a", "b"]})) == "answer: a, b"


def test_other_payloads_read_compactly() -> None:
    text = result_text("ask_user", reply({"tool_call_id": "c1", "choice": 2, "note": "n"}))
    assert text == 'reply: {"choice": 2, "note": "n"}'
    custom = result_text("ask_user", reply({"answer": "yes"}, name="my_ui_reply"))
    assert custom == "answer: yes\n(reply event my_ui_reply)"


@pytest.mark.parametrize(
    "content",
    [
        "plain words",
        "{not json",
        '{"name": "x"}',
        '{"name": 1, "payload": {}}',
        "[1, 2]",
        '{"name": "x", "payload": 3}',
    ],
)
def test_an_unknown_result_shows_as_stored(content: str) -> None:
    assert result_text("ask_user", content) == content


def test_a_failed_ask_shows_its_text() -> None:
    assert result_text("ask_user", "Request cancelled before tool completion", success=False) == (
        "Request cancelled before tool completion"
    )


def test_an_image_answer_names_type_and_size_never_the_base64() -> None:
    encoded = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    image = ImageContent(source=ImageUrlSource("data:image/png;base64," + encoded), alt_text="error.png")
    text = result_text("ask_user", [TextContent("Here is the screenshot:"), image])
    assert text == 'Here is the screenshot:\n[image: image/png, 70 B — "error.png"]'
    big = ImageContent(source=ImageUrlSource("data:image/jpeg;base64," + "QUJD" * 2_000_000))
    assert result_text("ask_user", [big]) == "[image: image/jpeg, 6.0 MB]"
    hostile = ImageContent(source=ImageUrlSource("data:image/\x1b]52;c;aGk=\x07;base64,QUJD"), alt_text=HOSTILE)
    shown = result_text("ask_user", [hostile])
    assert not any(c in shown for c in CONTROLS) and "[image: image/␛]52, 3 B — " in shown


def test_a_plain_url_image_still_shows_its_url() -> None:
    image = ImageContent(source=ImageUrlSource("https://example.invalid/a.png"))
    assert result_text("ask_user", [image]) == "[image: https://example.invalid/a.png]"


def test_plan_mode_entered_or_declined() -> None:
    def entered(flag: bool, message: str) -> str:
        return result_text("enter_plan_mode", json.dumps({"entered": flag, "message": message}))

    assert entered(True, "Plan Mode is active") == "▶ plan mode entered"
    assert entered(False, "The user declined Plan Mode") == "✗ plan mode declined by the user"
    assert entered(False, "Busy") == "✗ plan mode not entered: Busy"
    assert entered(True, "Fine") == "▶ plan mode entered: Fine"
    assert call_text("enter_plan_mode", {"reason": "Big change."}).endswith("\nasks to plan first: Big change.")


def test_the_plan_is_markdown_prose_and_its_fate() -> None:
    plan = "# Plan\n\n1. Update storage.\n2. Add tests."
    message = AssistantMessage(tool_calls=(ToolCall("c1", "exit_plan_mode", {"plan": plan}),))
    blocks = format_record(raw_record(message))
    assert [b.text for b in blocks[2:4]] == ["plan for the user to approve:", plan]
    assert blocks[3].prose and not blocks[2].prose

    def exited(flag: bool, message: str) -> str:
        return result_text("exit_plan_mode", json.dumps({"exited": flag, "message": message}))

    assert exited(True, "Plan Mode is inactive") == "✓ plan approved — plan mode left"
    assert exited(False, "The user requested more planning") == "✗ plan sent back: The user requested more planning"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("enter_plan_mode", '{"entered": "yes", "message": "m"}'),
        ("enter_plan_mode", '{"entered": true}'),
        ("enter_plan_mode", '{"entered": true, "message": "m", "new": 1}'),
        ("exit_plan_mode", '{"exited": true, "message": 5}'),
        ("exit_plan_mode", "Plan Mode is not active"),
    ],
)
def test_plan_results_of_another_shape_show_as_stored(name: str, content: str) -> None:
    assert result_text(name, content) == content
    assert result_text(name, content, success=False) == content


def test_plan_calls_of_another_shape_show_as_json() -> None:
    for arguments in ({"plan": 1}, {"plan": "p", "extra": True}, {}):
        assert call_text("exit_plan_mode", arguments) == generic_call("exit_plan_mode", arguments)
    assert call_text("enter_plan_mode", {"why": "x"}) == generic_call("enter_plan_mode", {"why": "x"})


def test_hostile_strings_are_cleaned_everywhere() -> None:
    texts = [
        call_text("ask_user", {"question": HOSTILE, "options": [HOSTILE]}),
        result_text("ask_user", reply({"answer": HOSTILE}, name=HOSTILE)),
        call_text("exit_plan_mode", {"plan": HOSTILE}),
        result_text("exit_plan_mode", json.dumps({"exited": False, "message": HOSTILE})),
        result_text("enter_plan_mode", json.dumps({"entered": True, "message": HOSTILE})),
    ]
    for text in texts:
        assert not any(c in text for c in CONTROLS), text
        assert "[bold red]x[/]" in text and "[@click=app.quit]q[/]" in text  # literal, for the view to show as text


def test_huge_values_are_previews_unless_shown_whole() -> None:
    plan = "p" * (HUGE * 3)
    text = call_text("exit_plan_mode", {"plan": plan})
    assert "p" * PREVIEW in text and "p" * (PREVIEW + 1) not in text and "press enter to show all" in text
    assert plan in call_text("exit_plan_mode", {"plan": plan}, FormatOptions(show_all=True))
    options = call_text("ask_user", {"question": "q", "options": ["o" * 5000] * 300})
    assert options.count("\n  • ") == 100 and "… 200 more" in options and "o" * 501 not in options
    answer = result_text("ask_user", reply({"answer": "a" * (HUGE * 2)}))
    assert len(answer) < PREVIEW + 100
    huge_json = reply({"answer": "a" * 600_000})
    assert result_text("ask_user", huge_json).startswith('{"name": "ask_user_response"')  # not parsed: generic preview


def test_full_text_carries_the_rendering() -> None:
    message = ToolMessage(tool_call_id="c1", name="ask_user", content=reply({"answer": "Markdown"}))
    assert full_text(raw_record(message)).endswith("answer: Markdown")
