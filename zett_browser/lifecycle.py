"""Provides a graceful exit on SIGTERM and SIGHUP.

Textual handles neither: by default SIGTERM (``kill``) and SIGHUP (the terminal window
closed, an SSH connection dropped) end the process at once, leaving the terminal in the
alternate screen with the mouse still reported, and leaving the ``-wal``/``-shm`` files a
read-only browse created beside the store. Here both signals become ``app.exit()`` on the
app's own event loop, so the app unmounts as if ``q`` had been pressed: the storage is
closed (which removes those files when that is safe) and Textual restores the terminal.

The store is opened before the app exists (the start-up reader reads the first screen while
Textual loads), so :class:`StartupSignals` covers the time before the app's handlers are
installed: a signal while the command line is still loading ends it through its ``finally``
blocks (which close the reader and remove its sidecars); one after ``app.run()`` began is
kept and honoured as soon as :func:`install_exit_signals` runs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, Protocol

#: The signals that end the app gracefully (SIGINT stays Textual's: ctrl+c is a key).
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: The terminal went away (window closed, SSH dropped, tmux server killed).
HANGUP: int | None = getattr(signal, "SIGHUP", None)


class _State:
    hung_up = False
    #: Clean-ups of the command itself that a hang-up's early end must still run.
    before_hangup_exit: list[Callable[[], object]] = []


def on_hangup_exit(cleanup: Callable[[], object]) -> None:
    """Run ``cleanup`` also when a hang-up ends the process early (see :func:`end_after_hangup`):
    a ``finally`` around ``app.run()`` is skipped then."""
    _State.before_hangup_exit.append(cleanup)


class Exitable(Protocol):
    def exit(self) -> None: ...


class StartupSignals:
    """SIGTERM and SIGHUP from the store's first open until the app handles them itself."""

    #: A signal came after ``app.run()`` began, before the app installed its handlers.
    pending = False

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        self._app_running = False

    def install(self) -> StartupSignals:
        """Handle both signals from now on (main thread only; elsewhere nothing changes)."""
        for number in EXIT_SIGNALS:
            try:
                self._previous[number] = signal.signal(number, self._handle)
            except (ValueError, OSError):
                continue
        return self

    def app_running(self) -> None:
        """``app.run()`` is about to start: a signal now waits for the app's own handlers."""
        self._app_running = True

    def restore(self) -> None:
        """Put back the handlers there were before :meth:`install`."""
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()
        StartupSignals.pending = False

    def _handle(self, number: int, _frame: FrameType | None) -> None:
        if self._app_running:
            StartupSignals.pending = True  # the app exits as soon as it can (install_exit_signals)
            return
        raise SystemExit(128 + number)  # still loading: unwind through the command line's finally


def install_exit_signals(app: Exitable) -> list[signal.Signals]:
    """Make SIGTERM and SIGHUP call ``app.exit()`` on the running loop; return those installed.

    Only the main thread may install signal handlers; elsewhere (an app run by a test in
    another thread, Windows) nothing is installed and the default behaviour stays. A signal
    that came while the app was starting (:class:`StartupSignals`) exits it now.
    """
    loop = asyncio.get_running_loop()
    installed = []

    def hang_up() -> None:
        _State.hung_up = True
        app.exit()

    for number in EXIT_SIGNALS:
        try:
            loop.add_signal_handler(number, hang_up if number == HANGUP else app.exit)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(number)
    if StartupSignals.pending:
        StartupSignals.pending = False
        app.exit()
    return installed


def end_after_hangup() -> None:
    """After a hang-up, once the app's own clean-up is done, end the process at once.

    Textual then restores a terminal that no longer exists, and both ways it does so were
    seen to never end: its output thread dies on the closed terminal while the screen's
    last writes fill its queue (the final ``put`` waits forever), or its input thread spins
    on the closed terminal and keeps the interpreter from exiting (a core burned for hours).
    The store is closed and its sidecars removed by then (``on_unmount``), so nothing is lost.
    """
    if _State.hung_up and HANGUP is not None:
        _end_now(128 + HANGUP)


#: Textual's thread reading the terminal (``LinuxDriver``).
INPUT_THREAD = "textual-input"


def end_if_input_left_running(code: int, *, wait: float = 0.5) -> None:
    """After ``app.run()``: if Textual's input thread still runs, end the process now.

    The terminal went away without a hang-up reaching the app (a ``kill`` as tmux closed,
    a pty torn down): Textual's ``disable_input`` writes to the terminal before it tells
    that thread to stop, the write fails, the error is swallowed, and the thread spins on
    the closed terminal forever, keeping the process alive at 100 % of a core (found after
    the tmux tests, still spinning an hour later). The app has closed the store by then.
    """
    for thread in threading.enumerate():
        if thread.name == INPUT_THREAD and not thread.daemon and thread.is_alive():
            thread.join(wait)
            if thread.is_alive():
                _end_now(code)


def _end_now(code: int) -> None:
    for cleanup in _State.before_hangup_exit:
        try:
            cleanup()
        except Exception:  # noqa: BLE001, S110 - the process ends either way
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
