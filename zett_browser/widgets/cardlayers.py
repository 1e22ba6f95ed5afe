"""Provides the Raw Log's card layers: lines from several sources under the same messages.

Delegation cards (what a ``task`` call's child did) and review cards (a message's pin,
labels and note) are read by different controllers at different times. Each hands its
cards for one session to a layer of :class:`CardLayers`, which puts them together, in
the order of :data:`ORDER`, under the messages of the page the view shows. The view
itself keeps one dict of cards (:meth:`RawLogView.show_cards`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from .rawlog import RawLogView

#: The layers, top to bottom under a message.
ORDER = ("delegation", "review")


class CardLayers:
    """The card layers of one Raw Log view."""

    def __init__(self, view: RawLogView) -> None:
        self._view = view
        self._layers: dict[str, tuple[str, dict[int, list[Text]]]] = {}

    def cards(self, layer: str, session_id: str) -> Mapping[int, Sequence[Text]]:
        """The cards ``layer`` holds for ``session_id`` (empty when it holds another session's)."""
        held = self._layers.get(layer)
        return held[1] if held is not None and held[0] == session_id else {}

    def show(self, layer: str, session_id: str, cards: dict[int, list[Text]]) -> None:
        """Put ``layer``'s cards for ``session_id`` under the shown page's messages."""
        self._layers[layer] = (session_id, cards)
        view = self._view
        shown = view.records[0].session_id if view.records else None
        merged: dict[int, list[Text]] = {}
        for name in ORDER:
            held = self._layers.get(name)
            if held is None or held[0] != shown:
                continue
            for sequence, lines in held[1].items():
                merged.setdefault(sequence, []).extend(lines)
        if merged != view.cards:  # unchanged cards (the next sync of a live store) lay nothing out again
            view.show_cards(merged)


__all__ = ["ORDER", "CardLayers"]
