"""Provides the server's standard input, read by a daemon thread so that a signal never waits for a line.

The SDK's stdio transport reads ``sys.stdin`` in a worker thread that a cancellation must
wait for: SIGTERM while the client keeps stdin open (it has nothing to send) hung the
server, its stores never closed and their ``-wal``/``-shm`` files were left beside them.
:class:`StdinPipe` stands in for ``sys.stdin`` while the server runs: a daemon thread
reads the real descriptor into a queue, and :meth:`StdinPipe.end` makes the reader see
end-of-file at once, so the transport ends, the server returns and the stores are closed.
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import threading
from collections.abc import Iterator

#: Bytes read from the descriptor at a time.
CHUNK = 65_536


class _QueueReader(io.RawIOBase):
    """Raw bytes from a queue; an empty chunk is end-of-file (and stays so)."""

    def __init__(self, chunks: queue.Queue[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._pending = b""
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if not self._pending and not self._ended:
            self._pending = self._chunks.get()
            self._ended = not self._pending
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


class StdinPipe:
    """A text stream over descriptor ``fd`` that :meth:`end` can close from the event loop."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._chunks: queue.Queue[bytes] = queue.Queue()
        self.buffer = io.BufferedReader(_QueueReader(self._chunks))
        self._thread = threading.Thread(target=self._pump, name="zett-browser-mcp-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, CHUNK)
            except OSError:
                chunk = b""
            self._chunks.put(chunk)
            if not chunk:
                return

    def end(self) -> None:
        """The reader sees end-of-file after what was already read (the thread is left to the OS)."""
        self._chunks.put(b"")


@contextlib.contextmanager
def stdin_replaced(pipe: StdinPipe) -> Iterator[StdinPipe]:
    """``sys.stdin`` is ``pipe`` (as a UTF-8 text stream) inside the block."""
    import sys

    previous = sys.stdin
    sys.stdin = io.TextIOWrapper(pipe.buffer, encoding="utf-8", errors="replace")  # type: ignore[assignment]
    try:
        yield pipe
    finally:
        sys.stdin = previous


__all__ = ["StdinPipe", "stdin_replaced"]
