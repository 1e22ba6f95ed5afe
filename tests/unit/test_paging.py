"""Page arithmetic and the back history, without a database or an app."""

from __future__ import annotations

from datetime import UTC, datetime

from zett_browser.model import CompactedMessage, RawMessageRecord, SnapshotInfo, SystemMessage, UserMessage
from zett_browser.views import paging
from zett_browser.views.paging import PageRequest, Place

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def record(sequence: int, *, system: bool = False) -> RawMessageRecord:
    message = SystemMessage(content="rules") if system else UserMessage(content=f"m{sequence}")
    return RawMessageRecord(
        id=f"r{sequence}", session_id="s", request_id="q", sequence=sequence, message=message,
        metadata={}, tags={}, started_at=NOW, completed_at=NOW, duration_ns=0,
        reasoning_started_at=None, reasoning_completed_at=None, reasoning_duration_ns=None,
        content_started_at=None, content_completed_at=None, content_duration_ns=None,
        input_tokens=None, output_tokens=None, cache_read_tokens=None, cache_write_tokens=None,
        reasoning_tokens=None, created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def snapshot(version: int, through: int) -> SnapshotInfo:
    return SnapshotInfo(
        id=f"v{version}", session_id="s", version=version, compacted_through_sequence=through,
        message=CompactedMessage(content=f"summary {version}"), created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def test_page_start_for_numbered_pages() -> None:
    assert [paging.page_start_for(n, 50) for n in (1, 50, 51, 100, 101, 120)] == [0, 0, 50, 50, 100, 100]
    assert paging.page_start_for(0, 50) == 0 and paging.page_start_for(-7, 50) == 0


def test_next_and_previous_stop_at_the_ends() -> None:
    shown = [record(n) for n in range(51, 101)]
    assert paging.next_page(shown, 120) == PageRequest(after=100, after_id="r100")
    assert paging.next_page([record(n) for n in range(101, 121)], 120) is None
    assert paging.next_page([], 120) is None
    assert paging.prev_page(shown, 1) == PageRequest(before=51, before_id="r51")
    assert paging.prev_page([record(n) for n in range(1, 51)], 1) is None


def test_first_last_and_page_for() -> None:
    assert paging.first_page() == PageRequest(start=True)
    assert paging.first_page(10) == PageRequest(after=10)
    assert paging.last_page(select=120) == PageRequest(select=120)
    assert paging.page_for(115, 20) == PageRequest(after=100, select=115)


def test_model_floor_and_clamp() -> None:
    assert paging.model_floor([]) == 0
    assert paging.model_floor([snapshot(1, 10), snapshot(2, 30)]) == 30
    assert paging.clamp_to_floor(PageRequest(after=0), 30) == PageRequest(after=30)
    assert paging.clamp_to_floor(PageRequest(start=True), 30) == PageRequest(after=30)
    assert paging.clamp_to_floor(PageRequest(start=True), 0) == PageRequest(start=True)
    assert paging.clamp_to_floor(PageRequest(after=40), 30) == PageRequest(after=40)
    assert paging.clamp_to_floor(PageRequest(), 30) == PageRequest(), "the last page is filtered after reading"


def test_model_view_drops_what_the_model_is_not_sent() -> None:
    records = [record(1, system=True), record(2), record(3)]
    assert [r.sequence for r in paging.in_model_view(records)] == [2, 3]
    assert [r.sequence for r in paging.in_model_view(records, 2)] == [3], "nothing at or before the boundary"


def test_the_summary_heads_only_the_tail_s_first_page() -> None:
    tail = [record(n) for n in range(11, 15)]
    assert paging.reaches_tail_start(PageRequest(after=10), tail, 10, 4)
    assert not paging.reaches_tail_start(PageRequest(after=14), tail, 10, 4)
    assert paging.reaches_tail_start(PageRequest(), [record(n) for n in range(9, 13)], 10, 4)
    assert not paging.reaches_tail_start(PageRequest(), [record(n) for n in range(13, 17)], 10, 4)
    assert paging.reaches_tail_start(PageRequest(), [record(11)], 10, 4), "a short last page is the whole tail"


def test_toggling_views_keeps_the_cursor() -> None:
    assert paging.toggle_view(9, 12, 10, to_model=True, size=4) == PageRequest(after=10, select=12)
    assert paging.toggle_view(9, 9, 10, to_model=True, size=4) == PageRequest(after=10), "#9 is not in the model view"
    assert paging.toggle_view(11, 12, 10, to_model=False, size=4) == PageRequest(after=10, select=12)
    assert paging.toggle_view(11, 40, 10, to_model=False, size=4) == PageRequest(after=36, select=40)
    assert paging.toggle_view(None, None, 10, to_model=True, size=4) == PageRequest(after=10)


def test_history_is_last_in_first_out_and_bounded() -> None:
    history: tuple[Place, ...] = ()
    for index in range(paging.HISTORY_LIMIT + 5):
        history = paging.push_place(history, Place(f"s{index}", page_after=index, cursor=index + 1))
    assert len(history) == paging.HISTORY_LIMIT
    place, rest = paging.pop_place(history)
    assert place == Place(
        f"s{paging.HISTORY_LIMIT + 4}", page_after=paging.HISTORY_LIMIT + 4, cursor=paging.HISTORY_LIMIT + 5
    )
    assert len(rest) == paging.HISTORY_LIMIT - 1
    assert paging.pop_place(()) == (None, ())


def test_parse_sequence() -> None:
    assert [paging.parse_sequence(t) for t in ("151", " #151 ", "1,151", "", "#", "x")] == [
        151,
        151,
        1151,
        None,
        None,
        None,
    ]
