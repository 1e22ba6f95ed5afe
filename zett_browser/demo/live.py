"""Provides the live compaction demo: a scripted agent conversation written while you watch.

:class:`LiveDemo` appends one message per step through the public storage API, and when
the model's context (latest summary + tail, estimated at 4 characters a token) passes a
threshold it writes a snapshot, as zett-agent's compaction does: a summary through the
last complete turn. The Raw Log only grows; the boundary moves; the context shrinks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..model import AssistantMessage, CompactedMessage, ModelUsage, ToolCall, ToolMessage, UserMessage
from ..storage import SQLiteSessionStorage

LIVE_SESSION = "0196d3e0-0000-7000-8000-00000000112e"
#: Tokens of the system prompt every step sends before the summary and the tail.
SYSTEM_TOKENS = 120
TOPICS = ["the login flow", "the billing job", "the search index", "the upload limits", "the retry policy"]


def _turns() -> itertools.cycle[tuple[str, str, str, str]]:
    rows = []
    for topic in TOPICS:
        rows.append(
            (
                f"Please review {topic} and fix what is wrong.",
                f"grep -rn TODO src/ --include=*.py | grep '{topic.split()[-1]}'",
                f"src/{topic.split()[-1]}.py:12: TODO handle timeouts\nsrc/{topic.split()[-1]}.py:40: TODO log errors",
                f"I fixed both TODOs in {topic}: timeouts now retry with backoff and errors are logged with context.",
            )
        )
    return itertools.cycle(rows)


@dataclass
class LiveDemo:
    """Writes a conversation step by step into one session of a store."""

    path: str
    threshold_tokens: int = 220
    session_id: str = LIVE_SESSION
    steps: int = 0
    snapshots: int = 0
    boundary: int = 0
    last_sequence: int = 0
    context_chars: int = 0
    summary_chars: int = 0
    topics_done: list[str] = field(default_factory=list)
    _pending: list[object] = field(default_factory=list)
    _turns: itertools.cycle[tuple[str, str, str, str]] = field(default_factory=_turns)
    _storage: SQLiteSessionStorage | None = None
    _turn_ends: list[int] = field(default_factory=list)
    #: The last step's recorded input (the provider's cache holds it) and whether a
    #: compaction since then emptied the cache (the prompt's prefix changed).
    _last_input: int = 0
    _cache_cold: bool = True

    @property
    def context_tokens(self) -> int:
        """Estimated tokens the model sees now: the summary plus the tail."""
        return (self.summary_chars + self.context_chars) // 4

    def describe(self) -> str:
        """One line for the footer."""
        return (
            f"live demo · step {self.steps} · Raw Log {self.last_sequence} messages · "
            f"context ≈{self.context_tokens} tokens (compacts above {self.threshold_tokens}) · "
            f"{self.snapshots} snapshots, boundary #{self.boundary}"
        )

    async def step(self) -> str:
        """Append the next message; compact when the context passes the threshold. Returns what happened."""
        if self._storage is None:
            self._storage = SQLiteSessionStorage(self.path)
        storage = self._storage
        if not self._pending:
            question, command, output, answer = next(self._turns)
            call = ToolCall(f"call_{self.steps}", "bash", {"command": command})
            self._pending = [
                UserMessage(content=question),
                AssistantMessage(content="", reasoning="Look for the TODOs first.", tool_calls=(call,)),
                ToolMessage(tool_call_id=call.id, name="bash", content=output),
                AssistantMessage(content=answer),
            ]
            self.topics_done.append(question)
        message = self._pending.pop(0)
        self.last_sequence = await storage.append(
            self.session_id,
            "live",
            message,
            title="Live compaction demo",
            agent_name="demo",  # type: ignore[arg-type]
            usage=self._usage() if isinstance(message, AssistantMessage) else None,
        )
        self.steps += 1
        text = getattr(message, "content", "") or ""
        self.context_chars += len(text if isinstance(text, str) else "") + 40
        what = f"appended #{self.last_sequence}"
        if not self._pending:
            self._turn_ends.append(self.last_sequence)
            if self.context_tokens > self.threshold_tokens:
                what = await self._compact(storage)
        return what

    def _usage(self) -> ModelUsage:
        """What a provider would record for this step: the context as input, the part
        unchanged since the last step read from its cache (nothing right after a compaction),
        so the ledger's curve and cache drop have something to show."""
        tokens = SYSTEM_TOKENS + self.context_tokens
        cached = 0 if self._cache_cold else min(self._last_input, tokens)
        self._last_input, self._cache_cold = tokens, False
        return ModelUsage(input_tokens=tokens, output_tokens=40, cache_read_tokens=cached)

    async def _compact(self, storage: SQLiteSessionStorage) -> str:
        through = self._turn_ends[-1]
        summary = CompactedMessage(
            content=f"Summary v{self.snapshots + 1} ({datetime.now(UTC):%H:%M:%S}): reviewed "
            + "; ".join(
                topic.removeprefix("Please review ").removesuffix(" and fix what is wrong.")
                for topic in self.topics_done
            )
            + ". All TODOs fixed; timeouts retry with backoff; errors are logged."
        )
        await storage.snapshot(self.session_id, summary, through, self.snapshots)
        self.snapshots += 1
        self.boundary = through
        self.context_chars = 0
        self.summary_chars = len(summary.text)
        self._cache_cold = True
        return f"compacted through #{through} (snapshot v{self.snapshots})"

    async def close(self) -> None:
        """Close the writer's connections."""
        if self._storage is not None:
            await self._storage.close()
