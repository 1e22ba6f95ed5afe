"""Nothing ever writes onto the store: exports and the side index, through real CLI processes.

* ``export --output`` naming the store (also through ``..``, a symbolic or hard link, or a
  ``-wal``/``-shm``/``-journal`` path) is refused even with ``--force``, in the CLI and in
  the app's export dialog; ``--force`` never replaces a link, device, FIFO or socket.
* A symbolic or hard link planted at the index path (or its ``-wal``, ``-shm``,
  ``-journal``, ``.lock``) is refused; so is an index directory that is the store's own,
  a file, or empty.
* A store replaced in place by an older copy (``cp backup store``: same inode) after real
  WAL writes is noticed and the index rebuilt: no hit points at a row that is gone.
* A directory as export output, a full disk (during an index build: the partial index is
  removed and the next run works) and a read-only file system are one line on stderr that
  says what to do, exit status 2.

Every case checks that the store's bytes are unchanged and its directory holds nothing
new. Full and read-only disks are small tmpfs mounts (root only; skipped otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.index.helpers import S1, copy_fixture, sha256
from tests.support import DELEGATING_PARENT, KITCHEN, running_as_root
from zett_browser.index.db import index_file, store_identity
from zett_browser.model import UserMessage
from zett_browser.storage import SQLiteSessionStorage


def names(directory: Path) -> dict[str, tuple[int, bool]]:
    """Names in ``directory`` with their size and whether each is a symbolic link (not followed)."""
    return {entry.name: (entry.lstat().st_size, entry.is_symlink()) for entry in directory.iterdir()}


def cli(*args: str, cwd: Path, index_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if index_dir is not None:
        env["ZETT_BROWSER_INDEX_DIR"] = str(index_dir)
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit status 2, one line on stderr holding ``words``, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A copy of a zett-agent-written store, alone in its directory."""
    return copy_fixture("storage_api", tmp_path / "store")


class Untouched:
    """The store's bytes and its directory's entries, to compare with afterwards."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.digest = sha256(store)
        self.entries = names(store.parent)

    def check(self) -> None:
        assert sha256(self.store) == self.digest
        assert names(self.store.parent) == self.entries


# ---------------------------------------------------------------- export onto the store


def _output(case: str, store: Path, tmp_path: Path) -> Path:
    elsewhere = tmp_path / "out"
    elsewhere.mkdir(exist_ok=True)
    if case == "the store":
        return store
    if case == "through ..":
        (tmp_path / "x").mkdir()
        return tmp_path / "x" / ".." / "store" / store.name
    if case.startswith("-"):
        return Path(f"{store}{case}")
    if case == "symbolic link to it":
        (elsewhere / "link.md").symlink_to(store)
        return elsewhere / "link.md"
    assert case == "hard link to it"
    os.link(store, elsewhere / "hard.md")
    return elsewhere / "hard.md"


@pytest.mark.parametrize(
    "case", ["the store", "through ..", "-wal", "-shm", "-journal", "symbolic link to it", "hard link to it"]
)
def test_export_never_replaces_the_store(tmp_path: Path, store: Path, case: str) -> None:
    output = _output(case, store, tmp_path)
    before = Untouched(store)
    result = cli("export", str(store), "--session", KITCHEN, "--output", str(output), "--force", cwd=tmp_path)
    refused(result, "is the store", "choose another file")
    before.check()
    if case.endswith("link to it"):
        assert output.is_symlink() == (case == "symbolic link to it") and output.samefile(store)


def _special(kind: str, path: Path) -> None:
    if kind == "symbolic link":
        (path.parent / "target.md").write_text("theirs")
        path.symlink_to(path.parent / "target.md")
    elif kind == "link loop":
        path.symlink_to(path.parent / "other.md")
        (path.parent / "other.md").symlink_to(path)
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    else:
        if not running_as_root():
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null, in tmp_path


@pytest.mark.parametrize("kind", ["symbolic link", "link loop", "FIFO", "socket", "device"])
def test_force_replaces_only_a_regular_file(tmp_path: Path, store: Path, kind: str) -> None:
    output = tmp_path / "special.md"
    _special(kind, output)
    before, mode = Untouched(store), os.lstat(output).st_mode
    result = cli("export", str(store), "--session", KITCHEN, "--output", str(output), "--force", cwd=tmp_path)
    refused(result, "--force replaces only a regular file")
    assert os.lstat(output).st_mode == mode
    if kind == "symbolic link":
        assert (tmp_path / "target.md").read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".part")) == []
    before.check()


def test_export_to_a_directory_says_to_give_a_file_name(tmp_path: Path, store: Path) -> None:
    directory = tmp_path / "exports"
    directory.mkdir()
    before = Untouched(store)
    for force in ([], ["--force"]):
        result = cli("export", str(store), "--session", KITCHEN, "--output", str(directory), *force, cwd=tmp_path)
        refused(result, "is a directory", "give a file name")
    assert list(directory.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["exports", "store"]
    before.check()


async def test_the_export_dialog_never_replaces_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Checkbox, Input, Static

    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app
    from zett_browser.screens.export import ExportDialog

    monkeypatch.chdir(tmp_path)
    store = copy_fixture("storage_api", tmp_path / "store")
    (tmp_path / "x").mkdir()
    digest = sha256(store)
    app = make_app(str(store), session=DELEGATING_PARENT, clock=frozen_clock, poll_interval=0, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-path", Input).value = str(tmp_path / "x" / ".." / "store" / store.name)
        dialog.query_one("#export-force", Checkbox).value = True
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)
        assert "is the store" in str(dialog.query_one("#export-status", Static).render())
    assert sha256(store) == digest


# ---------------------------------------------------------------- the index beside or onto the store


def _index_path(store: Path, directory: Path) -> Path:
    return index_file(store_identity(store, None), directory)


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", ".lock"])
def test_a_symbolic_link_at_the_index_path_is_refused(tmp_path: Path, store: Path, suffix: str) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    planted = Path(f"{_index_path(store, directory)}{suffix}")
    planted.symlink_to(store)
    before = Untouched(store)
    result = cli("index", str(store), "--index-dir", str(directory), cwd=tmp_path)
    refused(result, "symbolic link", "remove it")
    before.check()
    assert planted.is_symlink() and sorted(p.name for p in directory.iterdir()) == [planted.name]


def test_a_hard_link_to_the_store_at_the_index_path_is_refused(tmp_path: Path, store: Path) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    planted = _index_path(store, directory)
    os.link(store, planted)
    before = Untouched(store)
    result = cli("search", str(store), "red", "--index-dir", str(directory), cwd=tmp_path)
    refused(result, "is the store", "remove it")
    before.check()
    assert sorted(p.name for p in directory.iterdir()) == [planted.name]


@pytest.mark.parametrize("how", ["--index-dir", "a link to it", "$ZETT_BROWSER_INDEX_DIR"])
def test_the_store_directory_is_refused_as_index_directory(tmp_path: Path, store: Path, how: str) -> None:
    before = Untouched(store)
    if how == "a link to it":
        (tmp_path / "link").symlink_to(store.parent)
        result = cli("index", str(store), "--index-dir", str(tmp_path / "link"), cwd=tmp_path)
    elif how == "--index-dir":
        result = cli("index", str(store), "--index-dir", str(store.parent), cwd=tmp_path)
    else:
        result = cli("index", str(store), cwd=tmp_path, index_dir=store.parent)
    refused(result, "the store's own directory", "give another directory")
    before.check()


def test_an_empty_index_dir_is_an_error(tmp_path: Path, store: Path) -> None:
    before, here = Untouched(store), names(tmp_path)
    for command in (["index", str(store)], ["search", str(store), "red"], [str(store)]):
        result = cli(*command, "--index-dir", "", cwd=tmp_path)
        refused(result, "--index-dir", "give a directory")
    assert names(tmp_path) == here
    before.check()


@pytest.mark.parametrize("which", ["a file", "the store"])
def test_an_index_dir_that_is_a_file_says_so(tmp_path: Path, store: Path, which: str) -> None:
    path = store if which == "the store" else tmp_path / "notes.txt"
    path.write_bytes(path.read_bytes() if which == "the store" else b"mine")
    before = Untouched(store)
    result = cli("index", str(store), "--index-dir", str(path), cwd=tmp_path)
    refused(result, "is a file, not a directory", "give a directory")
    before.check()


# ---------------------------------------------------------------- a store replaced in place


async def _append(store: Path, session: str, texts: list[str]) -> None:
    """Real WAL writes through the zett-agent-compatible writer (it folds its WAL on close)."""
    writer = SQLiteSessionStorage(store)
    try:
        for text in texts:
            await writer.append(session, "req-test", UserMessage(content=text))
    finally:
        await writer.close()


def _header(store: Path) -> tuple[int, int]:
    """The SQLite header's file change counter and its write version (2: WAL)."""
    header = store.read_bytes()[:100]
    return int.from_bytes(header[24:28], "big"), header[18]


def _hits(store: Path, word: str, cwd: Path, index_dir: Path) -> list[tuple[str, int]]:
    result = cli("search", str(store), word, "--json", cwd=cwd, index_dir=index_dir)
    assert result.returncode == (0 if result.stdout else 1), result.stderr  # 1: no hits, like grep
    return sorted((json.loads(line)["session_id"], json.loads(line)["sequence"]) for line in result.stdout.splitlines())


def test_a_store_replaced_in_place_by_an_older_copy_is_rebuilt(tmp_path: Path, store: Path) -> None:
    index_dir = tmp_path / "cache"
    backup = tmp_path / "backup.sqlite3"
    backup.write_bytes(store.read_bytes())
    inode = store.stat().st_ino
    built = cli("index", str(store), cwd=tmp_path, index_dir=index_dir)
    assert built.returncode == 0 and "rebuilt (first build)" in built.stdout, built.stderr
    counter, wal = _header(store)
    asyncio.run(_append(store, S1, ["zebra0 crossing", "zebra1 crossing", "zebra2 crossing"]))
    # Three WAL commits moved the header's change counter once (the checkpoint on close).
    assert wal == 2 and _header(store) == (counter + 1, wal)
    updated = cli("index", str(store), cwd=tmp_path, index_dir=index_dir)
    assert "updated" in updated.stdout and "+3 messages" in updated.stdout, updated.stdout + updated.stderr
    assert _hits(store, "zebra0", tmp_path, index_dir) == [(S1, 17)]

    store.write_bytes(backup.read_bytes())  # cp backup store: the same inode, older content
    asyncio.run(_append(store, S1, ["yak0 grazing", "yak1 grazing", "yak2 grazing"]))  # the same sequences again
    # Same inode, and the counter is back where the index saw it: only the content tells.
    assert store.stat().st_ino == inode and _header(store)[0] == counter + 1
    rebuilt = cli("index", str(store), cwd=tmp_path, index_dir=index_dir)
    assert "rebuilt (the store was replaced in place" in rebuilt.stdout, rebuilt.stdout + rebuilt.stderr
    assert _hits(store, "zebra0", tmp_path, index_dir) == []
    assert _hits(store, "yak1", tmp_path, index_dir) == [(S1, 18)]
    again = cli("index", str(store), cwd=tmp_path, index_dir=index_dir)
    assert "updated" in again.stdout and "+0 messages" in again.stdout  # legitimate state: no more rebuilds


def test_an_older_copy_put_back_is_told_by_the_header_counter(tmp_path: Path, store: Path) -> None:
    index_dir = tmp_path / "cache"
    backup = tmp_path / "backup.sqlite3"
    backup.write_bytes(store.read_bytes())
    asyncio.run(_append(store, S1, ["zebra0 crossing"]))  # its checkpoint moves the counter
    assert cli("index", str(store), cwd=tmp_path, index_dir=index_dir).returncode == 0
    store.write_bytes(backup.read_bytes())
    rebuilt = cli("index", str(store), cwd=tmp_path, index_dir=index_dir)
    assert "rebuilt (the store was replaced in place by an older copy)" in rebuilt.stdout, rebuilt.stderr
    assert _hits(store, "zebra0", tmp_path, index_dir) == []


# ---------------------------------------------------------------- full and read-only file systems


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``where`` (skips the test when it cannot be mounted)."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def fill(where: Path, leave: int) -> Path:
    """Fill the file system at ``where`` but ``leave`` bytes; returns the filler file."""
    filler = where / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
        size = out.tell()
    with filler.open("r+b") as out:
        out.truncate(max(size - leave, 0))
    return filler


def test_export_to_a_full_or_read_only_disk(tmp_path: Path, store: Path) -> None:
    before = Untouched(store)
    with tmpfs(tmp_path / "disk", "256k") as disk:
        fill(disk, 0)
        here = names(disk)
        result = cli("export", str(store), "--session", KITCHEN, "--output", str(disk / "k.md"), cwd=tmp_path)
        refused(result, "no space left", "free some space or choose another directory")
        assert names(disk) == here  # no partial file
        read_only(disk)
        result = cli("export", str(store), "--session", KITCHEN, "--output", str(disk / "k.md"), cwd=tmp_path)
        refused(result, "read-only file system", "choose a writable directory")
    before.check()


def test_a_full_disk_during_an_index_build_leaves_no_partial_index(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    before = Untouched(store)
    with tmpfs(tmp_path / "disk", "1m") as disk:
        filler = fill(disk, 96 * 1024)
        index_dir = disk / "index"
        for _ in range(2):  # every run: the same clear line, and nothing left taking the space
            result = cli("index", str(store), "--index-dir", str(index_dir), cwd=tmp_path)
            refused(result, "no space left", "free some space")
            assert "rollback" not in result.stderr
            assert sorted(p.name for p in index_dir.iterdir() if not p.name.endswith(".lock")) == []
        filler.unlink()
        result = cli("index", str(store), "--index-dir", str(index_dir), cwd=tmp_path)
        assert result.returncode == 0 and "rebuilt (first build)" in result.stdout, result.stderr
    before.check()


def test_an_index_on_a_read_only_disk(tmp_path: Path, store: Path) -> None:
    before = Untouched(store)
    with tmpfs(tmp_path / "disk", "256k") as disk:
        read_only(disk)
        result = cli("index", str(store), "--index-dir", str(disk / "index"), cwd=tmp_path)
        refused(result, "read-only file system", "give a writable --index-dir")
    before.check()


def test_a_store_on_a_full_or_read_only_disk_says_what_to_do(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "1m") as disk:
        store = copy_fixture("storage_api", disk)
        digest = sha256(store)
        fill(disk, 0)
        result = cli("export", str(store), "--session", KITCHEN, cwd=tmp_path)
        refused(result, "disk is full", "free some space")
        (disk / "filler").unlink()
        read_only(disk)
        for command in (["export", str(store), "--session", KITCHEN], ["index", str(store)]):
            result = cli(*command, cwd=tmp_path, index_dir=tmp_path / "cache")
            refused(result, "read-only file system", "copy the store to a writable directory")
        assert sha256(store) == digest and sorted(p.name for p in disk.iterdir()) == [store.name]
