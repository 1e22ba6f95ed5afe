"""Time travel without a store: the snapshot in force, the page walk, the estimate, the export.

zett_browser.views.time_travel reads through a :class:`BrowsingStore`; here an in-memory one holds
real records (tests/records.py) and the envelopes a zett-agent store keeps beside them.
The same functions against real zett-agent stores are in tests/context/.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, cast

import pytest

from tests.records import AT, raw_record
from zett_browser.model import (
    AgentMessage,
    AssistantMessage,
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    RawLogBounds,
    RawMessageRecord,
    SnapshotInfo,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from zett_browser.model.context import ContextRow
from zett_browser.model.store import BrowsingStore
from zett_browser.storage.pointparts import PointFromCalls
from zett_browser.views.time_travel import (
    ContextError,
    ContextPoint,
    Estimate,
    context_pages,
    dump,
    estimate,
    export_json,
    in_force,
    locate,
    range_pages,
    sent,
    summary_estimate,
)

SESSION = "s1"


def snapshot(version: int, through: int, created: int | None, text: str = "summary") -> SnapshotInfo:
    """Version ``version`` summarising rows up to ``through``, created ``created`` minutes after AT."""
    return SnapshotInfo(
        id=f"v{version}",
        session_id=SESSION,
        version=version,
        compacted_through_sequence=through,
        message=CompactedMessage(content=text),
        created_at=None if created is None else AT + timedelta(minutes=created),
        updated_at=None,
    )


def row(sequence: int, message: Any, envelope: str | None = None) -> ContextRow:
    """Row ``sequence`` began ``sequence`` minutes after AT; its envelope names its sequence."""
    record = raw_record(message, sequence, id=f"r{sequence}", started_at=AT + timedelta(minutes=sequence))
    stored = envelope if envelope is not None else json.dumps([{"kind": 1, "data": {"n": sequence}}])
    return ContextRow(record=record, envelope=stored)


class MemoryStore(PointFromCalls):
    """The reads zett_browser.views.time_travel makes, over lists; ``pages`` records each page asked for."""

    def __init__(self, rows: list[ContextRow], snapshots: list[SnapshotInfo], envelopes: dict[int, str]) -> None:
        self.rows = rows
        self.snapshots = snapshots
        self.envelopes = envelopes
        self.pages: list[tuple[int, str | None, int]] = []

    async def raw_bounds(self, session_id: str) -> RawLogBounds:
        sequences = [r.record.sequence for r in self.rows]
        return RawLogBounds(min(sequences, default=None), max(sequences, default=None), len(sequences))

    async def all_snapshot_versions(self, session_id: str) -> list[SnapshotInfo]:
        return list(self.snapshots)

    async def snapshot_version(self, session_id: str, version: int | None = None) -> SnapshotInfo | None:
        return next((s for s in self.snapshots if s.version == version), None)

    async def version_in_force(
        self, session_id: str, when: datetime | None, *, before_sequence: int | None = None
    ) -> tuple[int | None, int]:
        if when is None:
            chosen = in_force(self.snapshots, None)
            return (chosen.version if chosen is not None else None), 0
        possible = [
            s for s in self.snapshots if before_sequence is None or s.compacted_through_sequence < before_sequence
        ]
        chosen = in_force(possible, when)
        floor = chosen.version if chosen is not None else 0
        return (chosen.version if chosen is not None else None), sum(
            1 for s in possible if s.created_at is None and s.version > floor
        )

    async def snapshot_envelope(self, session_id: str, version: int) -> str | None:
        return self.envelopes.get(version)

    async def raw_page(self, session_id: str, *, after_sequence: int, limit: int) -> list[RawMessageRecord]:
        return [r.record for r in self.rows if r.record.sequence > after_sequence][:limit]

    async def raw_page_before(self, session_id: str, *, limit: int = 50) -> list[RawMessageRecord]:
        return [r.record for r in self.rows][-limit:]

    async def request_system_rows(
        self, session_id: str, request_id: str, *, before_sequence: int | None = None
    ) -> list[RawMessageRecord]:
        return [
            r.record
            for r in self.rows
            if isinstance(r.record.message, SystemMessage)
            and r.record.request_id == request_id
            and (before_sequence is None or r.record.sequence < before_sequence)
        ]

    async def context_page(
        self, session_id: str, *, after_sequence: int, before_sequence: int, after_id: str | None, limit: int
    ) -> list[ContextRow]:
        self.pages.append((after_sequence, after_id, before_sequence))
        found = [
            r
            for r in self.rows
            if (r.record.sequence > after_sequence or (r.record.sequence == after_sequence and after_id is not None))
            and (r.record.sequence, r.record.id) > (after_sequence, after_id or "")
            and r.record.sequence < before_sequence
        ]
        return found[:limit]


def browsing(store: MemoryStore) -> BrowsingStore:
    return cast(BrowsingStore, store)


# ------------------------------------------------------------------ the snapshot in force


def test_in_force_is_the_highest_version_created_by_then_whatever_its_boundary() -> None:
    early, late, undated = snapshot(1, through=9, created=5), snapshot(2, through=3, created=20), snapshot(3, 12, None)
    versions = [late, early, undated]
    assert in_force(versions, AT + timedelta(minutes=4)) is None
    assert in_force(versions, AT + timedelta(minutes=5)) is early, "created exactly at the step counts"
    assert in_force(versions, AT + timedelta(minutes=30)) is late, "a lower boundary, but the later version"
    assert in_force(versions, None) is undated, "now: every snapshot counts, the undated one too"
    assert in_force([], None) is None


def test_a_snapshot_summarising_message_n_or_later_is_never_in_force_at_n_whatever_its_clock() -> None:
    """Row N was written before any snapshot whose boundary reaches it: such a snapshot did
    not exist when N's step began, even when a skewed clock dates it earlier (issue 29)."""
    early, late = snapshot(1, through=9, created=5), snapshot(2, through=3, created=20)
    versions = [late, early]
    assert in_force(versions, AT + timedelta(minutes=6), before_sequence=10) is early
    assert in_force(versions, AT + timedelta(minutes=6), before_sequence=9) is None, "early summarises #9"
    assert in_force(versions, AT + timedelta(minutes=30), before_sequence=4) is late
    assert in_force(versions, AT + timedelta(minutes=30), before_sequence=3) is None
    assert in_force(versions, None, before_sequence=1) is late, "now: every snapshot counts"


async def test_locate_takes_the_snapshot_that_existed_when_message_n_began() -> None:
    rows = [row(n, UserMessage(content=f"m{n}"), None) for n in range(1, 11)]
    sixth = raw_record(UserMessage(content="m6"), 6, id="r6", input_tokens=321, started_at=AT + timedelta(minutes=6))
    rows[5] = ContextRow(sixth, rows[5].envelope)
    store = MemoryStore(rows, [snapshot(1, 3, created=4), snapshot(2, 7, created=8), snapshot(3, 9, None)], {})
    point = await locate(browsing(store), SESSION, 6)
    assert (point.at, point.last, point.when) == (6, 10, AT + timedelta(minutes=6))
    assert point.snapshot is not None and point.snapshot.version == 1 and point.floor == 3
    assert (point.row_kind, point.input_tokens, point.undated) == ("user", 321, 0), "v3 summarises #9: not then"
    assert not point.is_next_step
    store.snapshots.append(snapshot(4, 5, None))
    point = await locate(browsing(store), SESSION, 6)
    assert point.snapshot is not None and point.snapshot.version == 1 and point.undated == 1, "v4 may have been"
    store.snapshots.pop()

    now = await locate(browsing(store), SESSION)
    assert now.at == 11 and now.is_next_step and now.when is None
    assert now.snapshot is not None and now.snapshot.version == 3 and now.undated == 0


@pytest.mark.parametrize("at", [0, 12, -1])
async def test_locate_refuses_an_n_outside_one_to_one_past_the_last(at: int) -> None:
    store = MemoryStore([row(n, UserMessage(content="x")) for n in range(1, 11)], [], {})
    with pytest.raises(ContextError, match=r"from 1 to 11 .*got " + str(at)):
        await locate(browsing(store), SESSION, at)


async def test_locate_in_an_empty_session_is_the_next_step_from_nothing() -> None:
    point = await locate(browsing(MemoryStore([], [], {})), SESSION)
    assert (point.at, point.last, point.snapshot, point.floor) == (1, 0, None, 0)


# ------------------------------------------------------------------ the page walk


async def test_range_pages_walk_from_the_boundary_to_before_n_resuming_after_the_last_row() -> None:
    store = MemoryStore([row(n, UserMessage(content="x")) for n in range(1, 21)], [], {})
    point = ContextPoint(SESSION, at=15, last=20, when=None, snapshot=snapshot(1, through=4, created=0))
    pages = [[r.record.sequence for r in page] async for page in range_pages(browsing(store), point, page=4)]
    assert pages == [[5, 6, 7, 8], [9, 10, 11, 12], [13, 14]]
    assert store.pages == [(4, None, 15), (8, "r8", 15), (12, "r12", 15)]

    store.pages.clear()
    resumed = [r.record.sequence async for page in range_pages(browsing(store), point, start_after=10) for r in page]
    assert resumed == [11, 12, 13, 14]
    below = [r.record.sequence async for page in range_pages(browsing(store), point, start_after=2) for r in page]
    assert below[0] == 5, "a resume point below the boundary starts at the boundary"


async def test_context_pages_keep_only_what_load_sends() -> None:
    rows = [
        row(1, SystemMessage(content="sys")),
        row(2, UserMessage(content="hi")),
        row(3, UnreadableMessage(kind=None, error="bad", raw_json="{")),
        row(4, AgentMessage(content="note", include_in_messages=False)),
        row(5, AssistantMessage(content="answer")),
    ]
    assert [sent(r) for r in rows] == [False, True, False, False, True]
    point = ContextPoint(SESSION, at=6, last=5, when=None, snapshot=None)
    kept = [r.record.sequence async for page in context_pages(browsing(MemoryStore(rows, [], {})), point) for r in page]
    assert kept == [2, 5]


# ------------------------------------------------------------------ the estimate


def test_the_estimate_rounds_characters_up_and_counts_images_apart() -> None:
    counted = Estimate()
    counted.add_message(
        UserMessage(
            content=[
                TextContent(text="abcde"),
                ImageContent(source=ImageBytesSource(data=b"x", media_type="image/png")),
                TextContent(text="f"),
            ]
        )
    )
    assert (counted.chars["user"], counted.images["user"], counted.messages["user"]) == (7, 1, 1)  # "abcde\nf"
    assert counted.tokens("user") == 2 + 1_100
    counted.add_message(AssistantMessage(content="ok", reasoning="why", tool_calls=(ToolCall("c", "sh", {"a": 1}),)))
    assert counted.chars["assistant"] == len('ok[{"name": "sh", "arguments": {"a": 1}}]')
    assert (counted.chars["reasoning"], counted.messages["reasoning"]) == (3, 1)
    counted.add_message(ToolMessage(tool_call_id="c", name="sh", content="out"))
    assert counted.rows == 3 and counted.total_chars == 7 + 41 + 3 + 3
    assert counted.total_tokens == sum(counted.tokens(category) for category in counted.chars)


def test_the_summary_counts_only_when_load_sends_it() -> None:
    assert summary_estimate(None).rows == 0
    shown = summary_estimate(snapshot(1, 3, 0, text="12345"))
    assert (shown.rows, shown.chars["summary"], shown.tokens("summary")) == (1, 5, 2)
    hidden = SnapshotInfo("v", SESSION, 1, 3, CompactedMessage(content="x", include_in_messages=False), AT, AT)
    assert summary_estimate(hidden).rows == 0


async def test_estimate_reports_skipped_and_unreadable_rows_and_its_progress() -> None:
    rows = [
        row(4, UserMessage(content="abcd")),
        row(5, SystemMessage(content="not sent")),
        row(6, UnreadableMessage(kind=3, error="bad", raw_json="[")),
        row(7, AgentMessage(content="12345678")),
    ]
    point = ContextPoint(SESSION, at=8, last=7, when=None, snapshot=snapshot(1, through=3, created=0, text="s"))
    seen: list[int] = []
    result = await estimate(browsing(MemoryStore(rows, [], {})), point, seen.append, page=2)
    assert (result.rows, result.skipped, result.unreadable) == (3, 1, 1)
    assert (result.chars["user"], result.chars["agent"], result.chars["summary"]) == (4, 8, 1)
    assert seen == [3, 5], "after each page: rows counted so far, the summary included"


# ------------------------------------------------------------------ the export


async def test_the_export_is_the_stored_envelopes_in_load_order() -> None:
    summary_envelope = json.dumps([{"kind": 5, "data": {"content": "sum"}}])
    rows = [row(4, UserMessage(content="a")), row(5, SystemMessage(content="b")), row(6, AssistantMessage(content="c"))]
    point = ContextPoint(SESSION, at=7, last=6, when=None, snapshot=snapshot(2, through=3, created=0))
    text = await export_json(browsing(MemoryStore(rows, [], {2: summary_envelope})), point)
    assert json.loads(text) == [
        {"kind": 5, "data": {"content": "sum"}},
        {"kind": 1, "data": {"n": 4}},
        {"kind": 1, "data": {"n": 6}},
    ]
    assert text == dump(json.loads(text)) and "\n " in text


@pytest.mark.parametrize(
    ("envelope", "error"),
    [
        ("{not json", "holds no valid JSON envelope"),
        ("[]", "does not hold exactly one"),
        ('{"kind": 1}', "does not hold exactly one"),
    ],
)
async def test_the_export_refuses_a_row_that_load_could_not_read(envelope: str, error: str) -> None:
    point = ContextPoint(SESSION, at=3, last=2, when=None, snapshot=None)
    store = MemoryStore([row(1, UserMessage(content="a")), row(2, UserMessage(content="b"), envelope)], [], {})
    with pytest.raises(ContextError, match=f"message #2 {error}"):
        await export_json(browsing(store), point)


async def test_the_export_refuses_an_unreadable_row_or_snapshot() -> None:
    bad_row = MemoryStore([row(1, UnreadableMessage(kind=None, error="torn", raw_json="["))], [], {})
    with pytest.raises(ContextError, match="message #1 is unreadable: torn"):
        await export_json(browsing(bad_row), ContextPoint(SESSION, 2, 1, None, None))
    broken = SnapshotInfo("v", SESSION, 4, 0, UnreadableMessage(kind=5, error="cut", raw_json="["), AT, AT)
    with pytest.raises(ContextError, match="snapshot v4 is unreadable: cut"):
        await export_json(browsing(MemoryStore([], [], {})), ContextPoint(SESSION, 1, 0, None, broken))


def test_the_walk_newest_first_stops_at_the_first_dated_by_then_and_passes_over_damaged_versions() -> None:
    from zett_browser.model.in_force import newest_dated_by

    when = AT + timedelta(minutes=10)
    early, late = AT + timedelta(minutes=5), AT + timedelta(minutes=20)
    assert newest_dated_by([(4, late), (3, None), (2, early), (1, early)], when) == (2, 1)
    assert newest_dated_by([("four", early), (3, "garbage"), (2.5, early), (2, early)], when) == (2, 1)
    assert newest_dated_by([(2, late), (1, None)], when) == (None, 1)
    assert newest_dated_by([], when) == (None, 0)
