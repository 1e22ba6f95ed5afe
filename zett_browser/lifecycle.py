"""Provides a graceful exit on SIGTERM and SIGHUP.

Textual handles neither: by default SIGTERM (``kill``) and SIGHUP (the terminal window
closed, an SSH connection dropped) end the process at once, leaving the terminal in the
alternate screen with the mouse still reported, and leaving the ``-wal``/``-shm`` files a
read-only browse created beside the store. Here both signals become ``app.exit()`` on the
app's own event loop, so the app unmounts as if ``q`` had been pressed: the storage is
closed (which removes those files when that is safe) and Textual restores the terminal.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Protocol

#: The signals that end the app gracefully (SIGINT stays Textual's: ctrl+c is a key).
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Exitable(Protocol):
    def exit(self) -> None: ...


def install_exit_signals(app: Exitable) -> list[signal.Signals]:
    """Make SIGTERM and SIGHUP call ``app.exit()`` on the running loop; return those installed.

    Only the main thread may install signal handlers; elsewhere (an app run by a test in
    another thread, Windows) nothing is installed and the default behaviour stays.
    """
    loop = asyncio.get_running_loop()
    installed = []
    for number in EXIT_SIGNALS:
        try:
            loop.add_signal_handler(number, app.exit)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(number)
    return installed
