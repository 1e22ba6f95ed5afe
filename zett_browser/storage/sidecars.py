"""Removes the ``-wal``/``-shm`` files a read-only browse created, when that is provably safe.

Browsing opens SQLite with ``mode=ro``: the main file is opened ``O_RDONLY``, so closing
can never checkpoint a writer's WAL into it (with ``mode=rw`` the last connection to close
did, changing the store's bytes, and corrupting a file restored from a backup meanwhile).
The price: on a WAL store (zett-agent's are) SQLite creates ``-wal`` and ``-shm`` beside
the store and a read-only connection never deletes them. :class:`SidecarGuard` records at
open which of the two existed, and after every connection of the storage is closed it
removes the ones the browse created, only when all of these hold (measured on SQLite
3.40.1's unix VFS):

* the ``-wal`` is empty. A non-empty ``-wal`` holds commits of a writer that ran while we
  browsed and exited without checkpointing (it could not: we were attached); those
  commits exist nowhere else, so the file stays, and the next writer folds it in. The
  exception: the store itself is gone (deleted or moved away while we browsed). SQLite
  finds a ``-wal`` by name only, so an orphan one is of no use to anyone, and would be
  applied to the next database created at that path (zett-agent creates its default
  store when it is missing): it goes;
* no file descriptor of this process still refers to either file (another connection of
  this process, e.g. the live demo's writer, would lose its locks when we closed ours:
  POSIX locks belong to the process);
* no other process is attached: every connection using the ``-shm`` holds a shared POSIX
  lock on its "DMS" byte (offset 128). We take a write lock on that byte without waiting;
  it fails while anyone holds the shared lock. While we hold it, a process opening the
  store cannot attach to the old ``-shm`` (SQLite retries internally for about 10 s
  before reporting SQLITE_PROTOCOL; we hold the lock for two unlinks), and afterwards it
  creates fresh files. The files are unlinked under that lock.

One process may open the same store several times at once (the storage, the start-up
reader, the index's freshness check, the look into zett-agent's default store), each with
its own guard. What existed before is therefore recorded once per process: the first
guard of a store records it, the guards opened while it is held share that record, and
whichever is released last removes what the process created. (With a record per guard,
a check opened after the storage saw the storage's sidecars as "already there", and if
it closed last, nobody removed them: an empty ``-wal``/``-shm`` stayed beside the store.)

Anything unexpected (a failed stat, lock or unlink) leaves the files where they are:
leaving an empty ``-wal`` is untidy, deleting a live one would lose data.

A consequence to know (measured with zett-agent 0.2.1, which opens a connection per
call): an agent that writes while the browser is open leaves its commits in the
``-wal`` until its next call, like with any other open reader. A backup restored over
the store must then be restored without that ``-wal``: SQLite applies whatever ``-wal``
sits beside a database (after 300 appends and a restore, the next open found the
restored file "malformed"). The browser never deletes a non-empty ``-wal``; the store's
own bytes are never written.
"""

from __future__ import annotations

import fcntl
import os
import threading
import weakref
from pathlib import Path

#: Byte of the ``-shm`` file every attached connection holds a shared lock on (unix VFS:
#: ``UNIX_SHM_DMS`` = (22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK, SQLITE_SHM_NLOCK = 8).
SHM_DMS_OFFSET = 128


def sidecar_paths(path: Path) -> tuple[Path, Path]:
    """The ``-wal`` and ``-shm`` files SQLite uses beside ``path`` (it resolves symlinks)."""
    real = path.resolve()
    return real.with_name(real.name + "-wal"), real.with_name(real.name + "-shm")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _open_in_this_process(identities: set[tuple[int, int]]) -> bool | None:
    """True if one of our file descriptors refers to one of ``identities``; None if unknown."""
    for fd_dir in ("/proc/self/fd", "/dev/fd"):
        try:
            entries = os.listdir(fd_dir)
        except OSError:
            continue
        for entry in entries:
            try:
                stat = os.stat(os.path.join(fd_dir, entry))
            except OSError:
                continue  # the listing's own descriptor, or one closed meanwhile
            if (stat.st_dev, stat.st_ino) in identities:
                return True
        return False
    return None


def _open_for_locking(shm: Path) -> int:
    """Open ``shm`` read-write (a write lock needs it).

    SQLite gives the sidecars the store's permission bits, so beside a store the user
    may only read (``0444``) the ``-shm`` we created is ``0444`` too: being its owner, we
    may add our write bit for the moment of the check.
    """
    try:
        return os.open(shm, os.O_RDWR | os.O_NOFOLLOW)
    except PermissionError:
        mode = os.stat(shm, follow_symlinks=False).st_mode
        os.chmod(shm, mode | 0o200)
        try:
            return os.open(shm, os.O_RDWR | os.O_NOFOLLOW)
        finally:
            if shm.exists():
                os.chmod(shm, mode)


class _Record:
    """What existed beside one store before this process opened it, and who holds it.

    (This module's classes are plain slotted classes, not dataclasses: every subcommand
    opens a guard, and importing :mod:`dataclasses` costs it ~15 ms.)
    """

    __slots__ = ("holders", "shm_existed", "wal_existed")

    def __init__(self, wal_existed: bool, shm_existed: bool) -> None:
        self.wal_existed = wal_existed
        self.shm_existed = shm_existed
        self.holders = 0


#: One record per ``-wal`` path while a guard of this process holds it.
_RECORDS: dict[Path, _Record] = {}
#: Re-entrant: a guard dropped unreleased is finalized by the garbage collector, which may
#: run while this thread holds the lock (its ``drop`` then takes it again, not forever).
_RECORDS_LOCK = threading.RLock()


class _Hold:
    """One guard's hold on a shared record (apart from the guard, so a finalizer can drop it)."""

    __slots__ = ("active", "record", "wal")

    def __init__(self, wal: Path, record: _Record) -> None:
        self.wal = wal
        self.record = record
        self.active = True

    def drop(self) -> bool:
        """Stop holding (once); True when no guard of the process holds the record any more."""
        with _RECORDS_LOCK:
            if self.active:
                self.active = False
                self.record.holders -= 1
                if self.record.holders == 0 and _RECORDS.get(self.wal) is self.record:
                    del _RECORDS[self.wal]
            return self.record.holders == 0


class SidecarGuard:
    """What existed beside a SQLite store when this process first opened it for browsing."""

    __slots__ = ("__weakref__", "_hold", "shm", "store", "wal")

    def __init__(self, store: Path, wal: Path, shm: Path, hold: _Hold) -> None:
        self.store = store
        self.wal = wal
        self.shm = shm
        self._hold = hold

    def __repr__(self) -> str:
        return f"SidecarGuard(store={self.store!r}, wal={self.wal!r}, shm={self.shm!r})"

    @classmethod
    def record(cls, path: Path) -> SidecarGuard:
        """Note which sidecar files exist now, before the first connection.

        While another guard of this process holds the same store, its record is shared:
        the sidecars that guard's connection created do not count as pre-existing.
        """
        wal, shm = sidecar_paths(path)
        with _RECORDS_LOCK:
            shared = _RECORDS.get(wal)
            if shared is None:
                shared = _RECORDS[wal] = _Record(wal.exists(), shm.exists())
            shared.holders += 1
        hold = _Hold(wal, shared)
        guard = cls(path.resolve(), wal, shm, hold)
        weakref.finalize(guard, hold.drop)  # a guard dropped unreleased holds nothing
        return guard

    @property
    def wal_existed(self) -> bool:
        """The ``-wal`` was there before this process opened the store."""
        return self._hold.record.wal_existed

    @property
    def shm_existed(self) -> bool:
        """The ``-shm`` was there before this process opened the store."""
        return self._hold.record.shm_existed

    def release(self) -> list[Path]:
        """Remove the sidecars this browse created if that is safe; return what was removed.

        Call it after every connection of the storage is closed; calling it again (a
        storage that opened connections after its views let go) tries once more. It
        never raises.
        """
        if not self._hold.drop():
            return []  # another guard of this process still holds the store: the last one removes
        candidates = [p for p, existed in ((self.wal, self.wal_existed), (self.shm, self.shm_existed)) if not existed]
        if not candidates or self.shm_existed:
            # Without a -shm of our own we cannot prove nobody uses the -wal; leave both.
            return []
        try:
            return self._remove_if_unused(candidates)
        except OSError:
            return []

    def _remove_if_unused(self, candidates: list[Path]) -> list[Path]:
        identities = {ident for ident in map(_identity, (self.wal, self.shm)) if ident is not None}
        if not identities or _open_in_this_process(identities) is not False:
            return []
        return _remove_unless_attached(self.store, self.wal, self.shm, candidates)


def _wal_holds_data(store: Path, wal: Path) -> bool:
    """True while ``wal`` holds commits that belong to the store still at its path."""
    if not wal.exists() or os.stat(wal).st_size == 0:
        return False
    return os.path.lexists(store)


def _remove_unless_attached(store: Path, wal: Path, shm: Path, candidates: list[Path]) -> list[Path]:
    """Unlink ``candidates`` under a write lock on the ``-shm``'s DMS byte, unless another
    process is attached (it holds that byte shared) or the ``-wal`` holds commits."""
    if _wal_holds_data(store, wal):
        return []  # a writer's commits live only there
    fd = _open_for_locking(shm)
    try:
        if _identity(shm) != (os.fstat(fd).st_dev, os.fstat(fd).st_ino):
            return []
        try:  # Python's lockf is fcntl(F_SETLK) on a struct flock: the lock SQLite tests
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, SHM_DMS_OFFSET, os.SEEK_SET)
        except OSError:
            return []  # another process is attached
        if _wal_holds_data(store, wal):
            return []
        removed = []
        for path in candidates:  # the empty -wal first, then the -shm we still lock
            if path.exists():
                path.unlink()
                removed.append(path)
        return removed
    finally:
        os.close(fd)  # releases the lock


def release_all_at_exit() -> list[Path]:
    """The process ends NOW with connections still open (a hang-up's deadline, when the
    app's shutdown never reached the store's close): remove the sidecars this process
    created beside every store it still holds, when no other process is attached and the
    ``-wal`` is empty. Our own descriptors are not checked (as :meth:`SidecarGuard.release`
    does): they close with the process a moment later, and POSIX locks of this process
    never block its own lock. Never raises; returns what was removed.
    """
    if not _RECORDS_LOCK.acquire(timeout=1.0):  # held by a stuck thread: the process ends anyway
        return []
    try:
        held = [(wal, _RECORDS[wal]) for wal in tuple(_RECORDS)]
    except (KeyError, RuntimeError):  # changed under us by a finalizer: leave the files
        return []
    finally:
        _RECORDS_LOCK.release()
    removed: list[Path] = []
    for wal, record in held:
        if record.shm_existed:
            continue  # without a -shm of our own we cannot prove nobody uses the -wal
        stem = wal.name.removesuffix("-wal")
        store, shm = wal.with_name(stem), wal.with_name(stem + "-shm")
        candidates = [path for path, existed in ((wal, record.wal_existed), (shm, False)) if not existed]
        try:
            removed += _remove_unless_attached(store, wal, shm, candidates)
        except OSError:
            continue
    return removed
