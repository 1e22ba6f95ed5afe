"""Provides a fast generator of large stores in zett-agent's exact format.

Rows are bulk-inserted with the standard library's sqlite3 into the schema zett-browser
declares (identical to zett-agent's), with ``message_json`` produced by the same envelope
codec and timestamps in SQLAlchemy's SQLite text format, so zett-agent reads the result.

Shape of a store of N messages: one session of ``big`` messages (the deep Raw Log,
compacted every 200 messages), one root with ``fanout`` delegated children, every tenth
session compacted (a snapshot per 40 messages), about one tool output in 250 of 100 KB, and
the rest spread over ``sessions`` sessions (a third of them delegated children of earlier
ones).

What :func:`build` writes looks like real use (issue 29): words drawn from a Zipf-like
vocabulary (a few very common words, a long tail of rare ones: :data:`REALISTIC`), message
lengths from a log-normal spread (most short, some long), and each session's steps priced
by a model the price table knows (a few sessions run a local model it does not). The
compacted store of issue 13 and the compare benchmark keep the plain words
(:data:`PLAIN`), so their figures stay comparable across runs.

    python benchmarks/bigstore.py OUT.sqlite3 --messages 1000000 --sessions 10000
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
#: Where ``run.py`` builds its stores once and the other benchmarks find them.
CACHE = Path.home() / ".cache" / "zett-browser-bench"
#: Each store's cached file name. A store whose shape changes gets a new name, so that an old
#: cache is never measured as the new shape ("-v3": the realistic text of issue 29).
CACHE_NAMES = {"10k": "10k-v3", "100k": "100k-v3", "1M": "1M-v3", "5M": "5M-v3"}


def cached(name: str, directory: Path = CACHE) -> Path:
    """The cached file of the store ``name`` ("10k", "1M"...) in ``directory``."""
    return directory / f"{CACHE_NAMES.get(name, name)}.sqlite3"


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


def _tail_words(count: int, seed: int = 29) -> list[str]:
    """``count`` distinct made-up words (syllables of letters), the vocabulary's rare tail."""
    rng = random.Random(seed)
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", ["", "", "n", "r", "s", "l", "k"]
    seen = set(WORDS)
    words: list[str] = []
    while len(words) < count:
        word = "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


@dataclass(frozen=True)
class Words:
    """How generated text is made: which words, and how many per message part.

    ``vocabulary`` is ranked (most common first) and drawn with Zipf weights 1/rank^``exponent``
    when ``exponent`` is set, uniformly otherwise. A part's length is uniform in ``spans[part]``
    (plain) or log-normal around it (median, spread; realistic), clipped to ``limit`` words.
    """

    vocabulary: tuple[str, ...]
    spans: dict[str, tuple[float, float]]
    exponent: float | None = None
    limit: int = 4_000
    models: tuple[tuple[str, str, float], ...] = (("p", "m", 1.0),)

    def __post_init__(self) -> None:
        weights = [1 / rank**self.exponent for rank in range(1, len(self.vocabulary) + 1)] if self.exponent else None
        object.__setattr__(self, "_cumulative", list(itertools.accumulate(weights)) if weights else None)

    def count(self, rng: random.Random, part: str) -> int:
        low, high = self.spans[part]
        if self.exponent is None:
            return rng.randint(int(low), int(high))
        return max(1, min(self.limit, round(rng.lognormvariate(math.log(low), high))))

    def text(self, rng: random.Random, part: str) -> str:
        count = self.count(rng, part)
        cumulative = self._cumulative  # type: ignore[attr-defined]
        if cumulative is None:
            return " ".join(rng.choice(self.vocabulary) for _ in range(count))
        return " ".join(rng.choices(self.vocabulary, cum_weights=cumulative, k=count))

    def model(self, rng: random.Random) -> tuple[str, str]:
        """A session's provider and model, drawn by the models' shares."""
        provider, model, _ = rng.choices(self.models, weights=[share for *_, share in self.models])[0]
        return provider, model


#: The words the stores had before issue 29: 24 words ("the" 7 times in 32), each in most
#: messages; uniform lengths.
PLAIN = Words(tuple(WORDS), {"user": (10, 60), "reasoning": (20, 80), "tool": (40, 200), "reply": (20, 120)})
#: Realistic text: the plain words as the common head of a Zipf-like vocabulary of 100,000
#: words (exponent 1.05: "the" is ~1 word in 10, the rarest appear a few dozen times in 1M
#: messages), log-normal lengths (median, sigma: most messages short, a few thousands of
#: words), and models the price table knows, with 5 % of sessions on a local model it does not.
REALISTIC = Words(
    tuple(dict.fromkeys(WORDS)) + tuple(_tail_words(100_000)),
    {"user": (24, 0.9), "reasoning": (40, 0.8), "tool": (70, 1.1), "reply": (50, 0.9)},
    exponent=1.05,
    models=(
        ("anthropic", "claude-sonnet-4-5", 0.40),
        ("anthropic", "claude-haiku-4-5", 0.20),
        ("openai", "gpt-5", 0.15),
        ("openai", "gpt-4o-mini", 0.10),
        ("google", "gemini-2.5-flash", 0.10),
        ("local", "llama-3.1-8b", 0.05),
    ),
)


def _messages(
    rng: random.Random, count: int, words: Words = PLAIN, model: tuple[str, str] = ("p", "m")
) -> Iterator[tuple[int, object, str, str | None, tuple[int, ...] | None]]:
    """Yield (kind, message, content, tool_name, usage) cycling user → assistant → tool → assistant."""
    provider, name = model
    for index in range(count):
        phase = index % 4
        if phase == 0:
            text = words.text(rng, "user")
            yield 2, UserMessage(content=text), text, None, None
        elif phase == 1:
            call = ToolCall(f"call_{index}", "read_file", {"path": f"src/module_{index % 97}.py"})
            reasoning = words.text(rng, "reasoning")
            yield (
                3,
                AssistantMessage(content="", reasoning=reasoning, tool_calls=(call,), provider=provider, model=name),
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
            body = HUGE_OUTPUT if huge else words.text(rng, "tool")
            yield (
                4,
                ToolMessage(tool_call_id=f"call_{index - 1}", name="read_file", content=body),
                body,
                "read_file",
                None,
            )
        else:
            text = words.text(rng, "reply")
            yield (
                3,
                AssistantMessage(content=text, provider=provider, model=name),
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


#: The deep session is compacted every this many messages (500 versions at 100,000).
BIG_EVERY = 200


def build(
    path: Path,
    *,
    messages: int,
    sessions: int,
    big: int,
    fanout: int,
    seed: int = 7,
    words: Words = REALISTIC,
    big_every: int = BIG_EVERY,
) -> None:
    """Write a new store at ``path`` with about ``messages`` messages (the deep session
    compacted every ``big_every`` messages; 0: never)."""
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
        every = big_every if session_id == BIG_SESSION else 40 if number % 10 == 0 else 0
        steps = _messages(rng, count, words, words.model(rng))
        for sequence, (kind, message, content, tool_name, usage) in enumerate(steps, start=1):
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
            if every and sequence % every == 0 and sequence < count:
                summary = CompactedMessage(content=f"Summary through {sequence}: " + words.text(rng, "reply"))
                snapshots.append(
                    (new_uuid7(), session_id, len(snapshots) + 1, sequence, encode_messages([summary]), stamp, stamp)
                )
        db.executemany(RAW_SQL, batch)
        db.executemany("insert into session_snapshots values (?,?,?,?,?,?,?)", snapshots)
        title = None if parent else " ".join(words.text(rng, "user").split()[:5]).capitalize()
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
