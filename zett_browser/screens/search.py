"""Provides the search view: a one-line query, a note, and the hits as a virtual list.

``enter`` in the query field runs the query; a bad one shows its one-line message in
the note (never a crash). ``enter`` on a hit closes the view with ``(query, hit)`` and
the main screen opens that session at that message; ``escape`` closes it with
``(query, None)``. The note says how many hits were read and, while the index is still
being built, that results may be missing.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Input

from ..keymap import bindings
from ..model.search import SearchHit, SearchService
from ..widgets.hits import HitList
from ..widgets.line import TextLine
from ..widgets.safe import one_line
from .indexstate import IndexState
from .reads import Failed, attempt

PAGE = 100
HINT = 'words, "a phrase", prefix*, a OR b, -word, kind:tool, tool:NAME, agent:NAME, since:2d …'


class SearchScreen(Screen[tuple[str, SearchHit | None]]):
    """Search the whole history through the side index."""

    BINDINGS = bindings("search")

    def __init__(self, service: SearchService, state: IndexState, text: str = "", *, session: str | None) -> None:
        super().__init__()
        self.service = service
        self.state = state
        self.query_text = text
        self.session = session
        #: The shown results may be missing hits (the index was incomplete).
        self.partial = False
        self._shown = 0

    def compose(self) -> ComposeResult:
        yield TextLine(id="search-title")
        yield Input(value=self.query_text, placeholder=HINT, id="search-input")
        yield TextLine(id="search-note")
        yield HitList(id="hits")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search-title", TextLine).show(
            Text(" Search the whole history  ·  enter: search / open  ·  escape: back", style="bold")
        )
        self.query_one(Input).focus()
        if self.query_text:
            self.run_query(self.query_text)

    def _note(self, text: Text) -> None:
        self.query_one("#search-note", TextLine).show(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.run_query(event.value)

    def run_query(self, text: str) -> None:
        """Check ``text``; show its error, or start reading the first page."""
        self.query_text = text
        if not text.strip():
            self._note(Text("Type a query and press enter.", style="dim"))
            self.query_one(HitList).show([], None, empty_text="")
            return
        try:
            self.service.check(text)
        except ValueError as error:
            self._show_error(str(error))
            return
        self._note(Text("searching…", style="dim"))
        self._first_page(text)

    def _show_error(self, message: str) -> None:
        self.partial = False
        self._note(Text(one_line(message, 300), style="bold red"))
        self.query_one(HitList).show([], None, empty_text="")

    @work(exclusive=True, group="search", exit_on_error=False)
    async def _first_page(self, text: str) -> None:
        syncs = self.state.syncs
        page = await attempt(self.service.search(text, session=self.session, limit=PAGE))
        if isinstance(page, Failed):
            if isinstance(page.error, ValueError):  # in:session with no open session
                self._show_error(str(page.error))
            elif text != self.query_text:
                pass
            elif self.state.building or self.state.syncs != syncs:
                self._unreadable_while_building(text)  # a damaged or busy index: say so, keep the view
            else:
                self._show_error(f"search failed: {page.error}")
            return
        if text != self.query_text:
            return
        if page.partial and self.state.syncs != syncs and not self.state.building:
            self._first_page(text)  # a build ended while this page was read: read it again
            return
        hits = self.query_one(HitList)
        hits.show(page.hits, page.next_cursor, empty_text="No hits.")
        self.partial = page.partial
        self._shown = len(page.hits)
        self._show_count(page.next_cursor is not None)
        if page.hits and self.query_one(Input).has_focus:
            hits.focus()

    def _unreadable_while_building(self, text: str) -> None:
        """The index file was being rebuilt under the search: partial, and run again after."""
        if not self.state.building:
            self._first_page(text)  # the build ended meanwhile
            return
        self.partial = True
        self._shown = 0
        self.query_one(HitList).show([], None, empty_text="")
        self._show_count(False)

    def _show_count(self, more: bool) -> None:
        count = f"{self._shown:,}{'+' if more else ''} hit{'' if self._shown == 1 and not more else 's'}"
        note = Text(count, style="bold")
        if self.partial:
            note.append(f"   {self.state.partial_note()}", style="bold yellow")
        self._note(note)

    @work(exclusive=True, group="more", exit_on_error=False)
    async def on_hit_list_more_wanted(self, event: HitList.MoreWanted) -> None:
        text = self.query_text
        page = await attempt(self.service.search(text, after=event.cursor, session=self.session, limit=PAGE))
        if isinstance(page, Failed):  # the hits shown stay; the note says why no more
            self._note(Text(f"could not read more hits: {one_line(page.error, 200)}", style="red"))
            return
        hits = self.query_one(HitList)
        if text != self.query_text or hits.next_cursor != event.cursor:
            return  # another query (or page) meanwhile
        hits.extend(page.hits, page.next_cursor)
        self._shown += len(page.hits)
        self.partial = self.partial or page.partial
        self._show_count(page.next_cursor is not None)

    def on_hit_list_chosen(self, event: HitList.Chosen) -> None:
        self.dismiss((self.query_text, event.hit))

    def action_close(self) -> None:
        self.dismiss((self.query_text, None))

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.service.syntax))

    def action_edit(self) -> None:
        self.query_one(Input).focus()

    def on_key(self, event: object) -> None:
        # From the query field, ↓ goes to the hits (tab does too).
        key = getattr(event, "key", None)
        hits = self.query_one(HitList)
        if key == "down" and self.query_one(Input).has_focus and hits.hits:
            hits.focus()
