"""Runs the real ``zett-browser`` console script for the adversarial CLI tests, and checks
that a refusal is one clean line (shared by ``test_cli_input.py`` and the value tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """The console script (``python -m zett_browser`` without it) with the code next to these tests first."""
    script = Path(sys.executable).parent / "zett-browser"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "zett_browser"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, timeout=timeout, check=False, env=env)


def assert_one_line(result: subprocess.CompletedProcess[bytes], *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr holding every needle; returns it."""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    assert result.stdout == b"", result.stdout
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("zett-browser"), err
    # No ESC byte, and no C1 control character (0x9b is also a byte of UTF-8 "␛": check characters).
    assert "Traceback" not in err and b"\x1b" not in result.stderr and "\x9b" not in err
    for needle in needles:
        assert needle in err, err
    return err
