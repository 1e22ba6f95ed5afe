"""The stores the real zett-agent 0.2.1 runtime wrote with every extension (issue 24)."""

from __future__ import annotations

import pytest

from tests.realstore.stores import RealStores, real_runtime_store


@pytest.fixture(scope="session")
def real_stores(tmp_path_factory: pytest.TempPathFactory) -> RealStores:
    """main.sqlite3 + children.sqlite3, generated once per test run."""
    return real_runtime_store(tmp_path_factory)
