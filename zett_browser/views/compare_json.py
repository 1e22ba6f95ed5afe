"""Provides a comparison's rows and totals as JSON-ready dicts (``compare --json``, the MCP
server's ``compare_sessions``). Texts from the store are passed through as read: the caller
cleans and bounds them for where they go."""

from __future__ import annotations

from typing import Any

from .compare_align import Row
from .compare_steps import Step
from .compare_totals import RunTotals


def step_json(step: Step | None) -> dict[str, Any] | None:
    """One side of a row as JSON."""
    if step is None:
        return None
    return {
        "kind": step.kind.value,
        "index": step.index,
        "sequence": step.sequence,
        "tool": step.tool,
        "arguments": step.arguments or None,
        "outcome": step.outcome.value if step.outcome is not None else None,
        "stop": step.stop,
        "preview": step.preview,
        "result": step.result or None,
        "input_tokens": step.tokens[0],
        "output_tokens": step.tokens[1],
        "compactions": list(step.compactions),
        "child": step.child,
    }


def row_json(row: Row) -> dict[str, Any]:
    """An aligned row as JSON."""
    return {
        "row": row.index + 1,
        "status": row.status.value,
        "reason": row.reason or None,
        "a": step_json(row.left),
        "b": step_json(row.right),
    }


def totals_json(totals: RunTotals) -> dict[str, Any]:
    """A run's totals as JSON."""
    names = ("input", "output", "cache_read", "cache_write", "reasoning")
    return {
        "messages": totals.messages,
        "user_turns": totals.user_turns,
        "steps": totals.steps,
        "tool_calls": totals.tool_calls,
        "failures": totals.failures,
        "other_outcomes": totals.other_outcomes,
        "stops": totals.stops,
        "tokens": dict(zip(names, totals.tokens, strict=True)),
        "cost_usd": f"{totals.cost_picos / 10**12:.6f}",
        "unpriced_steps": totals.unpriced,
        "duration_ns": totals.duration_ns,
        "compactions": totals.compactions,
        "peak_context": totals.peak_context,
    }
