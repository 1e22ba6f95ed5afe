"""One bad value never hides anything: each damaged value affects only its own row or session.

Every case copies a store real zett-agent 0.2.1 wrote, damages one value with the
stdlib ``sqlite3`` (:mod:`tests.adversarial.damage`), then browses *everything* through
the storage with tiny pages (so the bad row sits on page edges): the whole tree (roots,
children, orphans), each session's Raw Log forwards and backwards, and every documented
and browsing method. It asserts that

- no call raises (only ``load`` of an unreadable latest snapshot raises, a typed
  ``StoreDataError``, as zett-agent raises a ``ValueError`` there),
- every session appears exactly once in the tree and every Raw Log row exactly once in
  each direction (compared with what the stdlib reads from the same file),
- the damaged row or session carries a problem saying what is wrong,
- the store file is byte-for-byte unchanged.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from zett_browser.storage import (
    RawMessageRecord,
    SessionNode,
    SQLSessionStorage,
    StoreDataError,
    open_store,
)

PAGE = 2
RAW_PAGE = 3
#: More pages than any walk of these small stores needs: a walk past it repeats forever.
MAX_PAGES = 500


@dataclass
class Walk:
    """What browsing a whole store reached."""

    tree: list[str] = field(default_factory=list)
    nodes: dict[str, SessionNode] = field(default_factory=dict)
    forward: dict[str, list[str]] = field(default_factory=dict)
    backward: dict[str, list[str]] = field(default_factory=dict)
    records: dict[str, RawMessageRecord] = field(default_factory=dict)
    load_errors: dict[str, str] = field(default_factory=dict)


async def _walk_children(storage: SQLSessionStorage, walk: Walk, node: SessionNode, depth: int = 0) -> None:
    assert depth < 50, "the tree does not end"
    if not node.child_count:
        return
    cursor = None
    for _ in range(MAX_PAGES):
        page = await storage.list_children(node.session_id, limit=PAGE, cursor=cursor)
        for child in page.items:
            await _visit(storage, walk, child, depth + 1)
        if page.next_cursor is None:
            return
        cursor = page.next_cursor
    raise AssertionError("more… never ends under " + node.session_id)


async def _visit(storage: SQLSessionStorage, walk: Walk, node: SessionNode, depth: int = 0) -> None:
    walk.tree.append(node.session_id)
    walk.nodes[node.session_id] = node
    await _walk_children(storage, walk, node, depth)


async def _walk_group(storage: SQLSessionStorage, walk: Walk, lister: Callable[..., object]) -> None:
    cursor = None
    for _ in range(MAX_PAGES):
        page = await lister(limit=PAGE, cursor=cursor)  # type: ignore[misc]
        for node in page.items:
            await _visit(storage, walk, node)
        if page.next_cursor is None:
            return
        cursor = page.next_cursor
    raise AssertionError("more… never ends")


async def _walk_raw(storage: SQLSessionStorage, walk: Walk, session_id: str) -> None:
    forward: list[str] = []
    page = await storage.raw_page(session_id, after_sequence=None, limit=RAW_PAGE)
    for _ in range(MAX_PAGES):
        if not page:
            break
        forward.extend(record.id for record in page)
        walk.records.update((record.id, record) for record in page)
        last = page[-1]
        page = await storage.raw_page(session_id, after_sequence=last.sequence, after_id=last.id, limit=RAW_PAGE)
    else:
        raise AssertionError("the Raw Log's next page never ends")
    backward: list[str] = []
    page = await storage.raw_page_before(session_id, limit=RAW_PAGE)
    for _ in range(MAX_PAGES):
        if not page:
            break
        backward[:0] = [record.id for record in page]
        first = page[0]
        page = await storage.raw_page_before(
            session_id, before_sequence=first.sequence, before_id=first.id, limit=RAW_PAGE
        )
    else:
        raise AssertionError("the Raw Log's previous page never ends")
    walk.forward[session_id] = forward
    walk.backward[session_id] = backward


async def _every_call(storage: SQLSessionStorage, walk: Walk, session_id: str) -> None:
    """Every other method on one session: none may raise but a typed error."""
    bounds = await storage.raw_bounds(session_id)
    assert bounds.count == len(walk.forward[session_id])
    totals = await storage.session_totals(session_id)
    assert totals.messages == bounds.count
    await storage.get_node(session_id)
    await storage.ancestors(session_id)
    await storage.list_snapshots(session_id)
    await storage.text_size(session_id)
    await storage.get_session(session_id)
    assert await storage.count_messages(session_id) == bounds.count
    await storage.list_raw_messages(session_id)
    try:
        await storage.load(session_id)
    except StoreDataError as error:
        walk.load_errors[session_id] = str(error)


async def browse_everything(path: Path) -> Walk:
    """Browse the whole store with small pages, as a user pressing more… everywhere."""
    storage = open_store(path)
    walk = Walk()
    try:
        await storage.change_token()
        await _walk_group(storage, walk, storage.list_roots)
        await _walk_group(storage, walk, storage.list_orphans)
        for session_id in dict.fromkeys(walk.tree):
            await _walk_raw(storage, walk, session_id)
            await _every_call(storage, walk, session_id)
        offset_pages: list[str] = []
        for offset in range(0, 100, PAGE):
            offset_pages.extend(s.session_id for s in await storage.list_sessions(limit=PAGE, offset=offset))
        assert sorted(offset_pages) == sorted(walk.tree)
        await storage.change_token()
    finally:
        await storage.close()
    return walk


def _assert_complete(path: Path, walk: Walk) -> None:
    sessions, raw = d.truth(path)
    duplicates = [sid for sid, count in Counter(walk.tree).items() if count > 1]
    assert not duplicates, f"sessions listed twice: {duplicates}"
    assert set(walk.tree) == sessions, f"hidden: {sessions - set(walk.tree)}"
    for session_id in sessions:
        assert Counter(walk.forward[session_id]) == Counter(raw[session_id]), f"forward pages of {session_id}"
        assert walk.backward[session_id] == walk.forward[session_id], f"backward pages of {session_id}"


# --------------------------------------------------------------------------- cases

#: name -> (fixture, damage(path) -> (kind, target)): kind "session" or "record" names
#: what must carry a problem; None target: the case only must lose nothing.
Case = Callable[[Path], tuple[str, str | None]]
CASES: dict[str, tuple[str, Case]] = {}


def case(name: str, fixture: str = "storage_api") -> Callable[[Case], Case]:
    def register(function: Case) -> Case:
        CASES[name] = (fixture, function)
        return function

    return register


for _label, _value in d.BAD_TIMES.items():
    for _column in ("updated_at", "created_at"):

        def _session_time(path: Path, column: str = _column, value: object = _value) -> tuple[str, str | None]:
            d.widen(path)  # four children: the bad key sits on a page edge of children too
            d.bad_session_time(path, d.CHECKPOINTED, column, value)  # a root, mid-list
            d.bad_session_time(path, d.EMPTY, column, value)  # a child
            return "session", d.CHECKPOINTED

        CASES[f"session {_column} {_label}"] = ("storage_api", _session_time)

    for _column in ("created_at", "updated_at", "started_at", "completed_at"):

        def _record_time(path: Path, column: str = _column, value: object = _value) -> tuple[str, str | None]:
            d.bad_message_value(path, d.KITCHEN_SINK, 3, column, value)
            return "record", d.raw_id(path, d.KITCHEN_SINK, 3)

        CASES[f"message {_column} {_label}"] = ("storage_api", _record_time)


@case("text sequence")
def _text_sequence(path: Path) -> tuple[str, str | None]:
    target = d.raw_id(path, d.PAGINATION, 60)
    d.bad_message_value(path, d.PAGINATION, 60, "sequence", "sixty")
    return "record", target


@case("null sequence")
def _null_sequence(path: Path) -> tuple[str, str | None]:
    target = d.raw_id(path, d.PAGINATION, 7)
    d.bad_message_value(path, d.PAGINATION, 7, "sequence", None)
    return "record", target


@case("sequences <= 0")
def _non_positive(path: Path) -> tuple[str, str | None]:
    d.shift_sequences(path, d.PAGINATION, -60)
    d.shift_sequences(path, d.KITCHEN_SINK, -16)
    return "record", None


@case("duplicate sequences on page edges")
def _duplicates(path: Path) -> tuple[str, str | None]:
    for sequence in (3, 4, 6, 120):
        d.duplicate_sequence(path, d.PAGINATION, sequence, copies=2)
    d.duplicate_sequence(path, d.KITCHEN_SINK, 1, copies=3)
    return "record", None


for _table, _column, _target in (
    ("agent_sessions", "title", d.CHECKPOINTED),
    ("agent_sessions", "agent_name", d.CHECKPOINTED),
    ("agent_sessions", "parent_session_id", d.ORPHAN),
    ("agent_sessions", "id", d.NIGHTLY),
):

    def _session_text(
        path: Path, table: str = _table, column: str = _column, target: str = _target
    ) -> tuple[str, str | None]:
        d.bad_text(path, table, column, target)
        return "session", None if column == "id" else target

    CASES[f"invalid UTF-8 in {_table}.{_column}"] = ("storage_api", _session_text)

for _column in ("message_json", "metadata_json", "tags_json", "request_id", "tool_name", "content", "id"):

    def _record_text(path: Path, column: str = _column) -> tuple[str, str | None]:
        target = d.raw_id(path, d.KITCHEN_SINK, 5)
        d.bad_text(path, "raw_messages", column, target)
        return "record", None if column in ("content", "id") else target

    CASES[f"invalid UTF-8 in raw_messages.{_column}"] = ("storage_api", _record_text)

for _column in ("message_json", "metadata_json", "tags_json"):

    def _deep(path: Path, column: str = _column) -> tuple[str, str | None]:
        d.bad_message_value(path, d.KITCHEN_SINK, 4, column, d.deep_json())
        return "record", d.raw_id(path, d.KITCHEN_SINK, 4)

    CASES[f"JSON 100,000 deep in {_column}"] = ("storage_api", _deep)


@case("JSON 100,000 deep in the latest snapshot", "agent_run")
def _deep_snapshot(path: Path) -> tuple[str, str | None]:
    d.execute(path, "update session_snapshots set message_json=? where version=3", d.deep_json())
    return "load", d.AGENT_RUN_ROOT


for _column, _value in (("role", "tool-ish"), ("input_tokens", "many"), ("duration_ns", b"\x01"), ("sequence", 2**62)):

    def _record_number(path: Path, column: str = _column, value: object = _value) -> tuple[str, str | None]:
        target = d.raw_id(path, d.KITCHEN_SINK, 6)
        d.bad_message_value(path, d.KITCHEN_SINK, 6, column, value)
        return "record", None if column in ("role", "sequence") else target

    CASES[f"message {_column} {_value!r}"] = ("storage_api", _record_number)


@case("session_type is text")
def _session_type_text(path: Path) -> tuple[str, str | None]:
    d.execute(path, "update agent_sessions set session_type='cron' where id=?", d.NIGHTLY)
    return "session", d.NIGHTLY


@case("JSON 100,000 deep in an older snapshot", "agent_run")
def _deep_old_snapshot(path: Path) -> tuple[str, str | None]:
    d.execute(path, "update session_snapshots set message_json=? where version=1", d.deep_json())
    return "record", None


@case("self-parent")
def _self_parent(path: Path) -> tuple[str, str | None]:
    d.set_parent(path, d.NIGHTLY, d.NIGHTLY)
    return "session", d.NIGHTLY


@case("two-session cycle")
def _two_cycle(path: Path) -> tuple[str, str | None]:
    d.set_parent(path, d.NIGHTLY, d.EMPTY)
    d.set_parent(path, d.EMPTY, d.NIGHTLY)
    return "session", d.NIGHTLY  # the smaller id represents the cycle


@case("cycle below a root's child")
def _cycle_with_tail(path: Path) -> tuple[str, str | None]:
    d.set_parent(path, d.CHILD, d.GRANDCHILD)  # 4 -> 5 -> 4; 3 loses its only child
    return "session", d.CHILD


@case("three-session cycle of roots")
def _three_cycle(path: Path) -> tuple[str, str | None]:
    d.set_parent(path, d.KITCHEN_SINK, d.CHECKPOINTED)
    d.set_parent(path, d.CHECKPOINTED, d.NIGHTLY)
    d.set_parent(path, d.NIGHTLY, d.KITCHEN_SINK)
    return "session", d.KITCHEN_SINK


@pytest.mark.parametrize("name", sorted(CASES))
async def test_one_bad_value_hides_nothing(name: str, tmp_path: Path) -> None:
    fixture, build = CASES[name]
    path = d.copy_fixture(fixture, tmp_path)
    kind, target = build(path)
    before, listing = d.sha256(path), sorted(os.listdir(tmp_path))

    walk = await browse_everything(path)

    _assert_complete(path, walk)
    assert d.sha256(path) == before and sorted(os.listdir(tmp_path)) == listing
    if kind == "session" and target is not None:
        assert walk.nodes[target].problems, f"{target} shows no problem"
    elif kind == "record" and target is not None:
        assert walk.records[target].problems, f"{target} shows no problem"
    elif kind == "load":
        assert target in walk.load_errors and "nested too deeply" in walk.load_errors[target]
    if kind != "load":
        assert not walk.load_errors, walk.load_errors


async def test_the_undamaged_fixtures_browse_completely_without_problems(tmp_path: Path) -> None:
    for fixture in d.FIXTURE_NAMES:
        path = d.copy_fixture(fixture, tmp_path, filename=f"{fixture}.sqlite3")
        walk = await browse_everything(path)
        _assert_complete(path, walk)
        assert not any(node.problems for node in walk.nodes.values())
        assert not walk.load_errors


async def test_a_garbage_updated_at_keeps_every_root_on_its_page_edge(tmp_path: Path) -> None:
    """The review's case: 52 of 155 roots vanished behind one bad key at a page edge."""
    path = d.copy_fixture("storage_api", tmp_path)
    for session_id in (d.KITCHEN_SINK, d.NIGHTLY, d.EMPTY):
        d.bad_session_time(path, session_id, "updated_at", "yesterday-ish")
    storage = open_store(path)
    try:
        for limit in (1, 2, 3):
            seen: list[str] = []
            cursor = None
            while True:
                page = await storage.list_roots(limit=limit, cursor=cursor)
                seen.extend(node.session_id for node in page.items)
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
                assert len(seen) < 50
            roots = [s for s in d.truth(path)[0] if s not in (d.CHILD, d.GRANDCHILD, d.ORPHAN)]
            assert sorted(seen) == sorted(roots) and len(seen) == len(roots)
        token = await storage.change_token()
        assert token == await storage.change_token()
    finally:
        await storage.close()


async def test_a_text_sequence_record_keeps_its_place_and_says_why(tmp_path: Path) -> None:
    path = d.copy_fixture("storage_api", tmp_path)
    target = d.raw_id(path, d.PAGINATION, 60)
    d.bad_message_value(path, d.PAGINATION, 60, "sequence", "sixty")
    storage = open_store(path)
    try:
        records = {r.id: r for r in await storage.raw_page(d.PAGINATION, after_sequence=None, limit=500)}
        assert len(records) == 120
        assert "sequence is not an integer" in records[target].problems[0]
        bounds = await storage.raw_bounds(d.PAGINATION)
        assert (bounds.first_sequence, bounds.last_sequence, bounds.count) == (1, 120, 120)
        node = await storage.get_node(d.PAGINATION)
        assert node is not None and node.message_count == 0 and node.problems
    finally:
        await storage.close()


async def test_the_old_raw_page_calls_still_work(tmp_path: Path) -> None:
    path = d.copy_fixture("storage_api", tmp_path)
    storage = open_store(path)
    try:
        page = await storage.raw_page(d.PAGINATION, after_sequence=10, limit=5)
        assert [r.sequence for r in page] == [11, 12, 13, 14, 15]
        before = await storage.raw_page_before(d.PAGINATION, before_sequence=10, limit=3)
        assert [r.sequence for r in before] == [7, 8, 9]
        last = await storage.raw_page_before(d.PAGINATION, limit=2)
        assert [r.sequence for r in last] == [119, 120]
    finally:
        await storage.close()


async def test_ancestors_end_and_mark_a_cycle(tmp_path: Path) -> None:
    path = d.copy_fixture("storage_api", tmp_path)
    d.set_parent(path, d.DELEGATING_PARENT, d.GRANDCHILD)  # 3 -> 4 -> 5 -> 3
    storage = open_store(path)
    try:
        chain = await storage.ancestors(d.GRANDCHILD)
        assert [n.session_id for n in chain] == [d.DELEGATING_PARENT, d.CHILD]
        assert any("parent cycle" in p for p in chain[0].problems)
        orphans = (await storage.list_orphans(limit=10)).items
        assert [n.session_id for n in orphans if n.problems] == [d.DELEGATING_PARENT]
    finally:
        await storage.close()


async def test_the_app_shows_every_session_and_a_page_of_a_damaged_store(tmp_path: Path) -> None:
    """Pilot: a bad newest key, a cycle and a non-UTF-8 title leave the tree and a page readable."""
    from textual.widgets.tree import TreeNode

    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app
    from zett_browser.widgets.rawlog import RawLogView
    from zett_browser.widgets.session_tree import SessionTree

    path = d.copy_fixture("storage_api", tmp_path)
    d.bad_session_time(path, d.PAGINATION, "updated_at", "yesterday-ish")  # sorts first: opened at start
    d.bad_message_value(path, d.PAGINATION, 2, "created_at", "0001-01-01T00:00:00+05:00")
    d.bad_text(path, "agent_sessions", "title", d.KITCHEN_SINK)
    d.set_parent(path, d.NIGHTLY, d.EMPTY)
    d.set_parent(path, d.EMPTY, d.NIGHTLY)
    before = d.sha256(path)
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        records = app.screen.query_one(RawLogView).records
        assert [r.sequence for r in records] == list(range(1, 51))
        assert records[1].problems
        orphans = tree.orphans
        assert orphans is not None
        orphans.expand()
        await settle(pilot)

        def shown(node: TreeNode[object]) -> list[str]:
            ids = [child.data.session_id for child in node.children if isinstance(child.data, SessionNode)]
            return ids + [i for child in node.children for i in shown(child)]  # type: ignore[arg-type]

        top = shown(tree.root)  # type: ignore[arg-type]
        assert d.PAGINATION in top and d.NIGHTLY in top and d.EMPTY not in top
        labels = {str(child.label) for child in orphans.children}
        assert any("parent cycle" in label for label in labels)
    assert d.sha256(path) == before


async def test_live_polling_sees_an_append_behind_a_garbage_updated_at(tmp_path: Path) -> None:
    """A garbage ``updated_at`` sorts above every timestamp; the token must still move."""
    from zett_browser.storage import SQLiteSessionStorage, UserMessage

    path = d.copy_fixture("storage_api", tmp_path)
    d.bad_session_time(path, d.EMPTY, "updated_at", "yesterday-ish")
    browser = open_store(path)
    writer = SQLiteSessionStorage(path)
    try:
        before = await browser.change_token()
        await writer.append(d.KITCHEN_SINK, "r", UserMessage(content="one more"))
        after = await browser.change_token()
        assert after != before
        assert after == await browser.change_token()
    finally:
        await writer.close()
        await browser.close()
