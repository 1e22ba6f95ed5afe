"""A TCP forwarder on the test's event loop, to cut and restore a database connection.

The app under test connects to the server through it; ``cut()`` drops every open
connection and refuses new ones, as a dead network or a restarted server would, and
``restore()`` listens again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib


class TcpProxy:
    """Forward ``127.0.0.1:port`` to ``host:target_port`` until cut."""

    def __init__(self, host: str, target_port: int) -> None:
        self.host = host
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            client_writer.close()
            return
        self._writers |= {client_writer, server_writer}
        await asyncio.gather(
            self._pump(client_reader, server_writer), self._pump(server_reader, client_writer), return_exceptions=True
        )

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            self._writers.discard(writer)
            writer.close()

    async def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        await asyncio.sleep(0)

    async def restore(self) -> None:
        await self.start()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.cut()
