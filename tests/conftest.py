"""Shared fixtures: temporary stores only; the user's default store is never touched."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from zett_browser.storage import SQLiteSessionStorage

# The throwaway zett-agent venv lives under the real home, fixed before any test patches HOME.
os.environ.setdefault("ZETT_AGENT_VENV", str(Path.home() / ".cache" / "zett-browser-tests" / "zett-agent-0.2.1"))


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME at a temporary directory so nothing can reach ~/.zett-agent."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    yield home


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.sqlite3"


@pytest.fixture
async def storage(store_path: Path) -> AsyncIterator[SQLiteSessionStorage]:
    store = SQLiteSessionStorage(store_path)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture(scope="session")
def zett_agent_py() -> Path:
    """Python of a throwaway venv with exactly zett-agent 0.2.1 (built from PyPI on first use)."""
    from tests import zett_agent_env

    return zett_agent_env.zett_agent_python()
