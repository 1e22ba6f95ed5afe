"""Usage totals on damaged stores: bad token and timing values are counted as problems, hostile
names never reach the terminal as escapes, and the store is never touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial import damage as d
from tests.support import listing
from tests.usage import oracle
from tests.usage.stores import sync_now
from zett_browser.cli.usage import main_usage
from zett_browser.index.usage import read_usage

#: Values a token column must never be summed as: text, a float, a negative, a blob, a huge number.
BAD_TOKENS: dict[str, Any] = {
    "text": "many",
    "float": 12.5,
    "negative": -40,
    "blob": b"\xff\x00",
    "huge": 2**62,  # would overflow SQLite's 64-bit sums if it were added
}
HOSTILE = "\x1b[31mred\x1b]8;;https://example.invalid\x07link\x1b]8;;\x07\x1b[2J"


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
@pytest.mark.parametrize("column", ["input_tokens", "output_tokens", "cache_read_tokens", "duration_ns"])
def test_a_bad_usage_value_is_a_problem_never_a_crash(tmp_path: Path, kind: str, column: str) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    # Sequence 4 of the root is an assistant step with usage, written by zett-agent.
    d.bad_message_value(store, d.AGENT_RUN_ROOT, 4, column, BAD_TOKENS[kind])
    digest, files = d.sha256(store), listing(tmp_path)
    index = sync_now(store, tmp_path / "index")
    found = read_usage(index.path, [d.AGENT_RUN_ROOT])[d.AGENT_RUN_ROOT]
    want = oracle.own(store, d.AGENT_RUN_ROOT)
    assert found.own.problems == want.problems == 1
    assert found.own.messages == want.messages == 21
    assert [found.own.tokens.input, found.own.tokens.output] == want.tokens[:2]
    assert found.own.measured_ns == want.measured_ns
    assert d.sha256(store) == digest and listing(tmp_path) == files | {"index": listing(tmp_path)["index"]}


def test_huge_values_in_many_rows_never_overflow_a_sum(tmp_path: Path) -> None:
    store = d.copy_fixture("storage_api", tmp_path)
    d.execute(
        store,
        "UPDATE raw_messages SET input_tokens = ?, duration_ns = ? WHERE session_id = ?",
        2**62,
        2**62,
        d.PAGINATION,
    )
    index = sync_now(store, tmp_path / "index")
    found = read_usage(index.path, [d.PAGINATION])[d.PAGINATION].own
    assert found.problems == 120 and found.tokens.input == 0 and found.measured_ns == 0


def test_bad_times_and_a_null_usage_column_are_counted(tmp_path: Path) -> None:
    store = d.copy_fixture("storage_api", tmp_path)
    d.bad_message_value(store, d.CHECKPOINTED, 2, "started_at", "yesterday-ish")
    d.bad_message_value(store, d.CHECKPOINTED, 4, "completed_at", 12345)
    d.bad_message_value(store, d.CHECKPOINTED, 6, "duration_ns", None)
    index = sync_now(store, tmp_path / "index")
    found = read_usage(index.path, [d.CHECKPOINTED])[d.CHECKPOINTED].own
    want = oracle.own(store, d.CHECKPOINTED)
    assert found.problems == want.problems == 3
    assert found.steps == want.steps == 6 and found.measured_ns == want.measured_ns


def test_hostile_model_agent_and_title_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = d.copy_fixture("storage_api", tmp_path)
    d.execute(
        store,
        "UPDATE raw_messages SET message_json = json_set(message_json, '$[0].data.model', ?) WHERE session_id = ?"
        " AND role = 3",
        HOSTILE,
        d.CHECKPOINTED,
    )
    d.execute(
        store, "UPDATE agent_sessions SET title = ?, agent_name = ? WHERE id = ?", HOSTILE, HOSTILE, d.CHECKPOINTED
    )
    index_dir = str(tmp_path / "index")
    for by in ("model", "agent", "session"):
        assert main_usage([str(store), "--by", by, "--index-dir", index_dir]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out and "red" in out
    assert main_usage([str(store), "--by", "model", "--json", "--index-dir", index_dir]) == 0
    document = json.loads(capsys.readouterr().out)
    assert any(row["key"].endswith(HOSTILE) for row in document["rows"])  # exact, escaped by JSON
    assert main_usage([str(store), "--session", d.CHECKPOINTED, "--index-dir", index_dir]) == 0
    assert "\x1b" not in capsys.readouterr().out
