"""Provides the only code that touches private Textual internals.

Three measured costs are avoided by reaching below Textual's public API (see the comments
where each is used). Keeping every such access here, named, lets
``tests/unit/test_textual_compat.py`` check that each private name still exists on the
installed Textual, so an upgrade that renames one fails a quick test loudly instead of
silently losing the optimisation or raising at the first key press.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import UPDATE_PERIOD, Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Footer, Tree
from textual.widgets._footer import FooterKey
from textual.widgets._tree import _TreeLine

#: (class, attribute) pairs this module relies on; the unit test checks each one.
PRIVATE_NAMES: tuple[tuple[type, str], ...] = (
    (Footer, "_bindings_ready"),
    (FooterKey, "compact"),
    (Tree, "_toggle_node"),
    (Tree, "_tree_lines"),
    (_TreeLine, "_get_guide_width"),
    (ScrollView, "_scroll_update"),
    (Widget, "set_reactive"),
    (Widget, "virtual_size"),
    (App, "_begin_batch"),
    (App, "_end_batch"),
    (Screen, "_compositor_refresh"),
    (App, "_display"),
    (Screen, "_on_idle"),
    (Screen, "_on_timer_update"),
)

#: (class, attribute) pairs of instance attributes (set by ``__init__``) read here; the
#: unit test builds an instance of each class and checks each one.
PRIVATE_INSTANCE_NAMES: tuple[tuple[str, str], ...] = (
    ("textual.app.App", "_batch_count"),
    ("textual.app.App", "_driver"),
    ("textual.screen.Screen", "_layout_required"),
    ("textual.screen.Screen", "_scroll_required"),
    ("textual.screen.Screen", "_repaint_required"),
    ("textual.screen.Screen", "_dirty_widgets"),
    ("textual.drivers.linux_driver.LinuxDriver", "_writer_thread"),
    ("textual.drivers._writer_thread.WriterThread", "_queue"),
)

#: Textual's private modules imported here (or by ``let_output_through``'s objects).
PRIVATE_MODULES = ("textual.widgets._footer", "textual.widgets._tree", "textual.drivers._writer_thread")


def footer_ready(footer: Footer) -> bool:
    """True once a footer has built its key widgets at least once."""
    return bool(footer._bindings_ready)


def settle_footer_key(widget: Widget, footer_compact: bool) -> None:
    """Give a new footer key the ``compact`` it will have, before it is mounted.

    A ``FooterKey`` starts compact; the footer data-binds its keys to its own (not compact)
    value, so mounting one added and then removed the ``-compact`` class, and each change
    restyled the whole screen: with ten keys ~30 ms of a ~150 ms first screen. Set
    beforehand, nothing changes on mount. (The command palette's key is not bound: it
    keeps its default, compact, with the class set now instead of by its first watcher call.)
    """
    if isinstance(widget, FooterKey):
        # (Reading ``widget.compact`` here would run its watcher already: the very restyle.)
        compact = True if widget.has_class("-command-palette") else footer_compact
        widget.set_reactive(FooterKey.compact, compact)
        widget.set_class(compact, "-compact", update=False)


def set_scroll_range(view: ScrollView, size: Size) -> None:
    """Change a scroll view's virtual size without asking the screen for a layout.

    Assigning ``virtual_size`` lays out the whole screen (the reactive has ``layout=True``);
    when the content overflows the view before and after, only the scrollbars' range changes.
    """
    view.set_reactive(type(view).virtual_size, size)
    view._scroll_update(size)


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a scroll view a new virtual size, laying out the screen only when it must.

    When the content overflows the view before and after at the same width, the scrollbar
    stays and only its range changes (:func:`set_scroll_range`); assigning ``virtual_size``
    would lay out the whole screen (~20 ms) for nothing, e.g. at every new version while
    following or at every wrap step of a long page.
    """
    old = view.virtual_size
    height = view.scrollable_content_region.height
    if old.width == size.width and height and min(old.height, size.height) > height:
        set_scroll_range(view, size)
    else:
        view.virtual_size = size


def tree_toggle(tree: Tree[Any], node: Any) -> None:
    """Textual's own expand/collapse of a tree node (what ``Tree`` does on enter/space/click)."""
    Tree._toggle_node(tree, node)


def tree_build_lines(tree: Tree[Any]) -> None:
    """Build a tree's lines now (Textual builds them at the next idle or frame), so a node
    added since has its line number for ``move_cursor`` and ``scroll_to_node``."""
    tree._tree_lines  # noqa: B018 - the property builds the lines


def tree_relabelled(tree: Tree[Any]) -> None:
    """Fit a tree's width (its horizontal scroll range) to its labels after some changed:
    ``TreeNode.set_label`` repaints the node's line but leaves the width as it was, so a
    badge that came and went left a scroll bar behind (depending on timing: a flaky
    snapshot). Only the width is set, and only when it changed: no layout (a followed
    session relabels its node at every poll).

    When the tree overflows its width before and after (or fits before and after) and keeps
    its height, the horizontal scroll bar stays as it is and only its range changes: that is
    set without laying out the screen (assigning ``virtual_size`` laid out the whole screen
    and repainted every pane, 20-30 ms with 100 nodes open, whenever a followed session's
    label changed width)."""
    lines = tree._tree_lines
    if not lines:
        return
    depth, show_root = tree.guide_depth, tree.show_root
    width = max(tree.get_label_width(line.node) + line._get_guide_width(depth, show_root) for line in lines)
    old = tree.virtual_size
    if width == old.width:
        return
    size = Size(width, len(lines))
    view = tree.scrollable_content_region.width
    if view and size.height == old.height and (old.width > view) == (width > view):
        set_scroll_range(tree, size)
    else:
        tree.virtual_size = size


def hold_repaints(app: App[Any]) -> None:
    """Stop ``app`` writing frames until :func:`release_repaints` (``batch_update`` split in two)."""
    app._begin_batch()


def release_repaints(app: App[Any]) -> None:
    """Let ``app`` write frames again (its screen repaints at the next idle)."""
    app._end_batch()


class FrameHold:
    """A screen mixin: no frame is even computed while :meth:`frames_held` is True, and an
    update after a pause is drawn at once.

    During a batch Textual still lays out and renders a whole frame after each resize and
    layout, then drops it unwritten; on the first screen that is two full-screen renders
    of empty panes (~40 ms each) before the one with the data. The screen is laid out and
    repainted in full when the hold ends.

    Textual draws a screen's pending updates from a 60 Hz timer, resumed when the screen
    goes idle: its next tick comes up to 16.7 ms later, and the loop waits idle until then.
    That wait was in every page turn (8 ms on average) and in the first paint (17 ms
    measured). Here the first update after a frame period without one is drawn as the
    screen goes idle; updates that follow closer than that still wait for the timer, so
    frames never come faster than Textual's rate.
    """

    _last_frame = 0.0

    def frames_held(self) -> bool:
        return False

    def _compositor_refresh(self) -> None:
        if self.frames_held():
            return
        self._last_frame = time.monotonic()
        super()._compositor_refresh()  # type: ignore[misc]

    async def _on_idle(self, event: events.Idle) -> None:
        screen: Any = self
        if (
            not self.frames_held()
            and not screen.app._batch_count
            and screen.is_current
            and time.monotonic() - self._last_frame >= UPDATE_PERIOD
            and _update_pending(screen)
        ):
            screen._on_timer_update()  # what the timer's next tick would do, now
        await super()._on_idle(event)  # type: ignore[misc]


def _update_pending(screen: Any) -> bool:
    """The screen has a layout, scroll or repaint waiting for the update timer."""
    return bool(screen._layout_required or screen._scroll_required or screen._repaint_required or screen._dirty_widgets)


#: Longest a frame waits for Textual's output thread to take it (then the loop goes on).
OUTPUT_WAIT_S = 0.005


def let_output_through(app: App[Any], budget: float = OUTPUT_WAIT_S) -> None:
    """Block until Textual's output thread has taken the frames queued so far (or ``budget``).

    Textual hands each frame to a thread that writes it to the terminal. That thread needs
    the GIL, and CPython gives it to a waiting thread only when the holder has kept it for
    5 ms without a switch: the event loop, releasing it for an instant in every ``select``,
    never does. So while the loop had work after a frame (the rest of a page's layout, in
    4 ms steps), the frame sat in the queue: 20-30 ms measured in tmux after a page turn,
    whose frame was ready after ~20 ms. Sleeping a fraction of a millisecond here releases
    the GIL long enough for the thread to wake and take it. No-op without an output thread
    (headless and test runs).
    """
    writer = getattr(app._driver, "_writer_thread", None)
    queue = getattr(writer, "_queue", None)
    if queue is None:
        return
    deadline = time.perf_counter() + budget
    while queue.qsize() and time.perf_counter() < deadline:
        time.sleep(0.0001)


class PromptOutput:
    """An App mixin: each frame reaches the terminal before the loop goes on (see
    :func:`let_output_through`)."""

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        super()._display(screen, renderable)  # type: ignore[misc]
        if renderable is not None:
            let_output_through(self)  # type: ignore[arg-type]
