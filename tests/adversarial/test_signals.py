"""Signals in the middle of every subcommand's work: a clean end, nothing left behind.

Each case runs the real command line (``python -m zett_browser ...``) on a store big
enough that the work takes a while, waits until the work has surely started (the index
file, or the export's ``.part`` file, exists), sends SIGINT, SIGTERM or SIGHUP after a
few different delays, and checks: exit status 128 + the signal's number (130, 143, 129),
no traceback and no crash (ctrl+c during ``index`` segfaulted: the sync closed the index
connection while its write thread was inside SQLite), the store's bytes unchanged,
nothing beside the store (no ``-wal``/``-shm``), no ``.part`` file beside the export.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.bigstore import BIG_SESSION, build
from zett_browser.index.threads import in_thread as _thread
from zett_browser.startup.lifecycle import COMMAND_SIGNALS, CommandInterrupted, run_async

REPO = Path(__file__).resolve().parents[2]
#: Messages in the one big session (exported) and in the store (indexed): the work takes
#: a second or two on a loaded 2-core machine, long enough to be interrupted.
BIG = 20_000
MESSAGES = 40_000


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("signals") / "store"
    directory.mkdir()
    path = directory / "sessions.sqlite3"
    # The deep session uncompacted: `context` then prints all of it, so a signal lands mid-print.
    build(path, messages=MESSAGES, sessions=60, big=BIG, fanout=10, big_every=0)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def interrupt(
    argv: list[str], started: Callable[[], bool], number: int, delay: float
) -> subprocess.CompletedProcess[str]:
    """Run the command, wait until ``started()``, wait ``delay`` more, send the signal."""
    process = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "zett_browser", *argv],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started():
            assert process.poll() is None, f"the command ended before its work began: {process.communicate()}"
            assert time.monotonic() < deadline, "the work never began"
            time.sleep(0.01)
        time.sleep(delay)
        assert process.poll() is None, "the work was over before the signal: make the store bigger"
        process.send_signal(number)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def check_clean_end(result: subprocess.CompletedProcess[str], number: int, store: Path, digest: str) -> None:
    assert result.returncode >= 0, f"killed by signal {-result.returncode}: {result.stderr[-2000:]}"
    assert "Segmentation fault" not in result.stderr and "Fatal Python error" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "KeyboardInterrupt" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == 128 + number, (result.returncode, result.stderr[-2000:])
    assert sha256(store) == digest
    assert sorted(path.name for path in store.parent.iterdir()) == [store.name], "files left beside the store"


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.parametrize("command", ["index", "search", "usage"])
@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_during_an_index_build_ends_it_cleanly(
    big_store: Path, tmp_path: Path, command: str, number: int
) -> None:
    digest = sha256(big_store)
    delays = [0.0, 0.4, 0.9] if number == signal.SIGINT and command == "index" else [0.3]
    for attempt, delay in enumerate(delays):
        index_dir = tmp_path / f"index-{attempt}"
        argv = [command, "--index-dir", str(index_dir), str(big_store)]
        if command == "search":
            argv.append("agent")  # options first: search takes [STORE] QUERY last
        started = lambda: index_dir.is_dir() and any(index_dir.glob("*.sqlite3"))  # noqa: B023, E731
        result = interrupt(argv, started, number, delay)
        check_clean_end(result, number, big_store, digest)


@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_during_an_export_removes_the_part_file(big_store: Path, tmp_path: Path, number: int) -> None:
    digest = sha256(big_store)
    for attempt, delay in enumerate([0.0, 0.3] if number == signal.SIGINT else [0.1]):
        out = tmp_path / f"out-{attempt}"
        out.mkdir()
        target = out / "session.md"
        argv = ["export", str(big_store), "--session", BIG_SESSION, "--output", str(target)]
        result = interrupt(argv, lambda: any(out.glob("*.part")), number, delay)  # noqa: B023 - used at once
        check_clean_end(result, number, big_store, digest)
        assert list(out.iterdir()) == [], "the export left a file"


@pytest.mark.parametrize("command", ["export", "context"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=lambda number: signal.Signals(number).name)
def test_a_signal_while_a_session_is_printed_ends_it_cleanly(big_store: Path, command: str, number: int) -> None:
    digest = sha256(big_store)
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_browser", command, str(big_store), "--session", BIG_SESSION],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline()  # the session is being printed
        process.send_signal(number)
        _out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    check_clean_end(subprocess.CompletedProcess(process.args, process.returncode, "", err), number, big_store, digest)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=lambda number: signal.Signals(number).name)
def test_a_signal_while_the_demo_writes_its_store_removes_it(tmp_path: Path, number: int) -> None:
    """``demo PATH`` writes a new file: interrupted before the app runs, the file goes."""
    target = tmp_path / "demo.sqlite3"
    result = interrupt(["demo", str(target)], target.exists, number, 0.02)
    assert result.returncode == 128 + number, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr and "KeyboardInterrupt" not in result.stderr, result.stderr[-3000:]
    assert list(tmp_path.iterdir()) == []


def test_a_signal_cancels_the_work_lets_its_clean_up_finish_and_restores_the_handlers() -> None:
    """In this process: the first signal cancels the coroutine; a second one during its
    clean-up does not cut that short; then CommandInterrupted carries 128 + the first."""
    before = {number: signal.getsignal(number) for number in COMMAND_SIGNALS}
    cleaned: list[str] = []

    async def work() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        finally:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0.1)  # the clean-up awaits: not cancelled again
            cleaned.append("closed")

    started = time.monotonic()
    with pytest.raises(CommandInterrupted) as raised:
        run_async(work())
    assert raised.value.code == 143 and raised.value.number == signal.SIGTERM
    assert cleaned == ["closed"]
    assert time.monotonic() - started < 10
    assert {number: signal.getsignal(number) for number in COMMAND_SIGNALS} == before


def test_a_cancelled_index_call_waits_for_its_thread_and_interrupts_its_statement(tmp_path: Path) -> None:
    """The segfault's cause, without a race: cancelled, ``asyncio.to_thread`` returned while
    its thread was still inside SQLite, and the caller closed the connection under it."""
    db = sqlite3.connect(tmp_path / "index.sqlite3", check_same_thread=False, isolation_level=None)
    inside = threading.Event()
    ended: list[str] = []

    def endless(connection: sqlite3.Connection) -> None:
        connection.create_function("mark", 0, inside.set)
        try:  # runs until interrupted: a write that would take minutes
            connection.execute(
                "WITH RECURSIVE n(i) AS (SELECT mark() UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
            ).fetchone()
        except sqlite3.OperationalError as error:
            ended.append(str(error))

    async def cancel_it() -> None:
        task = asyncio.ensure_future(_thread(endless, db))
        await asyncio.to_thread(inside.wait, 30)
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await task
            assert ended == ["interrupted"]  # the thread had returned before the caller went on
        finally:
            db.interrupt()  # (should it still run: the test ends either way)

    try:
        asyncio.run(asyncio.wait_for(cancel_it(), 30))
    finally:
        db.close()
