"""Build the real-runtime stores of issue 24 once per test run, through zett-agent's side venv.

``real_runtime_store(tmp_path_factory)`` runs ``drive_runtime.py`` with the zett-agent 0.2.1
venv's Python (``tests/zett_agent_env.py``), HOME pointed at a temp directory so nothing ever
touches ``~/.zett-agent``, and returns a ``RealStores``. The session-scoped ``real_stores``
fixture in this package's conftest does the same with the shared ``zett_agent_py`` fixture.
By hand: ``.venv/bin/python -m tests.realstore.stores OUT_DIR [CASE ...]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DRIVER = Path(__file__).parent / "drive_runtime.py"


@dataclass(frozen=True)
class RealStores:
    """What the generator wrote: the parent store, the default profiles' child store, its report."""

    directory: Path
    main: Path
    children: Path
    report: dict[str, Any]

    def session(self, case: str) -> str:
        """The fixed session id of one case (``drive_runtime.CASES``)."""
        return str(self.report["cases"][case]["session_id"])


def generate(python: Path, directory: Path, *cases: str) -> RealStores:
    """Run the generator into ``directory`` (all cases, or the named ones) and check it succeeded."""
    directory.mkdir(parents=True, exist_ok=True)
    home = directory / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [str(python), str(DRIVER), *cases, str(directory)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=directory,
        timeout=900,
    )
    report_path = directory / "report.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    failed = {name: case["error"] for name, case in report.get("cases", {}).items() if not case["ok"]}
    assert result.returncode == 0 and not failed, (result.returncode, failed, result.stderr[-4000:])
    return RealStores(directory, directory / "main.sqlite3", directory / "children.sqlite3", report)


def real_runtime_store(tmp_path_factory: pytest.TempPathFactory) -> RealStores:
    """Build every case once into a fresh temp directory (call from a session-scoped fixture)."""
    from tests import zett_agent_env

    return generate(zett_agent_env.zett_agent_python(), tmp_path_factory.mktemp("realstore"))


if __name__ == "__main__":  # pragma: no cover - a manual helper: python -m tests.realstore.stores OUT_DIR
    from tests import zett_agent_env

    stores = generate(zett_agent_env.zett_agent_python(), Path(sys.argv[1]).resolve(), *sys.argv[2:])
    print(stores.main, stores.children)
