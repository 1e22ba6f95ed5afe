"""Provides how the tools that ask the user read: ``ask_user`` as Q&A, plan mode as its decisions.

Shapes are zett-agent 0.2.1's (``extensions/ask_user.py``, ``extensions/plan_mode.py``):

- ``ask_user {"question", "options"?, "allow_multiple"?}``; its result is the UI's reply
  verbatim, ``{"name": "ask_user_response", "payload": {"tool_call_id", "answer"}}`` for a
  text answer, or a parts list (text + images) that the generic rendering already reads.
- ``enter_plan_mode {"reason"}`` → ``{"entered": bool, "message"}``;
  ``exit_plan_mode {"plan": Markdown}`` → ``{"exited": bool, "message"}``. Approved or
  declined is only in these results (the user's decision events are not stored).

Every renderer returns ``None`` on a shape it does not know, so the JSON still shows.
"""

from __future__ import annotations

from typing import Any

from ..model import ToolCall, ToolMessage
from .blocks import Block, FormatOptions, block, bounded
from .tool_common import compact_json, decoded, item, listed, text_of

#: The call's role: its lines group with the call in exports (``export/segments.py``).
_ARGS = "tool.arguments"
_DECLINED = "The user declined Plan Mode"
_ENTERED = "Plan Mode is active"
_LEFT = "Plan Mode is inactive"


def ask_user_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """``? Which format?`` and the options as a list (``AskUserRequest``; extra keys: JSON)."""
    arguments = call.arguments
    question = text_of(arguments.get("question"))
    choices = arguments.get("options")
    several = arguments.get("allow_multiple", False)
    if question is None or set(arguments) - {"question", "options", "allow_multiple"}:
        return None
    if choices is not None and not (isinstance(choices, list) and all(isinstance(c, str) for c in choices)):
        return None
    if not isinstance(several, bool):
        return None
    blocks = bounded("? " + question, options, _ARGS)
    if choices:
        hint = "options (several may be chosen):" if several else "options:"
        blocks.append(block(hint, _ARGS))
        blocks.extend(listed([block("  • " + item(c, options), _ARGS) for c in choices], options, _ARGS))
    elif several:
        blocks.append(block("(several answers may be given)", _ARGS))
    return blocks


def _answer(answer: Any, options: FormatOptions) -> list[Block] | None:
    if isinstance(answer, str):
        return bounded("answer: " + answer, options)
    if isinstance(answer, list) and all(isinstance(a, str) for a in answer):
        return bounded("answer: " + ", ".join(answer), options)
    return None


def ask_user_result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """``answer: Markdown``; another payload compactly; parts lists (images) stay generic."""
    if not message.success:
        return None
    value = decoded(message.content)
    if not isinstance(value, dict) or set(value) != {"name", "payload"}:
        return None
    name, payload = value["name"], value["payload"]
    if not isinstance(name, str) or not isinstance(payload, dict):
        return None
    rest = {key: val for key, val in payload.items() if key != "tool_call_id"}
    blocks = _answer(rest["answer"], options) if set(rest) == {"answer"} else None
    if blocks is None:
        blocks = bounded("reply: " + compact_json(rest), options)
    if name != "ask_user_response":
        blocks.append(block("(reply event " + item(name, options) + ")", "body"))
    return blocks


def enter_plan_mode_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """``asks to plan first: <reason>``."""
    reason = text_of(call.arguments.get("reason"))
    if reason is None or set(call.arguments) != {"reason"}:
        return None
    return bounded("asks to plan first: " + reason, options, _ARGS)


def _decision(message: ToolMessage, flag: str) -> tuple[bool, str] | None:
    """The ``(flag, message)`` of a plan-mode result, or None for another shape."""
    if not message.success:
        return None
    value = decoded(message.content)
    if not isinstance(value, dict) or set(value) != {flag, "message"}:
        return None
    done, text = value[flag], value["message"]
    if not isinstance(done, bool) or not isinstance(text, str):
        return None
    return done, text


def enter_plan_mode_result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """``▶ plan mode entered`` or ``✗ plan mode declined by the user``."""
    decision = _decision(message, "entered")
    if decision is None:
        return None
    entered, text = decision
    if entered:
        line = "▶ plan mode entered" + ("" if text == _ENTERED else ": " + text)
    else:
        line = "✗ plan mode declined by the user" if text == _DECLINED else "✗ plan mode not entered: " + text
    return bounded(line, options)


def exit_plan_mode_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """The plan, as Markdown prose (bounded), under a line saying it went to the user."""
    plan = text_of(call.arguments.get("plan"))
    if plan is None or set(call.arguments) != {"plan"}:
        return None
    return [block("plan for the user to approve:", _ARGS), *bounded(plan, options, _ARGS, prose=True)]


def exit_plan_mode_result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """``✓ plan approved — plan mode left`` or ``✗ plan sent back: <why>``."""
    decision = _decision(message, "exited")
    if decision is None:
        return None
    exited, text = decision
    if exited:
        line = "✓ plan approved — plan mode left" + ("" if text == _LEFT else ": " + text)
    else:
        line = "✗ plan sent back: " + text
    return bounded(line, options)
