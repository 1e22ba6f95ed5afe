"""Shared by the structured-tool renderer tests: a call's or a result's Raw Log text, hostile strings."""

from __future__ import annotations

import json
from typing import Any

from tests.records import raw_record
from zett_browser.model import AssistantMessage, ToolCall, ToolMessage
from zett_browser.views.blocks import FormatOptions
from zett_browser.views.formatting import format_record, join

HOSTILE = "[bold red]x[/] \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J [@click=app.quit]q[/]"
CONTROLS = ("\x1b", "\x07", "\x9b")


def call_text(name: str, arguments: dict[str, Any], options: FormatOptions | None = None) -> str:
    message = AssistantMessage(tool_calls=(ToolCall("c1", name, arguments),))
    return join(format_record(raw_record(message), options)[1:])


def result_text(name: str, content: Any, *, success: bool = True, options: FormatOptions | None = None) -> str:
    message = ToolMessage(tool_call_id="c1", name=name, content=content, success=success)
    return join(format_record(raw_record(message), options)[2:])


def generic_call(name: str, arguments: dict[str, Any]) -> str:
    return "→ call " + name + "  c1\n" + json.dumps(arguments, indent=2, ensure_ascii=False)


def reply(payload: Any, name: str = "ask_user_response") -> str:
    return json.dumps({"name": name, "payload": payload})
