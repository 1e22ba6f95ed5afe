"""Provides writing an export to a file: complete or not at all, never replacing silently.

The document is written to a temporary file beside the target and moved into place only
when complete, so a failed export leaves nothing behind. Without ``force`` the move is a
hard link, which fails when the target exists (also one created meanwhile): an existing
file is never replaced silently.

Nothing is ever written onto the store: an output that is the store or one of its SQLite
files (``-wal``, ``-shm``, ``-journal``), by any path or hard link, is refused, also with
``force``; ``force`` replaces only a regular file, never a symbolic link, directory,
device, FIFO or socket. A full disk or a read-only file system is one line saying what
to do, and leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from ..safefiles import describe_os_error, is_store_file, kind
from ..storage import SQLSessionStorage
from ..text import clean
from ..views.formatting import human_size
from . import ExportError, ExportOptions, ExportReport, export_session
from .source import Source, source_of


def _exists(output: Path) -> ExportError:
    return ExportError(f"{output} exists: choose another file or add --force")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_output(output: Path, store: Path | None, *, force: bool) -> None:
    """Refuse an output that is the store, a directory, or (with ``force``) not a regular file.

    Raises:
        ExportError: what is wrong with ``output`` and what to do, in one line.
    """
    if is_store_file(output, store):
        raise ExportError(f"{output} is the store being exported (or one of its SQLite files): choose another file")
    try:
        found = os.lstat(output)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise ExportError(f"no directory {output.parent} to write {output.name} in") from None
    if stat.S_ISDIR(found.st_mode):
        raise ExportError(f"{output} is a directory: give a file name in it, e.g. {output / 'export.md'}")
    if not force:
        raise _exists(output)
    other = kind(found.st_mode)
    if other is not None:
        raise ExportError(f"{output} is {other}: --force replaces only a regular file; choose another file")


def _move(temporary: str, output: Path, force: bool, stores: list[Path | None]) -> None:
    if force:
        for store in stores:
            check_output(output, store, force=True)  # again, right before the replace
        os.replace(temporary, output)
        return
    try:
        os.link(temporary, output)
    except FileExistsError:
        raise _exists(output) from None
    except OSError:  # a file system without hard links
        if output.exists():
            raise _exists(output) from None
        os.replace(temporary, output)


async def export_file(
    storage: SQLSessionStorage | Source, session: str, options: ExportOptions, output: Path, *, force: bool
) -> ExportReport:
    """Write an export of ``session`` to ``output``.

    Raises:
        ExportError: ``output`` exists (without ``force``), its directory does not, or the
            export itself cannot be made.
    """
    output = output.expanduser()
    stores: list[Path | None] = [*source_of(storage).paths] or [None]
    for store in stores:  # never onto (or beside, as a sidecar) any store read
        check_output(output, store, force=force)
    directory = output.parent
    if not directory.is_dir():
        raise ExportError(f"no directory {directory} to write {output.name} in")
    temporary = ""
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".part", dir=directory)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            report = await export_session(storage, session, out, options)
        os.chmod(temporary, 0o666 & ~_umask())
        _move(temporary, output, force, stores)
        return report
    except OSError as error:
        advice = describe_os_error(error, directory, "to write the export")
        if advice is None:
            raise
        raise ExportError(advice) from None
    finally:
        if temporary:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)


def describe(report: ExportReport, output: Path | None) -> str:
    """One line on what an export wrote."""
    sessions = f" in {report.sessions} sessions" if report.sessions > 1 else ""
    where = f" to {clean(output)} ({human_size(output.stat().st_size)})" if output is not None else ""
    redacted = f", {report.redacted:,} secrets redacted" if report.redacted else ""
    return f"exported {report.messages:,} messages{sessions}{where} in {report.seconds:.1f} s{redacted}"
