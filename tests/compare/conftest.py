"""The pairs of sessions real zett-agent 0.2.1 wrote for the compare tests, built once per run."""

from __future__ import annotations

from pathlib import Path

import pytest

from .pairs import Pairs, generate


@pytest.fixture(scope="session")
def compare_pairs(zett_agent_py: Path, tmp_path_factory: pytest.TempPathFactory) -> Pairs:
    """pairs.sqlite3 (+ children.sqlite3) with the ``result``, ``compaction`` and ``fanout`` pairs."""
    return generate(zett_agent_py, tmp_path_factory.mktemp("compare-pairs"))
