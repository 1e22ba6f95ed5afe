"""Provides the command line: ``zett-browser`` and its subcommands.

``zett-browser [STORE] ...`` browses a store read-only (:mod:`zett_browser.cli.browse`);
``zett-browser demo`` writes the demo store and opens it (:mod:`zett_browser.cli.demo`);
the other subcommands (:data:`SUBCOMMANDS`) each live in a module of :mod:`zett_browser.cli`,
imported only when it runs.

Bad input is one line on stderr and exit status 2, with nothing created: argparse's own
errors too (:class:`~zett_browser.cli.args.OneLineParser`), and any argument holding bytes
that are not UTF-8 (:func:`not_utf8`). SIGINT, SIGTERM and SIGHUP end a subcommand cleanly,
with exit status 130, 143 or 129 (:func:`run_subcommand`, :mod:`zett_browser.startup.lifecycle`).
Every value printed goes through :func:`zett_browser.text.clean` (a store path or a title
may hold ESC), and every secret of a URL is masked, also in ``--debug`` tracebacks.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

from .cli.args import PROG, closed_pipe
from .cli.args import (
    preflight as preflight,  # also for tests and tools: the check the app runs
)
from .startup.lifecycle import CommandInterrupted, CommandSignals, end_if_input_left_running

#: Subcommands besides ``demo``: name -> (module, function taking argv, returning the exit
#: status). Each lives in its own module, imported only when it runs.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "index": (".cli.index", "main_index"),
    "search": (".cli.index", "main_search"),
    "export": (".cli.export", "main_export"),
    "context": (".cli.context", "main_context"),
    "usage": (".cli.usage", "main_usage"),
    "compare": (".cli.compare", "main_compare"),
    "serve": (".cli.serve", "main_serve"),
    "notes": (".cli.notes", "main_notes"),
    "mcp": (".cli.mcp", "main_mcp"),
}


def main(argv: list[str] | None = None) -> int:
    """Run the app; bad input or a store that cannot be browsed is one line and exit status 2."""
    code = run_command(argv)
    # Last, once every clean-up of the command ran (the live demo folds its WAL into its
    # store after the app returned): a process kept alive by Textual's input thread ends.
    end_if_input_left_running(code)
    return code


#: Options whose value is only a file name for the file system: any bytes do.
BYTES_OPTIONS = ("--output",)
BYTES_PREFIXES = tuple(f"{option}=" for option in BYTES_OPTIONS)


def not_utf8(arguments: list[str]) -> str | None:
    """Why an argument cannot be used, when one holds bytes that are not UTF-8; else None.

    Python hands such bytes over as lone surrogates (``surrogateescape``): no driver can
    bind them, no terminal can print them, and no zett-agent id, store path or query holds
    them. An export's ``--output`` file name is only ever given to the file system: it may.
    """
    for number, argument in enumerate(arguments, 1):
        if number > 1 and arguments[number - 2] in BYTES_OPTIONS or argument.startswith(BYTES_PREFIXES):
            continue
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            shown = repr(os.fsencode(argument)[:60])
            return f"argument {number} is not valid UTF-8 ({shown}); give ids, paths and queries as UTF-8 text"
    return None


def run_subcommand(name: str, argv: list[str]) -> int:
    """Run one of :data:`SUBCOMMANDS`; a signal ends it cleanly with 128 + its number.

    SIGINT, SIGTERM and SIGHUP are handled from before its module is imported
    (:class:`CommandSignals`; on its event loop :func:`~zett_browser.startup.lifecycle.run_async`
    cancels the work instead). ``serve`` keeps its own handling.
    """
    module_name, function_name = SUBCOMMANDS[name]
    signals = CommandSignals().install() if name != "serve" else None
    try:
        module = importlib.import_module(module_name, __package__)
        command: Callable[[list[str]], int] = getattr(module, function_name)
        return command(argv)
    except CommandInterrupted as interrupted:
        return interrupted.number + 128
    except BrokenPipeError:  # a command that let it through: ``… | head`` is not an error
        return closed_pipe()
    finally:
        if signals is not None:
            signals.restore()


def run_command(argv: list[str] | None) -> int:
    """What :func:`main` runs: the browser, the demo or a subcommand."""
    arguments = sys.argv[1:] if argv is None else argv
    if (problem := not_utf8(arguments)) is not None:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
    if arguments[:1] == ["demo"]:
        from .cli.demo import main_demo

        return main_demo(arguments[1:])
    if arguments and arguments[0] in SUBCOMMANDS:
        return run_subcommand(arguments[0], arguments[1:])
    from .cli.browse import main_browse

    return main_browse(arguments)


if __name__ == "__main__":
    raise SystemExit(main())
