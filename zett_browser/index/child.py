"""Provides the first build of a large SQLite store's index in a child process of the app.

A build's worker threads hold the GIL for most of each batch (reading rows into Python,
decoding envelopes): in the app's own process every key pressed meanwhile waited for it at
each hand-over, and page turns during a first build took two to five times as long as
without one (issue 29). In a process of its own the build holds no GIL of the app's and
none of its memory; it runs at the lowest priority (``nice`` 19) and is stopped while the app
holds a step (:class:`ChildBuild`), which the app does until the keys pause.

:func:`child_command` says whether a sync should start that way (a SQLite store of at least
:data:`CHILD_MIN_BYTES` whose index is missing or not complete) and with which command;
:class:`ChildBuild` runs it and turns its progress lines into :class:`.sync.Progress`. The
child is ``python -m zett_browser.index.child STORE INDEX_DIR``: it opens the store
read-only like every other reader, builds with :class:`.sync.SideIndex` (its lock, its
checks, its typed errors) and writes one JSON line per step on stdout. Cancelled, it is
sent SIGTERM (:func:`..startup.lifecycle.run_async` stops the batch in flight and closes
the store) and waited for; if its parent is gone, its next line fails and it stops the
same way. Whatever goes wrong in the child, the caller then syncs in process, which
raises the typed error if there is one.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

#: Stores smaller than this build in process (a few seconds at most: the child's start-up,
#: ~0.3 s of imports, would cost more than it saves).
CHILD_MIN_BYTES = 64 * 1024 * 1024
#: The child's ``nice`` increment: on a machine busy with other work, the app comes first.
CHILD_NICE = 19
#: Seconds a cancelled child has to stop after SIGTERM before it is killed.
STOP_TIMEOUT_S = 10.0
#: The child is stopped while its caller holds a step (the app waits there for a pause of
#: the keys) and continued when the caller asks for the next one (POSIX job control).
_PAUSE: int | None = getattr(signal, "SIGSTOP", None)
_GO_ON: int | None = getattr(signal, "SIGCONT", None)


def _index_complete(path: Path) -> bool:
    """Whether the index file at ``path`` is of this version and says a build completed (any doubt: no)."""
    from . import db as index_db

    try:
        connection = index_db.open_reader(path, timeout=1)
    except (OSError, sqlite3.Error):
        return False
    if connection is None:
        return False
    try:
        return index_db.current_state(connection) == "complete"
    except sqlite3.Error:
        return False
    finally:
        connection.close()


def child_command(store: Path | None, index_path: Path) -> list[str] | None:
    """The command that builds ``index_path`` for the SQLite store ``store`` in a child, or
    None when the sync should run in process (another backend, a small store, a complete index)."""
    if store is None or not sys.executable:
        return None
    try:
        if store.stat().st_size < CHILD_MIN_BYTES:
            return None
    except OSError:
        return None
    if _index_complete(index_path):
        return None
    return [sys.executable, "-m", "zett_browser.index.child", str(store), str(index_path.parent)]


class ChildBuild:
    """One child process building an index; :meth:`steps` follows it, :meth:`stop` ends it.

    While the caller holds a step (between a ``yield`` and its next request) the child is
    stopped (SIGSTOP) and then continued: the app's first build waits there until the keys
    pause, and a process that merely runs at a lower priority still slowed the app's page
    turns (the two cores share caches and, on a VM, maybe one physical core). A key also
    stops it at once, wherever it is (:meth:`hold_for_keys`): between two reports it can
    run for a second or more (a commit of 20,000 rows).
    """

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.process: asyncio.subprocess.Process | None = None
        #: Whether the child reported a finished build (then the caller only checks for news).
        self.finished = False
        #: Whether the caller holds a step, and whether keys are coming: either stops the child.
        self._held = False
        self._keys = False

    def hold_for_keys(self, held: bool) -> None:
        """Keys are coming (stop the child now, wherever it is) or have paused."""
        self._keys = held
        self._apply()

    def _apply(self) -> None:
        self._signal(_PAUSE if self._held or self._keys else _GO_ON)

    async def steps(self) -> AsyncIterator[tuple[int, int, float]]:
        """Start the child and yield ``(done, total, started)`` per step; returns when it ends.

        Raises:
            OSError: the child could not be started.
        """
        started = time.monotonic()
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            # Not a session of its own: Linux's autogroup scheduling shares the CPU between
            # sessions first, and ``nice`` ranks only within one (with setsid the child got
            # half the cores whatever its nice value, and the app's keys waited). The app
            # reads keys in raw mode (no SIGINT from the terminal); a hang-up of the terminal
            # reaches both, and each ends cleanly.
        )
        try:
            assert self.process.stdout is not None
            async for line in self.process.stdout:
                try:
                    item = json.loads(line)
                    done, total = int(item["done"]), int(item["total"])
                except (ValueError, KeyError, TypeError):
                    continue
                if item.get("finished") is True:
                    self.finished = True
                self._held = True  # the caller decides when the build goes on
                self._apply()
                try:
                    yield done, total, started
                finally:
                    self._held = False
                    self._apply()
            await self.process.wait()
            self.finished = self.finished and self.process.returncode == 0
        finally:
            await self.stop()

    def _signal(self, number: int | None) -> None:
        """Send ``number`` to the child if it still runs (None: not on this platform)."""
        process = self.process
        if number is not None and process is not None and process.returncode is None:
            try:
                process.send_signal(number)
            except ProcessLookupError:
                pass

    async def stop(self) -> None:
        """End the child if it still runs (SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT_S`)."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        try:
            process.send_signal(signal.SIGTERM)
            self._signal(_GO_ON)  # a paused child acts on SIGTERM only once it runs again
            await asyncio.wait_for(asyncio.shield(process.wait()), STOP_TIMEOUT_S)
        except ProcessLookupError:
            pass
        except TimeoutError:
            process.kill()
            await process.wait()
        except asyncio.CancelledError:  # cancelled again while waiting: do not leave it running
            process.kill()
            raise


async def _build(store: Path, directory: Path) -> int:
    from ..storage import SQLSessionStorage
    from .sync import SideIndex

    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        index = SideIndex(storage, directory)
        async for progress in index.steps():
            finished = progress.report is not None
            line = {"done": progress.done, "total": progress.total, "finished": finished}
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()  # a parent that is gone: BrokenPipeError ends the build here
    finally:
        await storage.close()
    return 0


def main(argv: list[str]) -> int:
    """``python -m zett_browser.index.child STORE INDEX_DIR``: build, one JSON line per step."""
    from ..startup.lifecycle import run_async

    store, directory = Path(argv[0]), Path(argv[1])
    try:
        if hasattr(os, "nice"):  # not on Windows
            os.nice(CHILD_NICE)
    except OSError:
        pass
    try:
        return run_async(_build(store, directory))
    except BrokenPipeError:
        return 1
    except Exception as error:  # noqa: BLE001 - the parent syncs in process and reports it
        print(f"zett-browser index child: {type(error).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
