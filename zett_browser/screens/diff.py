"""Provides the diff of two snapshot versions: summaries side by side, the range absorbed, the drops.

Opened with ``D`` from the inspector or the ledger. The two summaries and the Raw Log range
the newer one absorbed are read (the range bounded by the storage), cleaned with
``text.clean`` (hostile text stays literal), and diffed in a thread: a huge summary never
blocks the keys.
"""

from __future__ import annotations

import asyncio

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ..keymap import bindings
from ..model import SnapshotInfo
from ..model.compaction import RangeText, SnapshotMeta
from ..model.store import BrowsingStore
from ..views.snapdiff import dropped_terms, side_by_side
from ..widgets.diff import diff_view
from ..widgets.footer import KeyFooter
from ..widgets.safe import clean, one_line
from .reads import Failed, ReadHelper

#: Characters of each summary compared (a 10 MB summary would take seconds to diff).
DIFF_CHARS = 200_000


class DiffScreen(Screen[None]):
    """The diff of ``older`` and ``newer`` (two versions of one session)."""

    BINDINGS = bindings("ledger")
    DEFAULT_CSS = """
    DiffScreen #diff-title { padding: 0 1; background: $panel; }
    DiffScreen #diff-scroll { height: 1fr; padding: 0 1; }
    """

    def __init__(
        self, store: BrowsingStore, reader: ReadHelper, session_id: str, older: SnapshotMeta, newer: SnapshotMeta
    ) -> None:
        super().__init__()
        self.store = store
        self.reader = reader
        self.session_id = session_id
        self.older = older
        self.newer = newer
        self.ready = False
        #: What the body shows once read (tests render it to text).
        self.shown: RenderableType = Text("")

    def compose(self) -> ComposeResult:
        yield Static(id="diff-title")
        with VerticalScroll(id="diff-scroll"):
            yield Static(Text("Reading the two summaries…", style="dim"), id="diff-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        older, newer = self.older, self.newer
        title = f"Diff of snapshot v{older.version} → v{newer.version} · {one_line(self.session_id, 40)}"
        self.query_one("#diff-title", Static).update(Text(title, style="bold"))
        self.query_one("#diff-scroll").focus()
        self.load()

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        body = self.query_one("#diff-body", Static)
        store, session_id = self.store, self.session_id

        async def read() -> tuple[SnapshotInfo | None, SnapshotInfo | None, RangeText]:
            old = await store.snapshot_version(session_id, self.older.version)
            new = await store.snapshot_version(session_id, self.newer.version)
            absorbed = await store.range_text(
                session_id,
                after_sequence=self.older.compacted_through_sequence,
                through_sequence=self.newer.compacted_through_sequence,
            )
            return old, new, absorbed

        result = await self.reader.attempt(read())
        if isinstance(result, Failed):
            body.update(Text(f"Could not read the versions: {one_line(result.error, 200)}"))
            return
        old, new, absorbed = result
        if old is None or new is None:
            body.update(Text("One of the two versions is gone from the store."))
            return
        old_text = clean(old.summary_text[:DIFF_CHARS])
        new_text = clean(new.summary_text[:DIFF_CHARS])
        absorbed_text = clean(absorbed.text)
        lines, dropped = await asyncio.to_thread(
            lambda: (side_by_side(old_text, new_text), dropped_terms(absorbed_text, old_text, new_text))
        )
        self.shown = diff_view(lines, self.older, self.newer, absorbed, dropped)
        body.update(self.shown)
        self.ready = True

    def action_close(self) -> None:
        self.dismiss(None)
