"""Running the dump script under either implementation and comparing the dumps readably.

Shared by the compatibility tests (``test_zett_agent_compat.py``, ``test_demo_store.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DUMP_SCRIPT = REPO / "tests" / "compat" / "dump_store.py"
SUBPROCESS_TIMEOUT = 900


def clean_env() -> dict[str, str]:
    """Environment for the zett-agent venv: nothing from this project's environment leaks in."""
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_checked(command: list[str], *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=REPO, env=env, timeout=SUBPROCESS_TIMEOUT, check=False
    )
    if result.returncode != 0:
        pytest.fail(
            f"command failed ({result.returncode}): {' '.join(map(str, command))}\n"
            f"--- stdout ---\n{result.stdout[-3000:]}\n--- stderr ---\n{result.stderr[-6000:]}",
            pytrace=False,
        )
    return result


def dump_with(python: Path | str, impl: str, store: Path) -> Any:
    """Run dump_store.py under ``python`` for ``impl`` and return the parsed dump."""
    env = clean_env() if impl == "zett_agent" else None
    return json.loads(run_checked([str(python), str(DUMP_SCRIPT), impl, str(store)], env=env).stdout)


def run_zett_agent_script(python: Path, source: str, *args: str) -> str:
    """Run a small inline script inside the zett-agent venv."""
    return run_checked([str(python), "-c", textwrap.dedent(source), *args], env=clean_env()).stdout


def differences(expected: Any, actual: Any, path: str = "$", limit: int = 25) -> list[str]:
    """Readable paths where two JSON values differ (at most ``limit``)."""
    found: list[str] = []

    def walk(left: Any, right: Any, where: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(left, dict) and isinstance(right, dict):
            for key in sorted(left.keys() | right.keys()):
                if key not in right:
                    found.append(f"{where}.{key}: missing in zett_browser (zett_agent: {short(left[key])})")
                elif key not in left:
                    found.append(f"{where}.{key}: extra in zett_browser ({short(right[key])})")
                else:
                    walk(left[key], right[key], f"{where}.{key}")
        elif isinstance(left, list) and isinstance(right, list):
            if len(left) != len(right):
                found.append(f"{where}: {len(left)} items (zett_agent) != {len(right)} items (zett_browser)")
            for index, (a, b) in enumerate(zip(left, right, strict=False)):
                walk(a, b, f"{where}[{index}]")
        elif left != right or type(left) is not type(right):
            found.append(f"{where}: zett_agent {short(left)} != zett_browser {short(right)}")

    walk(expected, actual, path)
    return found


def short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def assert_same(expected: Any, actual: Any, what: str) -> None:
    if expected != actual:
        lines = "\n  ".join(differences(expected, actual))
        pytest.fail(f"{what}: zett_browser differs from zett_agent:\n  {lines}", pytrace=False)
