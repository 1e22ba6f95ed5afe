"""Provides the snapshot/boundary inspector: every version, the model's context, the summary.

A summary can be megabytes (a 10 MB one froze the UI for a minute when shown whole in a
``Static``): the pane shows a bounded preview and ``s`` asks the screen to open the
highlighted version whole in the detail view, which pages it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..formatting import summary_blocks
from ..keymap import bindings
from ..model import SnapshotInfo
from .render import block_text, style_of


class Inspector(Vertical):
    """Snapshot versions of the open session and what the model sees."""

    BINDINGS = bindings("inspector")

    class VersionChosen(Message):
        """The user chose a snapshot version: jump to its boundary."""

        def __init__(self, snapshot: SnapshotInfo) -> None:
            super().__init__()
            self.snapshot = snapshot

    class SummaryOpened(Message):
        """The user asked to read a version's summary whole."""

        def __init__(self, snapshot: SnapshotInfo) -> None:
            super().__init__()
            self.snapshot = snapshot

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.snapshots: list[SnapshotInfo] = []
        #: The no-compaction line shown last (a live count changes it without a layout).
        self._count_line: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Snapshots", style="bold"), id="inspector-title")
        yield OptionList(id="inspector-versions")
        yield Static(id="inspector-context")
        with VerticalScroll(id="inspector-summary-scroll"):
            yield Static(id="inspector-summary")

    def show(
        self,
        snapshots: Sequence[SnapshotInfo],
        *,
        message_count: int,
        saved_tokens: int | None = None,
        model_tail: int | None = None,
    ) -> None:
        """Show a session's snapshot versions and its model-context counts.

        ``model_tail`` is how many messages after the latest boundary the model gets (the
        rows with ``include_in_messages``, as the model view shows them); the screen
        counts them. Without it the pane names the boundary instead of a count that
        would include the system prompts the model does not get as messages.
        """
        self.snapshots = list(snapshots)
        versions = self.query_one("#inspector-versions", OptionList)
        versions.clear_options()
        versions.display = bool(self.snapshots)
        for snapshot in self.snapshots:
            label = Text(f"v{snapshot.version}", style=style_of("boundary"))
            label.append(f"  through #{snapshot.compacted_through_sequence}")
            if snapshot.created_at is not None:
                label.append(f"  {snapshot.created_at:%Y-%m-%d %H:%M}", style="dim")
            if snapshot.problems:
                label.append("  unreadable", style=style_of("problem"))
            versions.add_option(Option(label))
        context = self.query_one("#inspector-context", Static)
        summary = self.query_one("#inspector-summary", Static)
        if not self.snapshots:
            if message_count:
                words = f"No compaction: the model sees all {message_count:,} messages."
            else:
                words = "This session has no messages."
            # A growing live session repeats this line with a new count: while its length
            # stays, so does its height, and a repaint does (no layout of the screen).
            same = self._count_line is not None and len(self._count_line) == len(words)
            context.update(Text(words, style="dim"), layout=not same)
            if not same:
                summary.update("")
            self._count_line = words
            return
        self._count_line = None
        latest = self.snapshots[-1]
        boundary = latest.compacted_through_sequence
        summary_chars = len(latest.summary_text)
        text = Text()
        text.append("Model context: ", style="bold")
        if model_tail is None:
            text.append(f"summary v{latest.version} + the messages after #{boundary:,}\n")
        else:
            text.append(f"summary v{latest.version} + {model_tail:,} tail message{'' if model_tail == 1 else 's'}\n")
        text.append(f"{boundary:,} messages compacted into {summary_chars:,} characters")
        if saved_tokens is not None:
            text.append(f"\nabout {saved_tokens:,} tokens saved (4 characters a token)")
        context.update(text)
        self._show_summary(latest)
        versions.highlighted = len(self.snapshots) - 1

    def _show_summary(self, snapshot: SnapshotInfo) -> None:
        summary = self.query_one("#inspector-summary", Static)
        body = Text("\n").join(block_text(block) for block in summary_blocks(snapshot))
        summary.update(body)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and 0 <= event.option_index < len(self.snapshots):
            self._show_summary(self.snapshots[event.option_index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.snapshots):
            self.post_message(self.VersionChosen(self.snapshots[event.option_index]))

    def action_open_summary(self) -> None:
        versions = self.query_one("#inspector-versions", OptionList)
        index = versions.highlighted
        if index is not None and 0 <= index < len(self.snapshots):
            self.post_message(self.SummaryOpened(self.snapshots[index]))
