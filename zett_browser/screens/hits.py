"""Provides the main screen's search controller: the search view, the hits, the tree filter.

:class:`SearchHits` keeps the last query (``/`` opens the search view on it), steps
through its hits in the open session (``.`` and ``,``, cached per session until the next
index sync) and filters the tree by a query (``F``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.worker import Worker

from ..model.search import SearchHit, SearchService
from ..widgets.rawlog import RawLogView
from ..widgets.safe import one_line
from ..widgets.session_tree import SessionTree
from .indexstate import IndexState
from .reads import Failed, Services


class SearchHits:
    """The last search and what is done with it.

    Args:
        service: The search service (None: ``--no-index``).
        index: How far the index is built (the search view notes partial results).
        services: The read helper, workers, notices and screens.
        tree: The session tree (filtered by ``F``).
        view: The Raw Log (its cursor is where ``.``/``,`` step from).
        open_session: The open session's id, or None.
        show_hit: Opens a session at a sequence, remembering the place left.
        show_sequence: Moves the Raw Log's cursor to a sequence of the open session.
    """

    def __init__(
        self,
        service: SearchService | None,
        index: IndexState,
        services: Services,
        tree: SessionTree,
        view: RawLogView,
        *,
        open_session: Callable[[], str | None],
        show_hit: Callable[[str, int], object],
        show_sequence: Callable[[int], object],
    ) -> None:
        self._service = service
        self._index = index
        self._reader = services.reader
        self._tree = tree
        self._view = view
        self._run = services.run_worker
        self._notify = services.notify
        self._push_screen = services.push_screen
        self._open_session = open_session
        self._show_hit = show_hit
        self._show_sequence = show_sequence
        #: The last query (the search view opens on it; ``F`` filters by it).
        self.text: str | None = None
        self._session_hits: tuple[str, str, list[int]] | None = None

    def synced(self, current: object) -> None:
        """The index changed: the cached hits are stale, and the ``current`` screen, if it is
        a search view showing partial results, runs its query again."""
        self._session_hits = None
        from .search import SearchScreen  # the search view imports the indexing module

        if isinstance(current, SearchScreen) and current.partial:
            current.run_query(current.query_text)

    def open_view(self) -> None:
        """``/``: the search view on the last query."""
        service = self._service
        if service is None:
            self._notify("Search is off (--no-index)", severity="warning", markup=False)
            return
        from .search import SearchScreen  # a screen's module loads when it first opens

        screen = SearchScreen(service, self._index, self.text or "", session=self._open_session())
        self._push_screen(screen, self._hit_chosen)

    def _hit_chosen(self, result: tuple[str, SearchHit | None] | None) -> None:
        if result is None:
            return
        text, hit = result
        self.text = text or None
        if hit is not None:
            self._show_hit(hit.session_id, hit.sequence)

    def step(self, step: int) -> Worker[None]:
        """Jump the Raw Log to the next (``step`` 1) or previous (-1) hit in the open session."""
        return self._run(
            partial(self._step, step),
            name="action_hit",
            group="hits",
            exclusive=True,
            description="action_hit",
            exit_on_error=False,
        )

    async def _step(self, step: int) -> None:
        service, text, session_id = self._service, self.text, self._open_session()
        if service is None or session_id is None:
            return
        if not text:
            self._notify("No search yet: / searches", markup=False)
            return
        cached = self._session_hits
        if cached is not None and cached[:2] == (text, session_id):
            sequences = cached[2]
        else:
            found = await self._reader.fetch(service.sequences_in(text, session_id), "Could not search the session")
            if not isinstance(found, list):
                return
            sequences = found
            self._session_hits = (text, session_id, sequences)
        current = self._view.current
        here = current.sequence if current is not None else 0
        ahead = [s for s in sequences if s > here] if step > 0 else [s for s in reversed(sequences) if s < here]
        if not sequences:
            self._notify("No hits of the last search in this session", markup=False)
        elif not ahead:
            self._notify(
                "No more hits in this session" if step > 0 else "No earlier hits in this session", markup=False
            )
        else:
            place = sequences.index(ahead[0]) + 1
            self._notify(f"Hit {place} of {len(sequences)} in this session", markup=False, timeout=2)
            self._show_sequence(ahead[0])

    # ---------------------------------------------------------------- tree filter (issue 11)

    def filter_tree(self) -> None:
        """``F``: show only the sessions the last search matches (``esc`` in the tree clears)."""
        if not self.text:
            self._notify("Search first (/): F then filters the tree by that query", markup=False)
            return
        self.apply_filter(self.text)
        self._tree.focus()

    def apply_filter(self, query: str) -> Worker[None]:
        """Filter the tree by a query of the search language; an empty query clears it."""
        return self._run(
            partial(self._apply_filter, query),
            name="apply_tree_filter",
            group="tree-filter",
            exclusive=True,
            description="apply_tree_filter",
            exit_on_error=False,
        )

    async def _apply_filter(self, query: str) -> None:
        """The matching sessions come from the side index; a bad query or search switched
        off is a one-line notice."""
        tree = self._tree
        if not query.strip():
            tree.clear_filter()
            return
        service = self._service
        if service is None:
            self._notify("Search is off (--no-index): no tree filter", severity="warning", markup=False)
            return
        found = await self._reader.attempt(service.sessions_matching(query, self._open_session()))
        if isinstance(found, Failed):
            error = found.error
            if isinstance(error, ValueError):  # a bad query: the message names the token
                self._notify(one_line(str(error), 200), severity="error", markup=False)
            else:  # a locked or damaged index: say so, keep the tree
                self._notify(f"Could not filter the tree: {one_line(error, 200)}", severity="error", markup=False)
            return
        if found.partial:
            self._notify("The index is still being built: the filter may miss sessions", markup=False)
        tree.apply_filter(set(found.matching), set(found.visible), query)
