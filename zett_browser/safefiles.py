"""Provides the checks that keep files the browser writes (exports, index files) off the store.

The browser opens a store read-only; the only files it writes are exports and its side
index. Both are refused when their path is the store or one of SQLite's files beside it
(``-wal``, ``-shm``, ``-journal``): compared by resolved path (also for a file that does
not exist yet) and by device and inode (a hard link). Files are never written through a
symbolic link: :func:`refuse_link` checks with ``lstat`` right before a path is opened,
and :func:`create_private` creates with ``O_CREAT | O_EXCL | O_NOFOLLOW``.
:func:`describe_os_error` turns the errors a person can act on (disk full, read-only file
system, permissions) into one line that says what to do.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

#: SQLite's files beside a database.
SIDECARS = ("", "-wal", "-shm", "-journal")


class UnsafePath(OSError):
    """A path the browser must not write: the store, a link, a device; one line for a person."""


class WriteFailed(OSError):
    """A write the file system refused (full, read-only); one line that says what to do."""


def _real(path: Path) -> Path:
    """``path`` resolved through every link (as far as it goes: a link loop stays as is)."""
    path = path.expanduser().absolute()
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop
        return path


def _resolved(path: Path) -> Path:
    """``path`` made absolute through its real directory (the last part itself not followed)."""
    path = path.expanduser().absolute()
    return _real(path.parent) / path.name


def store_files(store: Path) -> list[Path]:
    """The store and its SQLite sidecars, as given and through any links (resolved)."""
    names = {_resolved(store), _real(store)}
    return [Path(f"{name}{suffix}") for name in sorted(names) for suffix in SIDECARS]


def is_store_file(candidate: Path, store: Path | None) -> bool:
    """Whether ``candidate`` is (or would be created as) the store or one of its sidecars."""
    if store is None:
        return False
    targets = store_files(store)
    names = {_resolved(candidate), _real(candidate)}
    if names & set(targets):
        return True
    for target in targets:
        try:
            if os.path.samefile(candidate, target):
                return True
        except OSError:
            continue
    return False


def is_store_directory(directory: Path, store: Path | None) -> bool:
    """Whether ``directory`` is the directory the store (or the file it links to) lives in."""
    if store is None:
        return False
    places = {_resolved(store).parent, _real(store).parent}
    if _real(directory) in places:
        return True
    return any(_same(directory, place) for place in places)


def _same(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def kind(mode: int) -> str | None:
    """What a file that is not a regular file is (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refuse_link(path: Path, what: str) -> os.stat_result | None:
    """``lstat`` ``path`` right before it is opened: refuse anything but a regular file.

    Returns the stat of the regular file, or None when nothing is there.

    Raises:
        UnsafePath: ``path`` is a symbolic link, a directory, a device, FIFO or socket.
    """
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    other = kind(found.st_mode)
    if other is not None:
        raise UnsafePath(f"{what} {path} is {other}, not a file the browser made: remove it and try again")
    return found


def create_private(path: Path) -> None:
    """Create an empty file at ``path`` (mode 0600) unless one is there; never through a link.

    Raises:
        UnsafePath: a link or something else than a regular file is at ``path``.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:
        refuse_link(path, "the file")


def read_only(directory: Path) -> bool:
    """Whether ``directory`` (or its nearest existing parent) is on a read-only file system."""
    for place in (directory, *directory.absolute().parents):
        try:
            return bool(os.statvfs(place).f_flag & os.ST_RDONLY)
        except OSError:
            continue
    return False


def describe_os_error(error: OSError, where: Path | str, doing: str) -> str | None:
    """One line that says what to do about ``error``, or None for errors without advice."""
    place = str(where)
    if error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return f"no space left {doing} in {place}: free some space or choose another directory"
    if error.errno == errno.EROFS:
        return f"{place} is on a read-only file system: choose a writable directory"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"no permission {doing} in {place}: choose a directory you can write to"
    return None
