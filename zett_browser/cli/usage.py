"""Provides ``zett-browser usage``: exact token usage and cost reports from a store (issue 12).

``usage [STORE] [--session ID] [--by session|agent|model|day] [--since DAY] [--json]
[--index-dir DIR]`` syncs the store's side index (progress on stderr, as ``index`` does),
then prints a table from the index's usage totals: messages, steps, tokens by type, the
cache hit rate and cost, with the price data's date. Cost is "unknown" where a step's
model is not in the price table (its tokens are still counted). ``--session`` prints one
session's own and subtree totals and its cost by model. Errors are one line on stderr
and exit status 2.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from ..index import pricing
from ..index.usage import ReportRow, complete, index_prices_date, read_usage, report
from ..model.usage import SessionUsage, TokenCounts
from ..startup.lifecycle import run_async
from ..storage.errors import StoreError
from ..text import one_line
from ..views.usage_json import row_json, session_json
from .args import OneLineParser, add_index_dir, add_store, closed_pipe
from .sessions import SessionChoiceError, is_full_id, resolve_at
from .synced import synced_index

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

BY = ("day", "session", "agent", "model")
#: Widest label column (session titles and model names are cut to it).
LABEL_WIDTH = 48
#: Widest first column of ``--by session`` (indent, id prefix and label).
SESSION_WIDTH = 64
HEADERS = ("messages", "steps", "input", "output", "cache read", "cache write", "reasoning", "hit", "cost")


def prices_date_of(path: Path) -> str:
    """The price data date the index's build recorded (importing genai-prices' table only if none)."""
    return index_prices_date(path) or pricing.prices_date()


class UsageError(Exception):
    """A one-line error of the ``usage`` command."""


def _since(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return (
            datetime.fromisoformat(text).date() if "T" in text or " " in text else date.fromisoformat(text)
        ).isoformat()
    except ValueError:
        raise UsageError(f"--since wants a day like 2026-01-31, got {text[:40]!r}") from None


def money(cost: Decimal | None, unpriced: int) -> str:
    """A cost for a table: dollars, "unknown" (nothing priced), or dollars + unknown."""
    if cost is None:
        return "unknown" if unpriced else "-"
    shown = f"${cost:,.4f}" if cost >= Decimal("0.01") or cost == 0 else f"${cost:.6f}"
    return f"{shown} + unknown" if unpriced else shown


def _hit(tokens: TokenCounts) -> str:
    rate = tokens.cache_hit_rate
    return "-" if rate is None else f"{rate:.0%}"


def _cells(messages: int, steps: int, tokens: TokenCounts, cost: Decimal | None, unpriced: int) -> list[str]:
    counts = [messages, steps, tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, tokens.reasoning]
    return [f"{value:,}" for value in counts] + [_hit(tokens), money(cost, unpriced)]


def _table(first: str, rows: list[tuple[str, list[str]]], width: int = LABEL_WIDTH) -> str:
    """Rows aligned in columns: the label left (cut to ``width``), the numbers right."""
    header = (first, list(HEADERS))
    widths = [min(width, max(len(label) for label, _ in [header, *rows]))]
    widths += [max(len(cells[number]) for _, cells in [header, *rows]) for number in range(len(HEADERS))]
    lines = []
    for label, cells in [header, *rows]:
        text = one_line(label, width).ljust(widths[0])
        lines.append("  ".join([text, *(cell.rjust(width) for cell, width in zip(cells, widths[1:], strict=True))]))
    return "\n".join(line.rstrip() for line in lines)


def _total(rows: list[ReportRow]) -> ReportRow:
    names = rows[0].values.keys() if rows else ()
    return ReportRow("total", "total", {name: sum(row.values[name] for row in rows) for name in names})


def print_report(path: Path, by: str, since: str | None, as_json: bool, *, store: str | None = None) -> None:
    """The ``--by`` report of the index at ``path`` (by session: nested, and labelled from
    the store ``store`` names, opened for that only)."""
    rows = report(path, by, since)
    if by == "session" and rows:
        from ..storage import SQLSessionStorage

        storage = SQLSessionStorage.open_for_browsing(store)
        try:
            from .usage_sessions import session_lines  # here: only --by session names sessions

            named = session_lines(storage, path, rows)
        finally:
            run_async(storage.close())
        return _print_sessions(named, _total(rows), since, as_json, prices_date_of(path))
    total = _total(rows) if rows else None
    priced_on = prices_date_of(path)
    if as_json:
        document = {
            "by": by,
            "since": since,
            "prices_date": priced_on,
            "rows": [
                {"key": row.key, "label": row.label, **row_json(row.values, row.tokens, row.cost)} for row in rows
            ],
            "total": row_json(total.values, total.tokens, total.cost) if total else None,
        }
        print(json.dumps(document, ensure_ascii=True, indent=1))  # no raw C1/bidi from store text
        return
    if total is None:
        print(f"no usage recorded{f' since {since}' if since else ''}")
        return
    lines = []
    for row in [*rows, total]:
        label = row.key if by != "session" or row is total else f"{row.key} {row.label}".strip()
        if by == "model" and row is not total:
            label = row.key if row.key != "/" else "(no model recorded)"
        lines.append(
            (
                label,
                _cells(row.values["messages"], row.values["steps"], row.tokens, row.cost, row.values["unpriced_steps"]),
            )
        )
    print(_table(by, lines))
    _footer(priced_on, total.values["unpriced_steps"], total.values["problems"])


def _print_sessions(
    named: list[tuple[str, ReportRow]], total: ReportRow, since: str | None, as_json: bool, priced_on: str
) -> None:
    """``--by session``: each session's own usage under its parent, named by the tree's rule."""
    if as_json:
        rows = [
            # "label" as shown (cleaned, with its nesting); "title" as stored (JSON escapes it).
            {"key": row.key, "label": label.strip(), "title": row.label, **row_json(row.values, row.tokens, row.cost)}
            for label, row in named
        ]
        document: dict[str, Any] = {"by": "session", "since": since, "prices_date": priced_on, "rows": rows}
        document["total"] = row_json(total.values, total.tokens, total.cost)
        print(json.dumps(document, ensure_ascii=True, indent=1))
        return
    lines = []
    for label, row in [*named, ("total", total)]:
        v = row.values
        lines.append((label, _cells(v["messages"], v["steps"], row.tokens, row.cost, v["unpriced_steps"])))
    print(_table("session (own usage; delegated sessions under their parent)", lines, width=SESSION_WIDTH))
    _footer(priced_on, total.values["unpriced_steps"], total.values["problems"])


def _footer(priced_on: str, unpriced: int, problems: int) -> None:
    notes = [f"prices: genai-prices data of {priced_on}"]
    if unpriced:
        notes.append(f"{unpriced:,} steps of models without a price (cost unknown, tokens counted)")
    if problems:
        notes.append(f"{problems:,} rows with missing or bad token/timing values")
    print("; ".join(notes))


def print_session(usage: SessionUsage, as_json: bool, priced_on: str) -> None:
    """One session's own and subtree totals, and its cost by model."""
    if as_json:
        print(json.dumps(session_json(usage, priced_on), ensure_ascii=True, indent=1))  # no raw C1/bidi from store text
        return
    print(f"session {one_line(usage.session_id, 80)}{' (ended in a failure)' if usage.failed else ''}")
    rows = []
    for name, totals in (("own", usage.own), ("subtree", usage.subtree)):
        rows.append((name, _cells(totals.messages, totals.steps, totals.tokens, totals.cost, totals.unpriced_steps)))
    print(_table("", rows))
    for name, totals in (("own", usage.own), ("subtree", usage.subtree)):
        wall = f"{totals.wall_seconds:,.1f} s" if totals.wall_seconds is not None else "-"
        ended = [f"{totals.failed_tool_results:,} failed"] + [
            f"{count:,} {outcome}"
            for outcome, count in (
                ("skipped", totals.skipped_tool_results),
                ("cancelled", totals.cancelled_tool_results),
                ("interrupted", totals.interrupted_tool_results),
                ("aborted", totals.aborted_tool_results),
            )
            if count
        ]
        print(
            f"{name}: {totals.tool_calls:,} tool call{'' if totals.tool_calls == 1 else 's'} ({', '.join(ended)}), "
            f"{totals.refused_steps:,} refused, {totals.cut_off_steps:,} cut off, {totals.compactions:,} compactions, "
            f"{totals.children:,} delegated, measured {totals.measured_ns / 1e9:,.1f} s, wall {wall}"
        )
    if usage.models:
        print()
        models = [
            (
                "/".join(filter(None, (model.provider, model.model))) or "(no model recorded)",
                _cells(
                    0,
                    model.steps,
                    model.tokens,
                    model.cost,
                    model.steps if model.cost is None and model.tokens.total else 0,
                ),
            )
            for model in usage.models
        ]
        print(_table("subtree by model", [(label, ["-", *cells[1:]]) for label, cells in models]))
    _footer(priced_on, usage.subtree.unpriced_steps, usage.subtree.problems)


def main_usage(argv: list[str]) -> int:
    """Print token usage and cost of a store, by day, session, agent or model, or of one session."""
    parser = OneLineParser(prog="zett-browser usage", description=main_usage.__doc__)
    add_store(parser)
    parser.add_argument("--session", default=None, metavar="ID", help="one session: own and subtree totals")
    parser.add_argument("--by", choices=BY, default="day", help="group the report (default: day)")
    parser.add_argument("--since", default=None, metavar="DAY", help="only usage on or after this UTC day (YYYY-MM-DD)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_index_dir(parser)
    args = parser.parse_args(argv)
    try:
        since = _since(args.since)
        if args.session is not None and since is not None:
            raise UsageError("--since does not apply to --session (its totals cover the whole session)")
        if args.session is not None and not is_full_id(args.session):
            args.session = resolve_at(args.store, args.session)  # a unique prefix names its session
        path, skipped = synced_index(args.store, args.index_dir, show=True)
        if skipped or not complete(path):
            print("zett-browser: another process is updating the index; figures may be incomplete", file=sys.stderr)
        if args.session is not None:
            found = read_usage(path, [args.session])
            if args.session not in found:
                raise UsageError(f"no session {one_line(args.session, 80)!r} in this store")
            print_session(found[args.session], args.json, prices_date_of(path))
        else:
            print_report(path, args.by, since, args.json, store=args.store)
    except BrokenPipeError:
        return closed_pipe()
    except (UsageError, StoreError, OSError, sqlite3.Error, SessionChoiceError) as error:
        print(f"zett-browser: {one_line(error, 300)}", file=sys.stderr)
        return 2
    return 0
