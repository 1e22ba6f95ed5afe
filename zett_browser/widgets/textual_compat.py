"""Provides the only code that touches private Textual internals.

Three measured costs are avoided by reaching below Textual's public API (see the comments
where each is used). Keeping every such access here, named, lets
``tests/unit/test_textual_compat.py`` check that each private name still exists on the
installed Textual, so an upgrade that renames one fails a quick test loudly instead of
silently losing the optimisation or raising at the first key press.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Footer, Tree
from textual.widgets._footer import FooterKey

#: (class, attribute) pairs this module relies on; the unit test checks each one.
PRIVATE_NAMES: tuple[tuple[type, str], ...] = (
    (Footer, "_bindings_ready"),
    (FooterKey, "compact"),
    (Tree, "_toggle_node"),
    (Tree, "_tree_lines"),
    (ScrollView, "_scroll_update"),
    (Widget, "set_reactive"),
    (Widget, "virtual_size"),
    (App, "_begin_batch"),
    (App, "_end_batch"),
    (Screen, "_compositor_refresh"),
)


def footer_ready(footer: Footer) -> bool:
    """True once a footer has built its key widgets at least once."""
    return bool(footer._bindings_ready)


def settle_footer_key(widget: Widget, compact: bool) -> None:
    """Give a new footer key its footer's ``compact`` before it is mounted.

    A ``FooterKey`` starts compact and is data-bound to its footer's (not compact) value:
    mounting it adds and then removes the ``-compact`` class, and each change restyles the
    whole screen. With ten keys that was ~30 ms of a ~150 ms first screen. Set beforehand,
    the binding finds the value it would set and nothing is restyled.
    """
    if isinstance(widget, FooterKey):
        widget.set_reactive(FooterKey.compact, compact)
        widget.set_class(compact, "-compact", update=False)


def set_scroll_range(view: ScrollView, size: Size) -> None:
    """Change a scroll view's virtual size without asking the screen for a layout.

    Assigning ``virtual_size`` lays out the whole screen (the reactive has ``layout=True``);
    when the content overflows the view before and after, only the scrollbars' range changes.
    """
    view.set_reactive(type(view).virtual_size, size)
    view._scroll_update(size)


def tree_toggle(tree: Tree[Any], node: Any) -> None:
    """Textual's own expand/collapse of a tree node (what ``Tree`` does on enter/space/click)."""
    Tree._toggle_node(tree, node)


def tree_build_lines(tree: Tree[Any]) -> None:
    """Build a tree's lines now (Textual builds them at the next idle or frame), so a node
    added since has its line number for ``move_cursor`` and ``scroll_to_node``."""
    tree._tree_lines  # noqa: B018 - the property builds the lines


def hold_repaints(app: App[Any]) -> None:
    """Stop ``app`` writing frames until :func:`release_repaints` (``batch_update`` split in two)."""
    app._begin_batch()


def release_repaints(app: App[Any]) -> None:
    """Let ``app`` write frames again (its screen repaints at the next idle)."""
    app._end_batch()


class FrameHold:
    """A screen mixin: while :meth:`frames_held` is True, no frame is even computed.

    During a batch Textual still lays out and renders a whole frame after each resize and
    layout, then drops it unwritten; on the first screen that is two full-screen renders
    of empty panes (~40 ms each) before the one with the data. The screen is laid out and
    repainted in full when the hold ends.
    """

    def frames_held(self) -> bool:
        return False

    def _compositor_refresh(self) -> None:
        if self.frames_held():
            return
        super()._compositor_refresh()  # type: ignore[misc]
