"""Provides the compare view (``=`` on two sessions): two runs aligned step by step, side by side.

``=`` in the main screen marks the session under the tree's cursor (:func:`mark_or_compare`);
``=`` on another opens :class:`CompareScreen` on the two. The screen streams the alignment
(:class:`~zett_browser.views.compare.Comparison`: both sessions read a keyset page at a
time) in a worker and appends each window of rows to the pane as it comes, so the first
screen shows while the rest is aligned; its header says where the runs first diverge and
why, the counts so far, and the deltas (final, and priced, once the alignment is over:
the price table loads on a thread). Reads go through :class:`~.reads.ReadHelper`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header, Static

from ..keymap import bindings
from ..model import SessionNode
from ..model.store import BrowsingStore
from ..views.compare import Comparison, Delta
from ..views.compare_text import describe
from ..views.labels import node_name
from ..widgets.compare import CompareView
from ..widgets.footer import KeyFooter
from ..widgets.line import TextLine
from ..widgets.safe import one_line
from .reads import Failed, ReadHelper

#: What the header's deltas line names each measure (short: it wraps at 80 columns).
SHORT = {
    "model steps": "steps",
    "tool calls": "calls",
    "failed tool calls": "failed",
    "input tokens": "in",
    "output tokens": "out",
    "cache read tokens": "cache r",
    "cache write tokens": "cache w",
    "reasoning tokens": "reasoning",
    "measured time": "time",
    "compactions": "compactions",
    "peak context": "peak ctx",
    "cost": "cost",
}


def deltas_text(deltas: list[Delta], *, final: bool) -> Text:
    """The deltas in a few wrapped lines: ``steps 5→5 · in 142→157 (+15, A better) · …``.

    Measures both runs have none of are left out (steps, calls and failures always show).
    """
    text = Text()
    always = ("model steps", "tool calls", "failed tool calls")
    shown = [
        delta
        for delta in deltas
        if delta.what in SHORT and (delta.what in always or {delta.left, delta.right} - {"0", "$0", "0 s"})
    ]
    for number, delta in enumerate(shown):
        if number:
            text.append(" · ", style="dim")
        text.append(f"{SHORT[delta.what]} ", style="dim")
        unknown = delta.left == delta.right == "cost unknown"
        text.append("?" if unknown else f"{delta.left}→{delta.right}")
        if delta.change != "=":
            text.append(f" ({delta.change}", style="bold")
            text.append(f", {delta.better} better)" if delta.better else ")", style="bold")
    if not final:
        text.append("  (so far)", style="dim italic")
    return text


class CompareScreen(Screen[None]):
    """Two sessions' steps aligned side by side; ``n``/``N`` move between divergences."""

    BINDINGS = bindings("compare")

    def __init__(self, store: BrowsingStore, left: SessionNode, right: SessionNode, reader: ReadHelper) -> None:
        super().__init__()
        self.store = store
        self.left = left
        self.right = right
        self._reader = reader
        self.comparison = Comparison(store, left.session_id, right.session_id)

    def compose(self) -> ComposeResult:
        yield Header()
        yield TextLine(id="compare-sides")
        yield TextLine(id="compare-first")
        yield Static(id="compare-deltas")
        yield CompareView(id="compare-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Compare"
        self.sub_title = ""
        sides = Text()
        sides.append("A ", style="bold")
        sides.append(one_line(node_name(self.left), 60))
        sides.append(f" {self.left.session_id[:8]}", style="dim")
        sides.append("   B ", style="bold")
        sides.append(one_line(node_name(self.right), 60))
        sides.append(f" {self.right.session_id[:8]}", style="dim")
        self.query_one("#compare-sides", TextLine).show(sides)
        self._header()
        self.query_one(CompareView).focus()
        self.align()

    def _header(self) -> None:
        comparison = self.comparison
        aligner = comparison.aligner
        first = Text(describe(aligner.first, complete=comparison.complete))
        if aligner.first is not None:
            first.stylize("bold")
        counts = ", ".join(f"{count:,} {status.value}" for status, count in aligner.counts.items() if count)
        first.append(f"  ·  {aligner.rows:,} rows{': ' + counts if counts else ''}", style="dim")
        self.query_one("#compare-first", TextLine).show(first)
        deltas = deltas_text(comparison.deltas(), final=comparison.complete)
        self.query_one("#compare-deltas", Static).update(deltas)

    @work(exclusive=True, group="compare", exit_on_error=False)
    async def align(self) -> None:
        """Stream the alignment into the pane, then price the steps off the loop."""
        view = self.query_one(CompareView)

        async def run() -> None:
            shown_first = False
            async for rows in self.comparison.pages():
                view.add_rows(rows)
                if view.first is not None and not shown_first:
                    shown_first = True  # the cursor starts on the first divergence
                    view.move_to(view.first, centre=True)
                self._header()

        result: Any = await self._reader.fetch(run(), "Could not read the sessions to compare")
        if isinstance(result, Failed):
            view.finish("The sessions could not be read.")
            return
        view.finish("Neither session has steps (user turns, model steps, tool calls).")
        await self._reader.quietly(asyncio.to_thread(self.comparison.price), None, "pricing")
        self._header()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_compare_view_children_chosen(self, event: CompareView.ChildrenChosen) -> None:
        self.compare_children(event.left, event.right)

    @work(exclusive=True, group="compare-children", exit_on_error=False)
    async def compare_children(self, left_id: str, right_id: str) -> None:
        """Open a comparison of two delegated sessions (each must be in this store)."""

        async def nodes() -> tuple[SessionNode | None, SessionNode | None]:
            return await self.store.get_node(left_id), await self.store.get_node(right_id)

        found = await self._reader.fetch(nodes(), "Could not read the delegated sessions")
        if isinstance(found, Failed):
            return
        left, right = found
        if left is None or right is None:
            missing = left_id if left is None else right_id
            self.notify(
                f"Session {one_line(missing, 40)} is not in this store (zett-agent's default subagents write to "
                "~/.zett-agent/sessions.sqlite3)",
                markup=False,
                timeout=8,
            )
            return
        self.app.push_screen(CompareScreen(self.store, left, right, self._reader))


def mark_or_compare(
    marked: SessionNode | None,
    session: SessionNode | None,
    *,
    notify: Callable[..., object],
    open_screen: Callable[[CompareScreen], object],
    make: Callable[[SessionNode, SessionNode], CompareScreen],
    clear: Callable[[], object] = lambda: None,
) -> SessionNode | None:
    """``=``: the session marked after this key (the first of two; None once compared or unmarked)."""
    if session is None:
        notify("Move the tree's cursor to a session first", markup=False)
        return marked
    if marked is None:
        notify(f"Marked {one_line(node_name(session), 60)}: = on another session compares the two", markup=False)
        return session
    if marked.session_id == session.session_id:
        notify("Unmarked: = marks a session to compare", markup=False, timeout=3)
        return None
    clear()  # the "Marked …" notice is done
    open_screen(make(marked, session))
    return None


__all__ = ["CompareScreen", "deltas_text", "mark_or_compare"]
