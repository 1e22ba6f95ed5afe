"""Provides ``zett-browser export``: a session (or its subtree) as Markdown, HTML or JSON.

``export [STORE] --session ID [--subtree] [--format md|html|json] [--output FILE] [--force]
[--no-reasoning] [--no-tool-results] [--no-usage] [--redact] [--notes [--notes-file FILE]]``
(``--notes``: the pins, labels and notes written on the sessions, from the notes file). Without ``--output`` the
document goes to stdout as it is written. With ``--output`` it is written to a temporary
file beside FILE and moved into place only when complete, so a failed export leaves
nothing behind; an existing FILE is never replaced unless ``--force`` is given (the check
and the move are one atomic step). The store is opened read-only. Errors are one line on
stderr and exit status 2; the redaction count and what was written go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..export import FORMATS, SUFFIX, ExportError, ExportOptions, ExportReport, export_session
from ..export.files import describe, export_file
from ..startup.lifecycle import run_async
from ..storage import StoreError, open_store
from ..text import one_line
from .args import OneLineParser, add_notes_file, add_store, closed_pipe
from .sessions import SessionChoiceError, resolve_session

PROG = "zett-browser export"


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog=PROG,
        description="Export a session (with --subtree, also the sessions it delegated to) as Markdown, "
        "HTML or JSON. The store is opened read-only.",
    )
    add_store(parser)
    parser.add_argument("--session", metavar="ID", required=True, help="the session to export")
    parser.add_argument("--subtree", action="store_true", help="nest the delegated sessions where they were delegated")
    parser.add_argument(
        "--format", choices=FORMATS, default=None, help="md (default, or from --output's suffix), html or json"
    )
    parser.add_argument("--output", metavar="FILE", type=Path, help="write to FILE instead of stdout")
    parser.add_argument("--force", action="store_true", help="with --output: replace FILE if it exists")
    parser.add_argument("--no-reasoning", action="store_true", help="leave out the reasoning (md, html)")
    parser.add_argument("--no-tool-results", action="store_true", help="leave out tool outputs (md, html)")
    parser.add_argument("--no-usage", action="store_true", help="leave out timing and token usage (md, html)")
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace API keys, tokens, passwords in URLs and private keys; the count goes to stderr",
    )
    parser.add_argument(
        "--notes",
        action="store_true",
        help="carry your pins, labels and notes: a Review section, each note beside its message",
    )
    add_notes_file(parser)
    return parser


def _format(args_format: str | None, output: Path | None) -> str:
    if args_format is not None:
        return args_format
    if output is not None:
        for name, suffix in SUFFIX.items():
            if output.suffix.lower() == suffix or (name == "html" and output.suffix.lower() == ".htm"):
                return name
    return "md"


async def export_to(
    target: str | None, session: str, options: ExportOptions, output: Path | None, *, force: bool
) -> ExportReport:
    """Run one export to ``output`` (None: stdout)."""
    storage = open_store(target)
    try:
        session = await resolve_session(storage, session)
        if output is None:
            report = await export_session(storage, session, sys.stdout, options)
            sys.stdout.flush()
            return report
        return await export_file(storage, session, options, output, force=force)
    finally:
        await storage.close()


def _notes_file(given: Path | None) -> Path:
    from ..notes.db import default_file

    return given or default_file()


def main_export(argv: list[str]) -> int:
    """Export a session; one-line errors and exit status 2."""
    args = build_parser().parse_args(argv)
    options = ExportOptions(
        format=_format(args.format, args.output),
        subtree=args.subtree,
        reasoning=not args.no_reasoning,
        tool_results=not args.no_tool_results,
        usage=not args.no_usage,
        redact=args.redact,
        notes=_notes_file(args.notes_file) if args.notes else None,
    )
    problem = options.problem()
    if problem is not None:
        print(f"{PROG}: {one_line(problem, 300)}", file=sys.stderr)
        return 2
    try:
        report = run_async(export_to(args.store, args.session, options, args.output, force=args.force))
    except BrokenPipeError:
        return closed_pipe()
    except (StoreError, ExportError, OSError, SessionChoiceError) as error:
        print(f"{PROG}: {one_line(error, 300)}", file=sys.stderr)
        return 2
    if args.output is not None:
        print(describe(report, args.output), file=sys.stderr)
    if args.redact:
        print(f"redacted {report.redacted:,} secret{'s' if report.redacted != 1 else ''}", file=sys.stderr)
    return 0
