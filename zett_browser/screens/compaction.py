"""Provides the main screen's compaction glue: the ledger (``L``), the diff (``D``), saved tokens.

Kept apart from :mod:`.main` so the main screen only names it as a base. The ledger and
diff screens read through the same store; the main screen's change polling reloads an
open ledger (the live demo's ledger grows as it compacts).
"""

from __future__ import annotations

from textual import work

from ..model import SnapshotInfo
from ..widgets.inspector import Inspector
from ..widgets.versions import VersionList
from .watch import Failed, WatchingScreen


class CompactionScreen(WatchingScreen):
    """The compaction views of the open session."""

    def action_ledger(self) -> None:
        state = self.open
        if state is None:
            self.notify("Open a session first", markup=False)
            return

        def closed(boundary: int | None) -> None:
            if boundary is not None:
                self.show_boundary(boundary)

        from .ledger import LedgerScreen  # a screen's module loads when it first opens

        self.app.push_screen(LedgerScreen(self.store, state.node), closed)

    def show_boundary(self, boundary: int) -> None:
        """Put the Raw Log's cursor on a boundary (the raw view: the model view hides it)."""
        if self.open is not None and self.open.model_view:
            self.open.model_view = False
        self.show_sequence(boundary)

    def show_sequence(self, sequence: int) -> None:
        raise NotImplementedError

    def on_version_list_diff_wanted(self, event: VersionList.DiffWanted) -> None:
        if self.open is not None:
            from .diff import DiffScreen

            self.app.push_screen(DiffScreen(self.store, self.open.node.session_id, event.older, event.newer))

    @work(exclusive=True, group="saved-tokens", exit_on_error=False)
    async def show_saved_tokens(self, session_id: str, latest: SnapshotInfo | None) -> None:
        """The tokens the latest snapshot saves, read after the session shows (a long prefix
        takes a while to measure, and opening the session must not wait for it)."""
        if latest is None:
            return
        boundary = latest.compacted_through_sequence
        compacted = await self.fetch(self.store.text_size(session_id, through_sequence=boundary))
        if isinstance(compacted, Failed) or self.open is None or self.open.node.session_id != session_id:
            return
        self.query_one(Inspector).show_saved(max(0, (compacted - len(latest.summary_text)) // 4))

    async def _refresh_open_session(self) -> None:
        await super()._refresh_open_session()
        from .ledger import LedgerScreen  # loaded already when one is open

        for screen in self.app.screen_stack:
            if isinstance(screen, LedgerScreen) and self.open is not None:
                if screen.session.session_id == self.open.node.session_id:
                    screen.reload()
