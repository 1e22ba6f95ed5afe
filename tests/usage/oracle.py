"""An independent computation of usage totals: plain ``sqlite3`` and ``json`` over a store's tables.

Nothing here uses zett-browser: the rules are written out again from their definitions
(docs/usage.md), and cost comes from ``genai_prices.calc_price`` called directly
with each step's exact start time. The tests compare the index's totals with these.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from genai_prices import Usage, calc_price

#: Beyond these a value is not a plausible count or duration (docs/usage.md).
MAX_TOKENS, MAX_DURATION_NS = 10_000_000_000, 10_000_000_000_000_000
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@dataclass
class Expected:
    messages: int = 0
    steps: int = 0
    tool_calls: int = 0
    failed_tool_results: int = 0
    refused_steps: int = 0
    cut_off_steps: int = 0
    compactions: int = 0
    children: int = 0
    tokens: list[int] = field(default_factory=lambda: [0] * 5)
    measured_ns: int = 0
    first: datetime | None = None
    last: datetime | None = None
    cost: Decimal = Decimal(0)
    priced_steps: int = 0
    unpriced_steps: int = 0
    problems: int = 0

    def add(self, other: Expected) -> None:
        for name in (
            "messages steps tool_calls failed_tool_results refused_steps cut_off_steps compactions children"
            " measured_ns cost priced_steps unpriced_steps problems"
        ).split():
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.tokens = [a + b for a, b in zip(self.tokens, other.tokens, strict=True)]
        times = [t for t in (self.first, other.first) if t]
        self.first = min(times) if times else None
        times = [t for t in (self.last, other.last) if t]
        self.last = max(times) if times else None


def _time(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError:
        return None


def _data(message_json: object) -> dict[str, object]:
    try:
        items = json.loads(message_json) if isinstance(message_json, str) else None
        data = items[0]["data"] if isinstance(items, list) and items else None
    except (ValueError, KeyError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def price(provider: str, model: str, tokens: list[int], when: datetime | None) -> Decimal | None:
    """genai-prices, called directly; None when it does not know the provider or model."""
    usage = Usage(
        input_tokens=tokens[0], output_tokens=tokens[1], cache_read_tokens=tokens[2], cache_write_tokens=tokens[3]
    )
    try:
        return calc_price(usage, model, provider_id=provider, genai_request_timestamp=when).total_price
    except (LookupError, ValueError):
        return None


def own(store: Path, session_id: str) -> Expected:
    """The totals of one session's own rows and snapshots."""
    db = sqlite3.connect(store)
    try:
        rows = db.execute(
            f"SELECT role, message_json, started_at, completed_at, duration_ns, {', '.join(TOKENS)}"
            " FROM raw_messages WHERE session_id = ?",
            (session_id,),
        ).fetchall()
        out = Expected()
        out.compactions = db.execute(
            "SELECT count(*) FROM session_snapshots WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        out.children = db.execute(
            "SELECT count(*) FROM agent_sessions WHERE parent_session_id = ? AND id != ?", (session_id, session_id)
        ).fetchone()[0]
    finally:
        db.close()
    for role, message_json, started_text, completed_text, duration, *raw_tokens in rows:
        out.messages += 1
        data = _data(message_json)
        good = [type(value) is int and 0 <= value <= MAX_TOKENS for value in raw_tokens]
        tokens = [value if ok else 0 for value, ok in zip(raw_tokens, good, strict=True)]
        bad = any(value is not None and not ok for value, ok in zip(raw_tokens, good, strict=True))
        bad = bad or tokens[2] > tokens[0] or tokens[3] > tokens[0] or tokens[4] > tokens[1]
        out.tokens = [a + b for a, b in zip(out.tokens, tokens, strict=True)]
        started, completed = _time(started_text), _time(completed_text)
        good_duration = type(duration) is int and 0 <= duration <= MAX_DURATION_NS
        out.measured_ns += duration if good_duration else 0
        missing = role == 3 and (raw_tokens[0] is None or raw_tokens[1] is None)
        out.problems += int(bad or missing or not good_duration or started is None or completed is None)
        for moment in (started, completed):
            if moment is not None:
                out.first = min(out.first, moment) if out.first else moment
        if completed or started:
            out.last = max(out.last, completed or started) if out.last else completed or started  # type: ignore[type-var]
        if role == 3:
            out.steps += 1
            out.tool_calls += len(data.get("tool_calls") or [])  # type: ignore[arg-type]
            stop = data.get("stop")
            reason = stop.get("reason") if isinstance(stop, dict) else None
            out.refused_steps += reason == "refusal"
            out.cut_off_steps += reason in ("max_output", "context_full")
            if any(tokens[:4]) or bad:
                provider, model = data.get("provider"), data.get("model")
                cost = None
                if not bad and isinstance(provider, str) and isinstance(model, str) and provider and model:
                    cost = price(provider, model, tokens, started)
                if cost is None:
                    out.unpriced_steps += 1
                else:
                    out.priced_steps += 1
                    out.cost += cost
        elif role == 4:
            out.failed_tool_results += data.get("success") is False
    return out


def parents(store: Path) -> dict[str, str | None]:
    db = sqlite3.connect(store)
    try:
        return {str(i): p for i, p in db.execute("SELECT id, parent_session_id FROM agent_sessions")}
    finally:
        db.close()


def subtree_ids(store: Path, session_id: str) -> set[str]:
    """The session and every descendant (children: sessions whose parent is it)."""
    links = parents(store)
    found, todo = {session_id}, [session_id]
    while todo:
        current = todo.pop()
        for child, parent in links.items():
            if parent == current and child != current and child not in found:
                found.add(child)
                todo.append(child)
    return found


def subtree(store: Path, session_id: str) -> Expected:
    """The totals over a session's subtree (children counts every descendant)."""
    ids = subtree_ids(store, session_id)
    out = Expected()
    for member in ids:
        part = own(store, member)
        part.children = 0
        out.add(part)
    out.children = len(ids) - 1
    return out
