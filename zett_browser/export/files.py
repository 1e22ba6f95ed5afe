"""Provides writing an export to a file: complete or not at all, never replacing silently.

The document is written to a temporary file beside the target and moved into place only
when complete, so a failed export leaves nothing behind. Without ``force`` the move is a
hard link, which fails when the target exists (also one created meanwhile): an existing
file is never replaced silently.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..formatting import human_size
from ..storage import SQLSessionStorage
from ..text import clean
from . import ExportError, ExportOptions, ExportReport, export_session


def _exists(output: Path) -> ExportError:
    return ExportError(f"{output} exists: choose another file or add --force")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _move(temporary: str, output: Path, force: bool) -> None:
    if force:
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
    storage: SQLSessionStorage, session: str, options: ExportOptions, output: Path, *, force: bool
) -> ExportReport:
    """Write an export of ``session`` to ``output``.

    Raises:
        ExportError: ``output`` exists (without ``force``), its directory does not, or the
            export itself cannot be made.
    """
    output = output.expanduser()
    if output.exists() and not force:
        raise _exists(output)
    directory = output.parent
    if not directory.is_dir():
        raise ExportError(f"no directory {directory} to write {output.name} in")
    handle, temporary = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".part", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            report = await export_session(storage, session, out, options)
        os.chmod(temporary, 0o666 & ~_umask())
        _move(temporary, output, force)
        return report
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def describe(report: ExportReport, output: Path | None) -> str:
    """One line on what an export wrote."""
    sessions = f" in {report.sessions} sessions" if report.sessions > 1 else ""
    where = f" to {clean(output)} ({human_size(output.stat().st_size)})" if output is not None else ""
    redacted = f", {report.redacted:,} secrets redacted" if report.redacted else ""
    return f"exported {report.messages:,} messages{sessions}{where} in {report.seconds:.1f} s{redacted}"
