"""Provides the export dialog (``e``): the open session to a Markdown, HTML or JSON file.

The dialog asks for the format, whether to nest the delegated sessions, what to include
(reasoning, tool results, usage, your pins, labels and notes), whether to redact secrets, and the output path (by
default ``zett-<session id>.<format>`` in the current directory, a name not taken yet).
The export runs in a worker on the app's loop through the :class:`ExportService` the app
wires in; keys stay answered while it writes, and the dialog says where the file went or
why it could not be written (an existing file is replaced only when asked).
"""

from __future__ import annotations

import re
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, RadioSet, Static

from ..keymap import bindings
from ..model.export import ExportRequest, ExportService
from ..widgets.safe import one_line, plain
from ..widgets.tick import Choice, Tick
from .reads import Failed, attempt

FORMATS = (("md", "Markdown"), ("html", "HTML"), ("json", "JSON (stored rows, unchanged)"))
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def default_path(session_id: str, fmt: str, directory: Path | None = None) -> Path:
    """``zett-<id>.<fmt>`` in ``directory`` (default: relative, the current one), numbered past existing files.

    The id comes from the store: only letters, digits, ``-`` and ``_`` of it make the name.
    """
    stem = "zett-" + (_UNSAFE.sub("", session_id)[:36] or "session")
    folder = directory or Path()
    path = folder / f"{stem}.{fmt}"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.{fmt}"
        number += 1
    return path


class ExportDialog(ModalScreen[None]):
    """Export the open session; ``escape`` closes."""

    BINDINGS = bindings("export")
    DEFAULT_CSS = """
    ExportDialog { align: center middle; }
    ExportDialog > #export-box { width: 72; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
        background: $panel; border: round $primary; }
    ExportDialog RadioSet { border: none; padding: 0; width: 100%; height: auto; }
    ExportDialog Tick { height: 1; }
    ExportDialog #export-path { width: 100%; }
    ExportDialog #export-buttons { height: auto; }
    ExportDialog Button { min-width: 12; }
    ExportDialog #export-status { height: auto; color: $text-muted; }
    """

    def __init__(self, service: ExportService, session_id: str, title: str) -> None:
        super().__init__()
        self.service = service
        self.session_id = session_id
        self.session_title = title
        self.format = "md"
        self.suggested = default_path(session_id, "md")

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="export-box"):
            yield Label(plain("Export " + one_line(self.session_title, 60), "bold"))
            with RadioSet(id="export-formats"):
                for number, (key, title) in enumerate(FORMATS):
                    yield Choice(title, value=number == 0, name=key)
            yield Tick("Delegated sessions too (nested where they were delegated)", value=True, id="export-subtree")
            yield Tick("Reasoning", value=True, id="export-reasoning")
            yield Tick("Tool results", value=True, id="export-tool-results")
            yield Tick("Usage and timing", value=True, id="export-usage")
            yield Tick("Redact secrets (API keys, tokens, passwords, private keys)", id="export-redact")
            yield Tick("Pins, labels and notes (a Review section; notes beside their messages)", id="export-notes")
            yield Tick("Replace the file if it exists", id="export-force")
            yield Label("Output file")
            yield Input(str(self.suggested), id="export-path")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            yield Static("", id="export-status", markup=False)

    @on(RadioSet.Changed, "#export-formats")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        self.format = event.pressed.name or "md"
        json_format = self.format == "json"
        for name in ("reasoning", "tool-results", "usage"):
            box = self.query_one(f"#export-{name}", Checkbox)
            box.disabled = json_format  # JSON keeps the stored rows whole
        field = self.query_one("#export-path", Input)
        if field.value == str(self.suggested):  # not edited: follow the format
            self.suggested = default_path(self.session_id, self.format)
            field.value = str(self.suggested)
        self._refresh_json_note()

    def _refresh_json_note(self) -> None:
        note = "JSON holds every stored row unchanged (reasoning, results and usage included)."
        self._status(note if self.format == "json" else "")

    def _status(self, text: str) -> None:
        self.query_one("#export-status", Static).update(plain(text))

    def _checked(self, name: str) -> bool:
        return self.query_one(f"#export-{name}", Checkbox).value

    def request(self) -> ExportRequest:
        """The export the dialog's fields describe."""
        json_format = self.format == "json"
        return ExportRequest(
            session_id=self.session_id,
            format=self.format,
            path=Path(self.query_one("#export-path", Input).value.strip()),
            subtree=self._checked("subtree"),
            reasoning=json_format or self._checked("reasoning"),
            tool_results=json_format or self._checked("tool-results"),
            usage=json_format or self._checked("usage"),
            redact=self._checked("redact"),
            force=self._checked("force"),
            notes=self._checked("notes"),
        )

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def action_export(self) -> None:
        request = self.request()
        if not self.query_one("#export-path", Input).value.strip():  # Path("") is "."
            self._status("Give the output file.")
            return
        self.query_one("#export-go", Button).disabled = True
        self._status(f"Writing {request.path} …")
        self.write(request)

    @on(Button.Pressed, "#export-cancel")
    def action_close(self) -> None:
        self.dismiss(None)

    @work(exclusive=True, group="export", exit_on_error=False)
    async def write(self, request: ExportRequest) -> None:
        """Write the file; success closes the dialog with a notification, a failure stays in it."""
        # Not a read alone (it writes a file): any failure is one line in the dialog.
        line = await attempt(self.service.export(request))
        if isinstance(line, Failed):
            self.query_one("#export-go", Button).disabled = False
            message = one_line(f"Export failed: {line.error}", 300)
            self._status(message)
            self.notify(message, severity="error", markup=False)
            return
        self.notify(one_line(line, 300), title="Export", markup=False, timeout=8)
        self.dismiss(None)
