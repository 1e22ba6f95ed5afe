"""Provides ``--session`` as the commands read it: a full id, or a prefix that names one session.

The storage finds the ids that start with what was typed (one range query on the sessions
table's index, :mod:`zett_browser.storage.prefix`); a prefix that names several sessions is
a one-line error listing them (bounded), one that names none says so. Both exit with 2.
"""

from __future__ import annotations

from ..text import one_line

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage


class SessionChoiceError(Exception):
    """``--session`` names no session, or several (the message is one cleaned line)."""


def is_full_id(typed: str) -> bool:
    """Whether ``typed`` is a whole UUID (the commands then read it as it is, no look-up)."""
    from ..views.labels import UUID  # here: `usage` without --session loads no labelling

    return UUID.match(typed) is not None


async def resolve_session(storage: SQLSessionStorage, typed: str) -> str:
    """The id of the one session ``typed`` names (its full id, or a unique prefix of it).

    Raises:
        SessionChoiceError: No session, or several, start with ``typed``.
    """
    from ..views.labels import UUID_PREFIX, unique_prefixes

    match = await storage.sessions_with_prefix(typed)
    if match.session_id is not None:
        return match.session_id
    shown = one_line(repr(typed), 80)
    if not match.candidates:
        raise SessionChoiceError(f"no session {shown} in {one_line(storage.display_name, 200)}")
    # Each as its shortest prefix among them: what to type to name it.
    prefixes = unique_prefixes(match.candidates, minimum=max(UUID_PREFIX, len(typed) + 1))
    listed = ", ".join(prefixes[candidate] for candidate in match.candidates)
    count = f"{len(match.candidates)}+" if match.more else str(len(match.candidates))
    more = ", …" if match.more else ""
    raise SessionChoiceError(
        f"--session {shown} is ambiguous: {count} sessions start with it: {listed}{more} (type more of the id)"
    )


def resolve_at(store: str | None, typed: str) -> str:
    """:func:`resolve_session` on the store ``store`` names (opened read-only, then closed).

    Raises:
        SessionChoiceError: As :func:`resolve_session`.
        StoreError: The store cannot be opened or read.
    """
    import asyncio  # here: `usage` without --session runs with no event loop

    from ..storage import open_store

    async def run() -> str:
        storage = open_store(store)
        try:
            return await resolve_session(storage, typed)
        finally:
            await storage.close()

    return asyncio.run(run())


__all__ = ["SessionChoiceError", "is_full_id", "resolve_at", "resolve_session"]
