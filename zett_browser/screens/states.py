"""Provides the main screen's session-state controller: how sessions' last requests ended.

:class:`StateMarks` wires the tree's marks (:meth:`TreeLevels.marks_for` reads a page's
states and untitled labels; a change poll re-reads the sessions it changed) and decorates
the open session's breadcrumb once its page shows and the keys pause (the start-up reader
answers no such read, and the storage it needs must not load before the first frame).
Decoration only: a failed read changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.worker import Worker

from ..model.frozen import replace
from ..model.session_state import SessionState, classify
from ..text import clean
from ..widgets.status import Breadcrumb, session_label
from .levels import TreeLevels
from .reads import Services
from .session import SessionPane
from .watch import ChangePoller, OpenSession


class StateMarks:
    """The states on the tree and on the open session's breadcrumb.

    Args:
        services: The store, the read helper, workers.
        breadcrumb: The open session's line.
        levels: The tree's levels (their pages get marks).
        poller: The change poll (the sessions it changed get marks again).
        pane: The open session (and its labels of untitled sessions).
        set_title: Shows the open session's name and id (an untitled root's, once named).
    """

    def __init__(
        self,
        services: Services,
        breadcrumb: Breadcrumb,
        levels: TreeLevels,
        poller: ChangePoller,
        pane: SessionPane,
        set_title: Callable[[str], object] | None = None,
    ) -> None:
        self._store = services.store
        self._reader = services.reader
        self._run = services.run_worker
        self._breadcrumb = breadcrumb
        self._open: Callable[[], OpenSession | None] = lambda: pane.open
        self._child_labels = pane.child_labels
        self._set_title = set_title
        poller.changed = levels.marks_for
        levels.states_read = self.states_read

    def states_read(self, states: dict[str, SessionState]) -> None:
        """States read for the tree: the open session's breadcrumb follows its own."""
        state = self._open()
        if state is not None and state.node.session_id in states:
            self._breadcrumb.show_state(states[state.node.session_id])

    def decorate(self) -> Worker[None]:
        """The open session's state, and an untitled root's first prompt, on its breadcrumb."""
        return self._run(
            self._decorate,
            name="decorate",
            group="session-state",
            exclusive=True,
            description="session state",
            exit_on_error=False,
        )

    async def _decorate(self) -> None:
        opened, shown = self._open(), self._breadcrumb.session
        if opened is None or shown is None or shown[1].session_id != opened.node.session_id:
            return
        ancestors, node = shown
        session_id = node.session_id
        last = await self._reader.quietly(self._store.last_rows([session_id]), {}, "session state")
        if not node.title and node.label_hint is None and not node.parent_session_id:
            # A root: the real runtime never titles one; its first prompt names it, as in the tree.
            hints = await self._reader.quietly(self._child_labels(None, [node]), {}, "root label")
            if session_id in hints:
                node = replace(node, label_hint=hints[session_id])
        opened = self._open()
        if opened is not None and opened.node.session_id == session_id:
            state = classify(last[session_id]) if session_id in last else None
            self._breadcrumb.show_session(ancestors, node, state)
            if self._set_title is not None and node.label_hint:
                self._set_title(f"{session_label(node, 30)} · {clean(session_id)}")
