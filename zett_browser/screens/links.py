"""Provides where a message or session leads: its call's partner, its delegated session, its views.

:class:`RecordLinks` answers the Raw Log's and the inspector's requests: ``g`` jumps to a
tool call's result (or back), ``o`` opens the session a ``task`` or ``task_start`` call
delegated to (a choice when the message names several; where the child is when it is
not in this store), and
the whole message, a snapshot's summary or the context at a message open in their own
screens; so do the open session's timing view (``T``) and export dialog (``e``).
Reads that move the Raw Log run in the screen's ``session`` worker group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import Worker

from ..model import RawMessageRecord, SessionNode, SnapshotInfo
from ..model.export import ExportService
from ..text import clean
from ..views.formatting import full_text, join, kind_name, summary_blocks
from ..views.labels import node_name
from .calls import Child, NotACall, call_ids, children_of, find_partner
from .reads import Failed, Services, attempt

if TYPE_CHECKING:
    from .timing import Chosen


class RecordLinks:
    """Follows a message to what it names.

    Args:
        services: The store read, the read helper, workers, notices and screens.
        jump_to: Puts the Raw Log's cursor on a sequence of the open session.
        open_child: Opens a session, remembering the place left.
        page_size: Raw Log messages per page (the context view pages as the Raw Log).
        no_writes: Why no file may be written (None: the context view and export may write).
        exporter: Writes exports of the store (None: no export offered).
    """

    def __init__(
        self,
        services: Services,
        *,
        jump_to: Callable[[int], object],
        open_child: Callable[[str], object],
        page_size: int,
        no_writes: str | None,
        exporter: ExportService | None,
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._run = services.run_worker
        self._notify = services.notify
        self._push_screen = services.push_screen
        self._jump_to = jump_to
        self._open_child = open_child
        self._elsewhere = services.elsewhere
        self._page_size = page_size
        self._no_writes = no_writes
        self._exporter = exporter

    def call_jump(self, record: RawMessageRecord) -> Worker[None]:
        """Put the cursor on the other half of ``record``'s tool call (its result, or its call)."""
        return self._run(
            partial(self._call_jump, record),
            name="on_raw_log_view_call_jump",
            group="session",
            exclusive=True,
            description="call jump",
            exit_on_error=False,
        )

    async def _call_jump(self, record: RawMessageRecord) -> None:
        try:
            call_ids(record)
        except NotACall as reason:
            self._notify(str(reason), markup=False)
            return
        found = await self._reader.fetch(find_partner(self._store, record), "Could not search the Raw Log")
        if isinstance(found, Failed):
            return
        if found is None:
            self._notify("No matching tool call or result found", severity="warning", markup=False)
            return
        self._jump_to(found.sequence)

    def child(self, record: RawMessageRecord) -> Worker[None]:
        """Open the session ``record``'s ``task`` call delegated to."""
        return self._run(
            partial(self._child, record),
            name="on_raw_log_view_child_requested",
            group="session",
            exclusive=True,
            description="child requested",
            exit_on_error=False,
        )

    async def _child(self, record: RawMessageRecord) -> None:
        found = await self._reader.fetch(children_of(self._store, record), "Could not list delegated sessions")
        if isinstance(found, Failed):
            return
        if not found:
            self._notify("This message names no delegated session", markup=False)
            return
        if len(found) == 1:
            await self._open_checked(found[0].session_id)
            return
        from .choose_child import ChildChooser  # a screen's module loads when it first opens

        self._push_screen(ChildChooser(found), self._chosen)

    def _chosen(self, session_id: str | None) -> None:
        if session_id is not None:
            self._run(
                partial(self._open_checked, session_id),
                name="open_chosen_child",
                group="session",
                exclusive=True,
                description="open chosen child",
                exit_on_error=False,
            )

    async def _open_checked(self, session_id: str) -> None:
        """Open a child that is in this store; else say where it is (never a failed open)."""
        node = await self._reader.fetch(self._store.get_node(session_id), "Could not read the delegated session")
        if isinstance(node, Failed):
            return
        if node is None:
            self._notify(await not_here(session_id, self._elsewhere), severity="warning", markup=False, timeout=12)
            return
        self._open_child(session_id)

    def whole(self, record: RawMessageRecord) -> None:
        """The whole message in its own screen."""
        from .detail import MessageDetail

        title = f"#{record.sequence} {kind_name(record)}"
        self._push_screen(MessageDetail(title, partial(full_text, record)))  # formatted in a thread

    def summary(self, snapshot: SnapshotInfo) -> None:
        """A snapshot's whole summary in its own screen."""
        from .detail import MessageDetail

        # Formatted (10 MB cleaned) in the detail screen's thread, not here.
        self._push_screen(
            MessageDetail(f"v{snapshot.version} summary", lambda: join(summary_blocks(snapshot, limit=None)))
        )

    def context(self, record: RawMessageRecord) -> None:
        """The context the model was given at ``record`` (time travel)."""
        from .context import ContextScreen  # imported with the first time travel, not at start

        self._push_screen(
            ContextScreen(
                self._store,
                record.session_id,
                record.sequence,
                reader=self._reader,
                page_size=self._page_size,
                no_writes=self._no_writes,
            )
        )

    def timing(self, node: SessionNode | None, show_hit: Callable[[str, int], object]) -> None:
        """``T``: the timing view of the open session ``node``; it may lead to a child or a step."""
        if node is None:
            self._notify("Open a session first", markup=False)
            return
        from .timing import TimingScreen  # a screen's module loads when it first opens

        def closed(chosen: Chosen | None) -> None:
            if chosen is None:
                return
            if chosen.session_id is not None:
                show_hit(chosen.session_id, 1)
            elif chosen.sequence is not None:
                self._jump_to(chosen.sequence)

        self._push_screen(TimingScreen(self._store, node, self._reader), closed)

    def export(self, node: SessionNode | None) -> None:
        """``e``: the export dialog on the open session ``node``."""
        if self._no_writes is not None:
            self._notify(self._no_writes, severity="warning", markup=False, timeout=8)
        elif self._exporter is None:
            self._notify("This store cannot be exported from here", severity="warning", markup=False)
        elif node is not None:
            name = node_name(node)  # the one labelling rule
            from .export import ExportDialog  # a screen's module loads when it first opens

            self._push_screen(ExportDialog(self._exporter, node.session_id, name))


async def not_here(session_id: str, elsewhere: Callable[[str], str | None] | None) -> str:
    """Why ``o`` does not open a child missing from this store, and where it is when known."""
    where = None
    if elsewhere is not None:
        # A hint only: if the look fails, the notice still says the child is not here.
        found = await attempt(asyncio.to_thread(elsewhere, session_id))
        where = None if isinstance(found, Failed) else found
    shown = clean(session_id)
    if where is None:
        return f"Delegated session {shown} is not in this store"
    return f"child is in {clean(where)} — open it with: zett-browser {clean(where)} --session {shown}"


__all__ = ["Child", "RecordLinks", "not_here"]
