"""Provides usage totals as JSON values: what ``usage --json`` prints and the MCP server returns.

Plain functions over the model's usage records (:mod:`zett_browser.model.usage`): token
counts by type, the cache hit rate, cost in US dollars as decimal text (None where no
step could be priced), times as ISO 8601. Strings from the store are not touched here:
the callers print them with ``ensure_ascii`` or clean them.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from ..model.usage import ModelCost, SessionUsage, TokenCounts, Totals

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

#: The token columns of a report row's values (shown under ``tokens``).
TOKEN_KEYS = frozenset({"input", "output", "cache_read", "cache_write", "reasoning"})


def tokens_json(tokens: TokenCounts) -> dict[str, int]:
    """Token counts by type."""
    return {
        "input": tokens.input,
        "output": tokens.output,
        "cache_read": tokens.cache_read,
        "cache_write": tokens.cache_write,
        "reasoning": tokens.reasoning,
    }


def cost_json(cost: Decimal | None) -> str | None:
    """A cost as decimal text (None: nothing could be priced)."""
    return str(cost) if cost is not None else None


def row_json(values: Mapping[str, int], tokens: TokenCounts, cost: Decimal | None) -> dict[str, Any]:
    """One report row's sums: counts, ``tokens``, hit rate and cost."""
    data: dict[str, Any] = {name: values[name] for name in values if name not in TOKEN_KEYS}
    data.pop("cost_picos", None)
    data["tokens"] = tokens_json(tokens)
    data["cache_hit_rate"] = tokens.cache_hit_rate
    data["cost_usd"] = cost_json(cost)
    return data


def totals_json(totals: Totals) -> dict[str, Any]:
    """A session's own or subtree totals."""
    return {
        "messages": totals.messages,
        "steps": totals.steps,
        "tool_calls": totals.tool_calls,
        "failed_tool_results": totals.failed_tool_results,
        "skipped_tool_results": totals.skipped_tool_results,
        "cancelled_tool_results": totals.cancelled_tool_results,
        "interrupted_tool_results": totals.interrupted_tool_results,
        "aborted_tool_results": totals.aborted_tool_results,
        "refused_steps": totals.refused_steps,
        "cut_off_steps": totals.cut_off_steps,
        "compactions": totals.compactions,
        "children": totals.children,
        "tokens": tokens_json(totals.tokens),
        "cache_hit_rate": totals.tokens.cache_hit_rate,
        "measured_seconds": totals.measured_ns / 1e9,
        "wall_seconds": totals.wall_seconds,
        "first_time": totals.first_time.isoformat() if totals.first_time else None,
        "last_time": totals.last_time.isoformat() if totals.last_time else None,
        "cost_usd": cost_json(totals.cost),
        "unpriced_steps": totals.unpriced_steps,
        "problems": totals.problems,
    }


def model_json(model: ModelCost) -> dict[str, Any]:
    """Steps, tokens and cost of one provider/model."""
    return {
        "provider": model.provider,
        "model": model.model,
        "steps": model.steps,
        "tokens": tokens_json(model.tokens),
        "cost_usd": cost_json(model.cost),
    }


def session_json(usage: SessionUsage, prices_date: str) -> dict[str, Any]:
    """One session's own and subtree totals and its cost by model (``usage --session --json``)."""
    return {
        "session_id": usage.session_id,
        "failed": usage.failed,
        "own": totals_json(usage.own),
        "subtree": totals_json(usage.subtree),
        "models": [model_json(model) for model in usage.models],
        "own_models": [model_json(model) for model in usage.own_models],
        "prices_date": prices_date,
    }


__all__ = ["TOKEN_KEYS", "cost_json", "model_json", "row_json", "session_json", "tokens_json", "totals_json"]
