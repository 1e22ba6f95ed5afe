"""Provides the usage records and the usage interface the UI uses (issue 12).

Totals of one session ("own") and of the session with every delegated descendant
("subtree"): counts, tokens by type, measured time, wall span and cost. They are kept in
the side index and maintained incrementally; the UI sees only :class:`UsageService`
(implemented over the index) and these frozen records, never the index or the storage.

Cost is a :class:`~decimal.Decimal` in US dollars for the steps whose provider and model
the price table knows; ``unpriced_steps`` counts the others (their tokens are in the
totals, their cost is never guessed). ``problems`` counts rows whose token or timing
values were missing or bad: counted, never fatal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Tokens by type, summed over steps."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0

    @property
    def total(self) -> int:
        """Input plus output tokens."""
        return self.input + self.output

    @property
    def cache_hit_rate(self) -> float | None:
        """Share of input tokens read from the cache (None without input tokens)."""
        return self.cache_read / self.input if self.input else None


@dataclass(frozen=True, slots=True)
class Totals:
    """Aggregates over the Raw Log of one session or one subtree."""

    messages: int = 0
    steps: int = 0  # assistant messages
    tool_calls: int = 0
    failed_tool_results: int = 0  # tools that ran and failed (model.outcomes.Outcome.FAILED) only
    refused_steps: int = 0
    cut_off_steps: int = 0
    compactions: int = 0  # snapshot versions
    children: int = 0  # delegated sessions (direct for own, all descendants for subtree)
    tokens: TokenCounts = field(default_factory=TokenCounts)
    measured_ns: int = 0  # sum of the steps' recorded durations
    first_time: datetime | None = None
    last_time: datetime | None = None
    cost: Decimal | None = None  # priced steps only; None when no step could be priced
    unpriced_steps: int = 0  # steps with tokens whose model the price table does not know
    problems: int = 0  # rows with missing or bad usage/timing values
    # Tool results that did not fail though stored as unsuccessful (model.outcomes): skipped by
    # steering, cancelled with their request, interrupted by a dead process, aborted by the user.
    skipped_tool_results: int = 0
    cancelled_tool_results: int = 0
    interrupted_tool_results: int = 0
    aborted_tool_results: int = 0

    @property
    def wall_seconds(self) -> float | None:
        """From the first message's start to the last message's end."""
        if self.first_time is None or self.last_time is None:
            return None
        return (self.last_time - self.first_time).total_seconds()


@dataclass(frozen=True, slots=True)
class ModelCost:
    """Usage and cost of one provider/model within a session or subtree."""

    provider: str | None
    model: str | None
    steps: int
    tokens: TokenCounts
    cost: Decimal | None  # None: the price table does not know this model


@dataclass(frozen=True, slots=True)
class SessionUsage:
    """Own and subtree totals of one session, with cost by model."""

    session_id: str
    own: Totals
    subtree: Totals
    models: tuple[ModelCost, ...] = ()  # cost by model over the subtree (largest first)
    failed: bool = False  # the session ended in a failure (failed last tool result, refusal, error)
    own_models: tuple[ModelCost, ...] = ()  # cost by model of the session's own steps


class TreeSort(Enum):
    """Orders of a tree level (largest first; ties by latest activity)."""

    ACTIVITY = "activity"  # the session's last activity (updated_at)
    COST = "cost"  # subtree cost (priced steps)
    TOKENS = "tokens"  # subtree input + output tokens
    TIME = "time"  # subtree measured time
    FAILURES = "failures"  # subtree failed sessions + failed tool results + refused + cut-off steps


class UsageService(Protocol):
    """What the UI asks of the usage data (the side index)."""

    @property
    def prices_date(self) -> str:
        """The date of the bundled price data, shown next to every cost."""
        ...

    async def usage(self, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
        """Own and subtree usage of these sessions (missing ids are left out)."""
        ...

    async def ordered_children(self, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of one tree level (roots when ``parent_id`` is None), largest first."""
        ...

    async def complete(self) -> bool:
        """Whether the totals cover the whole store (False while the first build runs)."""
        ...

    async def ordered_orphans(self, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of the orphans (parent missing from the store, or itself), largest first."""
        ...


@runtime_checkable
class GroupedUsage(Protocol):
    """Usage over several joined stores: one member's roots in a usage order."""

    async def ordered_roots_in(self, index: int, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of one member's roots, largest first."""
        ...
