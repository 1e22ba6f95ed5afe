# mypy: disable-error-code="import-not-found,untyped-decorator,misc"
# (the MCP SDK is installed only in zett-agent's side venv)
"""A tiny MCP server over stdio, launched by ``drive_runtime.py`` through zett-agent's McpExtension.

Run inside the zett-agent venv (its ``mcp`` package): ``<venv python> mcp_server.py``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("inventory")


@server.tool()
def lookup(sku: str) -> str:
    """Return the stock level of one SKU."""
    return f"SKU {sku}: 42 in stock (warehouse B, shelf 7)"


@server.tool()
def broken(sku: str) -> str:
    """Always fail, so the store holds a failed MCP result too."""
    raise ValueError(f"inventory backend unavailable for {sku}")


if __name__ == "__main__":
    server.run("stdio")
