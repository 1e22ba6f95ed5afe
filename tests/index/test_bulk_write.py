"""The writer's one-statement FTS insert and the batch sums of the usage totals (issue 29).

Both exist for speed only: the index must hold exactly what a row-by-row insert and a
row-by-row sum held.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from zett_browser.index import db as index_db
from zett_browser.index import totals
from zett_browser.index.extract import Doc
from zett_browser.index.totals import COUNTS, Delta, RowUsage
from zett_browser.index.writer import write_docs, write_sessions

HOSTILE = [
    "",
    "plain words",
    'quotes " and \\ backslashes \\u0000 \\n',
    "controls \x01\x07\x1b[31mred\x1b[0m \t\r\n\x7f \x85",
    "lone surrogate \ud800 and \udfff",
    "astral \U0001f600 \U0010ffff and \u2028\u2029\ufeff\uffff",
    '[1, 2] {"kind": 3} null true',
    "x" * 100_000,
]


_BODIES = "SELECT body FROM fts JOIN docs ON docs.id = fts.rowid WHERE docs.kind = 'user' ORDER BY docs.sequence"


def _docs(session_id: str, bodies: list[str]) -> list[Doc]:
    return [
        Doc(session_id=session_id, sequence=number, kind="user", body=body) for number, body in enumerate(bodies, 1)
    ]


def _index(tmp_path: Path, sessions: list[str]) -> sqlite3.Connection:
    db = index_db.connect(tmp_path / "index.sqlite3")
    write_sessions(db, [{"id": session_id} for session_id in sessions])
    return db


def _expected(body: str) -> str:
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in body)


def test_hostile_bodies_are_indexed_exactly(tmp_path: Path) -> None:
    rng = random.Random(29)
    alphabet = [chr(code) for code in range(1, 0x300)] + ["\U0001f600", "\ud800", "\ufffd", '"', "\\"]
    bodies = HOSTILE + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(2000)]
    db = _index(tmp_path, ["s"])
    assert write_docs(db, _docs("s", bodies)) == len(bodies)
    stored = db.execute(_BODIES).fetchall()
    assert [body for (body,) in stored] == [_expected(body) for body in bodies]
    assert db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'surrogate'").fetchone()[0] == 1


def test_a_batch_with_nul_is_indexed_whole(tmp_path: Path) -> None:
    """SQLite's JSON reader ends a string at NUL: such a batch goes in row by row."""
    bodies = ["before", "nul \x00 inside, after it: zebra", "\x00", "after"]
    db = _index(tmp_path, ["s"])
    write_docs(db, _docs("s", bodies))
    stored = db.execute(_BODIES).fetchall()
    assert [body for (body,) in stored] == bodies
    assert db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'zebra'").fetchone()[0] == 1


def _usage(rng: random.Random, day: str) -> RowUsage:
    counts = [rng.choice([0, 1, rng.randint(0, 10**10)]) for _ in COUNTS]
    first = rng.choice([None, rng.uniform(0, 1e9)])
    last = rng.choice([None, rng.uniform(0, 1e9)])
    return RowUsage(day, rng.choice(["", "p"]), rng.choice(["", "m"]), Delta(counts, first, last), None)


def test_batch_sums_equal_row_by_row_sums(tmp_path: Path) -> None:
    rng = random.Random(12)
    sessions = ["a", "b", "c"]
    rows = [(rng.choice(sessions), _usage(rng, rng.choice(["2026-01-01", "2026-01-02"]))) for _ in range(500)]
    rows += [("only", _usage(rng, "2026-01-03"))]
    db = _index(tmp_path, [*sessions, "only"])
    db.execute("BEGIN")
    totals.add_rows(db, rows)
    db.execute("COMMIT")
    for session_id in [*sessions, "only"]:
        expected = Delta()
        for _, usage in (row for row in rows if row[0] == session_id):
            expected.add(usage.delta)
        found = db.execute(
            f"SELECT {', '.join(COUNTS)}, first_time, last_time FROM own_totals WHERE id = ?", (session_id,)
        ).fetchone()
        clamp = [min(value, totals.LARGEST) for value in expected.counts]
        assert list(found) == [*clamp, expected.first, expected.last]
    days = db.execute("SELECT day, session_id, provider, model, messages, input FROM usage_days").fetchall()
    for day, session_id, provider, model, messages, tokens in days:
        chosen = [
            usage
            for sid, usage in rows
            if (usage.day, sid, usage.provider, usage.model) == (day, session_id, provider, model)
        ]
        assert messages == sum(usage.delta.counts[0] for usage in chosen)
        assert tokens == min(sum(usage.delta.counts[COUNTS.index("input")] for usage in chosen), totals.LARGEST)
    assert len(days) == len({(u.day, sid, u.provider, u.model) for sid, u in rows})
