"""Provides the decoding and assembly behind a delegated session's label, with no SQL library.

:mod:`.labels` (the SQL storage) and :mod:`.quicklabels` (the stdlib reader of the command
line) run the same three queries, each in its own driver, and hand the rows to these
functions: which ``task`` result names which child, which ``task`` call asked for it, the
child's first prompt, and the label made of them. So both read the same labels by
construction (a test compares them on real stores).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ..model.nodes import AskedLabel
from ..text import one_line

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:  # the aliases name types in annotations only
    from typing import Any

    #: tool_call_id -> (child session id, subagent type named by the result, result sequence)
    Links = dict[str, tuple[str, str | None, int]]
    #: tool_call_id -> (the call's arguments, the call's sequence, its place among the message's calls)
    Arguments = dict[str, tuple[dict[str, Any], int, int]]
    #: child session id -> (description, subagent type, the call's sequence, its place)
    Requests = dict[str, tuple[str, str, int | None, int | None]]

#: Role codes of the ``raw_messages.role`` column (zett-agent's message kinds).
USER, ASSISTANT, TOOL = 2, 3, 4
#: A child's first user message sits after its system prompt rows (two per request in
#: zett-agent 0.2.1); rows past this sequence are not searched.
FIRST_USER_WITHIN = 8
#: The assistant message holding a ``task`` call precedes its result by at most this many
#: rows (the other results of the same batch of parallel calls).
CALL_WINDOW = 64
#: Rows larger than this are not decoded for a label (a label must never freeze the UI).
MAX_JSON_CHARS = 1_000_000
#: Longest label returned (the tree cuts again to its width).
LABEL_CHARS = 120
#: Characters of a first user message read from the store.
PREVIEW_CHARS = 300


def _data(message_json: object) -> dict[str, Any] | None:
    """The ``data`` object of a stored message envelope, or None when unreadable."""
    if not isinstance(message_json, str):
        return None
    try:
        value = json.loads(message_json)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list) and value:
        value = value[0]
    data = value.get("data") if isinstance(value, dict) else None
    return data if isinstance(data, dict) else None


def result_link(message_json: object) -> tuple[str, str, str | None] | None:
    """(tool_call_id, child session id, subagent type) of a ``task`` result, if it names one."""
    data = _data(message_json)
    if data is None or not isinstance(data.get("tool_call_id"), str) or not isinstance(data.get("content"), str):
        return None
    try:
        result = json.loads(data["content"])
    except (ValueError, RecursionError):
        return None
    if not isinstance(result, dict) or not isinstance(result.get("session_id"), str):
        return None
    subagent_type = result.get("subagent_type")
    return data["tool_call_id"], result["session_id"], subagent_type if isinstance(subagent_type, str) else None


def _task_calls(message_json: object) -> list[tuple[str, dict[str, Any], int]]:
    """(call id, arguments, place among the message's tool calls from 1) of each ``task``
    call in an assistant message."""
    data = _data(message_json)
    calls = data.get("tool_calls") if data is not None else None
    if not isinstance(calls, list):
        return []
    found = []
    for number, call in enumerate(calls, 1):
        if (
            isinstance(call, dict)
            and call.get("name") == "task"
            and isinstance(call.get("id"), str)
            and isinstance(call.get("arguments"), dict)
        ):
            found.append((call["id"], call["arguments"], number))
    return found


def _request(arguments: dict[str, Any], result_type: str | None) -> tuple[str, str]:
    """The call's description and subagent type (the result's type when the call lacks one)."""
    description = arguments.get("description")
    subagent_type = arguments.get("subagent_type")
    if not (isinstance(subagent_type, str) and subagent_type.strip()):
        subagent_type = result_type
    return (
        description.strip() if isinstance(description, str) else "",
        subagent_type.strip() if isinstance(subagent_type, str) else "",
    )


def add_link(links: Links, wanted: set[str], sequence: Any, message_json: object) -> None:
    """Record the ``task`` result row ``(sequence, message_json)`` when it names a wanted child."""
    link = result_link(message_json)
    if link is not None and link[1] in wanted:
        links[link[0]] = (link[1], link[2], int(sequence))


def add_arguments(arguments: Arguments, links: Links, sequence: Any, message_json: object) -> None:
    """Record the ``task`` calls of the assistant row ``(sequence, message_json)`` whose results are linked."""
    for call_id, args, number in _task_calls(message_json):
        if call_id in links:
            arguments[call_id] = (args, int(sequence), number)


def requests(links: Links, arguments: Arguments) -> Requests:
    """What each linked child was asked: its call's arguments, else only the result's type."""
    found: Requests = {}
    for call_id, (child, result_type, _) in links.items():
        if call_id in arguments:
            args, call_sequence, number = arguments[call_id]
            found[child] = (*_request(args, result_type), call_sequence, number)
        else:
            found[child] = (*_request({}, result_type), None, None)
    return found


def first_prompts(rows: Iterable[Sequence[Any]]) -> dict[str, str]:
    """Each session's first non-blank prompt from ``(session_id, preview)`` rows in sequence
    order (the preview read as bytes where the driver would fail on text that is not UTF-8)."""
    found: dict[str, str] = {}
    for session_id, value in rows:
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if session_id not in found and isinstance(text, str) and text.strip():
            found[session_id] = one_line(text.strip(), LABEL_CHARS)
    return found


def asked_labels(wanted: Sequence[str], asked: Requests, prompts: dict[str, str]) -> dict[str, str]:
    """The label of each session of ``wanted`` that has one: ``type: description``, the first
    prompt standing in for a missing description; cleaned and one line."""
    labels: dict[str, str] = {}
    for session_id in wanted:
        description, subagent_type, call, number = asked.get(session_id, ("", "", None, None))
        text = description or prompts.get(session_id, "")
        if text and subagent_type:
            labels[session_id] = AskedLabel(one_line(f"{subagent_type}: {text}", LABEL_CHARS), call, number)
        elif text or subagent_type:
            labels[session_id] = AskedLabel(one_line(text or subagent_type, LABEL_CHARS), call, number)
    return labels


__all__ = [
    "ASSISTANT",
    "CALL_WINDOW",
    "FIRST_USER_WITHIN",
    "LABEL_CHARS",
    "MAX_JSON_CHARS",
    "PREVIEW_CHARS",
    "TOOL",
    "USER",
    "add_arguments",
    "add_link",
    "asked_labels",
    "first_prompts",
    "requests",
    "result_link",
]
