"""Provides the usage totals of the side index, kept up to date as rows are indexed (issue 12).

Three tables join ``sessions`` by id:

- ``own_totals``: one row per session with the sums of its own Raw Log rows and snapshots.
- ``tree_totals``: the same sums over the session and every delegated descendant, so a
  node's subtree totals are one row read, never a walk over messages.
- ``usage_days``: sums per (UTC day, session, provider, model): usage by agent or session
  and ``--since`` reports read it instead of messages.
- ``usage_models``: the same sums per (UTC day, provider, model) over every session: the
  reports by day and by model read its few hundred rows instead of summing ``usage_days``'
  one row per session and day (a sort of 20,000 rows of 16 sums on a 1M store: ~30 ms).

Everything is maintained by deltas inside the index writer's transactions:

- new rows of a session add to its own row and to the tree rows of the session and each
  indexed ancestor (followed through ``sessions.parent_id``; a parent that is not
  indexed ends the walk, so an orphan is the root of its own subtree);
- a session that appears takes in the tree rows of its already indexed children (they
  were roots until then) and adds its whole tree row to its ancestors; a session whose
  parent changes leaves its old ancestors (their times are recomputed from their
  children) and joins the new ones;
- a snapshot adds one compaction.

A parent cycle (damaged store) cannot loop: each walk stops at a session it has seen.
The writer skips rows already indexed, so a batch written twice never counts twice.

Sums saturate at SQLite's largest integer (:data:`LARGEST`) instead of failing: every value
a row adds is bounded (:data:`MAX_TOKENS`...), but a cost of 10^10 tokens is ~10^17
picodollars, and enough such steps would pass 2**63-1, which sqlite3 cannot take from
Python and ``sum()`` reports as "integer overflow": one damaged session would stop the
totals of the whole store. Reads over many rows use ``total()`` (a float sum) for the same
reason (:mod:`.usage`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

#: The summed columns of ``own_totals`` and ``tree_totals`` (``failed_sessions`` is 0/1 in
#: ``own_totals``: whether the session ended in a failure).
COUNTS = (
    "messages",
    "steps",
    "tool_calls",
    "failed_tool_results",
    "refused_steps",
    "cut_off_steps",
    "compactions",
    "children",
    "input",
    "output",
    "cache_read",
    "cache_write",
    "reasoning",
    "measured_ns",
    "cost_picos",
    "priced_steps",
    "unpriced_steps",
    "problems",
    "failed_sessions",
    "skipped_tool_results",
    "cancelled_tool_results",
    "interrupted_tool_results",
    "aborted_tool_results",
)
#: Tool results that ended neither ok nor failed (``model.outcomes``): the last columns of
#: :data:`COUNTS`, ``<outcome>_tool_results``, in this order.
OTHER_OUTCOMES = ("skipped", "cancelled", "interrupted", "aborted")
#: The columns of ``usage_days`` (those that rows have; a day has no children).
DAY_COUNTS = COUNTS[:6] + COUNTS[8:18]
_INDEX = {name: number for number, name in enumerate(COUNTS)}
_DAY_INDEX = [_INDEX[name] for name in DAY_COUNTS]
#: The largest and smallest value a summed column holds (SQLite's 64-bit integers).
LARGEST = 2**63 - 1
SMALLEST = -(2**63)


def _table(name: str) -> str:
    counts = ", ".join(f"{column} INTEGER NOT NULL DEFAULT 0" for column in COUNTS)
    return f"CREATE TABLE IF NOT EXISTS {name} (id TEXT PRIMARY KEY, {counts}, first_time REAL, last_time REAL);\n"


SCHEMA = (
    _table("own_totals")
    + _table("tree_totals")
    + "CREATE TABLE IF NOT EXISTS usage_days (day TEXT NOT NULL, session_id TEXT NOT NULL, provider TEXT NOT NULL,"
    + " model TEXT NOT NULL, "
    + ", ".join(f"{column} INTEGER NOT NULL DEFAULT 0" for column in DAY_COUNTS)
    + ", PRIMARY KEY (day, session_id, provider, model));\n"
    + "CREATE INDEX IF NOT EXISTS usage_days_session ON usage_days(session_id);\n"
    + "CREATE TABLE IF NOT EXISTS usage_models (day TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, "
    + ", ".join(f"{column} INTEGER NOT NULL DEFAULT 0" for column in DAY_COUNTS)
    + ", PRIMARY KEY (day, provider, model)) WITHOUT ROWID;\n"
)


class Delta:
    """Sums to add to one totals row (counts in :data:`COUNTS` order, times as min/max).

    Plain slotted classes here, not dataclasses: ``zett-browser usage`` reads the totals in
    a fresh process, and :mod:`dataclasses` (with :mod:`inspect`) costs it ~8 ms (issue 29).
    """

    __slots__ = ("counts", "first", "last")

    def __init__(self, counts: list[int] | None = None, first: float | None = None, last: float | None = None) -> None:
        self.counts = [0] * len(COUNTS) if counts is None else counts
        self.first = first
        self.last = last

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Delta):
            return NotImplemented
        return (self.counts, self.first, self.last) == (other.counts, other.first, other.last)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Delta(counts={self.counts!r}, first={self.first!r}, last={self.last!r})"

    def add(self, other: Delta) -> None:
        self.counts = [mine + theirs for mine, theirs in zip(self.counts, other.counts, strict=True)]
        self.first = _min(self.first, other.first)
        self.last = _max(self.last, other.last)


class RowUsage:
    """The usage facts of one Raw Log row (computed beside the write, in a worker thread):
    its UTC day, provider, model, delta, and the session's "ended in failure" state after
    it (``failed``; None: unchanged)."""

    __slots__ = ("day", "delta", "failed", "model", "provider")

    def __init__(self, day: str, provider: str, model: str, delta: Delta, failed: bool | None) -> None:
        self.day = day
        self.provider = provider
        self.model = model
        self.delta = delta
        self.failed = failed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowUsage):
            return NotImplemented
        mine = (self.day, self.provider, self.model, self.delta, self.failed)
        return mine == (other.day, other.provider, other.model, other.delta, other.failed)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"RowUsage({self.day!r}, {self.provider!r}, {self.model!r}, {self.delta!r}, {self.failed!r})"


def _min(one: float | None, two: float | None) -> float | None:
    return two if one is None else one if two is None else min(one, two)


def _max(one: float | None, two: float | None) -> float | None:
    return two if one is None else one if two is None else max(one, two)


# --- Writes (inside the writer's transaction) ------------------------------------------------


def _saturated(column: str) -> str:
    """SQL of ``column + excluded.column`` held within SQLite's integers (past them the sum
    would turn into a float)."""
    return f"max(min({column} + excluded.{column}, {LARGEST}), {SMALLEST})"


def _clamp(value: int) -> int:
    return LARGEST if value > LARGEST else SMALLEST if value < SMALLEST else value


_COLUMNS = ", ".join(COUNTS)
_ADD = {
    table: (
        f"INSERT INTO {table} (id, {_COLUMNS}, first_time, last_time) VALUES (?{', ?' * (len(COUNTS) + 2)})"
        f" ON CONFLICT(id) DO UPDATE SET {', '.join(f'{c} = {_saturated(c)}' for c in COUNTS)},"
        " first_time = min(coalesce(first_time, excluded.first_time), coalesce(excluded.first_time, first_time)),"
        " last_time = max(coalesce(last_time, excluded.last_time), coalesce(excluded.last_time, last_time))"
    )
    for table in ("own_totals", "tree_totals")
}
_DAY_COLUMNS = ", ".join(DAY_COUNTS)
_ADD_DAY = (
    f"INSERT INTO usage_days (day, session_id, provider, model, {_DAY_COLUMNS}) VALUES (?, ?, ?, ?"
    f"{', ?' * len(DAY_COUNTS)}) ON CONFLICT(day, session_id, provider, model) DO UPDATE SET "
    + ", ".join(f"{c} = {_saturated(c)}" for c in DAY_COUNTS)
)


_ADD_MODEL_DAY = (
    f"INSERT INTO usage_models (day, provider, model, {_DAY_COLUMNS}) VALUES (?, ?, ?{', ?' * len(DAY_COUNTS)})"
    " ON CONFLICT(day, provider, model) DO UPDATE SET " + ", ".join(f"{c} = {_saturated(c)}" for c in DAY_COUNTS)
)


def _values(session_id: str, delta: Delta) -> tuple[Any, ...]:
    return (session_id, *map(_clamp, delta.counts), delta.first, delta.last)


def _parent(db: sqlite3.Connection, session_id: str) -> str | None:
    """The indexed parent of an indexed session (None: a root, an orphan or not indexed)."""
    row = db.execute(
        "SELECT p.id FROM sessions s JOIN sessions p ON p.id = s.parent_id WHERE s.id = ? AND s.parent_id != s.id",
        (session_id,),
    ).fetchone()
    return str(row[0]) if row else None


def ancestors(db: sqlite3.Connection, session_id: str) -> list[str]:
    """The indexed ancestors of a session, nearest first (a cycle ends the walk)."""
    seen = {session_id}
    chain: list[str] = []
    current = _parent(db, session_id)
    while current is not None and current not in seen:
        seen.add(current)
        chain.append(current)
        current = _parent(db, current)
    return chain


def _add_to_tree(db: sqlite3.Connection, session_ids: Iterable[str], delta: Delta) -> None:
    db.executemany(_ADD["tree_totals"], [_values(session_id, delta) for session_id in session_ids])


def _summed(usages: list[RowUsage]) -> Delta:
    """The sum of rows' deltas: each column summed once (a per-row ``Delta.add`` cost most
    of a build's totals work)."""
    if len(usages) == 1:
        one = usages[0].delta
        return Delta(list(one.counts), one.first, one.last)
    counts = [sum(column) for column in zip(*(usage.delta.counts for usage in usages), strict=True)]
    firsts = [usage.delta.first for usage in usages if usage.delta.first is not None]
    lasts = [usage.delta.last for usage in usages if usage.delta.last is not None]
    return Delta(counts, min(firsts, default=None), max(lasts, default=None))


def add_rows(db: sqlite3.Connection, rows: Iterable[tuple[str, RowUsage]]) -> None:
    """Add the usage of newly indexed rows ``(session_id, usage)``, in sequence order."""
    by_session: dict[str, list[RowUsage]] = {}
    by_day: dict[tuple[str, str, str, str], list[RowUsage]] = {}
    failed: dict[str, bool] = {}
    for session_id, usage in rows:
        found = by_session.get(session_id)
        if found is None:
            by_session[session_id] = [usage]
        else:
            found.append(usage)
        key = (usage.day, session_id, usage.provider, usage.model)
        found = by_day.get(key)
        if found is None:
            by_day[key] = [usage]
        else:
            found.append(usage)
        if usage.failed is not None:
            failed[session_id] = usage.failed
    own = {session_id: _summed(usages) for session_id, usages in by_session.items()}
    for session_id, state in failed.items():
        row = db.execute("SELECT failed_sessions FROM own_totals WHERE id = ?", (session_id,)).fetchone()
        own[session_id].counts[_INDEX["failed_sessions"]] = int(state) - (int(row[0]) if row else 0)
    db.executemany(_ADD["own_totals"], [_values(session_id, delta) for session_id, delta in own.items()])
    days = []
    models: dict[tuple[str, str, str], list[int]] = {}
    for key, usages in by_day.items():
        counts = _summed(usages).counts
        day_counts = [counts[number] for number in _DAY_INDEX]
        days.append((*key, *map(_clamp, day_counts)))
        summed = models.setdefault((key[0], key[2], key[3]), [0] * len(DAY_COUNTS))
        for number, value in enumerate(day_counts):
            summed[number] += value
    db.executemany(_ADD_DAY, days)
    db.executemany(_ADD_MODEL_DAY, [(*key, *map(_clamp, counts)) for key, counts in models.items()])
    for session_id, delta in own.items():
        _add_to_tree(db, [session_id, *ancestors(db, session_id)], delta)


def add_compactions(db: sqlite3.Connection, session_ids: Iterable[str]) -> None:
    """Count one compaction (snapshot version) for each session id given."""
    for session_id in session_ids:
        delta = Delta()
        delta.counts[_INDEX["compactions"]] = 1
        db.execute(_ADD["own_totals"], _values(session_id, delta))
        _add_to_tree(db, [session_id, *ancestors(db, session_id)], delta)


def _tree_row(db: sqlite3.Connection, session_id: str) -> Delta:
    sql = f"SELECT {_COLUMNS}, first_time, last_time FROM tree_totals WHERE id = ?"
    row = db.execute(sql, (session_id,)).fetchone()
    if row is None:
        return Delta()
    return Delta(list(row[: len(COUNTS)]), row[-2], row[-1])


def _children_sum(db: sqlite3.Connection, session_id: str) -> tuple[int, Delta]:
    """How many indexed children a session has, and the sum of their tree rows."""
    row = overflow_safe(
        db,
        "SELECT count(*), {sums}, min(t.first_time), max(t.last_time) FROM sessions s"
        " LEFT JOIN tree_totals t ON t.id = s.id WHERE s.parent_id = ? AND s.id != ?",
        [f"t.{c}" for c in COUNTS],
        (session_id, session_id),
    )[0]
    return int(row[0]), Delta([_clamp(int(value or 0)) for value in row[1 : 1 + len(COUNTS)]], row[-2], row[-1])


def overflow_safe(
    db: sqlite3.Connection, sql: str, columns: Iterable[str], params: Iterable[Any] = ()
) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` with ``{sums}`` as ``sum()`` of each column: exact integers, or, when a
    sum would pass SQLite's integers ("integer overflow"), ``total()`` (a float sum) instead.

    ``{sum}`` in ``sql`` (an ORDER BY, a HAVING) names the same function, applied to
    whatever follows it in parentheses.
    """
    columns, params = list(columns), list(params)

    def run(function: str) -> list[tuple[Any, ...]]:
        sums = ", ".join(f"{function}({column})" for column in columns)
        return db.execute(sql.format(sums=sums, sum=function), params).fetchall()

    try:
        return run("sum")
    except sqlite3.OperationalError as error:
        if "integer overflow" not in str(error):
            raise
    return run("total")


def _with_children(delta: Delta, children: int) -> Delta:
    out = Delta(list(delta.counts), delta.first, delta.last)
    out.counts[_INDEX["children"]] += children
    return out


def session_appeared(db: sqlite3.Connection, session_id: str) -> None:
    """A session was indexed for the first time (its ``sessions`` row is written).

    Its indexed children stop being roots: their tree rows join its own; then its whole
    tree row joins its ancestors'.
    """
    count, children = _children_sum(db, session_id)
    children.counts[_INDEX["children"]] += count
    own = Delta()
    own.counts[_INDEX["children"]] = count
    db.execute(_ADD["own_totals"], _values(session_id, own))
    _add_to_tree(db, [session_id], children)
    _join_parent(db, session_id)


def _join_parent(db: sqlite3.Connection, session_id: str) -> None:
    parent = _parent(db, session_id)
    if parent is None:
        return
    one = Delta()
    one.counts[_INDEX["children"]] = 1
    db.execute(_ADD["own_totals"], _values(parent, one))
    chain = [parent, *ancestors(db, parent)]
    if session_id in chain:  # a parent cycle: stop before coming back
        chain = chain[: chain.index(session_id)]
    _add_to_tree(db, chain, _with_children(_tree_row(db, session_id), 1))


def parent_changed(db: sqlite3.Connection, session_id: str, old_parent: str | None) -> None:
    """An indexed session got another parent (called after its ``sessions`` row changed)."""
    if old_parent is not None and old_parent != session_id:
        exists = db.execute("SELECT 1 FROM sessions WHERE id = ?", (old_parent,)).fetchone()
        if exists is not None:
            one = Delta()
            one.counts[_INDEX["children"]] = -1
            db.execute(_ADD["own_totals"], _values(old_parent, one))
            chain = [old_parent, *ancestors(db, old_parent)]
            chain = chain[: chain.index(session_id)] if session_id in chain else chain
            leaving = _with_children(_tree_row(db, session_id), 1)
            leaving.counts = [-value for value in leaving.counts]
            leaving.first = leaving.last = None
            _add_to_tree(db, chain, leaving)
            for ancestor in chain:  # times cannot be subtracted: recompute, nearest first
                _recompute_times(db, ancestor)
    _join_parent(db, session_id)


def _recompute_times(db: sqlite3.Connection, session_id: str) -> None:
    _, children = _children_sum(db, session_id)
    own = db.execute("SELECT first_time, last_time FROM own_totals WHERE id = ?", (session_id,)).fetchone()
    first = _min(own[0] if own else None, children.first)
    last = _max(own[1] if own else None, children.last)
    db.execute("UPDATE tree_totals SET first_time = ?, last_time = ? WHERE id = ?", (first, last, session_id))
