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

The other subcommands (``index``, ``search``, ``usage``, ``export``, ``context``) get the
same end from :class:`CommandSignals` and :func:`run_async`: SIGINT (ctrl+c), SIGTERM and
SIGHUP cancel the command's coroutine, whose ``finally`` blocks stop the work in flight,
close the store (its in-flight calls drained, its ``-wal``/``-shm`` removed) and remove
what it created (an export's ``.part`` file); the process then ends with 128 + the
signal's number (130, 143, 129) and no traceback. Outside the event loop (imports,
argument parsing, the synchronous reads of the index after a sync) the signal raises
:class:`CommandInterrupted`, a :class:`SystemExit`, which unwinds the same ``finally``
blocks. Before, ctrl+c was a KeyboardInterrupt (a traceback after ``asyncio.run`` cancelled
the work) and SIGTERM/SIGHUP killed the process, leaving the sidecars and an export's
``.part`` file; the ctrl+c segfault was the index sync closing its connection while a
cancelled write still ran in a thread (see ``zett_browser.index.threads.in_thread``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from types import FrameType

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    T = TypeVar("T")

    class Exitable(Protocol):
        def exit(self) -> None: ...


#: The signals that end a subcommand early, cleanly (its clean-up runs, then exit 128 + number).
COMMAND_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
#: The signals that end the app gracefully (SIGINT stays Textual's: ctrl+c is a key).
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: The terminal went away (window closed, SSH dropped, tmux server killed).
HANGUP: int | None = getattr(signal, "SIGHUP", None)


#: Seconds a hang-up leaves the app to close the store before the process ends regardless
#: (normally it is done in well under a second; see :func:`_end_if_still_running`).
HANGUP_GRACE_S = 20.0


class _State:
    hung_up = False
    #: Clean-ups of the command itself that a hang-up's early end must still run.
    before_hangup_exit: list[Callable[[], object]] = []


def on_hangup_exit(cleanup: Callable[[], object]) -> None:
    """Run ``cleanup`` also when a hang-up ends the process early (see :func:`end_after_hangup`):
    a ``finally`` around ``app.run()`` is skipped then."""
    _State.before_hangup_exit.append(cleanup)


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
    import asyncio  # here: the subcommands' fast path runs without an event loop

    loop = asyncio.get_running_loop()
    installed = []

    def hang_up() -> None:
        if not _State.hung_up:
            threading.Thread(target=_end_if_still_running, name="zett-hangup-deadline", daemon=True).start()
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


def _end_if_still_running() -> None:
    """End the process :data:`HANGUP_GRACE_S` after a hang-up if it is still running: the app's
    shutdown itself can wait forever on the vanished terminal before :func:`end_after_hangup`
    is reached (seen under load in the terminal-vanished test: the app alive 60 s on)."""
    time.sleep(HANGUP_GRACE_S)
    if HANGUP is not None:
        from ..storage.sidecars import release_all_at_exit

        # The store was never closed (that is what hangs): its -wal/-shm go now if unused.
        on_hangup_exit(release_all_at_exit)
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


class CommandInterrupted(SystemExit):
    """A signal ended a subcommand: its exit status is 128 + the signal's number.

    A :class:`SystemExit`, so ``except Exception`` never swallows it and, should it escape,
    the interpreter ends with that status and prints no traceback.
    """

    def __init__(self, number: int) -> None:
        super().__init__(128 + number)
        self.number = number


class CommandSignals:
    """SIGINT, SIGTERM and SIGHUP while a subcommand runs: each raises :class:`CommandInterrupted`.

    Inside :func:`run_async` the event loop's own handlers take over (they cancel the
    command's coroutine instead); these are put back when it returns.
    """

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    def install(self) -> CommandSignals:
        """Handle the signals from now on (main thread only; elsewhere nothing changes)."""
        for number in COMMAND_SIGNALS:
            try:
                self._previous[number] = signal.signal(number, _interrupt)
            except (ValueError, OSError):
                continue
        return self

    def restore(self) -> None:
        """Put back the handlers there were before :meth:`install`."""
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()


def _interrupt(number: int, _frame: FrameType | None) -> None:
    raise CommandInterrupted(number)


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (the stdlib readers of the command line answer
    every read at once), with no event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a read of the fast path suspended")


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, ended cleanly by SIGINT, SIGTERM or SIGHUP.

    The first of them cancels ``main``: its ``finally`` blocks run on the loop as usual
    (they stop the work in flight and close the storage, which waits for its calls still in
    a driver's thread). Once the loop is closed, :class:`CommandInterrupted` is raised. A
    second signal during that clean-up is ignored: cancelling the clean-up itself would
    leave connections open and their files behind. Outside the main thread this is plain
    ``asyncio.run``.
    """
    import asyncio  # here: the subcommands' fast path runs without an event loop

    received: list[int] = []

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_signal(number: int) -> None:
            if not received:
                received.append(number)
                task.cancel()

        previous = {number: signal.getsignal(number) for number in COMMAND_SIGNALS}
        installed = []
        for number in COMMAND_SIGNALS:
            try:
                loop.add_signal_handler(number, on_signal, number)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            installed.append(number)
        try:
            return await main
        finally:
            for number in installed:
                loop.remove_signal_handler(number)  # puts back SIG_DFL, not what was there
                if previous[number] is not None:
                    signal.signal(number, previous[number])

    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(main)
    try:
        result = asyncio.run(guarded())
    except BaseException:
        if received:
            raise CommandInterrupted(received[0]) from None  # whatever the cancel made of the work
        raise
    if received:
        raise CommandInterrupted(received[0])  # the work ended anyway (it caught the cancel)
    return result
