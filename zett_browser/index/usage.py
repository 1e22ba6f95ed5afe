"""Provides the reads of the usage totals (issue 12): one session's totals, a sorted tree level, reports.

All reads are plain queries on the index file opened without creating anything; a
missing or damaged index reads as empty (the next sync rebuilds it), never an error.
A session's own and subtree totals are two primary-key reads; cost by model over a
subtree reads the per-day rows of the subtree's sessions (never its messages).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from ..model.frozen import frozen
from ..model.usage import ModelCost, SessionUsage, TokenCounts, Totals, TreeSort
from .db import open_reader
from .pricing import from_picos
from .totals import COUNTS, DAY_COUNTS, LARGEST, SMALLEST, overflow_safe

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

_TOTALS = ", ".join(COUNTS) + ", first_time, last_time"
#: SQL of each tree order over ``t`` (tree_totals) and ``s`` (sessions), largest first.
_ORDER = {
    TreeSort.ACTIVITY: "coalesce(s.updated, s.created, 0)",
    TreeSort.COST: "coalesce(t.cost_picos, 0)",
    TreeSort.TOKENS: "coalesce(t.input + t.output, 0)",
    TreeSort.TIME: "coalesce(t.measured_ns, 0)",
    TreeSort.FAILURES: "coalesce(t.failed_sessions + t.failed_tool_results + t.refused_steps + t.cut_off_steps, 0)",
}
_ROOTS = "(s.parent_id IS NULL OR s.parent_id = '')"
_ORPHANS = (
    "s.parent_id IS NOT NULL AND s.parent_id != '' AND (s.parent_id = s.id"
    " OR NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_id))"
)
_SUBTREE = (
    "WITH RECURSIVE sub(id) AS (SELECT ? UNION"
    " SELECT s.id FROM sessions s JOIN sub ON s.parent_id = sub.id WHERE s.id != s.parent_id)"
)


@contextlib.contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection | None]:
    """A connection to an existing index (None when there is none to read)."""
    db = open_reader(path)  # never through a link
    if db is None:
        yield None
        return
    try:
        yield db
    finally:
        db.close()


def _int(value: Any) -> int:
    """A sum as an int, held within SQLite's integers (a ``total()`` past them is a float)."""
    return max(min(int(value or 0), LARGEST), SMALLEST)


def _time(value: Any) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if isinstance(value, (int, float)) else None


def totals_from(row: Sequence[Any] | None) -> Totals:
    """A :class:`Totals` from the columns ``_TOTALS`` (zeros for None)."""
    if row is None:
        return Totals()
    values = dict(zip(COUNTS, row[: len(COUNTS)], strict=True))
    return Totals(
        messages=values["messages"],
        steps=values["steps"],
        tool_calls=values["tool_calls"],
        failed_tool_results=values["failed_tool_results"],
        refused_steps=values["refused_steps"],
        cut_off_steps=values["cut_off_steps"],
        compactions=values["compactions"],
        children=values["children"],
        tokens=TokenCounts(
            values["input"], values["output"], values["cache_read"], values["cache_write"], values["reasoning"]
        ),
        measured_ns=values["measured_ns"],
        first_time=_time(row[-2]),
        last_time=_time(row[-1]),
        cost=from_picos(values["cost_picos"]) if values["priced_steps"] else None,
        unpriced_steps=values["unpriced_steps"],
        problems=values["problems"],
        skipped_tool_results=values["skipped_tool_results"],
        cancelled_tool_results=values["cancelled_tool_results"],
        interrupted_tool_results=values["interrupted_tool_results"],
        aborted_tool_results=values["aborted_tool_results"],
    )


def _models(db: sqlite3.Connection, session_id: str, subtree: bool) -> tuple[ModelCost, ...]:
    ids = f"{_SUBTREE} SELECT" if subtree else "SELECT"
    where = "session_id IN (SELECT id FROM sub)" if subtree else "session_id = ?"
    rows = overflow_safe(
        db,
        f"{ids} provider, model, {{sums}} FROM usage_days WHERE {where} GROUP BY provider, model"
        " HAVING {sum}(steps) > 0 ORDER BY {sum}(cost_picos) DESC, {sum}(input + output) DESC",
        ["steps", "input", "output", "cache_read", "cache_write", "reasoning", "cost_picos", "priced_steps"],
        (session_id,),
    )
    return tuple(
        ModelCost(
            provider or None,
            model or None,
            _int(steps),
            TokenCounts(_int(i), _int(o), _int(cr), _int(cw), _int(r)),
            from_picos(_int(cost)) if priced else None,
        )
        for provider, model, steps, i, o, cr, cw, r, cost, priced in rows
    )


def read_usage(path: Path, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
    """Own and subtree usage of indexed sessions (ids not indexed are left out)."""
    found: dict[str, SessionUsage] = {}
    with reading(path) as db:
        if db is None:
            return found
        try:
            for session_id in dict.fromkeys(session_ids):
                if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
                    continue
                own = db.execute(f"SELECT {_TOTALS} FROM own_totals WHERE id = ?", (session_id,)).fetchone()
                tree = db.execute(f"SELECT {_TOTALS} FROM tree_totals WHERE id = ?", (session_id,)).fetchone()
                found[session_id] = SessionUsage(
                    session_id,
                    totals_from(own),
                    totals_from(tree),
                    models=_models(db, session_id, subtree=True),
                    failed=bool(own and own[COUNTS.index("failed_sessions")]),
                    own_models=_models(db, session_id, subtree=False),
                )
        except sqlite3.DatabaseError:
            return found  # not an index of this version, or damaged: the next sync rebuilds it
    return found


def index_prices_date(path: Path) -> str | None:
    """The price data date recorded by the build of the index at ``path`` (None: not built yet)."""
    with reading(path) as db:
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'prices_date'").fetchone()
        except sqlite3.DatabaseError:
            return None
    return str(row[0]) if row else None


def complete(path: Path) -> bool:
    """Whether the index at ``path`` finished a build (its totals cover the store as of its last sync)."""
    with reading(path) as db:
        if db is None:
            return False
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
        except sqlite3.DatabaseError:
            return False
    return row is not None and row[0] == "complete"


def ordered_children(path: Path, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
    """Ids of one tree level (roots when ``parent_id`` is None), largest first, then newest."""
    where, params = (_ROOTS, []) if parent_id is None else ("s.parent_id = ? AND s.id != ?", [parent_id, parent_id])
    return _level(path, where, params, order, offset, limit)


def ordered_orphans(path: Path, order: TreeSort, offset: int, limit: int) -> list[str]:
    """Ids of the orphans (parent not in the store, or a self-parent), largest first."""
    return _level(path, _ORPHANS, [], order, offset, limit)


def _level(path: Path, where: str, params: list[Any], order: TreeSort, offset: int, limit: int) -> list[str]:
    sql = (
        f"SELECT s.id FROM sessions s LEFT JOIN tree_totals t ON t.id = s.id WHERE {where}"
        f" ORDER BY {_ORDER[order]} DESC, coalesce(s.updated, s.created, 0) DESC, s.id LIMIT ? OFFSET ?"
    )
    with reading(path) as db:
        if db is None:
            return []
        try:
            return [str(row[0]) for row in db.execute(sql, [*params, max(limit, 0), max(offset, 0)])]
        except sqlite3.DatabaseError:
            return []


@frozen
class ReportRow:
    """One line of a usage report: a label and the sums of the per-day rows under it."""

    key: str
    label: str
    values: dict[str, int]

    @property
    def tokens(self) -> TokenCounts:
        v = self.values
        return TokenCounts(v["input"], v["output"], v["cache_read"], v["cache_write"], v["reasoning"])

    @property
    def cost(self) -> Any:
        return from_picos(self.values["cost_picos"]) if self.values["priced_steps"] else None


_GROUPS = {
    "day": ("d.day", "d.day", "d.day"),
    "model": ("d.provider || '/' || d.model", "d.provider || '/' || d.model", "{sum}(d.cost_picos) DESC"),
    "agent": ("coalesce(s.agent, '')", "coalesce(s.agent, '')", "{sum}(d.cost_picos) DESC"),
    "session": ("d.session_id", "coalesce(s.title, '')", "max(coalesce(s.updated, s.created, 0)) DESC"),
}


def report(path: Path, by: str, since: str | None = None) -> list[ReportRow]:
    """Usage grouped ``by`` day, model, agent or session, from ``since`` (a UTC day) on."""
    with reading(path) as db:
        if db is None:
            return []
        # By day or model: the per-(day, model) sums over all sessions, a few hundred rows. A
        # saturated sum there (past 2**63-1) could differ from summing the per-session rows:
        # then those answer, as they did before the table existed.
        # An index of the format before it (the writer busy elsewhere, so not rebuilt yet) has
        # no such table: the per-session rows answer too.
        if by in ("day", "model"):
            try:
                rows = _report_rows(db, by, "usage_models", since)
            except sqlite3.OperationalError:
                rows = None
            if rows is not None and not any(
                value >= LARGEST or value < 0 for row in rows for value in row.values.values()
            ):
                return rows
        return _report_rows(db, by, "usage_days", since)


def _report_rows(db: sqlite3.Connection, by: str, table: str, since: str | None) -> list[ReportRow]:
    key, label, order = _GROUPS[by]
    # The sessions only where the group or its order reads them (agent, session): joining
    # every per-day row for nothing was a third of `usage --by model` on a 1M store.
    joined = " LEFT JOIN sessions s ON s.id = d.session_id" if "s." in key + label + order else ""
    sql = (
        f"SELECT {key}, min({label}), {{sums}} FROM {table} d{joined}"
        f" WHERE d.day >= ? GROUP BY {key}"
        f"{' HAVING {sum}(d.steps) > 0' if by == 'model' else ''} ORDER BY {order}, {key}"
    )
    rows = overflow_safe(db, sql, [f"d.{column}" for column in DAY_COUNTS], (since or "",))
    return [
        ReportRow(str(row[0]), str(row[1] or ""), dict(zip(DAY_COUNTS, (_int(v) for v in row[2:]), strict=True)))
        for row in rows
    ]


def session_parents(path: Path, session_ids: Sequence[str]) -> dict[str, str | None]:
    """Each indexed session's parent id (None: a root), read on the primary key in batches."""
    found: dict[str, str | None] = {}
    with reading(path) as db:
        if db is None:
            return found
        ids = list(dict.fromkeys(session_ids))
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for session_id, parent_id in db.execute(f"SELECT id, parent_id FROM sessions WHERE id IN ({marks})", batch):
                found[str(session_id)] = str(parent_id) if parent_id is not None else None
    return found
