"""Provides the records of the time-travel context: a Raw Log row with its stored envelope.

The context view and ``zett-browser context`` export exactly what zett-agent stores, so
the storage hands the envelope text (``message_json``) back beside the decoded record;
re-encoding a decoded message could only lose what a newer writer added.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import RawMessageRecord


@dataclass(frozen=True, slots=True)
class ContextRow:
    """One Raw Log row of a context: the decoded record and its envelope as stored."""

    record: RawMessageRecord
    #: ``message_json`` exactly as stored (a JSON list holding one envelope), or None
    #: when the column could not be read as text.
    envelope: str | None


__all__ = ["ContextRow"]
