"""Provides what the app's export dialog asks for and the service that does it.

The dialog (``screens/export.py``) never imports the storage or the exporter: it builds
an :class:`ExportRequest` and hands it to an :class:`ExportService` the app wires in
(``zett_browser/export/service.py``), like search.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """One export: the session, the format (md, html, json), what to include, where."""

    session_id: str
    format: str
    path: Path
    subtree: bool = False
    reasoning: bool = True
    tool_results: bool = True
    usage: bool = True
    redact: bool = False
    force: bool = False
    #: Carry the pins, labels and notes (from the notes file).
    notes: bool = False


class ExportService(Protocol):
    """Writes exports of the store the app browses (read-only)."""

    async def export(self, request: ExportRequest) -> str:
        """Write the file; return one line saying what was written.

        Raises:
            Exception: With a one-line message for a person (the file exists, the
                session is gone, the store cannot be read).
        """
        ...
