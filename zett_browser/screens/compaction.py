"""Provides the main screen's compaction controller: the ledger (``L``), the diff (``D``), saved tokens.

The ledger and diff screens read through the same store; after the change poll re-read
the open session, an open ledger of it is reloaded (the live demo's ledger grows as it
compacts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from textual.screen import Screen
from textual.worker import Worker

from ..model import SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..widgets.inspector import Inspector
from ..widgets.versions import VersionList
from .reads import Failed, Services
from .watch import OpenSession


class CompactionViews:
    """The compaction views of the open session.

    Args:
        services: The store the views read, the read helper, workers, notices, screens.
        inspector: Shows the tokens the latest snapshot saves.
        screens: The app's screen stack (an open ledger is reloaded).
        open_session: What the Raw Log shows now.
        show_boundary: Puts the Raw Log's cursor on a boundary (in the raw view).
    """

    def __init__(
        self,
        services: Services,
        inspector: Inspector,
        *,
        screens: Callable[[], Iterable[Screen[Any]]],
        open_session: Callable[[], OpenSession | None],
        show_boundary: Callable[[int], object],
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._inspector = inspector
        self._run = services.run_worker
        self._notify = services.notify
        self._push_screen = services.push_screen
        self._screens = screens
        self._open = open_session
        self._show_boundary = show_boundary

    def ledger(self) -> None:
        """``L``: the compaction ledger of the open session; choosing a row shows its boundary."""
        state = self._open()
        if state is None:
            self._notify("Open a session first", markup=False)
            return

        def closed(boundary: int | None) -> None:
            if boundary is not None:
                self._show_boundary(boundary)

        from .ledger import LedgerScreen  # a screen's module loads when it first opens

        self._push_screen(LedgerScreen(self._store, state.node, self._reader), closed)

    def diff(self, older: SnapshotMeta, newer: SnapshotMeta) -> None:
        """The diff of two snapshot versions of the open session."""
        state = self._open()
        if state is not None:
            from .diff import DiffScreen

            self._push_screen(DiffScreen(self._store, self._reader, state.node.session_id, older, newer))

    def show_saved_tokens(self, session_id: str, latest: SnapshotInfo | None) -> Worker[None]:
        """The tokens the latest snapshot saves, read after the session shows (a long prefix
        takes a while to measure, and opening the session must not wait for it)."""
        return self._run(
            partial(self._saved_tokens, session_id, latest),
            name="show_saved_tokens",
            group="saved-tokens",
            exclusive=True,
            description="show_saved_tokens",
            exit_on_error=False,
        )

    async def _saved_tokens(self, session_id: str, latest: SnapshotInfo | None) -> None:
        if latest is None:
            return
        boundary = latest.compacted_through_sequence
        compacted = await self._reader.fetch(self._store.text_size(session_id, through_sequence=boundary))
        state = self._open()
        if isinstance(compacted, Failed) or state is None or state.node.session_id != session_id:
            return
        self._inspector.show_saved(max(0, (compacted - len(latest.summary_text)) // 4))

    def show_origins(self, session_id: str, versions: Sequence[SnapshotMeta] | None = None) -> Worker[None]:
        """When and by what versions of the open session were made, on the inspector (decoration):
        ``versions`` (the list asks for the rows it paints), or those on screen again (None)."""
        return self._run(
            partial(self._origins, session_id, versions),
            name="show_origins",
            group="origins",
            description="show_origins",
            exit_on_error=False,
        )

    async def _origins(self, session_id: str, versions: Sequence[SnapshotMeta] | None) -> None:
        state = self._open()
        if state is None or state.node.session_id != session_id or not state.snapshots:
            return
        wanted = versions if versions is not None else self._inspector.query_one(VersionList).on_screen_window()
        found = await self._reader.quietly(self._store.snapshot_origins(session_id, wanted), {}, "origins")
        state = self._open()
        if found and state is not None and state.node.session_id == session_id:
            self._inspector.show_origins(found)

    def reload_ledgers(self) -> None:
        """The open session was re-read: an open ledger of it shows the new rows, the
        inspector what made its versions."""
        state = self._open()
        if state is not None and state.snapshots:
            self.show_origins(state.node.session_id)
        from .ledger import LedgerScreen  # loaded already when one is open

        for screen in self._screens():
            state = self._open()
            if isinstance(screen, LedgerScreen) and state is not None:
                if screen.session.session_id == state.node.session_id:
                    screen.reload()
