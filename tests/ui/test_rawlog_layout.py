"""The Raw Log's layout costs: lines kept per record, styles read once a frame, the page wrapped from the cursor.

Reused lines must be exactly what wrapping anew gives: a row read again with other
content, a new width, the compacted mark, reasoning shown, cards and a theme change
each wrap the record again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from tests.records import raw_record
from zett_browser.model import RawMessageRecord
from zett_browser.storage import AssistantMessage, UserMessage
from zett_browser.widgets.rawlog import RawLogView


def record(sequence: int, message: object) -> RawMessageRecord:
    return raw_record(message, sequence, id=f"id-{sequence}", session_id="s")


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield RawLogView()


def page_text(view: RawLogView) -> str:
    return "\n".join(strip.text for strip in view.rendered_lines())


async def test_reused_lines_match_a_fresh_wrap_and_changes_wrap_again() -> None:
    records = [record(n, UserMessage(content=f"message {n}")) for n in range(1, 6)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records)
        await pilot.pause()
        first = page_text(view)
        kept = view._wrapped[("s", 2)].strips

        view.show_page([*records, record(6, UserMessage(content="message 6"))])
        await pilot.pause()
        assert view._wrapped[("s", 2)].strips is kept, "an unchanged row is not wrapped again"
        assert page_text(view).startswith(first.rstrip("\n"))
        assert "message 6" in page_text(view)

        # The same sequence read back with other content (a store replaced underneath).
        changed = [records[0], replace(records[1], message=UserMessage(content="other text")), *records[2:]]
        view.show_page(changed)
        await pilot.pause()
        assert "other text" in page_text(view) and "message 2" not in page_text(view)

        view.show_page(changed, compacted_through=3)
        await pilot.pause()
        assert page_text(view).count("[compacted]") == 3

        view.show_page(changed)
        await pilot.pause()
        assert "[compacted]" not in page_text(view)

        view.show_page(changed)
        view.show_cards({4: [Text("card under four")]})
        await pilot.pause()
        assert "card under four" in page_text(view)
        view.show_cards({})
        await pilot.pause()
        assert "card under four" not in page_text(view)

        # Gone from the page, a record's lines are let go.
        view.show_page(changed[:2])
        await pilot.pause()
        assert set(view._wrapped) == {("s", 1), ("s", 2)}


async def test_a_new_width_and_shown_reasoning_wrap_again() -> None:
    long = "word " * 60
    reasoning = AssistantMessage(content="answer", reasoning="thinking it over")
    records = [record(1, UserMessage(content=long)), record(2, reasoning)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records)
        await pilot.pause()
        wide = len(view.rendered_lines())
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        assert len(view.rendered_lines()) > wide, "wrapped again at the new width"
        assert "thinking it over" not in page_text(view)
        view.expanded.add(2)
        view.restyle()
        await pilot.pause()
        assert "thinking it over" in page_text(view)


async def test_a_frame_reads_the_views_style_once(monkeypatch: Any) -> None:
    """``rich_style`` walks every ancestor's styles; read per painted line it was a third of
    a followed Raw Log's frame. One render pass reads it once; outside one it is fresh."""
    records = [record(n, UserMessage(content=f"message {n}")) for n in range(1, 40)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records)
        view.focus()
        await pilot.pause()
        reads: list[int] = []
        real = Widget.rich_style

        def counted(widget: Widget) -> Style:
            if widget is view:
                reads.append(1)
            return real.fget(widget)  # type: ignore[attr-defined, no-any-return]

        monkeypatch.setattr(RawLogView, "rich_style", property(counted))
        view.refresh()  # nothing cached: every line is painted
        strips = view.render_lines(Region(0, 0, view.size.width, view.size.height))
        assert len(strips) == view.size.height
        assert len(reads) == 1
        assert view.line_style == real.fget(view)  # type: ignore[attr-defined]
        assert len(reads) == 2, "outside a pass the style is read fresh"


async def test_a_page_shown_at_its_end_wraps_what_is_on_screen_first(monkeypatch: Any) -> None:
    """Following a session (or G) shows a page with the cursor on its last record: all 100
    records were wrapped before the first frame (33 ms on the busy follow run). Now the
    records around the cursor are, the rest a moment later, the ones above it last (blank
    lines until then), and the cursor's lines never move on screen meanwhile."""
    from zett_browser.widgets import rawlog, render

    records = [record(n, UserMessage(content=f"message {n}\nsecond line")) for n in range(1, 101)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records)
        await pilot.pause()
        whole = page_text(view)

        wrapped: list[int] = []
        real = render.render_record

        def counted(shown: Any, options: Any, context: Any = None) -> Any:
            wrapped.append(shown.sequence)
            return real(shown, options, context)

        monkeypatch.setattr(rawlog, "render_record", counted)
        view._wrapped.clear()  # as for a page never seen
        view.show_page(records, select_sequence=100)
        assert len(wrapped) < 40 and min(wrapped) > 60, "only the records near the cursor"
        assert view._layout.head > 0
        on_screen: list[float] = []
        for _ in range(200):
            await pilot.pause(0.01)
            start = view._layout.starts[view.cursor]
            on_screen.append(start - view.scroll_y)
            if not view._layout.head and view._layout.next == len(records):
                break
        else:
            raise AssertionError("the page was never wrapped whole")
        assert view.current is not None and view.current.sequence == 100
        height = view.scrollable_content_region.height
        assert 0 <= on_screen[-1] < height, "the cursor is on screen"
        assert len(set(on_screen[1:])) == 1, "the cursor's lines stayed in place while the rest was wrapped"
        assert page_text(view) == whole, "the same lines as wrapping the page at once"
        assert sorted(wrapped) == list(range(1, 101)), "each record wrapped once"


async def test_moving_up_into_records_not_wrapped_yet_wraps_them_first() -> None:
    records = [record(n, UserMessage(content=f"message {n}")) for n in range(1, 101)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records, select_sequence=100)
        view.hold()  # nothing more is wrapped in the background
        head = view._layout.head
        assert head > 0
        view.cursor = head - 1
        view._scroll_to_cursor(animate=False)
        assert view._layout.head < head
        start = view._layout.starts[view.cursor]
        assert f"#{head} user" in view._layout.lines[start].text, "the cursor's record shows its lines"
        await pilot.pause()
        assert view.scroll_y <= start < view.scroll_y + view.scrollable_content_region.height


def cursor_on_screen(view: RawLogView) -> bool:
    start = view._layout.starts[view.cursor]
    return view.scroll_y <= start < view.scroll_y + view.scrollable_content_region.height


async def test_cards_that_come_before_the_first_scroll_leave_the_cursor_on_screen() -> None:
    """A page opened at a sequence far down, its cards (a delegation above the cursor)
    read before the page's first layout: the view still ends on the cursor (CI once
    caught it showing the records above, depending on how fast the cards came)."""
    records = [record(n, UserMessage(content=f"message {n}\nsecond line")) for n in range(1, 41)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records, select_sequence=30)
        view.show_cards({5: [Text(f"card line {n}") for n in range(8)]})
        await pilot.pause()
        await pilot.pause()
        assert view.current is not None and view.current.sequence == 30
        assert cursor_on_screen(view), (view.scroll_y, view._layout.starts[view.cursor])
        assert "card line 7" in page_text(view)


async def test_cards_keep_what_the_reader_sees_in_place() -> None:
    """Cards added above the view move neither the cursor's record (when it shows) nor,
    when the reader scrolled away from the cursor, the record at the top of the view."""
    records = [record(n, UserMessage(content=f"message {n}\nsecond line")) for n in range(1, 41)]
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(RawLogView)
        view.show_page(records, select_sequence=20)
        await pilot.pause()
        offset = view._layout.starts[view.cursor] - view.scroll_y
        view.show_cards({3: [Text("card under three"), Text("and its second line")]})
        await pilot.pause()
        assert view._layout.starts[view.cursor] - view.scroll_y == offset

        view.scroll_to(y=view._layout.starts[30], animate=False, immediate=True)  # the reader scrolled down
        await pilot.pause()
        assert not cursor_on_screen(view)
        view.show_cards({3: [Text("card under three")], 25: [Text(f"card {n}") for n in range(5)]})
        await pilot.pause()
        assert view.scroll_y == view._layout.starts[30], "the record at the top stays at the top"
