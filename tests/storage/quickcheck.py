"""Compares the start-up reader with the storage, call by call, on one store.

:func:`check` runs :class:`QuickStart` on a store, takes every future the first screen
would take (the calls and arguments it promises), then makes the same calls on the
SQLAlchemy storage (opened with the reader's sidecar guard) and asserts that every
served result equals the storage's; a DECLINED one is counted. It also runs the CLI's
preflight and compares it with :meth:`QuickStart.preflight`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_browser.storage import open_store
from zett_browser.storage.quickstart import DECLINED, QuickStart, key_of

TIMEOUT_S = 60


@dataclass
class Outcome:
    """What the reader did: calls served and declined, and its preflight."""

    served: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    preflight: bool = False
    real_preflight: bool = False


def _calls(session: str, seq: int | None, page_size: int) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
        (name, (session,), {})
        for name in ("get_node", "raw_bounds", "all_snapshot_versions", "snapshot_version", "ancestors")
    ]
    if seq is None:
        calls.append(("raw_page", (session,), {"after_sequence": None, "limit": page_size}))
    return calls


def check(
    path: Path, *, session: str | None = None, seq: int | None = None, page_size: int = 50, roots_page: int = 100
) -> Outcome:
    """Run the reader and the storage on ``path``; assert every served result is exact."""
    quick = QuickStart(path, session=session, seq=seq, page_size=page_size, roots_page=roots_page).start()
    outcome = Outcome(preflight=quick.preflight(timeout=TIMEOUT_S))
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [("change_token", (), {})]
    taken: dict[int, Any] = {}
    if session is None:
        roots = quick.take(key_of("list_roots", (), {"limit": roots_page}))
        assert roots is not None, "the roots are always promised"
        calls.append(("list_roots", (), {"limit": roots_page}))
        taken[1] = roots.result(TIMEOUT_S)
        page = taken[1]
        session = page.items[0].session_id if page is not DECLINED and page.items else None
    if session is not None:
        calls += _calls(session, seq, page_size)
    for index, (name, args, kwargs) in enumerate(calls):
        if index not in taken:
            future = quick.take(key_of(name, args, kwargs))
            taken[index] = DECLINED if future is None else future.result(TIMEOUT_S)
    quick.finish()
    real = asyncio.run(_real(open_store(path, sidecar_guard=quick.guard), calls))
    for index, (name, _args, _kwargs) in enumerate(calls):
        if taken[index] is DECLINED:
            outcome.declined.append(name)
        else:
            assert taken[index] == real[index], f"{name}: the reader's result differs from the storage's"
            outcome.served.append(name)
    outcome.real_preflight = real_preflight_ok(path, quick.session, quick.seq, quick.guard)
    return outcome


async def _real(storage: Any, calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
    """The storage's results (or errors), closed on the same loop (its connections really close)."""
    results = []
    try:
        for name, args, kwargs in calls:
            try:
                results.append(await getattr(storage, name)(*args, **kwargs))
            except Exception as error:  # noqa: BLE001 - compared: a served result can never equal it
                results.append(error)
    finally:
        await storage.close()
    return results


def real_preflight_ok(path: Path, session: str | None, seq: int | None, guard: Any = None) -> bool:
    """Whether the CLI's own preflight (the SQLAlchemy storage) lets the app start."""
    from zett_browser.__main__ import preflight

    try:
        storage = open_store(path, sidecar_guard=guard)
        return asyncio.run(preflight(storage, session, seq)) is None
    except Exception:  # noqa: BLE001 - the CLI reports it: the app does not start
        return False
