"""Provides how background-task calls and results read in the Raw Log, the detail view and exports.

A ``task_*`` result (``SubAgentTaskInfo`` JSON) reads like a card,
``⧉ task-1 · explore · Audit auth · ✓ completed · 1.1 s``, then its stop, error, note and,
for ``task_output``, the report; a ``task_list`` array gives one such line per task. A
``task_start`` call reads as the subagent type, the description and the prompt. Registered
by tool name in :mod:`zett_browser.views.tools`; a shape this does not know returns None
(the generic JSON shows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import ToolCall, ToolMessage
from ..text import clean
from .blocks import Block, FormatOptions, Span, block, bounded
from .tasks import START, TaskInfo, parse_result

#: How each status reads; its role is ``task.<status>`` (failed and cancelled look different).
STATUS_LABELS = {"running": "◌ running", "completed": "✓ completed", "failed": "✗ failed", "cancelled": "⊘ cancelled"}
#: Longest description or id put on a head line (zett-agent allows 120 and 64).
MAX_HEAD = 160


def status_label(status: str) -> str:
    """``✓ completed``, ``⊘ cancelled``…; an unknown status as itself."""
    return STATUS_LABELS.get(status, status)


def elapsed_text(seconds: float | None) -> str:
    """``0.0 s``, ``1.1 s``, ``2 m 05 s``."""
    if seconds is None or seconds < 0:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def _short(text: str) -> str:
    return clean(text if len(text) <= MAX_HEAD else text[: MAX_HEAD - 1] + "…")


def info_head(info: TaskInfo) -> Block:
    """``⧉ task-1 · explore · Audit auth · ✓ completed · 1.1 s``."""
    spans = [
        Span("⧉ ", "task.mark"),
        Span(_short(info.task_id), "task.id"),
        Span(" · " + _short(info.subagent), "task.type"),
    ]
    if info.description:
        spans.append(Span(" · " + _short(info.description), "task.description"))
    spans.append(Span(" · ", "task.description"))
    spans.append(Span(status_label(info.status), f"task.{info.status}"))
    elapsed = elapsed_text(info.elapsed)
    if elapsed:
        spans.append(Span(" · " + elapsed, "usage"))
    return Block(tuple(spans))


def info_blocks(info: TaskInfo, options: FormatOptions, *, report: bool) -> list[Block]:
    """An info's head, then its stop, error and note, and (``report``) the report itself."""
    blocks = [info_head(info)]
    if info.stop:
        blocks.append(block(clean("  ⚠ stopped early: " + info.stop), "problem"))
    if info.error:
        blocks.extend(bounded("  error: " + info.error, options, "error"))
    if info.note:
        blocks.append(block("  " + _short(info.note), "task.note"))
    blocks.append(block("  child " + clean(info.session_id[:MAX_HEAD]), "id"))
    if report and info.content is not None:
        blocks.append(block("  report:", "task.note"))
        blocks.extend(bounded(info.content, options, prose=True))
    return blocks


def result(message: ToolMessage, options: FormatOptions) -> list[Block] | None:
    """A ``task_*`` result as cards; None for a plain-text error or an odd shape."""
    parsed = parse_result(message.content)
    if parsed is None:
        return None
    if isinstance(parsed, TaskInfo):
        return info_blocks(parsed, options, report=message.name == "task_output")
    if not parsed:
        return [block("no background tasks", "task.note")]
    blocks = [block(f"{len(parsed)} background task{'s' if len(parsed) != 1 else ''}", "task.note")]
    for info in parsed:
        blocks.extend(info_blocks(info, options, report=False))
    return blocks


def _exactly(arguments: Any, *names: str) -> Mapping[str, Any] | None:
    """The arguments when they are a dict of exactly these keys (a subset of them)."""
    if not isinstance(arguments, dict) or not set(arguments) <= set(names):
        return None
    return arguments


def start_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """A ``task_start`` call: subagent type and description, then the prompt (bounded)."""
    arguments = _exactly(call.arguments, "subagent_type", "description", "prompt")
    if arguments is None:
        return None
    subagent, description, prompt = (arguments.get(name) for name in ("subagent_type", "description", "prompt"))
    if not all(isinstance(value, str) for value in (subagent, description, prompt)):
        return None
    assert isinstance(subagent, str) and isinstance(description, str) and isinstance(prompt, str)
    head = Block(
        (
            Span("⧉ start ", "task.mark"),
            Span(_short(subagent), "task.type"),
            Span(" · " + _short(description), "task.description"),
        )
    )
    if "\n" not in prompt and len(prompt) <= MAX_HEAD:
        return [head, Block((Span("  prompt: ", "task.note"), Span(clean(prompt), "tool.arguments")))]
    return [head, block("  prompt:", "task.note"), *bounded(prompt, options, "tool.arguments")]


def id_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """``task_status`` / ``task_output`` / ``task_cancel``: ``⧉ task-1 · wait 30 s``."""
    arguments = _exactly(call.arguments, "task_id", "wait_seconds")
    if arguments is None or not isinstance(arguments.get("task_id"), str):
        return None
    spans = [Span("⧉ ", "task.mark"), Span(_short(arguments["task_id"]), "task.id")]
    wait = arguments.get("wait_seconds")
    if wait is not None:
        if isinstance(wait, bool) or not isinstance(wait, int):
            return None
        spans.append(Span(f" · wait up to {wait} s", "usage"))
    return [Block(tuple(spans))]


def list_call(call: ToolCall, options: FormatOptions) -> list[Block] | None:
    """``task_list()`` takes nothing; anything else shows as JSON."""
    return [] if call.arguments == {} else None


#: The renderers :mod:`zett_browser.views.tools` registers, by tool name.
TASK_CALLS = {
    START: start_call,
    "task_status": id_call,
    "task_output": id_call,
    "task_cancel": id_call,
    "task_list": list_call,
}
TASK_RESULTS = dict.fromkeys((START, "task_status", "task_output", "task_cancel", "task_list"), result)
