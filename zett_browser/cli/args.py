"""Provides what the command line and its subcommands share: the one-line parser and
argument types, the page-size option, and the one-line error report and preflight.

It lives apart from :mod:`zett_browser.__main__` so that the commands (``cli/*.py``,
loaded by name from ``__main__``) import it and not the module that loads them: no
import cycle, deferred or not.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from ..text import clean

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import NoReturn

    from ..model.store import BrowsingStore

PROG = "zett-browser"
#: Largest ``--page-size``: a page is decoded and laid out on the UI thread.
MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 50


def help_width() -> int:
    """The width argparse wraps help to: ``shutil.get_terminal_size``'s columns less two,
    read as it reads them (``$COLUMNS``, then the terminal, then 80) without importing
    :mod:`shutil` (argparse does on every parser: ~6 ms of a subcommand's start)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``zett-browser: <message> (see --help)``),
    and help is wrapped without importing :mod:`shutil` (:func:`help_width`)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=help_width())  # type: ignore[call-arg]  # every HelpFormatter takes it

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {one_line(message)} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        if not low <= value <= high:
            if value < low and high >= 2**31:  # the upper limit is only the integer's size: do not name it
                raise argparse.ArgumentTypeError(f"must be {low} or more, got {text[:40]}")
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text[:40]}")
        return value

    return parse


def closed_pipe() -> int:
    """The reader of stdout went away (``… | head``): not an error; end quietly with status 0.

    Standard output is pointed at the null device first, so the interpreter's last flush
    does not print "Exception ignored … BrokenPipeError" on the way out.
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


#: URL schemes of the stores SQLAlchemy opens for us (``postgresql+asyncpg://…``).
_STORE_SCHEMES = re.compile(r"^(sqlite|postgres(ql)?|mysql|mariadb)(\+\w+)?://", re.IGNORECASE)


def names_a_store(text: str) -> bool:
    """Whether ``text`` is a store rather than a query: a database URL or an existing SQLite file.

    ``search STORE`` with the query forgotten would otherwise search the default store for
    the store's path and find nothing.
    """
    if _STORE_SCHEMES.match(text):
        return True
    try:
        with open(text, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except (OSError, ValueError):
        return False


def index_dir(text: str) -> Path:
    """An argparse type: a directory for index files; empty is an error (it meant the current one)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: give a directory (or leave the option out for the default)")
    return Path(text)


#: The store argument's help, the same in every command.
STORE_HELP = "SQLite store path or SQLAlchemy URL (default: zett-agent's ~/.zett-agent/sessions.sqlite3)"
#: The ``--index-dir`` argument's help, the same in every command.
INDEX_DIR_HELP = "where index files live (default: $ZETT_BROWSER_INDEX_DIR or the user cache directory)"


def add_store(parser: argparse.ArgumentParser) -> None:
    """The optional ``STORE`` positional every command takes (``search`` folds it into its query)."""
    parser.add_argument("store", nargs="?", default=None, help=STORE_HELP)


def add_index_dir(parser: argparse.ArgumentParser) -> None:
    """``--index-dir DIR``: where the side index files live."""
    parser.add_argument("--index-dir", metavar="DIR", type=index_dir, default=None, help=INDEX_DIR_HELP)


def add_notes_file(parser: argparse.ArgumentParser) -> None:
    """``--notes-file FILE``: the notes file (default ``$ZETT_BROWSER_NOTES`` or the user data directory)."""
    parser.add_argument(
        "--notes-file",
        metavar="FILE",
        type=Path,
        default=None,
        help="the notes file (default: $ZETT_BROWSER_NOTES or notes.sqlite3 in the user data directory)",
    )


def add_page_size(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--page-size",
        metavar="N",
        type=bounded(1, MAX_PAGE_SIZE),
        default=DEFAULT_PAGE_SIZE,
        help=f"messages per page, 1 to {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})",
    )


def one_line(text: object) -> str:
    """``text`` cleaned of control characters and folded onto one line."""
    return " ".join(clean(text).split())


def secrets_of(store: str | None) -> tuple[str, ...]:
    """The secrets in the STORE argument, even when it does not parse as a URL."""
    if store is None or "://" not in store:
        return ()
    try:
        from sqlalchemy.engine import make_url

        from ..storage.target import Target

        return Target(None, make_url(store)).secrets
    except Exception:  # noqa: BLE001 - a malformed URL: fall back to a pattern
        found = re.findall(r"://[^/@]*?:([^/@]+)@", store)
        found += re.findall(r"(?i)[?&][^=&]*(?:pass|pwd|secret|token|key|auth)[^=&]*=([^&#]+)", store)
        return tuple(found)


def report(error: BaseException, *, debug: bool, secrets: tuple[str, ...]) -> int:
    """Print ``error`` as one line (after a scrubbed traceback with ``--debug``); return 2."""
    from ..storage.target import scrub

    if debug:
        import traceback  # here: only --debug prints one

        trace = "".join(traceback.format_exception(error))
        print(clean(scrub(trace, secrets)).rstrip("\n"), file=sys.stderr)
    print(f"{PROG}: {one_line(scrub(str(error), secrets))}", file=sys.stderr)
    return 2


async def preflight(
    storage: BrowsingStore, session: str | None, seq: int | None = None, where: str | None = None
) -> str | None:
    """Check the store (and the session, and the sequence) before the UI starts.

    Returns an error line, or None when the app can start. Closes the storage. ``where``
    names the store(s) in the error (default: its display name).
    """
    try:
        if session is None:
            await storage.list_roots(limit=1)
            return None
        shown = one_line(repr(session)[:120])
        if await storage.get_node(session) is None:
            return f"no session {shown} in {where or storage.display_name}"
        if seq is not None:
            bounds = await storage.raw_bounds(session)
            if bounds.last_sequence is None:
                return f"--seq {seq}: session {shown} has no messages"
            if seq > bounds.last_sequence:
                return f"--seq {seq} is past the end: session {shown} ends at #{bounds.last_sequence}"
        return None
    finally:
        await storage.close()
