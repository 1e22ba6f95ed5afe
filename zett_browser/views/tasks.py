"""Provides zett-agent's background tasks (``AsyncSubAgentExtension``) as typed records.

The extension's tools (``task_start``, ``task_status``, ``task_output``, ``task_cancel``,
``task_list``) answer with ``SubAgentTaskInfo`` JSON (``task_list`` with an array of them),
and the runtime tells the parent that a task ended with an agent row, ``Background task
task-N (type: description) finished.`` (or ``failed: …``, ``was cancelled``, ``ended early
(…)``). This module reads both, bounded, and ties one session's task events together by
task id (:func:`lifecycle`): where a task started, its latest known status, whether the
report a notice announced was read by a later ``task_output``.

Pure and toolkit-free; an odd shape (a newer zett-agent, corrupt JSON, huge values) reads
as ``None`` so the caller keeps the generic rendering.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model import AgentMessage, AssistantMessage, RawMessageRecord, ToolMessage

START = "task_start"
#: The background-task tools whose results are ``SubAgentTaskInfo`` JSON.
TASK_TOOLS = frozenset({START, "task_status", "task_output", "task_cancel", "task_list"})
#: The statuses zett-agent 0.2.1 knows (``SubAgentTaskStatus``).
STATUSES = frozenset({"running", "completed", "failed", "cancelled"})
#: Longest result parsed (an info is small, a ``task_output`` report may be a few pages).
MAX_RESULT_JSON = 256_000
#: Most infos read from one ``task_list`` array.
MAX_LIST = 200
#: Longest agent row read as a completion notice.
MAX_NOTICE = 20_000

_NOTICE = re.compile(
    r"Background task (?P<id>\S{1,64}) \((?P<type>[^:()\n]{1,64}): (?P<desc>.{1,120}?)\) "
    r"(?P<outcome>finished|ended early \((?P<early>.*)\)|failed: (?P<error>.*)|was cancelled)\."
    r"(?P<follow> Call task_output to read its report\.)?",
    re.S,
)


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """One ``SubAgentTaskInfo``: a background task as a tool reported it."""

    task_id: str
    subagent: str
    description: str
    status: str
    session_id: str
    elapsed: float | None = None
    content: str | None = None  # the report: only ``task_output`` of a completed task
    stop: str | None = None  # why the child stopped early, described
    error: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A completion notice the runtime wrote as an agent row."""

    task_id: str
    subagent: str
    description: str
    status: str  # completed (finished or ended early), failed or cancelled
    detail: str | None  # the error, or why it ended early


def _text(value: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    found = value.get(name)
    if isinstance(found, str) and (found or not required):
        return found
    if found is None and not required:
        return None
    raise ValueError(name)


def _stop(value: Any) -> str | None:
    """A ``StopInfo`` object in a few words: ``reason (category): message``."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("stop")
    reason = value.get("reason")
    words = reason if isinstance(reason, str) and reason else "stopped"
    category = value.get("category")
    if isinstance(category, str) and category:
        words += f" ({category})"
    message = value.get("message")
    if isinstance(message, str) and message:
        words += f": {message}"
    return words


def info_of(value: Any) -> TaskInfo | None:
    """A decoded ``SubAgentTaskInfo`` object, or None when it is not one."""
    if not isinstance(value, dict):
        return None
    try:
        status = _text(value, "status", required=True)
        if status not in STATUSES:
            return None  # a status this version does not know: show the JSON
        elapsed = value.get("elapsed_seconds")
        if elapsed is not None and (isinstance(elapsed, bool) or not isinstance(elapsed, int | float)):
            return None
        return TaskInfo(
            task_id=str(_text(value, "task_id", required=True)),
            subagent=str(_text(value, "subagent_type", required=True)),
            description=_text(value, "description") or "",
            status=status,
            session_id=str(_text(value, "session_id", required=True)),
            elapsed=float(elapsed) if elapsed is not None else None,
            content=_text(value, "content"),
            stop=_stop(value.get("stop")),
            error=_text(value, "error"),
            note=_text(value, "note"),
        )
    except ValueError:
        return None


def parse_result(content: Any) -> TaskInfo | list[TaskInfo] | None:
    """A task tool's result: one info, a ``task_list`` array of them, or None (not one)."""
    if not isinstance(content, str) or len(content) > MAX_RESULT_JSON or content[:1] not in "[{":
        return None
    try:
        value: Any = json.loads(content)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list):
        if len(value) > MAX_LIST:
            return None
        infos = [info_of(item) for item in value]
        found = [info for info in infos if info is not None]
        return found if len(found) == len(infos) else None
    return info_of(value)


def result_infos(message: ToolMessage) -> list[TaskInfo]:
    """The infos a task tool's result holds (none for another tool or an odd shape)."""
    if message.name not in TASK_TOOLS:
        return []
    parsed = parse_result(message.content)
    if parsed is None:
        return []
    return parsed if isinstance(parsed, list) else [parsed]


def parse_notice(content: Any) -> Notice | None:
    """An agent row's completion notice, or None when the row is something else."""
    if not isinstance(content, str) or len(content) > MAX_NOTICE or not content.startswith("Background task "):
        return None
    found = _NOTICE.fullmatch(content)
    if found is None:
        return None
    outcome = found["outcome"]
    if outcome == "finished" or outcome.startswith("ended early"):
        status, detail = "completed", found["early"]
    elif outcome == "was cancelled":
        status, detail = "cancelled", None
    else:
        status, detail = "failed", found["error"]
    return Notice(found["id"], found["type"], found["desc"], status, detail)


@dataclass
class TaskLife:
    """One task's events in its session, by sequence number."""

    task_id: str
    subagent: str | None = None
    description: str | None = None
    session_id: str | None = None
    status: str | None = None  # the latest known
    status_sequence: int = 0
    elapsed: float | None = None
    error: str | None = None
    stop: str | None = None
    call_id: str | None = None
    started: int | None = None  # the task_start result
    reads: list[int] = field(default_factory=list)  # task_output results that returned a report
    notices: dict[int, str] = field(default_factory=dict)  # sequence -> the status it announced
    events: list[tuple[int, str]] = field(default_factory=list)  # (sequence, what): start, status, output…

    def history(self) -> str:
        """``start #5 → output #10 → notice #21``: the task's events in order."""
        return " → ".join(f"{what} #{sequence}" for sequence, what in sorted(self.events))

    def unread(self, notice_sequence: int) -> bool:
        """Whether the report a "finished" notice announced was never read by a later ``task_output``."""
        announced = self.notices.get(notice_sequence)
        return announced == "completed" and not any(read > notice_sequence for read in self.reads)

    def _seen(self, info: TaskInfo, sequence: int) -> None:
        self.subagent, self.description, self.session_id = info.subagent, info.description, info.session_id
        if sequence >= self.status_sequence:
            self.status, self.status_sequence = info.status, sequence
            self.elapsed, self.error, self.stop = info.elapsed, info.error, info.stop


def lifecycle(records: Iterable[RawMessageRecord]) -> dict[str, TaskLife]:
    """Every background task these records (one session, in order) mention, by task id."""
    lives: dict[str, TaskLife] = {}

    def life(task_id: str) -> TaskLife:
        return lives.setdefault(task_id, TaskLife(task_id))

    for record in records:
        message, sequence = record.message, record.sequence
        if isinstance(message, ToolMessage):
            for info in result_infos(message):
                found = life(info.task_id)
                found._seen(info, sequence)
                if message.name != "task_list":
                    found.events.append((sequence, message.name.removeprefix("task_")))
                if message.name == START and found.started is None:
                    found.started, found.call_id = sequence, message.tool_call_id
                if message.name == "task_output" and info.content is not None:
                    found.reads.append(sequence)
        elif isinstance(message, AgentMessage):
            notice = parse_notice(message.content)
            if notice is not None:
                found = life(notice.task_id)
                found.notices[sequence] = notice.status
                found.events.append((sequence, "notice"))
                if sequence >= found.status_sequence:
                    found.status, found.status_sequence = notice.status, sequence
                    if notice.status == "failed":
                        found.error = notice.detail
                found.subagent = found.subagent or notice.subagent
                found.description = found.description or notice.description
    return lives


def start_calls(record: RawMessageRecord) -> list[tuple[str, Mapping[str, Any]]]:
    """(call id, arguments) of each ``task_start`` call of an assistant record."""
    message = record.message
    if not isinstance(message, AssistantMessage):
        return []
    return [
        (call.id, call.arguments if isinstance(call.arguments, dict) else {})
        for call in message.tool_calls
        if call.name == START
    ]
