"""Provides the compaction ledger view: the context curve and one row per snapshot version.

``L`` opens it on the open session. The curve's columns are aggregated by the storage in
SQL (one row per column) and the rows' facts are read only for the versions on screen, so
a 100,000-message session with 2,500 versions opens it as fast as a short one. The main
screen's change polling calls :meth:`LedgerScreen.reload` when the store changed (the live
demo's ledger grows while it compacts). ``enter`` closes it at a version's boundary,
``space``/``D`` diff two versions as in the inspector.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from ..keymap import bindings
from ..model import RawLogBounds, SessionNode
from ..model.compaction import CurveColumn, SnapshotMeta
from ..model.store import BrowsingStore
from ..views.labels import node_name
from ..views.ledger import LedgerRow, header, ledger_rows, plot, plot_columns
from ..widgets.footer import KeyFooter
from ..widgets.ledger import PLOT_ROWS, CurveView, ledger_line
from ..widgets.safe import one_line, plain
from ..widgets.versions import VersionList
from .reads import Failed, ReadHelper

#: Rows read around the visible ones when facts are missing.
FACTS_MARGIN = 10


class LedgerScreen(Screen[int | None]):
    """The compaction ledger and context curve of one session; dismissed with a boundary or None."""

    BINDINGS = bindings("ledger")
    DEFAULT_CSS = """
    LedgerScreen #ledger-title { padding: 0 1; background: $panel; }
    LedgerScreen #ledger-header { padding: 0 1; text-style: bold; }
    LedgerScreen #ledger-rows { height: 1fr; padding: 0 1; }
    """

    def __init__(self, store: BrowsingStore, session: SessionNode, reader: ReadHelper) -> None:
        super().__init__()
        self.store = store
        #: The main screen's read helper (the one place a failed read becomes a notice).
        self.reader = reader
        self.session = session
        self.versions: list[SnapshotMeta] = []
        #: Ledger rows by version (facts read for the rows shown so far).
        self.rows: dict[int, LedgerRow] = {}
        self._wanted = False
        self._curve_width = 0

    def compose(self) -> ComposeResult:
        yield Static(id="ledger-title")
        yield CurveView(id="ledger-curve")
        yield Static(plain(header()), id="ledger-header")
        yield VersionList(renderer=self._row_text, id="ledger-rows")
        yield KeyFooter()

    def on_mount(self) -> None:
        title = node_name(self.session)  # the one labelling rule
        self.query_one("#ledger-title", Static).update(plain(f"Compaction ledger · {one_line(title, 80)}"))
        self.query_one(VersionList).focus()
        self.reload()

    @work(exclusive=True, group="ledger", exit_on_error=False)
    async def reload(self) -> None:
        """Re-read the versions and the curve (the store changed, or the width did)."""
        session_id = self.session.session_id
        curve_view = self.query_one(CurveView)

        async def read() -> tuple[list[SnapshotMeta], RawLogBounds, int, int, list[CurveColumn]]:
            versions = await self.store.all_snapshot_versions(session_id)
            bounds = await self.store.raw_bounds(session_id)
            first, last = bounds.first_sequence or 0, bounds.last_sequence or 0
            width, repeat = plot_columns(curve_view.plot_width(), first, last)
            columns = await self.store.input_curve(session_id, columns=width, first=first, last=last)
            return versions, bounds, width, repeat, columns

        result = await self.reader.fetch(read(), "Could not read the ledger")
        if isinstance(result, Failed):
            return
        versions, bounds, width, repeat, columns = result
        first, last = bounds.first_sequence or 0, bounds.last_sequence or 0
        self._curve_width = curve_view.plot_width()
        boundaries = [meta.compacted_through_sequence for meta in versions]
        curve = plot(columns, boundaries, width=width, height=PLOT_ROWS, first=first, last=last, repeat=repeat)
        note = f"{len(versions):,} versions over {bounds.count:,} messages"
        curve_view.show(curve, first=first, last=last, note=note)
        if versions != self.versions:
            # The newest rows' facts can change as the log grows (the step after a snapshot).
            for meta in versions[-2:]:
                self.rows.pop(meta.version, None)
            self.versions = versions
            self.query_one(VersionList).show(versions)
        self._wanted = False
        self._load_visible()

    def on_resize(self) -> None:
        if self.versions and self.query_one(CurveView).plot_width() != self._curve_width:
            self.reload()

    def _row_text(self, index: int, width: int) -> Text:
        meta = self.versions[index]
        row = self.rows.get(meta.version)
        if row is None and not self._wanted:
            self._wanted = True
            self.call_after_refresh(self._load_visible)
        return ledger_line(meta, row)

    def _load_visible(self) -> None:
        rows = self.query_one(VersionList).visible_range()
        start = max(0, rows.start - FACTS_MARGIN)
        stop = min(len(self.versions), max(rows.stop, rows.start + 1) + FACTS_MARGIN)
        missing = [i for i in range(start, stop) if self.versions[i].version not in self.rows]
        if missing:
            self._load_facts(missing[0], missing[-1] + 1)
        else:
            self._wanted = False

    @work(exclusive=True, group="ledger-facts", exit_on_error=False)
    async def _load_facts(self, start: int, stop: int) -> None:
        chunk = self.versions[start:stop]
        previous = self.versions[start - 1] if start else None
        boundary = previous.compacted_through_sequence if previous else 0
        facts = await self.reader.fetch(
            self.store.ledger_facts(self.session.session_id, chunk, previous_boundary=boundary),
            "Could not read the ledger",
        )
        if isinstance(facts, Failed):
            return
        for row in ledger_rows(chunk, facts, previous):
            self.rows[row.version] = row
        self._wanted = False
        self.query_one(VersionList).invalidate()

    def on_version_list_chosen(self, event: VersionList.Chosen) -> None:
        event.stop()
        self.dismiss(event.meta.compacted_through_sequence)

    def on_version_list_diff_wanted(self, event: VersionList.DiffWanted) -> None:
        event.stop()
        from .diff import DiffScreen

        self.app.push_screen(DiffScreen(self.store, self.reader, self.session.session_id, event.older, event.newer))

    def action_close(self) -> None:
        self.dismiss(None)
