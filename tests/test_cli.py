"""The command line on bad input: one clear line on stderr, exit status 2, nothing created."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.backends import Backend
from tests.servers import Server
from tests.support import FIXTURES, bad_store, listing, run_cli


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing", "does not exist (zett-agent keeps its default store at ~/.zett-agent/sessions.sqlite3)"),
        ("directory", "is a directory"),
        ("not sqlite", "is not a SQLite database"),
        ("no tables", "is not a zett-agent store"),
        ("malformed url", "Not a valid database URL"),
    ],
)
def test_bad_store(tmp_path: Path, case: str, message: str) -> None:
    target = bad_store(tmp_path, case)
    before = listing(tmp_path)
    result = run_cli(target, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("zett-browser: ") and message in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert listing(tmp_path) == before


@pytest.mark.parametrize(
    ("url", "module", "extra"),
    [
        ("postgresql+psycopg://agent:s3cret-pw@127.0.0.1:1/sessions", "psycopg", "postgres"),
        ("mysql+aiomysql://agent:s3cret-pw@127.0.0.1:1/sessions", "aiomysql", "mysql"),
    ],
)
def test_server_url_without_its_driver_names_the_extra(tmp_path: Path, url: str, module: str, extra: str) -> None:
    # The test extras install both drivers; a module earlier on the path hides this one,
    # as if the extra had not been installed.
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / f"{module}.py").write_text(f'raise ModuleNotFoundError("No module named {module}", name={module!r})\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), str(Path(__file__).parent.parent)])}
    result = run_cli(url, cwd=tmp_path, env=env)
    assert result.returncode == 2
    assert f'pip install "zett-browser[{extra}]"' in result.stderr
    assert "s3cret-pw" not in result.stderr + result.stdout


@pytest.mark.parametrize("backend", ["postgresql", "mysql"], indirect=True)
def test_server_store_errors_are_one_line_without_the_password(
    tmp_path: Path, backend: Backend, request: pytest.FixtureRequest
) -> None:
    server: Server = request.getfixturevalue(f"{backend.name}_server")
    assert backend.owner_url is not None and backend.owner_url.database is not None
    database = backend.owner_url.database
    password = "s3cret-Pa55-xyz"
    wrong = server.url(database, role=("zett_owner", password))
    right = server.url(database)  # the right password, on an empty database
    cases = [("Cannot log in", wrong), ("Cannot reach", wrong.set(port=1)), ("is not a zett-agent store", right)]
    for message, url in cases:
        result = run_cli(url.render_as_string(hide_password=False), cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert str(url.password) not in result.stderr + result.stdout
        assert "***" in result.stderr


def test_unknown_session(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite3"
    shutil.copy(FIXTURES / "storage_api.sqlite3", store)
    before = listing(tmp_path)
    result = run_cli(str(store), "--session", "no-such-id", cwd=tmp_path)
    assert result.returncode == 2
    assert "no session 'no-such-id'" in result.stderr and result.stderr.count("\n") == 1
    assert listing(tmp_path) == before


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "missing.sqlite3"), "--debug", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" in result.stderr


def test_bad_page_size(tmp_path: Path) -> None:
    result = run_cli("--page-size", "0", cwd=tmp_path)
    assert result.returncode == 2 and "--page-size" in result.stderr


def test_version() -> None:
    from zett_browser import __version__

    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == f"zett-browser {__version__}"


def test_no_read_permission(nobody_tmp: Path) -> None:
    """As an unprivileged user (the tests may run as root, who reads anything)."""

    base = nobody_tmp / "perm"
    base.mkdir()
    store = base / "s.sqlite3"
    shutil.copy(FIXTURES / "empty.sqlite3", store)
    store.chmod(0o000)
    script = (
        "import os, sys\n"
        "import zett_browser.app  # noqa: F401 - everything is imported before dropping privileges\n"
        "from zett_browser.storage import open_store  # noqa: F401 - the storage loads its names lazily\n"
        "from zett_browser.__main__ import main\n"
        "if os.geteuid() == 0:\n"
        "    os.setgid(65534); os.setuid(65534)\n"
        f"sys.exit(main([{str(store)!r}]))\n"
    )
    before = listing(base)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    store.chmod(0o644)
    assert result.returncode == 2, result.stderr
    assert "permission denied" in result.stderr and result.stderr.count("\n") == 1
    assert listing(base) == before
