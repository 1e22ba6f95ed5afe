"""Provides the snapshot/boundary inspector: every version, the model's context, the summary.

A long compacted session holds thousands of versions (100,000 messages compacted every
40 hold 2,500): the list is a virtual :class:`VersionList` over their metadata, and a
summary is decoded only when its version is highlighted (the screen hands a loader;
the widget never reads the store itself). A summary can be megabytes (a 10 MB one froze
the UI for a minute when shown whole in a ``Static``): the pane shows a bounded preview
and ``s`` asks the screen to open the highlighted version whole in the detail view.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from ..keymap import bindings
from ..model import SnapshotInfo
from ..model.compaction import SnapshotMeta
from ..model.notes import Annotation
from ..model.origins import Origin
from ..views.formatting import summary_blocks
from .render import block_text
from .review import review_lines
from .safe import one_line
from .versions import VersionList

#: Reads one version's summary (the screen's store call): version -> decoded, or None.
SummaryLoader = Callable[[int], Awaitable[SnapshotInfo | None]]


class Inspector(Vertical):
    """Snapshot versions of the open session and what the model sees."""

    BINDINGS = bindings("inspector")

    class VersionChosen(Message):
        """The user chose a snapshot version: jump to its boundary."""

        def __init__(self, snapshot: SnapshotMeta | SnapshotInfo) -> None:
            super().__init__()
            self.snapshot = snapshot

    class SummaryOpened(Message):
        """The user asked to read a version's summary whole."""

        def __init__(self, snapshot: SnapshotInfo) -> None:
            super().__init__()
            self.snapshot = snapshot

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        #: The summary shown now (decoded), and how many summaries were decoded for the pane.
        self.summary_shown: SnapshotInfo | None = None
        self.decoded = 0
        self._loader: SummaryLoader | None = None
        self._counts: tuple[int, int | None, int | None] = (0, None, None)
        #: The no-compaction line shown last (a live count changes it without a layout).
        self._count_line: str | None = None
        #: (width, wrapped lines) of what :meth:`_update` showed last, by widget id.
        self._heights: dict[str | None, tuple[int, int] | None] = {}

    def compose(self) -> ComposeResult:
        review = Static(id="inspector-review")
        review.display = False  # shown when the session carries a pin, labels or a note
        yield review
        yield Static(Text("Snapshots", style="bold"), id="inspector-title")
        versions = VersionList(id="inspector-versions")
        versions.wants_origins = True  # what made each version: read for the rows painted
        yield versions
        yield Static(id="inspector-context")
        with VerticalScroll(id="inspector-summary-scroll"):
            yield Static(id="inspector-summary")

    def show_review(self, review: Annotation | None) -> None:
        """Show the open session's pin, labels and note above its snapshots (None: hide them)."""
        pane = self.query_one("#inspector-review", Static)
        pane.display = review is not None and not review.empty
        if review is not None and not review.empty:
            text = Text("Review", style="bold")
            for line in review_lines(review, bar=False):
                text.append("\n").append_text(line)
            pane.update(text)

    @property
    def snapshots(self) -> list[SnapshotMeta]:
        """The versions listed, oldest first (metadata only)."""
        return self.query_one(VersionList).versions

    @property
    def version_count(self) -> int:
        return len(self.snapshots)

    def show(
        self,
        versions: Sequence[SnapshotMeta],
        *,
        latest: SnapshotInfo | None,
        message_count: int,
        saved_tokens: int | None = None,
        model_tail: int | None = None,
        loader: SummaryLoader | None = None,
    ) -> None:
        """Show a session's snapshot versions and its model-context counts.

        ``latest`` is the newest version decoded (the model's summary); ``loader`` reads
        any other one when it is highlighted. ``model_tail`` is how many messages after
        the latest boundary the model gets (the rows with ``include_in_messages``);
        without it the pane names the boundary instead of a count that would include the
        system prompts the model does not get as messages.
        """
        self._loader = loader
        self._counts = (message_count, saved_tokens, model_tail)
        self.summary_shown = latest
        versions_list = self.query_one(VersionList)
        versions_list.display = bool(versions)
        if versions_list.versions[:1] != list(versions[:1]):
            versions_list.origins = {}  # another session: its origins are read again
        counting = self._count_line is not None  # the summary is blank already: no layout
        self._show_context(versions, latest)
        if latest is not None:
            self._show_summary(latest)
        elif not counting:
            self._update(self.query_one("#inspector-summary", Static), Text(""))
        versions_list.show(versions)

    def show_saved(self, saved_tokens: int | None) -> None:
        """The tokens the latest snapshot saves, read after the session opened."""
        count, _, tail = self._counts
        self._counts = (count, saved_tokens, tail)
        self._show_context(self.snapshots, self._latest())

    def show_tail(self, model_tail: int) -> None:
        """How many messages after the latest boundary the model gets, counted after the session opened."""
        count, saved, _ = self._counts
        self._counts = (count, saved, model_tail)
        self._show_context(self.snapshots, self._latest())

    def _latest(self) -> SnapshotInfo | None:
        shown = self.summary_shown
        versions = self.snapshots
        return shown if shown is not None and versions and shown.version == versions[-1].version else None

    def _show_context(self, versions: Sequence[SnapshotMeta], latest: SnapshotInfo | None) -> None:
        context = self.query_one("#inspector-context", Static)
        message_count, saved_tokens, model_tail = self._counts
        if not versions:
            if message_count:
                words = f"No compaction: the model sees all {message_count:,} messages."
            else:
                words = "This session has no messages."
            # A growing live session repeats this line with a new count: a repaint shows
            # it while its height stays (no layout of the screen).
            self._update(context, Text(words, style="dim"))
            self._count_line = words
            return
        self._count_line = None
        newest = versions[-1]
        boundary = newest.compacted_through_sequence
        text = Text()
        text.append("Model context: ", style="bold")
        if model_tail is None:
            text.append(f"summary v{newest.version} + the messages after #{boundary:,}\n")
        else:
            plural = "" if model_tail == 1 else "s"
            text.append(f"summary v{newest.version} + {model_tail:,} tail message{plural}\n")
        if latest is not None:
            text.append(f"{boundary:,} messages compacted into {len(latest.summary_text):,} characters")
        else:
            text.append(f"{boundary:,} messages compacted")
        if saved_tokens is not None:
            text.append(f"\nabout {saved_tokens:,} tokens saved (4 characters a token)")
        if len(versions) > 1:
            text.append("\nD: diff with the previous version · L: ledger", style="dim")
        self._update(context, text)

    def show_origins(self, origins: dict[int, Origin]) -> None:
        """What made these versions (read for the rows on screen): on their lines and the summary's."""
        versions = self.query_one(VersionList)
        merged = {**versions.origins, **origins}
        if merged == versions.origins:
            return
        versions.origins = merged
        versions.invalidate()
        if self.summary_shown is not None:
            self._show_summary(self.summary_shown)

    def _show_summary(self, snapshot: SnapshotInfo) -> None:
        self.summary_shown = snapshot
        summary = self.query_one("#inspector-summary", Static)
        texts = [block_text(block) for block in summary_blocks(snapshot)]
        made = made_line(snapshot, self.query_one(VersionList).origins.get(snapshot.version))
        texts.insert(1 if texts else 0, made)  # under the version's title
        body = Text("\n").join(texts)
        self._update(summary, body)

    def _update(self, static: Static, text: Text) -> None:
        """Show ``text``; lay the screen out only when its wrapped height changes.

        A followed session compacted as it grows shows a new context and summary at each
        version; of the same height, a repaint shows them (a layout of the whole screen
        per version took ~20 ms of the loop).
        """
        width = static.content_region.width
        shape = (width, len(text.wrap(self.app.console, width))) if width > 0 else None
        same = shape is not None and self._heights.get(static.id) == shape
        static.update(text, layout=not same)
        self._heights[static.id] = shape

    def on_version_list_highlighted(self, event: VersionList.Highlighted) -> None:
        event.stop()
        shown = self.summary_shown
        if shown is not None and shown.version == event.meta.version and shown.session_id == event.meta.session_id:
            return
        self._load_summary(event.meta)

    @work(exclusive=True, group="inspector-summary", exit_on_error=False)
    async def _load_summary(self, meta: SnapshotMeta) -> None:
        if self._loader is None:
            return
        try:
            snapshot = await self._loader(meta.version)
        except Exception as error:  # noqa: BLE001 - one unreadable version never takes the pane down
            failed = Text(f"Could not read v{meta.version}: {one_line(error, 200)}")
            self._update(self.query_one("#inspector-summary", Static), failed)
            return
        self.decoded += 1
        current = self.query_one(VersionList).current
        if snapshot is not None and current is not None and current.version == snapshot.version:
            self._show_summary(snapshot)

    def on_version_list_chosen(self, event: VersionList.Chosen) -> None:
        event.stop()
        self.post_message(self.VersionChosen(event.meta))

    def action_open_summary(self) -> None:
        current = self.query_one(VersionList).current
        shown = self.summary_shown
        if current is not None and shown is not None and shown.version == current.version:
            self.post_message(self.SummaryOpened(shown))


def made_line(snapshot: SnapshotInfo, made: Origin | None) -> Text:
    """When a version was made and by what, always two lines (the pane keeps its height when
    the origin arrives): ``made 2026-12-05 11:34:19`` / ``by Agent.compact() (after #28)``."""
    when = f"made {snapshot.created_at:%Y-%m-%d %H:%M:%S}" if snapshot.created_at is not None else "made: time unknown"
    how = "by: …" if made is None else made.how
    return Text(f"{when}\n{how}", style="dim")
