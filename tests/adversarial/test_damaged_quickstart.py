"""The start-up reader on damaged stores: exactly the storage's results, or DECLINED, and nothing changed.

Each case damages a copy of a zett-agent-written store with the stdlib (damage.py), then
:func:`tests.storage.quickcheck.check` runs the reader and the storage on it, with the
first root and with the damaged session given (``--session``), and asserts that every
served future equals the storage's result. The cases run twice: with the storage's own
decoder standing in for the fast one (so every served page is compared), and with the
real fast decoder (it may decline, never differ). Store bytes and directory listing
stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from tests.storage.quickcheck import Outcome, check
from zett_browser.storage import quickstart
from zett_browser.storage.codec import decode_reference

#: The session with the newest activity: the first root, opened without --session.
FIRST_ROOT = d.PAGINATION
Damage = Callable[[Path], str | None]  # damages the store; returns the session to open too


def _message(path: Path, sequence: int, payload: object) -> str:
    d.bad_message_value(path, FIRST_ROOT, sequence, "message_json", payload)
    return FIRST_ROOT


def _cycle(path: Path) -> str:
    d.set_parent(path, d.CHILD, d.GRANDCHILD)  # CHILD -> GRANDCHILD -> CHILD
    return d.GRANDCHILD


def _self_parent(path: Path) -> str:
    d.set_parent(path, FIRST_ROOT, FIRST_ROOT)
    return FIRST_ROOT


def _bad_text_id(path: Path) -> str | None:
    d.bad_text(path, "agent_sessions", "id", FIRST_ROOT)
    return None


def _bad_text_parent(path: Path) -> str:
    """The parent's id and the child's parent id hold the same bytes: the storage finds it."""
    d.bad_text(path, "agent_sessions", "id", d.CHILD)
    d.bad_text(path, "agent_sessions", "parent_session_id", d.GRANDCHILD)
    return d.GRANDCHILD


def _nullable_sequence(path: Path) -> str:
    d.bad_message_value(path, FIRST_ROOT, 3, "sequence", None)
    return FIRST_ROOT


def _nullable_activity(path: Path) -> str:
    d.drop_not_null(path, "agent_sessions", ["updated_at"])
    d.execute(path, "update agent_sessions set updated_at = NULL where id = ?", d.EMPTY)
    return d.EMPTY


def _text_sequence(path: Path) -> str:
    d.bad_message_value(path, FIRST_ROOT, 2, "sequence", "two")
    return FIRST_ROOT


def _snapshot_damage(path: Path) -> str:
    d.execute(path, "update session_snapshots set message_json = '[]' where version = 3")
    d.execute(path, "update session_snapshots set version = 'v2' where version = 2")
    return d.CHECKPOINTED


def _snapshot_not_compacted(path: Path) -> str:
    user = d.query(path, "select message_json from raw_messages where session_id = ? and role = 2", d.KITCHEN_SINK)
    d.execute(path, "update session_snapshots set message_json = ? where version = 3", bytes(user[0][0]).decode())
    return d.CHECKPOINTED


def _titles(path: Path) -> str:
    evil = "\x1b[31mred\x1b]8;;http://example.com\x07link\x1b]8;;\x07\r\n\u202eevil" + "x" * 5000
    d.execute(path, "update agent_sessions set title = ?, agent_name = ?", evil, evil)
    return d.GRANDCHILD


def _huge_numbers(path: Path) -> str:
    d.bad_message_value(path, FIRST_ROOT, 1, "input_tokens", 2**63 - 1)
    d.bad_message_value(path, FIRST_ROOT, 2, "output_tokens", -(2**63))
    d.bad_message_value(path, FIRST_ROOT, 3, "duration_ns", 1e308)
    d.bad_message_value(path, FIRST_ROOT, 4, "cache_read_tokens", b"\x00\x01")
    d.execute(path, "update agent_sessions set session_type = 'nightly' where id = ?", FIRST_ROOT)
    return FIRST_ROOT


def _duplicates(path: Path) -> str:
    d.duplicate_sequence(path, FIRST_ROOT, 1, copies=3)
    d.shift_sequences(path, d.KITCHEN_SINK, -5)
    return d.KITCHEN_SINK


def _big_sequence(path: Path) -> str:
    d.bad_message_value(path, FIRST_ROOT, 120, "sequence", 2**63 - 1)
    return FIRST_ROOT


def _integer_id(path: Path) -> str:
    d.execute(path, "update agent_sessions set id = 42, parent_session_id = NULL where id = ?", d.GRANDCHILD)
    d.execute(path, "update agent_sessions set parent_session_id = 42 where id = ?", d.ORPHAN)
    return d.ORPHAN


def _row(sequence: int, column: str, value: object) -> Damage:
    """Set one column of one row on the first root's first page."""

    def damage(path: Path) -> str:
        d.bad_message_value(path, FIRST_ROOT, sequence, column, value)
        return FIRST_ROOT

    return damage


def _bad_text_raw(sequence: int, column: str) -> Damage:
    def damage(path: Path) -> str:
        d.bad_text(path, "raw_messages", column, d.raw_id(path, FIRST_ROOT, sequence))
        return FIRST_ROOT

    return damage


def _session_time(session: str, column: str, value: object) -> Damage:
    def damage(path: Path) -> str:
        d.bad_session_time(path, session, column, value)
        return session

    return damage


CASES: dict[str, Damage] = {
    "bad_json": lambda p: _message(p, 1, "{not json"),
    "unknown_kind": lambda p: _message(p, 2, '[{"kind": 99, "data": {"x": 1}}]'),
    "two_messages": lambda p: _message(p, 3, '[{"kind": 1, "data": {"content": "a"}}, {"kind": 1, "data": {}}]'),
    "wrong_fields": lambda p: _message(p, 4, '[{"kind": 2, "data": {"content": 5, "extra": [1]}}]'),
    "deep_json": lambda p: _message(p, 5, d.deep_json(50_000)),
    "blob_message": lambda p: _message(p, 6, b"\x80\x81"),
    "number_message": lambda p: _message(p, 7, 12),
    "bad_text_message": _bad_text_raw(8, "message_json"),
    "bad_text_raw_id": _bad_text_raw(9, "id"),
    "bad_metadata": _row(10, "metadata_json", "[1]"),
    "bad_tags": _row(11, "tags_json", d.deep_json(50_000)),
    **{f"raw_time_{name}": _row(12, "started_at", value) for name, value in d.BAD_TIMES.items() if value is not None},
    **{
        f"session_time_{name}": _session_time(FIRST_ROOT, "created_at", value)
        for name, value in d.BAD_TIMES.items()
        if value is not None
    },
    "activity_garbage": _session_time(d.EMPTY, "updated_at", "zzzz garbage"),
    "null_reasoning_time": _row(13, "reasoning_started_at", None),
    "nullable_sequence": _nullable_sequence,
    "nullable_activity": _nullable_activity,
    "text_sequence": _text_sequence,
    "big_sequence": _big_sequence,
    "duplicates_and_negative": _duplicates,
    "snapshot_damage": _snapshot_damage,
    "snapshot_not_compacted": _snapshot_not_compacted,
    "escapes_in_titles": _titles,
    "huge_numbers": _huge_numbers,
    "parent_cycle": _cycle,
    "self_parent": _self_parent,
    "orphan": lambda p: d.ORPHAN,
    "bad_text_root_id": _bad_text_id,
    "bad_text_parent": _bad_text_parent,
    "integer_id": _integer_id,
}


def listing(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir())


@pytest.mark.parametrize("decoder", ["exact", "fast"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_damaged_store(case: str, decoder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if decoder == "exact":
        monkeypatch.setattr(quickstart, "decode_fast", decode_reference)
    directory = tmp_path / "store"
    directory.mkdir()
    path = d.copy_fixture("storage_api", directory)
    session = CASES[case](path)
    before, names = d.sha256(path), listing(directory)
    outcomes: list[Outcome] = [check(path)]
    if session is not None:
        outcomes.append(check(path, session=session))
        outcomes.append(check(path, session=session, seq=1))
    for outcome in outcomes:  # every served result was compared inside check()
        assert outcome.real_preflight or not outcome.preflight
    assert (d.sha256(path), listing(directory)) == (before, names)


def test_nullable_sort_keys_are_declined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A NULL band changes the storage's SQL: the reader, generated without it, declines all."""
    monkeypatch.setattr(quickstart, "decode_fast", decode_reference)
    path = d.copy_fixture("storage_api", tmp_path)
    _nullable_sequence(path)
    outcome = check(path)
    assert outcome.served == [] and not outcome.preflight


def test_a_bad_text_root_is_not_opened_by_the_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The storage binds such an id from its bytes (CAST); the reader leaves its calls to it."""
    monkeypatch.setattr(quickstart, "decode_fast", decode_reference)
    path = d.copy_fixture("storage_api", tmp_path)
    _bad_text_id(path)
    outcome = check(path)
    assert outcome.served == ["change_token", "list_roots"] and outcome.preflight


def test_a_bad_text_parent_is_left_to_the_storage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quickstart, "decode_fast", decode_reference)
    path = d.copy_fixture("storage_api", tmp_path)
    outcome = check(path, session=_bad_text_parent(path))
    assert outcome.declined == ["ancestors"]


def test_damaged_rows_are_served_when_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damage inside rows is not a reason to decline: the page with problems is served."""
    monkeypatch.setattr(quickstart, "decode_fast", decode_reference)
    path = d.copy_fixture("storage_api", tmp_path)
    for damage in ("bad_json", "unknown_kind", "raw_time_garbage", "huge_numbers", "escapes_in_titles"):
        CASES[damage](path)
    outcome = check(path)
    assert outcome.declined == [] and "raw_page" in outcome.served and outcome.preflight
