"""Provides what the start-up reader hands the app: results read ahead, each handed out once.

The SQLite start-up reader (:mod:`.quickstart`) reads the first screen's calls on a
thread before the app asks for them. :class:`Handout` keeps those results, keyed by the
call (:func:`key_of`: the store method and every argument's value), and hands each out
once; :data:`DECLINED` is a result meaning "not read here, ask the store". The app sees the
reader as a :class:`Warm`; the store it hands the screen
(:class:`zett_browser.startup.warmstart.WarmStore`) takes results from it. This module is
stdlib only (and the store's protocol), so the start-up reader can import it before
SQLAlchemy, pydantic or Textual are loaded; the storage never imports the start-up
package (``tests/storage/test_layout.py``).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Hashable
from concurrent.futures import Future
from typing import Any, Protocol, Self

from ..model.store import BrowsingStore

Key = tuple[Hashable, ...]


class _Declined:
    """The type of :data:`DECLINED`."""

    def __repr__(self) -> str:
        return "DECLINED"


#: A warm result meaning "not read here, ask the store": the start-up reader
#: (:mod:`zett_browser.storage.quickstart`) could not be sure its answer equals the store's.
DECLINED = _Declined()


@functools.cache
def _signature(name: str) -> inspect.Signature:
    return inspect.signature(getattr(BrowsingStore, name))


def key_of(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Key:
    """The identity of one call: the store method and every argument's value (defaults
    included), however it was passed (``get_node(s)`` is ``get_node(session_id=s)``)."""
    bound = _signature(name).bind(None, *args, **kwargs)  # None: ``self``
    bound.apply_defaults()
    return (name, *list(bound.arguments.items())[1:])


class Handout:
    """Results read ahead on a thread, each handed out once (the SQLite start-up reader,
    :mod:`.quickstart`, is one). Subclasses set ``thread``."""

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


class Warm(Protocol):
    """First-screen reads running beside the app (the SQLite start-up reader)."""

    def take(self, key: Key) -> Future[Any] | None: ...

    def close(self) -> None: ...

    def finish(self) -> None: ...
