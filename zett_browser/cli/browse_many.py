"""Provides ``zett-browser A.sqlite3 B.sqlite3 …``: several stores browsed as one history.

Each store is opened read-only and checked as when it is opened alone (a missing or foreign
file is one line and exit status 2, nothing created); the same store given twice is an
error. ``--session`` may name a session of any of them, by id or unique prefix (a prefix
matching sessions in two stores lists them). The app then browses a
:class:`~zett_browser.multi.store.MultiStore` over all of them (no start-up fast path: that
reader knows one file).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .args import PROG, one_line, preflight, report, secrets_of
from .sessions import SessionChoiceError, is_full_id, resolve_session

if TYPE_CHECKING:
    from ..multi.store import MultiStore
    from ..storage import SQLSessionStorage


def same_store(first: str, second: str) -> bool:
    """Whether two STORE arguments name the same store (one file by two paths too)."""
    if "://" in first or "://" in second:
        return first == second
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.abspath(first) == os.path.abspath(second)


def open_all(targets: Sequence[str]) -> list[SQLSessionStorage]:
    """Every store opened read-only and checked; the first that cannot be browsed raises.

    Raises:
        StoreError: A store cannot be browsed (its message names it).
        ValueError: A store is given twice.
    """
    from ..storage import open_store

    for index, target in enumerate(targets):
        for earlier in targets[:index]:
            if same_store(earlier, target):
                raise ValueError(f"{target} is given twice (as {earlier})")
    opened: list[SQLSessionStorage] = []
    for target in targets:
        storage = open_store(target)
        opened.append(storage)
        problem = asyncio.run(preflight(storage, None))
        if problem is not None:
            raise ValueError(problem)
    return opened


async def resolve_many(stores: Sequence[SQLSessionStorage], typed: str) -> str:
    """The one session ``typed`` names across ``stores`` (full id or unique prefix).

    Raises:
        SessionChoiceError: None, or several, in all the stores together.
    """
    found: list[str] = []
    problems: list[str] = []
    for storage in stores:
        try:
            session_id = await resolve_session(storage, typed)
        except SessionChoiceError as error:
            if " is ambiguous" in str(error):
                raise
            problems.append(str(error))
        else:
            if session_id not in found:
                found.append(session_id)
        finally:
            await storage.close()
    if len(found) == 1:
        return found[0]
    shown = one_line(repr(typed)[:80])
    if not found:
        raise SessionChoiceError(f"no session {shown} in any of the {len(stores)} stores")
    raise SessionChoiceError(
        f"--session {shown} is ambiguous across the stores: {', '.join(found)} (type more of the id)"
    )


async def check_session(store: MultiStore, session: str, seq: int | None) -> str | None:
    """Why ``--session``/``--seq`` cannot be opened in the joined stores, or None (closes them)."""
    return await preflight(store, session, seq, where=f"any of the {len(store.members)} stores")


def main_browse_many(args: argparse.Namespace, run: Callable[..., int]) -> int:
    """Browse ``args.store`` and ``args.more_stores`` as one; ``run`` is ``run_app`` bound to
    the other options (it takes the store, and ``session``)."""
    from ..multi.store import MultiStore
    from ..storage import StoreError

    targets = [args.store, *args.more_stores]
    secrets = tuple(secret for target in targets for secret in secrets_of(target))
    try:
        stores = open_all(targets)
    except StoreError as error:
        return report(error, debug=args.debug, secrets=secrets)
    except ValueError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 2
    joined = MultiStore(stores)
    session = args.session
    try:
        if session is not None and not is_full_id(session):
            session = asyncio.run(resolve_many(stores, session))
        problem = None if session is None else asyncio.run(check_session(joined, session, args.seq))
    except SessionChoiceError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 2
    except StoreError as error:
        return report(error, debug=args.debug, secrets=secrets)
    if problem is not None:
        print(f"{PROG}: {one_line(problem)}", file=sys.stderr)
        return 2
    return run(joined, session=session)
