"""Provides pins, labels and notes on the main screen: :class:`ReviewMarks`.

``*`` pins or unpins, ``l`` labels and ``a`` writes a note on the session under the
tree's cursor (when the tree has the focus) or on the Raw Log's message (otherwise).
Everything written on the store is read once when the screen starts (it is what one
person wrote: small) and kept here; the tree shows the marks of sessions, the Raw Log
a card under each marked message. Writes go to the notes file only (never the store),
each an explicit key press, through :class:`~zett_browser.model.notes.NotesService`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from textual.worker import Worker

from ..model import RawMessageRecord, SessionNode
from ..model.notes import Annotation, NotesService, split_labels
from ..views.labels import node_name
from ..widgets.cardlayers import CardLayers
from ..widgets.inspector import Inspector
from ..widgets.rawlog import RawLogView
from ..widgets.review import review_lines
from ..widgets.safe import clean
from ..widgets.session_tree import SessionTree
from .reads import Failed, Services, attempt
from .review_input import ReviewInput

#: Why a key did nothing without a notes service.
NOT_OFFERED = "Pins, labels and notes are not offered here (a served app, or several stores at once)."


@dataclass(frozen=True, slots=True)
class Target:
    """What a key writes on: a session (``seq`` None) or one of its messages, and its name."""

    session_id: str
    seq: int | None
    name: str


class ReviewMarks:
    """The pins, labels and notes of the store, shown in the tree and the Raw Log.

    Args:
        services: Workers, notices and screens.
        service: The notes file (None: not offered, e.g. when served).
        tree: The session tree (marks on its labels).
        view: The Raw Log (its current message is a target).
        layers: The Raw Log's card layers (the ``review`` layer).
        inspector: The details pane (the open session's marks).
        open_id: The session open in the Raw Log.
    """

    def __init__(
        self,
        services: Services,
        service: NotesService | None,
        tree: SessionTree,
        view: RawLogView,
        layers: CardLayers,
        inspector: Inspector,
        open_id: Callable[[], str | None],
    ) -> None:
        self._inspector = inspector
        self._open_id = open_id
        self._services = services
        self._service = service
        self._tree = tree
        self._view = view
        self._layers = layers
        #: Everything written on the store, by (session id, sequence or None).
        self.marks: dict[tuple[str, int | None], Annotation] = {}
        #: Writes saved so far (a read of every mark that overlapped one reads again).
        self._writes = 0

    def load(self) -> Worker[None] | None:
        """Read everything written on the store (once, after the first screen) and show it."""
        if self._service is None:
            return None
        return self._services.run_worker(self._load, name="review", group="review", exclusive=True, exit_on_error=False)

    async def _load(self) -> None:
        service = self._service
        assert service is not None
        writes = -1
        found: list[Annotation] = []
        while writes != self._writes:  # a mark saved meanwhile may be missing from what was read
            writes = self._writes
            found = await self._services.reader.quietly(service.every(), [], "notes read")
        self.marks = {(item.session_id, item.seq): item for item in found}
        self._show()

    def page_shown(self, records: Sequence[RawMessageRecord]) -> None:
        """A page is shown: put the cards of its marked messages under them."""
        if records and self.marks:
            self._show_cards(records[-1].session_id)

    def _show(self) -> None:
        sessions = {session_id: item for (session_id, seq), item in self.marks.items() if seq is None}
        self._tree.labels.set_review(self._tree.root, sessions)
        if self._view.records:
            self._show_cards(self._view.records[-1].session_id)
        self.session_opened()

    def session_opened(self) -> None:
        """A session opened (or its marks changed): the details pane shows its own marks."""
        open_id = self._open_id()
        self._inspector.show_review(self.marks.get((open_id, None)) if open_id is not None else None)

    def _show_cards(self, session_id: str) -> None:
        cards = {
            seq: review_lines(item)
            for (marked, seq), item in self.marks.items()
            if marked == session_id and seq is not None and not item.empty
        }
        if cards or self._layers.cards("review", session_id):
            self._layers.show("review", session_id, cards)

    # ---------------------------------------------------------------- the keys

    def target(self, tree_focused: bool) -> Target | None:
        """The tree's session (``tree_focused``), else the Raw Log's message; None: nothing there."""
        if tree_focused:
            node = self._tree.cursor_node
            data = node.data if node is not None else None
            if isinstance(data, SessionNode):
                return Target(data.session_id, None, node_name(data))
            return None
        record = self._view.current
        if record is None:
            return None
        return Target(record.session_id, record.sequence, f"message #{record.sequence}")

    def current(self, target: Target) -> Annotation:
        """What is written on ``target`` now."""
        return self.marks.get((target.session_id, target.seq), Annotation(target.session_id, target.seq))

    def pin(self, target: Target | None) -> Worker[None] | None:
        """``*``: pin or unpin ``target``."""
        if (service := self._ready(target)) is None or target is None:
            return None
        return self._write(target, partial(service.toggle_pin, target.session_id, target.seq))

    def ask_labels(self, target: Target | None) -> None:
        """``l``: ask for ``target``'s labels (comma-separated), then save them."""
        if (service := self._ready(target)) is None or target is None:
            return
        labels = ", ".join(self.current(target).labels)
        screen = ReviewInput("Labels", target.name, labels, "good, regression, … (commas between)")

        def save(text: str | None) -> None:
            if text is not None:
                self._write(target, partial(service.set_labels, target.session_id, target.seq, split_labels(text)))

        self._services.push_screen(screen, save)

    def ask_note(self, target: Target | None) -> None:
        """``a``: ask for ``target``'s note, then save it."""
        if (service := self._ready(target)) is None or target is None:
            return
        screen = ReviewInput("Note", target.name, self.current(target).note or "", "a note")

        def save(text: str | None) -> None:
            if text is not None:
                self._write(target, partial(service.set_note, target.session_id, target.seq, text))

        self._services.push_screen(screen, save)

    def _ready(self, target: Target | None) -> NotesService | None:
        if self._service is None:
            self._services.notify(NOT_OFFERED, severity="warning", markup=False)
            return None
        if target is None:
            self._services.notify("Nothing to mark here: choose a session or a message.", markup=False)
            return None
        return self._service

    def _write(self, target: Target, change: Callable[[], object]) -> Worker[None]:
        return self._services.run_worker(
            partial(self._written, target, change), group="review-write", exit_on_error=False
        )

    async def _written(self, target: Target, change: Callable[[], object]) -> None:
        result = await attempt(change())  # type: ignore[arg-type]
        if isinstance(result, Failed):
            self._services.notify(f"Not saved: {clean(result.error)}", severity="error", markup=False, timeout=8)
            return
        assert isinstance(result, Annotation)
        self._writes += 1
        key = (target.session_id, target.seq)
        if result.empty:
            self.marks.pop(key, None)
        else:
            self.marks[key] = result
        self._show()


__all__ = ["NOT_OFFERED", "ReviewMarks", "Target"]
