"""Provides how a session's last request ended, read from its last rows (pure, toolkit-free).

zett-agent records no "request ended" row: what is left is the history, and its last
message says what was happening when it stopped (zett-agent's ``classify_resume`` reads
it the same way; this is our own reading, with the same rules plus the cases it refuses):

- an assistant answer with no calls that stopped normally: **finished**;
- an assistant answer that reached the output limit: **cut off** (``max_output``);
- one the model declined: **refused**; one a stream error broke: **interrupted**;
- an assistant message whose calls (or some of them) have no result: **tools unanswered**
  (the process stopped while they ran);
- tool results that answer every call of their batch: **stopped before the model saw the
  results** — **cancelled** when one of them is the runtime's cancellation text;
- a user or agent (internal) message last: **waiting for the model**.

System rows (the prompt appended at each request, also by resume checks and
``Agent.compact()``) are skipped: they say nothing about how a request ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .messages import AssistantMessage, StopReason, SystemMessage, ToolMessage, UnreadableMessage
from .outcomes import Outcome, tool_outcome
from .records import RawMessageRecord


class StateKind(StrEnum):
    """How a session's last request ended."""

    FINISHED = "finished"
    CUT_OFF = "cut_off"  # max_output: the answer reached the output limit
    REFUSED = "refused"
    INTERRUPTED = "interrupted"  # the stream broke (stop reason interrupted)
    CONTEXT_FULL = "context_full"
    STOPPED = "stopped"  # another abnormal stop reason
    PAUSED = "paused"  # the provider paused the turn
    TOOLS_UNANSWERED = "tools_unanswered"
    RESULTS_UNSEEN = "results_unseen"  # every call answered, the model never saw them
    CANCELLED = "cancelled"  # like RESULTS_UNSEEN, a result says the request was cancelled
    WAITING = "waiting"  # a user or agent message last: the model never answered
    EMPTY = "empty"  # no message but system rows
    UNKNOWN = "unknown"  # the rows read do not tell (unreadable, a batch beyond the window)


#: Badge (short, for the tree) and sentence (for the header) of each kind.
_WORDS: dict[StateKind, tuple[str, str]] = {
    StateKind.FINISHED: ("", "finished"),
    StateKind.CUT_OFF: ("⚠ cut off", "the last answer reached the output limit"),
    StateKind.REFUSED: ("⊘ refused", "the model declined the last request"),
    StateKind.INTERRUPTED: ("↯ interrupted", "the last answer was cut off by an error"),
    StateKind.CONTEXT_FULL: ("⚠ context full", "the last answer stopped: the context window was full"),
    StateKind.STOPPED: ("⚠ stopped", "the last answer stopped abnormally"),
    StateKind.PAUSED: ("‖ paused", "the provider paused the last answer"),
    StateKind.TOOLS_UNANSWERED: ("‖ tools unanswered", "stopped while tools ran: calls have no result"),
    StateKind.RESULTS_UNSEEN: ("‖ results unseen", "the tools finished; the model never saw their results"),
    StateKind.CANCELLED: ("⊘ cancelled", "the request was cancelled while tools ran"),
    StateKind.WAITING: ("… awaiting reply", "the last message has no answer from the model (yet)"),
    StateKind.EMPTY: ("", "no messages yet"),
    StateKind.UNKNOWN: ("", "how the last request ended is not known"),
}


@dataclass(frozen=True, slots=True)
class SessionState:
    """How a session's last request ended.

    Attributes:
        kind: Which ending.
        sequence: The row that tells (the last non-system row), None when there is none.
        detail: The stop's own words or the unanswered calls' names (from the store: clean it).
    """

    kind: StateKind
    sequence: int | None = None
    detail: str = ""

    @property
    def badge(self) -> str:
        """Short words for the tree; empty for a plain ending (finished, empty, unknown)."""
        return _WORDS[self.kind][0]

    @property
    def quiet(self) -> bool:
        """Whether the ending may just be a request still running (say it, do not alarm)."""
        return self.kind in (StateKind.WAITING, StateKind.RESULTS_UNSEEN, StateKind.PAUSED)

    @property
    def sentence(self) -> str:
        """One phrase for the header, with the detail when there is one."""
        words = _WORDS[self.kind][1]
        return f"{words} ({self.detail})" if self.detail else words


def classify(records: Sequence[RawMessageRecord]) -> SessionState:
    """How the request ended whose last rows are ``records`` (oldest first).

    ``records`` are a session's last rows (any window that reaches back to the last
    assistant message before trailing tool results); system rows are skipped.
    """
    dialogue = [r for r in records if not _is_system(r)]
    if not dialogue:
        return SessionState(StateKind.EMPTY if not records else StateKind.UNKNOWN)
    last = dialogue[-1]
    message = last.message
    if isinstance(message, UnreadableMessage):
        return SessionState(StateKind.UNKNOWN, last.sequence)
    if isinstance(message, ToolMessage):
        return _after_tools(dialogue)
    if isinstance(message, AssistantMessage):
        return _after_assistant(message, last.sequence)
    # A user, agent (internal, resume notice) or compacted message: the model never answered.
    return SessionState(StateKind.WAITING, last.sequence)


def _is_system(record: RawMessageRecord) -> bool:
    message = record.message
    if isinstance(message, UnreadableMessage):
        return message.kind == 1
    return isinstance(message, SystemMessage)


def _after_tools(dialogue: Sequence[RawMessageRecord]) -> SessionState:
    index = len(dialogue) - 1
    answered: set[str] = set()
    outcomes: set[Outcome] = set()
    while index >= 0 and isinstance(dialogue[index].message, ToolMessage):
        tool = dialogue[index].message
        assert isinstance(tool, ToolMessage)
        answered.add(tool.tool_call_id)
        outcomes.add(tool_outcome(tool.success, tool.content))
        index -= 1
    last = dialogue[-1].sequence
    batch = dialogue[index].message if index >= 0 else None
    if not isinstance(batch, AssistantMessage) or not batch.tool_calls:
        # The calling message is beyond the rows read, or the results answer nothing.
        return SessionState(StateKind.UNKNOWN, last)
    missing = [call.name for call in batch.tool_calls if call.id not in answered]
    if missing:
        return SessionState(StateKind.TOOLS_UNANSWERED, last, _names(missing))
    if Outcome.CANCELLED in outcomes:
        return SessionState(StateKind.CANCELLED, last)
    return SessionState(StateKind.RESULTS_UNSEEN, last)


def _after_assistant(message: AssistantMessage, sequence: int) -> SessionState:
    if message.tool_calls:
        return SessionState(StateKind.TOOLS_UNANSWERED, sequence, _names([c.name for c in message.tool_calls]))
    stop = message.stop
    if stop is None or stop.ok:
        return SessionState(StateKind.FINISHED, sequence)
    kind = {
        StopReason.MAX_OUTPUT: StateKind.CUT_OFF,
        StopReason.REFUSAL: StateKind.REFUSED,
        StopReason.INTERRUPTED: StateKind.INTERRUPTED,
        StopReason.CONTEXT_FULL: StateKind.CONTEXT_FULL,
        StopReason.PAUSED: StateKind.PAUSED,
    }.get(stop.reason, StateKind.STOPPED)
    detail = stop.category or stop.message or ""
    withheld = stop.detail.get("withheld_tool_calls") if isinstance(stop.detail, dict) else None
    if isinstance(withheld, list) and withheld:
        names = _names([str(name) for name in withheld])
        detail = f"{detail}; withheld {names}" if detail else f"withheld {names}"
    return SessionState(kind, sequence, detail[:200])


def _names(names: Sequence[str]) -> str:
    unique = sorted(set(names))
    shown = ", ".join(unique[:4])
    return shown + (f" +{len(unique) - 4}" if len(unique) > 4 else "")


__all__ = ["SessionState", "StateKind", "classify"]
