"""The MCP server's tool errors, in process: one cleaned line, a store URL's secrets masked."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from zett_browser.mcpserver.bounds import CursorError, read_cursor
from zett_browser.mcpserver.server import answer
from zett_browser.mcpserver.stores import Stores, ToolProblem
from zett_browser.storage.errors import StoreError

URL = "postgresql+psycopg://reader:s3cret-pw@127.0.0.1:1/zett?sslpassword=t0ken-value"


async def test_a_tool_error_is_one_clean_line_with_the_urls_secrets_masked() -> None:
    stores = Stores.open([URL])  # nothing is connected until a query runs
    try:
        for error in (
            StoreError(f"cannot connect to {URL}:\nFATAL: password s3cret-pw rejected \x1b[2J"),
            ToolProblem("no session 'x' in reader:s3cret-pw@host \x1b]0;PWN\x07"),
            OSError("index beside t0ken-value"),
        ):

            async def failing(problem: Exception = error) -> dict[str, object]:
                raise problem

            with pytest.raises(ToolError) as caught:
                await answer(failing(), stores)
            text = str(caught.value)
            assert "s3cret-pw" not in text and "t0ken-value" not in text and "***" in text
            assert "\n" not in text and "\x1b" not in text and "\x07" not in text
    finally:
        await stores.close()


def test_cursors_are_checked_field_by_field() -> None:
    with pytest.raises(CursorError):
        read_cursor("e30", "roots", ("at",))  # {} : no kind
    with pytest.raises(CursorError):
        read_cursor("x" * 5000, "roots", ("at",))
    with pytest.raises(CursorError):
        read_cursor("eyJrIjoicm9vdHMiLCJhdCI6eyJieXRlcyI6IiEhIn19", "roots", ("at",))  # bad base64 inside
