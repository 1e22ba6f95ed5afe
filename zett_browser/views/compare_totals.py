"""Provides what a run adds up to as ``compare`` reads it: the deltas that decide which run did better.

Counted step by step (:meth:`RunTotals.add`) as the steps are read; each model step's cost
is noted (:meth:`RunTotals.charge`) and priced later (:meth:`RunTotals.price`), with its own
counts at its own start time, as the usage totals price it
(:func:`~zett_browser.index.pricing.step_cost`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from ..index.pricing import step_cost
from ..model.outcomes import Outcome


class Counted(Protocol):
    """What is counted of a step (:class:`~.compare_steps.Step` is one)."""

    @property
    def kind(self) -> str: ...  # "user", "model" or "tool"

    @property
    def stop(self) -> str | None: ...

    @property
    def tokens(self) -> tuple[int, int, int, int, int]: ...

    @property
    def context(self) -> int: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def compactions(self) -> tuple[int, ...]: ...


#: Steps are priced at the end (:meth:`RunTotals.price`: the price table takes up to a second
#: to load, never before the first screen), or once this many distinct ones wait.
PRICE_BATCH = 50_000


@dataclass
class RunTotals:
    """What a run added up to: the deltas that decide which run was better."""

    steps: int = 0
    user_turns: int = 0
    tool_calls: int = 0
    failures: int = 0
    #: Tool calls that ended otherwise (skipped, cancelled, interrupted, aborted): not failures.
    other_outcomes: int = 0
    stops: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    cost_picos: int = 0
    unpriced: int = 0
    duration_ns: int = 0
    compactions: int = 0
    messages: int = 0
    peak_context: int = 0
    #: Steps still to price: (provider, model, input, output, cache read, cache write, start) -> steps.
    to_price: Counter[tuple[str, str, int, int, int, int, datetime | None]] = field(default_factory=Counter)

    def charge(
        self, provider: str | None, model: str | None, tokens: tuple[int, ...], started: datetime | None
    ) -> None:
        """Note a model step's cost, priced later (:meth:`price`); one without tokens costs nothing."""
        if not any(tokens[:4]):
            return
        if not provider or not model:
            self.unpriced += 1
            return
        self.to_price[(provider, model, tokens[0], tokens[1], tokens[2], tokens[3], started)] += 1
        if len(self.to_price) >= PRICE_BATCH:
            self.price()

    def price(self) -> None:
        """Price the steps noted so far (:func:`~zett_browser.index.pricing.step_cost`; loads the table)."""
        for (provider, model, given, made, read, written, started), steps in self.to_price.items():
            cost = step_cost(provider, model, given, made, read, written, started)
            if cost is None:
                self.unpriced += steps
            else:
                self.cost_picos += cost * steps
        self.to_price.clear()

    def add(self, step: Counted) -> None:
        """Count one finished step."""
        self.compactions += len(step.compactions)
        kind = str(step.kind)
        if kind == "user":
            self.user_turns += 1
        elif kind == "model":
            self.steps += 1
            self.stops += step.stop is not None
            self.tokens = [total + value for total, value in zip(self.tokens, step.tokens, strict=True)]
            self.peak_context = max(self.peak_context, step.context)
        else:
            self.tool_calls += 1
            if step.outcome is not None and step.outcome.is_failure:
                self.failures += 1
            elif step.outcome is not None and step.outcome is not Outcome.OK:
                self.other_outcomes += 1


__all__ = ["PRICE_BATCH", "Counted", "RunTotals"]
