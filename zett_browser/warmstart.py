"""Provides the warm start: the first screen's reads, run on a thread while Textual starts.

Textual's start (stylesheet, compose, mount, the first frames) keeps the event loop busy
for a few hundred milliseconds; a read started on that loop waits behind it, and the first
screen's reads depend on each other (the change token, then the roots, then the newest
session's node, bounds, snapshots and ancestors, then its first page). :class:`WarmStart`
runs that chain at once on a thread with its own event loop (the store keeps one pool per
loop; SQLite's work runs outside the GIL), started when the app is built, or by the command
line before it imports Textual (this module imports neither Textual nor the screens).

:class:`WarmStore` is the store as the first screen sees it: a call whose exact arguments
the warm start read (or is reading) is answered with that result, once; anything else,
and everything after the first change poll, goes to the store itself. Results are the
store's own records, read through the same code, so the screen cannot tell the
difference except in time; a failed warm read fails the screen's call the same way.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any, Protocol, Self

#: The store methods the warm start may answer.
SERVED = frozenset(
    {
        "change_token",
        "list_roots",
        "get_node",
        "raw_bounds",
        "all_snapshot_versions",
        "snapshot_version",
        "ancestors",
        "raw_page",
    }
)

Key = tuple[Hashable, ...]


class _Declined:
    """The type of :data:`DECLINED`."""

    def __repr__(self) -> str:
        return "DECLINED"


#: A warm result meaning "not read here, ask the store": the start-up reader
#: (:mod:`zett_browser.storage.quickstart`) could not be sure its answer equals the store's.
DECLINED = _Declined()


def key_of(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Key:
    """The identity of one call: method, positional and keyword arguments."""
    return (name, args, tuple(sorted(kwargs.items())))


class Handout:
    """Results read ahead on a thread, each handed out once: what :class:`WarmStart` and the
    SQLite start-up reader (``storage/quickstart.py``) share. Subclasses set ``thread``."""

    thread: threading.Thread

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._results: dict[Key, Future[Any]] = {}  # not taken yet
        self._closed = False

    def start(self) -> Self:
        self.thread.start()
        return self

    def take(self, key: Key) -> Future[Any] | None:
        """The result of this call, if there is one (then it is forgotten)."""
        with self._lock:
            return None if self._closed else self._results.pop(key, None)

    def close(self) -> None:
        """Serve nothing more: later calls must see the store as it is then."""
        with self._lock:
            self._closed = True
            self._results.clear()
            self._on_close()

    def _on_close(self) -> None:
        """Called under the lock when closing (the reader interrupts its query)."""


class WarmStart(Handout):
    """The first screen's reads on a thread of their own; each result handed out once."""

    def __init__(
        self, store: Any, *, session: str | None, seq: int | None, page_size: int, roots_page: int = 100
    ) -> None:
        super().__init__()
        self.store = store
        self.roots_page = roots_page
        self.session = session
        self.seq = seq
        self.page_size = page_size
        self.thread = threading.Thread(target=self._run, name="zett-browser warm start", daemon=True)

    def finish(self) -> None:
        """Serve nothing more and wait until the thread has released its connections.

        Called before the store is closed: the thread's pool belongs to its own loop, and
        the store's ``close`` must not find it there (it would dispose of it on a loop that
        may end meanwhile). The join blocks: it cannot be cancelled halfway through an
        exit, and the thread needs nothing from the caller's loop (its reads take a few
        hundred milliseconds at most).
        """
        self.close()
        if self.thread.is_alive():
            self.thread.join()

    def _promise(self, name: str, *args: Any, **kwargs: Any) -> Future[Any] | None:
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                return None
            self._results[key_of(name, args, kwargs)] = future
        return future

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Run one store call, publishing its result (or its error) as it completes."""
        future = self._promise(name, *args, **kwargs)
        try:
            result = await getattr(self.store, name)(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the screen's own call reports it
            if future is not None:
                future.set_exception(error)
            raise
        if future is not None:
            future.set_result(result)
        return result

    def _run(self) -> None:
        try:
            asyncio.run(self._read())
        except Exception:  # noqa: BLE001 - every error is in a future; the screen reports it
            pass

    async def _read(self) -> None:
        try:
            # The token first: a change committed meanwhile is seen at the first poll.
            await self._call("change_token")
            session = self.session
            if self._closed:
                return
            if session is None:
                roots = await self._call("list_roots", limit=self.roots_page)
                session = roots.items[0].session_id if roots.items else None
            if session is None or self._closed:
                return
            await asyncio.gather(
                self._call("get_node", session),
                self._call("raw_bounds", session),
                # What the screen reads on opening: version metadata and the latest summary.
                self._call("all_snapshot_versions", session),
                self._call("snapshot_version", session),
                self._call("ancestors", session),
                *(
                    [self._call("raw_page", session, after_sequence=None, limit=self.page_size)]
                    if self.seq is None
                    else []
                ),
                # With --session the tree's roots too: read on the loop, they came mid-way through the first keys.
                *([self._call("list_roots", limit=self.roots_page)] if self.session is not None else []),
                return_exceptions=True,
            )
        finally:
            await self.store.release_loop()


class Warm(Protocol):
    """First-screen reads running beside the app: :class:`WarmStart`, or the SQLite start-up reader."""

    def take(self, key: Key) -> Future[Any] | None: ...

    def close(self) -> None: ...

    def finish(self) -> None: ...


class WarmStore:
    """The store for the first screen: warm results first, the store itself otherwise."""

    def __init__(self, store: Any, warm: Warm) -> None:
        self._store = store
        self._warm = warm
        self._tokens = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._store, name)
        if name not in SERVED:
            return method
        return self._served(name, method)

    def _served(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            if name == "change_token":
                self._tokens += 1
                if self._tokens > 1:
                    self._warm.close()  # the first poll: from now on the store as it is
            future = self._warm.take(key_of(name, args, kwargs))
            if future is not None:
                result = await asyncio.wrap_future(future)
                if result is not DECLINED:
                    return result
            return await method(*args, **kwargs)

        return call
