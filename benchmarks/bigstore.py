"""Provides a fast generator of large stores in zett-agent's exact format.

Rows are bulk-inserted with the standard library's sqlite3 into the schema zett-browser
declares (identical to zett-agent's), with ``message_json`` produced by the same envelope
codec and timestamps in SQLAlchemy's SQLite text format, so zett-agent reads the result.

Shape of a store of N messages: one session of ``big`` messages (the deep Raw Log), one
root with ``fanout`` delegated children, every tenth session compacted (a snapshot per
40 messages), about one tool output in 500 of 100 KB, and the rest spread over ``sessions``
sessions (a third of them delegated children of earlier ones).

    python benchmarks/bigstore.py OUT.sqlite3 --messages 1000000 --sessions 10000
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine

from zett_browser.model import AssistantMessage, CompactedMessage, ToolCall, ToolMessage, UserMessage
from zett_browser.storage.codec import encode_messages
from zett_browser.storage.ids import new_uuid7
from zett_browser.storage.schema import metadata

WORDS = (
    "the agent reads the file and runs the tests then edits the function to handle the retry "
    "case before checking the logs for errors in the payment client and the ledger service"
).split()
BIG_SESSION = "00000000-0000-7000-8000-00000000b16b"
FANOUT_ROOT = "00000000-0000-7000-8000-0000000fa40c"
HEAVY_SESSION = "00000000-0000-7000-8000-0000000eea71"
#: A 100 KB tool output (102,400 characters, 1,024 lines), as in the big stores.
HUGE_OUTPUT = ("x" * 99 + "\n") * 1024
RAW_SQL = (
    "insert into raw_messages (id, session_id, request_id, sequence, role, content, tool_name, message_json,"
    " metadata_json, tags_json, started_at, completed_at, duration_ns, reasoning_started_at,"
    " reasoning_completed_at, reasoning_duration_ns, content_started_at, content_completed_at,"
    " content_duration_ns, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
    " reasoning_tokens, created_at, updated_at) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def _stamp(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _messages(rng: random.Random, count: int) -> Iterator[tuple[int, object, str, str | None, tuple[int, ...] | None]]:
    """Yield (kind, message, content, tool_name, usage) cycling user → assistant → tool → assistant."""
    for index in range(count):
        phase = index % 4
        if phase == 0:
            text = _text(rng, rng.randint(10, 60))
            yield 2, UserMessage(content=text), text, None, None
        elif phase == 1:
            call = ToolCall(f"call_{index}", "read_file", {"path": f"src/module_{index % 97}.py"})
            reasoning = _text(rng, rng.randint(20, 80))
            yield (
                3,
                AssistantMessage(content="", reasoning=reasoning, tool_calls=(call,), provider="p", model="m"),
                "",
                None,
                (
                    1000 + index % 5000,
                    40,
                    800,
                    0,
                    20,
                ),
            )
        elif phase == 2:
            huge = rng.random() < 0.002 * 2
            body = HUGE_OUTPUT if huge else _text(rng, rng.randint(40, 200))
            yield (
                4,
                ToolMessage(tool_call_id=f"call_{index - 1}", name="read_file", content=body),
                body,
                "read_file",
                None,
            )
        else:
            text = _text(rng, rng.randint(20, 120))
            yield (
                3,
                AssistantMessage(content=text, provider="p", model="m"),
                text,
                None,
                (1200 + index % 5000, 90, 900, 0, 0),
            )


def _new_store(path: Path) -> sqlite3.Connection:
    """A new file with zett-agent's tables, opened for fast bulk writing (WAL, no syncs)."""
    if path.exists():
        raise FileExistsError(path)
    engine = create_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    engine.dispose()
    db = sqlite3.connect(path)
    db.execute("pragma journal_mode=wal")
    db.execute("pragma synchronous=off")
    return db


def build(path: Path, *, messages: int, sessions: int, big: int, fanout: int, seed: int = 7) -> None:
    """Write a new store at ``path`` with about ``messages`` messages."""
    db = _new_store(path)
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    plan: list[tuple[str, str | None, int]] = [(BIG_SESSION, None, big), (FANOUT_ROOT, None, 8)]
    plan += [(new_uuid7(), FANOUT_ROOT, 4) for _ in range(fanout)]
    remaining = max(0, messages - big - 8 - 4 * fanout)
    others = max(1, sessions - len(plan))
    ids: list[str] = []
    for number in range(others):
        parent = rng.choice(ids) if ids and number % 3 == 2 else None
        session_id = new_uuid7()
        ids.append(session_id)
        plan.append((session_id, parent, remaining // others + (1 if number < remaining % others else 0)))
    rng.shuffle(plan)
    clock = start
    session_rows = []
    for number, (session_id, parent, count) in enumerate(plan):
        created = clock
        batch = []
        snapshots: list[tuple[object, ...]] = []
        for sequence, (kind, message, content, tool_name, usage) in enumerate(_messages(rng, count), start=1):
            clock += timedelta(milliseconds=rng.randint(50, 4000))
            stamp = _stamp(clock)
            batch.append(
                (
                    new_uuid7(),
                    session_id,
                    f"req-{sequence // 4}",
                    sequence,
                    kind,
                    content,
                    tool_name,
                    encode_messages([message]),
                    "{}",
                    "{}",
                    stamp,
                    stamp,
                    1_000_000,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    *(usage or (None,) * 5),
                    stamp,
                    stamp,
                )
            )
            if number % 10 == 0 and sequence % 40 == 0 and sequence < count:
                summary = CompactedMessage(content=f"Summary through {sequence}: " + _text(rng, 60))
                snapshots.append(
                    (new_uuid7(), session_id, len(snapshots) + 1, sequence, encode_messages([summary]), stamp, stamp)
                )
        db.executemany(RAW_SQL, batch)
        db.executemany("insert into session_snapshots values (?,?,?,?,?,?,?)", snapshots)
        title = None if parent else _text(rng, 5).capitalize()
        session_rows.append(
            (session_id, parent, 0, title, "coder" if not parent else "researcher", _stamp(created), _stamp(clock))
        )
        if len(session_rows) >= 1000:
            db.executemany("insert into agent_sessions values (?,?,?,?,?,?,?)", session_rows)
            session_rows.clear()
            db.commit()
    db.executemany("insert into agent_sessions values (?,?,?,?,?,?,?)", session_rows)
    db.commit()
    db.execute("pragma wal_checkpoint(truncate)")
    db.execute("analyze")
    db.commit()
    db.close()


def build_heavy(path: Path, *, messages: int = 200) -> None:
    """Write a store of one root session whose every message is a 100 KB tool output.

    The worst page the Raw Log can meet: 50 messages of 100 KB each (5 MB a page).
    """
    if path.exists():
        raise FileExistsError(path)
    engine = create_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    engine.dispose()
    db = sqlite3.connect(path)
    clock = datetime(2026, 1, 1, tzinfo=UTC)
    created = _stamp(clock)
    batch = []
    for sequence in range(1, messages + 1):
        clock += timedelta(seconds=1)
        stamp = _stamp(clock)
        message = ToolMessage(tool_call_id=f"call_{sequence}", name="read_file", content=HUGE_OUTPUT)
        batch.append(
            (new_uuid7(), HEAVY_SESSION, f"req-{sequence}", sequence, 4, HUGE_OUTPUT, "read_file")
            + (encode_messages([message]), "{}", "{}", stamp, stamp, 1_000_000)
            + (None,) * 11
            + (stamp, stamp)
        )
    db.executemany(RAW_SQL, batch)
    db.execute(
        "insert into agent_sessions values (?,?,?,?,?,?,?)",
        (HEAVY_SESSION, None, 0, "Every message a 100 KB tool output", "coder", created, _stamp(clock)),
    )
    db.commit()
    db.execute("analyze")
    db.commit()
    db.close()


COMPACTED_SESSION = "00000000-0000-7000-8000-0000000c0a7c"
SHORT_SESSION = "00000000-0000-7000-8000-00000005401e"


def build_compacted(path: Path, *, messages: int = 100_000, every: int = 40, seed: int = 11) -> None:
    """Write a store of one root session of ``messages`` messages compacted every ``every``.

    The long compacted session of issue 13 (100,000 messages, 2,500 snapshot versions):
    each summary is written after the turn it closes, as zett-agent's compaction does, so
    the first recorded step after it comes later in time. Assistant steps carry usage
    whose ``input_tokens`` grow with the tail and fall back after each snapshot.
    """
    db = _new_store(path)
    rng = random.Random(seed)
    clock = datetime(2026, 2, 1, tzinfo=UTC)
    created = _stamp(clock)
    batch: list[tuple[object, ...]] = []
    snapshots: list[tuple[object, ...]] = []
    for sequence, (kind, message, content, tool_name, usage) in enumerate(_messages(rng, messages), start=1):
        clock += timedelta(milliseconds=rng.randint(50, 2000))
        stamp = _stamp(clock)
        if usage is not None:
            # The context grows through the tail and falls after each snapshot, where the
            # provider's cache misses once (cache_read 0 on the first two steps).
            tail = (sequence - 1) % every + 1
            usage = (2_000 + 150 * tail, usage[1], 1_400 + 140 * tail if tail > 2 else 0, usage[3], usage[4])
        batch.append(
            (new_uuid7(), COMPACTED_SESSION, f"req-{sequence // 4}", sequence, kind, content, tool_name)
            + (encode_messages([message]), "{}", "{}", stamp, stamp, 1_000_000)
            + (None,) * 6
            + (usage or (None,) * 5)
            + (stamp, stamp)
        )
        if sequence % every == 0:
            clock += timedelta(milliseconds=5)
            summary = CompactedMessage(content=f"Summary through {sequence}: " + _text(rng, 60))
            snapshot_stamp = _stamp(clock)
            snapshots.append(
                (new_uuid7(), COMPACTED_SESSION, len(snapshots) + 1, sequence)
                + (encode_messages([summary]), snapshot_stamp, snapshot_stamp)
            )
        if len(batch) >= 5_000:
            db.executemany(RAW_SQL, batch)
            batch.clear()
    # A short root beside it, so opening the long one can be timed from another session.
    for sequence, (kind, message, content, tool_name, usage) in enumerate(_messages(rng, 4), start=1):
        batch.append(
            (new_uuid7(), SHORT_SESSION, "req-0", sequence, kind, content, tool_name)
            + (encode_messages([message]), "{}", "{}", created, created, 1_000_000)
            + (None,) * 6
            + (usage or (None,) * 5)
            + (created, created)
        )
    db.executemany(RAW_SQL, batch)
    db.executemany("insert into session_snapshots values (?,?,?,?,?,?,?)", snapshots)
    db.execute(
        "insert into agent_sessions values (?,?,?,?,?,?,?)",
        (SHORT_SESSION, None, 0, "A short session", "coder", created, created),
    )
    db.execute(
        "insert into agent_sessions values (?,?,?,?,?,?,?)",
        (COMPACTED_SESSION, None, 0, "Long session compacted every 40 messages", "coder", created, _stamp(clock)),
    )
    db.commit()
    db.execute("pragma wal_checkpoint(truncate)")
    db.execute("analyze")
    db.commit()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--big", type=int, default=2_000, help="messages in the deepest session")
    parser.add_argument("--fanout", type=int, default=1_000, help="children of one root")
    args = parser.parse_args()
    started = time.perf_counter()
    build(args.out, messages=args.messages, sessions=args.sessions, big=args.big, fanout=args.fanout)
    size = args.out.stat().st_size / 1e6
    print(f"wrote {args.out} ({size:.0f} MB) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
