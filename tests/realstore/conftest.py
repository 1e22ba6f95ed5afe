"""The stores the real zett-agent 0.2.1 runtime wrote with every extension (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realstore.stores import RealStores, generate


@pytest.fixture(scope="session")
def real_stores(zett_agent_py: Path, tmp_path_factory: pytest.TempPathFactory) -> RealStores:
    """main.sqlite3 + children.sqlite3, generated once per test run (``stores.real_runtime_store``)."""
    return generate(zett_agent_py, tmp_path_factory.mktemp("realstore"))
