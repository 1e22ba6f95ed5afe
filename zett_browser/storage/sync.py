"""Provides a synchronous view of the async storage for plain scripts.

``storage.sync()`` returns a :class:`SyncObject`: a context manager whose attribute
calls run the storage's coroutines on a :class:`SyncRuntime`, an event loop in a
background thread, and return their results. It is for scripts and service entry
points, not for code already running on an event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class SyncRuntime:
    """An event loop running in a daemon thread, to call coroutines from sync code."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="zett-browser-sync", daemon=True)
        self._closed = False
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The runtime's loop."""
        return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the runtime's loop and wait for its result.

        Raises:
            RuntimeError: The runtime is closed, or this is the runtime's own thread.
        """
        if self._closed:
            coroutine.close()
            raise RuntimeError("SyncRuntime is closed")
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("Cannot block on the SyncRuntime from its own thread")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        """Stop the loop and join its thread; idempotent."""
        if self._closed:
            return
        self._closed = True

        async def shutdown() -> None:
            await self._loop.shutdown_asyncgens()
            await self._loop.shutdown_default_executor()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> SyncRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SyncObject(Generic[T]):
    """A synchronous proxy: coroutine methods of the wrapped object run on a runtime."""

    def __init__(
        self,
        wrapped: T,
        *,
        runtime: SyncRuntime | None = None,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._wrapped = wrapped
        self._owns_runtime = runtime is None
        self._runtime = runtime or SyncRuntime()
        self._on_close = on_close

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._wrapped, name)
        if not callable(value):
            return value
        if not inspect.iscoroutinefunction(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._runtime.run(value(*args, **kwargs))

        call.__name__ = name
        call.__doc__ = value.__doc__
        return call

    def close(self) -> None:
        """Release this view's connections; stop the runtime if the view owns it."""
        if self._on_close is not None:
            on_close, self._on_close = self._on_close, None
            self._runtime.run(on_close())  # type: ignore[arg-type]
        if self._owns_runtime:
            self._runtime.close()

    def __enter__(self) -> SyncObject[T]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
