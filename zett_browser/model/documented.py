"""Provides the documented pydantic records: ``SessionSummary``, ``ContextSnapshot``, ``SessionView``.

They mirror zett-agent 0.2.1's records of the same names and fields. They live apart from
the dataclass records of :mod:`.records` because pydantic is heavy to import: the browser's
first screen uses dataclasses only, and these load (through ``zett_browser.model``'s or
``zett_browser.storage``'s lazy names) when the documented storage API first needs them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from . import records
from .messages import AnyMessage, CompactedMessage, UnreadableMessage
from .records import RawMessageRecord

# RawMessageRecord names its message types in annotations only (:mod:`.records` defines no
# message class, so the command line's labels never load them); pydantic resolves a
# dataclass's annotations in its module's namespace when it first builds SessionView.
vars(records).update(AnyMessage=AnyMessage, CompactedMessage=CompactedMessage, UnreadableMessage=UnreadableMessage)


class SessionSummary(BaseModel):
    """One session's stored identity and display fields, with its message count."""

    # Validators are built at first use, not at import: the browser's start-up never
    # builds these models, and building them costs tens of milliseconds.
    model_config = ConfigDict(defer_build=True)

    session_id: str = Field(description="Stable conversation identifier")
    parent_session_id: str | None = Field(default=None, description="Parent of a delegated session")
    session_type: int = Field(description="Application-defined session type code")
    title: str | None = Field(default=None, min_length=1, max_length=200)
    agent_name: str | None = Field(default=None, min_length=1, max_length=64)
    message_count: int = Field(description="Number of Raw Log messages")
    created_at: datetime
    updated_at: datetime


class ContextSnapshot(BaseModel):
    """One immutable compaction checkpoint: a summary replacing a Raw Log prefix."""

    model_config = ConfigDict(defer_build=True)

    id: str
    session_id: str
    version: int
    compacted_message: CompactedMessage
    compacted_through_sequence: int
    created_at: datetime
    updated_at: datetime


class SessionView(BaseModel):
    """The latest checkpoint and the Raw Log tail after its boundary."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    parent_session_id: str | None = None
    session_type: int
    title: str | None = Field(default=None, min_length=1, max_length=200)
    agent_name: str | None = Field(default=None, min_length=1, max_length=64)
    snapshot: ContextSnapshot | None = None
    raw_tail: SkipValidation[list[RawMessageRecord]] = Field(default_factory=list)

    @property
    def messages(self) -> list[Any]:
        """Active model context: the checkpoint, then the tail, minus excluded messages."""
        checkpoint = [self.snapshot.compacted_message] if self.snapshot is not None else []
        return [
            message
            for message in [*checkpoint, *(record.message for record in self.raw_tail)]
            if message.include_in_messages
        ]
