"""Issue 10, the read-only promise under hostile conditions: nothing written, nothing left.

* The real app in a real terminal (tmux) ended by SIGTERM or SIGHUP (the terminal closed),
  also after the store was deleted or replaced while open: the terminal leaves the
  alternate screen and the directory holds exactly what it held before.
* A store the user can read but not write, in a writable directory, browsed as an
  unprivileged user: no ``-wal``/``-shm`` left.
* The ``-wal``/``-shm`` clean-up never removes files another connection still uses, in
  another process or in this one.
* A FIFO, socket or device given as the store is refused without being opened.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from tests.support import FIXTURES, listing, running_as_root
from zett_browser.storage import StoreError, open_store

REPO = Path(__file__).resolve().parents[2]
TMUX = shutil.which("tmux")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.1)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A copy of a zett-agent-written store, alone in its directory, with no -wal/-shm."""
    directory = tmp_path / "store"
    directory.mkdir()
    path = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    return path


# --------------------------------------------------------------------------- the app in tmux


class Tmux:
    """A private tmux server (its own socket) running the real ``zett-browser`` in 120×40."""

    def __init__(self) -> None:
        assert TMUX is not None
        self.socket = f"zbtest-{uuid.uuid4().hex[:12]}"

    def __call__(self, *args: str) -> str:
        result = subprocess.run(
            [str(TMUX), "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        return result.stdout.strip()

    def start(self, *argv: str) -> int:
        command = " ".join(["exec", sys.executable, "-m", "zett_browser", *argv])
        self("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", f"cd {REPO} && {command}")
        self("set-option", "-t", "app", "remain-on-exit", "on")
        return int(self("display-message", "-p", "-t", "app", "#{pane_pid}"))

    def value(self, name: str) -> str:
        return self("display-message", "-p", "-t", "app", "#{" + name + "}")

    def close(self) -> None:
        self("kill-server")


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    if TMUX is None:
        pytest.skip("tmux is not installed")
    session = Tmux()
    try:
        yield session
    finally:
        session.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def exited(pid: int) -> bool:
    """The process has ended (a zombie its parent has not reaped yet counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return not alive(pid)
    return "State:\tZ" in status


def start_app(tmux: Tmux, store: Path) -> int:
    pid = tmux.start(str(store))
    wait_for(lambda: tmux.value("alternate_on") == "1", 20, "the app to enter the alternate screen")
    # The app is browsing once SQLite created its sidecar files; then let it paint.
    wait_for(lambda: Path(f"{store}-shm").exists(), 20, "the app to open the store")
    time.sleep(1.0)
    assert tmux.value("pane_dead") == "0", tmux("capture-pane", "-p", "-t", "app")
    return pid


@pytest.mark.parametrize("change", ["none", "deleted", "backup copied over", "backup renamed over"])
def test_sigterm_restores_the_terminal_and_leaves_the_directory_as_it_was(
    tmux: Tmux, store: Path, tmp_path: Path, change: str
) -> None:
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(store, backup)
    before = listing(store.parent)
    pid = start_app(tmux, store)
    if change == "deleted":
        store.unlink()
        before = {}
    elif change == "backup copied over":
        shutil.copyfile(backup, store)
    elif change == "backup renamed over":
        shutil.copyfile(backup, tmp_path / "staged")
        os.replace(tmp_path / "staged", store)
    os.kill(pid, 15)
    wait_for(lambda: tmux.value("pane_dead") == "1", 20, "the app to exit after SIGTERM")
    assert tmux.value("alternate_on") == "0", "the terminal was left in the alternate screen"
    assert listing(store.parent) == before
    if change != "deleted":
        assert sha256(store) == sha256(backup)


@pytest.mark.parametrize("number", [15, 1])
def test_a_signal_while_the_app_is_still_starting_leaves_the_directory_as_it_was(
    tmux: Tmux, store: Path, number: int
) -> None:
    """The start-up reader opens the store before Textual is even imported: SIGTERM or SIGHUP
    from that moment on (here: as soon as its -shm exists) must still end the command cleanly,
    with the terminal restored and nothing left beside the store."""
    before_listing, before_digest = listing(store.parent), sha256(store)
    pid = tmux.start(str(store))
    wait_for(lambda: Path(f"{store}-shm").exists(), 20, "the start-up reader to open the store")
    os.kill(pid, number)
    wait_for(lambda: exited(pid), 20, "the command to exit")
    if number == 15:  # after SIGHUP the terminal is gone anyway (and tmux may not reap at once)
        wait_for(lambda: tmux.value("pane_dead") == "1", 20, "the pane to show the exit")
        assert tmux.value("alternate_on") == "0", "the terminal was left in the alternate screen"
    assert listing(store.parent) == before_listing
    assert sha256(store) == before_digest


def test_sighup_when_the_terminal_closes_leaves_the_directory_as_it_was(tmux: Tmux, store: Path) -> None:
    before_listing, before_digest = listing(store.parent), sha256(store)
    pid = start_app(tmux, store)
    tmux("kill-session", "-t", "app")  # the terminal window closes: the app gets SIGHUP
    wait_for(lambda: not alive(pid), 20, "the app to exit after SIGHUP")
    assert listing(store.parent) == before_listing
    assert sha256(store) == before_digest


def test_the_app_ends_when_its_terminal_vanishes(tmux: Tmux, store: Path) -> None:
    """Review case: apps whose tmux server was killed were found alive hours later (Textual's
    output thread waiting on a full queue, or its input thread spinning on the closed
    terminal). The hang-up must end the process, with the store closed and no sidecars left."""
    before_listing, before_digest = listing(store.parent), sha256(store)
    for _ in range(3):
        pid = start_app(tmux, store)
        for _ in range(4):  # frames being written when the terminal goes (the hang needs them)
            tmux("send-keys", "-t", "app", *(["j", "k"] * 20))
        tmux.close()  # the whole terminal goes: every pane gets SIGHUP, the pty closes
        # The review case hung for hours; 60 s leaves room for a machine under a load of 6 on 2 cores.
        wait_for(partial(exited, pid), 60, "the app to end after its terminal vanished")
        assert listing(store.parent) == before_listing
        assert sha256(store) == before_digest


def test_a_temporary_demo_is_removed_when_its_terminal_vanishes(tmux: Tmux, tmp_path: Path) -> None:
    """Review case: after a hang-up the process ends right after the app's clean-up, which
    skipped ``zett-browser demo``'s removal of its temporary store."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    command = f"cd {REPO} && TMPDIR={temp} exec {sys.executable} -m zett_browser demo"
    tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command)
    tmux("set-option", "-t", "app", "remain-on-exit", "on")
    pid = int(tmux("display-message", "-p", "-t", "app", "#{pane_pid}"))
    wait_for(lambda: tmux.value("alternate_on") == "1", 30, "the demo to start")
    wait_for(lambda: any(temp.glob("zett-browser-demo-*/demo.sqlite3-shm")), 30, "the demo store to be browsed")
    time.sleep(1.0)
    tmux.close()
    wait_for(partial(exited, pid), 60, "the demo to end after its terminal vanished")
    assert list(temp.iterdir()) == [], "the temporary demo store was left behind"


# --------------------------------------------------------------------------- unprivileged user

NOBODY_BROWSE = textwrap.dedent(
    """
    import asyncio, os, sys
    sys.path.insert(0, {repo!r})
    from zett_browser.storage import open_store
    from zett_browser.__main__ import main
    # Loaded before dropping privileges, like the rest (this interpreter may live where the
    # unprivileged user cannot read): the documented API's records import pydantic lazily.
    import zett_browser.model.documented
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)
    assert not os.access({store!r}, os.W_OK), "the store must not be writable for this user"
    assert os.access(os.path.dirname({store!r}), os.W_OK), "its directory must be writable"

    async def browse():
        storage = open_store({store!r})
        sessions = await storage.list_sessions()
        await storage.list_raw_messages(sessions[0].session_id)
        await storage.close()
        return len(sessions)

    print("SESSIONS", asyncio.run(browse()))
    print("CLI", main([{store!r}, "--session", "no-such-session"]))
    """
)


def test_a_store_readable_but_not_writable_in_a_writable_directory_leaves_nothing(nobody_tmp: Path) -> None:
    """As ``nobody`` (root may write any file): ``mode=ro`` creates -wal/-shm, which must go again."""
    if not running_as_root() and os.access(nobody_tmp, os.W_OK):
        pytest.skip("needs root to switch to an unprivileged user")
    directory = nobody_tmp / "shared"
    directory.mkdir()
    store = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", store)
    store.chmod(0o444)
    directory.chmod(0o777)
    before_listing, before_digest = listing(directory), sha256(store)
    script = NOBODY_BROWSE.format(repo=str(REPO), store=str(store))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert "SESSIONS" in result.stdout and "CLI 2" in result.stdout, result.stderr
    assert "no session 'no-such-session'" in result.stderr
    assert listing(directory) == before_listing
    assert sha256(store) == before_digest


NOBODY_READ_ONLY_DIRECTORY = textwrap.dedent(
    """
    import asyncio, os, sys
    sys.path.insert(0, {repo!r})
    from zett_browser.storage import open_store, StoreError
    import zett_browser.model.documented  # pydantic, loaded lazily: before dropping privileges
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)
    assert not os.access(os.path.dirname({store!r}), os.W_OK)

    async def browse():
        storage = open_store({store!r})
        try:
            return len(await storage.list_sessions())
        except StoreError as error:
            return f"ERROR {{error}}"
        finally:
            await storage.close()

    print(asyncio.run(browse()))
    """
)


@pytest.mark.parametrize("sidecars", ["absent", "left by a writer"])
def test_a_read_only_directory(nobody_tmp: Path, sidecars: str) -> None:
    """Without a -shm SQLite cannot read a WAL store there: a clear error. With one, it browses."""
    if not running_as_root():
        pytest.skip("needs root to switch to an unprivileged user")
    directory = nobody_tmp / "locked"
    directory.mkdir()
    store = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", store)
    if sidecars == "left by a writer":
        holder = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        holder.execute("select 1 from raw_messages").fetchone()
        holder.close()  # mode=ro leaves -wal and -shm, as a crashed writer would
    for path in directory.iterdir():
        path.chmod(0o666)
    directory.chmod(0o555)
    before = listing(directory)
    script = NOBODY_READ_ONLY_DIRECTORY.format(repo=str(REPO), store=str(store))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    directory.chmod(0o755)
    if sidecars == "absent":
        assert "ERROR" in result.stdout and "directory is not writable" in result.stdout, result.stdout + result.stderr
    else:
        assert result.stdout.strip().isdigit() and int(result.stdout) > 0, result.stdout + result.stderr
    assert listing(directory) == before


# --------------------------------------------------------------------------- the clean-up's caution

HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    connection = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    connection.execute("select count(*) from raw_messages").fetchone()
    print("OPEN", flush=True)
    sys.stdin.readline()
    print(connection.execute("select count(*) from raw_messages").fetchone()[0], flush=True)
    """
)


async def test_sidecars_another_process_still_uses_are_kept(store: Path) -> None:
    storage = open_store(store)
    await storage.list_sessions()  # we create -wal and -shm
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "OPEN"
        await storage.close()
        assert sorted(listing(store.parent)) == ["sessions.sqlite3", "sessions.sqlite3-shm", "sessions.sqlite3-wal"]
        out, _ = holder.communicate("\n", timeout=30)
        assert int(out.strip()) > 0, "the other process still reads the store"
    finally:
        holder.kill()
        holder.wait(timeout=10)


async def test_sidecars_another_connection_of_this_process_uses_are_kept(store: Path) -> None:
    """Closing a descriptor would drop this process's locks, so in-process users are detected first."""
    storage = open_store(store)
    await storage.list_sessions()
    other = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        other.execute("select count(*) from raw_messages").fetchone()
        await storage.close()
        assert sorted(listing(store.parent)) == ["sessions.sqlite3", "sessions.sqlite3-shm", "sessions.sqlite3-wal"]
        assert other.execute("select count(*) from raw_messages").fetchone()[0] > 0
    finally:
        other.close()
    # The last user gone, the next browse (which sees them as pre-existing) keeps them too.
    again = open_store(store)
    await again.list_sessions()
    await again.close()
    assert (store.parent / "sessions.sqlite3-wal").exists()


async def test_sidecars_that_existed_before_are_kept(store: Path) -> None:
    holder = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    holder.execute("select 1 from raw_messages").fetchone()
    holder.close()  # mode=ro leaves both files: they now exist before the browse
    before = listing(store.parent)
    assert len(before) == 3
    storage = open_store(store)
    await storage.list_sessions()
    await storage.close()
    assert listing(store.parent) == before


async def test_a_sync_view_alone_cleans_up_too(store: Path) -> None:
    def browse() -> int:
        with open_store(store).sync() as view:
            return len(view.list_sessions())

    assert await asyncio.to_thread(browse) > 0
    assert sorted(listing(store.parent)) == ["sessions.sqlite3"]


# --------------------------------------------------------------------------- not a regular file


def open_in_subprocess(path: Path) -> subprocess.CompletedProcess[str]:
    """open_store in a child with a timeout: a FIFO opened for reading would block forever."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from zett_browser.storage import open_store, StoreError
        try:
            open_store({str(path)!r})
        except StoreError as error:
            print(type(error).__name__, error)
        """
    )
    try:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("opening the FIFO blocked")


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "sessions.sqlite3"
    os.mkfifo(fifo)
    result = open_in_subprocess(fifo)
    assert result.stdout.startswith("NotAFileError") and "is a FIFO" in result.stdout, result.stderr


def test_a_socket_and_a_device_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        with pytest.raises(StoreError, match="is a socket"):
            open_store(path)
    finally:
        server.close()
    with pytest.raises(StoreError, match="is a character device"):
        open_store("/dev/null")
    with pytest.raises(StoreError):
        open_store("/dev/zero")


def test_the_live_demo_leaves_only_its_store(tmp_path: Path, tmux: Tmux) -> None:
    """The live demo writes while the app browses read-only; on quit its WAL is folded into its own store."""
    store = tmp_path / "demo.sqlite3"
    tmux.start("demo", str(store), "--live")
    wait_for(lambda: tmux.value("alternate_on") == "1" and Path(f"{store}-wal").exists(), 30, "the live demo")
    time.sleep(2.0)  # a step or two written
    tmux("send-keys", "-t", "app", "q")
    wait_for(lambda: tmux.value("pane_dead") == "1", 20, "the demo to quit")
    assert tmux.value("alternate_on") == "0"
    assert sorted(listing(tmp_path)) == ["demo.sqlite3"]
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        assert connection.execute("pragma integrity_check").fetchone()[0] == "ok"
    connection.close()


async def test_sigterm_to_a_running_app_exits_it_through_unmount(store: Path) -> None:
    """Without tmux: the app turns SIGTERM into exit() on its loop, and its storage is closed.

    The signal is sent only once the handler is seen on the loop: without it, SIGTERM would
    end the test run itself.
    """
    import signal

    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app

    before = listing(store.parent)
    app = make_app(str(store), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert Path(f"{store}-shm").exists(), "the app is browsing"
        handlers = getattr(asyncio.get_running_loop(), "_signal_handlers", {})
        assert signal.SIGTERM in handlers and signal.SIGHUP in handlers, "no exit handler installed"
        os.kill(os.getpid(), signal.SIGTERM)
        wait = asyncio.get_running_loop().time() + 10
        while app.is_running and asyncio.get_running_loop().time() < wait:
            await asyncio.sleep(0.05)
        assert not app.is_running
    assert listing(store.parent) == before
