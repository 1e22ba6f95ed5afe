"""The writer's one-statement FTS and docs inserts and the batch sums of the usage totals (issue 29).

Both exist for speed only: the index must hold exactly what a row-by-row insert and a
row-by-row sum held.
"""

from __future__ import annotations

import math
import random
import sqlite3
from pathlib import Path

import pytest

from zett_browser.index import db as index_db
from zett_browser.index import totals, writer
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


def _hostile_doc(rng: random.Random, number: int) -> Doc:
    """A document whose every docs column holds something awkward (or nothing)."""
    reals = [None, 0.0, -0.0, 1e-320, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3, rng.uniform(1.6e9, 1.8e9)]
    reals += [rng.expovariate(1) * 10.0 ** rng.randint(-30, 30)] * 4 + [float("nan"), float("inf"), -float("inf")]
    texts = [None, "", "\x00", "nul \x00 in", "spelt \\u0000", *HOSTILE[1:7], "é" * 3]
    ints = [None, 0, -1, 2**63 - 1, -(2**63), rng.randint(0, 10**12)]
    return Doc(
        session_id=rng.choice(["s", "t"]),
        sequence=number,
        kind=rng.choice(["user", "assistant", "tool", "é\U0001f600"]),
        body=rng.choice(texts) or "",
        time=rng.choice(reals),
        model=rng.choice(texts),
        tools=rng.choice(texts) or "",
        tokens=rng.choice(ints),
        duration_s=rng.choice(reals),
        error=rng.choice([True, False]),
        stop=rng.choice(texts),
        reasoning=rng.choice([True, False]),
        image=rng.choice([True, False]),
        meta=rng.choice(texts) or "",
        tags=rng.choice(texts) or "",
        problem=rng.choice(texts),
        outcome=rng.choice([None, "ok", "error", "denied"]),  # the writer's own words, not stored text
        flags=rng.choice(["", "goal", "resume steering"]),
    )


def _stored_docs(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    rows = db.execute("SELECT *, typeof(time), typeof(duration), typeof(tokens) FROM docs ORDER BY id").fetchall()
    # NaN is stored as NULL either way; compare the rest as the exact values they are
    return [tuple(repr(value) if isinstance(value, float) else value for value in row) for row in rows]


def test_docs_written_in_one_statement_equal_row_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every column, every awkward value: floats bit for bit (SQLite's JSON reads 15 digits of
    a number, so REALs go as text and are checked), NUL texts and 64-bit integers."""
    rng = random.Random(2907)
    batches = [[_hostile_doc(rng, 20 * batch + n) for n in range(1, 21)] for batch in range(60)]
    batches.append([_hostile_doc(rng, 2000 + n) for n in range(1, 500)])
    for batch in batches[:30]:  # batches without NUL, NaN or infinity take the one statement
        for doc in batch:
            for name in ("body", "model", "tools", "stop", "meta", "tags", "problem"):
                value = getattr(doc, name)
                if isinstance(value, str) and ("\x00" in value or "\\u0000" in value):
                    setattr(doc, name, "no nul")
            for name in ("time", "duration_s"):
                if getattr(doc, name) is not None and not math.isfinite(getattr(doc, name)):
                    setattr(doc, name, 2.5)
    (tmp_path / "one").mkdir()
    (tmp_path / "each").mkdir()
    one = _index(tmp_path / "one", ["s", "t"])
    statements: list[int] = []
    checked = writer._exact_reals

    def counted(db: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
        statements.append(len(rows))  # the one-statement path checks its REALs after it
        checked(db, rows)

    monkeypatch.setattr(writer, "_exact_reals", counted)
    for batch in batches:
        write_docs(one, batch)
    assert len(statements) >= 30, "the one-statement path ran"
    monkeypatch.setattr(writer, "_insert_docs", lambda db, rows: db.executemany(writer._DOC_SQL, rows))
    each = _index(tmp_path / "each", ["s", "t"])
    for batch in batches:
        write_docs(each, batch)
    assert _stored_docs(one) == _stored_docs(each)
    assert len(_stored_docs(one)) == 2 + sum(len(batch) for batch in batches)  # and the two sessions


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
