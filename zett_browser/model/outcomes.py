"""Provides what really happened to a tool call, beyond the stored ``success`` flag.

zett-agent 0.2.1 stores ``success: false`` for five different things: the tool failed, the
call was skipped because a steering message superseded it, the request was cancelled while
it ran, the process died while it ran (the runtime answers it on resume), or the user
aborted a shell command at the approval prompt. Only the first is a failure of the tool;
the others are decisions or accidents around it and must not count as failures in usage,
sorting or cards. The runtime writes fixed texts for them (``_agent/turns.py``,
``_agent/recovery.py``, ``extensions/shell_approval.py``), so the content tells them apart.

Pure and toolkit-free: the Raw Log, the index extractor (over decoded JSON as well as
records), usage and exports all classify the same way through :func:`tool_outcome`.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """How a tool call ended."""

    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"  # superseded by a steering message before it ran
    CANCELLED = "cancelled"  # the request was cancelled while it ran
    INTERRUPTED = "interrupted"  # the process stopped while it ran; answered on resume
    ABORTED = "aborted"  # the user aborted it (shell approval)

    @property
    def is_failure(self) -> bool:
        """Only a tool that ran and failed is a failure."""
        return self is Outcome.FAILED

    @property
    def label(self) -> str:
        """Words for people: ``✓``, ``✗ failed``, ``⊘ skipped``…"""
        return _LABELS[self]


_LABELS = {
    Outcome.OK: "✓",
    Outcome.FAILED: "✗ failed",
    Outcome.SKIPPED: "⊘ skipped",
    Outcome.CANCELLED: "⊘ cancelled",
    Outcome.INTERRUPTED: "⚡ interrupted",
    Outcome.ABORTED: "⊘ aborted by user",
}

#: The runtime's own texts, exact (whole content) or as the start of the content.
SKIPPED_TEXT = "Superseded by a steering message"
CANCELLED_TEXT = "Request cancelled before tool completion"
INTERRUPTED_PREFIX = "The process stopped while this tool was running"
ABORTED_PREFIX = "Shell command aborted by user"


def _first_text(content: Any) -> str:
    """The text a tool result starts with: a string, or its first text part."""
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable) and not isinstance(content, (bytes, dict)):
        for part in content:
            text = part.get("text") if isinstance(part, dict) else getattr(part, "text", None)
            if isinstance(text, str):
                return text
    return ""


def tool_outcome(success: bool, content: Any) -> Outcome:
    """How a tool call ended, from its result's ``success`` and ``content``.

    ``content`` is a string, a list of content parts (records) or of part dicts (decoded
    JSON); a successful result is always :attr:`Outcome.OK`, whatever it says.
    """
    if success:
        return Outcome.OK
    text = _first_text(content)
    if text == SKIPPED_TEXT:
        return Outcome.SKIPPED
    if text == CANCELLED_TEXT:
        return Outcome.CANCELLED
    if text.startswith(INTERRUPTED_PREFIX):
        return Outcome.INTERRUPTED
    if text.startswith(ABORTED_PREFIX):
        return Outcome.ABORTED
    return Outcome.FAILED
