"""Provides what an export is asked for (:class:`ExportOptions`) and what it wrote (:class:`ExportReport`).

Apart from the writers so that every format's module (the OTLP export's too, imported only
when it runs) can take them without importing the package that dispatches to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FORMATS = ("md", "html", "json", "otlp")
#: File name suffix of each format (an OTLP/JSON file is a ``.json`` file too: ``--format otlp`` says which).
SUFFIX = {"md": ".md", "html": ".html", "json": ".json", "otlp": ".json"}


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """What to export and how."""

    format: str = "md"
    subtree: bool = False
    reasoning: bool = True
    tool_results: bool = True
    usage: bool = True
    redact: bool = False
    #: OTLP: message text, reasoning, tool arguments and results as span attributes.
    otlp_content: bool = False
    #: The notes file whose pins, labels and notes the export carries (None: none; md, html, json).
    notes: Path | None = None

    def problem(self) -> str | None:
        """Why these options cannot be used together, or None."""
        if self.format not in FORMATS:
            return f"unknown format {self.format!r}: use md, html, json or otlp"
        if self.otlp_content and self.format != "otlp":
            return "--otlp-content goes with --format otlp (or --otlp-endpoint)"
        if self.format in ("json", "otlp"):
            left_out = [
                name
                for name, keep in (("--no-reasoning", self.reasoning), ("--no-tool-results", self.tool_results))
                if not keep
            ] + ([] if self.usage else ["--no-usage"])
            if left_out:
                if self.format == "otlp":
                    return f"{', '.join(left_out)}: OTLP spans carry no content unless --otlp-content; use md or html"
                return f"{', '.join(left_out)}: JSON keeps the stored rows unchanged; use md or html to leave parts out"
        return None


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    sessions: int
    messages: int
    redacted: int
    seconds: float
    #: OTLP: the spans written or sent.
    spans: int = 0


__all__ = ["FORMATS", "SUFFIX", "ExportOptions", "ExportReport"]
