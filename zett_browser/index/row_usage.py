"""Provides the usage facts of one Raw Log row (:func:`row_usage`), computed beside the index
write in a worker thread and summed into the totals tables by :mod:`.totals`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .pricing import step_cost
from .totals import OTHER_OUTCOMES, Delta, RowUsage

TOKEN_COLUMNS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
CUT_OFF = {"max_output", "context_full"}
#: Largest plausible token count of one step and duration of one row (116 days): larger values
#: are bad values, so that sums stay far inside SQLite's 64-bit integers.
MAX_TOKENS = 10**10
MAX_DURATION_NS = 10**16


def _tokens(row: Mapping[str, Any]) -> tuple[list[int], bool]:
    """The five token counts (bad or missing values as 0) and whether any value was bad."""
    values, bad = [], False
    for column in TOKEN_COLUMNS:
        value = row.get(column)
        if value is None:
            values.append(0)
        elif type(value) is int and 0 <= value <= MAX_TOKENS:
            values.append(value)
        else:
            values.append(0)
            bad = True
    # zett-agent's invariants: cache reads/writes are part of the input, reasoning of the output.
    bad = bad or values[2] > values[0] or values[3] > values[0] or values[4] > values[1]
    return values, bad


def row_usage(row: Mapping[str, Any], kind: str, doc_facts: Mapping[str, Any]) -> RowUsage:
    """The usage facts of a Raw Log row, given its kind and decoded facts.

    ``doc_facts``: ``provider``, ``model``, ``calls``, ``stop``, ``error`` and ``outcome`` of
    the decoded message. Only a failed tool result counts as failed (and decides that the
    session ended in a failure); one skipped, cancelled, interrupted or aborted counts under
    its own outcome and leaves the session's failure state as it was. A step with missing
    token counts, any row with a bad token or timing value, counts one problem; its bad
    values count as 0 and a step with bad counts is not priced.
    (Runs once per indexed row: the counts are built as one list, in :data:`COUNTS` order.)
    """
    step = kind == "assistant"
    tokens, bad = _tokens(row)
    missing = step and (row.get("input_tokens") is None or row.get("output_tokens") is None)
    started = row.get("started_at")
    started = started if isinstance(started, datetime) else None
    completed = row.get("completed_at")
    completed = completed if isinstance(completed, datetime) else None
    duration = row.get("duration_ns")
    measured = duration if type(duration) is int and 0 <= duration <= MAX_DURATION_NS else None
    timing_bad = started is None or completed is None or measured is None
    provider, model = doc_facts.get("provider"), doc_facts.get("model")
    provider = provider if isinstance(provider, str) else ""
    model = model if isinstance(model, str) else ""
    failed: bool | None = None
    steps = calls = refused = cut_off = failed_tool = cost_picos = priced = unpriced = 0
    if step:
        stop = doc_facts.get("stop")
        steps, calls = 1, int(doc_facts.get("calls") or 0)
        refused, cut_off = int(stop == "refusal"), int(stop in CUT_OFF)
        failed = bool(doc_facts.get("error")) or bool(refused) or bool(cut_off)
        if any(tokens[:4]) or bad:
            cost = None
            if not bad and provider and model:
                cost = step_cost(provider, model, tokens[0], tokens[1], tokens[2], tokens[3], started)
            cost_picos, priced, unpriced = (cost, 1, 0) if cost is not None else (0, 0, 1)
    outcomes = [0, 0, 0, 0]
    if kind == "tool":
        outcome = doc_facts.get("outcome")
        if outcome in OTHER_OUTCOMES:
            outcomes[OTHER_OUTCOMES.index(outcome)] = 1
        else:
            failed = bool(doc_facts.get("error"))
            failed_tool = int(failed)
    counts = [1, steps, calls, failed_tool, refused, cut_off, 0, 0, *tokens]
    counts += [measured or 0, cost_picos, priced, unpriced, int(bad or missing or timing_bad), 0, *outcomes]
    first = started.timestamp() if started is not None else None
    last = completed.timestamp() if completed is not None else first
    day = _day(started) if started is not None else ""
    return RowUsage(day, provider, model, Delta(counts, first, last), failed)


def _day(moment: datetime) -> str:
    """The UTC day of a time (the storage reads times as UTC already)."""
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return moment.date().isoformat()


__all__ = ["CUT_OFF", "MAX_DURATION_NS", "MAX_TOKENS", "TOKEN_COLUMNS", "row_usage"]
