"""Provides the words of a time-travel context: where it is taken and its size table.

Plain strings, toolkit-free and cleaned (every id and time from the store goes through
:func:`~zett_browser.text.clean`), shared by the context view and ``zett-browser context``.
"""

from __future__ import annotations

from ..text import clean
from .time_travel import CATEGORIES, CHARS_PER_TOKEN, IMAGE_TOKENS, ContextPoint, Estimate

#: How the estimate is made, in one line (the view and the CLI print it under the table).
HOW_ESTIMATED = f"~tokens = chars / {CHARS_PER_TOKEN} (rounded up) + {IMAGE_TOKENS:,} per image; calls, tools as JSON"


def _time(point: ContextPoint) -> str:
    return f"{point.when:%Y-%m-%d %H:%M:%S}" if point.when is not None else "now"


def heading(point: ContextPoint) -> str:
    """``Context of #12 (assistant, 2026-…): what the model had when it produced it``."""
    if point.is_next_step:
        return f"Context after #{point.last}: what load() gives the next step"
    kind = f"{point.row_kind}, " if point.row_kind else ""
    return f"Context of #{point.at} ({kind}{_time(point)}): what the model had then"


def snapshot_line(point: ContextPoint) -> str:
    """Which snapshot was in force, or that none was."""
    snapshot = point.snapshot
    if snapshot is None:
        line = "No snapshot in force: the Raw Log from #1"
    else:
        created = f"{snapshot.created_at:%Y-%m-%d %H:%M:%S}" if snapshot.created_at else "unknown time"
        line = (
            f"Snapshot v{snapshot.version} in force (made {created}): summary of "
            f"#1–#{snapshot.compacted_through_sequence}"
        )
    if point.undated:
        line += f"; {point.undated} snapshot(s) of unknown time left out"
    return clean(line)


def range_line(point: ContextPoint, estimate: Estimate) -> str:
    """What the context holds: the summary, the Raw Log rows and the rows left out."""
    summary = "summary + " if point.snapshot is not None else ""
    tail = estimate.rows - (1 if point.snapshot is not None else 0)
    first, last = point.floor + 1, point.at - 1
    span = f" (#{first}–#{last})" if last >= first else ""
    line = f"{estimate.rows:,} messages: {summary}{tail:,} rows{span}"
    if estimate.skipped:
        line += f"; {estimate.skipped:,} not replayed"
    if estimate.unreadable:
        line += f"; {estimate.unreadable:,} unreadable (load() would fail)"
    return line


def table(estimate: Estimate) -> list[str]:
    """The per-category table: messages, characters, estimated tokens; then the total."""
    lines = [f"{'category':<13} {'messages':>8} {'chars':>11} {'~tokens':>9}"]
    for category in CATEGORIES:
        lines.append(
            f"{category:<13} {estimate.messages[category]:>8,} {estimate.chars[category]:>11,} "
            f"{estimate.tokens(category):>9,}"
        )
    lines.append(f"{'total':<13} {estimate.rows:>8,} {estimate.total_chars:>11,} {estimate.total_tokens:>9,}")
    return lines


def measured_line(point: ContextPoint, estimate: Estimate | None = None) -> str:
    """The recorded ``input_tokens`` of step N next to the estimate (the measured check)."""
    if point.is_next_step:
        return "Measured: none yet (no step has used this context)"
    if point.input_tokens is None:
        what = point.row_kind or "missing"
        return f"Measured: none (#{point.at} is a {what} row; assistant replies record input_tokens)"
    line = f"Measured input_tokens of #{point.at}: {point.input_tokens:,}"
    if estimate is not None and estimate.total_tokens:
        ratio = point.input_tokens / estimate.total_tokens
        offered = point.offered
        missing = [
            what
            for what, found in (
                ("system prompt", offered is not None and offered.system),
                ("tools", offered is not None and offered.traced),
            )
            if not found
        ]
        unsized = f" (+ {', '.join(missing)}: not recorded)" if missing else " (system prompt and tools included)"
        line += f" = {ratio:.2f}× the estimate{unsized}"
    return line


def offered_line(point: ContextPoint) -> str:
    """The step's system prompt rows and the tools offered, or that the store has none."""
    offered = point.offered
    if offered is None:
        return "Offered: not known (no row)"
    if offered.system:
        first, last = offered.system[0][0], offered.system[-1][0]
        rows = f"#{first}" if first == last else f"#{first}–#{last}"
        which = "the last request's" if offered.from_last_request else "this request's"
        prompt = f"system prompt: {which} system rows {rows}"
    else:
        prompt = "system prompt: no system row in this request"
    if offered.traced:
        plain = sum(1 for tool in offered.tools if not tool.server)
        servers = len(offered.tools) - plain
        count = f"{plain} tool{'' if plain == 1 else 's'}" + (f" + {servers} server" if servers else "")
        tools = f"{count} (model_request_trace of #{offered.trace_sequence})"
        if offered.tools:
            tools += f": {offered.names()}"
    else:
        tools = "tools: not recorded (no model_request_trace on this row)"
    return clean(f"Offered: {prompt} · {tools}")


def report(point: ContextPoint, estimate: Estimate) -> list[str]:
    """Every line the CLI prints above the messages."""
    return [
        heading(point),
        snapshot_line(point),
        range_line(point, estimate) + (" (include_in_messages false)" if estimate.skipped else ""),
        offered_line(point),
        "",
        *table(estimate),
        HOW_ESTIMATED,
        measured_line(point, estimate),
    ]


__all__ = [
    "HOW_ESTIMATED",
    "heading",
    "measured_line",
    "offered_line",
    "range_line",
    "report",
    "snapshot_line",
    "table",
]
