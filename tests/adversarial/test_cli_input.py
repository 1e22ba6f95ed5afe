"""Issue 10 item 10 and issue 15: what a user can type gets one clear line, exit 2, nothing created.

Every case runs the real ``zett-browser`` console script in a subprocess, with the code
next to these tests first on the path. It asserts the line (one, on stderr, no traceback,
no ESC byte, no secret), the exit status, and that the directory is unchanged.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adversarial.cli_run import REPO, assert_one_line, cli
from tests.support import AGENT_RUN_ROOT, FIXTURES, listing

AGENT_SESSION = AGENT_RUN_ROOT  # 21 messages in agent_run.sqlite3
SECRET = "S3cret-Qx7"
HUGE = str(2**64)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    return path


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--seq", "abc", "--session", "x"], "argument --seq"),
        (["--page-size", "x"], "argument --page-size"),
        (["--page-size", "0"], "from 1 to 1000"),
        (["--page-size", "-3"], "from 1 to 1000"),
        (["--page-size", "1001"], "from 1 to 1000"),
        (["--page-size", HUGE], "from 1 to 1000"),
        (["--seq", HUGE, "--session", "x"], "argument --seq"),
        (["--seq", "0", "--session", "x"], "argument --seq"),
        (["--seq", "-1", "--session", "x"], "argument --seq"),
        (["--seq", "3"], "--seq needs --session"),
        # (Two more positionals are two more stores now: tests/multi/test_cli_many.py.)
        (["--verbose", "-x"], "unrecognized arguments: --verbose -x"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path: Path, store: Path, args: list[str], needle: str) -> None:
    before = listing(tmp_path)
    result = cli(str(store), *args, cwd=tmp_path)
    line = assert_one_line(result, needle)
    assert line.rstrip().endswith("(see --help)")
    assert listing(tmp_path) == before


def test_help_states_the_maximum_page_size(tmp_path: Path) -> None:
    result = cli("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "1 to 1000" in " ".join(result.stdout.decode().split())


@pytest.mark.parametrize(("seq", "needle"), [("22", "past the end"), ("999999", "ends at #21")])
def test_seq_past_the_end_of_the_session(tmp_path: Path, store: Path, seq: str, needle: str) -> None:
    before = listing(tmp_path)
    assert_one_line(cli(str(store), "--session", AGENT_SESSION, "--seq", seq, cwd=tmp_path), needle)
    assert listing(tmp_path) == before


# --------------------------------------------------------------------------- demo


@pytest.mark.parametrize("case", ["page size 0", "missing directory", "a directory", "an existing file"])
def test_bad_demo_input_writes_nothing(tmp_path: Path, case: str) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me\n")
    args, needle = {
        "page size 0": (["--page-size", "0", str(tmp_path / "new.sqlite3")], "from 1 to 1000"),
        "missing directory": ([str(tmp_path / "no" / "such" / "demo.sqlite3")], "does not exist"),
        "a directory": ([str(tmp_path)], "is a directory"),
        "an existing file": ([str(existing)], "already exists"),
    }[case]
    before = listing(tmp_path)
    assert_one_line(cli("demo", *args, cwd=tmp_path), needle)
    assert listing(tmp_path) == before
    assert existing.read_text() == "keep me\n"


# --------------------------------------------------------------------------- URLs and secrets


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("foo://bar", "Unknown database backend 'foo'"),
        ("mysql+pymysql://agent@127.0.0.1:1/sessions", "synchronous driver"),
        ("postgresql+psycopg2://agent@127.0.0.1:1/sessions", "synchronous driver"),
        ("postgresql://agent@127.0.0.1:1/sessions?connect_timeout=abc", "Invalid connection option"),
        ("mysql://agent@127.0.0.1:1/sessions?connect_timeout=abc", "Invalid connection option"),
    ],
)
def test_bad_urls_are_one_clear_line(tmp_path: Path, url: str, needle: str) -> None:
    before = listing(tmp_path)
    assert_one_line(cli(url, cwd=tmp_path), needle)
    assert listing(tmp_path) == before


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://agent@127.0.0.1:1/sessions?password={SECRET}&sslmode=bogus",
        f"postgresql://agent@127.0.0.1:1/sessions?password={SECRET}",
        f"postgresql://agent@127.0.0.1:1/sessions?sslpassword={SECRET}&connect_timeout=abc",
        f"mysql://agent@127.0.0.1:1/sessions?passwd={SECRET}&connect_timeout=abc",
        f"mysql+pymysql://agent@127.0.0.1:1/sessions?token={SECRET}",
        f"foo://agent@host/db?api_key={SECRET}",
    ],
)
@pytest.mark.parametrize("debug", [False, True])
def test_query_secrets_are_masked_in_errors_and_tracebacks(tmp_path: Path, url: str, debug: bool) -> None:
    result = cli(url, *(["--debug"] if debug else []), cwd=tmp_path, timeout=90)
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    assert SECRET not in err and SECRET not in result.stdout.decode()
    assert "***" in err.splitlines()[-1]
    if not debug:
        assert_one_line(result)


async def test_the_display_name_masks_query_secrets() -> None:
    from zett_browser.storage import parse_target

    target = parse_target(f"postgresql://agent:{SECRET}@db/sessions?password={SECRET}x&sslmode=require")
    assert SECRET not in target.display()
    assert target.display() == "postgresql+psycopg://agent:***@db/sessions?password=***&sslmode=require"


# --------------------------------------------------------------------------- hostile paths


def test_an_esc_in_the_store_path_never_reaches_stderr(tmp_path: Path) -> None:
    missing = tmp_path / "x\x1b]0;pwned\x07\x1b[2J.sqlite3"
    assert_one_line(cli(str(missing), cwd=tmp_path), "does not exist", "␛")
    notes = tmp_path / "notes\x1b[31m.txt"
    notes.write_text("not a database, just notes\n")
    assert_one_line(cli(str(notes), cwd=tmp_path), "is not a SQLite database")


def test_an_esc_in_a_title_never_reaches_stderr(tmp_path: Path, store: Path) -> None:
    """A title of invalid UTF-8 plus ESC on the session asked for: the driver quotes it in its error.

    ``--seq`` past the end keeps the app from starting should the title become readable.
    """
    with sqlite3.connect(store) as connection:
        connection.execute(
            "update agent_sessions set title = cast(x'ff1b5d303b70776e65640761' as text) where id = ?",
            (AGENT_SESSION,),
        )
    connection.close()
    result = cli(str(store), "--session", AGENT_SESSION, "--seq", "999999", cwd=tmp_path)
    assert b"\x1b" not in result.stderr + result.stdout and b"\x07" not in result.stderr
    assert_one_line(result)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_is_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        target = tmp_path / "sessions.sqlite3"
        os.mkfifo(target)
    else:
        target = Path("/dev/null")
    try:
        result = cli(str(target), cwd=tmp_path, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("zett-browser blocked opening a FIFO")
    assert_one_line(result, "not a zett-agent store file")


def test_the_store_path_is_shown_resolved(tmp_path: Path, store: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.sqlite3").symlink_to(store)
    for typed in ("sub/../sessions.sqlite3", "./link.sqlite3"):
        line = assert_one_line(cli(typed, "--session", "nope", cwd=tmp_path), "no session 'nope'")
        assert f"in {store.resolve()}\n" in line, line


# --------------------------------------------------------------------------- issue 15: no app for a check


def test_the_start_up_check_does_not_build_the_app(tmp_path: Path, store: Path) -> None:
    """A store that cannot be browsed is reported before Textual is even imported."""
    script = (
        "import sys\n"
        "from zett_browser.__main__ import main\n"
        "codes = [main([sys.argv[1]]), main([sys.argv[2], '--session', 'nope'])]\n"
        "print(codes, 'textual' in sys.modules, 'zett_browser.app' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "missing.sqlite3"), str(store)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert result.stdout.strip() == "[2, 2] False False", result.stdout + result.stderr


# --------------------------------------------------------------------------- the header


async def test_the_header_shows_the_resolved_path_cleaned(tmp_path: Path) -> None:
    """A store path holding ESC reached the terminal through the header subtitle."""
    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app

    directory = tmp_path / "d\x1b]0;pwned\x07"
    directory.mkdir()
    shutil.copy(FIXTURES / "agent_run.sqlite3", directory / "sessions.sqlite3")
    (tmp_path / "other").mkdir()
    typed = str(tmp_path / "other" / ".." / directory.name / "sessions.sqlite3")
    app = make_app(typed, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        subtitle = str(app.screen.sub_title)
    assert "\x1b" not in subtitle and "\x07" not in subtitle
    assert subtitle == str(tmp_path / "d␛]0;pwned␇" / "sessions.sqlite3")
