"""The store a real zett-agent 0.2.1 Agent wrote step by step, with what its load() said."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

DRIVER = Path(__file__).parent / "drive_agent.py"


@pytest.fixture(scope="session")
def agent_run(zett_agent_py: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """(store, record): the store and ``{"session_id", "records": [{phase, at, messages}]}``."""
    directory = tmp_path_factory.mktemp("agent-run")
    store, record = directory / "agent.sqlite3", directory / "record.json"
    result = subprocess.run(
        [str(zett_agent_py), str(DRIVER), str(store), str(record)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return store, json.loads(record.read_text(encoding="utf-8"))
