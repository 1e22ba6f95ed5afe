"""The reads behind the session state, the snapshot origins and the offered system prompt,
on every backend, on a store zett-agent 0.2.1 wrote (``agent_run``: compacted three times in
requests, its last answer cut off at the output limit)."""

from __future__ import annotations

from tests.backends import Backend
from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT
from zett_browser.model import SystemMessage
from zett_browser.model.origins import OriginKind
from zett_browser.model.session_state import StateKind, classify


async def test_last_rows_give_each_sessions_state(backend: Backend) -> None:
    storage = backend.load_fixture("agent_run")
    try:
        found = await storage.last_rows([AGENT_RUN_ROOT, AGENT_RUN_CHILD, "no-such-session"])
    finally:
        await storage.close()
    # Only the rows that tell are read: the last non-system row of each session.
    assert [record.sequence for record in found[AGENT_RUN_ROOT]] == [21]
    assert classify(found[AGENT_RUN_ROOT]).kind is StateKind.CUT_OFF
    assert classify(found[AGENT_RUN_CHILD]).kind is StateKind.FINISHED
    assert found["no-such-session"] == [] and classify([]).kind is StateKind.EMPTY


async def test_a_padded_read_gives_each_session_its_rows_once(backend: Backend) -> None:
    """Three sessions are read as four (the statement's shape is cached by powers of two: the
    last id is repeated); the repeat's rows are not counted twice."""
    storage = backend.load_fixture("agent_run")
    try:
        padded = await storage.last_rows([AGENT_RUN_CHILD, "no-such-session", AGENT_RUN_ROOT])
        alone = await storage.last_rows([AGENT_RUN_ROOT])
    finally:
        await storage.close()
    assert [r.id for r in padded[AGENT_RUN_ROOT]] == [r.id for r in alone[AGENT_RUN_ROOT]]
    assert len({r.id for r in padded[AGENT_RUN_ROOT]}) == len(padded[AGENT_RUN_ROOT]) == 1


async def test_snapshot_origins_and_a_requests_system_rows(backend: Backend) -> None:
    storage = backend.load_fixture("agent_run")
    try:
        versions = await storage.all_snapshot_versions(AGENT_RUN_ROOT)
        origins = await storage.snapshot_origins(AGENT_RUN_ROOT, versions)
        last = (await storage.raw_page_before(AGENT_RUN_ROOT, limit=1))[-1]
        system = await storage.request_system_rows(AGENT_RUN_ROOT, last.request_id, before_sequence=last.sequence)
    finally:
        await storage.close()
    # Each compaction ran inside a request (a DATETIME column without fractions of a second
    # cannot order rows of the same second: no guess there).
    expected = OriginKind.UNKNOWN if backend.name == "mysql" else OriginKind.IN_REQUEST
    assert {made.kind for made in origins.values()} == {expected}
    assert sorted(origins) == [meta.version for meta in versions]
    assert [row.sequence for row in system] == [18, 19]  # the last request's, before #21
    assert all(isinstance(row.message, SystemMessage) for row in system)
