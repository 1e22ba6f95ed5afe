"""Provides taking a message out of the app: the clipboard, ``$PAGER`` and ``$EDITOR``.

The text handed out is :func:`zett_browser.views.formatting.full_text` (or the detail view's
body, which is that same text): already cleaned, so a later paste into a terminal or a
pager's display cannot act on an escape the store held.

The clipboard goes through Textual's :meth:`App.copy_to_clipboard`: OSC 52 with the text
in base64, written by the app after cleaning (cleaning never sees the app's own sequence),
and base64 cannot carry an ESC or BEL, so nothing in the text can end the sequence early.
Terminals cap what OSC 52 carries (each its own limit; 100 KB is a cautious choice), so a bigger
text is not sent cut: a notice says so and points at the pager and editor keys.

The pager and editor get the whole text in a temporary file of their own (mode 0600, the
editor's made read-only), in the system temporary directory, never beside the store, and
removed when the program returns. The app is suspended meanwhile (:meth:`App.suspend`);
where it cannot be (the web page of ``zett-browser serve``) a notice says so.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable
from typing import Literal

from textual.app import App, SuspendNotSupported
from textual.dom import DOMNode

from ..model import RawMessageRecord
from ..text import clean, one_line, paste_safe
from ..views.formatting import full_text, human_size

#: Largest text copied, in UTF-8 bytes (base64 makes it a third bigger on the wire).
COPY_LIMIT = 100_000

Program = Literal["pager", "editor"]
#: What ``Y``, ``v`` and ``E`` do with a message (the keys' action argument).
How = Literal["copy", "pager", "editor"]

#: The variable naming each program, and the defaults tried in order when it is unset.
PROGRAMS: dict[Program, tuple[str, tuple[str, ...]]] = {
    "pager": ("PAGER", ("less", "more")),
    "editor": ("EDITOR", ("vi", "nano")),
}


def copy_text(app: App[object], text: str, what: str) -> None:
    """Copy ``text`` with OSC 52, or say why not (too big for terminals to take)."""
    # Characters first: a 50 MB text is refused without encoding it on the UI thread.
    size = len(text) if len(text) > COPY_LIMIT else len(text.encode("utf-8", "surrogatepass"))
    if size > COPY_LIMIT:
        app.notify(
            f"{what} is over {human_size(COPY_LIMIT)} ({human_size(size)}): too big to copy through "
            "the terminal; v opens it in the pager, E in the editor",
            severity="warning",
            markup=False,
            timeout=8,
        )
        return
    if not paste_safe(text):  # the app's texts are cleaned already: never copy a raw control anyway
        text = clean(text)
    app.copy_to_clipboard(text)
    app.notify(f"Copied {what} ({human_size(size)})", markup=False, timeout=4)


def copy_id(app: App[object], session_id: str) -> None:
    """``y``: copy a session id with OSC 52, unless pasting it could do more than type it.

    An id is copied exactly (``--session`` needs it as stored) or not at all: one holding a
    control, line break or invisible character (``ESC[201~`` then a newline ends a bracketed
    paste and runs a command) is refused with a notice showing its cleaned form.
    """
    shown = one_line(session_id, 120)
    if len(session_id) > COPY_LIMIT or not paste_safe(session_id, lines=False):
        app.notify(
            f"Not copied: the session id {shown} holds control or invisible characters (or is too long), "
            "which are not safe to paste into a shell",
            severity="warning",
            markup=False,
            timeout=8,
        )
        return
    app.copy_to_clipboard(session_id)
    app.notify(f"Copied the session id {shown}", markup=False, timeout=4)


def command_for(which: Program, environ: dict[str, str] | None = None) -> list[str] | None:
    """The program and its arguments: ``$PAGER``/``$EDITOR`` split like a shell would,
    else the first default found on ``PATH``; None when there is none."""
    variable, defaults = PROGRAMS[which]
    value = (environ if environ is not None else dict(os.environ)).get(variable, "").strip()
    if value:
        try:
            return shlex.split(value)
        except ValueError:
            return [value]
    for name in defaults:
        if shutil.which(name):
            return [name]
    return None


def later(node: DOMNode, make: Callable[[], str], then: Callable[[str], None]) -> None:
    """Run ``make`` in a thread (formatting a 50 MB message takes seconds), then ``then``
    with its text on the UI thread: keys stay answered meanwhile."""

    def job() -> None:
        text = make()
        node.app.call_from_thread(then, text)

    node.run_worker(job, thread=True, group="outside", exit_on_error=False, description="format the message")


def open_outside(app: App[object], text: str, which: Program) -> None:
    """Show ``text`` whole in the pager or editor, the app suspended until it returns."""
    if app.is_web:  # no terminal to hand over: say so before any temporary file is written
        app.notify(f"The {which} needs a terminal: not available in this web page", severity="warning", markup=False)
        return
    variable = PROGRAMS[which][0]
    command = command_for(which)
    if command is None or shutil.which(command[0]) is None:
        named = f"${variable} ({one_line(command[0], 60)})" if command else f"${variable} is unset and no default"
        app.notify(f"Cannot open the {which}: {named} was not found", severity="error", markup=False, timeout=8)
        return
    handle, name = tempfile.mkstemp(prefix="zett-browser-", suffix=".txt")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogatepass") as file:
            file.write(text if text.endswith("\n") else text + "\n")
        if which == "editor":
            os.chmod(name, stat.S_IRUSR)  # the message is history: read-only
        try:
            with app.suspend():
                result = subprocess.run([*command, name], check=False)
        except SuspendNotSupported:
            app.notify(
                f"The {which} needs a terminal: not available in this web page", severity="warning", markup=False
            )
            return
        except OSError as error:
            app.notify(f"Cannot run the {which}: {one_line(error, 200)}", severity="error", markup=False)
            return
        if result.returncode != 0:
            app.notify(f"The {which} exited with status {result.returncode}", severity="warning", markup=False)
    finally:
        os.unlink(name)


def take_text(node: DOMNode, text: str, how: str, what: str = "the message") -> None:
    """``text`` (cleaned already) to the clipboard, the pager or the editor."""
    app = node.app
    if how == "copy":
        copy_text(app, text, what)
    elif how in PROGRAMS:
        open_outside(app, text, how)  # type: ignore[arg-type]


def take_record(node: DOMNode, record: RawMessageRecord | None, how: str) -> None:
    """The record's whole text (formatted in a thread) to the clipboard, pager or editor."""
    if record is None:
        node.app.notify("No message selected", markup=False)
        return
    what = f"message #{record.sequence}"
    later(node, lambda: full_text(record), lambda text: take_text(node, text, how, what))
