"""Provides the virtual list of snapshot versions shared by the inspector and the ledger.

A long compacted session holds thousands of versions; an ``OptionList`` mounted one
option per version (2,500 of them cost about half a second). This list holds the
versions' metadata only and paints the lines on screen through the line API, as the
Raw Log pane does: a row is rendered when it is scrolled into view, so a list of 2,500
versions costs what its visible lines cost. ``space`` marks a version and ``D`` asks
for the diff between the marked one (default: the previous one) and the highlighted one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..keymap import bindings
from ..model.compaction import SnapshotMeta
from ..model.origins import Origin, OriginKind
from .linestyle import LineView
from .render import style_of
from .textual_compat import set_virtual_size

#: Renders row ``index`` of the list to fit ``width`` columns (safe text only).
RowRenderer = Callable[[int, int], Text]


#: The list's word for what made a version (the inspector's summary says it whole).
ORIGIN_TAGS = {OriginKind.IN_REQUEST: "auto", OriginKind.COMPACT_CALL: "compact()"}


def version_label(meta: SnapshotMeta, made: Origin | None = None) -> Text:
    """The inspector's line of one version: number, boundary, what made it, time, problems."""
    label = Text(f"v{meta.version}", style=style_of("boundary"))
    label.append(f"  through #{meta.compacted_through_sequence:,}")
    tag = ORIGIN_TAGS.get(made.kind) if made is not None else None
    if tag:
        label.append(f"  {tag}", style=style_of("agent"))
    if meta.created_at is not None:
        label.append(f"  {meta.created_at:%Y-%m-%d %H:%M}", style="dim")
    if meta.problems:
        label.append("  unreadable", style=style_of("problem"))
    return label


class VersionList(LineView, can_focus=True):
    """Snapshot versions, one line each, painted only where they are on screen."""

    BINDINGS = bindings("versions")
    COMPONENT_CLASSES = {"versions--cursor", "versions--cursor-blurred"}
    DEFAULT_CSS = """
    VersionList { height: 1fr; overflow-x: hidden; padding: 0 1; }
    VersionList > .versions--cursor { background: $accent 40%; }
    VersionList > .versions--cursor-blurred { background: $foreground 10%; }
    """

    class Highlighted(Message):
        """The cursor moved to another version."""

        def __init__(self, meta: SnapshotMeta) -> None:
            super().__init__()
            self.meta = meta

    class Chosen(Message):
        """``enter`` on a version."""

        def __init__(self, meta: SnapshotMeta) -> None:
            super().__init__()
            self.meta = meta

    class OriginsWanted(Message):
        """Versions painted (or about to be) whose origin is not known yet: the screen reads
        what made them (the rows on screen first, more as the list scrolls)."""

        def __init__(self, versions: list[SnapshotMeta]) -> None:
            super().__init__()
            self.versions = versions

    class DiffWanted(Message):
        """``D``: diff ``older`` with ``newer`` (ordered by version)."""

        def __init__(self, older: SnapshotMeta, newer: SnapshotMeta) -> None:
            super().__init__()
            self.older = older
            self.newer = newer

    def __init__(self, *, renderer: RowRenderer | None = None, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.versions: list[SnapshotMeta] = []
        self.cursor = 0
        #: Index of the version marked with space (the diff's other side), or None.
        self.marked: int | None = None
        self._renderer = renderer
        #: What made each version (version number -> origin), read after the list shows.
        self.origins: dict[int, Origin] = {}
        #: Whether painting a version without its origin asks for it (the inspector's list).
        self.wants_origins = False
        #: Versions whose origin was asked for (each once per list of versions).
        self._asked: set[int] = set()
        self._asking = False
        #: The cursor is yet to be scrolled on screen (rows painted meanwhile are not asked for).
        self._placing = False
        self._cache: dict[int, Strip] = {}
        self._width = 0

    def show(self, versions: Sequence[SnapshotMeta], *, cursor: int | None = None) -> None:
        """Replace the versions; the cursor goes to ``cursor`` (default: the latest)."""
        previous = self.versions[self.cursor].version if self.versions and cursor is None else None
        self.versions = list(versions)
        self._asked.clear()
        self.marked = None if self.marked is None or self.marked >= len(self.versions) else self.marked
        self._cache.clear()
        self._resize()
        last = len(self.versions) - 1
        self.cursor = max(0, last if cursor is None else min(cursor, last))
        if previous is not None and cursor is None and self.has_focus:
            # A refresh while the user reads keeps the cursor on their version.
            self.cursor = next((i for i, m in enumerate(self.versions) if m.version == previous), self.cursor)
        self._move(self.cursor, announce=True)

    def invalidate(self) -> None:
        """Re-render every row (their text changed: the ledger's facts arrived)."""
        self._cache.clear()
        self.refresh()

    @property
    def current(self) -> SnapshotMeta | None:
        return self.versions[self.cursor] if self.versions else None

    def visible_range(self) -> range:
        """Indexes of the rows on screen now."""
        height = self.scrollable_content_region.height or self.size.height or 1
        top = int(self.scroll_y)
        return range(top, min(len(self.versions), top + height))

    def _resize(self) -> None:
        width = self.scrollable_content_region.width or 40
        set_virtual_size(self, Size(width, max(1, len(self.versions))))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.versions))

    def on_resize(self) -> None:
        self._cache.clear()
        self._resize()
        # Shown before it had a size (a session opened at start): the cursor (the latest
        # version) is brought on screen once the list knows its height.
        self._placing = True
        self.call_after_refresh(self._scroll_to_cursor)

    def _strip(self, index: int, width: int) -> Strip:
        if width != self._width:
            self._cache.clear()
            self._width = width
        cached = self._cache.get(index)
        if cached is None:
            text = (
                self._renderer(index, width)
                if self._renderer
                else version_label(self.versions[index], self.origins.get(self.versions[index].version))
            )
            if index == self.marked:
                text = Text("● ", style="bold") + text
            text.truncate(width, overflow="ellipsis")
            cached = Strip(list(text.render(self.app.console, end="")))
            self._cache[index] = cached
        return cached

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width or self.size.width
        if index >= len(self.versions):
            return Strip.blank(width, self.line_style)
        strip = self._strip(index, width)
        if self.wants_origins and not self._asking and self.versions[index].version not in self.origins:
            self._asking = True
            self.call_after_refresh(self._ask_origins)
        fill = self.line_style
        if index == self.cursor:
            part = "versions--cursor" if self.has_focus else "versions--cursor-blurred"
            cursor = self.cursor_style(part)
            strip, fill = strip.apply_style(cursor), fill + cursor
        return strip.crop_extend(scroll_x, scroll_x + width, fill)

    def _ask_origins(self) -> None:
        """Ask for the origins not known of the rows on screen and a screen either side."""
        if self._placing:  # the rows painted now are not the ones the reader will see
            self.call_after_refresh(self._ask_origins)
            return
        self._asking = False
        shown = self.visible_range()
        margin = max(1, len(shown))
        wanted = [
            meta
            for meta in self.versions[max(0, shown.start - margin) : shown.stop + margin]
            if meta.version not in self.origins and meta.version not in self._asked
        ]
        if wanted:
            self._asked.update(meta.version for meta in wanted)
            self.post_message(self.OriginsWanted(wanted))

    def on_screen_window(self) -> list[SnapshotMeta]:
        """The versions on screen and a screen either side (what a refresh of origins reads)."""
        shown = self.visible_range()
        margin = max(1, len(shown))
        return self.versions[max(0, shown.start - margin) : shown.stop + margin]

    def _move(self, index: int, *, announce: bool = False) -> None:
        if not self.versions:
            self.refresh()
            return
        moved = index != self.cursor
        self.cursor = max(0, min(len(self.versions) - 1, index))
        height = self.scrollable_content_region.height or self.size.height or 1
        if self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= self.scroll_y + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        if not self.size.height:
            self.call_after_refresh(self._scroll_to_cursor)
        self.refresh()
        if moved or announce:
            self.post_message(self.Highlighted(self.versions[self.cursor]))

    def _scroll_to_cursor(self) -> None:
        self._placing = False
        height = self.scrollable_content_region.height or self.size.height or 1
        if not self.scroll_y <= self.cursor < self.scroll_y + height:
            self.scroll_to(y=max(0, self.cursor - height + 1), animate=False)

    def action_cursor(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_page(self, direction: int) -> None:
        height = self.scrollable_content_region.height or self.size.height or 1
        self._move(self.cursor + direction * max(1, height - 1))

    def action_edge(self, direction: int) -> None:
        self._move(0 if direction < 0 else len(self.versions) - 1)

    def action_choose(self) -> None:
        if self.current is not None:
            self.post_message(self.Chosen(self.current))

    def action_mark(self) -> None:
        """Mark the highlighted version as the diff's other side (again: unmark)."""
        if not self.versions:
            return
        old = self.marked
        self.marked = None if self.marked == self.cursor else self.cursor
        for index in {old, self.marked} - {None}:
            self._cache.pop(index, None)  # type: ignore[arg-type]
        self.refresh()

    def action_diff(self) -> None:
        """Diff the highlighted version with the marked one, or with the previous one."""
        if not self.versions:
            return
        other = self.marked if self.marked is not None and self.marked != self.cursor else self.cursor - 1
        if other < 0:
            first = self.versions[self.cursor].version
            self.app.notify(f"v{first} is the first version: mark another with space", markup=False)
            return
        older, newer = sorted((self.versions[other], self.versions[self.cursor]), key=lambda m: m.version)
        self.post_message(self.DiffWanted(older, newer))

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int) and self.versions:
            index = int(self.scroll_y) + y
            if index < len(self.versions):
                self._move(index)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
