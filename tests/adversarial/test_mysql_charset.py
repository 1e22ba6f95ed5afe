"""An unknown MySQL ``?charset=``: one line and exit status 2, in every command.

aiomysql looked the name up at every connect and failed with an ``AttributeError``
traceback, then printed another one when the half-built connection was collected. No
server is needed: the name is checked before anything connects.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
URLS = [
    "mysql://agent:pw-secret-9@127.0.0.1:1/sessions?charset=nonexistent",
    "mysql+aiomysql://agent:pw-secret-9@127.0.0.1:1/sessions?charset=nonexistent",
    "mariadb://agent@127.0.0.1:1/sessions?charset=nonexistent&connect_timeout=1",
]


def command(name: str, url: str, index: Path) -> list[str]:
    return {
        "browse": [url, "--no-index"],
        "index": ["index", "--index-dir", str(index), url],
        "search": ["search", "--index-dir", str(index), url, "agent"],
        "usage": ["usage", "--index-dir", str(index), url],
        "export": ["export", url, "--session", "x"],
        "context": ["context", url, "--session", "x"],
    }[name]


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("name", ["browse", "index", "search", "usage", "export", "context"])
def test_an_unknown_mysql_charset_is_one_line(tmp_path: Path, url: str, name: str) -> None:
    index = tmp_path / "index"
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", *command(name, url, index)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "unknown MySQL character set 'nonexistent'" in result.stderr
    assert "pw-secret-9" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_known_charset_still_goes_on_to_connect(tmp_path: Path) -> None:
    """``utf8mb4`` passes the check: the error is then the unreachable server's."""
    url = "mysql://agent@127.0.0.1:1/sessions?charset=utf8mb4&connect_timeout=1"
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", "export", url, "--session", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "character set" not in result.stderr and "Traceback" not in result.stderr, result.stderr
