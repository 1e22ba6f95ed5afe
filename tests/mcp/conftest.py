"""The MCP tests' fixtures: the compare tests' pairs of real runs (built once per run)."""

from __future__ import annotations

from tests.compare.conftest import compare_pairs

__all__ = ["compare_pairs"]
