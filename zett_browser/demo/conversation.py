"""Provides the demo's conversation writer: messages with plausible timing and usage, through the storage API.

:class:`Conversation` appends one session's messages with
:meth:`~zett_browser.storage.SQLiteSessionStorage.append`, the call zett-agent's persistence
makes, stamping each row with the conversation's own clock (``NOW``, the demo storage's clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..model import (
    AgentMessage,
    AssistantMessage,
    MessageTiming,
    ModelUsage,
    StopInfo,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from ..storage import SQLiteSessionStorage

SYSTEM_PROMPT = "You are a careful software engineer. Prefer small, verified steps."
#: A model the bundled price table knows, so the demo shows costs (tokens are scripted).
MODEL = ("anthropic", "claude-sonnet-4-5")
#: The time the demo storage stamps on rows; conversations move it forward as they write.
NOW: list[datetime] = [datetime(2026, 1, 1, tzinfo=UTC)]


@dataclass
class Conversation:
    """Writes one session's messages with plausible timing and usage."""

    storage: SQLiteSessionStorage
    session_id: str
    clock: datetime
    parent_session_id: str | None = None
    title: str | None = None
    agent_name: str | None = None
    request_id: str = "req-0001"
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, Any] = field(default_factory=dict)
    context_tokens: int = 900
    #: The demo storage's clock: rows are stamped with the conversation's own time.
    now: list[datetime] = field(default_factory=lambda: NOW)

    async def _append(
        self, message: Any, *, seconds: float = 0.0, usage: ModelUsage | None = None, timing: Any = None
    ) -> int:
        start = self.clock
        self.clock = start + timedelta(seconds=seconds or 0.4)
        self.now[0] = self.clock
        return await self.storage.append(
            self.session_id,
            self.request_id,
            message,
            timing=timing or MessageTiming(start, start + timedelta(seconds=seconds), int(seconds * 1e9)),
            parent_session_id=self.parent_session_id,
            title=self.title,
            agent_name=self.agent_name,
            metadata=self.metadata,
            tags=self.tags,
            usage=usage,
        )

    async def system(self, text: str = SYSTEM_PROMPT) -> int:
        return await self._append(SystemMessage(content=text))

    async def user(self, content: Any) -> int:
        return await self._append(UserMessage(content=content), seconds=0.0)

    async def agent(self, text: str) -> int:
        return await self._append(AgentMessage(content=text))

    async def assistant(
        self,
        text: str = "",
        *,
        reasoning: str | None = None,
        calls: tuple[ToolCall, ...] = (),
        seconds: float = 3.2,
        stop: StopInfo | None = None,
        attributes: dict[str, Any] | None = None,
        replay_blocks: tuple[dict[str, Any], ...] = (),
        output_tokens: int | None = None,
    ) -> int:
        out_tokens = output_tokens or max(12, len(text) // 4 + len(reasoning or "") // 4 + 30 * len(calls))
        reasoning_tokens = len(reasoning or "") // 4
        self.context_tokens += out_tokens + 40
        usage = ModelUsage(
            input_tokens=self.context_tokens,
            output_tokens=out_tokens + reasoning_tokens,
            cache_read_tokens=int(self.context_tokens * 0.8),
            cache_write_tokens=min(self.context_tokens, 120),
            reasoning_tokens=reasoning_tokens,
        )
        start = self.clock
        think = seconds * 0.4 if reasoning else 0.0
        timing = MessageTiming(
            started_at=start,
            completed_at=start + timedelta(seconds=seconds),
            duration_ns=int(seconds * 1e9),
            reasoning_started_at=start + timedelta(seconds=0.3) if reasoning else None,
            reasoning_completed_at=start + timedelta(seconds=0.3 + think) if reasoning else None,
            reasoning_duration_ns=int(think * 1e9) if reasoning else None,
            content_started_at=start + timedelta(seconds=0.3 + think) if text else None,
            content_completed_at=start + timedelta(seconds=seconds) if text else None,
            content_duration_ns=int((seconds - 0.3 - think) * 1e9) if text else None,
        )
        message = AssistantMessage(
            content=text,
            reasoning=reasoning,
            tool_calls=calls,
            provider=MODEL[0],
            model=MODEL[1],
            stop=stop,
            attributes=attributes or {},
            replay_blocks=replay_blocks,
        )
        self.clock = start + timedelta(seconds=seconds)
        return await self._append(message, usage=usage, timing=timing)

    async def tool(self, call: ToolCall, result: Any, *, success: bool = True, seconds: float = 0.8) -> int:
        self.context_tokens += len(str(result)) // 4
        return await self._append(
            ToolMessage(tool_call_id=call.id, name=call.name, content=result, success=success), seconds=seconds
        )


def demo_id(number: int) -> str:
    """The fixed id of the demo's titled session ``number``."""
    return f"0196d3e0-0000-7000-8000-{number:012d}"
