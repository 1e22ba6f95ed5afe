"""Provides the usage details panel (``u``): one session's identity, own vs subtree totals, cost by model.

Every string from the store (ids, titles, agent and model names) is cleaned; the full id
is shown whole and ``y`` copies it. Cost is never guessed: a model the price table does
not know reads "cost unknown", and the price data's date is on the panel.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..keymap import bindings
from ..model import SessionNode
from ..model.usage import ModelCost, SessionUsage
from ..model.usage_service import UsageService
from ..views.formatting import human_duration
from ..views.usage_text import compact_count, money, totals_rows
from ..widgets.render import style_of
from ..widgets.safe import clean, one_line
from .outside import copy_id
from .reads import Failed, ReadHelper


def _when(node: SessionNode) -> tuple[str, str]:
    return (
        node.created_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        node.updated_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
    )


def identity(node: SessionNode) -> Table:
    """Who the session is: id, parent, agent, type, times (all cleaned)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    created, updated = _when(node)
    table.add_row("session", Text(clean(node.session_id)).append("  (y copies it)", style="dim"))
    table.add_row("parent", Text(clean(node.parent_session_id)) if node.parent_session_id else Text("— (a root)"))
    if node.title:
        table.add_row("title", Text(one_line(node.title, 200)))
    elif node.label_hint:
        # No title (the runtime sets none): the name is what its parent asked, or a root's first prompt.
        table.add_row("asked" if node.parent_session_id else "first prompt", Text(one_line(node.label_hint, 200)))
    table.add_row("agent", Text(clean(node.agent_name)) if node.agent_name else Text("—"))
    table.add_row("session type", str(node.session_type))
    table.add_row("created", created)
    table.add_row("updated", updated)
    return table


def totals_table(usage: SessionUsage) -> Table:
    """Own vs subtree totals, one row per measure."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column("totals")
    table.add_column("own", justify="right")
    table.add_column("subtree", justify="right")
    for name, own, subtree in totals_rows(usage.own, usage.subtree):
        table.add_row(name, own, subtree)
    return table


def _model_name(model: ModelCost) -> Text:
    name = "/".join(clean(part) for part in (model.provider, model.model) if part) or "(no model recorded)"
    return Text(name)


def models_table(title: str, models: tuple[ModelCost, ...]) -> Table:
    """Cost by model: steps, tokens, cost or "cost unknown"."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column(title)
    table.add_column("steps", justify="right")
    table.add_column("input", justify="right")
    table.add_column("output", justify="right")
    table.add_column("cost", justify="right")
    for model in models:
        cost = money(model.cost) if model.cost is not None else "cost unknown"
        table.add_row(
            _model_name(model),
            f"{model.steps:,}",
            compact_count(model.tokens.input),
            compact_count(model.tokens.output),
            Text(cost, style=style_of("problem") if model.cost is None else ""),
        )
    if not models:
        table.add_row(Text("no model steps", style="dim"), "", "", "", "")
    return table


class UsageDetails(ModalScreen[None]):
    """The usage of one session and of its delegated subtree."""

    BINDINGS = bindings("usage")
    DEFAULT_CSS = """
    UsageDetails { align: center middle; }
    UsageDetails #usage-body { width: 90%; height: 90%; background: $panel; padding: 0 1; }
    """

    def __init__(self, node: SessionNode, service: UsageService, reader: ReadHelper) -> None:
        super().__init__()
        self.reader = reader
        self.node = node
        self.service = service

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="usage-body"):
            yield Static(identity(self.node), id="usage-identity")
            yield Static(Text("Reading the usage…", style="dim italic"), id="usage-totals")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#usage-body").border_title = "Usage details"
        self.load()

    @work(exclusive=True, group="usage-details", exit_on_error=False)
    async def load(self) -> None:
        target = self.query_one("#usage-totals", Static)
        found = await self.reader.attempt(self.service.usage([self.node.session_id]))
        if isinstance(found, Failed):
            error = found.error
            target.update(Text(f"The usage could not be read: {one_line(error, 200)}", style=style_of("error")))
            return
        usage = found.get(self.node.session_id)
        partial = not await self.reader.quietly(self.service.complete(), True, "index state")  # only a note
        if usage is None:
            target.update(Text("This session is not in the side index yet (it is being indexed).", style="dim"))
            return
        target.update(self._body(usage, partial))

    def _body(self, usage: SessionUsage, partial: bool = False) -> Table:
        grid = Table.grid()
        grid.add_column()
        if partial:
            grid.add_row(Text("The side index is still being built: these are the totals so far.", "italic"))
        models = sorted({_model_name(model).plain for model in (usage.own_models or usage.models)})
        grid.add_row(Text.assemble(("models  ", "bold"), ", ".join(models) or "—"))
        if usage.failed:
            grid.add_row(Text("✗ this session ended in a failure", style=style_of("problem")))
        grid.add_row("")
        grid.add_row(totals_table(usage))
        grid.add_row("")
        grid.add_row(models_table("cost by model (own)", usage.own_models))
        grid.add_row("")
        grid.add_row(models_table("cost by model (subtree)", usage.models))
        grid.add_row("")
        measured = human_duration(usage.subtree.measured_ns) or "0 s"
        grid.add_row(Text(f"prices: genai-prices data of {self.service.prices_date}; measured time {measured}", "dim"))
        return grid

    def action_copy_id(self) -> None:
        copy_id(self.app, self.node.session_id)

    def action_close(self) -> None:
        self.dismiss(None)
