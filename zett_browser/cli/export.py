"""Provides ``zett-browser export``: a session (or its subtree) as Markdown, HTML, JSON or OTLP.

``export [STORE] --session ID [--subtree] [--format md|html|json|otlp] [--output FILE] [--force]
[--no-reasoning] [--no-tool-results] [--no-usage] [--redact] [--notes [--notes-file FILE]] [--otlp-content]
[--otlp-endpoint URL [--otlp-header NAME=VALUE ...]]``. ``--notes`` carries the pins, labels and notes
written on the sessions (from the notes file). With ``--otlp-endpoint`` the spans
are sent to an OpenTelemetry collector over OTLP/HTTP instead of written (docs/otel.md). Without ``--output`` the
document goes to stdout as it is written. With ``--output`` it is written to a temporary
file beside FILE and moved into place only when complete, so a failed export leaves
nothing behind; an existing FILE is never replaced unless ``--force`` is given (the check
and the move are one atomic step). The store is opened read-only. Errors are one line on
stderr and exit status 2; the redaction count and what was written go to stderr.
"""

from __future__ import annotations

import argparse
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
        "HTML, JSON or OpenTelemetry spans (OTLP). The store is opened read-only.",
    )
    add_store(parser)
    parser.add_argument("--session", metavar="ID", required=True, help="the session to export")
    parser.add_argument("--subtree", action="store_true", help="nest the delegated sessions where they were delegated")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="md (default, or from --output's suffix), html, json or otlp (OTLP/JSON spans)",
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
    otlp = parser.add_argument_group("OpenTelemetry (docs/otel.md)")
    otlp.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        help="send the spans over OTLP/HTTP (protobuf) to URL (/v1/traces added to a URL without a path)",
    )
    otlp.add_argument(
        "--otlp-header",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="a header for every request to --otlp-endpoint (repeatable), e.g. authorization=Bearer ...",
    )
    otlp.add_argument(
        "--otlp-content",
        action="store_true",
        help="put message text, reasoning, tool arguments and results in the spans (left out by default)",
    )
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
    target: str | None,
    session: str,
    options: ExportOptions,
    output: Path | None,
    *,
    force: bool,
    endpoint: str | None = None,
    headers: dict[str, str] | None = None,
) -> ExportReport:
    """Run one export to ``output`` (None: stdout), or send its spans to ``endpoint``."""
    storage = open_store(target)
    try:
        session = await resolve_session(storage, session)
        if endpoint is not None:
            from ..export.otlp_export import send_session

            return await send_session(storage, session, options, endpoint, headers or {})
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


def _otlp_problem(args: argparse.Namespace) -> str | None:
    """Why the OpenTelemetry options do not go with the others, or None."""
    if args.otlp_endpoint is None:
        if args.otlp_header:
            return "--otlp-header goes with --otlp-endpoint"
        return None
    if args.format not in (None, "otlp"):
        return f"--otlp-endpoint sends OTLP spans: --format {args.format} does not go with it"
    if args.output is not None or args.force:
        return "--otlp-endpoint sends the spans: --output and --force do not go with it"
    return None


def main_export(argv: list[str]) -> int:
    """Export a session; one-line errors and exit status 2."""
    args = build_parser().parse_args(argv)
    endpoint: str | None = args.otlp_endpoint
    problem = _otlp_problem(args)
    if problem is not None:
        print(f"{PROG}: {one_line(problem, 300)}", file=sys.stderr)
        return 2
    options = ExportOptions(
        format="otlp" if endpoint is not None else _format(args.format, args.output),
        subtree=args.subtree,
        reasoning=not args.no_reasoning,
        tool_results=not args.no_tool_results,
        usage=not args.no_usage,
        redact=args.redact,
        notes=_notes_file(args.notes_file) if args.notes else None,
        otlp_content=args.otlp_content,
    )
    problem = options.problem()
    if problem is not None:
        print(f"{PROG}: {one_line(problem, 300)}", file=sys.stderr)
        return 2
    try:
        headers: dict[str, str] = {}
        if endpoint is not None:
            from ..export.otlp_send import parse_header  # protobuf only for an OTLP export

            headers = dict(parse_header(text) for text in args.otlp_header)
        report = run_async(
            export_to(
                args.store, args.session, options, args.output, force=args.force, endpoint=endpoint, headers=headers
            )
        )
    except BrokenPipeError:
        return closed_pipe()
    except (StoreError, ExportError, OSError, SessionChoiceError) as error:
        print(f"{PROG}: {one_line(error, 300)}", file=sys.stderr)
        return 2
    if endpoint is not None:
        print(
            f"sent {report.spans:,} spans ({report.messages:,} messages) to {one_line(endpoint, 200)}", file=sys.stderr
        )
    elif args.output is not None:
        print(describe(report, args.output), file=sys.stderr)
    if args.redact:
        print(f"redacted {report.redacted:,} secret{'s' if report.redacted != 1 else ''}", file=sys.stderr)
    return 0
