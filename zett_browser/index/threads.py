"""Provides the index's worker-thread calls: a cancel that waits for the thread, and a gather
that raises only once every step has ended (both guard the index connection in use)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def in_thread(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread(call, ...)`` that a cancelled caller still waits for.

    ``to_thread``'s future is cancelled at once while its thread runs on. Cancelled by a
    signal (ctrl+c during ``index``), the sync then closed the index connection in its
    ``finally`` while a write was still inside SQLite (FTS5) in that thread: a segfault.
    Here a cancel interrupts the index connection's statement in flight (the ``db``
    argument, when the call uses one: its transaction rolls back), waits until the thread
    has returned, and only then goes on as cancelled.
    """
    future = asyncio.ensure_future(asyncio.to_thread(call, *args, **kwargs))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        for value in args:  # not a bound db.close: its checkpoint must not be cut short
            if isinstance(value, sqlite3.Connection):
                value.interrupt()
        while not future.done():
            try:
                await asyncio.wait([future])
            except asyncio.CancelledError:
                continue  # cancelled again: the thread must still end before anyone goes on
        if not future.cancelled():
            future.exception()  # retrieved: the cancel is what the caller gets
        raise


async def all_of(*steps: Awaitable[Any]) -> list[Any]:
    """Run ``steps`` at once and return their results; when one fails, raise its error only
    after every other step has ended. A plain ``gather`` raises at the first failure while a
    write may still run in its thread: the caller would then close the index under it
    (closing a SQLite connection another thread is using crashed the process)."""
    results = await asyncio.gather(*steps, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results
