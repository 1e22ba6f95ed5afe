"""A hang-up ends the process even when the app's own shutdown never returns (review case).

The terminal-vanished test once found the app alive 60 s after its tmux server was killed:
the hang-up had asked the app to exit, but its shutdown waited on the vanished terminal and
never reached the early end that follows it. A hang-up now also starts a deadline: if the
process still runs ``HANGUP_GRACE_S`` later, it ends then (running the command's hang-up
clean-ups), with the hang-up's exit status, and the store it never closed leaves no
``-wal``/``-shm`` behind (CI's terminal-vanished test found them after such an end).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    sys.path.insert(0, {repo!r})
    from zett_browser.startup import lifecycle

    lifecycle.HANGUP_GRACE_S = 0.5

    class Stuck:  # an app whose exit never finishes
        def exit(self):
            print("asked to exit", flush=True)

    async def main():
        lifecycle.install_exit_signals(Stuck())
        lifecycle.on_hangup_exit(lambda: print("cleaned up", flush=True))
        os.kill(os.getpid(), signal.{name})
        await asyncio.sleep(5)
        print("still running", flush=True)

    asyncio.run(main())
    """
)


def _run(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(repo=str(REPO), name=name)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_hang_up_ends_a_stuck_app_after_the_grace() -> None:
    result = _run("SIGHUP")
    assert result.returncode == 128 + signal.SIGHUP, result.stderr
    assert result.stdout.splitlines() == ["asked to exit", "cleaned up"], "ended at the deadline"


def test_sigterm_starts_no_deadline() -> None:
    """SIGTERM comes from someone who can wait: the terminal is still there for the app."""
    result = _run("SIGTERM")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["asked to exit", "still running"]


STUCK_WITH_A_STORE = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    sys.path.insert(0, {repo!r})
    from zett_browser.startup import lifecycle
    from zett_browser.storage import SQLSessionStorage

    lifecycle.HANGUP_GRACE_S = 0.5

    class Stuck:  # its exit never reaches the store's close
        def exit(self):
            print("asked to exit", flush=True)

    async def main():
        storage = SQLSessionStorage.open_for_browsing(sys.argv[1])
        roots = await storage.list_roots(limit=5)  # connections open: the sidecars exist now
        print("browsed", len(roots.items), os.path.exists(sys.argv[1] + "-shm"), flush=True)
        while len(sys.argv) > 2 and not os.path.exists(sys.argv[2]):  # the test's go-ahead
            await asyncio.sleep(0.05)
        lifecycle.install_exit_signals(Stuck())
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.sleep(5)
        print("still running", flush=True)

    asyncio.run(main())
    """
)


def test_a_store_the_stuck_app_never_closed_leaves_no_sidecars(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    shutil.copyfile(REPO / "tests" / "fixtures" / "storage_api.sqlite3", store)
    before = store.read_bytes()
    result = subprocess.run(
        [sys.executable, "-c", STUCK_WITH_A_STORE.format(repo=str(REPO)), str(store)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 128 + signal.SIGHUP, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("browsed ") and lines[0].endswith(" True") and lines[1:] == ["asked to exit"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["store.sqlite3"], "sidecars left"
    assert store.read_bytes() == before


def test_sidecars_another_process_uses_stay_at_a_stuck_end(tmp_path: Path) -> None:
    """A writer that attached after the browse created them (it holds the -shm's lock now)
    keeps them at the stuck end: they are its."""
    import sqlite3

    store, go = tmp_path / "store.sqlite3", tmp_path / "go"
    shutil.copyfile(REPO / "tests" / "fixtures" / "storage_api.sqlite3", store)
    process = subprocess.Popen(
        [sys.executable, "-c", STUCK_WITH_A_STORE.format(repo=str(REPO)), str(store), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    writer = sqlite3.connect(store)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("browsed ")  # its -wal/-shm exist now
        writer.execute("SELECT count(*) FROM agent_sessions").fetchone()  # attached: -shm locked
        go.touch()
        assert process.wait(timeout=60) == 128 + signal.SIGHUP, process.stderr.read() if process.stderr else ""
        names = {path.name for path in tmp_path.iterdir()}
        assert {"store.sqlite3-wal", "store.sqlite3-shm"} <= names
    finally:
        writer.close()
        if process.poll() is None:
            process.kill()
        process.communicate()
