"""Provides the usage records and the usage interface the UI uses (issue 12).

Totals of one session ("own") and of the session with every delegated descendant
("subtree"): counts, tokens by type, measured time, wall span and cost. They are kept in
the side index and maintained incrementally; the UI sees only :class:`UsageService`
(implemented over the index; in :mod:`.usage_service`: ``zett-browser usage`` builds these
records without the typing module the protocols need) and these frozen records, never the index or the storage.

Cost is a :class:`~decimal.Decimal` in US dollars for the steps whose provider and model
the price table knows; ``unpriced_steps`` counts the others (their tokens are in the
totals, their cost is never guessed). ``problems`` counts rows whose token or timing
values were missing or bad: counted, never fatal.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import Enum

from .frozen import frozen


@frozen
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


@frozen
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
    tokens: TokenCounts = TokenCounts()
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


@frozen
class ModelCost:
    """Usage and cost of one provider/model within a session or subtree."""

    provider: str | None
    model: str | None
    steps: int
    tokens: TokenCounts
    cost: Decimal | None  # None: the price table does not know this model


@frozen
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
