"""Provides connection uses that a cancelled caller cannot cut short.

A storage call is cancelled whenever the app no longer wants its answer: a page turn
replaces the previous page's read, a quit stops the live demo's writer half-way. Cancelled
while the driver works, SQLAlchemy loses the connection: it is neither returned to the
pool nor closed, so its open file keeps the ``-wal``/``-shm`` beside the store after the
storage is closed (a closing writer cannot fold them in, a browse leaves them behind).

:class:`InFlight` runs each use of a pooled connection as a task of its own: the caller
stops waiting at once, the statement in flight finishes and its connection goes back to
the pool, and :meth:`InFlight.drain` lets ``close()`` wait for such uses before it
releases the pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds ``close()`` waits for calls whose callers are gone. A local statement ends in
#: milliseconds; a server that stopped answering would hold a quit for its whole timeout,
#: so after this the calls are cancelled after all (a server connection leaves no file).
DRAIN_S = 3.0


class InFlight:
    """The connection uses still running, their callers maybe gone."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[Any]] = set()

    async def run(self, call: Coroutine[Any, Any, T]) -> T:
        """Await ``call``; cancelling the caller leaves it running to its end."""
        task = asyncio.ensure_future(call)
        self._tasks.add(task)
        task.add_done_callback(self._forget)
        return await asyncio.shield(task)

    def _forget(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: its caller stopped waiting, the loop must not report it

    async def drain(self, timeout: float = DRAIN_S) -> None:
        """Wait for the running loop's uses still in flight (those still running after
        ``timeout`` seconds are cancelled)."""
        loop = asyncio.get_running_loop()
        pending = [task for task in self._tasks if task.get_loop() is loop]
        if not pending:
            return
        _done, late = await asyncio.wait(pending, timeout=timeout)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=timeout)
